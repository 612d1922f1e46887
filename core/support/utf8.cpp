// UTF-8 validation (see utf8.h).
#include "support/utf8.h"

#include <cstdint>
#include <cstring>

namespace pteforge {

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    // ASCII (no byte with its high bit set): 32 bytes, then 8, at once.
    while (n - i >= 32) {
      uint64_t w[4];
      std::memcpy(w, s + i, 32);
      if (((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080ull) != 0) break;
      i += 32;
    }
    if (n - i >= 8) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char b = s[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    // Lead byte: sequence length and the allowed range of the second byte
    // (which rules out overlong forms, surrogates and code points past U+10FFFF).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;  // overlong below U+0800
      if (b == 0xED) hi = 0x9F;  // surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;  // overlong below U+10000
      if (b == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      return i;  // a continuation byte without a lead, or 0xC0, 0xC1, 0xF5..0xFF
    }
    if (n - i < len || s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::nullopt;
}

std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Each invalid sequence's first byte becomes U+FFFD; the scan resumes after it.
  while (std::optional<size_t> bad = find_invalid_utf8(text)) {
    out.append(text.substr(0, *bad));
    out += "\xEF\xBF\xBD";
    text.remove_prefix(*bad + 1);
  }
  out.append(text);
  return out;
}

}  // namespace pteforge
