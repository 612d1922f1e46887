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

}  // namespace pteforge::passes
