// ConstantPool: a program-wide list of tensor bytes, deduplicated by content,
// as ExecuTorch's emitter keeps `constant_buffer` and `mutable_buffer`
// (executorch-pipeline.md §2.5, §2.6, §3.4).
//
// Entry 0 is reserved and empty (data_buffer_idx 0 means "no data"); it is
// never a dedup candidate, so even empty bytes get an entry of their own, as
// in ExecuTorch. Two additions with identical bytes share one index, whatever
// their dtype or shape. ExecuTorch keys its cache by SHA-256 of the bytes; we
// hash with XXH3-128 and compare the bytes on a hash match, which gives the
// same dedup result. Entries are Chunks: owned bytes, or references to input
// ranges (weights) that are read through the RangeReader in bounded pieces
// (kRangeReadPiece) only to hash and compare them — never copied.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "emit/chunks.h"
#include "support/error.h"

namespace pteforge::emit {

/// 128-bit content hash of a byte string (XXH3-128, seed 0).
struct ContentHash {
  uint64_t low = 0;
  uint64_t high = 0;
  bool operator==(const ContentHash&) const = default;
};

/// XXH3-128 of the chunk's bytes; an input range is read through `reader` in
/// pieces of at most kRangeReadPiece bytes.
/// Errors: IO_ERROR when a range is given without a reader; the reader's errors.
Result<ContentHash> hash_chunk(const Chunk& chunk, const RangeReader& reader);

/// True when the two chunks hold the same bytes (ranges read in pieces).
/// Errors: as hash_chunk.
Result<bool> chunks_equal(const Chunk& a, const Chunk& b, const RangeReader& reader);

/// Content hashes by input range (exact source, offset and length), computed
/// ahead of time (hash_prefetch.h).
class KnownHashes {
 public:
  void add(const InputRange& range, const ContentHash& hash);
  /// The hash of exactly `range`, or nullptr.
  const ContentHash* find(const InputRange& range) const;
  size_t size() const { return hashes_.size(); }

 private:
  struct Key {
    std::string source;
    uint64_t offset;
    uint64_t length;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  std::unordered_map<Key, ContentHash, KeyHash> hashes_;
};

class ConstantPool {
 public:
  /// `reader` reads the input ranges that entries reference (may be empty when
  /// only owned bytes are added).
  explicit ConstantPool(RangeReader reader = {});

  /// The index of `data` in the pool: the first earlier entry with the same
  /// bytes, or a new entry appended at the end. Never 0.
  /// Errors: hash_chunk / chunks_equal errors; EMIT_LIMIT past 2^32 - 1 entries.
  Result<uint32_t> add(Chunk data);
  /// Hashes of input ranges computed ahead (may be nullptr; must outlive the
  /// pool's use): add() takes a range's hash from there instead of reading it.
  void use_known_hashes(const KnownHashes* known) { known_ = known; }

  /// Every entry; [0] is the reserved empty entry.
  const std::vector<Chunk>& entries() const { return entries_; }
  /// Number of entries including the reserved one.
  size_t size() const { return entries_.size(); }
  /// Sum of the entry sizes in bytes.
  uint64_t total_bytes() const { return total_bytes_; }
  /// Moves the entries out (the pool is left with just the reserved entry).
  std::vector<Chunk> take();

 private:
  struct HashKey {
    size_t operator()(const ContentHash& h) const { return static_cast<size_t>(h.low ^ (h.high * 31)); }
  };
  RangeReader reader_;
  const KnownHashes* known_ = nullptr;
  std::vector<Chunk> entries_;
  uint64_t total_bytes_ = 0;
  /// Content hash → indices of the entries with that hash (several only on a collision).
  std::unordered_map<ContentHash, std::vector<uint32_t>, HashKey> by_hash_;
};

}  // namespace pteforge::emit
