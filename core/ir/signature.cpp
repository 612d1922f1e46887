// GraphSignature helpers (see signature.h).
#include "ir/signature.h"

namespace pteforge::ir {

std::string_view input_kind_name(InputKind k) {
  switch (k) {
    case InputKind::UserInput: return "user_input";
    case InputKind::Parameter: return "parameter";
    case InputKind::Buffer: return "buffer";
    case InputKind::TensorConstant: return "tensor_constant";
    case InputKind::CustomObj: return "custom_obj";
    case InputKind::ConstantInput: return "constant_input";
    case InputKind::Token: return "token";
  }
  return "user_input";
}

std::string_view output_kind_name(OutputKind k) {
  switch (k) {
    case OutputKind::UserOutput: return "user_output";
    case OutputKind::LossOutput: return "loss_output";
    case OutputKind::BufferMutation: return "buffer_mutation";
    case OutputKind::GradientToParameter: return "gradient_to_parameter";
    case OutputKind::GradientToUserInput: return "gradient_to_user_input";
    case OutputKind::UserInputMutation: return "user_input_mutation";
    case OutputKind::Token: return "token";
    case OutputKind::ParameterMutation: return "parameter_mutation";
  }
  return "user_output";
}

std::string_view input_target_field(InputKind k) {
  switch (k) {
    case InputKind::Parameter:
      return "parameter_name";
    case InputKind::Buffer:
      return "buffer_name";
    case InputKind::TensorConstant:
      return "tensor_constant_name";
    case InputKind::CustomObj:
      return "custom_obj_name";
    case InputKind::UserInput:
    case InputKind::ConstantInput:
    case InputKind::Token:
      break;
  }
  return "";
}

std::string_view output_target_field(OutputKind k) {
  switch (k) {
    case OutputKind::BufferMutation:
      return "buffer_name";
    case OutputKind::GradientToParameter:
    case OutputKind::ParameterMutation:
      return "parameter_name";
    case OutputKind::GradientToUserInput:
    case OutputKind::UserInputMutation:
      return "user_input_name";
    case OutputKind::UserOutput:
    case OutputKind::LossOutput:
    case OutputKind::Token:
      break;
  }
  return "";
}

std::string_view InputSpec::name() const {
  if (kind == InputKind::ConstantInput) return constant_name;
  const std::string* n = arg.value_name();
  return n ? std::string_view(*n) : std::string_view();
}

std::string_view OutputSpec::name() const {
  const std::string* n = arg.value_name();
  return n ? std::string_view(*n) : std::string_view();
}

int GraphSignature::find_input(std::string_view name) const {
  for (size_t i = 0; i < input_specs.size(); ++i) {
    if (input_specs[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

int GraphSignature::find_state(std::string_view fqn) const {
  for (size_t i = 0; i < input_specs.size(); ++i) {
    const InputSpec& s = input_specs[i];
    if ((s.is_state() || s.kind == InputKind::CustomObj) && s.target == fqn) return static_cast<int>(i);
  }
  return -1;
}

size_t GraphSignature::count(InputKind k) const {
  size_t n = 0;
  for (const auto& s : input_specs) n += s.kind == k;
  return n;
}

size_t GraphSignature::count(OutputKind k) const {
  size_t n = 0;
  for (const auto& s : output_specs) n += s.kind == k;
  return n;
}

}  // namespace pteforge::ir
