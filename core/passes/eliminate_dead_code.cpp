// eliminate_dead_code: removes nodes none of whose results are used (by a
// node or the graph outputs) and that have no side effects.
//
// Mirrors torch.fx Graph.eliminate_dead_code as ExecuTorch uses it (to_edge
// "post op-replace" passes, executorch-pipeline.md §1.2 step 11): a node is
// impure, and kept, when its op writes one of its arguments (in-place,
// out-variant or mutable schema: any `Tensor(a!)` argument), when it is an
// assertion / range constraint, or when it is a higher-order op or a call we
// cannot see into. Nodes are visited in reverse order so chains of dead
// nodes disappear in one run.
//
// Before:  %a = aten.relu.default(%x); %b = aten.neg.default(%x); output(%a)
// After:   %a = aten.relu.default(%x); output(%a)
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// Targets that must stay even when their result is unused.
bool is_side_effectful_target(std::string_view short_name) {
  static constexpr std::string_view kImpure[] = {
      "aten._assert_async.default", "aten._assert_async.msg", "aten._assert_scalar.default",
      "aten.sym_constrain_range.default", "aten.sym_constrain_range_for_size.default",
      "aten._assert_tensor_metadata.default", "aten._print.default",
  };
  for (std::string_view t : kImpure) {
    if (short_name == t) return true;
  }
  return false;
}

bool is_impure(const ir::Node& node) {
  const ir::OpTarget& target = node.target();
  switch (target.kind()) {
    case ir::TargetKind::PythonOperator:
    case ir::TargetKind::Math:
    case ir::TargetKind::TorchFunction:
      return false;  // symbolic scalar arithmetic and getitem are pure
    case ir::TargetKind::Operator:
      break;
    default:
      return true;  // higher-order ops, extensions, unknown callables: keep
  }
  if (is_side_effectful_target(target.short_name())) return true;
  const ops::OpSchema* schema = target_schema(target);
  if (!schema) return true;  // unknown op: do not guess
  for (const auto& arg : schema->arguments) {
    if (arg.type.is_write()) return true;
  }
  return false;
}

class EliminateDeadCode final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"eliminate_dead_code",
                                "remove nodes whose results are unused and have no side effects", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    // A graph still in the state an earlier run left it has no dead node (a
    // run removes dead nodes in reverse order, so chains go too): skip the walk.
    uint64_t& clean = ctx.state().dead_code_free_revision;
    if (clean != 0 && graph.revision() == clean) return false;
    std::vector<ir::Node*> nodes = graph.node_snapshot();
    const std::vector<const ir::Value*> results = single_results(graph, nodes);
    int64_t removed = 0;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      ir::Node* node = *it;
      if (used(*node, results, graph) || is_impure(*node)) continue;
      PTEFORGE_TRY(graph.erase(*node));
      ++removed;
    }
    if (removed) ctx.stat("nodes_removed", removed);
    clean = graph.revision();
    return removed > 0;
  }

 private:
  /// The value each node defines, by node id, when it defines exactly one
  /// (else nullptr), found with one walk over the value table: DCE runs six
  /// times per convert, and a name lookup per result was most of its time. A
  /// value stays alive while its producer does, so the pointers hold while
  /// nodes are erased in reverse order.
  static std::vector<const ir::Value*> single_results(const ir::Graph& graph, const std::vector<ir::Node*>& nodes) {
    ir::NodeId max_id = 0;
    for (const ir::Node* n : nodes) max_id = std::max(max_id, n->id());
    std::vector<const ir::Value*> result(static_cast<size_t>(max_id) + 1, nullptr);
    std::vector<uint8_t> defined(result.size(), 0);  // values naming the node producer, capped at 2
    graph.for_each_value([&](const ir::Value& v) {
      if (!v.producer || v.producer->id() > max_id) return;
      const ir::NodeId id = v.producer->id();
      if (defined[id] < 2) ++defined[id];
      result[id] = defined[id] == 1 ? &v : nullptr;
    });
    return result;
  }

  /// True when a result of `node` is used by a node or the graph outputs
  /// (Graph::use_count > 0): from `results` for a node with one output that
  /// is the one value naming it producer, by name otherwise.
  static bool used(const ir::Node& node, const std::vector<const ir::Value*>& results, const ir::Graph& graph) {
    const ir::Value* v = node.id() < results.size() ? results[node.id()] : nullptr;
    const std::string* out = node.single_output();
    if (v && out && v->name == *out) return !v->uses.empty() || v->output_uses > 0;
    for (std::string_view name : node.output_names()) {
      if (graph.use_count(name) > 0) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> make_eliminate_dead_code_pass() { return std::make_unique<EliminateDeadCode>(); }

}  // namespace pteforge::passes
