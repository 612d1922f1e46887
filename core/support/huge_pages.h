// Transparent huge pages for large buffers (native Linux only).
//
// Memory touched for the first time is the dearest part of a conversion on
// some machines (README "Performance": 1.6-2.9 ms per MB on the virtual
// machine we measure on, against 0.05 ms per MB reused). With transparent
// huge pages in "madvise" mode (Debian's default), the kernel backs a range
// with 2 MiB pages only when asked, one page fault per 2 MiB instead of per
// 4 KiB. mimalloc asks for its own segments (the CLI's large_os_pages), but
// not for allocations too large for a segment (about 16 MiB and up), which
// are exactly the large tables and buffers of a big program.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace pteforge {

/// Allocations of at least this many bytes are worth advising (below it a
/// range holds at most one whole 2 MiB page).
inline constexpr size_t kHugePageAdviceMin = size_t{4} << 20;

/// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with
/// transparent huge pages when they are first touched (madvise
/// MADV_HUGEPAGE). A hint: does nothing for ranges under kHugePageAdviceMin,
/// off Linux, under Emscripten, or where the kernel refuses; never fails.
/// Call it before the range is written.
void advise_huge_pages(const void* p, size_t bytes);

/// std::allocator that advises huge pages (advise_huge_pages) for each
/// allocation of at least kHugePageAdviceMin bytes, before anything is
/// constructed in it: for the open-addressing tables (support/name_map.h),
/// whose bucket arrays are written whole when they are reserved.
template <typename T>
struct HugePageHintAllocator {
  using value_type = T;
  HugePageHintAllocator() noexcept = default;
  template <typename U>
  HugePageHintAllocator(const HugePageHintAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    T* p = std::allocator<T>().allocate(n);
    if (n >= kHugePageAdviceMin / sizeof(T)) advise_huge_pages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, size_t n) noexcept { std::allocator<T>().deallocate(p, n); }

  template <typename U>
  bool operator==(const HugePageHintAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace pteforge
