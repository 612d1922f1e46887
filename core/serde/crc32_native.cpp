// crc32_update natively: zlib's crc32 (zlib comes with libzip; see archive_zip.h).
#include <zlib.h>

#include <algorithm>

#include "serde/archive_zip.h"

namespace pteforge::serde {

uint32_t crc32_update(uint32_t crc, std::string_view bytes) {
  uLong c = crc;
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  size_t left = bytes.size();
  // zlib takes uInt lengths: feed huge inputs in pieces.
  while (left > 0) {
    const uInt n = static_cast<uInt>(std::min<size_t>(left, 1u << 30));
    c = crc32(c, p, n);
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(c);
}

}  // namespace pteforge::serde
