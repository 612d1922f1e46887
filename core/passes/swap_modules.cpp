// swap_modules: replaces preserved submodules with user-supplied exported
// programs (design.md pipeline step 3; torch/export/_swap.py, seed 004).
//
// A no-op unless PipelineOptions::swaps names modules of this method
// (SwapRequest::method "" or the method's name). Otherwise it runs the
// registered sub-passes in order:
//   outline_modules -> legalize -> remove_pytree_pairs -> replace_modules
//   -> inline_modules -> legalize
// on the same program, with the applicable swaps as their options (their
// counters are reported under swap_modules, prefixed with the sub-pass name,
// e.g. "replace_modules.state_added"; errors name the sub-pass in
// where.pass). The first `legalize` is the registered pass (passes/legalize.h:
// torch.fx legalize_graph order, as the seed runs it on the graph with the
// module calls). The last one sorts with the stable order: the seed never
// legalizes the swapped module's insides (an eager module, traced at its call
// site when the result is exported again), so the inlined bodies stay where
// their calls were instead of having their weight permutes hoisted.
// With PipelineOptions::verify_each the IR verifier runs after every
// sub-pass. The result is a flat graph with the replacements' nodes and
// state, ready for the to_edge passes.
//
// Preconditions: the requested modules have preserved call signatures; each
// replacement is imported, its state bound, and it has been through the
// passes before swap_modules (passes::prepare_replacement).
//
// Before: %tanh = aten.tanh.default(%addmm_1)   # module '1': Linear + Tanh
// After:  %tanh = aten.addmm.default(%p_1_fc2_bias, %relu, %permute_2)   # the replacement's ReLU MLP
#include <map>
#include <string>
#include <vector>

#include "passes/legalize.h"
#include "passes/module_swap/replace.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"

namespace pteforge::passes {
namespace {

class SwapModules final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"swap_modules", "replace preserved submodules with user-supplied exported programs",
                                "swap"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    PipelineOptions sub_options = ctx.options();
    sub_options.swaps = module_swap::swaps_for_method(ctx.options().swaps, ctx.method());
    sub_options.outline_modules.clear();
    if (sub_options.swaps.empty()) return false;
    PTEFORGE_TRY(module_swap::check_swap_requests(sub_options.swaps));
    struct Step {
      const char* name;
      bool stable;  ///< legalize with the stable order instead of the registered pass
    };
    // The registered steps in kSwapModuleSteps' order (check_pass_order ranks them by it).
    static const Step kSteps[] = {{kSwapModuleSteps[0].data(), false}, {"legalize", false},
                                  {"remove_pytree_pairs", false},      {kSwapModuleSteps[1].data(), false},
                                  {kSwapModuleSteps[2].data(), false}, {"legalize", true}};
    PassContext sub(sub_options, ctx.state());
    bool changed = false;
    for (const Step& s : kSteps) {
      const char* step = s.name;
      sub.set_pass_name(step);
      Result<bool> r = false;
      if (s.stable) {
        r = legalize_graph(ep.graph(), LegalizeOrder::Stable);
      } else {
        const RegisteredPass* reg = find_pass(step);
        if (!reg || !reg->factory) {
          return make_error(ErrorCode::INTERNAL, std::string("swap_modules: sub-pass ") + step + " is not registered");
        }
        std::unique_ptr<Pass> pass = reg->factory();
        r = pass->run(ep, sub);
      }
      for (const auto& [k, v] : sub.take_stats()) ctx.stat(std::string(step) + "." + k, v);
      for (auto& d : sub.diagnostics()) ctx.diagnostics().push_back(std::move(d));
      sub.diagnostics().clear();
      if (!r.ok()) {
        Error e = std::move(r).error();
        if (!e.where.pass) e.where.pass = std::string(step);
        return e;
      }
      changed |= r.value();
      if (sub_options.verify_each) {
        Status st = verify_after_pass(ep, step);
        if (!st.ok()) return std::move(st).error();
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_swap_modules_pass() { return std::make_unique<SwapModules>(); }

}  // namespace pteforge::passes
