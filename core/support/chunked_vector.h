// ChunkedVector: a sequence with stable element addresses, stored in
// fixed-size chunks of kChunk elements.
//
// It replaces std::deque where elements are large: libstdc++'s deque keeps
// 512 bytes per chunk, so an element of 272 bytes (ir::Value) or 240 bytes
// (ir::Node) cost one heap allocation each. Here one allocation holds kChunk
// elements. Only what the IR needs: append at the end, drop from the end,
// index, iterate in order.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace pteforge {

/// Append-only (plus pop_back) sequence whose elements never move.
/// T must be default-constructible for emplace_back() without arguments.
/// Not copyable (the owners copy element by element); movable.
template <typename T, size_t kChunk = 256>
class ChunkedVector {
 public:
  ChunkedVector() = default;
  ChunkedVector(const ChunkedVector&) = delete;
  ChunkedVector& operator=(const ChunkedVector&) = delete;
  ChunkedVector(ChunkedVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(o.size_) { o.size_ = 0; }
  ChunkedVector& operator=(ChunkedVector&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      size_ = o.size_;
      o.size_ = 0;
    }
    return *this;
  }
  ~ChunkedVector() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return slot(i); }
  const T& operator[](size_t i) const { return const_cast<ChunkedVector*>(this)->slot(i); }
  T& back() { return slot(size_ - 1); }
  const T& back() const { return (*this)[size_ - 1]; }

  /// Constructs an element at the end; returns it. Its address stays valid
  /// until it is popped or the container is cleared.
  template <typename... A>
  T& emplace_back(A&&... args) {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::unique_ptr<Chunk>(new Chunk));  // uninitialised bytes
    T* p = ::new (static_cast<void*>(&slot_storage(size_))) T(std::forward<A>(args)...);
    ++size_;
    return *p;
  }
  /// Destroys the last element (precondition: !empty()). Chunk memory is kept.
  void pop_back() {
    --size_;
    slot(size_).~T();
  }
  /// Destroys every element and frees every chunk.
  void clear() {
    while (size_ > 0) pop_back();
    chunks_.clear();
  }

  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f((*this)[i]);
  }

 private:
  struct Chunk {
    alignas(T) unsigned char bytes[sizeof(T) * kChunk];
  };
  unsigned char& slot_storage(size_t i) { return chunks_[i / kChunk]->bytes[(i % kChunk) * sizeof(T)]; }
  T& slot(size_t i) { return *std::launder(reinterpret_cast<T*>(&slot_storage(i))); }

  std::vector<std::unique_ptr<Chunk>> chunks_;
  size_t size_ = 0;
};

}  // namespace pteforge
