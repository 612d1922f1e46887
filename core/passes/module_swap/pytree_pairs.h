// Removing needless pytree flatten/unflatten pairs between two consecutive
// module calls (seed 004, _try_remove_connecting_pytrees).
#pragma once

#include <cstddef>

#include "ir/graph.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

/// For every call_module A whose whole result goes, leaf by leaf and in
/// order, into exactly one other call_module B and nowhere else, makes B take
/// A's result directly and drops the tree_flatten_spec / getitem /
/// tree_unflatten nodes between them. Conditions (the seed's, plus two that
/// keep the flat calling semantics exact):
///  - A's result has one user, a tree_flatten_spec F; F's users are getitems;
///  - the users of those getitems are exactly one node, a tree_unflatten U;
///  - U's leaves are getitem(F, 0), getitem(F, 1), ... in order, and there
///    are as many as A has outputs (an unused output of A blocks it: the seed
///    misses this);
///  - the users of U's args/kwargs children are exactly one call_module B,
///    and B's flat inputs are U's leaves in order.
/// Module bodies are processed too (nested outlined modules). Returns the
/// number of pairs removed; dead pytree nodes are erased.
Result<size_t> remove_pytree_pairs(ir::Graph& g);

/// Erases unused tree_unflatten, tree_flatten_spec, getitem and (unless
/// `keep_calls`) call_module nodes, repeatedly, so chains go. Returns the
/// number erased. remove_pytree_pairs keeps the calls: a module whose results
/// the program never uses is still a module the swap was asked to replace.
Result<size_t> erase_dead_swap_nodes(ir::Graph& g, bool keep_calls = false);

}  // namespace pteforge::passes::module_swap
