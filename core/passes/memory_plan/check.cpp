#include "passes/memory_plan/check.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {

namespace {

Error violation(std::string message) {
  Location where;
  where.pass = "memory_planning";
  return make_error(ErrorCode::INTERNAL, "memory plan check failed: " + std::move(message), where);
}

std::string range_text(uint64_t offset, uint64_t size) {
  // Appended, not `"[" + std::string&&`: GCC 12 -O3 warns (-Wrestrict, a false positive) on that.
  std::string out("[");
  out += std::to_string(offset);
  out += ", ";
  out += std::to_string(offset + size);
  out += ')';
  return out;
}

}  // namespace

Status check_plan(const std::vector<PlannedTensor>& tensors, const MemoryPlan& plan, const PlanOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(detail::Prepared prep, detail::prepare(tensors, options));
  const size_t n = tensors.size();
  if (plan.placements.size() != n) {
    return violation(std::to_string(plan.placements.size()) + " placements for " + std::to_string(n) +
                     " tensors");
  }
  if (plan.buffer_sizes.empty() || plan.buffer_sizes[0] != 0) {
    return violation("buffer_sizes[0] must exist and be 0 (reserved)");
  }
  for (size_t i = 0; i < n; ++i) {
    const Placement& p = plan.placements[i];
    const std::string who = detail::describe_tensor(tensors, i);
    if (p.mem_id != prep.pool[i]) {
      return violation(who + " is in pool " + std::to_string(p.mem_id) + ", expected pool " +
                       std::to_string(prep.pool[i]));
    }
    if (p.mem_id >= plan.buffer_sizes.size()) {
      return violation(who + " is in pool " + std::to_string(p.mem_id) + " but buffer_sizes has " +
                       std::to_string(plan.buffer_sizes.size()) + " entries");
    }
    if (p.offset % options.alignment != 0) {
      return violation(who + " offset " + std::to_string(p.offset) + " is not a multiple of " +
                       std::to_string(options.alignment));
    }
    const uint64_t cap = plan.buffer_sizes[p.mem_id];
    if (p.offset > cap || prep.aligned[i] > cap - p.offset) {
      return violation(who + " bytes " + range_text(p.offset, prep.aligned[i]) + " exceed pool " +
                       std::to_string(p.mem_id) + " of " + std::to_string(cap) + " bytes");
    }
    const Placement& r = plan.placements[prep.root[i]];
    if (prep.root[i] != i && (r.mem_id != p.mem_id || r.offset != p.offset)) {
      return violation(who + " aliases " + detail::describe_tensor(tensors, prep.root[i]) +
                       " but is placed at " + std::to_string(p.mem_id) + ":" + std::to_string(p.offset) +
                       " instead of " + std::to_string(r.mem_id) + ":" + std::to_string(r.offset));
    }
  }
  // Sweep in order of first use, comparing each tensor with those still live.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tensors[a].first_use != tensors[b].first_use ? tensors[a].first_use < tensors[b].first_use : a < b;
  });
  std::vector<size_t> live;
  for (size_t i : order) {
    const PlannedTensor& t = tensors[i];
    live.erase(std::remove_if(live.begin(), live.end(), [&](size_t j) { return tensors[j].last_use < t.first_use; }),
               live.end());
    const Placement& p = plan.placements[i];
    for (size_t j : live) {
      const Placement& q = plan.placements[j];
      if (prep.root[i] == prep.root[j] || p.mem_id != q.mem_id) continue;
      if (prep.aligned[i] == 0 || prep.aligned[j] == 0) continue;
      const bool disjoint = p.offset + prep.aligned[i] <= q.offset || q.offset + prep.aligned[j] <= p.offset;
      if (!disjoint) {
        return violation(detail::describe_tensor(tensors, i) + " lifetime [" + std::to_string(t.first_use) + ", " +
                         std::to_string(t.last_use) + "] bytes " + range_text(p.offset, prep.aligned[i]) +
                         " overlaps " + detail::describe_tensor(tensors, j) + " lifetime [" +
                         std::to_string(tensors[j].first_use) + ", " + std::to_string(tensors[j].last_use) +
                         "] bytes " + range_text(q.offset, prep.aligned[j]) + " in pool " +
                         std::to_string(p.mem_id));
      }
    }
    live.push_back(i);
  }
  return Status::Ok();
}

}  // namespace pteforge::memplan
