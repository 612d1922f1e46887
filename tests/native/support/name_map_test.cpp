#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "support/error.h"
#include "support/name_map.h"

using namespace pteforge;

TEST_CASE("name_map: NameEqual agrees with == at every length and every differing position") {
  const NameEqual eq;
  const std::string base = "aten_convolution_backward_default_1234567";
  for (size_t len = 0; len <= base.size(); ++len) {
    const std::string a = base.substr(0, len);
    std::string b = a;
    CHECK(eq(a, b));
    for (size_t i = 0; i < len; ++i) {
      std::string c = a;
      c[i] = static_cast<char>(c[i] ^ 0x20);
      CAPTURE(len);
      CAPTURE(i);
      CHECK_FALSE(eq(a, c));
    }
    if (len > 0) CHECK_FALSE(eq(a, a.substr(0, len - 1)));  // a prefix is not equal
  }
}

TEST_CASE("name_map: lookups by view, literal and string find the same entry, erase frees the name") {
  NameMap<int, std::string> owned;
  owned.emplace("linear_weight", 1);
  owned.emplace("linear_bias", 2);
  const std::string key = "linear_bias";
  CHECK(owned.find(std::string_view("linear_weight"))->second == 1);
  CHECK(owned.find(key)->second == 2);
  CHECK(owned.find(std::string_view("linear")) == owned.end());
  owned.erase(owned.find(std::string_view("linear_weight")));
  CHECK(owned.find(std::string_view("linear_weight")) == owned.end());
  CHECK(owned.size() == 1);

  std::string names[3] = {"x", "y", "z"};
  NameMap<int> views;
  for (int i = 0; i < 3; ++i) views.emplace(std::string_view(names[i]), i);
  CHECK(views.find(std::string_view("y"))->second == 1);
  CHECK(views.count(std::string_view("w")) == 0);
}

TEST_CASE("error: single_quoted") {
  CHECK(single_quoted("add_1") == "'add_1'");
  CHECK(single_quoted("") == "''");
}

TEST_CASE("error: clipped cuts long text to the limit, never inside a UTF-8 sequence") {
  CHECK(clipped("s0 + s1", 80) == "s0 + s1");
  CHECK(clipped(std::string(80, 'a')) == std::string(80, 'a'));
  CHECK(clipped(std::string(81, 'a')) == std::string(77, 'a') + "...");
  CHECK(clipped("abcdef", 5) == "ab...");
  // "\xc3\xa9" (é) would be split after "a\xc3": the cut moves back before it.
  CHECK(clipped("a\xc3\xa9xyz", 5) == "a...");
  CHECK(clipped("abcdef", 2) == "abcdef");
}

TEST_CASE("name_map: PtrHash spreads addresses a fixed stride apart over the low bits") {
  // 1024 objects 256 bytes apart (one allocator size class): the address
  // itself has 8 equal low bits, so a 1024-bucket mask sees only 4 buckets.
  const uintptr_t base = 0x12345600;  // fits 32-bit (WebAssembly) pointers too
  std::set<size_t> identity_buckets, mixed_buckets;
  for (uintptr_t i = 0; i < 1024; ++i) {
    const void* p = reinterpret_cast<const void*>(base + i * 256);
    // The address itself, as libstdc++'s std::hash of a pointer gives it
    // (libc++, Emscripten's, hashes the bytes instead).
    identity_buckets.insert(static_cast<size_t>(reinterpret_cast<uintptr_t>(p)) & 1023);
    mixed_buckets.insert(PtrHash{}(p) & 1023);
  }
  CHECK(identity_buckets.size() == 4);
  // A random function fills 1 - 1/e of 1024 buckets (about 647) with 1024 keys.
  CHECK(mixed_buckets.size() > 600);

  PtrMap<const int, int> map;
  int values[3] = {0, 1, 2};
  for (int& v : values) map.emplace(&v, v * 10);
  CHECK(map.at(&values[1]) == 10);
  CHECK(map.count(&values[0]) == 1);
  PtrSet<const int> set;
  CHECK(set.insert(&values[2]).second);
  CHECK_FALSE(set.insert(&values[2]).second);
  CHECK(set.count(&values[0]) == 0);
}
