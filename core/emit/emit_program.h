// emit_program: every lowered method → one Program (plus the bytes for its
// segments), as ExecuTorch's emit_program does (seed 001,
// executorch-pipeline.md §3.1, §3.14):
//   1. the methods, sorted by name, each emitted with its non-user outputs
//      removed (user_outputs(), emitter.h);
//   2. training-metadata getters for joint graphs (__et_training_*), in the
//      order the seed computes them: `methods` in the order given (the
//      input's own order, as torch.export's loader fills its dict), per
//      method gradients index, FQN list, parameters index;
//   3. the constant methods ("prim getters") in the order given.
// Program.version 0, constant_segment {0, []} (the serializer fills segments).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emit/emitter.h"
#include "emit/pte_writer.h"
#include "ir/treespec.h"

namespace pteforge::emit {

/// A method with no inputs that returns constant values (ExecuTorch
/// `constant_methods` / prim getters, §3.14): the pytree-flattened leaves and
/// the pytree structure of the value.
struct ConstantMethod {
  std::string name;
  std::vector<EValue> values;  ///< Int / Double / Bool / String leaves, in flatten order
  ir::TreeSpec spec;           ///< structure of the value (a leaf for a scalar)
};

/// Parses a JSON value into a constant method (§3.14): a number (integer →
/// Int, else Double), true/false (Bool), a string (String), or a list / object
/// of these (flattened in order; lists become builtins.list, objects
/// builtins.dict with the keys as context, null a builtins.NoneType node with
/// no leaves, as torch's pytree does).
/// Errors: OPTION_INVALID (not JSON, an integer outside int64, nesting
/// deeper than 64), naming the method.
Result<ConstantMethod> parse_constant_method(std::string name, std::string_view json);

/// Parses a JSON object {name: value, ...} into constant methods, in member
/// order. Errors: OPTION_INVALID (not an object, a duplicate or empty name,
/// bad values as parse_constant_method).
Result<std::vector<ConstantMethod>> parse_constant_methods(std::string_view json_object);

/// Splits a CLI option `NAME=JSON` (e.g. `get_max_seq_len=128`) at its first
/// '=' into {NAME, JSON}. Errors: OPTION_INVALID when there is no '=' or the
/// name is empty.
Result<std::pair<std::string, std::string>> split_constant_method_option(std::string_view option);

/// Splits a CLI option `NAME=JSON` (split_constant_method_option) and parses it.
/// Errors: OPTION_INVALID (no '=', empty name, bad JSON).
Result<ConstantMethod> parse_constant_method_option(std::string_view option);

/// Training metadata of one joint-graph method (seed 001 _get_training_metadata):
/// positions in the method's output-spec list.
struct TrainingMetadata {
  std::string method;
  std::optional<int64_t> gradients_index;   ///< first GRADIENT_TO_PARAMETER output
  std::optional<int64_t> parameters_index;  ///< first TOKEN output (weights_to_outputs)
  std::vector<std::string> fqns;            ///< parameter FQNs of the gradients, in order
};

/// Computes the training metadata of `methods` exactly as the seed does: per
/// method, in the given order; a method gets entries only when it has
/// gradient outputs. Errors: UNSUPPORTED_FEATURE for a TOKEN output before
/// any gradient output (ExecuTorch asserts "params must come after gradients").
Result<std::vector<TrainingMetadata>> training_metadata(const std::vector<MethodInput>& methods);

/// The getters ExecuTorch emits for training metadata, in its dict order:
/// per method __et_training_gradients_index_<m> (int), __et_training_fqn_<m>
/// (list of str), __et_training_parameters_index_<m> (int).
std::vector<ConstantMethod> training_metadata_getters(const std::vector<TrainingMetadata>& metadata);

/// An execution plan returning constant values (§3.14): values, inputs [],
/// outputs [0..n-1], one empty chain, no operators or delegates,
/// non_const_buffer_sizes [0], container strings "" and the value's spec.
ExecutionPlan constant_method_plan(const ConstantMethod& method);

struct EmitProgramOptions {
  EmitOptions emit;
  /// Constant methods in insertion order (--constant-method).
  std::vector<ConstantMethod> constant_methods;
  /// Content hashes of payload ranges computed ahead (HashPrefetch), or
  /// nullptr: the constant pools then read and hash every range themselves.
  const KnownHashes* known_hashes = nullptr;
};

/// What emit_program produced.
struct EmitterOutput {
  Program program;
  /// Constant and mutable data for serialize_program (delegate and named data empty).
  ProgramData data;
  /// Per method (by name): debug-handle map, memory plan, ... (§3.15).
  std::map<std::string, MethodDebugInfo> debug;
  std::vector<TrainingMetadata> training;
};

/// Emits the program (see the file comment). `reader` reads payload ranges
/// for constant dedup and re-layout.
/// Errors: emit_method's errors; OPTION_INVALID when a constant method has the
/// name of a method or of another getter; training_metadata's errors.
Result<EmitterOutput> emit_program(const std::vector<MethodInput>& methods, const EmitProgramOptions& options,
                                   const RangeReader& reader);

}  // namespace pteforge::emit
