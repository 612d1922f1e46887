// Shared helpers of the emit tests: reading reference files, turning a
// decoded file's segments into payloads for re-serialization.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "emit/chunks.h"
#include "emit/pte_decode.h"
#include "emit/pte_writer.h"

namespace pteforge::emit::testing {

/// Path of a reference .pte under tests/data/reference/pte/.
inline std::string reference_path(const std::string& name) {
  return std::string(PTEFORGE_TEST_DATA_DIR) + "/data/reference/pte/" + name;
}

/// The whole file as bytes; empty when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::string out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

inline std::string to_string(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

/// A RangeReader over in-memory inputs keyed by source id.
inline RangeReader memory_reader(const std::vector<std::pair<std::string, std::string>>* inputs) {
  return [inputs](const InputRange& r, uint8_t* dst) -> Status {
    for (const auto& [name, bytes] : *inputs) {
      if (name != r.source) continue;
      if (r.offset > bytes.size() || r.length > bytes.size() - r.offset) {
        return make_error(ErrorCode::IO_ERROR, "range past the end of " + name);
      }
      std::copy(bytes.begin() + static_cast<long>(r.offset), bytes.begin() + static_cast<long>(r.offset + r.length), dst);
      return Status::Ok();
    }
    return make_error(ErrorCode::IO_ERROR, "unknown source " + r.source);
  };
}

/// The segments of a decoded file as payloads referring to `source`
/// (the file's bytes), for assemble_pte.
inline std::vector<SegmentPayload> segments_of(const DecodedPte& d, const std::string& source) {
  std::vector<SegmentPayload> out;
  for (const auto& s : d.program.segments) {
    SegmentPayload p;
    p.pieces.push_back(Chunk::from_range(source, d.info.segment_base_offset + s.offset, s.size));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pteforge::emit::testing
