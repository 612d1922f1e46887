#include <doctest/doctest.h>

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
