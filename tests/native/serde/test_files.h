// Helpers for serde tests: reading fixture files and listing the corpus.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pteforge::test {

inline std::string data_path(const std::string& rel) { return std::string(PTEFORGE_TEST_DATA_DIR) + "/" + rel; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Every corpus program JSON (tests/fixtures/corpus/*/json/models/*.json), sorted.
inline std::vector<std::string> corpus_programs() {
  std::vector<std::string> out;
  namespace fs = std::filesystem;
  for (const auto& c : fs::directory_iterator(data_path("fixtures/corpus"))) {
    fs::path models = c.path() / "json" / "models";
    if (!fs::is_directory(models)) continue;
    for (const auto& m : fs::directory_iterator(models)) {
      if (m.path().extension() == ".json") out.push_back(m.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pteforge::test
