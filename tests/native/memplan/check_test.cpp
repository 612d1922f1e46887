// The checker finds every kind of broken plan; bad input gives clear errors.

#include <doctest/doctest.h>

#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/stats.h"
#include "test_util.h"

using namespace pteforge;
using namespace pteforge::memplan;
using memplan_test::T;

namespace {

const std::vector<PlannedTensor> kTensors = {T(0, 16, 0, 3), T(1, 20, 2, 5), T(2, 16, 4, 6)};

MemoryPlan good_plan() {
  Result<MemoryPlan> r = plan_greedy(kTensors, PlanOptions{});
  REQUIRE(r.ok());
  return *r;
}

std::string check_message(const std::vector<PlannedTensor>& ts, const MemoryPlan& p, const PlanOptions& o = {}) {
  Status st = check_plan(ts, p, o);
  if (st.ok()) return "ok";
  CHECK(st.error().code == ErrorCode::INTERNAL);
  CHECK(st.error().where.pass == std::string("memory_planning"));
  return st.error().message;
}

}  // namespace

TEST_CASE("check: a greedy plan passes - each broken variant is named") {
  const MemoryPlan good = good_plan();
  // Greedy: T1 (32 bytes) opens object 0; T2 overlaps it and opens object 1;
  // T0 is time-disjoint from T2 and joins object 1.
  REQUIRE(check_message(kTensors, good) == "ok");
  REQUIRE(memplan_test::offsets(good) == std::vector<uint64_t>{32, 0, 32});

  MemoryPlan p = good;
  p.placements[0].offset = p.placements[1].offset;  // T0 [0,3] onto T1 [2,5]
  CHECK(check_message(kTensors, p) ==
        "memory plan check failed: tensor #1 (id 1) lifetime [2, 5] bytes [0, 32) overlaps tensor #0 (id 0) "
        "lifetime [0, 3] bytes [0, 16) in pool 1");

  p = good;
  p.placements[2].offset = 8;
  CHECK(check_message(kTensors, p) == "memory plan check failed: tensor #2 (id 2) offset 8 is not a multiple of 16");

  p = good;
  p.buffer_sizes[1] -= 16;
  CHECK(check_message(kTensors, p).find("exceed pool 1 of") != std::string::npos);

  p = good;
  p.placements[0].mem_id = 2;
  CHECK(check_message(kTensors, p) == "memory plan check failed: tensor #0 (id 0) is in pool 2, expected pool 1");

  p = good;
  p.buffer_sizes[0] = 16;
  CHECK(check_message(kTensors, p) == "memory plan check failed: buffer_sizes[0] must exist and be 0 (reserved)");

  p = good;
  p.placements.pop_back();
  CHECK(check_message(kTensors, p) == "memory plan check failed: 2 placements for 3 tensors");
}

TEST_CASE("check: time-disjoint tensors may share bytes - zero-size tensors never conflict") {
  const std::vector<PlannedTensor> ts = {T(0, 16, 0, 1), T(1, 16, 2, 3), T(2, 0, 0, 3)};
  MemoryPlan p;
  p.placements = {{1, 0, std::nullopt}, {1, 0, std::nullopt}, {1, 0, std::nullopt}};
  p.buffer_sizes = {0, 16};
  CHECK(check_message(ts, p) == "ok");
  p.placements[1].offset = 0;
  std::vector<PlannedTensor> overlapping = ts;
  overlapping[1].first_use = 1;
  CHECK(check_message(overlapping, p).find("overlaps tensor #0") != std::string::npos);
}

TEST_CASE("check: an alias must sit exactly on its root - alias and root may overlap in time") {
  std::vector<PlannedTensor> ts = {T(0, 32, 0, 4), T(1, 32, 2, 6)};
  ts[1].alias_of = 0;
  MemoryPlan p;
  p.placements = {{1, 0, 0u}, {1, 0, 0u}};
  p.buffer_sizes = {0, 32};
  CHECK(check_message(ts, p) == "ok");
  p.placements[1].offset = 32;
  p.buffer_sizes = {0, 64};
  CHECK(check_message(ts, p) ==
        "memory plan check failed: tensor #1 (id 1) aliases tensor #0 (id 0) but is placed at 1:32 instead of 1:0");
}

TEST_CASE("input errors: codes - messages and the pass location") {
  auto err = [](const std::vector<PlannedTensor>& ts, const PlanOptions& o) {
    Result<MemoryPlan> r = plan_memory(ts, o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().where.pass == std::string("memory_planning"));
    // Every algorithm rejects the same input the same way.
    for (Algorithm a : {Algorithm::Naive, Algorithm::BestFit, Algorithm::Best}) {
      PlanOptions o2 = o;
      o2.algorithm = a;
      Result<MemoryPlan> r2 = plan_memory(ts, o2);
      REQUIRE_FALSE(r2.ok());
      CHECK(r2.error().message == r.error().message);
    }
    return r.error();
  };
  Error e = err({T(4, 16, 5, 2)}, PlanOptions{});
  CHECK(e.code == ErrorCode::PASS_FAILED);
  CHECK(e.message ==
        "tensor #0 (id 4): lifetime [5, 2] is not a valid node range (expected 0 <= first_use <= last_use)");
  CHECK(err({T(4, 16, -1, 2)}, PlanOptions{}).code == ErrorCode::PASS_FAILED);

  PlanOptions zero;
  zero.alignment = 0;
  e = err({T(0, 16, 0, 1)}, zero);
  CHECK(e.code == ErrorCode::OPTION_INVALID);
  CHECK(e.message == "memory planning alignment must be > 0, got 0");

  std::vector<PlannedTensor> cyc = {T(0, 16, 0, 1), T(1, 16, 0, 1), T(2, 16, 0, 1)};
  cyc[0].alias_of = 1;
  cyc[1].alias_of = 2;
  cyc[2].alias_of = 0;
  e = err(cyc, PlanOptions{});
  CHECK(e.code == ErrorCode::PASS_FAILED);
  CHECK(e.message == "tensor #0 (id 0): circular alias chain (inplace_base) through tensor #0 (id 0)");
  std::vector<PlannedTensor> self = {T(0, 16, 0, 1)};
  self[0].alias_of = 0;
  CHECK(err(self, PlanOptions{}).code == ErrorCode::PASS_FAILED);

  std::vector<PlannedTensor> far = {T(0, 16, 0, 1)};
  far[0].alias_of = 5;
  CHECK(err(far, PlanOptions{}).message == "tensor #0 (id 0): alias_of 5 is out of range (there are 1 tensors)");

  std::vector<PlannedTensor> pools = {T(0, 16, 0, 1, 2), T(1, 16, 0, 1, 3)};
  pools[1].alias_of = 0;
  CHECK(err(pools, PlanOptions{}).message ==
        "tensor #1 (id 1): preset mem_id 3 differs from mem_id 2 of the tensor it aliases, tensor #0 (id 0)");

  CHECK(err({T(0, 16, 0, 1, kMaxMemId + 1)}, PlanOptions{}).code == ErrorCode::PASS_FAILED);
  PlanOptions big;
  big.reserved.assign(kMaxMemId + 2, 0);
  CHECK(err({T(0, 16, 0, 1)}, big).code == ErrorCode::OPTION_INVALID);

  e = err({T(0, UINT64_MAX - 3, 0, 1)}, PlanOptions{});
  CHECK(e.code == ErrorCode::PASS_FAILED);
  CHECK(e.message == "size 18446744073709551612 rounded up to alignment 16 overflows 64 bits");
  // Sizes that fit one by one but not together.
  e = err({T(0, uint64_t{1} << 63, 0, 1), T(1, uint64_t{1} << 63, 0, 1)}, PlanOptions{});
  CHECK(e.code == ErrorCode::PASS_FAILED);
  CHECK(e.message.find("overflows 64 bits") != std::string::npos);
}
