// Test helper: corpus paths, whole-file reads and a per-test scratch folder.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

namespace pteforge::test {

inline std::string corpus_dir() { return std::string(PTEFORGE_TEST_DATA_DIR) + "/fixtures/corpus"; }

inline std::string slurp(const std::string& path) {
  std::string out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

inline void spit(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

/// A fresh, empty folder under the build tree, unique per `name`.
inline std::string scratch_dir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(PTEFORGE_BINARY_DIR) / "test_scratch" / "archive" / name;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  return dir.string();
}

}  // namespace pteforge::test
