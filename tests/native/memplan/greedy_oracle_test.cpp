// The indexed greedy planner (plan_greedy) against the direct quadratic form
// of the same rule (greedy_oracle.h): identical placements, object ids and
// pool sizes, or the same error, on random problems (pools, aliases,
// reservations, padding), on problems with long-lived tensors and zero
// sizes, and on the transformer and Llama lifetime sets.

#include <doctest/doctest.h>

#include <string>

#include "generators.h"
#include "greedy_oracle.h"
#include "passes/memory_plan/memory_plan.h"

using namespace pteforge;
using namespace pteforge::memplan;

namespace {

/// Plans with both and requires the same plan (or the same error).
void require_same(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  Result<MemoryPlan> fast = plan_greedy(tensors, options);
  Result<MemoryPlan> slow = plan_greedy_oracle(tensors, options);
  REQUIRE(fast.ok() == slow.ok());
  if (!fast.ok()) {
    CHECK(fast.error().code == slow.error().code);
    CHECK(fast.error().message == slow.error().message);
    return;
  }
  CHECK(fast->buffer_sizes == slow->buffer_sizes);
  REQUIRE(fast->placements.size() == slow->placements.size());
  for (size_t i = 0; i < fast->placements.size(); ++i) {
    CAPTURE(i);
    CHECK(fast->placements[i].mem_id == slow->placements[i].mem_id);
    CHECK(fast->placements[i].offset == slow->placements[i].offset);
    CHECK(fast->placements[i].mem_obj_id == slow->placements[i].mem_obj_id);
  }
}

}  // namespace

TEST_CASE("greedy index: 500 random problems plan exactly as the direct scan") {
  for (uint64_t seed = 0; seed < 500; ++seed) {
    CAPTURE(seed);
    memplan_test::RandomCase c = memplan_test::random_case(seed);
    c.options.algorithm = Algorithm::Greedy;
    require_same(c.tensors, c.options);
  }
}

TEST_CASE("greedy index: long-lived, zero-size and repeated-lifetime tensors") {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    CAPTURE(seed);
    memplan_test::Rng rng(seed * 7919 + 1);
    std::vector<PlannedTensor> tensors;
    const uint64_t n = rng.range(1, 120);
    const int64_t span = static_cast<int64_t>(rng.range(1, 60));
    for (uint64_t i = 0; i < n; ++i) {
      PlannedTensor t;
      t.id = i;
      // A few sizes, some zero; lifetimes from points to the whole span.
      const uint64_t pick = rng.below(6);
      t.nbytes = pick == 0 ? 0 : 16 * rng.range(1, 4) * (pick == 5 ? 64 : 1);
      t.first_use = static_cast<int64_t>(rng.below(static_cast<uint64_t>(span)));
      const uint64_t len = rng.chance(1, 8) ? static_cast<uint64_t>(span) : rng.below(4);
      t.last_use = std::min<int64_t>(span, t.first_use + static_cast<int64_t>(len));
      tensors.push_back(t);
    }
    PlanOptions o;
    o.algorithm = Algorithm::Greedy;
    require_same(tensors, o);
  }
}

TEST_CASE("greedy index: transformer and Llama lifetime sets") {
  for (const memplan_test::TransformerShape& s : memplan_test::transformer_shapes()) {
    PlanOptions o;
    o.algorithm = Algorithm::Greedy;
    require_same(memplan_test::transformer_case(s), o);
  }
  for (const memplan_test::LlamaShape& s : memplan_test::llama_shapes()) {
    PlanOptions o;
    o.algorithm = Algorithm::Greedy;
    require_same(memplan_test::llama_case(s), o);
  }
}
