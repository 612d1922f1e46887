// remove_pytree_pairs: removes needless pytree flatten/unflatten pairs
// between two consecutive module calls.
//
// When all outputs of one outlined module call feed the next module call, in
// order, and go nowhere else, the next call takes the first call's result
// directly and the tree_flatten_spec / getitem / tree_unflatten nodes between
// them disappear. Mirrors torch/export/_swap.py _try_remove_connecting_pytrees
// (seed 004), with two extra conditions that the seed lacks (every output of
// the first call must be passed on — an unused output blocks it — and the
// second call's flat inputs must be exactly those outputs in order); the full
// list is in passes/module_swap/pytree_pairs.h. Dead pytree nodes are erased.
//
// Preconditions: outline_modules ran (a graph without module calls is left
// unchanged).
//
// Before:
//   %foo = pteforge.call_module(@foo, %getitem_1)
//   %tree_flatten_spec = pteforge.tree_flatten_spec(%foo, spec='...')
//   %mul = _operator.getitem(%tree_flatten_spec, 0)
//   %tree_unflatten_1 = pteforge.tree_unflatten(%mul, spec='...')
//   %getitem_3 = _operator.getitem(%tree_unflatten_1, 0)
//   %getitem_4 = _operator.getitem(%getitem_3, 0)
//   %bar = pteforge.call_module(@bar, %getitem_4)
// After:
//   %foo = pteforge.call_module(@foo, %getitem_1)
//   %bar = pteforge.call_module(@bar, %foo)
#include "passes/module_swap/pytree_pairs.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

class RemovePytreePairs final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_pytree_pairs",
                                "remove needless pytree flatten/unflatten pairs between module calls", "swap"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    PTEFORGE_ASSIGN_OR_RETURN(size_t removed, module_swap::remove_pytree_pairs(ep.graph()));
    if (removed) ctx.stat("pairs_removed", static_cast<int64_t>(removed));
    return removed > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_pytree_pairs_pass() { return std::make_unique<RemovePytreePairs>(); }

}  // namespace pteforge::passes
