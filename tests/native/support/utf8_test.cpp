// find_invalid_utf8: the offsets of invalid sequences, by rule (RFC 3629).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "support/utf8.h"

using pteforge::find_invalid_utf8;

TEST_CASE("utf8: valid text of every sequence length, across the 32- and 8-byte ASCII steps") {
  CHECK(find_invalid_utf8("") == std::nullopt);
  CHECK(find_invalid_utf8("plain ascii text, longer than 32 bytes and then some") == std::nullopt);
  CHECK(find_invalid_utf8(std::string(70, 'a') + "\xC3\xA9" + std::string(40, 'b')) == std::nullopt);
  // U+00E9, U+0800, U+20AC, U+D7FF, U+E000, U+FFFF, U+10000, U+10FFFF
  CHECK(find_invalid_utf8("caf\xC3\xA9 \xE0\xA0\x80 \xE2\x82\xAC \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF "
                          "\xF0\x90\x80\x80 \xF4\x8F\xBF\xBF") == std::nullopt);
}

TEST_CASE("utf8: the offset of the first invalid sequence") {
  struct Case {
    std::string text;
    size_t offset;
  };
  const Case cases[] = {
      {"\xFF", 0},                          // never a byte of UTF-8
      {"abcdefghij\xFE", 10},               // after an 8-byte ASCII step
      {std::string(45, 'a') + "\xC3\xA9\x80", 47},  // after a 32-byte and an 8-byte step
      {"ab\x80", 2},                        // a continuation byte without a lead
      {"a\xC0\xAF", 1},                     // overlong '/' (0xC0, 0xC1 never occur)
      {"a\xE0\x80\xAF", 1},                 // overlong three-byte form
      {"a\xF0\x80\x80\xAF", 1},             // overlong four-byte form
      {"a\xED\xA0\x80", 1},                 // the surrogate U+D800
      {"a\xF4\x90\x80\x80", 1},             // U+110000, past the last code point
      {"a\xF5\x80\x80\x80", 1},             // lead bytes past 0xF4
      {"\xC3\xA9\xC3", 2},                  // truncated at the end
      {"\xE2\x82", 0},                      // truncated three-byte sequence
      {"\xE2\x82x", 0},                     // third byte not a continuation
      {"\xF0\x90\x80x", 0},                 // fourth byte not a continuation
      {std::string("ok\0\xFF", 4), 3},      // NUL is ASCII; the byte after it is not
  };
  for (const Case& c : cases) {
    CAPTURE(c.offset);
    CHECK(find_invalid_utf8(c.text) == std::optional<size_t>(c.offset));
  }
}

TEST_CASE("utf8: replace_invalid_utf8 puts U+FFFD for each byte that starts no valid sequence") {
  using pteforge::replace_invalid_utf8;
  CHECK(replace_invalid_utf8("") == "");
  CHECK(replace_invalid_utf8("a\xC3\xA9z") == "a\xC3\xA9z");              // é kept
  CHECK(replace_invalid_utf8("a\xC0z") == "a\xEF\xBF\xBDz");              // a lone lead byte
  CHECK(replace_invalid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong: two bytes, two marks
  CHECK(replace_invalid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  CHECK(replace_invalid_utf8("\xF0\x9F\x98\x80!") == "\xF0\x9F\x98\x80!");                // U+1F600 kept
  CHECK(replace_invalid_utf8("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated at the end
}
