// remove_redundant_to_copy: removes `aten._to_copy.default` nodes whose result
// has the dtype, device, shape and strides of their input; users read the
// input instead. Ends with dead-code elimination of the top-level graph.
//
// Mirrors ExecuTorch's RemoveToCopyPass (executorch-pipeline.md §1.2 step
// 6.8, §4.4). The comparison is on the TensorMeta of input and result
// (symbolic entries compare by expression). Preconditions: none.
//
// Before:  %_to_copy = aten._to_copy.default(%x, dtype=torch.float32); %relu = aten.relu.default(%_to_copy)
// After:   %relu = aten.relu.default(%x)
#include <string>

#include "ir/graph.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class RemoveRedundantToCopy final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_redundant_to_copy", "remove _to_copy nodes that change nothing",
                                "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    int64_t removed = 0;
    for (ir::Node* node : graph.node_snapshot()) {
      if (!node->target().is("aten._to_copy.default") || node->inputs().empty()) continue;
      const ir::Argument& self = node->inputs()[0].arg;
      const std::string* out = node->single_output();
      if (!out || !self.is_tensor()) continue;
      const ir::TensorMeta* in = graph.tensor_meta(self.tensor_name());
      const ir::TensorMeta* res = graph.tensor_meta(*out);
      if (!in || !res) continue;
      if (in->dtype != res->dtype || !(in->device == res->device) || in->sizes != res->sizes ||
          in->strides != res->strides) {
        continue;
      }
      ep.replace_all_uses(*out, self.tensor_name());
      ++removed;
    }
    if (removed) ctx.stat("to_copies_removed", removed);
    PTEFORGE_ASSIGN_OR_RETURN(bool dce, run_dead_code_elimination(ep, ctx));
    return removed > 0 || dce;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_redundant_to_copy_pass() {
  return std::make_unique<RemoveRedundantToCopy>();
}

}  // namespace pteforge::passes
