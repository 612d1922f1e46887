// Scanning JSON text by hand, outside a parser: where a string ends and how
// long a number token is (RFC 8259's grammar). Used where the text itself
// must be read before RapidJSON parses it: literals RapidJSON would misread
// (constant methods, emit_program.cpp) or refuse (program JSON numbers past
// the double range, json_cursor.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace pteforge::serde {

/// The index of the closing quote of the JSON string whose opening quote is
/// json[open] (escapes skipped), or json.size() when it is unterminated.
inline size_t json_string_end(std::string_view json, size_t open) {
  size_t i = open + 1;
  for (; i < json.size() && json[i] != '"'; ++i) {
    if (json[i] == '\\') ++i;
  }
  return std::min(i, json.size());
}

/// Bytes of the JSON number (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?)
/// at the start of `s`, 0 when none; `integer` says whether it has neither a
/// fraction nor an exponent. A '.' or 'e' not followed by what the grammar
/// needs ends the number before it (RapidJSON then names what is wrong).
inline size_t json_number_length(std::string_view s, bool& integer) {
  auto digit = [&](size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  size_t k = s.size() > 0 && s[0] == '-' ? 1 : 0;
  if (!digit(k)) return 0;
  if (s[k] == '0') {
    ++k;
  } else {
    while (digit(k)) ++k;
  }
  integer = true;
  if (k < s.size() && s[k] == '.' && digit(k + 1)) {
    k += 2;
    while (digit(k)) ++k;
    integer = false;
  }
  if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
    size_t e = k + 1;
    if (e < s.size() && (s[e] == '+' || s[e] == '-')) ++e;
    if (digit(e)) {
      while (digit(e)) ++e;
      k = e;
      integer = false;
    }
  }
  return k;
}

}  // namespace pteforge::serde
