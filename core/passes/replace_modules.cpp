// replace_modules: substitutes outlined submodules with replacement programs.
//
// For each PipelineOptions::swaps request, the body of the module's
// call_module becomes the replacement program's graph (its user inputs
// receive the module's flat inputs, its user outputs become the module's
// outputs), after checking that the call signatures match (in_spec,
// out_spec, input/output kinds, dtypes and shapes, or compatible symbolic
// shapes). The replacement's parameters, buffers and constants join the
// program under the module's prefix (`encoder.layer.1.fc.weight`), with
// their bound payloads (StateBinding, storages labelled with the source
// input); the old module's state that nothing else reads leaves. Mirrors the
// swap of torch/export/_swap.py (seed 004), where the swapped module is an
// eager nn.Module; here it is an exported program (details in
// passes/module_swap/replace.h).
//
// Preconditions: outline_modules ran for every requested module.
// Errors: MODULE_SWAP naming what differs; UNSUPPORTED_FEATURE;
// WEIGHTS_MISSING (replacement state not bound while the program's is).
//
// Before:  %_1 = pteforge.call_module(@1, %getitem_1, captured={'p_1_0_weight': %p_1_0_weight, ...})
//              @1 = graph(%mul, %p_1_0_weight, ...): ... tanh ...
// After:   %_1 = pteforge.call_module(@1, %getitem_1, captured={'p_fc1_weight': %p_1_fc1_weight, ...})
//              @1 = graph(%x, %p_fc1_weight, ...): ... relu ...
#include "passes/module_swap/replace.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class ReplaceModules final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"replace_modules", "substitute outlined submodules with replacement programs", "swap"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    const std::vector<SwapRequest> swaps = module_swap::swaps_for_method(ctx.options().swaps, ctx.method());
    if (swaps.empty()) return false;
    PTEFORGE_ASSIGN_OR_RETURN(module_swap::ReplaceTotals t, module_swap::replace_modules(ep, swaps));
    ctx.stat("modules_replaced", static_cast<int64_t>(t.modules));
    ctx.stat("state_added", static_cast<int64_t>(t.state_added));
    ctx.stat("state_removed", static_cast<int64_t>(t.state_removed));
    if (t.symbols_bound) ctx.stat("symbols_bound", static_cast<int64_t>(t.symbols_bound));
    return t.modules > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_replace_modules_pass() { return std::make_unique<ReplaceModules>(); }

}  // namespace pteforge::passes
