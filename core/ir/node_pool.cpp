// BlockPool (node_pool.h).
#include "ir/node_pool.h"

#include <algorithm>
#include <cstdint>

namespace pteforge::ir::detail {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPassThrough = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPassThrough = true;
#else
constexpr bool kPassThrough = false;
#endif
#else
constexpr bool kPassThrough = false;
#endif

/// Most blocks in one chunk (chunks grow 64, 128, ... up to this).
constexpr size_t kMaxChunkBlocks = 4096;

}  // namespace

bool BlockPool::pools() { return !kPassThrough; }

BlockPool::~BlockPool() {
  for (void* c : chunks_) ::operator delete(c);
}

void BlockPool::grow() {
  const size_t bytes = stride_ * next_chunk_blocks_;
  chunks_.reserve(chunks_.size() + 1);
  next_ = static_cast<char*>(::operator new(bytes));
  end_ = next_ + bytes;
  chunks_.push_back(next_);
  next_chunk_blocks_ = std::min(next_chunk_blocks_ * 2, kMaxChunkBlocks);
}

void* BlockPool::allocate(size_t size) {
  if (kPassThrough) return ::operator new(size);
  if (requested_ == 0 && size >= sizeof(FreeBlock)) {
    requested_ = size;
    constexpr size_t align = alignof(std::max_align_t);
    stride_ = (size + align - 1) / align * align;
  }
  if (!pooled(size)) return ::operator new(size);
  if (free_ != nullptr) {
    FreeBlock* b = free_;
    free_ = b->next;
    return b;
  }
  if (next_ == end_) grow();
  void* p = next_;
  next_ += stride_;
  return p;
}

void BlockPool::deallocate(void* p, size_t size) noexcept {
  if (kPassThrough || !pooled(size)) {
    ::operator delete(p);
    return;
  }
  free_ = new (p) FreeBlock{free_};
}

}  // namespace pteforge::ir::detail
