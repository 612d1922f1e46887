// remove_graph_asserts: deletes runtime assertion and range-constraint nodes
// (`_assert_async.msg`, `_assert_scalar.default`,
// `sym_constrain_range_for_size.default`, `sym_constrain_range.default`,
// `_assert_tensor_metadata.default`), then removes the dead code they leave
// (e.g. the sym_size / comparison nodes that only fed an assert).
// Mirrors ExecuTorch's RemoveGraphAssertsPass (executorch-pipeline.md §1.3 B6).
//
// Before: %ge = executorch_prim.ge.Scalar(%s, 2)
//         aten._assert_scalar.default(%ge, 'Runtime assertion failed')
// After:  (both gone)
#include <string_view>

#include "ir/graph.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

bool is_assert(const ir::OpTarget& t) {
  if (t.kind() != ir::TargetKind::Operator) return false;
  static constexpr std::string_view kAsserts[] = {
      "aten._assert_async.msg",
      "aten._assert_scalar.default",
      "aten.sym_constrain_range_for_size.default",
      "aten.sym_constrain_range.default",
      "aten._assert_tensor_metadata.default",
  };
  for (std::string_view a : kAsserts) {
    if (t.short_name() == a) return true;
  }
  return false;
}

class RemoveGraphAsserts final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_graph_asserts", "remove runtime assertion nodes", "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    int64_t removed = 0;
    for (ir::Node* node : graph.node_snapshot()) {
      if (!is_assert(node->target())) continue;
      Status st = graph.erase(*node);
      if (!st.ok()) {
        return ctx.error_at(ErrorCode::PASS_FAILED,
                            "cannot remove " + std::string(node->target().short_name()) +
                                ": its result is still used (" + st.error().message + ")",
                            *node);
      }
      ++removed;
    }
    if (removed) ctx.stat("asserts_removed", removed);
    PTEFORGE_ASSIGN_OR_RETURN(bool dce, run_dead_code_elimination(ep, ctx));
    return removed > 0 || dce;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_graph_asserts_pass() { return std::make_unique<RemoveGraphAsserts>(); }

}  // namespace pteforge::passes
