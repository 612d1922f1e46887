#include <doctest/doctest.h>

#include "ir/dtype.h"

using namespace pteforge::ir;

TEST_CASE("dtype: torch.export serialization numbers map to c10 numbering") {
  CHECK(scalar_type_from_export(7) == ScalarType::Float);
  CHECK(scalar_type_from_export(5) == ScalarType::Long);
  CHECK(scalar_type_from_export(12) == ScalarType::Bool);
  CHECK(scalar_type_from_export(13) == ScalarType::BFloat16);
  CHECK(scalar_type_from_export(28) == ScalarType::UInt16);
  CHECK(scalar_type_from_export(33) == ScalarType::Float8_e8m0fnu);
  CHECK_FALSE(scalar_type_from_export(0).has_value());
  CHECK_FALSE(scalar_type_from_export(14).has_value());
  CHECK_FALSE(scalar_type_from_export(99).has_value());
  for (int n = 1; n <= 35; ++n) {
    if (auto t = scalar_type_from_export(n)) CHECK(scalar_type_to_export(*t) == n);
  }
}

TEST_CASE("dtype: element sizes and names") {
  CHECK(element_size(ScalarType::Float) == 4);
  CHECK(element_size(ScalarType::Long) == 8);
  CHECK(element_size(ScalarType::Bool) == 1);
  CHECK(element_size(ScalarType::ComplexDouble) == 16);
  CHECK(scalar_type_name(ScalarType::Half) == "float16");
  CHECK(scalar_type_from_name("torch.int64") == ScalarType::Long);
  CHECK(static_cast<int>(ScalarType::Float) == 6);
  CHECK_FALSE(representable_in_pte(ScalarType::ComplexFloat));
}
