// The method emitter: one lowered method (ExportedProgram + MethodState after
// the to_executorch passes) → one ExecutionPlan of the Program model.
// Mirrors ExecuTorch's _TopLevelEmitter (executorch-pipeline.md §3.2-§3.12,
// §3.15):
//   - every graph input becomes a value, in graph order (§3.4): tensors from
//     their TensorSpec; constants (parameters, non-mutated buffers, lifted
//     constants) with their bytes in the program-wide constant pool; mutable
//     buffers planned, with no data (or, with init_buffers, their initial
//     value in the mutable-data pool); user inputs also go to `inputs`;
//   - nodes are emitted in graph order: memory.alloc → Tensor value(s) of its
//     spec; memory.view → an elided view value, or an et_view KernelCall;
//     operator nodes → a KernelCall with every schema argument in order
//     (defaults filled in, values created in argument order, §3.6), then the
//     return slot(s) (§3.5); symbolic ops return through a new Int(0) (§3.8);
//   - values are appended in creation order and never deduplicated, except
//     Tensor values, which are one per TensorSpec object (several value names
//     sharing a spec share the value);
//   - operators are deduplicated per method by (name, overload), first-use order;
//   - the method outputs are the user outputs (remove_non_user_outputs, seed 001).
// Delegates and control flow are not emitted yet (UNSUPPORTED_FEATURE).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "emit/chunks.h"
#include "emit/constant_pool.h"
#include "emit/program_model.h"
#include "ir/exported_program.h"
#include "passes/pass.h"
#include "support/error.h"

namespace pteforge::emit {

/// ExecutorchBackendConfig fields the emitter reads (§1.4).
struct EmitOptions {
  /// Chain.stacktrace: one FrameList per instruction from the node's stack_trace (§3.15).
  bool emit_stacktrace = false;
  /// Mutable buffers keep their initial values (ExecuTorch's et_init_buffer,
  /// InitializedMutableBufferPass, §2.6): the bytes go to mutable_data_segments.
  bool init_buffers = false;
};

/// One method to emit. `program` and `state` must outlive the call.
struct MethodInput {
  std::string name;
  const ir::ExportedProgram* program = nullptr;
  const passes::MethodState* state = nullptr;
  /// Archive entry prefixes of the method's payload folders: a payload storage
  /// becomes the InputRange source `<prefix><path_name>` (Pt2Model::weights_prefix,
  /// constants_prefix).
  std::string weights_prefix = "data/weights/";
  std::string constants_prefix = "data/constants/";
};

/// Program-wide emission state shared by the methods (§3.1): the constant
/// list and the mutable-data list, both with the reserved entry 0.
struct ProgramState {
  explicit ProgramState(RangeReader reader = {})
      : reader(reader), constants(reader), mutable_data(reader) {}
  RangeReader reader;  ///< reads payload ranges (hashing, re-layout)
  ConstantPool constants;
  ConstantPool mutable_data;
};

/// One memory-planned tensor value of a method (for the metadata JSON).
struct PlannedTensorInfo {
  int32_t value = 0;               ///< index in the values table
  std::vector<std::string> names;  ///< graph values sharing the spec, in graph order
  uint32_t mem_id = 0;
  uint64_t offset = 0;     ///< bytes into pool mem_id
  uint64_t nbytes = 0;     ///< bytes of the (upper-bound) shape
  int64_t lifetime_first = -1;
  int64_t lifetime_last = -1;
};

/// What the emitter records besides the plan (§3.15).
struct MethodDebugInfo {
  /// Instruction index → the node's debug handle, for every KernelCall made
  /// from a graph node that has one, in instruction order (ExecuTorch's
  /// _add_debug_handle records nothing for a node without a handle, e.g. the
  /// copy_ that insert_write_back_for_buffers adds).
  std::vector<std::pair<int32_t, int64_t>> debug_handles;
  /// Planned Tensor values in value order (views not included: they share their base's memory).
  std::vector<PlannedTensorInfo> planned;
  /// Constant values that were re-laid out (made contiguous) while emitting.
  std::vector<std::string> relaid_out_constants;
};

struct EmittedMethod {
  ExecutionPlan plan;
  MethodDebugInfo debug;
};

/// The graph outputs that stay method outputs, as ExecuTorch's
/// _remove_non_user_outputs computes them (seed 001): the output arguments are
/// pytree-flattened (lists expanded, None dropped), zipped with the output
/// specs (stopping at the shorter), and those paired with a BUFFER_MUTATION
/// spec are dropped.
std::vector<ir::Argument> user_outputs(const ir::ExportedProgram& ep);

/// Emits one method into an ExecutionPlan (see the file comment), adding
/// constant bytes to `program`'s pools. `outputs` are the method outputs
/// (normally user_outputs(ep)).
/// Errors (where.method, and where.node/pointer for node-level problems):
///   PASS_PRECONDITION     a tensor has no TensorSpec (spec_prop did not run)
///   WEIGHTS_MISSING       a constant placeholder has no bound bytes
///   UNSUPPORTED_OPERATOR  an operator not in the operator table
///   UNSUPPORTED_FEATURE   delegates, control flow, Python callables left in
///                         the graph, device / channels_last arguments, a
///                         mutable buffer that is not memory planned, a string
///                         output, dtypes ExecuTorch cannot emit
///   EMIT_LIMIT            more than 2^31 - 1 values or instructions
///   INTERNAL              a value used before it was emitted
///   plus constant-data errors (PAYLOAD_INVALID, IO_ERROR).
Result<EmittedMethod> emit_method(const MethodInput& method, const std::vector<ir::Argument>& outputs,
                                  ProgramState& program, const EmitOptions& options = {});

/// Frames of a Python stack trace (§3.15): each newline-terminated line
/// holding `File "<file>", line <n>, in <name>` gives a Frame (ExecuTorch's
/// _stacktrace_to_framelist pattern: the name is the rest of the line, as
/// it is), whose context is the next line stripped (when it is not itself a
/// frame line; ExecuTorch takes every second line instead, README).
FrameList stacktrace_to_frames(std::string_view stack_trace);

}  // namespace pteforge::emit
