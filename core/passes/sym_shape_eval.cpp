// sym_shape_eval: replaces every symbolic size and stride of every tensor
// spec by its upper bound, so that dynamic tensors are planned at their
// largest size. Mirrors ExecuTorch's ConstraintBasedSymShapeEvalPass
// (executorch-pipeline.md §1.3 B8, §5.3): the bound comes from interval
// arithmetic over the program's range_constraints (sym_bounds.h; e.g. `4*s0`
// with s0 ∈ [2, 32] gives 128). The pass fails (PASS_FAILED, naming the
// value) when a symbol has no max (ExecuTorch's pass gets int_oo and raises;
// executorch-pipeline.md §5.3 says the hint is used, which ExecuTorch's
// sym_shape_eval_pass.py does not do), and when every symbol has a max but
// the expression has no integer upper bound (64-bit overflow, a float
// factor), as ExecuTorch's eval_upper_bound does. View specs get the contiguous strides of their
// upper-bound sizes. Dynamism is left as spec_prop set it (DYNAMIC_BOUND for
// any symbolic size), and so is the dim order.
// Precondition: spec_prop ran (a graph with tensors but no specs is
// PASS_PRECONDITION).
//
// Example: x: float32[s0, 4, 8], s0 ∈ [2, 32], hint 3 → sizes [32, 4, 8],
// strides [32, 8, 1], DYNAMIC_BOUND.
#include <tsl/robin_set.h>

#include <optional>
#include <set>
#include <string>
#include <unordered_set>

#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/sym_bounds.h"
#include "passes/tensor_spec.h"
#include "support/list_text.h"
#include "support/name_map.h"

namespace pteforge::passes {
namespace {

class SymShapeEval final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"sym_shape_eval", "replace symbolic sizes with their upper bounds", "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ep_ = &ep;
    ctx_ = &ctx;
    bounds_.emplace(ep);
    warned_.clear();
    ir::Graph& graph = ep.graph();
    SpecTable& specs = ctx.state().specs;
    // A static program (every spec already concrete) has nothing to
    // evaluate: one pass over the specs instead of a lookup per value.
    if (!specs.empty()) {
      bool all_concrete = true;
      specs.for_each([&all_concrete](const std::string&, const TensorSpecPtr& s) {
        if (all_concrete && !already_concrete(*s)) all_concrete = false;
      });
      if (all_concrete) return false;
    }

    // Values in graph order: inputs, then node outputs (deterministic warnings).
    std::vector<const std::string*> names;
    for (const ir::Argument& in : graph.inputs()) {
      for_each_tensor_name(in, [&names](const std::string& n) { names.push_back(&n); });
    }
    for (const ir::Node& node : graph) {
      for (const ir::Argument& out : node.outputs()) {
        for_each_tensor_name(out, [&names](const std::string& n) { names.push_back(&n); });
      }
    }
    if (specs.empty() && !names.empty()) {
      return make_error(ErrorCode::PASS_PRECONDITION, "sym_shape_eval needs tensor specs: run spec_prop first");
    }

    PtrSet<const TensorSpec> done;  // open addressing: no allocation per spec
    done.reserve(names.size());
    int64_t evaluated = 0;
    for (const std::string* name_ptr : names) {
      const std::string& name = *name_ptr;
      TensorSpec* spec = specs.find(name);
      if (!spec || !done.insert(spec).second) continue;
      if (already_concrete(*spec)) continue;  // nothing symbolic, nothing to change
      bool symbolic = false;
      std::vector<int64_t> sizes;
      for (const ir::SymInt& s : spec->sym_sizes) {
        if (s.is_symbolic()) symbolic = true;
        PTEFORGE_ASSIGN_OR_RETURN(int64_t v, upper_bound(s, name, "size"));
        sizes.push_back(v);
      }
      std::vector<int64_t> strides;
      if (!spec->is_view() && spec->sym_strides.size() == spec->sym_sizes.size()) {
        for (const ir::SymInt& s : spec->sym_strides) {
          if (s.is_symbolic()) symbolic = true;
          PTEFORGE_ASSIGN_OR_RETURN(int64_t v, upper_bound(s, name, "stride"));
          strides.push_back(v);
        }
      } else {
        strides = contiguous_strides(sizes);
      }
      if (spec->sym_sizes.size() == spec->sizes.size()) {
        spec->sizes = std::move(sizes);
        spec->strides = std::move(strides);
      }
      if (symbolic) ++evaluated;
    }
    if (evaluated) {
      ctx.stat("dynamic_specs", evaluated);
      PTEFORGE_TRY(check_views(graph, specs, names));
    }
    return evaluated > 0;
  }

 private:
  /// A view (remove_view_copy) shares its base's memory, so at their upper
  /// bounds both must hold the same bytes. Their hints agreed when the view
  /// was made, but sizes over differently bounded symbols (s53 against s99)
  /// part here, and the view would overrun its base's planned storage: the
  /// runtime gives it its upper-bound bytes from the base's offset, past the
  /// arena's end when the base is last. ExecuTorch does not check this (its
  /// _ViewSpec compares nbytes only when the view is made, at trace-time
  /// sizes: "We do not guard nbytes because dynamic symints are replaced by
  /// upper bounds") and writes such a file; pteforge refuses it instead.
  /// PASS_FAILED at the view's node.
  Status check_views(const ir::Graph& graph, const SpecTable& specs,
                     const std::vector<const std::string*>& names) {
    for (const std::string* name : names) {
      const TensorSpec* view = specs.find(*name);
      if (!view || !view->is_view()) continue;
      const TensorSpec& base = *view->base;
      if (view->nbytes() == base.nbytes()) continue;
      std::string message =
          "the view '" + *name + "' holds " + std::to_string(view->nbytes()) + " bytes at its upper bounds " +
          list_text(view->sizes) + " but shares the memory of a " + std::to_string(base.nbytes()) +
          "-byte base " + list_text(base.sizes) +
          ": their sizes use symbols with different bounds, so the view would reach past its base's memory "
          "(ExecuTorch's _ViewSpec compares the byte sizes only at trace-time sizes and writes such a view); "
          "give the symbols the same bounds";
      const ir::Node* node = graph.producer(*name);
      if (node) return ctx_->error_at(ErrorCode::PASS_FAILED, std::move(message), *node);
      return make_error(ErrorCode::PASS_FAILED, std::move(message));
    }
    return Status::Ok();
  }

  /// True when evaluating the spec would change nothing and find nothing
  /// symbolic (the common, static case): every size is a concrete value the
  /// spec already holds, and so are the strides (its traced strides, or for
  /// a view or a spec without traced strides the contiguous strides of its
  /// sizes). No vectors are built for such a spec.
  static bool already_concrete(const TensorSpec& spec) {
    const size_t n = spec.sym_sizes.size();
    if (n != spec.sizes.size()) return false;
    for (size_t i = 0; i < n; ++i) {
      const ir::SymInt& size = spec.sym_sizes[i];
      if (!size.is_concrete() || size.value() != spec.sizes[i]) return false;
    }
    if (!spec.is_view() && spec.sym_strides.size() == n) {
      if (spec.strides.size() != n) return false;
      for (size_t i = 0; i < n; ++i) {
        const ir::SymInt& stride = spec.sym_strides[i];
        if (!stride.is_concrete() || stride.value() != spec.strides[i]) return false;
      }
      return true;
    }
    return spec.strides == contiguous_strides(spec.sizes);
  }

  /// The upper bound of one size or stride (`what`: "size" or "stride") of value `value` (§5.3).
  Result<int64_t> upper_bound(const ir::SymInt& s, const std::string& value, const std::string& what) {
    if (s.is_concrete()) return s.value();
    const std::string& text = s.expr().expr_str;
    Result<const ir::SymNode*> parsed = bounds_->parse(text);
    if (!parsed.ok()) {
      Error e = std::move(parsed).error();
      e.message = "symbolic " + what + " of '" + value + "': " + e.message;
      e.where.node = value;
      return e;
    }
    const ir::SymNode& expr = **parsed;
    SymInterval r = bounds_->bound(expr);
    if (r.has_upper()) {
      if (r.hi < 0) {
        Location where;
        where.node = value;
        return make_error(ErrorCode::PASS_FAILED,
                          "the upper bound of '" + ir::display_sym_expr(text) + "' in '" + value + "' is negative (" +
                              std::to_string(r.hi) + ")",
                          where);
      }
      if (expr.op == ir::SymNode::Op::Symbol) warn_hint_above(expr.name, value, s.hint(), r.hi);
      return r.hi;
    }
    // Every symbol has a max, yet the expression has no upper bound: it
    // overflows 64 bits (Pow(s0, 5) with a max of 2^20) or uses a function
    // with no integer bound (a Float factor, true division). ExecuTorch's
    // eval_upper_bound raises there.
    std::vector<std::string> unbounded = unbounded_symbols(expr);
    if (unbounded.empty()) {
      Location where;
      where.node = value;
      return make_error(ErrorCode::PASS_FAILED,
                        "cannot compute an integer upper bound of the symbolic " + what + " '" +
                            ir::display_sym_expr(text) + "' of '" + value +
                            "' although each of its symbols has a max: it overflows 64 bits (no tensor "
                            "that large can be planned), or it is not an integer expression (a float factor, "
                            "a true division), which ExecuTorch's eval_upper_bound refuses too",
                        where);
    }
    // A symbol without a max (Dim without max=, an unbacked size without a
    // range): ExecuTorch's ConstraintBasedSymShapeEvalPass gets int_oo from
    // eval_upper_bound and refuses the shape ("Cannot evalute the shape upper
    // bound ... to a concrete bounded integer"), so this is refused too; a
    // plan at the trace-time size would overflow for any larger input.
    std::string names;
    for (size_t i = 0; i < unbounded.size() && i < 5; ++i) names += (i ? ", '" : "'") + unbounded[i] + "'";
    if (unbounded.size() > 5) names += " and " + std::to_string(unbounded.size() - 5) + " more";
    std::string shown = clipped(ir::display_sym_expr(text));
    Location where;
    where.node = value;
    return make_error(
        ErrorCode::PASS_FAILED,
        "cannot compute an upper bound of the symbolic " + what + " '" + shown + "' of '" + value +
            "': range_constraints give no max to " +
            std::string(unbounded.size() == 1 ? "its symbol " : "its symbols ") + names +
            " (ExecuTorch's ConstraintBasedSymShapeEvalPass refuses it too, and memory planning "
            "needs a bound); give each a max in the dynamic shapes, e.g. Dim(\"" +
            unbounded.front() + "\", max=N)",
        where);
  }

  /// One warning per symbol whose trace-time value (the example input's, the
  /// hint of a size that is the bare symbol) is above the upper bound
  /// range_constraints give it: such a program contradicts itself, and the
  /// tensors planned at the bound would not hold the example inputs.
  void warn_hint_above(const std::string& symbol, const std::string& value, std::optional<int64_t> hint,
                       int64_t bound) {
    if (!hint || *hint <= bound || !warned_.insert("hint:" + symbol).second) return;
    Location where;
    where.node = value;
    ctx_->warn("symbol '" + symbol + "' has the trace-time value " + std::to_string(*hint) +
                   " (in a size of '" + value + "'), above its upper bound " + std::to_string(bound) +
                   " from range_constraints: tensors are planned for sizes up to that bound, so the example "
                   "inputs do not fit (check the program's range_constraints)",
               where);
  }

  /// The free symbols of `expr` that have no upper bound in range_constraints.
  std::vector<std::string> unbounded_symbols(const ir::SymNode& expr) const {
    std::vector<std::string> unbounded;
    for (const std::string& sym : ir::free_symbols(expr)) {
      const ir::RangeConstraint* rc = ep_->range_for(sym);
      if (!rc || !rc->upper()) unbounded.push_back(sym);
    }
    return unbounded;
  }

  const ir::ExportedProgram* ep_ = nullptr;
  PassContext* ctx_ = nullptr;
  std::optional<ProgramSymBounds> bounds_;  ///< parsed sizes of this run's program
  std::set<std::string> warned_;
};

}  // namespace

std::unique_ptr<Pass> make_sym_shape_eval_pass() { return std::make_unique<SymShapeEval>(); }

}  // namespace pteforge::passes
