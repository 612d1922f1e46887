// ExecuTorch's naive memory planning (bump allocation, no reuse),
// executorch-pipeline.md §6.3.

#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {

Result<MemoryPlan> plan_naive(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(detail::Prepared prep, detail::prepare(tensors, options));
  MemoryPlan plan;
  plan.algorithm = Algorithm::Naive;
  plan.placements.resize(tensors.size());
  plan.buffer_sizes = options.reserved.empty() ? std::vector<uint64_t>{0, 0} : options.reserved;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (prep.root[i] != i) continue;
    const uint32_t mem_id = prep.pool[i];
    if (mem_id >= plan.buffer_sizes.size()) plan.buffer_sizes.resize(static_cast<size_t>(mem_id) + 1, 0);
    plan.placements[i] = Placement{mem_id, plan.buffer_sizes[mem_id], std::nullopt};
    PTEFORGE_ASSIGN_OR_RETURN(plan.buffer_sizes[mem_id],
                              detail::add_bytes(plan.buffer_sizes[mem_id], prep.aligned[i], "memory pool size"));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (prep.root[i] != i) plan.placements[i] = plan.placements[prep.root[i]];
  }
  return plan;
}

}  // namespace pteforge::memplan
