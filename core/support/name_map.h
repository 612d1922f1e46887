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
#include <tsl/robin_set.h>
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

#include "support/huge_pages.h"

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

/// Hash for pointer keys of open-addressing tables (tsl::robin_map/set).
/// std::hash of a pointer is the address itself, and those tables pick the
/// bucket from the low bits: objects of one size class lie a fixed stride
/// apart (a TensorSpec every 256 bytes), so their low bits are all equal and
/// the keys pile into a few long runs. The splitmix64 finalizer spreads every
/// address bit into the low ones.
struct PtrHash {
  size_t operator()(const void* p) const {
    uint64_t x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return static_cast<size_t>(x);
  }
};

/// Pointer → V and pointer set, open addressing with PtrHash.
/// Their bucket arrays come from HugePageHintAllocator: a table of a
/// 100k-node program spans tens of MB, written whole when it is reserved.
template <typename K, typename V>
using PtrMap = tsl::robin_map<K*, V, PtrHash, std::equal_to<K*>, HugePageHintAllocator<std::pair<K*, V>>>;
template <typename K>
using PtrSet = tsl::robin_set<K*, PtrHash, std::equal_to<K*>, HugePageHintAllocator<K*>>;

/// Name → V. `Key` is std::string_view (the names live elsewhere, e.g. in the
/// IR objects the table points at) or std::string (the table owns them).
template <typename V, typename Key = std::string_view>
using NameMap = tsl::robin_map<Key, V, NameHash, NameEqual, HugePageHintAllocator<std::pair<Key, V>>,
                               /*StoreHash=*/true>;

}  // namespace pteforge
