// Property sweep: 500 seeded random DAG-like problems. Every algorithm's plan
// passes the checker, respects the lower bound pool by pool, and the "best"
// suite never does worse than greedy.

#include <doctest/doctest.h>

#include <algorithm>

#include "generators.h"
#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/stats.h"
#include "test_util.h"

using namespace pteforge;
using namespace pteforge::memplan;
using memplan_test::total;

TEST_CASE("property: 500 random lifetime sets - all algorithms") {
  uint64_t best_fit_wins = 0;
  uint64_t greedy_at_bound = 0;
  uint64_t best_at_bound = 0;
  uint64_t with_aliases = 0;
  uint64_t tensors_seen = 0;
  double worst_greedy = 1.0;
  double worst_best = 1.0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    CAPTURE(seed);
    memplan_test::RandomCase c = memplan_test::random_case(seed);
    tensors_seen += c.tensors.size();
    for (const PlannedTensor& t : c.tensors) with_aliases += t.alias_of ? 1 : 0;
    Result<std::vector<uint64_t>> lb = live_bytes_lower_bound(c.tensors, c.options);
    REQUIRE_MESSAGE(lb.ok(), (lb.ok() ? "" : lb.error().to_string()));
    uint64_t lb_total = 0;
    for (uint64_t b : *lb) lb_total += b;
    uint64_t sizes[4] = {0, 0, 0, 0};
    const Algorithm algos[4] = {Algorithm::Greedy, Algorithm::Naive, Algorithm::BestFit, Algorithm::Best};
    for (int k = 0; k < 4; ++k) {
      CAPTURE(algorithm_name(algos[k]));
      PlanOptions o = c.options;
      o.algorithm = algos[k];
      Result<MemoryPlan> plan = plan_memory(c.tensors, o);
      REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().to_string()));
      Status st = check_plan(c.tensors, *plan, o);
      REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().to_string()));
      REQUIRE(plan->buffer_sizes.size() >= lb->size());
      for (size_t pool = 0; pool < lb->size(); ++pool) {
        CAPTURE(pool);
        CHECK((*lb)[pool] <= plan->buffer_sizes[pool]);
      }
      sizes[k] = total(*plan);
      // Deterministic: a second run gives the same plan.
      Result<MemoryPlan> again = plan_memory(c.tensors, o);
      REQUIRE(again.ok());
      CHECK(again->buffer_sizes == plan->buffer_sizes);
    }
    CHECK(sizes[3] <= sizes[0]);                // best <= greedy
    CHECK(sizes[3] == std::min(sizes[0], sizes[2]));
    if (c.options.reserved.empty() && c.options.extra_padding == 0) {
      CHECK(sizes[0] <= sizes[1]);  // greedy never worse than no reuse
      greedy_at_bound += sizes[0] == lb_total ? 1 : 0;
      best_at_bound += sizes[3] == lb_total ? 1 : 0;
      if (lb_total > 0) {
        worst_greedy = std::max(worst_greedy, static_cast<double>(sizes[0]) / static_cast<double>(lb_total));
        worst_best = std::max(worst_best, static_cast<double>(sizes[3]) / static_cast<double>(lb_total));
      }
    }
    best_fit_wins += sizes[2] < sizes[0] ? 1 : 0;
  }
  MESSAGE("random sweep: " << tensors_seen << " tensors (" << with_aliases << " aliases); best_fit beat greedy in "
                           << best_fit_wins << "/500; at the lower bound: greedy " << greedy_at_bound << ", best "
                           << best_at_bound << "; worst arena/bound: greedy " << worst_greedy << ", best "
                           << worst_best);
  CHECK(with_aliases > 0);
  CHECK(best_fit_wins > 0);
}
