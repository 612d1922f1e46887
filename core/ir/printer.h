// Compact, stable text form of the IR for golden tests and IR dumps.
//
//   graph(%p_w, %p_b, %x):
//     %permute = aten.permute.default(%p_w, [1, 0])
//     %addmm = aten.addmm.default(%p_b, %x, %permute)
//     %getitem, %max_1_unused_1 = aten.max.dim(%addmm, 1)  # max_1
//     return (%getitem)
//
// Keyword arguments print as name=value; subgraphs of higher-order ops are
// printed, indented, right after the node that uses them.
#pragma once

#include <string>

#include "ir/argument.h"
#include "ir/exported_program.h"
#include "ir/graph.h"

namespace pteforge::ir {

struct PrintOptions {
  /// Print the type of inputs and node outputs: "%x: float32[2, s53]".
  bool types = false;
};

/// "float32[2, s53, 8]" (symbolic sizes shown compactly, see display_sym_expr).
std::string format_tensor_type(const TensorMeta& m);
/// One argument in printer syntax: %x, 1, [1, 0], 1e-05, 'none', torch.float32, None, ...
std::string print_argument(const Argument& a);
std::string print_graph(const Graph& g, const PrintOptions& options = {});
/// The signature (one line per input/output spec) followed by the graph.
std::string print_exported_program(const ExportedProgram& ep, const PrintOptions& options = {});

}  // namespace pteforge::ir
