// normalize_sym_size: calls of the overload packets `aten.sym_size`,
// `aten.sym_stride` and `aten.sym_numel` (a target without an overload) get
// the concrete overloads `sym_size.int`, `sym_stride.int` and
// `sym_numel.default`, in the graph and in nested graphs.
//
// Mirrors ExecuTorch's ReplaceSymSizeOpPass, the first pre-op-replace pass
// (executorch-pipeline.md §1.2 step 6.1). torch.export writes overloads, so
// this only changes older or hand-made programs. Preconditions: none.
//
// Before:  %sym_size = aten.sym_size(%x, 0)
// After:   %sym_size = aten.sym_size.int(%x, 0)
#include <string_view>

#include "ir/graph.h"
#include "passes/edge_utils.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// The concrete overload of a packet target; "" when `short_name` is not one.
std::string_view concrete_overload(std::string_view short_name) {
  if (short_name == "aten.sym_size") return "torch.ops.aten.sym_size.int";
  if (short_name == "aten.sym_stride") return "torch.ops.aten.sym_stride.int";
  if (short_name == "aten.sym_numel") return "torch.ops.aten.sym_numel.default";
  return {};
}

class NormalizeSymSize final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{
        "normalize_sym_size", "turn sym_size/sym_stride/sym_numel packets into their .int/.default overloads",
        "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t replaced = 0;
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) {
      for (ir::Node& node : *graph) {
        std::string_view target = concrete_overload(node.target().short_name());
        if (target.empty()) continue;
        node.set_target(ir::OpTarget(target));
        ++replaced;
      }
    }
    if (replaced) ctx.stat("targets_replaced", replaced);
    return replaced > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_normalize_sym_size_pass() { return std::make_unique<NormalizeSymSize>(); }

}  // namespace pteforge::passes
