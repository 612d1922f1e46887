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

/// "tensor #i (id N)" for messages.
std::string describe_tensor(const std::vector<PlannedTensor>& tensors, size_t index);

}  // namespace pteforge::memplan::detail
