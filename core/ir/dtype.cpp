// Element-type table (see dtype.h). Numbers: c10 / ExecuTorch scalar_type.fbs
// and torch.export schema §3.1 (torch-export-format.md).
#include "ir/dtype.h"

#include <array>

namespace pteforge::ir {
namespace {

struct DtypeInfo {
  ScalarType type;
  std::string_view name;
  int size;
  int export_number;  // torch.export serialization number, -1 = none
  bool in_pte;
  bool floating;
};

constexpr std::array<DtypeInfo, 27> kDtypes = {{
    {ScalarType::Byte, "uint8", 1, 1, true, false},
    {ScalarType::Char, "int8", 1, 2, true, false},
    {ScalarType::Short, "int16", 2, 3, true, false},
    {ScalarType::Int, "int32", 4, 4, true, false},
    {ScalarType::Long, "int64", 8, 5, true, false},
    {ScalarType::Half, "float16", 2, 6, true, true},
    {ScalarType::Float, "float32", 4, 7, true, true},
    {ScalarType::Double, "float64", 8, 8, true, true},
    {ScalarType::ComplexHalf, "complex32", 4, 9, false, true},
    {ScalarType::ComplexFloat, "complex64", 8, 10, false, true},
    {ScalarType::ComplexDouble, "complex128", 16, 11, false, true},
    {ScalarType::Bool, "bool", 1, 12, true, false},
    {ScalarType::QInt8, "qint8", 1, -1, true, false},
    {ScalarType::QUInt8, "quint8", 1, -1, true, false},
    {ScalarType::QInt32, "qint32", 4, -1, true, false},
    {ScalarType::BFloat16, "bfloat16", 2, 13, true, true},
    {ScalarType::QUInt4x2, "quint4x2", 0, -1, true, false},
    {ScalarType::QUInt2x4, "quint2x4", 0, -1, true, false},
    {ScalarType::Bits16, "bits16", 2, -1, true, false},
    {ScalarType::Float8_e5m2, "float8_e5m2", 1, 30, true, true},
    {ScalarType::Float8_e4m3fn, "float8_e4m3fn", 1, 29, true, true},
    {ScalarType::Float8_e5m2fnuz, "float8_e5m2fnuz", 1, 32, true, true},
    {ScalarType::Float8_e4m3fnuz, "float8_e4m3fnuz", 1, 31, true, true},
    {ScalarType::UInt16, "uint16", 2, 28, true, false},
    {ScalarType::UInt32, "uint32", 4, 34, true, false},
    {ScalarType::UInt64, "uint64", 8, 35, true, false},
    {ScalarType::Float8_e8m0fnu, "float8_e8m0fnu", 1, 33, false, true},
}};

const DtypeInfo* find(ScalarType t) {
  for (const auto& d : kDtypes) {
    if (d.type == t) return &d;
  }
  return nullptr;
}

}  // namespace

int element_size(ScalarType t) {
  const DtypeInfo* d = find(t);
  return d ? d->size : 0;
}

std::string_view scalar_type_name(ScalarType t) {
  const DtypeInfo* d = find(t);
  return d ? d->name : std::string_view("unknown");
}

std::optional<ScalarType> scalar_type_from_name(std::string_view name) {
  if (name.substr(0, 6) == "torch.") name.remove_prefix(6);
  for (const auto& d : kDtypes) {
    if (d.name == name) return d.type;
  }
  return std::nullopt;
}

bool representable_in_pte(ScalarType t) {
  const DtypeInfo* d = find(t);
  return d && d->in_pte;
}

std::optional<ScalarType> scalar_type_from_export(int64_t serialized) {
  if (serialized < 0) return std::nullopt;  // -1 in the table marks dtypes without an export number
  for (const auto& d : kDtypes) {
    if (d.export_number == serialized) return d.type;
  }
  return std::nullopt;
}

std::optional<int> scalar_type_to_export(ScalarType t) {
  const DtypeInfo* d = find(t);
  if (!d || d->export_number < 0) return std::nullopt;
  return d->export_number;
}

bool is_floating(ScalarType t) {
  const DtypeInfo* d = find(t);
  return d && d->floating;
}

}  // namespace pteforge::ir
