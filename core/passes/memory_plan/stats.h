// Plan quality: the live-bytes lower bound and arena ÷ lower-bound ratios.
#pragma once

#include <cstdint>
#include <vector>

#include "passes/memory_plan/memory_plan.h"
#include "support/error.h"

namespace pteforge::memplan {

/// Per pool (index = mem_id; entry 0 and pools without tensors are 0), the peak
/// over node indices of the bytes live at the same node, every tensor counted
/// at round_up(nbytes, options.alignment). An alias group counts once per node,
/// with the largest of its members live there. No plan can make pool k smaller
/// than entry k (reserved bytes and extra_padding come on top of it).
/// Errors: those of the planners' input checks (OPTION_INVALID, PASS_FAILED).
Result<std::vector<uint64_t>> live_bytes_lower_bound(const std::vector<PlannedTensor>& tensors,
                                                     const PlanOptions& options);

/// One algorithm's arena against the lower bound.
struct AlgorithmRatio {
  Algorithm algorithm = Algorithm::Greedy;
  uint64_t arena_bytes = 0;        ///< sum of the plan's buffer_sizes
  uint64_t lower_bound_bytes = 0;  ///< sum of live_bytes_lower_bound
  /// arena_bytes / lower_bound_bytes; 1.0 when both are 0, +inf when only the bound is 0.
  double ratio = 1.0;
};

/// Plans the tensors with each of `algorithms` (options.algorithm is ignored)
/// and reports arena ÷ lower bound for each, in the given order. For a
/// benchmark table; reserved and extra_padding count in the arena.
/// Errors: those of the algorithms.
Result<std::vector<AlgorithmRatio>> compare_algorithms(
    const std::vector<PlannedTensor>& tensors, const PlanOptions& options,
    const std::vector<Algorithm>& algorithms = {Algorithm::Greedy, Algorithm::Naive, Algorithm::BestFit,
                                                Algorithm::Best});

}  // namespace pteforge::memplan
