// advise_huge_pages (see huge_pages.h).
#include "support/huge_pages.h"

#include <cstdint>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

namespace pteforge {

void advise_huge_pages(const void* p, size_t bytes) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  if (p == nullptr || bytes < kHugePageAdviceMin) return;
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (end <= start) return;
  // A hint: an error (EINVAL where THP is compiled out) changes nothing.
  (void)madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace pteforge
