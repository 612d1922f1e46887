// Transformer-like lifetimes: arena ÷ live-bytes lower bound per algorithm.
// The "best" suite must stay within 5% of the bound.

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "generators.h"
#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/stats.h"

using namespace pteforge;
using namespace pteforge::memplan;

namespace {

void report_and_check(const std::string& name, const std::vector<PlannedTensor>& ts) {
  CAPTURE(name);
  {
    Result<std::vector<AlgorithmRatio>> r = compare_algorithms(ts, PlanOptions{});
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
    REQUIRE(r->size() == 4);
    char line[256];
    std::snprintf(line, sizeof line, "%-38s %5zu tensors  bound %11llu  greedy %.5f  naive %7.3f  best_fit %.5f  best %.5f",
                  name.c_str(), ts.size(), static_cast<unsigned long long>((*r)[0].lower_bound_bytes),
                  (*r)[0].ratio, (*r)[1].ratio, (*r)[2].ratio, (*r)[3].ratio);
    MESSAGE(line);
    for (const AlgorithmRatio& a : *r) {
      CHECK(a.ratio >= 1.0);
      PlanOptions o;
      o.algorithm = a.algorithm;
      Result<MemoryPlan> plan = plan_memory(ts, o);
      REQUIRE(plan.ok());
      Status st = check_plan(ts, *plan, o);
      CHECK_MESSAGE(st.ok(), (st.ok() ? "" : st.error().to_string()));
    }
    CHECK((*r)[3].ratio <= 1.05);
    CHECK((*r)[3].arena_bytes <= (*r)[0].arena_bytes);
  }
}

}  // namespace

TEST_CASE("transformer: GPT-style blocks - every plan valid - best within 1.05x of the lower bound") {
  for (const memplan_test::TransformerShape& shape : memplan_test::transformer_shapes()) {
    report_and_check(shape.name, memplan_test::transformer_case(shape));
  }
}

TEST_CASE("transformer: Llama-style blocks with KV cache - every plan valid - best within 1.05x") {
  for (const memplan_test::LlamaShape& shape : memplan_test::llama_shapes()) {
    report_and_check(shape.name, memplan_test::llama_case(shape));
  }
}
