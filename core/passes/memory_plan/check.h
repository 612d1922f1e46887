// Plan checker: the invariants every memory plan must hold. Used by tests and
// (in debug builds) by the memory_planning pass.
#pragma once

#include <vector>

#include "passes/memory_plan/memory_plan.h"
#include "support/error.h"

namespace pteforge::memplan {

/// Verifies `plan` against the tensors and options it was made from:
///  - one placement per tensor; buffer_sizes[0] == 0;
///  - each tensor is in its pool (preset mem_id or 1; an alias in its root's),
///    its offset is a multiple of options.alignment, and
///    [offset, offset + round_up(nbytes, alignment)) lies inside buffer_sizes[mem_id];
///  - an alias (alias_of chain) has exactly its root's mem_id and offset;
///  - two tensors of different alias groups whose inclusive lifetimes overlap
///    share no byte (zero-size tensors occupy no bytes).
/// Errors: INTERNAL naming the first violation and both tensors involved; the
/// input errors of the planners (OPTION_INVALID, PASS_FAILED) for bad input.
Status check_plan(const std::vector<PlannedTensor>& tensors, const MemoryPlan& plan, const PlanOptions& options);

}  // namespace pteforge::memplan
