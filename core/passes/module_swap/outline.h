// Outlining one preserved module into a call_module (the core of the
// outline_modules pass; node forms in pytree_ir.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

struct OutlineResult {
  std::string call_node;    ///< name of the new call_module node
  size_t nodes_moved = 0;   ///< partition nodes moved into the body
  size_t nodes_hoisted = 0; ///< symbolic-size nodes left outside (see below)
  size_t captured = 0;      ///< "captured" entries of the call
};

/// Outlines module `fqn` of `ep` (seed 004, _swap_module_helper): the nodes
/// whose nn_module_stack contains `fqn` move into a body graph called by a
/// new call_module node; the signature's inputs are packed with
/// tree_unflatten(in_spec) and picked apart with getitem; the outputs are
/// unpacked with tree_flatten_spec(out_spec) + getitem. The getitems that
/// stand for the module's outputs take over the names of those outputs, so
/// the rest of the graph, the graph signature and module_call_graph keep
/// naming the same values. Inputs that have no value in the program
/// (unused, removed at export) and None inputs become None leaves, as in
/// the seed.
///
/// A node of the module that only computes a symbolic scalar (sym_size,
/// SymInt arithmetic) from values outside the module (or from other such
/// nodes) and is also used outside it stays outside and is captured: export
/// shares such nodes between modules, and their value does not depend on
/// the module's implementation.
///
/// The new nodes are placed before the module's first node; the caller must
/// restore a topological order afterwards (legalize_graph with LegalizeOrder::Stable).
/// Precondition: check_outline_request(ep, fqn) passed and the graph is in
/// topological order.
///
/// Errors: MODULE_SWAP when the module's nodes are not convex, when a value
/// computed inside the module is used outside but is not one of its outputs,
/// or when an input of the signature is computed inside the module;
/// UNSUPPORTED_FEATURE when the module mutates a buffer or input (its
/// value feeds a mutation output). where.node names the offending node.
Result<OutlineResult> outline_module(ir::ExportedProgram& ep, const std::string& fqn);

}  // namespace pteforge::passes::module_swap

namespace pteforge::passes::module_swap {

/// Totals of outline_modules over several modules.
struct OutlineTotals {
  size_t modules = 0;
  size_t nodes_moved = 0;
  size_t nodes_hoisted = 0;
  size_t captured = 0;
  bool reordered = false;  ///< the final topological sort moved nodes
};

/// Outlines every module of `fqns`: checks all requests first
/// (check_outline_request; OPTION_INVALID for an FQN given twice), then
/// outlines nested modules before the modules containing them, then restores
/// a topological order. Errors as check_outline_request and outline_module.
Result<OutlineTotals> outline_modules(ir::ExportedProgram& ep, const std::vector<std::string>& fqns);

}  // namespace pteforge::passes::module_swap
