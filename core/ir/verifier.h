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

/// verify_graph without the fast pre-check (the document-order walk only);
/// for tests that check both paths agree.
Status verify_graph_detailed(const Graph& graph, const VerifyOptions& options = {});

/// Location of a node for diagnostics: pointer (origin), node name, source frame.
Location node_location(const Node& node);

}  // namespace pteforge::ir
