// Following pytree packing back to flat values: which flat values a
// call_module's arguments stand for (the flat calling semantics of
// pytree_ir.h).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ir/treespec.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

/// A pytree value: its structure and its leaves (values or literals).
struct Tree {
  ir::TreeSpecNode spec;
  std::vector<ir::Argument> leaves;
};

/// Flat results of call_module nodes that were already inlined (call output
/// value name -> the flat outputs).
using InlinedCalls = std::unordered_map<std::string, std::vector<ir::Argument>>;

/// The tree `a` stands for: through getitem (child selection),
/// tree_unflatten (spec + leaf arguments), tree_flatten_spec (a flat list)
/// and already-inlined call_module nodes (a flat list); any other value or a
/// literal is a single leaf. INTERNAL for a call_module that was not inlined
/// or a getitem outside its container.
Result<Tree> resolve_tree(const ir::Graph& g, const ir::Argument& a, const InlinedCalls* calls);

/// The flat inputs of a call_module: the leaves of its positional arguments,
/// then of its keyword arguments, in order.
Result<std::vector<ir::Argument>> call_flat_inputs(const ir::Graph& g, const ir::Node& call,
                                                   const InlinedCalls* calls);

/// A list spec with `n` leaves.
ir::TreeSpecNode flat_list_spec(size_t n);

}  // namespace pteforge::passes::module_swap
