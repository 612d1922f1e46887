// Inlining call_module nodes back into a flat graph (the core of the
// inline_modules pass).
#pragma once

#include <cstddef>

#include "ir/exported_program.h"
#include "support/error.h"

namespace pteforge::passes::module_swap {

struct InlineTotals {
  size_t calls = 0;          ///< call_module nodes inlined
  size_t nodes_inlined = 0;  ///< body nodes copied into the graph
  size_t nodes_renamed = 0;  ///< body values that took a new name (clash with the graph)
  size_t pytree_nodes_removed = 0;
  bool reordered = false;
};

/// Replaces every call_module by the nodes of its body, in program order
/// (bodies of nested modules are inlined in turn). Body inputs map to the
/// flat values the call's arguments stand for (resolve.h) and to the
/// captured values; body values keep their names unless the graph already
/// uses them (then name_1, name_2, ...). A module output keeps the name of
/// the getitem that stood for it, so graph outputs, output specs and
/// module_call_graph signatures keep naming the same values. Afterwards no
/// module-swap node remains and the graph is in topological order.
///
/// Errors: MODULE_SWAP when a body reads an input that has no value in the
/// program (a None leaf); UNSUPPORTED_FEATURE when a used module output is a
/// constant; INTERNAL for malformed module-swap nodes.
Result<InlineTotals> inline_modules(ir::ExportedProgram& ep);

}  // namespace pteforge::passes::module_swap
