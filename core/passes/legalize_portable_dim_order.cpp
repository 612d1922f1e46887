// legalize_portable_dim_order: the portable kernels of `_adaptive_avg_pool2d`,
// `avg_pool2d`, `expand_copy`, `mean.dim` and `sum.dim_IntList` need their
// primary input in the default (contiguous) dim order. When that input's dim
// order (from its traced strides, §5.2) is not 0..n-1, a
// `dim_order_ops._to_dim_order_copy.default(x, dim_order=[0, ..., n-1])` is
// inserted in front of the op and the op reads the copy instead.
// Mirrors ExecuTorch's LegalizePortableDimOrderPass (executorch-pipeline.md
// §1.3 B2, §4.4). The copy takes over the input's origin and metadata (and
// debug handle), as ExecuTorch builds it from the input node's meta.
// ExecuTorch's pass re-traces the op on the copy, and SpecPropPass re-traces
// the whole graph after it (§1.3 B3), so the op's result and everything
// computed from it take the layout the contiguous copy gives (the portable
// avg_pool2d kernel refuses an output whose dim order differs from its
// input's). Here the strides of each tensor a node computes from a changed
// value are inferred again (decomp::infer_meta); sizes and dtypes stay as
// declared, and an op without a rule keeps its declared strides.
//
// Before: %mean = aten.mean.dim(%x, [2, 3], True)          # x channels-last
// After:  %_to_dim_order_copy = dim_order_ops._to_dim_order_copy.default(%x, dim_order=[0, 1, 2, 3])
//         %mean = aten.mean.dim(%_to_dim_order_copy, [2, 3], True)   # contiguous, as its users
#include <cstdint>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "passes/decompositions/args.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/tensor_spec.h"
#include "support/checked_math.h"

namespace pteforge::passes {
namespace {

bool is_target_op(const ir::OpTarget& t) {
  static constexpr std::string_view kOps[] = {
      "aten._adaptive_avg_pool2d.default", "aten.avg_pool2d.default", "aten.expand_copy.default",
      "aten.mean.dim",                      "aten.sum.dim_IntList",
  };
  for (std::string_view op : kOps) {
    if (t.short_name() == op) return true;
  }
  return false;
}

/// The dim order of a traced tensor (strides by their hints); nullopt when a
/// stride is unknown.
std::optional<std::vector<uint8_t>> traced_dim_order(const ir::TensorMeta& meta) {
  if (meta.strides.size() != meta.sizes.size()) return std::nullopt;
  std::vector<int64_t> strides;
  for (const ir::SymInt& s : meta.strides) {
    auto h = sym_hint(s);
    if (!h) return std::nullopt;
    strides.push_back(*h);
  }
  return dim_order_from_strides(strides);
}

class LegalizePortableDimOrder final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"legalize_portable_dim_order",
                                "make inputs of layout-sensitive portable ops contiguous", "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    int64_t inserted = 0;
    std::unordered_set<std::string> changed;  // the copies: values whose layout this pass changed
    for (ir::Node* node : graph.node_snapshot()) {
      if (!is_target_op(node->target()) || node->inputs().empty()) continue;
      const ir::Argument& first = node->inputs().front().arg;
      if (!first.is_tensor()) continue;
      const std::string input = first.tensor_name();
      const ir::TensorMeta* meta = graph.tensor_meta(input);
      if (!meta) continue;
      auto order = traced_dim_order(*meta);
      if (!order) continue;
      std::vector<uint8_t> identity(order->size());
      std::iota(identity.begin(), identity.end(), uint8_t{0});
      if (*order == identity) continue;

      std::vector<int64_t> contiguous(order->size());
      std::iota(contiguous.begin(), contiguous.end(), int64_t{0});
      std::string name = graph.unique_name("_to_dim_order_copy");
      ir::Node copy(ir::OpTarget("torch.ops.dim_order_ops._to_dim_order_copy.default"),
                    {ir::positional("self", ir::arg_tensor(input)),
                     ir::keyword("dim_order", ir::arg_ints(std::move(contiguous)))},
                    {ir::arg_tensor(name)}, name);
      ir::Node* source = graph.producer(input);
      copy.inherit_from(source ? *source : *node);
      ir::Node& inserted_node = graph.insert_before(*node, std::move(copy));
      if (source) {
        auto h = ctx.state().debug_handles.find(source);
        if (h != ctx.state().debug_handles.end()) {
          const int64_t handle = h->second;  // read before the insertion may rehash
          ctx.state().debug_handles[&inserted_node] = handle;
        }
      }

      ir::TensorMeta out = *meta;
      out.strides = contiguous_sym_strides_for(out.sizes);
      graph.set_tensor_meta(name, std::move(out));
      node->set_input(0, ir::arg_tensor(name));
      changed.insert(name);
      ++inserted;
    }
    if (inserted) {
      ctx.stat("copies_inserted", inserted);
      PTEFORGE_ASSIGN_OR_RETURN(int64_t restrided, retrace_strides(ep, std::move(changed)));
      if (restrided) ctx.stat("layouts_updated", restrided);
    }
    return inserted > 0;
  }

 private:
  /// Infers again the strides of every tensor computed from a value in
  /// `changed` (and, transitively, from those it changes), in graph order;
  /// returns how many tensors changed layout. Sizes, dtype and the rest of
  /// the metadata stay as declared; an op without a stride rule (or whose
  /// outputs do not pair with the rule's results) keeps its strides.
  static Result<int64_t> retrace_strides(ir::ExportedProgram& ep, std::unordered_set<std::string> changed) {
    decomp::SymbolTable symbols;
    symbols.scan(ep);
    ir::Graph& graph = ep.graph();
    decomp::Env env(graph, symbols);
    int64_t updated = 0;
    for (ir::Node* node = graph.first_node(); node; node = graph.next(*node)) {
      if (node->target().kind() != ir::TargetKind::Operator) continue;
      bool reads_changed = false;
      for (const ir::NamedArgument& in : node->inputs()) {
        for_each_tensor_name(
            in.arg, [&](const std::string& n) { reads_changed = reads_changed || changed.count(n); });
      }
      if (!reads_changed) continue;
      const ops::OpSchema* schema = target_schema(node->target());
      if (!schema) continue;
      decomp::ArgView args(schema, node->inputs(), env);
      Result<std::vector<decomp::Meta>> metas = decomp::infer_meta(*schema, args, symbols);
      if (!metas.ok()) continue;
      for (const decomp::NodeOutputMeta& o : decomp::pair_outputs(*node, metas->size())) {
        PTEFORGE_ASSIGN_OR_RETURN(decomp::Meta declared, env.meta(o.name));
        const std::vector<decomp::SymPoly>& strides = (*metas)[o.meta_index].strides;
        if (declared.strides == strides || strides.size() != declared.sizes.size()) continue;
        ir::TensorMeta meta = *graph.tensor_meta(o.name);  // only the strides change
        meta.strides.clear();
        for (const decomp::SymPoly& st : strides) meta.strides.push_back(symbols.to_symint(st));
        declared.strides = strides;
        env.set_meta(o.name, declared);  // keeps the environment's copy current
        graph.set_tensor_meta(o.name, std::move(meta));
        changed.insert(o.name);
        ++updated;
      }
    }
    return updated;
  }

  /// Contiguous strides of symbolic sizes: products of the trailing sizes,
  /// written as sympy Mul expressions when a factor is symbolic.
  static std::vector<ir::SymInt> contiguous_sym_strides_for(const std::vector<ir::SymInt>& sizes);
};

std::vector<ir::SymInt> LegalizePortableDimOrder::contiguous_sym_strides_for(const std::vector<ir::SymInt>& sizes) {
  std::vector<ir::SymInt> strides(sizes.size());
  int64_t constant = 1;
  std::vector<std::string> factors;  // symbolic factors, innermost first
  int64_t hint = 1;
  bool hinted = true;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (factors.empty()) {
      strides[i] = constant;
    } else {
      std::string expr = "Mul(Integer(" + std::to_string(constant) + ")";
      for (const std::string& f : factors) expr += ", " + f;
      expr += ")";
      if (constant == 1 && factors.size() == 1) expr = factors.front();
      ir::SymExpr e{expr, hinted ? std::optional<ir::SymExprHint>(ir::SymExprHint::of_int(hint)) : std::nullopt};
      strides[i] = ir::SymInt(std::move(e));
    }
    const ir::SymInt& s = sizes[i];
    auto h = sym_hint(s);
    if (s.is_symbolic()) {
      factors.push_back(s.expr().expr_str);
    } else {
      constant = saturating_mul(constant, s.value() > 0 ? s.value() : 1);
    }
    if (h) {
      hint = saturating_mul(hint, *h > 0 ? *h : 1);
    } else {
      hinted = false;
    }
  }
  return strides;
}

}  // namespace

std::unique_ptr<Pass> make_legalize_portable_dim_order_pass() { return std::make_unique<LegalizePortableDimOrder>(); }

}  // namespace pteforge::passes
