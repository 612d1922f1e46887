// bench_import: import speed against the baseline of a plain RapidJSON DOM
// Parse of the same bytes (issue 2: import <= 1.5x the baseline).
// For each program JSON given: the best of N runs of (a) rapidjson::Document
// Parse, (b) serde::import_exported_program (parse + IR + verify; the
// streaming fast path, on two threads for texts of 1 MiB and more), (c) the
// fast path on one thread (ImportOptions::two_threads_min_bytes = SIZE_MAX),
// (d) the DOM reader only (ImportOptions::streaming = false), and their
// ratios to (a), as a Markdown table. Usage: bench_import [-n RUNS] [--only-streaming] PROGRAM.json...
// --only-streaming runs (b) alone, for profilers (perf record).
#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "serde/import_exported_program.h"

using namespace pteforge;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  int first = 1;
  if (argc > 2 && std::strcmp(argv[1], "-n") == 0) {
    runs = std::atoi(argv[2]);
    first = 3;
  }
  bool only_streaming = false;
  if (first < argc && std::strcmp(argv[first], "--only-streaming") == 0) {
    only_streaming = true;
    ++first;
  }
  std::printf(
      "| program | bytes | nodes | RapidJSON parse (ms) | import (ms) | ratio | one-thread import (ms) | "
      "ratio | "
      "DOM-only import (ms) | ratio |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = first; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    double parse_best = 1e300, import_best = 1e300, one_thread_best = 1e300, dom_best = 1e300;
    size_t nodes = 0;
    for (int r = 0; r < runs; ++r) {
      if (only_streaming) {
        std::string text = bytes;
        auto imported = serde::import_exported_program(std::move(text));
        if (!imported.ok() || !imported->streamed) return 1;
        continue;
      }
      std::string copy = bytes;
      double t0 = now_ms();
      rapidjson::Document doc;
      doc.Parse<rapidjson::kParseNanAndInfFlag>(copy.data(), copy.size());
      double t1 = now_ms();
      if (doc.HasParseError()) {
        std::fprintf(stderr, "%s: not JSON\n", argv[i]);
        return 1;
      }
      parse_best = std::min(parse_best, t1 - t0);
      enum Mode { kStreaming, kOneThread, kDom };
      for (Mode mode : {kStreaming, kOneThread, kDom}) {
        serde::ImportOptions options;
        options.streaming = mode != kDom;
        if (mode == kOneThread) options.two_threads_min_bytes = SIZE_MAX;
        std::string text = bytes;
        double t2 = now_ms();
        auto imported = serde::import_exported_program(std::move(text), options);
        double t3 = now_ms();
        if (!imported.ok()) {
          std::fprintf(stderr, "%s: %s\n", argv[i], imported.error().to_string().c_str());
          return 1;
        }
        if (options.streaming && !imported->streamed)
          std::fprintf(stderr, "%s: the fast path gave up\n", argv[i]);
        nodes = imported->program.graph().num_nodes();
        double& best = mode == kStreaming ? import_best : mode == kOneThread ? one_thread_best : dom_best;
        best = std::min(best, t3 - t2);
      }
    }
    if (only_streaming) continue;
    std::printf("| %s | %zu | %zu | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", argv[i],
                bytes.size(), nodes, parse_best, import_best, import_best / parse_best, one_thread_best,
                one_thread_best / parse_best, dom_best, dom_best / parse_best);
  }
  return 0;
}
