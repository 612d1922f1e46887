// Test helper: writes small zip archives byte by byte, including broken ones
// (claimed sizes, unsafe names, deflated entries, ZIP64 extra fields).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "serde/archive_zip.h"

namespace pteforge::test {

struct ZipSpec {
  ZipSpec(std::string name_, std::string data_, bool deflate_ = false)
      : name(std::move(name_)), data(std::move(data_)), deflate(deflate_) {}
  std::string name;
  std::string data;                      ///< uncompressed bytes
  bool deflate = false;                  ///< method 8 (data wrapped in stored deflate blocks)
  std::optional<uint64_t> claimed_size;  ///< size written in place of the real one (both headers)
  bool zip64_extra = false;              ///< sizes and offset in ZIP64 extra fields
};

inline void put_le(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

/// Raw deflate stream made of stored blocks (valid input for any inflater).
inline std::string deflate_stored(const std::string& data) {
  std::string out;
  size_t pos = 0;
  do {
    size_t n = std::min<size_t>(data.size() - pos, 0xffff);
    bool last = pos + n == data.size();
    out.push_back(last ? 1 : 0);
    put_le(out, n, 2);
    put_le(out, ~n & 0xffff, 2);
    out.append(data, pos, n);
    pos += n;
  } while (pos < data.size());
  return out;
}

/// A zip with the entries in order: 'FB'-padded 64-byte-aligned local headers
/// when `align`, then the central directory, then (when `zip64_end`) the ZIP64
/// end record and locator, then the classic end record.
inline std::string build_zip(const std::vector<ZipSpec>& specs, bool zip64_end = true,
                             bool align = true) {
  struct Central {
    std::string name;
    uint32_t crc;
    uint64_t csize, size, offset;
    uint16_t method;
    bool zip64;
  };
  std::string out;
  std::vector<Central> central;
  for (const auto& spec : specs) {
    std::string payload = spec.deflate ? deflate_stored(spec.data) : spec.data;
    uint64_t size = spec.claimed_size ? *spec.claimed_size : spec.data.size();
    uint64_t csize = spec.deflate ? payload.size() : size;
    uint32_t crc = serde::crc32_update(0, spec.data);
    uint64_t offset = out.size();
    std::string extra;
    if (spec.zip64_extra) {
      put_le(extra, 1, 2);
      put_le(extra, 16, 2);
      put_le(extra, size, 8);
      put_le(extra, csize, 8);
    }
    if (align) {
      uint64_t start = offset + 30 + spec.name.size() + extra.size() + 4;
      uint64_t pad = (64 - start % 64) % 64;
      extra += "FB";
      put_le(extra, pad, 2);
      extra.append(pad, 'Z');
    }
    put_le(out, 0x04034b50, 4);
    put_le(out, spec.zip64_extra ? 45 : 20, 2);
    put_le(out, 0, 2);
    put_le(out, spec.deflate ? 8 : 0, 2);
    put_le(out, 0, 4);
    put_le(out, crc, 4);
    put_le(out, spec.zip64_extra ? 0xffffffff : csize, 4);
    put_le(out, spec.zip64_extra ? 0xffffffff : size, 4);
    put_le(out, spec.name.size(), 2);
    put_le(out, extra.size(), 2);
    out += spec.name;
    out += extra;
    out += payload;
    central.push_back({spec.name, crc, csize, size, offset, static_cast<uint16_t>(spec.deflate ? 8 : 0),
                       spec.zip64_extra});
  }
  const uint64_t cd_offset = out.size();
  for (const auto& c : central) {
    std::string extra;
    if (c.zip64) {
      put_le(extra, 1, 2);
      put_le(extra, 24, 2);
      put_le(extra, c.size, 8);
      put_le(extra, c.csize, 8);
      put_le(extra, c.offset, 8);
    }
    put_le(out, 0x02014b50, 4);
    put_le(out, 45, 2);
    put_le(out, c.zip64 ? 45 : 20, 2);
    put_le(out, 0, 2);
    put_le(out, c.method, 2);
    put_le(out, 0, 4);
    put_le(out, c.crc, 4);
    put_le(out, c.zip64 ? 0xffffffff : c.csize, 4);
    put_le(out, c.zip64 ? 0xffffffff : c.size, 4);
    put_le(out, c.name.size(), 2);
    put_le(out, extra.size(), 2);
    put_le(out, 0, 2);
    put_le(out, 0, 2);
    put_le(out, 0, 2);
    put_le(out, 0, 4);
    put_le(out, c.zip64 ? 0xffffffff : c.offset, 4);
    out += c.name;
    out += extra;
  }
  const uint64_t cd_size = out.size() - cd_offset;
  if (zip64_end) {
    const uint64_t z64 = out.size();
    put_le(out, 0x06064b50, 4);
    put_le(out, 44, 8);
    put_le(out, 0, 2);
    put_le(out, 45, 2);
    put_le(out, 0, 4);
    put_le(out, 0, 4);
    put_le(out, central.size(), 8);
    put_le(out, central.size(), 8);
    put_le(out, cd_size, 8);
    put_le(out, cd_offset, 8);
    put_le(out, 0x07064b50, 4);
    put_le(out, 0, 4);
    put_le(out, z64, 8);
    put_le(out, 1, 4);
  }
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, central.size(), 2);
  put_le(out, central.size(), 2);
  put_le(out, cd_size, 4);
  put_le(out, cd_offset, 4);
  put_le(out, 0, 2);
  return out;
}

/// The records of a minimal layout-C archive under `root`, in PyTorch's order.
inline std::vector<ZipSpec> minimal_pt2(const std::string& root) {
  const std::string p = root + "/";
  return {
      {p + "data/weights/weight_0", std::string(16, '\x01')},
      {p + "data/weights/model_weights_config.json", R"({"config": {}})"},
      {p + "data/constants/model_constants_config.json", R"({"config": {}})"},
      {p + "models/model.json", R"({"graph_module": {}})"},
      {p + "archive_format", "pt2"},
      {p + "archive_version", "0"},
      {p + ".data/version", "6\n"},
      {p + "byteorder", "little"},
  };
}

}  // namespace pteforge::test
