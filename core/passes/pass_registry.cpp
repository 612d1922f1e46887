// The registry table (see pass_registry.h). Order = default pipeline order
// from design.md; sub-passes (not in the default pipeline) come last.
#include "passes/pass_registry.h"

#include "passes/pass_factories.h"

namespace pteforge::passes {

const std::vector<RegisteredPass>& registered_passes() {
  static const std::vector<RegisteredPass> passes = {
      // 1. early cleanup
      {"remove_tensor_metadata_asserts", "drop _assert_tensor_metadata nodes, as to_edge does", "to_edge", &make_remove_tensor_metadata_asserts_pass, true},
      // 2. training IR -> Core ATen
      {"decompose", "rewrite non-core ATen ops into Core ATen (PyTorch's default decompositions)", "decompose", &make_decompose_pass, true},
      // 3. module swap (only when swaps are requested)
      {"swap_modules", "replace preserved submodules with user-supplied exported programs", "swap", &make_swap_modules_pass, true},
      // 4. to_edge (verify_shapes first: to_edge re-traces every call)
      {"verify_shapes", "re-infer each ATen call's output dtype and sizes; refuse wrong arguments and metadata", "to_edge", &make_verify_shapes_pass, true},
      {"remove_unused_parameters", "delete parameter placeholders that have no users", "to_edge", &make_remove_unused_parameters_pass, true},
      {"replace_view_ops_with_copy", "replace view ops with their _copy twins (view -> view_copy)", "to_edge", &make_replace_view_ops_with_copy_pass, true},
      {"normalize_sym_size", "turn sym_size/sym_stride/sym_numel packets into their .int/.default overloads", "to_edge", &make_normalize_sym_size_pass, true},
      {"scalar_to_tensor", "turn Python scalars passed to Tensor arguments into 0-d tensor constants", "to_edge", &make_scalar_to_tensor_pass, true},
      {"sym_to_tensor", "wrap SymInt/SymFloat/SymBool passed to Tensor arguments in scalar_tensor", "to_edge", &make_sym_to_tensor_pass, true},
      {"remove_noops", "remove identity to/dropout/slice nodes", "to_edge", &make_remove_noops_pass, true},
      {"prune_empty_tensors", "drop zero-element inputs of cat", "to_edge", &make_prune_empty_tensors_pass, true},
      {"remove_redundant_to_copy", "remove _to_copy nodes that change nothing", "to_edge", &make_remove_redundant_to_copy_pass, true},
      {"remove_mixed_type_operators", "insert dtype casts so binary ops see one promoted dtype", "to_edge", &make_remove_mixed_type_operators_pass, true},
      {"memory_format_to_dim_order", "replace _to_copy/clone/empty with dim_order_ops equivalents", "to_edge", &make_memory_format_to_dim_order_pass, true},
      {"lift_constant_tensors", "lift remaining tensor constants to buffer placeholders", "to_edge", &make_lift_constant_tensors_pass, true},
      {"contiguous_constants", "make constants that are neither contiguous nor channels-last contiguous", "to_edge", &make_contiguous_constants_pass, true},
      {"eliminate_dead_code", "remove nodes whose results are unused and have no side effects", "to_edge",
       &make_eliminate_dead_code_pass, true},
      {"generate_debug_handles", "number nodes for the debug-handle map", "to_edge", &make_generate_debug_handles_pass, true},
      // 5. to_executorch
      {"weights_to_outputs", "joint graphs: append parameters that have gradients to the outputs", "to_executorch", &make_weights_to_outputs_pass, true},
      {"insert_write_back_for_buffers", "copy_ mutated buffers back in place before the output", "to_executorch", &make_insert_write_back_for_buffers_pass, true},
      {"legalize_portable_dim_order", "make inputs of layout-sensitive portable ops contiguous", "to_executorch", &make_legalize_portable_dim_order_pass, true},
      {"spec_prop", "attach a TensorSpec to every tensor value", "to_executorch", &make_spec_prop_pass, true},
      {"edge_to_backend_ops", "turn symbolic scalar arithmetic into executorch_prim ops", "to_executorch", &make_edge_to_backend_ops_pass, true},
      {"remove_graph_asserts", "remove runtime assertion nodes", "to_executorch", &make_remove_graph_asserts_pass, true},
      {"remove_view_copy", "turn view_copy nodes not feeding the output into memory views", "to_executorch", &make_remove_view_copy_pass, true},
      {"sym_shape_eval", "replace symbolic sizes with their upper bounds", "to_executorch", &make_sym_shape_eval_pass, true},
      {"to_out_variant", "convert functional ops into out variants with memory.alloc outputs", "to_executorch", &make_to_out_variant_pass, true},
      {"memory_planning", "assign arena offsets to every planned tensor", "to_executorch", &make_memory_planning_pass, true},
      // sub-passes
      {"legalize", "topologically sort the graph", "utility", &make_legalize_pass, false},
      {"outline_modules", "fuse the nodes of preserved submodules into module calls", "swap", &make_outline_modules_pass, false},
      {"remove_pytree_pairs", "remove needless pytree flatten/unflatten pairs between module calls", "swap",
       &make_remove_pytree_pairs_pass, false},
      {"replace_modules", "substitute outlined submodules with replacement programs", "swap", &make_replace_modules_pass,
       false},
      {"inline_modules", "inline module calls back into a flat graph", "swap", &make_inline_modules_pass, false},
  };
  return passes;
}

const RegisteredPass* find_pass(std::string_view name) {
  for (const auto& p : registered_passes()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> default_pipeline() {
  std::vector<std::string> names;
  for (const auto& p : registered_passes()) {
    if (p.in_default_pipeline) names.emplace_back(p.name);
  }
  return names;
}

Result<std::unique_ptr<Pass>> create_pass(std::string_view name) {
  const RegisteredPass* p = find_pass(name);
  if (!p) {
    Error e = make_error(ErrorCode::UNKNOWN_PASS, "unknown pass \"" + std::string(name) + "\"");
    std::string valid;
    for (const auto& r : registered_passes()) {
      if (!valid.empty()) valid += ", ";
      valid += r.name;
    }
    e.notes.push_back("valid passes: " + valid);
    return e;
  }
  if (!p->factory) {
    Location where;
    where.pass = std::string(name);
    return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                      "pass \"" + std::string(name) + "\" is not implemented yet", where);
  }
  return p->factory();
}

}  // namespace pteforge::passes
