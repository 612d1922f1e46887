// Which nodes belong to a module, and whether a module can be outlined
// (seed 004: a node belongs to module P when P is one of the paths of its
// nn_module_stack; the module needs a preserved call signature in
// module_call_graph).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/exported_program.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

/// True when `fqn` is one of the paths of the node's nn_module_stack.
bool node_in_module(const ir::Node& n, std::string_view fqn);

/// True when the program knows module `fqn`: a module_call_graph entry or
/// a path of some node's nn_module_stack.
bool module_known(const ir::ExportedProgram& ep, std::string_view fqn);

/// Nodes of the top-level graph that belong to `fqn`, in graph order.
std::vector<ir::Node*> module_nodes(ir::Graph& g, std::string_view fqn);

/// The preserved call signature of `fqn` (module_call_graph entry with a
/// signature), or nullptr.
const ir::ModuleCallSignature* find_call_signature(const ir::ExportedProgram& ep, std::string_view fqn);
ir::ModuleCallSignature* find_call_signature(ir::ExportedProgram& ep, std::string_view fqn);

/// FQNs with a preserved call signature, in module_call_graph order (root excluded).
std::vector<std::string> preserved_modules(const ir::ExportedProgram& ep);

/// How often `fqn` was called: one plus the number of module_call_graph
/// entries `fqn@1`, `fqn@2`, ..., or the number of distinct nn_module_stack
/// keys of its frame, whichever is larger; 0 when no node belongs to it and
/// it has no call signature (a container that is never called).
size_t module_call_count(const ir::ExportedProgram& ep, std::string_view fqn);

/// Checks that `fqn` can be outlined: not the root, known (a module_call_graph
/// entry or an nn_module_stack path), called once, with a preserved call
/// signature whose in_spec is (args tuple, kwargs dict) and whose leaf counts
/// match its input/output lists.
/// Errors: MODULE_SWAP (root, unknown FQN — the note lists the preserved
/// modules —, no preserved signature — says to export with
/// preserve_module_call_signature —, malformed signature);
/// UNSUPPORTED_FEATURE (module called more than once).
Status check_outline_request(const ir::ExportedProgram& ep, std::string_view fqn);

/// Checks that `nodes` form a convex set of the (topologically ordered)
/// graph: no path leaves the set and comes back, so fusing the set into one
/// node creates no cycle. MODULE_SWAP naming the two nodes of such a path.
Status check_convex(const ir::Graph& g, const std::unordered_set<const ir::Node*>& nodes, std::string_view fqn);

/// Orders FQNs so that nested modules come before the modules that contain
/// them (deepest first, then input order), as outlining needs.
std::vector<std::string> innermost_first(std::vector<std::string> fqns);

/// True when `inner` is `outer` or a submodule path of it ("a.b" in "a").
bool is_same_or_submodule(std::string_view inner, std::string_view outer);

}  // namespace pteforge::passes::module_swap
