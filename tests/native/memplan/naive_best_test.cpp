// Naive (§6.3), our best_fit planner and the "best" suite.

#include <doctest/doctest.h>

#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/stats.h"
#include "test_util.h"

using namespace pteforge;
using namespace pteforge::memplan;
using memplan_test::offsets;
using memplan_test::T;
using memplan_test::total;

namespace {

MemoryPlan run_ok(const std::vector<PlannedTensor>& ts, PlanOptions o) {
  Result<MemoryPlan> r = plan_memory(ts, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  Status st = check_plan(ts, *r, o);
  CHECK_MESSAGE(st.ok(), (st.ok() ? "" : st.error().to_string()));
  return std::move(r).value();
}

PlanOptions with(Algorithm a) {
  PlanOptions o;
  o.algorithm = a;
  return o;
}

// Greedy's weak spot: B, C, D (32 bytes) in a chain after a 64-byte A.
std::vector<PlannedTensor> chain_case() {
  return {T(0, 64, 0, 0), T(1, 32, 1, 2), T(2, 32, 2, 3), T(3, 32, 3, 4)};
}

}  // namespace

TEST_CASE("naive: bump allocation in input order - no reuse - no padding") {
  PlanOptions o = with(Algorithm::Naive);
  o.extra_padding = 64;
  MemoryPlan p = run_ok({T(0, 12, 0, 1), T(1, 0, 2, 3, 2), T(2, 17, 4, 5), T(3, 1, 6, 7, 2)}, o);
  CHECK(offsets(p) == std::vector<uint64_t>{0, 0, 16, 0});
  CHECK(p.placements[1].mem_id == 2);
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 48, 16});
  CHECK_FALSE(p.placements[0].mem_obj_id.has_value());
}

TEST_CASE("naive: starts from reserved - empty input keeps [0 0] or reserved") {
  PlanOptions o = with(Algorithm::Naive);
  CHECK(run_ok({}, o).buffer_sizes == std::vector<uint64_t>{0, 0});
  o.reserved = {0, 32};
  MemoryPlan p = run_ok({T(0, 16, 0, 1)}, o);
  CHECK(offsets(p) == std::vector<uint64_t>{32});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 48});
}

TEST_CASE("naive: an alias shares its root's storage") {
  std::vector<PlannedTensor> ts = {T(0, 16, 0, 3), T(1, 16, 1, 2), T(2, 16, 3, 5)};
  ts[1].alias_of = 2;
  MemoryPlan p = run_ok(ts, with(Algorithm::Naive));
  CHECK(offsets(p) == std::vector<uint64_t>{0, 16, 16});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 32});
}

TEST_CASE("best_fit: reaches the lower bound where greedy cannot") {
  const auto ts = chain_case();
  CHECK(total(run_ok(ts, with(Algorithm::Greedy))) == 96);
  MemoryPlan b = run_ok(ts, with(Algorithm::BestFit));
  CHECK(b.buffer_sizes == std::vector<uint64_t>{0, 64});
  CHECK(b.algorithm == Algorithm::BestFit);
  CHECK_FALSE(b.placements[0].mem_obj_id.has_value());
  Result<std::vector<uint64_t>> lb = live_bytes_lower_bound(ts, PlanOptions{});
  REQUIRE(lb.ok());
  CHECK(*lb == std::vector<uint64_t>{0, 64});
}

TEST_CASE("best suite: keeps the smaller plan - greedy on a tie") {
  MemoryPlan better = run_ok(chain_case(), with(Algorithm::Best));
  CHECK(better.algorithm == Algorithm::BestFit);
  CHECK(better.buffer_sizes == std::vector<uint64_t>{0, 64});
  // A tie: greedy's plan (object ids and all) is kept.
  const std::vector<PlannedTensor> tie = {T(0, 16, 0, 3), T(1, 16, 2, 4)};
  MemoryPlan kept = run_ok(tie, with(Algorithm::Best));
  CHECK(kept.algorithm == Algorithm::Greedy);
  CHECK(offsets(kept) == std::vector<uint64_t>{16, 0});
  CHECK(kept.placements[0].mem_obj_id == 1u);
  // run_suite in another order prefers the first on a tie.
  Result<MemoryPlan> r = run_suite(tie, PlanOptions{}, {Algorithm::BestFit, Algorithm::Greedy});
  REQUIRE(r.ok());
  CHECK(r->algorithm == Algorithm::BestFit);
}

TEST_CASE("best_fit: pools - reservation - padding - zero sizes") {
  PlanOptions o = with(Algorithm::BestFit);
  o.reserved = {0, 40};  // rounded up to 48 for best_fit
  o.extra_padding = 64;
  MemoryPlan p = run_ok({T(0, 16, 0, 3), T(1, 0, 1, 2), T(2, 32, 1, 2, 2), T(3, 16, 4, 5)}, o);
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 48 + 16 + 64, 32 + 64});
  CHECK(p.placements[0].offset == 48);
  CHECK(p.placements[2].offset == 0);
  CHECK(p.placements[3].offset == 48);
  CHECK(run_ok({}, o).buffer_sizes == std::vector<uint64_t>{0, 0});
}

TEST_CASE("best_fit: an alias group is placed as one hull") {
  // Root [0,2] 16 bytes; alias [2,6] 48 bytes: the group needs 48 bytes over [0,6].
  std::vector<PlannedTensor> ts = {T(0, 16, 0, 2), T(1, 48, 2, 6), T(2, 32, 3, 4)};
  ts[1].alias_of = 0;
  MemoryPlan p = run_ok(ts, with(Algorithm::BestFit));
  CHECK(p.placements[1].offset == p.placements[0].offset);
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 80});
  // The bound counts the group with its largest live member per node: 48 + 32.
  Result<std::vector<uint64_t>> lb = live_bytes_lower_bound(ts, PlanOptions{});
  REQUIRE(lb.ok());
  CHECK(*lb == std::vector<uint64_t>{0, 80});
}

TEST_CASE("algorithm names round-trip - unknown names are OPTION_INVALID") {
  for (Algorithm a : {Algorithm::Greedy, Algorithm::Naive, Algorithm::BestFit, Algorithm::Best}) {
    Result<Algorithm> r = parse_algorithm(algorithm_name(a));
    REQUIRE(r.ok());
    CHECK(*r == a);
  }
  Result<Algorithm> bad = parse_algorithm("fast");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::OPTION_INVALID);
  CHECK(bad.error().message == "unknown memory planning algorithm \"fast\" (expected greedy, naive, best_fit or best)");
  Result<MemoryPlan> nested = run_suite({}, PlanOptions{}, {Algorithm::Best});
  REQUIRE_FALSE(nested.ok());
  CHECK(nested.error().code == ErrorCode::OPTION_INVALID);
  Result<MemoryPlan> none = run_suite({}, PlanOptions{}, {});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::OPTION_INVALID);
}

TEST_CASE("lower bound and ratios: each tensor counted at its aligned size - per pool") {
  // At node 2: 17→32 and 1→16 bytes live in pool 1; pool 2 peaks at 48.
  const std::vector<PlannedTensor> ts = {T(0, 17, 0, 2), T(1, 1, 2, 3), T(2, 48, 0, 9, 2), T(3, 16, 4, 4)};
  Result<std::vector<uint64_t>> lb = live_bytes_lower_bound(ts, PlanOptions{});
  REQUIRE(lb.ok());
  CHECK(*lb == std::vector<uint64_t>{0, 48, 48});
  Result<std::vector<AlgorithmRatio>> r = compare_algorithms(ts, PlanOptions{});
  REQUIRE(r.ok());
  REQUIRE(r->size() == 4);
  CHECK((*r)[0].algorithm == Algorithm::Greedy);
  CHECK((*r)[0].lower_bound_bytes == 96);
  CHECK((*r)[0].arena_bytes == 96);
  CHECK((*r)[0].ratio == 1.0);
  CHECK((*r)[1].algorithm == Algorithm::Naive);
  CHECK((*r)[1].arena_bytes == 32 + 16 + 16 + 48);
  CHECK((*r)[1].ratio == doctest::Approx(112.0 / 96.0));
  Result<std::vector<AlgorithmRatio>> empty = compare_algorithms({}, PlanOptions{});
  REQUIRE(empty.ok());
  CHECK((*empty)[0].ratio == 1.0);
}
