// replace_view_ops_with_copy: every aliasing ATen view op becomes its `_copy`
// twin with the same overload (view → view_copy, permute → permute_copy,
// t → t_copy, select.int → select_copy.int, split.Tensor → split_copy.Tensor,
// expand, slice, squeeze, unsqueeze, transpose, alias, unfold, as_strided,
// unbind, diagonal, ...), in the graph and in nested graphs.
//
// Mirrors ExecuTorch's ReplaceViewOpsWithViewCopyOpsPass together with the
// pre-op-replace NormalizeTransposePass and ReplaceBrokenOpsWithFunctionalOps
// (executorch-pipeline.md §1.2 steps 5, 6.2, 6.3; §4.5): an op is a view when
// its namespace is `aten` and its first argument carries a non-writing alias
// annotation (`Tensor(a) self`), torch's is_view_op rule. Special cases:
// `_unsafe_view` → `view_copy`, `squeeze_.dim` → `squeeze_copy.dim`, and
// `contiguous` is kept. A view op without a `_copy` twin is an error, as in
// torch.
//
// The results of the copies are freshly allocated, so their TensorMeta gets
// contiguous strides and storage offset 0 (what ExecuTorch's retrace of the
// `_copy` op yields, and what the TensorSpec dim order is later computed from,
// §5.2). The retrace also refreshes ops that take their layout from their
// inputs: a pointwise op (tag `pointwise`), or clone/_to_copy/*_like with
// preserve_format, whose tensor inputs are now all contiguous produces a
// contiguous result; such results get contiguous strides too (in graph
// order, so chains follow). Other ops keep the exported strides.
// Preconditions: Core ATen graph.
//
// Before:  %permute = aten.permute.default(%p_w, [1, 0])      # strides [1, 8]
// After:   %permute = aten.permute_copy.default(%p_w, [1, 0]) # strides [8, 1]
#include <optional>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "support/name_map.h"

namespace pteforge::passes {
namespace {

/// torch's is_view_op: the first argument has a non-writing alias annotation.
bool is_aten_view(const ops::OpSchema& op) {
  if (op.ns != "aten" || op.arguments.empty()) return false;
  const auto& alias = op.arguments[0].type.alias;
  return alias.has_value() && !alias->is_write;
}

/// The replacement target for `target`, "" when the node stays, or an error.
Result<std::string> copy_target(const ir::OpTarget& target, const ir::Node& node, const PassContext& ctx) {
  std::string_view name = target.short_name();
  if (name == "aten._unsafe_view.default") return std::string("torch.ops.aten.view_copy.default");
  if (name == "aten.squeeze_.dim") return std::string("torch.ops.aten.squeeze_copy.dim");
  if (name == "aten.contiguous.default") return std::string();
  const ops::OpSchema* op = target_schema(target);
  if (!op || !is_aten_view(*op)) return std::string();
  const ops::OpSchema* twin = ops::op_table().copy_variant(*op);
  if (!twin) twin = ops::op_table().find(op->ns, op->name + "_copy", op->overload);
  if (!twin) {
    return ctx.error_at(ErrorCode::UNSUPPORTED_OPERATOR,
                        "view op " + op->full_name() + " has no _copy variant (expected " + op->ns + "::" +
                            op->name + "_copy" + (op->overload.empty() ? "" : "." + op->overload) + ")",
                        node);
  }
  return twin->torch_name();
}

/// True for ops whose result layout follows their tensor inputs' layout.
bool follows_input_layout(const ir::Node& node) {
  const ops::OpSchema* op = node_schema(node);
  if (!op) return false;
  if (op->has_tag(ops::Tag::Pointwise)) return true;
  const bool preserving = op->name == "clone" || op->name == "_to_copy" ||
                          (op->name.size() > 5 && op->name.compare(op->name.size() - 5, 5, "_like") == 0);
  if (!preserving || !op->find_argument("memory_format")) return false;
  const ir::Argument* mf = node.input("memory_format");
  return !mf || mf->is_none() ||
         (mf->is<ir::ArgTag::MemoryFormat>() &&
          mf->get<ir::ArgTag::MemoryFormat>() == ir::MemoryFormat::PreserveFormat);
}

/// Gives layout-following results contiguous strides when all their tensor
/// inputs are contiguous and they are not. Returns how many changed.
int64_t refresh_layouts(ir::Graph& graph) {
  int64_t refreshed = 0;
  for (ir::Node& node : graph) {
    const std::string* out = node.single_output();
    if (!out || !follows_input_layout(node)) continue;
    const ir::TensorMeta* meta = graph.tensor_meta(*out);
    if (!meta || edge::is_contiguous_layout(*meta).value_or(true)) continue;
    bool inputs_contiguous = true;
    for (const auto& in : node.inputs()) {
      ir::for_each_value_name(in.arg, [&](const std::string& name, ir::ValueKind kind) {
        if (kind != ir::ValueKind::Tensor) return;
        const ir::TensorMeta* m = graph.tensor_meta(name);
        if (!m || !edge::is_contiguous_layout(*m).value_or(false)) inputs_contiguous = false;
      });
    }
    if (!inputs_contiguous) continue;
    graph.set_tensor_meta(*out, edge::with_contiguous_strides(*meta));
    ++refreshed;
  }
  return refreshed;
}

class ReplaceViewOpsWithCopy final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"replace_view_ops_with_copy",
                                "replace view ops with their _copy twins (view -> view_copy)", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t replaced = 0;
    int64_t refreshed = 0;
    // Each interned target's twin (nullopt: not replaced), found once per
    // operator instead of once per node; keyed by the target's interned text.
    PtrMap<const char, std::optional<ir::OpTarget>> twins;
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) {
      int64_t replaced_here = 0;
      for (ir::Node& node : *graph) {
        if (node.target().kind() != ir::TargetKind::Operator) continue;
        auto known = twins.find(node.target().str().data());
        if (known == twins.end()) {
          PTEFORGE_ASSIGN_OR_RETURN(std::string twin, copy_target(node.target(), node, ctx));
          std::optional<ir::OpTarget> t;
          if (!twin.empty() && twin != node.target().str()) t = ir::OpTarget(twin);
          known = twins.emplace(node.target().str().data(), std::move(t)).first;
        }
        if (!known->second) continue;
        node.set_target(*known->second);
        for (std::string_view out : node.output_names()) {
          if (const ir::TensorMeta* m = graph->tensor_meta(out)) {
            graph->set_tensor_meta(out, edge::with_contiguous_strides(*m));
          }
        }
        ++replaced;
        ++replaced_here;
      }
      if (replaced_here) refreshed += refresh_layouts(*graph);
    }
    if (replaced) ctx.stat("views_replaced", replaced);
    if (refreshed) ctx.stat("layouts_refreshed", refreshed);
    return replaced > 0;
  }
};

}  // namespace

std::unique_ptr<Pass> make_replace_view_ops_with_copy_pass() {
  return std::make_unique<ReplaceViewOpsWithCopy>();
}

}  // namespace pteforge::passes
