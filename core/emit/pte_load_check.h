// What ExecuTorch's runtime would refuse when it loads a method of a .pte
// that passed decoding (flatbuffer verification and the segment bounds).
//
// decode_pte checks the container: identifier, extended header, flatbuffer
// verification, segment and subsegment bounds. Loading a method
// (Program::load_method → Method::init) checks more, table by table; this
// mirrors those checks so a file can be judged without the runtime:
//   - required fields present: plan name, values, inputs, outputs,
//     non_const_buffer_sizes, delegates, at least one chain, each chain's
//     instructions; operator names, delegate ids, list items, string bytes,
//     every non-Null value's payload (method.cpp parse_values, init);
//   - tensors (tensor_parser_portable.cpp parseTensor, program_validation.cpp):
//     storage_offset 0, a known scalar type, not DYNAMIC_UNBOUND, rank at most
//     16, dim_order as long as sizes and a permutation, sizes not negative,
//     numel × element size within 64 bits;
//   - tensor data (tensor_parser_exec_aten.cpp getTensorDataPtr): a planned
//     tensor's memory_id names a planned buffer (1..n-1 of
//     non_const_buffer_sizes) and its bytes fit the buffer at its offset; a
//     constant's data_buffer_idx names an entry of constant_segment.offsets
//     (when it holds more than the placeholder offset 0, else of the
//     deprecated constant_buffer) and its bytes fit; a planned
//     tensor with initial data finds them in mutable_data_segments[0];
//   - value references: list items (TensorList items are earlier Tensor
//     values and OptionalTensorList items earlier Tensor or Null values or
//     -1, since the runtime reads them while it parses the values in order),
//     instruction arguments, op_index, the indices of JumpFalse, MoveCall and
//     FreeCall; the name of each operator an instruction calls, shorter than
//     the runtime's 100-byte name buffer.
// Also reported, marked as met when the method runs rather than when it
// loads (LoadProblem::at_execution): plan input and output indices, IntList
// items that are not Int values, a delegate_index naming no delegate,
// JumpFalse's condition not a Bool or bool tensor, FreeCall on a non-tensor.
// Kernel registration and backend availability are the runtime build's
// business and are not checked.
#pragma once

#include <string>
#include <vector>

namespace executorch_flatbuffer {
struct Program;
}

namespace pteforge::emit {

/// One reason a method (or the program) would not load or run.
struct LoadProblem {
  std::string pointer;  ///< JSON-pointer-style path of the table, e.g. /execution_plan/0/values/3
  std::string message;  ///< what is wrong and what the runtime expects
  /// True when the runtime meets it only when the method runs (an
  /// instruction's value of the wrong type, an input or output index, a
  /// delegate index), not when it loads the method.
  bool at_execution = false;
  bool operator==(const LoadProblem&) const = default;
};

/// The result of check_method_load.
struct LoadCheck {
  std::vector<LoadProblem> problems;  ///< the first 100, in table order
  size_t total = 0;                   ///< all of them
};

/// Checks a verified program (see the file comment); no problems when every
/// method would load and run its instructions' bookkeeping. Never fails;
/// `p` must have passed the flatbuffer verifier. Linear in the program's size.
LoadCheck check_method_load(const executorch_flatbuffer::Program& p);

/// What `pteforge decode --check` prints for `check` of a program with
/// `methods` execution plans: one "pointer: message" line per kept problem
/// (" (when the method runs)" for those met only at execution), "... and N
/// more" past the kept ones, then "load check passed: N methods would load"
/// or "load check failed: N problems".
std::string format_load_check(const LoadCheck& check, size_t methods);

}  // namespace pteforge::emit
