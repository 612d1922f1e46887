// ExecuTorch greedy (executorch-pipeline.md §6.2) on hand-made cases.

#include <doctest/doctest.h>

#include "passes/memory_plan/check.h"
#include "test_util.h"
#include "passes/memory_plan/memory_plan.h"

using namespace pteforge;
using namespace pteforge::memplan;
using memplan_test::offsets;
using memplan_test::T;

namespace {

std::vector<uint32_t> objects(const MemoryPlan& p) {
  std::vector<uint32_t> v;
  for (const Placement& x : p.placements) v.push_back(x.mem_obj_id.value_or(999));
  return v;
}

MemoryPlan greedy_ok(const std::vector<PlannedTensor>& ts, const PlanOptions& o = {}) {
  Result<MemoryPlan> r = plan_greedy(ts, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  Status st = check_plan(ts, *r, o);
  CHECK_MESSAGE(st.ok(), (st.ok() ? "" : st.error().to_string()));
  return std::move(r).value();
}

}  // namespace

TEST_CASE("greedy: nothing to plan gives [0 0]") {
  MemoryPlan p = greedy_ok({});
  CHECK(p.placements.empty());
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 0});
}

TEST_CASE("greedy: one tensor is rounded up to 16 bytes at offset 0 of pool 1") {
  MemoryPlan p = greedy_ok({T(7, 1, 3, 3)});
  CHECK(p.placements[0].mem_id == 1);
  CHECK(p.placements[0].offset == 0);
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 16});
}

TEST_CASE("greedy: all overlapping tensors each open an object - laid out by size") {
  // Collected 16, 48, 32 → processed 48, 32, 16.
  MemoryPlan p = greedy_ok({T(0, 16, 0, 9), T(1, 40, 1, 8), T(2, 32, 2, 7)});
  CHECK(offsets(p) == std::vector<uint64_t>{80, 0, 48});
  CHECK(objects(p) == std::vector<uint32_t>{2, 0, 1});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 96});
}

TEST_CASE("greedy: time-disjoint tensors all share object 0 - sized by the largest") {
  MemoryPlan p = greedy_ok({T(0, 16, 0, 1), T(1, 100, 2, 3), T(2, 32, 4, 5)});
  CHECK(offsets(p) == std::vector<uint64_t>{0, 0, 0});
  CHECK(objects(p) == std::vector<uint32_t>{0, 0, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 112});
}

TEST_CASE("greedy: stacking inside an object above the overlapping placements") {
  // X 64 [0,5]; Y 16 [6,9]; Z 16 [7,8]. Equal sizes in reverse order: X, Z, Y.
  // Z goes to object 0 at 0 (disjoint from X); Y overlaps Z, stacks at 16.
  MemoryPlan p = greedy_ok({T(0, 64, 0, 5), T(1, 16, 6, 9), T(2, 16, 7, 8)});
  CHECK(offsets(p) == std::vector<uint64_t>{0, 16, 0});
  CHECK(objects(p) == std::vector<uint32_t>{0, 0, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 64});
}

TEST_CASE("greedy: stacking fails when the object is full - even if another order would fit") {
  // A 64 [0,0]; B, C, D 32 at [1,2], [2,3], [3,4]. Order A, D, C, B:
  // D → obj0 @0; C overlaps D → stacks @32; B overlaps C (top 64) → new object.
  MemoryPlan p = greedy_ok({T(0, 64, 0, 0), T(1, 32, 1, 2), T(2, 32, 2, 3), T(3, 32, 3, 4)});
  CHECK(offsets(p) == std::vector<uint64_t>{0, 64, 32, 0});
  CHECK(objects(p) == std::vector<uint32_t>{0, 1, 0, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 96});
}

TEST_CASE("greedy: overlap is inclusive at both ends") {
  // [0,2] and [2,4] share node 2: two objects. [0,2] and [3,4] do not: one.
  CHECK(greedy_ok({T(0, 16, 0, 2), T(1, 16, 2, 4)}).buffer_sizes == std::vector<uint64_t>{0, 32});
  CHECK(greedy_ok({T(0, 16, 0, 2), T(1, 16, 3, 4)}).buffer_sizes == std::vector<uint64_t>{0, 16});
}

TEST_CASE("greedy: zero-size tensors never stack on zero (m must be > 0)") {
  MemoryPlan p = greedy_ok({T(0, 0, 0, 5), T(1, 0, 1, 4), T(2, 0, 2, 3)});
  CHECK(offsets(p) == std::vector<uint64_t>{0, 0, 0});
  CHECK(objects(p) == std::vector<uint32_t>{2, 1, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 0});
  // ...but stack on a non-empty overlapping tensor, even at its very top.
  MemoryPlan q = greedy_ok({T(0, 32, 0, 5), T(1, 0, 1, 4)});
  CHECK(offsets(q) == std::vector<uint64_t>{0, 32});
  CHECK(objects(q) == std::vector<uint32_t>{0, 0});
  CHECK(q.buffer_sizes == std::vector<uint64_t>{0, 32});
}

TEST_CASE("greedy: preset mem_ids are independent pools - missing pools are 0") {
  MemoryPlan p = greedy_ok({T(0, 16, 0, 3, 3), T(1, 32, 0, 3), T(2, 16, 1, 2, 3), T(3, 16, 5, 6, 3)});
  CHECK(p.placements[0].mem_id == 3);
  CHECK(p.placements[1].mem_id == 1);
  CHECK(offsets(p) == std::vector<uint64_t>{16, 0, 0, 0});  // pool 3: T3, T2 share object 0; T0 opens object 1
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 32, 0, 32});
  MemoryPlan only2 = greedy_ok({T(0, 16, 0, 3, 2)});
  CHECK(only2.buffer_sizes == std::vector<uint64_t>{0, 0, 16});
}

TEST_CASE("greedy: reserved submodule space and XNNPACK padding") {
  PlanOptions o;
  o.reserved = {0, 48};
  o.extra_padding = 64;
  MemoryPlan p = greedy_ok({T(0, 16, 0, 3), T(1, 16, 1, 2)}, o);
  CHECK(offsets(p) == std::vector<uint64_t>{64, 48});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 48 + 32 + 64});
  // Reserved entries only count for pools that receive tensors (ExecuTorch).
  PlanOptions o2;
  o2.reserved = {0, 48, 96};
  CHECK(greedy_ok({T(0, 16, 0, 3)}, o2).buffer_sizes == std::vector<uint64_t>{0, 64});
}

TEST_CASE("greedy: alignment other than 16") {
  PlanOptions o;
  o.alignment = 64;
  o.sort_alignment = 64;
  MemoryPlan p = greedy_ok({T(0, 10, 0, 3), T(1, 70, 1, 2)}, o);
  CHECK(offsets(p) == std::vector<uint64_t>{128, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 192});
}

TEST_CASE("greedy: the sort uses 16-byte sizes (TensorSpec's alignment) - ExecuTorch asserts on a misfit") {
  // With alignment 4, nbytes 40 (collected first) and 36 both sort as 48 bytes;
  // reversed, 36 is processed first, opens a 36-byte object, and 40 then matches
  // it by time: ExecuTorch's "Allocation specs are not sorted" assertion.
  PlanOptions o;
  o.alignment = 4;
  Result<MemoryPlan> bad = plan_greedy({T(0, 40, 2, 3), T(1, 36, 0, 1)}, o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::PASS_FAILED);
  CHECK(bad.error().where.pass == std::string("memory_planning"));
  o.sort_alignment = 4;
  MemoryPlan p = greedy_ok({T(0, 40, 2, 3), T(1, 36, 0, 1)}, o);
  CHECK(offsets(p) == std::vector<uint64_t>{0, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 40});
}

TEST_CASE("greedy: aliases (inplace_base) take their root's object and do not affect the order") {
  std::vector<PlannedTensor> ts = {T(0, 32, 0, 4), T(1, 16, 2, 6), T(2, 32, 3, 4), T(3, 32, 4, 4)};
  ts[2].alias_of = 0;
  ts[3].alias_of = 2;  // chain 3 → 2 → 0
  MemoryPlan p = greedy_ok(ts);
  CHECK(offsets(p) == std::vector<uint64_t>{0, 32, 0, 0});
  CHECK(objects(p) == std::vector<uint32_t>{0, 1, 0, 0});
  CHECK(p.buffer_sizes == std::vector<uint64_t>{0, 48});
}
