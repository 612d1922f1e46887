// remove_tensor_metadata_asserts: deletes every `aten._assert_tensor_metadata`
// node, in the graph and in nested graphs, then removes what became dead.
//
// Mirrors ExecuTorch's RemoveNonCoreAtenOpGraphAssertsPass, which to_edge runs
// before anything else looks at the graph (executorch-pipeline.md §1.2 steps
// 2 and 4): the assert is not a core ATen op, returns nothing, and checks
// metadata the exported program already guarantees. Like ExecuTorch, a graph
// that lost an assert gets dead-code elimination (top-level graph).
// Preconditions: none.
//
// Before:  aten._assert_tensor_metadata.default(%x, dtype=torch.float32)
//          %relu = aten.relu.default(%x)
// After:   %relu = aten.relu.default(%x)
#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class RemoveTensorMetadataAsserts final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_tensor_metadata_asserts",
                                "drop _assert_tensor_metadata nodes, as to_edge does", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t removed = 0;
    bool top_level_changed = false;
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) {
      for (ir::Node* node : graph->node_snapshot()) {
        if (!node->target().is("aten._assert_tensor_metadata.default")) continue;
        PTEFORGE_TRY(graph->erase(*node));
        ++removed;
        if (graph == &ep.graph()) top_level_changed = true;
      }
    }
    if (removed == 0) return false;
    ctx.stat("asserts_removed", removed);
    if (top_level_changed) PTEFORGE_TRY(run_dead_code_elimination(ep, ctx));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_tensor_metadata_asserts_pass() {
  return std::make_unique<RemoveTensorMetadataAsserts>();
}

}  // namespace pteforge::passes
