#include <doctest/doctest.h>

#include <limits>

#include "support/checked_math.h"

using pteforge::saturating_add;
using pteforge::saturating_mul;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
}  // namespace

TEST_CASE("checked_math: saturating_mul is exact in range and clamps by the product's sign") {
  CHECK(saturating_mul(6, 7) == 42);
  CHECK(saturating_mul(-6, 7) == -42);
  CHECK(saturating_mul(int64_t{1} << 31, int64_t{1} << 31) == int64_t{1} << 62);
  CHECK(saturating_mul(int64_t{1} << 32, int64_t{1} << 31) == kMax);
  CHECK(saturating_mul(kMax, 2) == kMax);
  CHECK(saturating_mul(kMax, -2) == kMin);
  CHECK(saturating_mul(kMin, -1) == kMax);
  CHECK(saturating_mul(kMin, 1) == kMin);
  CHECK(saturating_mul(0, kMin) == 0);
}

TEST_CASE("checked_math: saturating_add is exact in range and clamps toward the overflow") {
  CHECK(saturating_add(40, 2) == 42);
  CHECK(saturating_add(kMax, 1) == kMax);
  CHECK(saturating_add(kMax, -1) == kMax - 1);
  CHECK(saturating_add(kMin, -1) == kMin);
  CHECK(saturating_add(kMin, kMax) == -1);
}
