// GraphSignature (schema §3.6, semantics §7): what each graph input and
// output position means.
//
// InputSpec/OutputSpec flatten the JSON unions into one struct with a kind:
// `arg` is the graph input/output at that position (a tensor reference for the
// tensor kinds, tokens included), `target` the state FQN or user-input name
// the kind refers to.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/argument.h"

namespace pteforge::ir {

/// InputSpec union tags (§7.1).
enum class InputKind : uint8_t {
  UserInput,      ///< user_input: arg is as_tensor / as_sym_int / as_sym_float / as_custom_obj ...
  Parameter,      ///< parameter: target = parameter_name
  Buffer,         ///< buffer: target = buffer_name, persistent
  TensorConstant, ///< tensor_constant: target = tensor_constant_name
  CustomObj,      ///< custom_obj: arg is as_custom_obj, target = custom_obj_name
  ConstantInput,  ///< constant_input: arg is the constant value, constant_name the placeholder
  Token,          ///< token: arg is as_tensor (TokenArgument)
};
/// JSON tag, e.g. "parameter".
std::string_view input_kind_name(InputKind k);
/// JSON field of an input spec that holds its target (InputSpec::target):
/// "parameter_name", "buffer_name", "tensor_constant_name" or
/// "custom_obj_name"; "" for kinds without one (schema §3.6).
std::string_view input_target_field(InputKind k);

/// OutputSpec union tags (§7.2).
enum class OutputKind : uint8_t {
  UserOutput,          ///< user_output: arg is any Argument
  LossOutput,          ///< loss_output
  BufferMutation,      ///< buffer_mutation: target = buffer_name
  GradientToParameter, ///< gradient_to_parameter: target = parameter_name
  GradientToUserInput, ///< gradient_to_user_input: target = user_input_name
  UserInputMutation,   ///< user_input_mutation: target = user_input_name
  Token,               ///< token
  ParameterMutation,   ///< parameter_mutation: target = parameter_name
};
std::string_view output_kind_name(OutputKind k);
/// True for the kinds that write state back: buffer, parameter and user-input mutations.
inline bool is_mutation(OutputKind k) {
  return k == OutputKind::BufferMutation || k == OutputKind::ParameterMutation ||
         k == OutputKind::UserInputMutation;
}
/// JSON field of an output spec that holds its target (OutputSpec::target):
/// "buffer_name", "parameter_name" or "user_input_name"; "" for kinds
/// without one (schema §3.6).
std::string_view output_target_field(OutputKind k);

struct InputSpec {
  InputKind kind = InputKind::UserInput;
  /// The graph input at this position. ConstantInput: the constant value
  /// (as_none / as_int / as_float / as_string / as_bool).
  Argument arg;
  /// parameter_name / buffer_name / tensor_constant_name / custom_obj_name; "" otherwise.
  std::string target;
  /// Buffer only: part of the state dict (weights) or not (constants).
  bool persistent = true;
  /// ConstantInput only: the placeholder name.
  std::string constant_name;

  /// Placeholder name at this position ("" for a user input given as a literal).
  std::string_view name() const;
  /// True for parameters, buffers and tensor constants (state bound to payloads).
  bool is_state() const {
    return kind == InputKind::Parameter || kind == InputKind::Buffer || kind == InputKind::TensorConstant;
  }
  bool operator==(const InputSpec&) const = default;
};

struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  /// The graph output at this position (as_tensor for every kind but UserOutput).
  Argument arg;
  /// buffer_name / parameter_name / user_input_name; "" otherwise.
  std::string target;

  /// Name of the value at this position ("" for literal outputs).
  std::string_view name() const;
  bool operator==(const OutputSpec&) const = default;
};

struct GraphSignature {
  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;

  /// Index of the input spec whose placeholder is `name`, or -1.
  int find_input(std::string_view name) const;
  /// Index of the first input spec of state `fqn` (parameter/buffer/constant/custom obj), or -1.
  int find_state(std::string_view fqn) const;
  /// Number of specs of a kind.
  size_t count(InputKind k) const;
  size_t count(OutputKind k) const;
  bool operator==(const GraphSignature&) const = default;
};

}  // namespace pteforge::ir
