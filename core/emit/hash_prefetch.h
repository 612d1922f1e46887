// HashPrefetch: the content hashes that the constant pool's dedup needs
// (constant_pool.h), computed on a second thread while the passes run, so
// that emitting finds them ready instead of reading every weight then.
//
// The hashes are keyed by exact input range and are the same XXH3-128 values
// hash_chunk gives, so the pool's result never depends on the prefetch: a
// range it did not hash (or could not read) is hashed by the pool as before,
// which also reports any read error at its placeholder and method.
//
// Native builds only: the WebAssembly build has no threads, and there (or
// when a thread cannot be started) nothing is hashed ahead.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "emit/chunks.h"
#include "emit/constant_pool.h"

namespace pteforge::emit {

class HashPrefetch {
 public:
  /// Whether this build can hash on a second thread (false under WebAssembly,
  /// where a HashPrefetch hashes nothing: callers can skip making one).
#if defined(__EMSCRIPTEN__)
  static constexpr bool kAvailable = false;
#else
  static constexpr bool kAvailable = true;
#endif

  /// Starts hashing `ranges` with `reader` on a new thread (a range given
  /// again after it was hashed is not read again). Until wait() returns (or
  /// the destructor), nothing else may use what `reader` reads from (e.g.
  /// the archive).
  HashPrefetch(std::vector<InputRange> ranges, RangeReader reader);
  /// Cancels (see cancel()) and waits for the thread.
  ~HashPrefetch();
  HashPrefetch(const HashPrefetch&) = delete;
  HashPrefetch& operator=(const HashPrefetch&) = delete;

  /// Asks the thread to stop before its next read of at most kRangeReadPiece
  /// bytes (wait() then returns the hashes completed so far). For callers
  /// that will not emit (an error).
  void cancel();
  /// Waits for the thread to finish and returns the hashes of the ranges it
  /// could read (all of them, unless a read failed; none when no thread ran).
  const KnownHashes& wait();
  /// True when a thread was started (false under WebAssembly).
  bool threaded() const;

 private:
  struct Work;  // the ranges, reader, results and thread state
  std::unique_ptr<Work> work_;
};

}  // namespace pteforge::emit
