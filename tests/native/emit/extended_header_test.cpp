// The "eh00" extended header: exact bytes, parsing, insertion.
#include <doctest/doctest.h>

#include "emit/extended_header.h"

using namespace pteforge;
using namespace pteforge::emit;

TEST_CASE("the extended header's bytes: magic, length 32, three u64 fields, zero padding") {
  ExtendedHeader h;
  h.program_size = 1040;
  h.segment_base_offset = 1152;
  h.segment_data_size = 4;
  std::vector<uint8_t> bytes = encode_extended_header(h, 32);
  std::vector<uint8_t> expected = {'e', 'h', '0', '0', 0x20, 0, 0, 0,  // magic, length
                                   0x10, 0x04, 0, 0, 0, 0, 0, 0,      // program_size 1040
                                   0x80, 0x04, 0, 0, 0, 0, 0, 0,      // segment_base_offset 1152
                                   0x04, 0, 0, 0, 0, 0, 0, 0};        // segment_data_size 4
  CHECK(bytes == expected);
  std::vector<uint8_t> padded = encode_extended_header(h, 64);
  REQUIRE(padded.size() == 64);
  CHECK(std::vector<uint8_t>(padded.begin(), padded.begin() + 32) == expected);
  CHECK(std::vector<uint8_t>(padded.begin() + 32, padded.end()) == std::vector<uint8_t>(32, 0));
}

TEST_CASE("padded header length is 32 rounded up to the largest alignment") {
  CHECK(extended_header_padded_length(1) == 32);
  CHECK(extended_header_padded_length(16) == 32);
  CHECK(extended_header_padded_length(32) == 32);
  CHECK(extended_header_padded_length(64) == 64);
  CHECK(extended_header_padded_length(256) == 256);
}

TEST_CASE("parsing a header") {
  ExtendedHeader h{32, 1040, 1152, 4};
  std::vector<uint8_t> header = encode_extended_header(h, 32);
  std::string file = "\x3c\x00\x00\x00" "ET12";
  file = std::string(file.data(), 8) + std::string(header.begin(), header.end()) + "rest";
  auto parsed = parse_extended_header(file);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->has_value());
  CHECK(**parsed == h);

  // No magic: no header.
  auto none = parse_extended_header(std::string("\x1c\x00\x00\x00" "ET12" "\x0c\x00\x00\x00", 12));
  REQUIRE(none.ok());
  CHECK(!none->has_value());
  auto tiny = parse_extended_header("abc");
  REQUIRE(tiny.ok());
  CHECK(!tiny->has_value());

  // An old 24-byte header has no segment_data_size.
  std::string old = file;
  old[12] = 24;
  auto old_parsed = parse_extended_header(old);
  REQUIRE(old_parsed.ok());
  CHECK((*old_parsed)->length == 24);
  CHECK(!(*old_parsed)->segment_data_size.has_value());
  CHECK((*old_parsed)->segment_base_offset == 1152);

  // Too short a length, or cut inside the fields.
  std::string bad = file;
  bad[12] = 20;
  auto b = parse_extended_header(bad);
  REQUIRE(!b.ok());
  CHECK(b.error().code == ErrorCode::PTE_INVALID);
  CHECK(b.error().where.byte_offset == std::optional<uint64_t>(12));
  auto cut = parse_extended_header(std::string_view(file).substr(0, 30));
  REQUIRE(!cut.ok());
  CHECK(cut.error().where.byte_offset == std::optional<uint64_t>(30));
}

TEST_CASE("inserting the header after byte 8 moves the root offset by its size") {
  std::vector<uint8_t> fb = {0x1c, 0, 0, 0, 'E', 'T', '1', '2', 0xaa, 0xbb};
  std::vector<uint8_t> header(32, 0x11);
  auto out = insert_extended_header(fb, header);
  REQUIRE(out.ok());
  REQUIRE(out->size() == 42);
  CHECK(read_u32_le(out->data()) == 0x1c + 32);
  CHECK(std::string(out->begin() + 4, out->begin() + 8) == "ET12");
  CHECK(std::vector<uint8_t>(out->begin() + 8, out->begin() + 40) == header);
  CHECK((*out)[40] == 0xaa);
  CHECK((*out)[41] == 0xbb);
  // Padded to a multiple of 16: 42 bytes become 48, the last 6 zeros.
  auto padded = insert_extended_header(fb, header, 16);
  REQUIRE(padded.ok());
  CHECK(padded->size() == 48);
  CHECK(std::vector<uint8_t>(padded->begin(), padded->begin() + 42) == *out);
  CHECK(std::vector<uint8_t>(padded->begin() + 42, padded->end()) == std::vector<uint8_t>(6, 0));
  const std::vector<uint8_t> too_short = {1, 2, 3};
  auto bad = insert_extended_header(too_short, header);
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ErrorCode::INTERNAL);
}
