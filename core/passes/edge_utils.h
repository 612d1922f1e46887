// Small helpers shared by the to_edge passes (executorch-pipeline.md §1.2):
// walking nested graphs, the layout facts torch derives from strides
// (contiguity, channels-last, Tensor.dim_order()), contiguous strides for
// possibly symbolic sizes, building new nodes (whole-graph dead-code
// elimination: run_dead_code_elimination in lowering_util.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/exported_program.h"
#include "ir/graph.h"
#include "ir/tensor_meta.h"
#include "support/error.h"

namespace pteforge::passes::edge {

/// `graph` and every graph nested in it (higher-order-op bodies), breadth
/// first: the graph, then the subgraphs its nodes take as arguments (node
/// order, argument order), then theirs. This is the order ExecuTorch's
/// bfs_trace_with_node_process visits graph modules in.
std::vector<ir::Graph*> graphs_bfs(ir::Graph& graph);

/// Row-major contiguous strides for `sizes` (elements). A size of 0 counts as
/// 1, as torch does. Symbolic sizes give symbolic strides (a product
/// expression in sympy str form, with a hint when every factor has one).
std::vector<ir::SymInt> contiguous_sym_strides(const std::vector<ir::SymInt>& sizes);

/// `meta` with contiguous strides and storage offset 0 (the layout of a
/// freshly allocated result, e.g. of a `*_copy` op). Strides that already are
/// the contiguous ones (compared through hints) are kept as they are.
ir::TensorMeta with_contiguous_strides(ir::TensorMeta meta);

/// torch's Tensor.is_contiguous(): strides of dims of size 1 are ignored; an
/// empty tensor is contiguous. Symbolic entries are compared through their
/// hints; nullopt when a hint is missing.
std::optional<bool> is_contiguous_layout(const ir::TensorMeta& meta);
/// torch's Tensor.is_contiguous(memory_format=torch.channels_last): rank 4 only.
std::optional<bool> is_channels_last_layout(const ir::TensorMeta& meta);

/// Strides of a channels-last (NHWC) tensor of rank 4 with these sizes.
std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& sizes);

/// torch's Tensor.dim_order(): [0..n-1] for contiguous, [0,2,..,n-1,1] for
/// channels-last, otherwise dims sorted by stride, largest first (ties: the
/// longer dim first; zero strides do not order). nullopt when a symbolic
/// entry has no hint.
std::optional<std::vector<int64_t>> torch_dim_order(const ir::TensorMeta& meta);

/// A 0-d TensorMeta of `dtype` on cpu.
ir::TensorMeta scalar_meta(ir::ScalarType dtype);

/// Builds a call node `target` (short or full form) defining one tensor `name`.
ir::Node make_call(std::string_view target, std::vector<ir::NamedArgument> inputs, const std::string& name);

/// Index of the first USER_INPUT input spec (= its graph input position), or
/// nullopt when the program has no user input.
std::optional<size_t> first_user_input_index(const ir::ExportedProgram& ep);

/// Stable-sorts ep.state.tensors into input-spec order (bindings whose
/// placeholder has no spec go last), as StateBinding documents.
void sort_state_by_signature(ir::ExportedProgram& ep);

}  // namespace pteforge::passes::edge
