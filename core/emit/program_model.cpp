// Names and small helpers of the Program model (see program_model.h).
#include "emit/program_model.h"

#include <string>

#include "schema/program_generated.h"

namespace pteforge::emit {
namespace fb = executorch_flatbuffer;

namespace {

// The generated EnumName* return "" for a number without a name.
std::string name_or_number(const char* name, int value) {
  if (name != nullptr && name[0] != '\0') return name;
  return std::to_string(value);
}

}  // namespace

std::string_view kernel_type_name(const KernelTypes& v) {
  return fb::EnumNameKernelTypes(static_cast<fb::KernelTypes>(v.index() + 1));
}

std::string_view instruction_type_name(const InstructionArguments& v) {
  return fb::EnumNameInstructionArguments(static_cast<fb::InstructionArguments>(v.index() + 1));
}

std::string scalar_type_pte_name(ir::ScalarType t) {
  return name_or_number(fb::EnumNameScalarType(static_cast<fb::ScalarType>(t)), static_cast<int>(t));
}

std::string shape_dynamism_name(TensorShapeDynamism d) {
  return name_or_number(fb::EnumNameTensorShapeDynamism(static_cast<fb::TensorShapeDynamism>(d)),
                        static_cast<int>(d));
}

std::string tensor_data_location_name(TensorDataLocation l) {
  return name_or_number(fb::EnumNameTensorDataLocation(static_cast<fb::TensorDataLocation>(l)),
                        static_cast<int>(l));
}

std::string device_type_name(DeviceType d) {
  return name_or_number(fb::EnumNameDeviceType(static_cast<fb::DeviceType>(d)), static_cast<int>(d));
}

std::string data_location_name(DataLocation l) {
  return name_or_number(fb::EnumNameDataLocation(static_cast<fb::DataLocation>(l)), static_cast<int>(l));
}

std::string operator_qualified_name(const Operator& op) {
  if (op.overload.empty()) return op.name;
  return op.name + "." + op.overload;
}

std::optional<uint64_t> tensor_nbytes(const Tensor& t) {
  int elem = ir::element_size(t.scalar_type);
  if (elem <= 0) return std::nullopt;
  uint64_t n = static_cast<uint64_t>(elem);
  for (int32_t s : t.sizes) {
    if (s < 0) return std::nullopt;
    uint64_t d = static_cast<uint64_t>(s);
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace pteforge::emit
