// Small helpers shared by the to_executorch passes (core/passes/*.cpp):
// the memory.* node targets, ExecuTorch's "symbolic op" set, schema kinds of
// nodes, and running dead-code elimination from inside another pass.
//
// Representation of ExecuTorch's memory nodes in the IR (decided here, used
// by to_out_variant, remove_view_copy, memory_planning and the emitter):
//
//   %alloc = memory.alloc([2, 3], torch.float32)
//       target OpTarget("memory.alloc") (TargetKind::Other, ns "memory", op "alloc");
//       inputs: `size` (as_ints, the upper-bound sizes) and `dtype`
//       (as_scalar_type) — informational; the spec is what counts;
//       outputs: one as_tensor, or one as_tensors for a `Tensor(a!)[] out`
//       (split_copy.Tensor_out); each alloc value has the TensorMeta of the
//       op result it stands for and shares that result's TensorSpec.
//
//   %view = memory.view(%base, [6, 4])
//       target OpTarget("memory.view"); inputs are the former view_copy's
//       `self` and `size` arguments, unchanged; output: the former
//       view_copy's value (same name), whose spec is a view spec (base set).
#pragma once

#include <string_view>

#include "ir/exported_program.h"
#include "ir/node.h"
#include "ops/op_schema.h"
#include "passes/pass.h"
#include "support/error.h"

namespace pteforge::passes {

inline constexpr std::string_view kMemoryAlloc = "memory.alloc";
inline constexpr std::string_view kMemoryView = "memory.view";

/// The interned target of memory.alloc / memory.view.
const ir::OpTarget& memory_alloc_target();
const ir::OpTarget& memory_view_target();
bool is_memory_alloc(const ir::Node& node);
bool is_memory_view(const ir::Node& node);

/// UNSUPPORTED_FEATURE at `node`, a higher-order op (OpTarget::is_higher_order):
/// delegate calls and control flow cannot be emitted yet (node_location; no method).
Error higher_order_error(const ir::Node& node);

/// The operator schema of an op-overload node (TargetKind::Operator), or nullptr.
const ops::OpSchema* node_schema(const ir::Node& node);
/// ops::op_table().find(target.str()), memoized by the interned target (the
/// passes and the emitter ask for the same few targets once per node).
const ops::OpSchema* target_schema(const ir::OpTarget& target);

/// ExecuTorch's symbolic ops (§3.8, prim_ops.md `_EXECUTORCH_SYM_OPS`):
/// aten.sym_size.int, sym_stride.int, sym_numel.default, _local_scalar_dense.default,
/// sym_constrain_range(_for_size).default and every executorch_prim op.
/// They are not converted to out variants and produce no tensor.
bool is_symbolic_op(const ir::OpTarget& target);

/// True when a call passes `in` by keyword: as the node records it, or, for files
/// that do not record it, when `schema` (may be null) makes the argument keyword-only.
bool passed_by_keyword(const ir::NamedArgument& in, const ops::OpSchema* schema);

/// The node calls an in-place overload (schema kind Inplace, e.g. copy_).
bool is_inplace_node(const ir::Node& node);
/// The node calls an out-variant overload (schema kind Out, e.g. add.out).
bool is_out_variant_node(const ir::Node& node);

/// Runs eliminate_dead_code on `ep` as part of the running pass (its counter
/// "nodes_removed" is added to the running pass's stats). Returns whether it removed nodes.
Result<bool> run_dead_code_elimination(ir::ExportedProgram& ep, PassContext& ctx);

/// Names of the tensor values an argument refers to, in order.
std::vector<std::string> tensor_names(const ir::Argument& arg);

/// Calls f(const std::string& name) for every tensor value the argument
/// refers to, in order, without copying the names (tensor_names without the vector).
template <typename F>
void for_each_tensor_name(const ir::Argument& arg, F&& f) {
  ir::for_each_value_name(arg, [&f](const std::string& name, ir::ValueKind kind) {
    if (kind == ir::ValueKind::Tensor) f(name);
  });
}

/// Whether the argument refers to at least one tensor value.
bool has_tensor_name(const ir::Argument& arg);

}  // namespace pteforge::passes
