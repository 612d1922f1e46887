// Tensor metadata (TensorMeta, schema §3.5) and the small enums that travel
// with it (Device, Layout, MemoryFormat, schema §3.1/§3.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/sym.h"

namespace pteforge::ir {

/// torch.layout, numbered as in the export schema (§3.1).
enum class Layout : uint8_t {
  Unknown = 0,
  SparseCoo = 1,
  SparseCsr = 2,
  SparseCsc = 3,
  SparseBsr = 4,
  SparseBsc = 5,
  Mkldnn = 6,
  Strided = 7,
};
inline constexpr int kMaxLayout = 7;

/// torch.memory_format, numbered as in the export schema (§3.1).
enum class MemoryFormat : uint8_t {
  Unknown = 0,
  ContiguousFormat = 1,
  ChannelsLast = 2,
  ChannelsLast3d = 3,
  PreserveFormat = 4,
};
inline constexpr int kMaxMemoryFormat = 4;

/// Python spelling, e.g. "torch.strided".
std::string_view layout_name(Layout l);
/// Python spelling, e.g. "torch.preserve_format".
std::string_view memory_format_name(MemoryFormat f);

/// torch.device: type ("cpu", "cuda", ...) and optional index (null = current).
struct Device {
  std::string type = "cpu";
  std::optional<int64_t> index;
  bool operator==(const Device&) const = default;
};

/// Shape, dtype and layout of a tensor value. Sizes, strides and
/// storage_offset are in elements and may be symbolic.
struct TensorMeta {
  ScalarType dtype = ScalarType::Float;
  std::vector<SymInt> sizes;
  bool requires_grad = false;
  Device device;
  std::vector<SymInt> strides;
  SymInt storage_offset;
  Layout layout = Layout::Strided;

  bool operator==(const TensorMeta&) const = default;

  size_t rank() const { return sizes.size(); }
  /// True when every size, stride and the storage offset are concrete.
  bool is_static() const;
  /// Product of the sizes; nullopt when a size is symbolic or the product overflows int64.
  std::optional<int64_t> numel() const;
  /// numel() * element size in bytes; nullopt when numel() is unknown.
  std::optional<uint64_t> nbytes() const;
  /// Concrete sizes; nullopt when any size is symbolic.
  std::optional<std::vector<int64_t>> concrete_sizes() const;
  /// Concrete strides; nullopt when any stride is symbolic.
  std::optional<std::vector<int64_t>> concrete_strides() const;
  /// True when the (concrete) strides are the row-major contiguous strides of the sizes.
  bool is_contiguous() const;
};

/// Row-major contiguous strides for `sizes` (elements).
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

/// A TensorMeta with concrete sizes, contiguous strides, offset 0, on cpu.
TensorMeta make_tensor_meta(ScalarType dtype, const std::vector<int64_t>& sizes);

}  // namespace pteforge::ir
