// README.md's "Supported decompositions" list is the decomposition table:
// every target between the markers, and nothing else. On a mismatch the
// message holds the list to paste.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "passes/decompositions/table.h"

namespace {

constexpr const char* kBegin = "<!-- decompositions:begin -->";
constexpr const char* kEnd = "<!-- decompositions:end -->";

/// The `aten.*` names in backticks between the markers of README.md.
std::vector<std::string> readme_targets(const std::string& text) {
  const size_t begin = text.find(kBegin);
  const size_t end = text.find(kEnd);
  REQUIRE_MESSAGE(begin != std::string::npos, "README.md has no " << kBegin);
  REQUIRE_MESSAGE(end != std::string::npos, "README.md has no " << kEnd);
  REQUIRE(begin < end);
  std::vector<std::string> out;
  size_t pos = begin;
  while ((pos = text.find("`aten.", pos)) != std::string::npos && pos < end) {
    const size_t close = text.find('`', pos + 1);
    REQUIRE(close != std::string::npos);
    out.push_back(text.substr(pos + 1, close - pos - 1));
    pos = close + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("README.md lists exactly the decompositions of the table, sorted") {
  std::ifstream in(std::string(PTEFORGE_SOURCE_DIR) + "/README.md", std::ios::binary);
  REQUIRE(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::vector<std::string> expected;
  for (const auto& d : pteforge::passes::decomp::decompositions()) expected.emplace_back(d.target);
  std::sort(expected.begin(), expected.end());
  std::string block;
  for (const std::string& t : expected) block += (block.empty() ? "`" : ", `") + t + "`";
  CHECK_MESSAGE(readme_targets(ss.str()) == expected, "paste between the markers:\n" << block);
}
