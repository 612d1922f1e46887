// remove_unused_parameters: deletes PARAMETER placeholders that nothing uses,
// together with their input spec and their state binding.
//
// Mirrors ExecuTorch's remove_unused_parameters_pass, the first step of
// to_edge (executorch-pipeline.md §1.2 step 3): a parameter whose placeholder
// has no user (no node and no graph output) is removed from the graph, the
// signature and the state dict. Unused *buffers* and tensor constants stay:
// ExecuTorch still emits them (KWS, §7.4). A parameter passed to a
// higher-order op counts as used. Preconditions: none.
//
// Before:  graph(%p_w, %p_unused, %x): %mm = aten.mm.default(%x, %p_w) ...
// After:   graph(%p_w, %x): %mm = aten.mm.default(%x, %p_w) ...
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class RemoveUnusedParameters final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_unused_parameters",
                                "delete parameter placeholders that have no users", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    auto& specs = ep.signature().input_specs;
    if (specs.size() != graph.inputs().size()) {
      return make_error(ErrorCode::PASS_PRECONDITION, "the signature has " + std::to_string(specs.size()) +
                                                          " input specs but the graph has " +
                                                          std::to_string(graph.inputs().size()) + " inputs");
    }
    int64_t removed = 0;
    for (size_t i = specs.size(); i-- > 0;) {
      if (specs[i].kind != ir::InputKind::Parameter) continue;
      const std::string name(specs[i].name());
      if (name.empty() || graph.use_count(name) > 0) continue;
      graph.erase_input(i);
      graph.clear_meta(name);
      specs.erase(specs.begin() + static_cast<std::ptrdiff_t>(i));
      ep.state.erase_placeholder(name);
      ctx.stat("parameters_removed");
      ++removed;
    }
    return removed > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_unused_parameters_pass() {
  return std::make_unique<RemoveUnusedParameters>();
}

}  // namespace pteforge::passes
