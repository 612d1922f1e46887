// ChunkedVector: stable addresses across chunks, destruction of every element.
#include "support/chunked_vector.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using pteforge::ChunkedVector;

namespace {
int live = 0;
struct Tracked {
  int v;
  explicit Tracked(int x = 0) : v(x) { ++live; }
  ~Tracked() { --live; }
  Tracked(const Tracked&) = delete;
};
}  // namespace

TEST_CASE("chunked_vector: elements keep their address and value across chunk boundaries") {
  ChunkedVector<std::string, 4> v;
  std::vector<const std::string*> addr;
  for (int i = 0; i < 11; ++i) addr.push_back(&v.emplace_back(std::string(20, static_cast<char>('a' + i))));
  REQUIRE(v.size() == 11);
  for (size_t i = 0; i < 11; ++i) {
    CHECK(&v[i] == addr[i]);
    CHECK(v[i] == std::string(20, static_cast<char>('a' + i)));
  }
  CHECK(v.back() == std::string(20, 'k'));
  std::string seen;
  v.for_each([&](const std::string& s) { seen += s[0]; });
  CHECK(seen == "abcdefghijk");
}

TEST_CASE("chunked_vector: chunks double (8, 8, 16, ...), so many elements take few allocations") {
  ChunkedVector<int64_t> v;
  std::vector<const int64_t*> addr;
  for (int64_t i = 0; i < 5000; ++i) addr.push_back(&v.emplace_back(i * 3));
  for (size_t i = 0; i < addr.size(); ++i) {
    REQUIRE(&v[i] == addr[i]);
    REQUIRE(v[i] == static_cast<int64_t>(i) * 3);
  }
  // Within a chunk elements are contiguous: 8..15 is chunk 1, 16..31 chunk 2, 4096..8191 chunk 10.
  CHECK(&v[15] == &v[8] + 7);
  CHECK(&v[31] == &v[16] + 15);
  CHECK(&v[4999] == &v[4096] + 903);
}

TEST_CASE("chunked_vector: pop_back, clear, move and destruction destroy each element once") {
  live = 0;
  {
    ChunkedVector<Tracked, 2> v;
    for (int i = 0; i < 7; ++i) v.emplace_back(i);
    CHECK(live == 7);
    v.pop_back();
    v.pop_back();
    CHECK(live == 5);
    CHECK(v.size() == 5);
    CHECK(v.back().v == 4);
    v.emplace_back(40);  // reuses the kept chunk
    CHECK(v[5].v == 40);
    ChunkedVector<Tracked, 2> w(std::move(v));
    CHECK(v.empty());
    CHECK(w.size() == 6);
    CHECK(live == 6);
    ChunkedVector<Tracked, 2> x;
    x.emplace_back(1);
    x = std::move(w);
    CHECK(live == 6);
    CHECK(x[0].v == 0);
    x.clear();
    CHECK(live == 0);
    CHECK(x.empty());
    x.emplace_back(9);
    CHECK(live == 1);
  }
  CHECK(live == 0);
}
