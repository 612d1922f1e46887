// Helpers shared by the to_executorch passes (see lowering_util.h).
#include "passes/lowering_util.h"

#include <string_view>

#include "ir/target.h"
#include "ir/verifier.h"
#include "ops/op_table.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {

const ir::OpTarget& memory_alloc_target() {
  static const ir::OpTarget t(kMemoryAlloc);
  return t;
}

const ir::OpTarget& memory_view_target() {
  static const ir::OpTarget t(kMemoryView);
  return t;
}

bool is_memory_alloc(const ir::Node& node) { return node.target() == memory_alloc_target(); }
bool is_memory_view(const ir::Node& node) { return node.target() == memory_view_target(); }

const ops::OpSchema* target_schema(const ir::OpTarget& target) {
  thread_local ir::TargetMemo<const ops::OpSchema*> schemas;
  return schemas.get(target, [&target] { return ops::op_table().find(target.str()); });
}

Error higher_order_error(const ir::Node& node) {
  return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                    "higher-order op " + std::string(node.target().str()) +
                        " (delegate calls and control flow) cannot be emitted yet",
                    ir::node_location(node));
}

const ops::OpSchema* node_schema(const ir::Node& node) {
  if (node.target().kind() != ir::TargetKind::Operator) return nullptr;
  return target_schema(node.target());
}

bool is_symbolic_op(const ir::OpTarget& target) {
  if (target.kind() != ir::TargetKind::Operator) return false;
  if (target.ns() == "executorch_prim") return true;
  static constexpr std::string_view kSymOps[] = {
      "aten.sym_size.int",
      "aten.sym_stride.int",
      "aten.sym_numel.default",
      "aten._local_scalar_dense.default",
      "aten.sym_constrain_range_for_size.default",
      "aten.sym_constrain_range.default",
  };
  for (std::string_view s : kSymOps) {
    if (target.short_name() == s) return true;
  }
  return false;
}

bool passed_by_keyword(const ir::NamedArgument& in, const ops::OpSchema* schema) {
  if (in.kind) return *in.kind == ir::ArgumentKind::Keyword;
  const ops::Argument* a = schema ? schema->find_argument(in.name) : nullptr;
  return a && a->kwarg_only;
}

bool is_inplace_node(const ir::Node& node) {
  const ops::OpSchema* s = node_schema(node);
  return s && s->is_inplace();
}

bool is_out_variant_node(const ir::Node& node) {
  const ops::OpSchema* s = node_schema(node);
  return s && s->is_out_variant();
}

Result<bool> run_dead_code_elimination(ir::ExportedProgram& ep, PassContext& ctx) {
  std::unique_ptr<Pass> dce = make_eliminate_dead_code_pass();
  return dce->run(ep, ctx);
}

std::vector<std::string> tensor_names(const ir::Argument& arg) {
  std::vector<std::string> names;
  ir::for_each_value_name(arg, [&](const std::string& name, ir::ValueKind kind) {
    if (kind == ir::ValueKind::Tensor) names.push_back(name);
  });
  return names;
}

bool has_tensor_name(const ir::Argument& arg) {
  bool any = false;
  for_each_tensor_name(arg, [&any](const std::string&) { any = true; });
  return any;
}

}  // namespace pteforge::passes
