#include "passes/memory_plan/stats.h"

#include <algorithm>
#include <limits>
#include <map>
#include <span>
#include <vector>

#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {

namespace {

// A change of live bytes at a node index: `add` bytes start, `sub` bytes end (before it).
struct Delta {
  int64_t at;
  uint64_t add;
  uint64_t sub;
};

}  // namespace

Result<std::vector<uint64_t>> live_bytes_lower_bound(const std::vector<PlannedTensor>& tensors,
                                                     const PlanOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(detail::Prepared prep, detail::prepare(tensors, options));
  const size_t n = tensors.size();
  // Members of each alias group, by root, as one flat array: the members of
  // root r are member[start[r] .. start[r + 1]) (most groups are one tensor).
  std::vector<size_t> start(n + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[prep.root[i] + 1];
  for (size_t r = 0; r < n; ++r) start[r + 1] += start[r];
  std::vector<size_t> member(n);
  {
    std::vector<size_t> next(start.begin(), start.end() - 1);
    for (size_t i = 0; i < n; ++i) member[next[prep.root[i]]++] = i;
  }

  std::map<uint32_t, std::vector<Delta>> deltas;  // per pool
  uint32_t max_pool = 0;
  std::vector<int64_t> bounds;
  for (size_t root = 0; root < n; ++root) {
    if (start[root] == start[root + 1]) continue;  // not a root
    const std::span<const size_t> members(member.data() + start[root], start[root + 1] - start[root]);
    const uint32_t pool = prep.pool[root];
    max_pool = std::max(max_pool, pool);
    std::vector<Delta>& d = deltas[pool];
    // Elementary segments between member boundaries; each holds the largest live member.
    bounds.clear();
    for (size_t m : members) {
      bounds.push_back(tensors[m].first_use);
      bounds.push_back(tensors[m].last_use + 1);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    for (size_t k = 0; k + 1 < bounds.size(); ++k) {
      uint64_t v = 0;
      for (size_t m : members) {
        if (tensors[m].first_use <= bounds[k] && bounds[k] <= tensors[m].last_use) v = std::max(v, prep.aligned[m]);
      }
      if (v == 0) continue;
      d.push_back({bounds[k], v, 0});
      d.push_back({bounds[k + 1], 0, v});
    }
  }
  std::vector<uint64_t> bound(n == 0 ? 2 : static_cast<size_t>(max_pool) + 1, 0);
  for (auto& [pool, d] : deltas) {
    std::sort(d.begin(), d.end(), [](const Delta& a, const Delta& b) { return a.at < b.at; });
    uint64_t live = 0;
    uint64_t peak = 0;
    for (size_t k = 0; k < d.size();) {
      const int64_t at = d[k].at;
      uint64_t add = 0;
      uint64_t sub = 0;
      for (; k < d.size() && d[k].at == at; ++k) {
        PTEFORGE_ASSIGN_OR_RETURN(add, detail::add_bytes(add, d[k].add, "live bytes"));
        sub += d[k].sub;  // never more than what was added before
      }
      live -= sub;
      PTEFORGE_ASSIGN_OR_RETURN(live, detail::add_bytes(live, add, "live bytes"));
      peak = std::max(peak, live);
    }
    bound[pool] = peak;
  }
  return bound;
}

Result<std::vector<AlgorithmRatio>> compare_algorithms(const std::vector<PlannedTensor>& tensors,
                                                       const PlanOptions& options,
                                                       const std::vector<Algorithm>& algorithms) {
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<uint64_t> bound, live_bytes_lower_bound(tensors, options));
  uint64_t lb = 0;
  for (uint64_t b : bound) lb += b;
  std::vector<AlgorithmRatio> out;
  for (Algorithm a : algorithms) {
    PlanOptions o = options;
    o.algorithm = a;
    PTEFORGE_ASSIGN_OR_RETURN(MemoryPlan plan, plan_memory(tensors, o));
    AlgorithmRatio r;
    r.algorithm = a;
    for (uint64_t s : plan.buffer_sizes) r.arena_bytes += s;
    r.lower_bound_bytes = lb;
    if (lb == 0) {
      r.ratio = r.arena_bytes == 0 ? 1.0 : std::numeric_limits<double>::infinity();
    } else {
      r.ratio = static_cast<double>(r.arena_bytes) / static_cast<double>(lb);
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace pteforge::memplan
