// edge_to_backend_ops: Python symbolic-scalar arithmetic becomes ExecuTorch
// prim ops, which the runtime's prim-op library executes (§3.8).
// Mirrors ExecuTorch's EdgeToBackendOpsPass (executorch-pipeline.md §1.3 B5,
// mapping `_PYTHON_SYM_OPS_TO_EXECUTORCH_SYM_OPS` in prim_ops.md):
//   _operator.{add, sub, mul, floordiv, truediv, eq, gt, lt, ge, le, mod, neg},
//   math.{ceil, trunc}, builtins.round,
//   torch.{sym_float, sym_int, sym_max, sym_min, sym_not, sym_ite}
//   → executorch_prim.<name>.Scalar
// The arguments stay positional and take the prim schema's names (a, b; for
// sym_ite b, t, f). Other `_operator` targets (getitem, pow, ...) are left
// alone. ExecuTorch also swaps op overloads that have a registered backend
// dialect twin; no such twins exist without a backend, so that half is a no-op.
//
// Before: %mul = _operator.mul(%sym_size_int_1, 4)
// After:  %mul = executorch_prim.mul.Scalar(%sym_size_int_1, 4)
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// The executorch_prim op name for a Python symbolic target, or "".
std::string_view prim_name(const ir::OpTarget& t) {
  struct Entry {
    std::string_view module;
    std::string_view fn;
    std::string_view prim;
  };
  static constexpr Entry kMap[] = {
      {"_operator", "add", "add"},           {"_operator", "sub", "sub"},
      {"_operator", "mul", "mul"},           {"_operator", "floordiv", "floordiv"},
      {"_operator", "truediv", "truediv"},   {"_operator", "eq", "eq"},
      {"_operator", "gt", "gt"},             {"_operator", "lt", "lt"},
      {"_operator", "ge", "ge"},             {"_operator", "le", "le"},
      {"_operator", "mod", "mod"},           {"_operator", "neg", "neg"},
      {"math", "ceil", "ceil"},              {"math", "trunc", "trunc"},
      {"builtins", "round", "round"},        {"torch", "sym_float", "sym_float"},
      {"torch", "sym_int", "sym_int"},       {"torch", "sym_max", "sym_max"},
      {"torch", "sym_min", "sym_min"},       {"torch", "sym_not", "sym_not"},
      {"torch", "sym_ite", "sym_ite"},
  };
  std::string_view module = t.ns();
  if (module == "operator") module = "_operator";
  for (const Entry& e : kMap) {
    if (e.module == module && e.fn == t.op()) return e.prim;
  }
  return {};
}

class EdgeToBackendOps final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"edge_to_backend_ops", "turn symbolic scalar arithmetic into executorch_prim ops",
                                "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t replaced = 0;
    for (ir::Node& node : ep.graph()) {
      switch (node.target().kind()) {
        case ir::TargetKind::PythonOperator:
        case ir::TargetKind::Math:
        case ir::TargetKind::TorchFunction:
        case ir::TargetKind::Other:
          break;
        default:
          continue;
      }
      std::string_view prim = prim_name(node.target());
      if (prim.empty()) continue;
      std::string full = "torch.ops.executorch_prim." + std::string(prim) + ".Scalar";
      const ops::OpSchema* schema = ops::op_table().find(full);
      if (!schema) {
        return ctx.error_at(ErrorCode::INTERNAL, "the operator table has no " + full, node);
      }
      std::vector<ir::NamedArgument> inputs = node.inputs();
      if (inputs.size() != schema->arguments.size()) {
        return ctx.error_at(ErrorCode::PASS_FAILED,
                            std::string(node.target().str()) + " has " + std::to_string(inputs.size()) +
                                " arguments but " + schema->full_name() + " takes " +
                                std::to_string(schema->arguments.size()),
                            node);
      }
      for (size_t i = 0; i < inputs.size(); ++i) {
        inputs[i].name = schema->arguments[i].name;
        inputs[i].kind = ir::ArgumentKind::Positional;
      }
      node.set_target(ir::OpTarget(full));
      node.set_inputs(std::move(inputs));
      ++replaced;
    }
    if (replaced) ctx.stat("ops_replaced", replaced);
    return replaced > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_edge_to_backend_ops_pass() { return std::make_unique<EdgeToBackendOps>(); }

}  // namespace pteforge::passes
