// Helpers of the end-to-end tests: convert a fixture folder (or corpus case)
// with the façade and get the .pte bytes and the decoded program.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "emit/pte_decode.h"
#include "pteforge/pteforge.h"
#include "serde/archive_native.h"

namespace pteforge::testing {

inline std::string test_path(const std::string& rel) { return std::string(PTEFORGE_TEST_DATA_DIR) + "/" + rel; }

inline std::string read_bytes(const std::string& path) {
  std::string out;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

/// A converted input: the .pte bytes, the façade's result, the decoded program (load-checked).
struct Converted {
  std::string pte;
  ConvertResult result;
  emit::DecodedPte decoded;
};

/// Converts `path` (a fixture folder, .pt2 or program JSON); nullopt-like
/// failure is reported through `error`.
inline Result<Converted> convert_path(const std::string& path, ConvertOptions options = {}) {
  options.report_times = false;
  PTEFORGE_ASSIGN_OR_RETURN(serde::OpenedInput in, serde::open_input(path));
  Converted c;
  PTEFORGE_ASSIGN_OR_RETURN(c.result, convert(*in.archive, in.layout, options));
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                            emit::flatten_chunks(c.result.pte.chunks, archive_range_reader(*in.archive)));
  c.pte.assign(bytes.begin(), bytes.end());
  emit::DecodeOptions decode_options;
  decode_options.check_load = true;
  PTEFORGE_ASSIGN_OR_RETURN(c.decoded, emit::decode_pte(c.pte, decode_options));
  return c;
}

/// convert_path that fails the test on error, or when ExecuTorch's runtime
/// would refuse to load a method of the result (emit::check_method_load).
inline Converted convert_ok(const std::string& path, ConvertOptions options = {}) {
  auto r = convert_path(path, std::move(options));
  if (!r.ok()) FAIL(path << ": " << r.error().to_string());
  for (const emit::LoadProblem& p : r->decoded.load_check.problems) {
    FAIL(path << ": the runtime would not load it: " << p.pointer << ": " << p.message);
  }
  return std::move(r).value();
}

/// The decoded reference file tests/data/reference/pte/<name>.
inline emit::DecodedPte reference(const std::string& name) {
  std::string bytes = read_bytes(test_path("data/reference/pte/" + name));
  REQUIRE_MESSAGE(!bytes.empty(), name);
  auto d = emit::decode_pte(bytes);
  REQUIRE(d.ok());
  return std::move(d).value();
}

}  // namespace pteforge::testing
