// Small shared helpers for the memplan tests.
#pragma once

#include <cstdint>
#include <vector>

#include "passes/memory_plan/memory_plan.h"

namespace memplan_test {

inline pteforge::memplan::PlannedTensor T(uint64_t id, uint64_t nbytes, int64_t first, int64_t last,
                                          uint32_t mem_id = 0) {
  pteforge::memplan::PlannedTensor t;
  t.id = id;
  t.nbytes = nbytes;
  t.first_use = first;
  t.last_use = last;
  t.mem_id = mem_id;
  return t;
}

inline std::vector<uint64_t> offsets(const pteforge::memplan::MemoryPlan& p) {
  std::vector<uint64_t> v;
  for (const auto& x : p.placements) v.push_back(x.offset);
  return v;
}

inline uint64_t total(const pteforge::memplan::MemoryPlan& p) {
  uint64_t s = 0;
  for (uint64_t b : p.buffer_sizes) s += b;
  return s;
}

}  // namespace memplan_test
