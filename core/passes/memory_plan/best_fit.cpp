// pteforge's own planner: offset search on the interval graph.
//
// Each alias group is one item (hull of its lifetimes, largest aligned size).
// Items are placed one at a time; an item may use any byte range not used by
// an already placed item whose lifetime overlaps its own. Several processing
// orders and two gap policies are tried; the smallest pool wins (first on a tie).

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/prepare.h"

namespace pteforge::memplan {

namespace {

struct Item {
  size_t root;  // tensor index of the group's root (also the tie-break)
  int64_t first;
  int64_t last;
  uint64_t size;
};

enum class GapPolicy { FirstFit, BestFit };

struct Placed {
  uint64_t offset;
  uint64_t end;
  int64_t first;
  int64_t last;
};

// Places items in `order`; returns the offsets (relative to the pool base) and the top.
uint64_t place_all(const std::vector<Item>& items, const std::vector<size_t>& order, GapPolicy policy,
                   std::vector<uint64_t>& offsets) {
  offsets.assign(items.size(), 0);
  std::vector<Placed> placed;  // kept sorted by offset
  placed.reserve(items.size());
  uint64_t top = 0;
  for (size_t k : order) {
    const Item& it = items[k];
    uint64_t cursor = 0;
    bool have = false;
    uint64_t best_offset = 0;
    uint64_t best_gap = 0;
    for (const Placed& p : placed) {
      if (!detail::lifetimes_overlap(p.first, p.last, it.first, it.last)) continue;
      if (p.offset > cursor) {
        const uint64_t gap = p.offset - cursor;
        if (gap >= it.size && (!have || (policy == GapPolicy::BestFit && gap < best_gap))) {
          have = true;
          best_offset = cursor;
          best_gap = gap;
          if (policy == GapPolicy::FirstFit) break;
        }
      }
      cursor = std::max(cursor, p.end);
    }
    const uint64_t offset = have ? best_offset : cursor;
    offsets[k] = offset;
    const Placed entry{offset, offset + it.size, it.first, it.last};
    auto pos = std::upper_bound(placed.begin(), placed.end(), entry,
                                [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    placed.insert(pos, entry);
    top = std::max(top, entry.end);
  }
  return top;
}

using ItemLess = std::function<bool(const Item&, const Item&)>;

// Processing orders tried, each a strict weak order ending in the root index.
std::vector<ItemLess> orders() {
  auto dur = [](const Item& a) { return static_cast<uint64_t>(a.last - a.first) + 1; };
  return {
      // Largest first, longer-lived first among equals.
      [dur](const Item& a, const Item& b) {
        if (a.size != b.size) return a.size > b.size;
        if (dur(a) != dur(b)) return dur(a) > dur(b);
        return a.root < b.root;
      },
      // Largest first, earliest first among equals.
      [](const Item& a, const Item& b) {
        if (a.size != b.size) return a.size > b.size;
        if (a.first != b.first) return a.first < b.first;
        return a.root < b.root;
      },
      // Largest area (bytes × nodes) first.
      [dur](const Item& a, const Item& b) {
        const double aa = static_cast<double>(a.size) * static_cast<double>(dur(a));
        const double bb = static_cast<double>(b.size) * static_cast<double>(dur(b));
        if (aa != bb) return aa > bb;
        if (a.size != b.size) return a.size > b.size;
        return a.root < b.root;
      },
      // Longest-lived first.
      [dur](const Item& a, const Item& b) {
        if (dur(a) != dur(b)) return dur(a) > dur(b);
        if (a.size != b.size) return a.size > b.size;
        return a.root < b.root;
      },
      // Time order (a linear scan).
      [](const Item& a, const Item& b) {
        if (a.first != b.first) return a.first < b.first;
        if (a.size != b.size) return a.size > b.size;
        return a.root < b.root;
      },
  };
}

}  // namespace

Result<MemoryPlan> plan_best_fit(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(detail::Prepared prep, detail::prepare(tensors, options));
  const size_t n = tensors.size();

  // One item per alias group, grouped by pool.
  std::map<uint32_t, std::vector<Item>> pools;
  std::vector<size_t> item_of(n, 0);  // root tensor → index in its pool's items
  for (size_t i = 0; i < n; ++i) {
    if (prep.root[i] != i) continue;
    std::vector<Item>& items = pools[prep.pool[i]];
    item_of[i] = items.size();
    items.push_back(Item{i, tensors[i].first_use, tensors[i].last_use, prep.aligned[i]});
  }
  for (size_t i = 0; i < n; ++i) {
    if (prep.root[i] == i) continue;
    Item& it = pools[prep.pool[i]][item_of[prep.root[i]]];
    it.first = std::min(it.first, tensors[i].first_use);
    it.last = std::max(it.last, tensors[i].last_use);
    it.size = std::max(it.size, prep.aligned[i]);
  }

  MemoryPlan plan;
  plan.algorithm = Algorithm::BestFit;
  plan.placements.resize(n);
  if (pools.empty()) {
    plan.buffer_sizes = {0, 0};
    return plan;
  }
  plan.buffer_sizes.assign(static_cast<size_t>(pools.rbegin()->first) + 1, 0);
  const std::vector<ItemLess> less = orders();
  for (const auto& pool : pools) {
    const uint32_t mem_id = pool.first;
    const std::vector<Item>& items = pool.second;  // a named reference: lambdas below capture it
    const uint64_t reserved = mem_id < options.reserved.size() ? options.reserved[mem_id] : 0;
    PTEFORGE_ASSIGN_OR_RETURN(const uint64_t base, detail::round_up(reserved, options.alignment));
    uint64_t total_items = 0;
    for (const Item& it : items) {
      PTEFORGE_ASSIGN_OR_RETURN(total_items, detail::add_bytes(total_items, it.size, "memory pool size"));
    }
    // Every candidate top is at most the sum of sizes, so base + top is checked once here.
    PTEFORGE_ASSIGN_OR_RETURN(const uint64_t limit, detail::add_bytes(base, total_items, "memory pool size"));
    PTEFORGE_TRY(detail::add_bytes(limit, options.extra_padding, "memory pool size"));

    std::vector<uint64_t> best_offsets;
    uint64_t best_top = 0;
    bool have = false;
    std::vector<size_t> order(items.size());
    std::vector<uint64_t> offsets;
    for (const ItemLess& cmp : less) {
      std::iota(order.begin(), order.end(), size_t{0});
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cmp(items[a], items[b]); });
      for (GapPolicy policy : {GapPolicy::BestFit, GapPolicy::FirstFit}) {
        const uint64_t top = place_all(items, order, policy, offsets);
        if (!have || top < best_top) {
          have = true;
          best_top = top;
          best_offsets = offsets;
        }
      }
    }
    plan.buffer_sizes[mem_id] = base + best_top + options.extra_padding;
    for (size_t k = 0; k < items.size(); ++k) {
      plan.placements[items[k].root] = Placement{mem_id, base + best_offsets[k], std::nullopt};
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (prep.root[i] != i) plan.placements[i] = plan.placements[prep.root[i]];
  }
  return plan;
}

}  // namespace pteforge::memplan
