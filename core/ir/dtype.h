// Tensor element types.
//
// The IR stores dtypes as ScalarType in c10/ExecuTorch numbering (the numbers
// of ExecuTorch's scalar_type.fbs, which the .pte carries), so the emitter
// writes them unchanged. torch.export's JSON uses a different numbering
// (its serialization enum: FLOAT = 7, LONG = 5, ...);
// scalar_type_from_export() converts at import, scalar_type_to_export() at
// JSON export.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pteforge::ir {

/// Element type in c10 / ExecuTorch numbering (scalar_type.fbs).
enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
  Float8_e8m0fnu = 44,
};

/// Size of one element in bytes; 0 for sub-byte packed types.
int element_size(ScalarType t);
/// torch dtype name without the "torch." prefix, e.g. "float32", "int64".
std::string_view scalar_type_name(ScalarType t);
/// Parses a torch dtype name ("float32", "torch.float32") back into a ScalarType.
std::optional<ScalarType> scalar_type_from_name(std::string_view name);
/// Whether ExecuTorch's scalar_type.fbs can carry this type into a .pte.
bool representable_in_pte(ScalarType t);
/// torch.export serialization number (schema §3.1: 1 BYTE .. 35 UINT64) → ScalarType;
/// nullopt for 0 (UNKNOWN) and unassigned numbers.
std::optional<ScalarType> scalar_type_from_export(int64_t serialized);
/// ScalarType → torch.export serialization number; nullopt where the schema has none.
std::optional<int> scalar_type_to_export(ScalarType t);
/// Floating-point types (including complex and float8).
bool is_floating(ScalarType t);

}  // namespace pteforge::ir
