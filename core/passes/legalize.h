// Topological sorting of a graph (the `legalize` utility pass, used by module
// swap: design.md "The default pipeline" step 3).
#pragma once

#include "ir/graph.h"
#include "support/error.h"

namespace pteforge::passes {

/// How legalize_graph orders nodes.
enum class LegalizeOrder {
  /// torch.fx.passes.tools_common.legalize_graph, which torch.export's module
  /// swap runs (seed 004): Kahn's algorithm over a FIFO queue seeded with the
  /// placeholders and dependency-free nodes in graph order; a node whose last
  /// dependency was placed is appended, or put in front when it is one of the
  /// prioritised assertion/symbolic ops (_operator arithmetic and comparisons,
  /// sym_constrain_range(_for_size), _assert_async.msg, scalar_tensor,
  /// _assert_scalar). Multi-output nodes are followed by one virtual getitem
  /// per output, as in FX. NOT stable: a valid order may change.
  Fx,
  /// Stable: a node is placed as soon as its producers are, preferring the
  /// earliest in the current order; a valid graph keeps its order.
  Stable,
};

/// Reorders `graph`'s nodes topologically. Returns true when the order
/// changed. INVALID_GRAPH (where.node = a node on the cycle) when the
/// dependencies form a cycle; nothing changes then. Nested graphs are not
/// touched (each has its own namespace).
Result<bool> legalize_graph(ir::Graph& graph, LegalizeOrder order = LegalizeOrder::Fx);

}  // namespace pteforge::passes
