// ChunkedVector: a sequence with stable element addresses, stored in chunks
// that double in size (kFirst, kFirst, 2·kFirst, 4·kFirst, ...).
//
// It replaces std::deque where elements are large: libstdc++'s deque keeps
// 512 bytes per chunk, so an element of 272 bytes (ir::Value) cost one heap
// allocation each. Here n elements take about log2(n / kFirst) allocations,
// a small container stays small (a graph of a few values allocates one chunk
// of kFirst), and elements never move, unlike std::vector's. Only what the IR
// needs: append at the end, drop from the end, index, iterate in order.
#pragma once

#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace pteforge {

/// Append-only (plus pop_back) sequence whose elements never move.
/// kFirst (a power of two) is the first chunk's capacity. Not copyable (the
/// owners copy element by element); movable.
template <typename T, size_t kFirst = 8>
class ChunkedVector {
  static_assert(kFirst > 0 && (kFirst & (kFirst - 1)) == 0, "kFirst must be a power of two");

 public:
  ChunkedVector() = default;
  ChunkedVector(const ChunkedVector&) = delete;
  ChunkedVector& operator=(const ChunkedVector&) = delete;
  ChunkedVector(ChunkedVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(o.size_) {
    o.chunks_.clear();
    o.size_ = 0;
  }
  ChunkedVector& operator=(ChunkedVector&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      size_ = o.size_;
      o.chunks_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  ~ChunkedVector() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return *slot(i); }
  const T& operator[](size_t i) const { return *const_cast<ChunkedVector*>(this)->slot(i); }
  T& back() { return *slot(size_ - 1); }
  const T& back() const { return (*this)[size_ - 1]; }

  /// Constructs an element at the end; returns it. Its address stays valid
  /// until it is popped or the container is cleared.
  template <typename... A>
  T& emplace_back(A&&... args) {
    if (size_ == capacity()) chunks_.push_back(std::allocator<T>().allocate(chunk_capacity(chunks_.size())));
    T* p = ::new (static_cast<void*>(slot(size_))) T(std::forward<A>(args)...);
    ++size_;
    return *p;
  }
  /// Destroys the last element (precondition: !empty()). Chunk memory is kept.
  void pop_back() {
    --size_;
    slot(size_)->~T();
  }
  /// Destroys every element and frees every chunk.
  void clear() {
    while (size_ > 0) pop_back();
    for (size_t k = 0; k < chunks_.size(); ++k) std::allocator<T>().deallocate(chunks_[k], chunk_capacity(k));
    chunks_.clear();
  }

  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f((*this)[i]);
  }

 private:
  /// Chunk k holds kFirst elements for k = 0 and kFirst << (k - 1) after, so
  /// chunks 0..k hold kFirst << k in all.
  static size_t chunk_capacity(size_t k) { return k == 0 ? kFirst : kFirst << (k - 1); }
  size_t capacity() const { return chunks_.empty() ? 0 : kFirst << (chunks_.size() - 1); }
  T* slot(size_t i) {
    if (i < kFirst) return chunks_[0] + i;
    const size_t k = static_cast<size_t>(std::bit_width(i / kFirst));  // i in [kFirst << (k-1), kFirst << k)
    return chunks_[k] + (i - (kFirst << (k - 1)));
  }

  std::vector<T*> chunks_;  // raw storage from std::allocator<T>, constructed up to size_
  size_t size_ = 0;
};

}  // namespace pteforge
