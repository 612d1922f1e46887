// Internal helper of core/ops: string concatenation without `"literal" + std::string`
// temporaries (which trip g++ 12's -Wrestrict false positive at -O2).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace pteforge::ops::detail {

/// The concatenation of `parts`.
inline std::string str_cat(std::initializer_list<std::string_view> parts) {
  size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p.data(), p.size());
  return out;
}

}  // namespace pteforge::ops::detail
