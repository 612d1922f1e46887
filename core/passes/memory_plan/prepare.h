// Shared input checks and derived data for the memory-planning algorithms.
// Internal to core/passes/memory_plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passes/memory_plan/memory_plan.h"
#include "support/error.h"

namespace pteforge::memplan::detail {

/// Validated input plus what every algorithm derives from it.
struct Prepared {
  std::vector<uint64_t> aligned;  ///< round_up(nbytes, alignment), per tensor
  std::vector<size_t> root;       ///< end of the alias chain; == index when not an alias
  std::vector<uint32_t> pool;     ///< resolved mem_id (the root's; 0 → kDefaultMemId)
};

/// Checks options and tensors, resolves alias chains and pools, aligns sizes.
/// Errors: OPTION_INVALID (alignment or sort_alignment 0, reserved longer than
/// kMaxMemId + 1), PASS_FAILED (negative or reversed lifetime, mem_id above
/// kMaxMemId, alias_of out of range / circular / in another pool, size overflow).
Result<Prepared> prepare(const std::vector<PlannedTensor>& tensors, const PlanOptions& options);

/// PASS_FAILED error located at pass "memory_planning".
Error plan_error(std::string message);

/// round_up(value, alignment) (alignment > 0); PASS_FAILED if it overflows 64 bits.
Result<uint64_t> round_up(uint64_t value, uint64_t alignment);
/// a + b; PASS_FAILED naming `what` if it overflows 64 bits.
Result<uint64_t> add_bytes(uint64_t a, uint64_t b, const char* what);

/// Inclusive lifetimes overlap unless one ends before the other starts (§6.2.4.1).
inline bool lifetimes_overlap(int64_t a_first, int64_t a_last, int64_t b_first, int64_t b_last) {
  return !(a_last < b_first || a_first > b_last);
}

/// The order in which the greedy planner places tensors (§6.2.2): by
/// round_up(nbytes, sort_alignment), largest first, and among equal keys the
/// later tensor first (a stable ascending sort, reversed). Indices into
/// `tensors`. Errors: PASS_FAILED when a size overflows when rounded.
Result<std::vector<size_t>> greedy_order(const std::vector<PlannedTensor>& tensors, const PlanOptions& options);

/// PASS_FAILED: tensor `t` (`size` aligned bytes) does not fit the
/// `object_size`-byte shared object the greedy search matched it with.
/// ExecuTorch asserts there ("Allocation specs are not sorted"); it can only
/// happen when sort_alignment and alignment disagree.
Error greedy_misfit_error(const std::vector<PlannedTensor>& tensors, size_t t, uint64_t size, uint64_t object_size,
                          const PlanOptions& options);

/// The plan of greedy-style shared objects (§6.2.6): per pool (a map mem_id →
/// objects in creation order, each with `size` and `slots` of {offset,
/// tensor}), the objects back to back from the pool's reservation, then
/// extra_padding; placements carry the object index as mem_obj_id; aliases
/// take their root's placement (§6.2.5). `n` tensors in all.
/// Errors: PASS_FAILED when a pool size overflows 64 bits.
template <typename Pools>
Result<MemoryPlan> lay_out_shared_objects(const Pools& pools, size_t n, const Prepared& prep,
                                          const PlanOptions& options) {
  MemoryPlan plan;
  plan.algorithm = Algorithm::Greedy;
  plan.placements.resize(n);
  if (pools.empty()) {
    plan.buffer_sizes = {0, 0};
  } else {
    plan.buffer_sizes.assign(static_cast<size_t>(pools.rbegin()->first) + 1, 0);
    for (const auto& [mem_id, objects] : pools) {
      uint64_t cursor = mem_id < options.reserved.size() ? options.reserved[mem_id] : 0;
      std::vector<uint64_t> start(objects.size());
      for (size_t o = 0; o < objects.size(); ++o) {
        start[o] = cursor;
        PTEFORGE_ASSIGN_OR_RETURN(cursor, add_bytes(cursor, objects[o].size, "memory pool size"));
      }
      PTEFORGE_ASSIGN_OR_RETURN(plan.buffer_sizes[mem_id], add_bytes(cursor, options.extra_padding, "memory pool size"));
      for (size_t o = 0; o < objects.size(); ++o) {
        for (const auto& s : objects[o].slots) {
          plan.placements[s.tensor] = Placement{mem_id, start[o] + s.offset, static_cast<uint32_t>(o)};
        }
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (prep.root[i] != i) plan.placements[i] = plan.placements[prep.root[i]];
  }
  return plan;
}

/// "tensor #i (id N)" for messages.
std::string describe_tensor(const std::vector<PlannedTensor>& tensors, size_t index);

}  // namespace pteforge::memplan::detail
