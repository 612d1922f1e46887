// ConstantPool (see constant_pool.h).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "emit/constant_pool.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

namespace pteforge::emit {
namespace {

Status no_reader(const InputRange& r) {
  Location where;
  where.entry = r.source;
  where.byte_offset = r.offset;
  return make_error(ErrorCode::IO_ERROR, "constant data references input '" + r.source +
                                            "' but no reader for inputs was given", where);
}

/// Calls f(data, size) for consecutive pieces of the chunk (owned bytes in one piece).
template <typename F>
Status for_each_piece(const Chunk& c, const RangeReader& reader, std::vector<uint8_t>& buf, F&& f) {
  if (c.is_bytes()) {
    f(c.bytes().data(), static_cast<uint64_t>(c.bytes().size()));
    return Status::Ok();
  }
  const InputRange& r = c.range();
  if (r.length == 0) return Status::Ok();
  if (!reader) return no_reader(r);
  for (uint64_t done = 0; done < r.length;) {
    uint64_t n = std::min(kRangeReadPiece, r.length - done);
    buf.resize(static_cast<size_t>(n));
    PTEFORGE_TRY(reader(InputRange{r.source, r.offset + done, n}, buf.data()));
    f(buf.data(), n);
    done += n;
  }
  return Status::Ok();
}

/// Reads [offset, offset + n) of a chunk into dst.
Status read_piece(const Chunk& c, const RangeReader& reader, uint64_t offset, uint64_t n, uint8_t* dst) {
  if (c.is_bytes()) {
    std::memcpy(dst, c.bytes().data() + offset, static_cast<size_t>(n));
    return Status::Ok();
  }
  const InputRange& r = c.range();
  if (!reader) return no_reader(r);
  return reader(InputRange{r.source, r.offset + offset, n}, dst);
}

}  // namespace

Result<ContentHash> hash_chunk(const Chunk& chunk, const RangeReader& reader) {
  if (chunk.is_bytes()) {
    XXH128_hash_t h = XXH3_128bits(chunk.bytes().data(), chunk.bytes().size());
    return ContentHash{h.low64, h.high64};
  }
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_128bits_reset(&state);
  std::vector<uint8_t> buf;
  PTEFORGE_TRY(for_each_piece(chunk, reader, buf, [&](const uint8_t* data, uint64_t n) {
    XXH3_128bits_update(&state, data, static_cast<size_t>(n));
  }));
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return ContentHash{h.low64, h.high64};
}

Result<bool> chunks_equal(const Chunk& a, const Chunk& b, const RangeReader& reader) {
  if (a.size() != b.size()) return false;
  if (a.is_bytes() && b.is_bytes()) return a.bytes() == b.bytes();
  if (!a.is_bytes() && !b.is_bytes() && a.range() == b.range()) return true;
  const uint64_t size = a.size();
  std::vector<uint8_t> pa, pb;
  for (uint64_t done = 0; done < size;) {
    uint64_t n = std::min(kRangeReadPiece, size - done);
    pa.resize(static_cast<size_t>(n));
    pb.resize(static_cast<size_t>(n));
    PTEFORGE_TRY(read_piece(a, reader, done, n, pa.data()));
    PTEFORGE_TRY(read_piece(b, reader, done, n, pb.data()));
    if (std::memcmp(pa.data(), pb.data(), static_cast<size_t>(n)) != 0) return false;
    done += n;
  }
  return true;
}

size_t KnownHashes::KeyHash::operator()(const Key& k) const {
  size_t h = std::hash<std::string>()(k.source);
  h ^= std::hash<uint64_t>()(k.offset) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= std::hash<uint64_t>()(k.length) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

void KnownHashes::add(const InputRange& range, const ContentHash& hash) {
  hashes_.insert_or_assign(Key{range.source, range.offset, range.length}, hash);
}

const ContentHash* KnownHashes::find(const InputRange& range) const {
  auto it = hashes_.find(Key{range.source, range.offset, range.length});
  return it == hashes_.end() ? nullptr : &it->second;
}

ConstantPool::ConstantPool(RangeReader reader) : reader_(std::move(reader)) {
  entries_.push_back(Chunk::from_bytes({}));
}

Result<uint32_t> ConstantPool::add(Chunk data) {
  const ContentHash* known = known_ && !data.is_bytes() ? known_->find(data.range()) : nullptr;
  ContentHash h;
  if (known) {
    h = *known;
  } else {
    PTEFORGE_ASSIGN_OR_RETURN(h, hash_chunk(data, reader_));
  }
  std::vector<uint32_t>& candidates = by_hash_[h];
  for (uint32_t idx : candidates) {
    PTEFORGE_ASSIGN_OR_RETURN(bool same, chunks_equal(entries_[idx], data, reader_));
    if (same) return idx;
  }
  if (entries_.size() >= std::numeric_limits<uint32_t>::max()) {
    return make_error(ErrorCode::EMIT_LIMIT, "more than 2^32 - 1 distinct constant tensors");
  }
  const auto idx = static_cast<uint32_t>(entries_.size());
  total_bytes_ += data.size();
  entries_.push_back(std::move(data));
  candidates.push_back(idx);
  return idx;
}

std::vector<Chunk> ConstantPool::take() {
  std::vector<Chunk> out = std::move(entries_);
  entries_.clear();
  entries_.push_back(Chunk::from_bytes({}));
  by_hash_.clear();
  total_bytes_ = 0;
  return out;
}

}  // namespace pteforge::emit
