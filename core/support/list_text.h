// A list of integers as messages print it: "[0, 2, 3, 1]".
#pragma once

#include <string>
#include <vector>

namespace pteforge {

/// `values` as "[a, b, c]" ("[]" when empty); each element through std::to_string
/// (so uint8_t dim orders print as numbers).
template <typename T>
std::string list_text(const std::vector<T>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

}  // namespace pteforge
