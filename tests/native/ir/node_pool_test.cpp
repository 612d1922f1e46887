#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <set>

#include "ir/node_pool.h"

using pteforge::ir::detail::BlockPool;
using pteforge::ir::detail::PoolAllocator;


TEST_CASE("node_pool: blocks of the pool's size are aligned, distinct, reused after release") {
  BlockPool pool;
  // Requests too small to hold a free-list link (0 bytes included) never fix the pool's size.
  void* tiny = pool.allocate(0);
  pool.deallocate(tiny, 0);
  const size_t too_small = sizeof(void*) - 1;  // 3 bytes on wasm32, 7 on 64-bit hosts
  void* small = pool.allocate(too_small);
  pool.deallocate(small, too_small);
  std::set<void*> seen;
  void* blocks[300];
  for (auto& b : blocks) {
    b = pool.allocate(40);
    CHECK(reinterpret_cast<uintptr_t>(b) % alignof(std::max_align_t) == 0);
    CHECK(seen.insert(b).second);
  }
  if (BlockPool::pools()) {
    // Consecutive blocks of one chunk are one stride apart: 40 bytes rounded
    // up to alignof(std::max_align_t) (x86-64: 16, so 48; wasm32: 8, so 40).
    constexpr ptrdiff_t kStride = alignof(std::max_align_t) == 16 ? 48 : 40;
    CHECK(static_cast<char*>(blocks[1]) - static_cast<char*>(blocks[0]) == kStride);
  }
  pool.deallocate(blocks[7], 40);
  void* again = pool.allocate(40);
  if (BlockPool::pools()) CHECK(again == blocks[7]);
  // Another size is served, and released, outside the pool.
  void* other = pool.allocate(1000);
  CHECK(seen.count(other) == 0);
  pool.deallocate(other, 1000);
  for (auto& b : blocks) {
    if (b != blocks[7]) pool.deallocate(b, 40);
  }
  pool.deallocate(again, 40);
}

TEST_CASE("node_pool: a std::list on the pool keeps its elements through inserts, erases and splices") {
  BlockPool pool;
  std::list<int, PoolAllocator<int>> list{PoolAllocator<int>(&pool)};
  for (int i = 0; i < 1000; ++i) list.push_back(i);
  for (auto it = list.begin(); it != list.end();) it = (*it % 3 == 0) ? list.erase(it) : std::next(it);
  list.insert(list.begin(), -1);
  list.splice(list.end(), list, list.begin());
  CHECK(list.size() == 667);
  CHECK(list.front() == 1);
  CHECK(list.back() == -1);
  long sum = 0;
  for (int v : list) sum += v;
  CHECK(sum == 499500 - 166833 - 1);  // 0..999 minus the multiples of 3, plus -1
  CHECK(PoolAllocator<int>(&pool) == PoolAllocator<long>(&pool));
  BlockPool other;
  CHECK(PoolAllocator<int>(&pool) != PoolAllocator<int>(&other));
}
