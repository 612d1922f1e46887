// Small value-renaming helpers shared by the module swap passes.
#pragma once

#include <string>
#include <string_view>

#include "ir/exported_program.h"
#include "ir/graph.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

/// A copy of `a` with every value name replaced by `name` (for single-value arguments).
ir::Argument renamed(const ir::Argument& a, const std::string& name);

/// An argument referring to value `name` of `g`, tagged by the value's kind
/// (as_tensor for tensors and values of unknown kind, as_sym_int, ...).
ir::Argument value_argument(const ir::Graph& g, const std::string& name);

/// Rewrites the references to `from` in the inputs of `node` to `to`.
void rename_uses(ir::Node& node, const std::string& from, const std::string& to);

/// Rewrites references to `from` in the graph outputs and the output specs of `ep`.
void rename_in_outputs(ir::ExportedProgram& ep, const std::string& from, const std::string& to);

/// Renames value `from` (defined by a node of the top-level graph) to `to`
/// everywhere: its definition, metadata, every use (nodes, graph outputs,
/// output specs, module_call_graph signatures), and the node's name when it
/// was named after the value and `to` is free as a node name.
/// INTERNAL when `from` is not defined by a node or `to` is taken.
Status rename_value(ir::ExportedProgram& ep, const std::string& from, const std::string& to);

}  // namespace pteforge::passes::module_swap
