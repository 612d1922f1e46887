// The "eh00" extended header (see extended_header.h).
#include "emit/extended_header.h"

#include <string>

#include "support/huge_pages.h"

namespace pteforge::emit {

uint32_t read_u32_le(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

uint64_t read_u64_le(const uint8_t* p) {
  return uint64_t{read_u32_le(p)} | (uint64_t{read_u32_le(p + 4)} << 32);
}

void append_u32_le(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void append_u64_le(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint64_t extended_header_padded_length(uint64_t max_alignment) {
  if (max_alignment == 0) max_alignment = 1;
  return (kExtendedHeaderLength + max_alignment - 1) / max_alignment * max_alignment;
}

std::vector<uint8_t> encode_extended_header(const ExtendedHeader& header, uint64_t padded_length) {
  std::vector<uint8_t> out(kExtendedHeaderMagic.begin(), kExtendedHeaderMagic.end());
  append_u32_le(out, header.length);
  append_u64_le(out, header.program_size);
  append_u64_le(out, header.segment_base_offset);
  append_u64_le(out, header.segment_data_size.value_or(0));
  if (padded_length > out.size()) out.resize(static_cast<size_t>(padded_length), 0);
  return out;
}

Result<std::optional<ExtendedHeader>> parse_extended_header(std::string_view head) {
  const uint64_t at = kExtendedHeaderOffset;
  if (head.size() < at + 4 || head.substr(at, 4) != kExtendedHeaderMagic) {
    return std::optional<ExtendedHeader>{};
  }
  auto bytes = reinterpret_cast<const uint8_t*>(head.data());
  auto cut_short = [&](uint64_t needed) {
    Location where;
    where.byte_offset = head.size();
    return make_error(ErrorCode::PTE_INVALID,
                      "the file ends inside the extended header: " + std::to_string(needed) +
                          " bytes needed, " + std::to_string(head.size()) + " present",
                      where);
  };
  if (head.size() < at + 8) return cut_short(at + 8);
  ExtendedHeader h;
  h.length = read_u32_le(bytes + at + 4);
  if (h.length < kExtendedHeaderMinLength) {
    Location where;
    where.byte_offset = at + 4;
    return make_error(ErrorCode::PTE_INVALID,
                      "extended header length is " + std::to_string(h.length) + "; at least " +
                          std::to_string(kExtendedHeaderMinLength) + " expected",
                      where);
  }
  const uint64_t fields_end = at + (h.length >= kExtendedHeaderLength ? kExtendedHeaderLength
                                                                       : kExtendedHeaderMinLength);
  if (head.size() < fields_end) return cut_short(fields_end);
  h.program_size = read_u64_le(bytes + at + 8);
  h.segment_base_offset = read_u64_le(bytes + at + 16);
  if (h.length >= kExtendedHeaderLength) h.segment_data_size = read_u64_le(bytes + at + 24);
  return std::optional<ExtendedHeader>{h};
}

Result<std::vector<uint8_t>> insert_extended_header(std::span<const uint8_t> flatbuffer,
                                                    const std::vector<uint8_t>& header_bytes,
                                                    uint64_t pad_to) {
  if (flatbuffer.size() < 8) {
    return make_error(ErrorCode::INTERNAL, "flatbuffer of " + std::to_string(flatbuffer.size()) +
                                               " bytes has no root offset and identifier");
  }
  uint64_t root = uint64_t{read_u32_le(flatbuffer.data())} + header_bytes.size();
  if (root > UINT32_MAX) {
    return make_error(ErrorCode::INTERNAL, "root offset overflows after inserting the extended header");
  }
  if (pad_to == 0) pad_to = 1;
  const uint64_t total = (flatbuffer.size() + header_bytes.size() + pad_to - 1) / pad_to * pad_to;
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(total));
  advise_huge_pages(out.data(), out.capacity());
  append_u32_le(out, static_cast<uint32_t>(root));
  out.insert(out.end(), flatbuffer.begin() + 4, flatbuffer.begin() + 8);
  out.insert(out.end(), header_bytes.begin(), header_bytes.end());
  out.insert(out.end(), flatbuffer.begin() + 8, flatbuffer.end());
  out.resize(static_cast<size_t>(total), 0);
  return out;
}

}  // namespace pteforge::emit
