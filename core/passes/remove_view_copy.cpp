// remove_view_copy: static reshapes become metadata-only views that share
// their base's memory. Mirrors ExecuTorch's remove_view_copy step
// (executorch-pipeline.md §1.3 B7, §4.5, §6.7), three sub-steps:
//   1. NormalizeViewCopyBase: a `view_copy` whose input is another
//      `view_copy` reads that node's input instead, so chains collapse onto
//      the first non-view base;
//   2. dead-code elimination (the skipped view_copy nodes usually die);
//   3. ReplaceViewCopyWithView: each `aten.view_copy.default` none of whose
//      users is the graph output gets target `memory.view`
//      (lowering_util.h) and a view spec: its own sizes (the traced shape,
//      not the `size` argument, which may hold -1), contiguous strides, dim
//      order 0..n-1 and dynamism; everything else (dtype, const, storage,
//      lifetime, placement) comes from the base's spec (`TensorSpec::base`).
//      A view_copy that feeds the output stays a real copy.
// ExecuTorch raises when a view and its base differ in dynamism, dtype or
// byte size; here such a view_copy is kept as a real copy and a warning says
// why. Precondition: spec_prop ran (the base needs a spec); otherwise
// PASS_PRECONDITION.
//
// Before: %view = aten.view_copy.default(%addmm, [2, 4, 6]); %relu = aten.relu.default(%view)
// After:  %view = memory.view(%addmm, [2, 4, 6]);            %relu = aten.relu.default(%view)
#include <numeric>
#include <string>

#include "ir/graph.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/tensor_spec.h"
#include "support/checked_math.h"
#include "support/list_text.h"

namespace pteforge::passes {
namespace {

constexpr std::string_view kViewCopy = "aten.view_copy.default";

bool is_view_copy(const ir::Node* node) {
  return node && node->target().kind() == ir::TargetKind::Operator && node->target().short_name() == kViewCopy;
}

/// Name of the `self` input of a view_copy node, or nullptr.
const std::string* view_input(const ir::Node& node) {
  if (node.inputs().empty() || !node.inputs().front().arg.is_tensor()) return nullptr;
  return &node.inputs().front().arg.tensor_name();
}

/// True when the elements of `s` lie in row-major order (torch's
/// is_contiguous: size-1 dims, whatever their stride, do not count), so a
/// view with contiguous strides reads them as torch would.
bool row_major_bytes(const TensorSpec& s) {
  if (s.strides.size() != s.sizes.size()) return true;  // unknown: nothing to say
  int64_t expected = 1;
  for (size_t i = s.sizes.size(); i-- > 0;) {
    if (s.sizes[i] == 1) continue;
    if (s.sizes[i] == 0) return true;  // no elements
    if (s.strides[i] != expected) return false;
    expected = saturating_mul(expected, s.sizes[i]);
  }
  return true;
}

uint64_t hinted_nbytes(const TensorSpec& s) {
  uint64_t n = 1;
  for (int64_t d : s.sizes) n *= static_cast<uint64_t>(d < 0 ? 0 : d);
  return n * ir::element_size(s.dtype);
}

class RemoveViewCopy final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_view_copy", "turn view_copy nodes not feeding the output into memory views",
                                "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    bool changed = false;

    // 1. NormalizeViewCopyBase (graph order, so bases are already normalized).
    int64_t rebased = 0;
    for (ir::Node& node : graph) {
      if (!is_view_copy(&node)) continue;
      const std::string* input = view_input(node);
      if (!input) continue;
      const ir::Node* producer = graph.producer(*input);
      if (!is_view_copy(producer)) continue;
      const std::string* base = view_input(*producer);
      if (!base) continue;
      node.set_input(0, ir::arg_tensor(*base));
      ++rebased;
    }
    if (rebased) {
      ctx.stat("views_rebased", rebased);
      changed = true;
    }

    // 2. Dead-code elimination.
    PTEFORGE_ASSIGN_OR_RETURN(bool dce, run_dead_code_elimination(ep, ctx));
    changed = changed || dce;

    // 3. ReplaceViewCopyWithView.
    SpecTable& specs = ctx.state().specs;
    int64_t replaced = 0;
    for (ir::Node& node : graph) {
      if (!is_view_copy(&node)) continue;
      const std::string* out = node.single_output();
      const std::string* input = view_input(node);
      if (!out || !input) continue;
      const ir::Value* value = graph.find_value(*out);
      if (!value || value->output_uses > 0) continue;  // feeds the graph output: stays a copy

      TensorSpecPtr base = specs.get(*input);
      TensorSpecPtr own = specs.get(*out);
      if (!base || !own) {
        return ctx.error_at(ErrorCode::PASS_PRECONDITION,
                            "remove_view_copy needs tensor specs: run spec_prop first", node);
      }
      if (base->is_view()) base = base->base;  // bases are normalized, but be safe

      TensorSpec view;
      view.dtype = own->dtype;
      view.sym_sizes = own->sym_sizes;
      view.sizes = own->sizes;
      view.strides = contiguous_strides(view.sizes);
      view.dim_order = dim_order_from_strides(view.strides);
      view.dynamism = own->dynamism;
      view.requires_grad = base->requires_grad;
      view.is_const = base->is_const;
      view.constant = base->constant;
      view.is_mutable_buffer = base->is_mutable_buffer;
      view.weight_has_gradient = base->weight_has_gradient;
      view.base = base;

      std::string why;
      if (view.dynamism != base->dynamism) {
        why = "its dynamism differs from its base's";
      } else if (view.dtype != base->dtype) {
        why = "its dtype differs from its base's";
      } else if (hinted_nbytes(view) != hinted_nbytes(*base)) {
        why = "its byte size differs from its base's";
      }
      if (!why.empty()) {
        ctx.warn("view_copy '" + *out + "' is kept as a copy: " + why +
                     " (ExecuTorch's ReplaceViewCopyWithViewPass rejects such a view)",
                 ctx.where_node(node));
        continue;
      }
      if (!row_major_bytes(*base)) {
        ctx.warn(
            "view '" + *out + "' reads the bytes of '" + *input + "' (dim order " +
                list_text(base->dim_order) +
                ") in the order they lie, as ExecuTorch's memory.view does, not in the order torch's view "
                "reads them: its values differ from torch's (as a copy, ExecuTorch's portable view_copy "
                "refuses such an input); make the tensor contiguous before the view",
            ctx.where_node(node));
      }
      node.set_target(memory_view_target());
      specs.set(*out, std::make_shared<TensorSpec>(std::move(view)));
      ++replaced;
    }
    if (replaced) {
      ctx.stat("views", replaced);
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_view_copy_pass() { return std::make_unique<RemoveViewCopy>(); }

}  // namespace pteforge::passes
