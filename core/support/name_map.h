// NameMap: the hash table behind the IR's name lookups (value and node
// tables, tensor specs). Every pass looks values up by name many times per
// node, and at 100k nodes std::unordered_map's node-per-entry layout made
// those lookups a chain of cache misses. tsl::robin_map (Debian's
// robin-map-dev, header-only) keeps entries in one array with their hash
// stored beside them, so a lookup touches one slot run and compares names
// only on a hash match.
//
// Iteration order is unspecified (as with std::unordered_map): nothing that
// reaches the output may depend on it.
#pragma once

#include <tsl/robin_map.h>
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>

namespace pteforge {

/// Hashes anything convertible to std::string_view (std::string, views,
/// literals) alike, so lookups by view need no temporary string.
/// XXH3 (xxHash, Debian's libxxhash-dev, inlined): names and metadata texts
/// are hashed on every lookup, and std::hash under WebAssembly (libc++'s
/// 32-bit MurmurHash2, 4 bytes per step) made hashing a visible share of a
/// 100k-node convert in Node.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return static_cast<size_t>(XXH3_64bits(s.data(), s.size())); }
};

/// Name equality, 8 bytes per step. Under WebAssembly memcmp is a byte
/// loop (Emscripten's musl), and every successful lookup compares one name:
/// with std::equal_to that was ~5% of a 100k-node convert in Node.
struct NameEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    if (a.size() != b.size()) return false;
    const char* p = a.data();
    const char* q = b.data();
    size_t n = a.size();
    for (; n >= 8; n -= 8, p += 8, q += 8) {
      uint64_t x;
      uint64_t y;
      std::memcpy(&x, p, 8);
      std::memcpy(&y, q, 8);
      if (x != y) return false;
    }
    for (; n > 0; --n) {
      if (*p++ != *q++) return false;
    }
    return true;
  }
};

/// Name → V. `Key` is std::string_view (the names live elsewhere, e.g. in the
/// IR objects the table points at) or std::string (the table owns them).
template <typename V, typename Key = std::string_view>
using NameMap = tsl::robin_map<Key, V, NameHash, NameEqual, std::allocator<std::pair<Key, V>>,
                               /*StoreHash=*/true>;

}  // namespace pteforge
