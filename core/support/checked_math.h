// Saturating int64 arithmetic for sizes, strides and element counts.
//
// Sizes that describe no real tensor (their product past int64) are refused
// by the importer, but code that runs before or beside that check must not
// overflow either: signed overflow is undefined behaviour. These helpers
// clamp to INT64_MAX / INT64_MIN instead.
#pragma once

#include <cstdint>
#include <limits>

namespace pteforge {

/// a * b, or INT64_MAX / INT64_MIN (by the sign the product would have) when
/// it does not fit in int64.
inline int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}

/// a + b, or INT64_MAX / INT64_MIN when it does not fit in int64.
inline int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace pteforge
