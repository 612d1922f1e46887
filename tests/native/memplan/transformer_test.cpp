// Transformer-like lifetimes: arena ÷ live-bytes lower bound per algorithm.
// The "best" suite must stay within 5% of the bound.

#include <doctest/doctest.h>

#include <cstdio>

#include "generators.h"
#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/stats.h"

using namespace pteforge;
using namespace pteforge::memplan;

TEST_CASE("transformer: every plan is valid and best is within 1.05x of the lower bound") {
  for (const memplan_test::TransformerShape& shape : memplan_test::transformer_shapes()) {
    CAPTURE(shape.name);
    const std::vector<PlannedTensor> ts = memplan_test::transformer_case(shape);
    Result<std::vector<AlgorithmRatio>> r = compare_algorithms(ts, PlanOptions{});
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
    REQUIRE(r->size() == 4);
    char line[256];
    std::snprintf(line, sizeof line, "%-34s %5zu tensors  bound %11llu  greedy %.4f  naive %7.3f  best_fit %.4f  best %.4f",
                  shape.name.c_str(), ts.size(), static_cast<unsigned long long>((*r)[0].lower_bound_bytes),
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
