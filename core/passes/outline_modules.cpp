// outline_modules: fuses the nodes of preserved submodules into module calls.
//
// For each requested module FQN (PipelineOptions::outline_modules, else the
// modules of PipelineOptions::swaps), the nodes whose nn_module_stack
// contains that path move into a body graph called by a
// `pteforge.call_module` node; the module's inputs are rebuilt from its
// preserved call signature's in_spec (`pteforge.tree_unflatten` + getitems)
// and its outputs deconstructed by its out_spec (`pteforge.tree_flatten_spec`
// + getitems). Mirrors torch/export/_swap.py (_swap_module_helper,
// _construct_inputs, _deconstruct_outputs; seed 004); the IR forms are
// documented in passes/module_swap/pytree_ir.h. Nested modules are outlined
// before the modules containing them; the graph ends in topological order.
//
// Preconditions: every requested module has a preserved call signature
// (export with preserve_module_call_signature), is called once, and its
// nodes are convex. Errors: MODULE_SWAP / UNSUPPORTED_FEATURE / OPTION_INVALID
// (see module_swap/partition.h and outline.h).
//
// Before (module "foo" = the add):
//   %add = aten.add.Tensor(%y, %x)          # nn_module_stack: foo
//   %sub = aten.sub.Tensor(%y, %add)
// After:
//   %tree_unflatten = pteforge.tree_unflatten(%y, %x, spec='...')
//   %getitem = _operator.getitem(%tree_unflatten, 0)
//   %getitem_1 = _operator.getitem(%getitem, 0)
//   %getitem_2 = _operator.getitem(%getitem, 1)
//   %foo = pteforge.call_module(@foo, %getitem_1, %getitem_2)
//       @foo = graph(%y, %x): %add = aten.add.Tensor(%y, %x); return (%add)
//   %tree_flatten_spec = pteforge.tree_flatten_spec(%foo, spec='...')
//   %add = _operator.getitem(%tree_flatten_spec, 0)
//   %sub = aten.sub.Tensor(%y, %add)
#include "passes/module_swap/outline.h"
#include "passes/module_swap/replace.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class OutlineModules final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"outline_modules", "fuse the nodes of preserved submodules into module calls", "swap"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    std::vector<std::string> fqns = ctx.options().outline_modules;
    if (fqns.empty()) {
      for (const auto& s : module_swap::swaps_for_method(ctx.options().swaps, ctx.method())) fqns.push_back(s.fqn);
    }
    if (fqns.empty()) return false;
    PTEFORGE_ASSIGN_OR_RETURN(module_swap::OutlineTotals t, module_swap::outline_modules(ep, fqns));
    ctx.stat("modules_outlined", static_cast<int64_t>(t.modules));
    ctx.stat("nodes_outlined", static_cast<int64_t>(t.nodes_moved));
    if (t.nodes_hoisted) ctx.stat("nodes_hoisted", static_cast<int64_t>(t.nodes_hoisted));
    ctx.stat("values_captured", static_cast<int64_t>(t.captured));
    return t.modules > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_outline_modules_pass() { return std::make_unique<OutlineModules>(); }

}  // namespace pteforge::passes
