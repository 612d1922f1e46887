// inline_modules: inlines module calls back into a flat graph.
//
// Every `pteforge.call_module` is replaced by the nodes of its body, wired to
// the values its (pytree-packed) arguments stand for; the pytree nodes
// around it disappear. Body values keep their names unless the graph already
// uses them (then name_1, ...), and each module output keeps the name of the
// value it stood for, so graph outputs, the signature and module_call_graph
// keep naming the same values: outline_modules followed by inline_modules
// gives back the original graph. Afterwards the graph can be lowered and
// emitted like any other (no module-swap node remains). Details in
// passes/module_swap/inline.h; there is no ExecuTorch counterpart (the seed
// keeps an fx.GraphModule with submodules; we need a flat program).
//
// Preconditions: none (a graph without module calls is unchanged).
//
// Before:  %_1 = pteforge.call_module(@1, %mul, captured={'p_w': %p_1_w})
//              @1 = graph(%x, %p_w): %relu = aten.relu.default(%x) ...
//          %tree_flatten_spec = pteforge.tree_flatten_spec(%_1, spec='...')
//          %tanh = _operator.getitem(%tree_flatten_spec, 0)
// After:   %relu = aten.relu.default(%mul) ...   (the body's last value is named %tanh)
#include "passes/module_swap/inline.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class InlineModules final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"inline_modules", "inline module calls back into a flat graph", "swap"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    PTEFORGE_ASSIGN_OR_RETURN(module_swap::InlineTotals t, module_swap::inline_modules(ep));
    if (t.calls == 0 && t.pytree_nodes_removed == 0) return false;
    ctx.stat("calls_inlined", static_cast<int64_t>(t.calls));
    ctx.stat("nodes_inlined", static_cast<int64_t>(t.nodes_inlined));
    if (t.nodes_renamed) ctx.stat("values_renamed", static_cast<int64_t>(t.nodes_renamed));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> make_inline_modules_pass() { return std::make_unique<InlineModules>(); }

}  // namespace pteforge::passes
