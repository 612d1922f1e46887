// legalize_portable_dim_order: the portable kernels of `_adaptive_avg_pool2d`,
// `avg_pool2d`, `expand_copy`, `mean.dim` and `sum.dim_IntList` need their
// primary input in the default (contiguous) dim order. When that input's dim
// order (from its traced strides, §5.2) is not 0..n-1, a
// `dim_order_ops._to_dim_order_copy.default(x, dim_order=[0, ..., n-1])` is
// inserted in front of the op and the op reads the copy instead.
// Mirrors ExecuTorch's LegalizePortableDimOrderPass (executorch-pipeline.md
// §1.3 B2, §4.4). The copy takes over the input's origin and metadata (and
// debug handle), as ExecuTorch builds it from the input node's meta.
// ExecuTorch's pass re-traces each op as it goes, and SpecPropPass re-traces
// the whole graph after it (§1.3 B3), so the op's result and everything
// computed from it take the layout the contiguous copy gives (the portable
// avg_pool2d and upsample kernels refuse an output whose dim order differs
// from their input's), and a later target op whose input is contiguous by
// then gets no copy. Here one walk in graph order does both: the strides of
// each tensor a node computes from a changed value are inferred again
// (decomp::infer_meta); for an op without a rule, a result that had the
// changed input's old dim order takes its new one (such ops follow their
// input's layout, as suggest_memory_format does). Sizes and dtypes stay as
// declared.
//
// Before: %mean = aten.mean.dim(%x, [2, 3], True)          # x channels-last
// After:  %_to_dim_order_copy = dim_order_ops._to_dim_order_copy.default(%x, dim_order=[0, 1, 2, 3])
//         %mean = aten.mean.dim(%_to_dim_order_copy, [2, 3], True)   # contiguous, as its users
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "passes/decompositions/args.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/edge_utils.h"
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
    Retrace retrace(ep);
    int64_t inserted = 0;
    // One walk in graph order, as ExecuTorch's pass visits each call with the
    // values it re-traced before: an op whose input an earlier copy already
    // made contiguous needs no copy of its own.
    for (ir::Node* node = graph.first_node(); node; node = graph.next(*node)) {
      if (is_target_op(node->target()) && !node->inputs().empty() && node->inputs().front().arg.is_tensor()) {
        const std::string input = node->inputs().front().arg.tensor_name();
        const ir::TensorMeta* meta = graph.tensor_meta(input);
        // Contiguous or not as torch's Tensor.dim_order() says (ExecuTorch
        // asks it): size-1 dims with out-of-order strides still are.
        auto torch_order = meta ? edge::torch_dim_order(*meta) : std::nullopt;
        auto order = meta ? traced_dim_order(*meta) : std::nullopt;
        if (torch_order && order && !is_identity(*torch_order)) {
          insert_copy(graph, *node, input, *meta, ctx);
          retrace.changed(node->inputs().front().arg.tensor_name(), *order);
          ++inserted;
        }
      }
      PTEFORGE_TRY(retrace.visit(*node));
    }
    if (inserted) ctx.stat("copies_inserted", inserted);
    if (retrace.updated()) ctx.stat("layouts_updated", retrace.updated());
    return inserted > 0;
  }

 private:
  template <typename T>
  static bool is_identity(const std::vector<T>& order) {
    for (size_t i = 0; i < order.size(); ++i) {
      if (static_cast<size_t>(order[i]) != i) return false;
    }
    return true;
  }

  /// Inserts `_to_dim_order_copy(input, dim_order=[0..n-1])` before `node`
  /// and makes `node` read it; the copy has `meta` with contiguous strides.
  static void insert_copy(ir::Graph& graph, ir::Node& node, const std::string& input, ir::TensorMeta meta,
                          PassContext& ctx) {
    std::vector<int64_t> contiguous(meta.sizes.size());
    std::iota(contiguous.begin(), contiguous.end(), int64_t{0});
    std::string name = graph.unique_name("_to_dim_order_copy");
    ir::Node copy(ir::OpTarget("torch.ops.dim_order_ops._to_dim_order_copy.default"),
                  {ir::positional("self", ir::arg_tensor(input)),
                   ir::keyword("dim_order", ir::arg_ints(std::move(contiguous)))},
                  {ir::arg_tensor(name)}, name);
    ir::Node* source = graph.producer(input);
    copy.inherit_from(source ? *source : node);
    ir::Node& inserted_node = graph.insert_before(node, std::move(copy));
    if (source) {
      auto h = ctx.state().debug_handles.find(source);
      if (h != ctx.state().debug_handles.end()) {
        const int64_t handle = h->second;  // read before the insertion may rehash
        ctx.state().debug_handles[&inserted_node] = handle;
      }
    }
    meta.strides = contiguous_sym_strides_for(meta.sizes);
    graph.set_tensor_meta(name, std::move(meta));
    node.set_input(0, ir::arg_tensor(name));
  }

  /// The layouts this pass changed, and the re-derivation of what is
  /// computed from them (the re-trace ExecuTorch's ExportPass and
  /// SpecPropPass make). The symbol table is built on the first change.
  class Retrace {
   public:
    explicit Retrace(ir::ExportedProgram& ep) : ep_(ep) {}

    /// Value `name` now has a new layout; `old_order` is the one it had.
    void changed(const std::string& name, std::vector<uint8_t> old_order) {
      old_order_.emplace(name, std::move(old_order));
    }
    int64_t updated() const { return updated_; }

    /// When `node` reads a changed value, its tensor results take the layout
    /// its inputs now give: decomp::infer_meta's strides where the op has a
    /// rule; else (layout-following ops without a rule, such as upsampling)
    /// a result that had the changed input's old dim order takes the input's
    /// new one. Sizes, dtype and the rest of the metadata stay as declared.
    Status visit(ir::Node& node) {
      if (old_order_.empty() || node.target().kind() != ir::TargetKind::Operator) return Status::Ok();
      const std::string* read = nullptr;  // the first changed tensor the node reads
      for (const ir::NamedArgument& in : node.inputs()) {
        for_each_tensor_name(in.arg, [&](const std::string& n) {
          if (!read && old_order_.count(n)) read = &n;
        });
      }
      if (!read) return Status::Ok();
      if (!env_) {
        symbols_.scan(ep_);
        env_.emplace(ep_.graph(), symbols_);
      }
      const ops::OpSchema* schema = target_schema(node.target());
      Result<std::vector<decomp::Meta>> metas = make_error(ErrorCode::UNSUPPORTED_OPERATOR, "no schema");
      if (schema)
        metas = decomp::infer_meta(*schema, decomp::ArgView(schema, node.inputs(), *env_), symbols_);
      std::vector<decomp::NodeOutputMeta> outs = metas.ok() ? decomp::pair_outputs(node, metas->size())
                                                            : decomp::pair_outputs(node, count_results(node));
      // A dim-order op (_to_dim_order_copy, _clone_dim_order) with a
      // dim_order makes its result in that order, whatever its input's
      // layout (ExecuTorch runs it as _to_copy / clone with the memory format
      // the order names); without one it keeps its input's, as preserve_format.
      const std::vector<int64_t>* asked = nullptr;
      if (node.target().ns() == "dim_order_ops") {
        if (const ir::Argument* d = node.input("dim_order")) asked = d->get_if<ir::ArgTag::Ints>();
      }
      for (const decomp::NodeOutputMeta& o : outs) {
        PTEFORGE_ASSIGN_OR_RETURN(decomp::Meta declared, env_->meta(o.name));  // the value has metadata
        const ir::TensorMeta& before = *ep_.graph().tensor_meta(o.name);
        std::vector<uint8_t> old_order = traced_dim_order(before).value_or(std::vector<uint8_t>{});
        std::vector<decomp::SymPoly> strides;
        if (asked) {
          if (asked->size() != declared.sizes.size()) continue;
          strides =
              decomp::strides_for_order(declared.sizes, std::vector<size_t>(asked->begin(), asked->end()));
        } else {
          strides =
              metas.ok() ? (*metas)[o.meta_index].strides : follow_input(*read, old_order, declared.sizes);
        }
        if (strides.empty() || strides.size() != declared.sizes.size() || declared.strides == strides)
          continue;
        ir::TensorMeta meta = before;  // only the strides change
        meta.strides.clear();
        for (const decomp::SymPoly& st : strides) meta.strides.push_back(symbols_.to_symint(st));
        declared.strides = strides;
        env_->set_meta(o.name, declared);  // keeps the environment's copy current
        ep_.graph().set_tensor_meta(o.name, std::move(meta));
        changed(o.name, std::move(old_order));
        ++updated_;
      }
      return Status::Ok();
    }

   private:
    /// Number of tensor results of `node` (a Tensor[] output counts each element).
    static size_t count_results(const ir::Node& node) {
      const auto& outputs = node.outputs();
      if (outputs.size() == 1 && outputs[0].is<ir::ArgTag::Tensors>()) {
        return outputs[0].get<ir::ArgTag::Tensors>().size();
      }
      return outputs.size();
    }

    /// Strides for a result of `sizes` in the new layout of `input` when the
    /// result's dim order `out_order` was `input`'s old one (same rank); empty otherwise.
    std::vector<decomp::SymPoly> follow_input(const std::string& input, const std::vector<uint8_t>& out_order,
                                              const std::vector<decomp::SymPoly>& sizes) const {
      const std::vector<uint8_t>& old_order = old_order_.at(input);
      const ir::TensorMeta* in = ep_.graph().tensor_meta(input);
      if (!in || old_order.size() != sizes.size() || out_order != old_order) return {};
      auto in_order = traced_dim_order(*in);
      if (!in_order || in_order->size() != sizes.size()) return {};
      return decomp::strides_for_order(sizes, std::vector<size_t>(in_order->begin(), in_order->end()));
    }

    ir::ExportedProgram& ep_;
    std::unordered_map<std::string, std::vector<uint8_t>> old_order_;  ///< changed value → its old dim order
    decomp::SymbolTable symbols_;
    std::optional<decomp::Env> env_;
    int64_t updated_ = 0;
  };

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
