// bench_memory_plan: arena size ÷ lower bound ("peak of simultaneously live
// tensor bytes") for each memory-planning algorithm, on
//   1. transformer-like lifetime sets (GPT-2 and Llama-style generators shared
//      with tests/native/memplan), and
//   2. real programs (program JSON paths given on the command line), lowered
//      through the default pipeline once per algorithm.
// Prints a Markdown table. Target (issue 3): `best` <= 1.05x the lower bound
// on transformer-like programs. Usage: bench_memory_plan [PROGRAM.json ...]
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "generators.h"
#include "passes/memory_plan/stats.h"
#include "passes/pass_manager.h"
#include "serde/import_exported_program.h"

using namespace pteforge;

namespace {

void print_row(const std::string& name, const std::vector<double>& ratios) {
  std::printf("| %s |", name.c_str());
  for (double r : ratios) std::printf(" %.4f |", r);
  std::printf("\n");
}

std::vector<double> synthetic_ratios(const std::vector<memplan::PlannedTensor>& tensors) {
  memplan::PlanOptions options;
  auto cmp = memplan::compare_algorithms(
      tensors, options, {memplan::Algorithm::Greedy, memplan::Algorithm::Naive, memplan::Algorithm::Best});
  std::vector<double> out;
  if (!cmp.ok()) {
    std::fprintf(stderr, "%s\n", cmp.error().to_string().c_str());
    return out;
  }
  for (const auto& r : *cmp) out.push_back(r.ratio);
  return out;
}

/// Lowers `json` with `algorithm`; returns arena ÷ lower bound (summed over mem ids), or -1.
double program_ratio(const std::string& json, const std::string& algorithm) {
  auto imported = serde::import_exported_program(json);
  if (!imported.ok()) return -1;
  ir::ExportedProgram ep = std::move(imported).value().program;
  passes::PipelineOptions options;
  options.memory_planning = algorithm;
  options.verify_each = false;
  auto pm = passes::PassManager::create(options);
  if (!pm.ok()) return -1;
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport report;
  if (!pm->run(ep, state, report).ok()) return -1;
  uint64_t arena = 0, bound = 0;
  for (uint64_t b : state.non_const_buffer_sizes) arena += b;
  for (uint64_t b : state.live_bytes_lower_bound) bound += b;
  if (bound == 0) return arena == 0 ? 1.0 : -1;
  return static_cast<double>(arena) / static_cast<double>(bound);
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("| program | greedy | naive | best |\n|---|---|---|---|\n");
  for (const auto& shape : memplan_test::transformer_shapes()) {
    print_row(shape.name, synthetic_ratios(memplan_test::transformer_case(shape)));
  }
  for (const auto& shape : memplan_test::llama_shapes()) {
    print_row(shape.name, synthetic_ratios(memplan_test::llama_case(shape)));
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::vector<double> ratios;
    for (const char* algo : {"greedy", "naive", "best"}) ratios.push_back(program_ratio(ss.str(), algo));
    print_row(argv[i], ratios);
  }
  return 0;
}
