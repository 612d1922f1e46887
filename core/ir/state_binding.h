// StateBinding: where the bytes of every parameter, buffer and tensor
// constant of a method live (torch-export-format.md §1.4–§1.6).
//
// Weights are referenced, never copied: each bound tensor names a payload
// storage (an archive entry such as data/weights/weight_0) and the byte range
// its view needs inside it. Several tensors may share one storage (tied
// weights, views of one buffer); the storage appears once. Built by
// serde::bind_state (serde/state_binding.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/dtype.h"
#include "ir/signature.h"

namespace pteforge::ir {

/// Which payload folder an entry lives in.
enum class PayloadStore : uint8_t {
  Weights,    ///< data/weights/ (parameters, persistent buffers)
  Constants,  ///< data/constants/ (tensor constants, non-persistent buffers)
};
/// "weights" or "constants".
std::string_view payload_store_name(PayloadStore s);

/// One payload file (one distinct storage).
struct PayloadStorage {
  PayloadStore store = PayloadStore::Weights;
  std::string path_name;    ///< file name inside the store folder, e.g. "weight_0"
  uint64_t size_bytes = 0;  ///< payload size; 0 = zero-filled (no bytes stored)
  /// Which input holds the entry: "" = the main input (the archive being
  /// converted); any other value is the label of an additional input given
  /// when it was loaded, e.g. "swap:encoder.layer.1" for the weights a module
  /// swap brings in (passes::SwapRequest). The front door that reads
  /// payload bytes keeps a map from label to archive.
  std::string source{};

  /// Record path relative to the archive root, e.g. "data/weights/weight_0".
  std::string entry() const;
  bool operator==(const PayloadStorage&) const = default;
};

/// One state tensor bound to its payload (a constant reference).
struct ConstantRef {
  std::string fqn;          ///< state name from the signature (parameter_name, ...)
  std::string placeholder;  ///< graph input name
  InputKind kind = InputKind::Parameter;  ///< Parameter, Buffer or TensorConstant
  bool is_param = false;    ///< from the payload config
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;    ///< elements
  std::vector<int64_t> strides;  ///< elements
  int64_t storage_offset = 0;    ///< elements
  uint32_t storage = 0;          ///< index into StateBinding::storages
  uint64_t byte_offset = 0;      ///< storage_offset * element size
  uint64_t byte_length = 0;      ///< bytes from byte_offset to the end of the view's last element (0 when empty)
  bool zero_filled = false;      ///< the payload has no bytes: the tensor is all zeros
  /// Bytes owned by the binding instead of a payload: tensors created by passes
  /// (scalar_to_tensor's 0-d constants). Little-endian elements in row-major
  /// order, exactly nbytes() long. When set, `storage` and `byte_offset` are
  /// unused (0) and `byte_length` equals its size.
  std::optional<std::vector<uint8_t>> inline_data;
  /// Set by contiguous_constants (pipeline §1.2 step 10, §5.2): the emitter must
  /// write the elements in row-major (contiguous) order. `strides` keep
  /// describing where the elements are in the payload; the graph placeholder's
  /// TensorMeta already has the contiguous strides.
  bool make_contiguous = false;

  /// True when the bytes are held in `inline_data` rather than a payload storage.
  bool is_inline() const { return inline_data.has_value(); }
  uint64_t numel() const;
  /// Bytes of the tensor's elements (numel * element size).
  uint64_t nbytes() const;
  bool is_contiguous() const;
  bool operator==(const ConstantRef&) const = default;
};

struct StateBinding {
  std::vector<PayloadStorage> storages;
  std::vector<ConstantRef> tensors;  ///< in signature order

  bool empty() const { return tensors.empty(); }
  const ConstantRef* find(std::string_view fqn) const;
  const ConstantRef* find_placeholder(std::string_view placeholder) const;
  ConstantRef* find_placeholder(std::string_view placeholder);
  /// Every binding by placeholder name, for passes that look many up (one
  /// find_placeholder is a linear scan). The map points into `tensors`: it is
  /// valid until `tensors` changes.
  std::unordered_map<std::string_view, const ConstantRef*> placeholder_index() const;
  /// The payload storage of `t` (precondition: !t.is_inline()).
  const PayloadStorage& storage_of(const ConstantRef& t) const { return storages.at(t.storage); }
  /// Removes the binding of `placeholder` and, when no other tensor shares it,
  /// its storage (later storage indices shift down). True when one was removed.
  bool erase_placeholder(std::string_view placeholder);
  bool operator==(const StateBinding&) const = default;
};

}  // namespace pteforge::ir
