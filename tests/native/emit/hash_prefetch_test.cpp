// HashPrefetch and the constant pool's use of hashes computed ahead: the same
// hashes as hash_chunk, each range read once, read failures left to the pool,
// and a pool that takes a known hash without reading the range.
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "emit/constant_pool.h"
#include "emit/hash_prefetch.h"

using namespace pteforge;
using namespace pteforge::emit;

namespace {

/// A reader over named byte strings that counts its calls (from any thread).
struct FakeInputs {
  std::map<std::string, std::string> files;
  std::atomic<int> reads{0};

  RangeReader reader() {
    return [this](const InputRange& r, uint8_t* dst) -> Status {
      ++reads;
      auto it = files.find(r.source);
      if (it == files.end() || r.offset + r.length > it->second.size()) {
        Location where;
        where.entry = r.source;
        return make_error(ErrorCode::IO_ERROR, "cannot read \"" + r.source + "\"", where);
      }
      std::copy(it->second.begin() + static_cast<long>(r.offset),
                it->second.begin() + static_cast<long>(r.offset + r.length), dst);
      return Status::Ok();
    };
  }
};

ContentHash hash_of(const std::string& bytes) {
  auto h = hash_chunk(Chunk::from_string(bytes), {});
  REQUIRE(h.ok());
  return *h;
}

}  // namespace

TEST_CASE("KnownHashes: found by exact source, offset and length only") {
  KnownHashes known;
  known.add(InputRange{"data/weights/w", 8, 16}, ContentHash{1, 2});
  REQUIRE(known.find(InputRange{"data/weights/w", 8, 16}) != nullptr);
  CHECK(*known.find(InputRange{"data/weights/w", 8, 16}) == ContentHash{1, 2});
  CHECK(known.find(InputRange{"data/weights/w", 8, 15}) == nullptr);
  CHECK(known.find(InputRange{"data/weights/w", 0, 16}) == nullptr);
  CHECK(known.find(InputRange{"data/weights/v", 8, 16}) == nullptr);
  CHECK(known.size() == 1);
}

TEST_CASE("HashPrefetch: hash_chunk's hashes, each range read once, unreadable ranges left out") {
  FakeInputs in;
  in.files["a"] = "0123456789abcdef";
  in.files["b"] = std::string(3u << 20, 'x');  // three 1 MiB pieces
  std::vector<InputRange> ranges = {{"a", 0, 16}, {"a", 4, 8}, {"b", 0, 3u << 20}, {"a", 0, 16}, {"missing", 0, 4}};
  HashPrefetch prefetch(ranges, in.reader());
  const KnownHashes& known = prefetch.wait();
#if defined(__EMSCRIPTEN__)
  CHECK_FALSE(prefetch.threaded());  // no threads: nothing hashed ahead, nothing read
  CHECK(known.size() == 0);
  CHECK(in.reads == 0);
#else
  REQUIRE(prefetch.threaded());
  CHECK(known.size() == 3);
  REQUIRE(known.find(InputRange{"a", 0, 16}) != nullptr);
  CHECK(*known.find(InputRange{"a", 0, 16}) == hash_of("0123456789abcdef"));
  REQUIRE(known.find(InputRange{"a", 4, 8}) != nullptr);
  CHECK(*known.find(InputRange{"a", 4, 8}) == hash_of("456789ab"));
  REQUIRE(known.find(InputRange{"b", 0, 3u << 20}) != nullptr);
  CHECK(*known.find(InputRange{"b", 0, 3u << 20}) == hash_of(std::string(3u << 20, 'x')));
  CHECK(known.find(InputRange{"missing", 0, 4}) == nullptr);
  CHECK(in.reads == 1 + 1 + 3 + 1);  // the repeated range once; b in three pieces; the failed read
  CHECK(&prefetch.wait() == &known);  // a second wait returns at once
#endif
}

namespace {

/// Starts a HashPrefetch over `ranges` whose first read blocks until the
/// test has cancelled it, then returns the number of hashes it completed
/// (under WebAssembly: checks nothing was hashed and returns 0).
size_t hashes_after_cancel_during_first_read(FakeInputs& in, std::vector<InputRange> ranges) {
  std::atomic<bool> reading{false}, go{false};
  RangeReader inner = in.reader();
  RangeReader gated = [&](const InputRange& r, uint8_t* dst) {
    reading = true;
    while (!go) {
    }
    return inner(r, dst);
  };
  HashPrefetch prefetch(std::move(ranges), gated);
#if !defined(__EMSCRIPTEN__)
  REQUIRE(prefetch.threaded());
  while (!reading) {
  }
  prefetch.cancel();  // while the first read waits
  go = true;
#endif
  return prefetch.wait().size();
}

}  // namespace

TEST_CASE("HashPrefetch: cancel stops the thread after the range it is reading") {
  FakeInputs in;
  in.files["a"] = std::string(100, 'a');
  std::vector<InputRange> ranges;
  for (uint64_t i = 0; i < 100; ++i) ranges.push_back(InputRange{"a", i, 1});
  const size_t hashed = hashes_after_cancel_during_first_read(in, ranges);
#if defined(__EMSCRIPTEN__)
  CHECK(hashed == 0);
#else
  CHECK(hashed == 1);
  CHECK(in.reads == 1);
#endif
}

TEST_CASE("HashPrefetch: cancel stops a large range between its 1 MiB pieces") {
  FakeInputs in;
  in.files["big"] = std::string(3u << 20, 'b');
  const size_t hashed = hashes_after_cancel_during_first_read(in, {InputRange{"big", 0, 3u << 20}});
  CHECK(hashed == 0);  // the range was not finished (cancelled during the first of three pieces): no hash
#if !defined(__EMSCRIPTEN__)
  CHECK(in.reads == 1);
#endif
}

TEST_CASE("ConstantPool: a known hash is used without reading the range, and dedup still compares bytes") {
  FakeInputs in;
  in.files["w"] = "AAAABBBBAAAA";
  KnownHashes known;
  known.add(InputRange{"w", 0, 4}, hash_of("AAAA"));
  known.add(InputRange{"w", 8, 4}, hash_of("AAAA"));
  ConstantPool pool(in.reader());
  pool.use_known_hashes(&known);
  auto first = pool.add(Chunk::from_range("w", 0, 4));
  REQUIRE(first.ok());
  CHECK(*first == 1);
  CHECK(in.reads == 0);  // hash known: nothing read
  auto same = pool.add(Chunk::from_range("w", 8, 4));
  REQUIRE(same.ok());
  CHECK(*same == 1);     // equal bytes: the first entry
  CHECK(in.reads == 2);  // the hash matched, so both ranges were read to compare
  auto other = pool.add(Chunk::from_range("w", 4, 4));  // not known: hashed by reading
  REQUIRE(other.ok());
  CHECK(*other == 2);
  CHECK(in.reads == 3);
  CHECK(pool.size() == 3);
}
