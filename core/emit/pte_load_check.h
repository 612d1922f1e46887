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
//     (or of the deprecated constant_buffer) and its bytes fit; a planned
//     tensor with initial data finds them in mutable_data_segments[0];
//   - value references: plan inputs and outputs, list items (IntList items
//     are Int values; TensorList items are earlier Tensor values and
//     OptionalTensorList items earlier Tensor or Null values or -1, since the
//     runtime reads them while it parses the values in order), instruction
//     arguments, op_index and delegate_index, JumpFalse's condition (a Bool or
//     a bool tensor), MoveCall's indices, FreeCall's tensor; operator names
//     shorter than the runtime's 100-byte name buffer.
// Kernel registration and backend availability are the runtime build's
// business and are not checked.
#pragma once

#include <string>
#include <vector>

namespace executorch_flatbuffer {
struct Program;
}

namespace pteforge::emit {

/// One reason a method (or the program) would not load.
struct LoadProblem {
  std::string pointer;  ///< JSON-pointer-style path of the table, e.g. /execution_plan/0/values/3
  std::string message;  ///< what is wrong and what the runtime expects
  bool operator==(const LoadProblem&) const = default;
};

/// Checks a verified program (see the file comment) and returns every
/// problem found, in table order; empty when every method would load.
/// `segment_sizes` are not needed: the sizes come from Program.segments.
/// Never fails; `p` must have passed the flatbuffer verifier.
std::vector<LoadProblem> check_method_load(const executorch_flatbuffer::Program& p);

}  // namespace pteforge::emit
