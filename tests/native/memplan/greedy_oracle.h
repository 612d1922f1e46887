// Test oracle: ExecuTorch's greedy placement search written the direct way
// (every placement of every shared object scanned for each tensor, quadratic),
// as plan_greedy was before it got an interval index; the objects are laid
// out by the same detail::lay_out_shared_objects. greedy_oracle_test.cpp
// checks that the indexed planner gives exactly these plans.
#pragma once

#include <algorithm>
#include <map>
#include <string>

#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {


namespace oracle_detail {

// A contiguous region reused by time-disjoint tensors ("shared object", §6.2.3).
struct SharedObject {
  uint64_t size = 0;  // fixed at creation
  struct Slot {
    uint64_t offset;  // inside the object
    size_t tensor;
  };
  std::vector<Slot> slots;
};

}  // namespace oracle_detail

inline Result<MemoryPlan> plan_greedy_oracle(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(detail::Prepared prep, detail::prepare(tensors, options));
  const size_t n = tensors.size();

  PTEFORGE_ASSIGN_OR_RETURN(std::vector<size_t> order, detail::greedy_order(tensors, options));

  std::map<uint32_t, std::vector<oracle_detail::SharedObject>> pools;  // one independent pool per mem_id

  auto overlaps = [&](size_t a, size_t b) {
    return detail::lifetimes_overlap(tensors[a].first_use, tensors[a].last_use, tensors[b].first_use,
                                     tensors[b].last_use);
  };

  for (size_t t : order) {
    if (prep.root[t] != t) continue;  // aliases (inplace_base) are resolved afterwards (§6.2.5)
    std::vector<oracle_detail::SharedObject>& objects = pools[prep.pool[t]];
    const uint64_t size = prep.aligned[t];
    bool placed = false;
    // 1. First object whose placements are all time-disjoint from t: offset 0.
    for (size_t o = 0; o < objects.size() && !placed; ++o) {
      oracle_detail::SharedObject& obj = objects[o];
      const bool disjoint = std::none_of(obj.slots.begin(), obj.slots.end(),
                                         [&](const oracle_detail::SharedObject::Slot& s) { return overlaps(s.tensor, t); });
      if (!disjoint) continue;
      if (obj.size < size) {
        return detail::greedy_misfit_error(tensors, t, size, obj.size, options);
      }
      obj.slots.push_back({0, t});
      placed = true;
    }
    // 2. Stack on top of the time-overlapping placements of the first object with room.
    for (size_t o = 0; o < objects.size() && !placed; ++o) {
      oracle_detail::SharedObject& obj = objects[o];
      uint64_t top = 0;
      for (const oracle_detail::SharedObject::Slot& s : obj.slots) {
        if (overlaps(s.tensor, t)) top = std::max(top, s.offset + prep.aligned[s.tensor]);
      }
      if (top > 0 && top <= obj.size && size <= obj.size - top) {
        obj.slots.push_back({top, t});
        placed = true;
      }
    }
    // 3. A new object of exactly t's size.
    if (!placed) {
      oracle_detail::SharedObject obj;
      obj.size = size;
      obj.slots.push_back({0, t});
      objects.push_back(std::move(obj));
    }
  }

  return detail::lay_out_shared_objects(pools, n, prep, options);
}

}  // namespace pteforge::memplan
