// ExecuTorch's default greedy memory planning, executorch-pipeline.md §6.2.
// Written from the description of the algorithm; offsets must equal ExecuTorch's.
// The rule is ExecuTorch's (first disjoint object, else stack on the first
// object with room, else a new object); instead of scanning every placement
// of every object for each tensor (quadratic: 2.7 s at 100k nodes), each
// object keeps a TimeMaxIndex of its placements' tops over time, so one test
// per object is O(log n). tests/native/memplan/greedy_oracle_test.cpp holds
// the direct form and checks both give the same plans.

#include <algorithm>
#include <map>
#include <string>

#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {

namespace {

/// For one shared object: the highest byte (+1) used by its placements at any
/// time step, queried over a time range. A sparse segment tree over the
/// compressed time steps with "raise to at least v" range updates and range
/// maximum queries, both O(log steps); nodes are made on demand, so an object
/// with k placements holds O(k log steps) nodes. This is what lets the greedy
/// planner skip scanning every placement of every object for each tensor.
class TimeMaxIndex {
 public:
  explicit TimeMaxIndex(uint32_t steps) : steps_(steps) {}

  /// Raises the value of every step in [first, last] to at least `value`.
  void raise(uint32_t first, uint32_t last, uint64_t value) {
    if (nodes_.empty()) nodes_.push_back({});
    raise(0, 0, steps_ - 1, first, last, value);
  }
  /// The largest value over [first, last]; 0 when nothing was placed there.
  uint64_t max(uint32_t first, uint32_t last) const {
    return nodes_.empty() ? 0 : max(0, 0, steps_ - 1, first, last);
  }

 private:
  struct Node {
    uint64_t max = 0;   // the largest value raised anywhere in the node's range
    uint64_t all = 0;   // the largest value raised over the node's whole range
    uint32_t left = 0;  // child indices; 0 = none (node 0 is the root)
    uint32_t right = 0;
  };

  void raise(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last, uint64_t value) {
    nodes_[node].max = std::max(nodes_[node].max, value);
    if (first <= lo && hi <= last) {
      nodes_[node].all = std::max(nodes_[node].all, value);
      return;
    }
    const uint32_t mid = lo + (hi - lo) / 2;
    if (first <= mid) raise(child(node, true), lo, mid, first, last, value);
    if (last > mid) raise(child(node, false), mid + 1, hi, first, last, value);
  }
  uint64_t max(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last) const {
    const Node& n = nodes_[node];
    if (first <= lo && hi <= last) return n.max;
    uint64_t best = n.all;  // covers the part of [first, last] inside this node
    const uint32_t mid = lo + (hi - lo) / 2;
    if (first <= mid && n.left) best = std::max(best, max(n.left, lo, mid, first, last));
    if (last > mid && n.right) best = std::max(best, max(n.right, mid + 1, hi, first, last));
    return best;
  }
  uint32_t child(uint32_t node, bool left) {
    uint32_t c = left ? nodes_[node].left : nodes_[node].right;
    if (c) return c;
    c = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({});
    (left ? nodes_[node].left : nodes_[node].right) = c;
    return c;
  }

  uint32_t steps_;
  std::vector<Node> nodes_;
};

// A contiguous region reused by time-disjoint tensors ("shared object", §6.2.3).
struct SharedObject {
  uint64_t size = 0;  // fixed at creation
  struct Slot {
    uint64_t offset;  // inside the object
    size_t tensor;
  };
  std::vector<Slot> slots;
  /// Per time step: 1 + the top (offset + aligned size) of the highest
  /// placement alive then; 0 where no placement is alive.
  TimeMaxIndex tops;
};

}  // namespace

Result<MemoryPlan> plan_greedy(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(detail::Prepared prep, detail::prepare(tensors, options));
  const size_t n = tensors.size();

  PTEFORGE_ASSIGN_OR_RETURN(std::vector<size_t> order, detail::greedy_order(tensors, options));

  std::map<uint32_t, std::vector<SharedObject>> pools;  // one independent pool per mem_id

  // Lifetimes as indices into the sorted distinct first/last uses (inclusive
  // overlap, §6.2.4.1, is unchanged by an order-preserving renumbering).
  std::vector<int64_t> steps;
  steps.reserve(2 * n);
  for (size_t t = 0; t < n; ++t) {
    if (prep.root[t] != t) continue;
    steps.push_back(tensors[t].first_use);
    steps.push_back(tensors[t].last_use);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  auto step_of = [&steps](int64_t use) {
    return static_cast<uint32_t>(std::lower_bound(steps.begin(), steps.end(), use) - steps.begin());
  };
  const uint32_t num_steps = static_cast<uint32_t>(std::max<size_t>(steps.size(), 1));

  std::vector<uint64_t> highest_tops;  // per object, for one tensor: scratch reused
  for (size_t t : order) {
    if (prep.root[t] != t) continue;  // aliases (inplace_base) are resolved afterwards (§6.2.5)
    std::vector<SharedObject>& objects = pools[prep.pool[t]];
    const uint64_t size = prep.aligned[t];
    const uint32_t first = step_of(tensors[t].first_use);
    const uint32_t last = step_of(tensors[t].last_use);
    bool placed = false;
    auto place = [&](SharedObject& obj, uint64_t offset) {
      obj.slots.push_back({offset, t});
      obj.tops.raise(first, last, offset + size + 1);
      placed = true;
    };
    // 1. First object whose placements are all time-disjoint from t: offset 0.
    // Each object's highest top over t's lifetime is kept for step 2 (when
    // step 1 places nothing, it has asked every object).
    highest_tops.clear();
    for (size_t o = 0; o < objects.size() && !placed; ++o) {
      SharedObject& obj = objects[o];
      const uint64_t highest = obj.tops.max(first, last);
      highest_tops.push_back(highest);
      if (highest != 0) continue;  // some placement is alive with t
      if (obj.size < size) {
        return detail::greedy_misfit_error(tensors, t, size, obj.size, options);
      }
      place(obj, 0);
    }
    // 2. Stack on top of the time-overlapping placements of the first object with room.
    for (size_t o = 0; o < objects.size() && !placed; ++o) {
      SharedObject& obj = objects[o];
      const uint64_t highest = highest_tops[o];
      const uint64_t top = highest == 0 ? 0 : highest - 1;
      if (top > 0 && top <= obj.size && size <= obj.size - top) place(obj, top);
    }
    // 3. A new object of exactly t's size.
    if (!placed) {
      objects.push_back(SharedObject{size, {}, TimeMaxIndex(num_steps)});
      place(objects.back(), 0);
    }
  }

  return detail::lay_out_shared_objects(pools, n, prep, options);
}

}  // namespace pteforge::memplan
