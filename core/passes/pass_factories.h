// Factory declarations of the implemented passes (one per pass file); the
// registry table in pass_registry.cpp refers to them.
#pragma once

#include <memory>

#include "passes/pass.h"

namespace pteforge::passes {

std::unique_ptr<Pass> make_eliminate_dead_code_pass();
// to_executorch group
std::unique_ptr<Pass> make_weights_to_outputs_pass();
std::unique_ptr<Pass> make_insert_write_back_for_buffers_pass();
std::unique_ptr<Pass> make_legalize_portable_dim_order_pass();
std::unique_ptr<Pass> make_spec_prop_pass();
std::unique_ptr<Pass> make_edge_to_backend_ops_pass();
std::unique_ptr<Pass> make_remove_graph_asserts_pass();
std::unique_ptr<Pass> make_remove_view_copy_pass();
std::unique_ptr<Pass> make_sym_shape_eval_pass();
std::unique_ptr<Pass> make_to_out_variant_pass();
std::unique_ptr<Pass> make_memory_planning_pass();

// to_edge group (passes-edge)
std::unique_ptr<Pass> make_remove_tensor_metadata_asserts_pass();
std::unique_ptr<Pass> make_remove_unused_parameters_pass();
std::unique_ptr<Pass> make_replace_view_ops_with_copy_pass();
std::unique_ptr<Pass> make_normalize_sym_size_pass();
std::unique_ptr<Pass> make_scalar_to_tensor_pass();
std::unique_ptr<Pass> make_sym_to_tensor_pass();
std::unique_ptr<Pass> make_remove_noops_pass();
std::unique_ptr<Pass> make_prune_empty_tensors_pass();
std::unique_ptr<Pass> make_remove_redundant_to_copy_pass();
std::unique_ptr<Pass> make_remove_mixed_type_operators_pass();
std::unique_ptr<Pass> make_memory_format_to_dim_order_pass();
std::unique_ptr<Pass> make_lift_constant_tensors_pass();
std::unique_ptr<Pass> make_contiguous_constants_pass();
std::unique_ptr<Pass> make_generate_debug_handles_pass();
std::unique_ptr<Pass> make_legalize_pass();
std::unique_ptr<Pass> make_decompose_pass();
std::unique_ptr<Pass> make_verify_shapes_pass();
// module swap (swap)
std::unique_ptr<Pass> make_swap_modules_pass();
std::unique_ptr<Pass> make_outline_modules_pass();
std::unique_ptr<Pass> make_remove_pytree_pairs_pass();
std::unique_ptr<Pass> make_replace_modules_pass();
std::unique_ptr<Pass> make_inline_modules_pass();

}  // namespace pteforge::passes
