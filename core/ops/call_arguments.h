// Checks the arguments of operator calls against the operators' schemas, as
// loading a program in torch binds them (torch.export's deserializer,
// GraphModuleDeserializer.deserialize_inputs, then the operator call itself):
// a call whose arguments do not fit its schema never reaches a .pte there.
#pragma once

#include "ir/graph.h"
#include "support/error.h"

namespace pteforge::ops {

/// Checks every call of a known operator in `graph` and its nested graphs:
/// - each argument is named, once, and every name is one of the schema's;
/// - every schema argument without a default is given;
/// - each given value has a kind the argument's type accepts: a tensor for
///   `Tensor` (or a Python number, which torch wraps), None only for an
///   optional argument, an int or a bool for `int`, `SymInt` and `bool` (the
///   emitter converts), any number for `float` and `Scalar`, a list for a
///   list type (or one int for an int list, which torch broadcasts; an empty
///   list under any list tag), the matching enum for
///   `ScalarType`, `MemoryFormat`, `Layout` and `Device`, and so on. Types the
///   emitter never sees as values (Generator, Storage, ...) accept anything.
/// Calls of operators the table does not know, and of non-operators
/// (getitem, higher-order ops), are not checked. A target that names a known
/// operator without the "torch.ops." prefix ("aten.mul.Tensor") is refused.
/// Errors: INVALID_GRAPH naming the node, the operator and the argument,
/// located at the node (its JSON pointer, plus "/inputs/i" for a given
/// argument, when the node came from a file); then, when the rest is right,
/// UNSUPPORTED_OPERATOR for an argument name the schema lacks (with a note:
/// a program from a newer PyTorch may pass arguments added since).
/// `edge_dialect` (a lowered program, ExportedProgram::is_edge_dialect): an out
/// variant that returns nothing may keep its functional results as one
/// tensor list (to_out_variant leaves them so).
Status check_call_arguments(const ir::Graph& graph, bool edge_dialect = false);

}  // namespace pteforge::ops
