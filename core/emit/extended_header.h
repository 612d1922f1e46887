// The .pte extended header "eh00" (executorch-pipeline.md §2.3): 32 bytes of
// fields inserted after the first 8 bytes of the flatbuffer when the file has
// segment data, zero-padded to a multiple of the largest force_align.
//
//   offset  8  magic "eh00"
//   offset 12  u32 header length (32: fields only, not the padding)
//   offset 16  u64 program_size (flatbuffer incl. this header and its padding)
//   offset 24  u64 segment_base_offset (program_size rounded up to the segment alignment)
//   offset 32  u64 segment_data_size (only read when the length is >= 32)
// All little-endian.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::emit {

inline constexpr std::string_view kExtendedHeaderMagic = "eh00";
/// File offset of the header's first byte.
inline constexpr uint64_t kExtendedHeaderOffset = 8;
/// Header length written (fields only).
inline constexpr uint32_t kExtendedHeaderLength = 32;
/// Smallest length a reader accepts (files before segment_data_size existed).
inline constexpr uint32_t kExtendedHeaderMinLength = 24;

/// The header's fields. All sizes and offsets are in bytes from the file start.
struct ExtendedHeader {
  uint32_t length = kExtendedHeaderLength;
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  /// Absent in headers shorter than 32 bytes.
  std::optional<uint64_t> segment_data_size;
  bool operator==(const ExtendedHeader&) const = default;
};

/// round_up(kExtendedHeaderLength, max_alignment): the bytes the header takes
/// in the file with padding (32 with ExecuTorch's default alignment 16).
/// `max_alignment` must be a power of two.
uint64_t extended_header_padded_length(uint64_t max_alignment);

/// The header's bytes (magic, fields), zero-padded to `padded_length`
/// (>= kExtendedHeaderLength). A missing segment_data_size is written as 0.
std::vector<uint8_t> encode_extended_header(const ExtendedHeader& header, uint64_t padded_length);

/// Reads the header from the first bytes of a file (`head`; 64 are enough).
/// Returns nullopt when there is no header (fewer than 12 bytes, or bytes
/// 8..11 are not "eh00"). Errors: PTE_INVALID when the magic is present but
/// the length is below 24 (byte_offset 12) or `head` ends inside the fields
/// (byte_offset = head.size()).
Result<std::optional<ExtendedHeader>> parse_extended_header(std::string_view head);

/// Inserts `header_bytes` after byte 8 of the finished flatbuffer `flatbuffer`
/// and adds its size to the root offset in bytes 0..3 (§2.3 steps 1-3), then
/// pads the result with zeros to a multiple of `pad_to` bytes, in one copy
/// into a buffer of the final size (advised for huge pages when large).
/// Errors: INTERNAL when the flatbuffer is shorter than 8 bytes or the root
/// offset overflows; EMIT_LIMIT never (sizes are checked by the caller).
Result<std::vector<uint8_t>> insert_extended_header(std::span<const uint8_t> flatbuffer,
                                                    const std::vector<uint8_t>& header_bytes,
                                                    uint64_t pad_to = 1);

/// Little-endian helpers shared by the writer and the decoder.
uint32_t read_u32_le(const uint8_t* p);
uint64_t read_u64_le(const uint8_t* p);
void append_u32_le(std::vector<uint8_t>& out, uint32_t v);
void append_u64_le(std::vector<uint8_t>& out, uint64_t v);

}  // namespace pteforge::emit
