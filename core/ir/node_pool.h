// Node storage for a graph: the list nodes that hold ir::Node objects are
// carved from large chunks owned by the graph, so the nodes of a graph sit
// next to each other in memory in creation order, whatever else is
// allocated between them (tensor metadata, argument vectors, names).
//
// Every pass walks the node list at least once; with each list node a
// separate malloc, a walk of the 100k-node synthetic program touched one
// scattered cache line per node: about 90 ns per node under WebAssembly's
// dlmalloc (Emscripten 3.1.6 has no other fast allocator), 6x the native
// time with mimalloc. Chunks make the walk nearly sequential on both.
//
// Under AddressSanitizer the pool passes every request to operator new, so
// a dangling Node* is still caught.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace pteforge::ir::detail {

/// Blocks of one size (fixed by the first request) from growing chunks, with
/// a free list for reuse. Requests of another size go to operator new.
/// Not thread-safe (a graph is used by one thread at a time).
class BlockPool {
 public:
  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool();

  /// `size` bytes aligned for any object (std::max_align_t).
  void* allocate(size_t size);
  /// Returns a block from allocate(size).
  void deallocate(void* p, size_t size) noexcept;
  /// False under AddressSanitizer, where every request goes to operator new.
  static bool pools();

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  bool pooled(size_t size) const { return requested_ != 0 && size == requested_; }
  void grow();

  size_t requested_ = 0;  // the size the pool serves (0 until the first request)
  size_t stride_ = 0;     // requested_ rounded up to alignof(std::max_align_t)
  size_t next_chunk_blocks_ = 64;
  char* next_ = nullptr;  // unused part of the newest chunk
  char* end_ = nullptr;
  FreeBlock* free_ = nullptr;
  std::vector<void*> chunks_;
};

/// std::allocator-compatible view of a BlockPool: single objects come from
/// the pool, arrays from operator new. Equal when they share a pool.
template <typename T>
class PoolAllocator {
 public:
  using value_type = T;

  explicit PoolAllocator(BlockPool* pool) noexcept : pool_(pool) {}
  template <typename U>
  PoolAllocator(const PoolAllocator<U>& o) noexcept : pool_(o.pool()) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t), "pool blocks are aligned for std::max_align_t only");
    if (n == 1) return static_cast<T*>(pool_->allocate(sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n == 1) {
      pool_->deallocate(p, sizeof(T));
    } else {
      ::operator delete(p);
    }
  }
  BlockPool* pool() const noexcept { return pool_; }

  template <typename U>
  bool operator==(const PoolAllocator<U>& o) const noexcept {
    return pool_ == o.pool();
  }
  template <typename U>
  bool operator!=(const PoolAllocator<U>& o) const noexcept {
    return pool_ != o.pool();
  }

 private:
  BlockPool* pool_;
};

}  // namespace pteforge::ir::detail
