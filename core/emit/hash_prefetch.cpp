// HashPrefetch (see hash_prefetch.h).
#include "emit/hash_prefetch.h"

#include <atomic>

#if !defined(__EMSCRIPTEN__)
#include <pthread.h>
#endif

namespace pteforge::emit {

struct HashPrefetch::Work {
  std::vector<InputRange> ranges;
  RangeReader reader;
  KnownHashes hashes;
  std::atomic<bool> stop{false};
  bool started = false;
  bool joined = false;
#if !defined(__EMSCRIPTEN__)
  pthread_t thread{};
#endif

  void hash_all() {
    // Checked before every piece read (at most kRangeReadPiece bytes), so a
    // cancel does not wait for a whole large tensor.
    RangeReader stoppable = [this](const InputRange& r, uint8_t* dst) -> Status {
      if (stop.load(std::memory_order_relaxed)) return make_error(ErrorCode::INTERNAL, "hashing cancelled");
      return reader(r, dst);
    };
    for (const InputRange& r : ranges) {
      if (stop.load(std::memory_order_relaxed)) return;
      if (hashes.find(r)) continue;  // given twice (e.g. tied weights)
      Result<ContentHash> h = hash_chunk(Chunk::from_range(r.source, r.offset, r.length), stoppable);
      if (h.ok()) hashes.add(r, *h);  // a failed read is the pool's to report
    }
  }
};

HashPrefetch::HashPrefetch(std::vector<InputRange> ranges, RangeReader reader) : work_(std::make_unique<Work>()) {
  if (!kAvailable) return;
  work_->ranges = std::move(ranges);
  work_->reader = std::move(reader);
#if !defined(__EMSCRIPTEN__)
  if (work_->ranges.empty() || !work_->reader) return;
  auto body = [](void* w) -> void* {
    static_cast<Work*>(w)->hash_all();
    return nullptr;
  };
  work_->started = pthread_create(&work_->thread, nullptr, body, work_.get()) == 0;
#endif
}

HashPrefetch::~HashPrefetch() {
  cancel();
  (void)wait();
}

bool HashPrefetch::threaded() const { return work_->started; }

void HashPrefetch::cancel() { work_->stop.store(true, std::memory_order_relaxed); }

const KnownHashes& HashPrefetch::wait() {
#if !defined(__EMSCRIPTEN__)
  if (work_->started && !work_->joined) {
    pthread_join(work_->thread, nullptr);
    work_->joined = true;
  }
#endif
  return work_->hashes;
}

}  // namespace pteforge::emit
