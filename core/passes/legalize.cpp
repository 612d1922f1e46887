// legalize: sorts the graph topologically (see legalize.h for the two orders).
// The registered pass uses LegalizeOrder::Fx, the order torch.export's module
// swap produces with torch.fx's legalize_graph; module-swap code may call
// legalize_graph(graph, LegalizeOrder::Stable) where it wants the current
// order kept. Preconditions: none (that is the point).
//
// Before (Fx):  %permute, %addmm(%p_b, %x, %permute), %tanh(%addmm), %permute_1(%p_w2), %addmm_1(..)
// After:        %permute, %permute_1, %addmm, %tanh, %addmm_1
#include "passes/legalize.h"

#include <deque>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/verifier.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// Targets torch's legalize_graph puts in front of the queue.
bool is_prioritized(const ir::OpTarget& t) {
  if (t.kind() == ir::TargetKind::PythonOperator) {
    static constexpr std::string_view kOps[] = {"add", "mul", "sub", "floordiv", "truediv", "mod",
                                                "le",  "lt",  "ge",  "gt",       "eq",      "ne"};
    for (std::string_view op : kOps) {
      if (t.op() == op) return true;
    }
    return false;
  }
  static constexpr std::string_view kTargets[] = {
      "aten.sym_constrain_range.default", "aten.sym_constrain_range_for_size.default",
      "aten._assert_async.msg", "aten.scalar_tensor.default", "aten._assert_scalar.default"};
  for (std::string_view name : kTargets) {
    if (t.is(name)) return true;
  }
  return false;
}

/// A schedulable unit: a graph input, a node, or a virtual getitem of one
/// output of a multi-output node.
struct Unit {
  ir::Node* node = nullptr;  ///< the node (for node units); nullptr otherwise
  std::string value;         ///< the value an input / getitem unit stands for
  bool prioritized = false;
  size_t indeg = 0;
  std::vector<size_t> users;  ///< distinct user units, in use order
};

class Scheduler {
 public:
  explicit Scheduler(ir::Graph& g, bool fx) : g_(g), fx_(fx) {}

  Result<std::vector<ir::Node*>> run() {
    build();
    std::vector<ir::Node*> order;
    order.reserve(g_.num_nodes());
    if (fx_) {
      std::deque<size_t> queue;
      for (size_t u = 0; u < units_.size(); ++u) {
        if (units_[u].indeg == 0) queue.push_back(u);
      }
      while (!queue.empty()) {
        size_t cur = queue.front();
        queue.pop_front();
        if (units_[cur].node) order.push_back(units_[cur].node);
        for (size_t user : units_[cur].users) {
          if (--units_[user].indeg != 0) continue;
          if (units_[user].prioritized) {
            queue.push_front(user);
          } else {
            queue.push_back(user);
          }
        }
      }
    } else {
      // Min-heap on the unit index (= current position): stable.
      std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> heap;
      for (size_t u = 0; u < units_.size(); ++u) {
        if (units_[u].indeg == 0) heap.push(u);
      }
      while (!heap.empty()) {
        size_t cur = heap.top();
        heap.pop();
        if (units_[cur].node) order.push_back(units_[cur].node);
        for (size_t user : units_[cur].users) {
          if (--units_[user].indeg == 0) heap.push(user);
        }
      }
    }
    if (order.size() != g_.num_nodes()) {
      for (const Unit& u : units_) {
        if (u.node && u.indeg > 0) {
          return make_error(ErrorCode::INVALID_GRAPH,
                            "the graph has a dependency cycle through node " + u.node->name(),
                            ir::node_location(*u.node));
        }
      }
      return make_error(ErrorCode::INTERNAL, "topological sort lost nodes");
    }
    return order;
  }

 private:
  void build() {
    for (const ir::Argument& in : g_.inputs()) {
      ir::for_each_value_name(in, [&](const std::string& name, ir::ValueKind) { add_value_unit(name); });
    }
    for (ir::Node& node : g_) {
      size_t u = units_.size();
      units_.push_back(Unit{&node, {}, is_prioritized(node.target()), 0, {}});
      node_unit_[&node] = u;
      if (!fx_ || node.single_output()) {
        for (std::string_view out : node.output_names()) value_unit_[std::string(out)] = u;
      } else {
        // FX reads each output of a multi-output node through a getitem node.
        for (std::string_view out : node.output_names()) {
          if (g_.use_count(out) == 0) continue;
          size_t gi = add_value_unit(std::string(out));
          link(u, gi);
        }
      }
    }
    // Users in use order: walk each producer's uses as the graph records them.
    for (size_t p = 0; p < units_.size(); ++p) {
      std::vector<std::string> values;
      if (!units_[p].value.empty()) {
        values.push_back(units_[p].value);
      } else if (units_[p].node && (!fx_ || units_[p].node->single_output())) {
        for (std::string_view out : units_[p].node->output_names()) values.emplace_back(out);
      }
      for (const std::string& v : values) {
        for (ir::Node* user : g_.users(v)) link(p, node_unit_.at(user));
      }
    }
  }

  size_t add_value_unit(const std::string& name) {
    size_t u = units_.size();
    units_.push_back(Unit{nullptr, name, false, 0, {}});
    value_unit_[name] = u;
    return u;
  }

  /// Records that `user` depends on `producer` (once per pair, as FX's users dict).
  void link(size_t producer, size_t user) {
    auto& users = units_[producer].users;
    for (size_t x : users) {
      if (x == user) return;
    }
    users.push_back(user);
    ++units_[user].indeg;
  }

  ir::Graph& g_;
  bool fx_;
  std::vector<Unit> units_;
  std::unordered_map<std::string, size_t> value_unit_;
  std::unordered_map<const ir::Node*, size_t> node_unit_;
};

class Legalize final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"legalize", "topologically sort the graph", "utility"};
    return kInfo;
  }
  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    PTEFORGE_ASSIGN_OR_RETURN(bool changed, legalize_graph(ep.graph(), LegalizeOrder::Fx));
    if (changed) ctx.stat("reordered", 1);
    return changed;
  }
};

}  // namespace

Result<bool> legalize_graph(ir::Graph& graph, LegalizeOrder order) {
  Scheduler s(graph, order == LegalizeOrder::Fx);
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<ir::Node*> sorted, s.run());
  bool changed = false;
  ir::Node* prev = nullptr;
  for (ir::Node* n : sorted) {
    ir::Node* expected = prev ? graph.next(*prev) : graph.first_node();
    if (expected != n) {
      changed = true;
      if (prev) {
        graph.move_after(*n, *prev);
      } else {
        graph.move_before(*n, *graph.first_node());
      }
    }
    prev = n;
  }
  return changed;
}

std::unique_ptr<Pass> make_legalize_pass() { return std::make_unique<Legalize>(); }

}  // namespace pteforge::passes
