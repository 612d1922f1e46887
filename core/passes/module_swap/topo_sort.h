// Stable topological sort of a graph's nodes (private helper of the module
// swap passes until the `legalize` pass from branch passes-edge lands; the
// swap_modules pipeline then calls that pass instead).
//
// Mirrors torch.fx.passes.tools_common.legalize_graph as the seed (004) uses
// it: every node comes after the producers of the values it reads; among the
// nodes that are ready, the one that came first keeps coming first, so an
// already valid order is left unchanged.
#pragma once

#include "ir/graph.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

/// Reorders the top-level nodes of `g`; returns true when the order changed.
/// INVALID_GRAPH (naming a node on the cycle) when the dependencies form a
/// cycle; then the order is unchanged.
Result<bool> stable_topological_sort(ir::Graph& g);

}  // namespace pteforge::passes::module_swap
