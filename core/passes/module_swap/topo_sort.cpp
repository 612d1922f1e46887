// Stable topological sort (see topo_sort.h): Kahn's algorithm with a
// min-heap on the original position.
#include "passes/module_swap/topo_sort.h"

#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

namespace pteforge::passes::module_swap {

Result<bool> stable_topological_sort(ir::Graph& g) {
  std::vector<ir::Node*> nodes = g.node_snapshot();
  const size_t n = nodes.size();
  std::unordered_map<const ir::Node*, size_t> index;
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) index.emplace(nodes[i], i);

  std::vector<std::vector<size_t>> users(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::vector<size_t> deps;
    for (const auto& na : nodes[i]->inputs()) {
      ir::for_each_value_name(na.arg, [&](const std::string& name, ir::ValueKind) {
        ir::Node* p = g.producer(name);
        if (!p || p == nodes[i]) return;
        auto it = index.find(p);
        if (it == index.end()) return;
        for (size_t d : deps) {
          if (d == it->second) return;
        }
        deps.push_back(it->second);
      });
    }
    pending[i] = deps.size();
    for (size_t d : deps) users[d].push_back(i);
  }

  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t u : users[i]) {
      if (--pending[u] == 0) ready.push(u);
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] != 0) {
        Location where;
        where.node = nodes[i]->name();
        return make_error(ErrorCode::INVALID_GRAPH,
                          "the graph has a dependency cycle through node '" + nodes[i]->name() + "'", where);
      }
    }
  }
  bool changed = false;
  for (size_t i = 0; i < n; ++i) changed |= order[i] != i;
  if (!changed) return false;
  g.move_before(*nodes[order[0]], *g.first_node());
  for (size_t i = 1; i < n; ++i) g.move_after(*nodes[order[i]], *nodes[order[i - 1]]);
  return true;
}

}  // namespace pteforge::passes::module_swap
