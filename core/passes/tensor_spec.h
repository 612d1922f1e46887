// TensorSpec: what the lowering passes, memory planning and the emitter know
// about one tensor value (executorch-pipeline.md §5).
//
// Specs are shared objects, as in ExecuTorch. The SpecTable of a method maps
// value names to specs, and several names may map to ONE TensorSpec:
//   - the `memory.alloc` output(s) that provide an out-variant's out argument(s)
//     and the op's own result value(s) (to_out_variant, §4.3);
//   - the result of an in-place op (`copy_` written by
//     insert_write_back_for_buffers) and the tensor it writes (§3.11, §6.7);
// so planning one plans them all, and the emitter gives them one value.
//
// A `memory.view` value has its own spec (own sizes, strides, dim order and
// dynamism) whose `base` points to the spec whose storage it shares (§4.5,
// §6.7). After memory_planning the view spec's mem_id / mem_offset /
// mem_obj_id / lifetime are copies of its base's; its dtype, is_const,
// constant and is_mutable_buffer are copies from creation. `storage()` gives
// the spec that owns the memory (the base, or the spec itself).
//
// Lifecycle of the fields:
//   spec_prop        dtype, sym_sizes, sym_strides, sizes/strides (trace hints),
//                    dim_order, dynamism, requires_grad, is_const, constant,
//                    is_mutable_buffer, weight_has_gradient
//   remove_view_copy view specs (base set)
//   sym_shape_eval   sizes/strides = upper bounds of the symbolic entries (§5.3)
//   memory_planning  lifetime_first/last, mem_id, mem_offset, mem_obj_id (§6)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor_meta.h"
#include "support/error.h"
#include "support/name_map.h"

namespace pteforge::ir {
struct ConstantRef;
}

namespace pteforge::passes {

/// Shape dynamism as serialized in the .pte Tensor table (TensorShapeDynamism).
enum class ShapeDynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

struct TensorSpec {
  ir::ScalarType dtype = ir::ScalarType::Float;
  /// Symbolic shape as traced; entries may be expressions (kept after sym_shape_eval).
  std::vector<ir::SymInt> sym_sizes;
  /// Symbolic strides as traced (empty for view specs: their strides are the
  /// contiguous strides of `sizes`).
  std::vector<ir::SymInt> sym_strides;
  /// Concrete sizes in elements: the trace-time hints from spec_prop, then the
  /// upper bounds of the dynamic dims once sym_shape_eval ran (§5.3). This is
  /// what the .pte `Tensor.sizes` holds and what memory planning sizes.
  std::vector<int64_t> sizes;
  /// Concrete strides in elements (hints, then upper bounds, like `sizes`).
  std::vector<int64_t> strides;
  /// Dimension order, largest stride first, stable (§5.2), from the traced strides.
  std::vector<uint8_t> dim_order;
  /// Static when every traced size is a plain int, else DynamicBound (§5.3).
  ShapeDynamism dynamism = ShapeDynamism::Static;
  bool requires_grad = false;
  /// Constant data known at compile time: parameters, non-mutated buffers,
  /// lifted tensor constants (ExecuTorch update_placeholder_tensor_specs, §1.3 B3).
  bool is_const = false;
  /// For const placeholders: the bound payload in ExportedProgram::state
  /// (nullptr when the state is not bound). Weights are referenced, never copied.
  const ir::ConstantRef* constant = nullptr;
  /// Buffer placeholder the program mutates (BUFFER_MUTATION target): planned
  /// with a whole-method lifetime (§6.1.2, §6.10).
  bool is_mutable_buffer = false;
  /// Parameter with a gradient in a joint graph (weights_to_outputs, seed 000):
  /// planned although const (§6.1.3).
  bool weight_has_gradient = false;

  // ---- memory planning (§6) ----
  std::optional<uint32_t> mem_id;      ///< pool (>= 1); index into non_const_buffer_sizes
  std::optional<uint64_t> mem_offset;  ///< bytes from the start of pool mem_id
  std::optional<uint32_t> mem_obj_id;  ///< greedy shared-object index (absent for naive/best_fit)
  int64_t lifetime_first = -1;  ///< first node index (ExecuTorch numbering, §6.1.2), -1 = unset
  int64_t lifetime_last = -1;   ///< last node index, inclusive
  /// For memory.view specs: the spec whose storage this view shares (never itself a view).
  std::shared_ptr<TensorSpec> base;

  bool is_view() const { return base != nullptr; }
  /// The spec that owns the storage: `*base` for a view, else this spec.
  const TensorSpec& storage() const { return base ? *base : *this; }
  TensorSpec& storage() { return base ? *base : *this; }
  /// Number of elements of `sizes` (1 for a 0-d tensor, 0 if a dim is 0).
  uint64_t numel() const;
  /// numel × element size, in bytes (ExecuTorch TensorSpec.nbytes()).
  /// numel(), nbytes() and allocated_bytes() saturate at UINT64_MAX instead of
  /// wrapping, so a size past 64 bits reaches memory planning's overflow error.
  uint64_t nbytes() const;
  /// nbytes rounded up to `alignment` (ExecuTorch allocated_memory).
  uint64_t allocated_bytes(uint64_t alignment) const;
  /// Both mem_id and mem_offset are set (the .pte gets an allocation_info, §5.5).
  bool planned() const { return mem_id.has_value() && mem_offset.has_value(); }
};

using TensorSpecPtr = std::shared_ptr<TensorSpec>;

/// Contiguous strides (in elements) for `sizes`; a size-0 dim counts as 1 (§5.2).
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);
/// dim_order from strides: stable sort of dims by stride, largest first (§5.2).
std::vector<uint8_t> dim_order_from_strides(const std::vector<int64_t>& strides);
/// The trace-time value of a SymInt: the value, or the expression's hint.
/// nullopt for an unbacked (hint-less) symbolic value.
std::optional<int64_t> sym_hint(const ir::SymInt& v);

/// Builds a spec from traced metadata (ExecuTorch TensorSpec.from_tensor, §5.1):
/// dtype, symbolic and hinted sizes/strides, dim order from the strides (hints),
/// dynamism, requires_grad. Not const, nothing planned.
/// A symbolic size or stride takes its trace-time hint; one without a hint
/// (an unbacked, data-dependent size) takes `unhinted(value)` when given,
/// e.g. its upper bound from range_constraints (sym_shape_eval replaces every
/// symbolic size by its bound later anyway; the dim order is ordered by these).
/// Errors: PASS_FAILED when a size or stride has neither, or a stride is 0
/// (ExecuTorch rejects zero strides in dim_order_from_stride) or negative.
using UnhintedValue = std::function<std::optional<int64_t>(const ir::SymInt&)>;
Result<TensorSpec> spec_from_meta(const ir::TensorMeta& meta, const UnhintedValue& unhinted = {});

/// Value name → spec for one method. Several names may share one spec.
class SpecTable {
 public:
  /// Open addressing filled to 80% before it grows (the tables' default is
  /// 50%): every value's name and spec, 56 bytes per bucket, all touched when
  /// spec_prop reserves it, was 58 MB of fresh memory at 100k nodes.
  SpecTable() { specs_.max_load_factor(0.8f); }
  /// The spec of value `name`, or nullptr (no allocation: heterogeneous lookup).
  TensorSpecPtr get(std::string_view name) const;
  /// The spec of value `name` without sharing ownership, or nullptr.
  TensorSpec* find(std::string_view name) const;
  void set(std::string_view name, TensorSpecPtr spec);
  void erase(std::string_view name);
  size_t size() const { return specs_.size(); }
  bool empty() const { return specs_.empty(); }
  void clear() { specs_.clear(); }
  /// Makes room for `n` entries without rehashing.
  void reserve(size_t n) { specs_.reserve(n); }
  /// Calls f(name, spec) for every entry (unordered).
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& [name, spec] : specs_) f(name, spec);
  }

 private:
  NameMap<TensorSpecPtr, std::string> specs_;
};

}  // namespace pteforge::passes
