// TensorSpec: what the lowering passes, memory planning and the emitter know
// about one tensor value (executorch-pipeline.md §5).
//
// Specs are shared objects, as in ExecuTorch: a `getitem` result, the
// `memory.alloc` that provides an out-variant's output and the op's own
// output, or an in-place `copy_` and the buffer it writes, all point to ONE
// TensorSpec, so planning one plans them all. A `memory.view` spec has its
// own shape but shares storage with `base` (§4.5, §6.7).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor_meta.h"

namespace pteforge::ir {
struct ConstantRef;
}

namespace pteforge::passes {

/// Shape dynamism as serialized in the .pte Tensor table (TensorShapeDynamism).
enum class ShapeDynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

struct TensorSpec {
  ir::ScalarType dtype = ir::ScalarType::Float;
  /// Symbolic shape as traced (before sym_shape_eval); entries may be expressions.
  std::vector<ir::SymInt> sym_sizes;
  /// Concrete sizes in elements: the traced sizes, or upper bounds for
  /// dynamic dims once sym_shape_eval ran (§5.3).
  std::vector<int64_t> sizes;
  /// Strides in elements (concrete; contiguous for views and dynamic shapes).
  std::vector<int64_t> strides;
  /// Dimension order, largest stride first, stable (§5.2).
  std::vector<uint8_t> dim_order;
  ShapeDynamism dynamism = ShapeDynamism::Static;
  bool requires_grad = false;
  /// Constant data known at compile time (parameters, non-mutated buffers, lifted constants).
  bool is_const = false;
  /// For const specs: the bound payload (weights are referenced, never copied).
  const ir::ConstantRef* constant = nullptr;
  /// Buffer placeholders that the program mutates (planned, whole-method lifetime).
  bool is_mutable_buffer = false;
  /// Parameter with a gradient in a joint graph (weights_to_outputs, seed 000).
  bool weight_has_gradient = false;

  // ---- memory planning (§6) ----
  std::optional<uint32_t> mem_id;
  std::optional<uint64_t> mem_offset;  ///< bytes from the start of buffer mem_id
  std::optional<uint32_t> mem_obj_id;
  int64_t lifetime_first = -1;  ///< node index of the first definition/use, -1 = unset
  int64_t lifetime_last = -1;   ///< node index of the last use (inclusive)
  /// For memory.view specs: the spec whose storage this view shares.
  std::shared_ptr<TensorSpec> base;

  /// Number of elements of `sizes` (1 for a 0-d tensor).
  uint64_t numel() const;
  /// numel × element size, in bytes.
  uint64_t nbytes() const;
  bool planned() const { return mem_id.has_value() && mem_offset.has_value(); }
};

using TensorSpecPtr = std::shared_ptr<TensorSpec>;

/// Contiguous strides (in elements) for `sizes`; a size-0 dim counts as 1 (§5.2).
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);
/// dim_order from strides: stable sort of dims by stride, largest first (§5.2).
std::vector<uint8_t> dim_order_from_strides(const std::vector<int64_t>& strides);

/// Value name → spec for one method. Several names may share one spec.
class SpecTable {
 public:
  /// The spec of value `name`, or nullptr.
  TensorSpecPtr get(std::string_view name) const;
  void set(std::string_view name, TensorSpecPtr spec);
  void erase(std::string_view name);
  size_t size() const { return specs_.size(); }
  void clear() { specs_.clear(); }

 private:
  std::unordered_map<std::string, TensorSpecPtr> specs_;
};

}  // namespace pteforge::passes
