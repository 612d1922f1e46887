// advise_huge_pages and HugePageHintAllocator: the kernel's view of the
// advised ranges (VmFlags "hg" in /proc/self/smaps) where Linux has
// transparent huge pages; elsewhere (WebAssembly, THP off) only that the
// calls are harmless.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

#include "support/huge_pages.h"

using namespace pteforge;

namespace {

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
constexpr uintptr_t kHuge = uintptr_t{2} << 20;

/// Whether the mapping holding `addr` carries VmFlags "hg" (advised for huge pages).
bool advised_at(uintptr_t addr) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    if (std::sscanf(line.c_str(), "%lx%c%lx", &lo, &dash, &hi) == 3 && dash == '-') {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return (line + " ").find(" hg ") != std::string::npos;
  }
  return false;
}

/// True when this kernel shows a madvise(MADV_HUGEPAGE) made here in
/// /proc/self/smaps (THP "always" or "madvise", and smaps with VmFlags;
/// some sandboxes accept the call and show nothing).
bool kernel_shows_advice() {
  const size_t size = size_t{8} << 20;
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return false;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(map) + kHuge - 1) & ~(kHuge - 1);
  const bool shown = madvise(reinterpret_cast<void*>(start), kHuge, MADV_HUGEPAGE) == 0 && advised_at(start);
  munmap(map, size);
  return shown;
}
#endif

}  // namespace

TEST_CASE(
    "advise_huge_pages: the whole 2 MiB pages inside the range, nothing outside, nothing for small ranges") {
  advise_huge_pages(nullptr, size_t{64} << 20);  // harmless
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  const size_t size = size_t{16} << 20;
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  const auto base = reinterpret_cast<uintptr_t>(map);
  const uintptr_t first_whole = (base + kHuge) & ~(kHuge - 1);  // past the first byte's 2 MiB page

  // Under kHugePageAdviceMin: nothing is advised.
  advise_huge_pages(reinterpret_cast<void*>(first_whole), kHugePageAdviceMin - 1);
  CHECK_FALSE(advised_at(first_whole));

  // From one byte past a 2 MiB boundary: the page holding that byte is not whole, so it stays.
  advise_huge_pages(reinterpret_cast<void*>(first_whole - kHuge + 1), size_t{8} << 20);
  CHECK_FALSE(advised_at(first_whole - 1));
  if (kernel_shows_advice()) {
    CHECK(advised_at(first_whole));
    CHECK(advised_at(first_whole + (size_t{6} << 20) - 1));
    CHECK_FALSE(advised_at(first_whole + (size_t{6} << 20)));  // the last, partial page
  } else {
    MESSAGE("this kernel does not show huge-page advice: only the unadvised ranges are checked");
  }
  munmap(map, size);
#endif
}

TEST_CASE(
    "HugePageHintAllocator: allocates, rebinds and compares like std::allocator, advising large blocks") {
  HugePageHintAllocator<uint64_t> alloc;
  HugePageHintAllocator<double> other(alloc);
  CHECK(alloc == other);

  uint64_t* small = alloc.allocate(16);
  for (size_t i = 0; i < 16; ++i) small[i] = i;
  CHECK(small[15] == 15);
  alloc.deallocate(small, 16);

  const size_t n = (size_t{12} << 20) / sizeof(uint64_t);
  uint64_t* big = alloc.allocate(n);
#if defined(__linux__) && !defined(__EMSCRIPTEN__)
  const uintptr_t inside = (reinterpret_cast<uintptr_t>(big) + kHuge) & ~(kHuge - 1);
  if (kernel_shows_advice()) CHECK(advised_at(inside));
#endif
  big[0] = 1;
  big[n - 1] = 2;
  CHECK(big[0] + big[n - 1] == 3);
  alloc.deallocate(big, n);
}
