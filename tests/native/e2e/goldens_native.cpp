// Golden decodings: every fixture folder (tests/fixtures/programs/<name>/) and
// every corpus case with a golden converts to a .pte whose decoded JSON
// (`pteforge decode --json`) equals tests/fixtures/expected/<name>.json
// (corpus: expected/corpus/<case>.json) and whose methods pass the
// runtime's load checks (emit::check_method_load). Regenerate them with
// scripts/update-goldens.sh and review the diff: a golden change is a change
// of the output.
#include <doctest/doctest.h>

#include <filesystem>

#include "e2e_util.h"

using namespace pteforge;
using pteforge::testing::convert_path;
using pteforge::testing::read_bytes;
using pteforge::testing::test_path;

namespace fs = std::filesystem;

namespace {

/// First differing line of two texts ("" when equal).
std::string first_difference(const std::string& a, const std::string& b) {
  size_t line = 1, i = 0;
  for (; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] == '\n') ++line;
  }
  if (i == a.size() && i == b.size()) return "";
  auto around = [i](const std::string& s) {
    size_t start = s.rfind('\n', i == 0 ? 0 : i - 1);
    start = start == std::string::npos ? 0 : start + 1;
    size_t end = s.find('\n', i);
    return s.substr(start, (end == std::string::npos ? s.size() : end) - start);
  };
  return "line " + std::to_string(line) + ":\n  got:      " + around(a) + "\n  expected: " + around(b);
}

void check_golden(const std::string& input, const std::string& golden) {
  CAPTURE(input);
  std::string expected = read_bytes(golden);
  REQUIRE_MESSAGE(!expected.empty(), "no golden " << golden << ": run scripts/update-goldens.sh");
  auto c = convert_path(input);
  REQUIRE_MESSAGE(c.ok(), c.error().to_string());
  std::string got = emit::decoded_pte_to_json(c->decoded);
  CHECK_MESSAGE(got == expected, first_difference(got, expected));
  // Every method would load in ExecuTorch's runtime (emit::check_method_load).
  for (const emit::LoadProblem& p : c->decoded.load_check.problems)
    FAIL_CHECK(p.pointer << ": " << p.message);
}

}  // namespace

TEST_CASE("goldens: every fixture program converts to its golden decoding") {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(test_path("fixtures/programs"))) {
    if (e.is_directory()) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  REQUIRE(dirs.size() >= 15);
  for (const fs::path& d : dirs) {
    check_golden(d.string(), test_path("fixtures/expected/" + d.filename().string() + ".json"));
  }
}

TEST_CASE("goldens: every corpus case with a golden converts to it") {
  std::vector<fs::path> goldens;
  for (const auto& e : fs::directory_iterator(test_path("fixtures/expected/corpus"))) goldens.push_back(e.path());
  std::sort(goldens.begin(), goldens.end());
  REQUIRE(goldens.size() >= 9);
  for (const fs::path& g : goldens) {
    std::string name = g.stem().string();
    check_golden(test_path("fixtures/corpus/" + name + "/" + name + ".pt2"), g.string());
  }
}
