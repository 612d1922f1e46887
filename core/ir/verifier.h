// IR verifier: the invariants every pass may rely on (engineering-notes D4).
//
// verify_graph checks, in document order: node names present and unique;
// every name used by a node is defined earlier (by a graph input or an
// earlier node) with a matching kind; each value defined once; graph outputs
// name defined values; tensor values have metadata with a known dtype and
// non-negative sizes; nested graphs recursively. verify_program adds the
// signature: one input/output spec per graph input/output, naming the same
// value (or the same constant).
//
// Errors are INVALID_GRAPH with `where.node` (the offending node, when there
// is one), `where.pointer` (JSON pointer of the offending place, when the
// graph came from JSON or its nodes inherited an origin) and `where.source`
// (first stack-trace frame of the node, when known).
#pragma once

#include "ir/exported_program.h"
#include "ir/graph.h"
#include "support/error.h"

namespace pteforge::ir {

struct VerifyOptions {
  /// Every defined tensor value must have a TensorMeta (tensor_values entry).
  bool require_tensor_meta = true;
};

Status verify_graph(const Graph& graph, const VerifyOptions& options = {});
Status verify_program(const ExportedProgram& ep, const VerifyOptions& options = {});

/// What the signature's targets name, as torch.export's verifier requires of
/// a loaded program (its _verify_exported_program_signature): every
/// parameter, buffer, tensor constant and custom object is bound to one graph
/// input only; a buffer_mutation names a buffer input, a gradient_to_parameter
/// or parameter_mutation a parameter input, a user_input_mutation a user
/// input, and no two outputs of one of these kinds name the same target.
/// (gradient_to_user_input is not checked: torch's joint export may name the
/// input as aot_export did, not as its placeholder.) Errors: INVALID_GRAPH with the JSON pointer of the
/// target field, e.g. /graph_module/signature/output_specs/0/buffer_mutation/buffer_name.
/// Checked on import only: passes may leave targets of state they removed.
/// Ends with verify_output_order.
Status verify_signature_targets(const ExportedProgram& ep);

/// The order of the output specs torch.export's verifier requires of a loaded
/// program (_verify_exported_program_signature): the token outputs, then all
/// buffer, parameter and user-input mutations, then all user outputs and the
/// loss, then the rest (gradients). The emitter's rules depend on it (non-user
/// outputs are dropped and training indices counted by position). Errors:
/// INVALID_GRAPH pointing at the first output spec out of place, e.g.
/// /graph_module/signature/output_specs/3. Checked on import only:
/// weights_to_outputs appends token outputs after the gradients.
Status verify_output_order(const ExportedProgram& ep);

/// verify_graph without the fast pre-check (the document-order walk only);
/// for tests that check both paths agree.
Status verify_graph_detailed(const Graph& graph, const VerifyOptions& options = {});

/// Location of a node for diagnostics: pointer (origin), node name, source frame.
Location node_location(const Node& node);

}  // namespace pteforge::ir
