// Pooling: adaptive average pooling and max_pool2d.
#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

bool all_ones(const std::vector<SymPoly>& v) {
  for (const auto& s : v) {
    if (!s.is_constant() || s.value() != 1) return false;
  }
  return true;
}

/// aten.adaptive_avg_pool2d.default → at::native::adaptive_avg_pool2d_symint
/// (AdaptiveAveragePooling.cpp): output_size (1, 1) is a mean over the spatial dims,
/// mean.dim(x, [-1, -2], True); any other size is _adaptive_avg_pool2d(x, output_size).
/// A channels-last (1, 1) result would be restrided in place by as_strided_: refused.
void adaptive_avg_pool2d_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto osz = rw.syms("output_size");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (osz.size() != 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "adaptive_avg_pool2d: output_size must have 2 elements");
    return;
  }
  if (all_ones(osz)) {
    if (m.rank() == 4 && !is_contiguous(m) && is_dense(m, rw.symbols())) {
      auto order = dim_order(m, rw.symbols());
      if (order == std::vector<size_t>{0, 2, 3, 1}) {
        rw.unsupported("channels-last input with output size (1, 1)");
        return;
      }
    }
    rw.set_outputs({rw.call("aten.mean.dim", {ir::arg_tensor(x), ir::arg_ints({-1, -2}), ir::arg_bool(true)})});
    return;
  }
  rw.set_outputs({rw.call("aten._adaptive_avg_pool2d.default", {ir::arg_tensor(x), rw.sizes(osz)})});
}

/// aten.adaptive_avg_pool3d.default → at::native::adaptive_avg_pool3d_symint: output
/// size (1, 1, 1) is mean.dim(x, [-1, -2, -3], True); else _adaptive_avg_pool3d.
void adaptive_avg_pool3d_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto osz = rw.syms("output_size");
  if (!rw.ok()) return;
  if (all_ones(osz)) {
    rw.set_outputs(
        {rw.call("aten.mean.dim", {ir::arg_tensor(x), ir::arg_ints({-1, -2, -3}), ir::arg_bool(true)})});
    return;
  }
  rw.unsupported("adaptive_avg_pool3d with an output size other than (1, 1, 1)");
}

/// aten.max_pool2d.default → at::native::max_pool2d: max_pool2d_with_indices(self,
/// kernel_size, stride, padding, dilation, ceil_mode) + getitem 0 (arguments as given).
void max_pool2d_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::vector<ir::Argument> args{ir::arg_tensor(x)};
  for (const char* name : {"kernel_size", "stride", "padding", "dilation", "ceil_mode"}) args.push_back(rw.raw(name));
  auto outs = rw.call_multi("aten.max_pool2d_with_indices.default", std::move(args), {}, {true, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

}  // namespace

void add_pooling_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.adaptive_avg_pool2d.default", adaptive_avg_pool2d_rule,
                 "at::native::adaptive_avg_pool2d_symint (AdaptiveAveragePooling.cpp)"});
  out.push_back({"aten.adaptive_avg_pool3d.default", adaptive_avg_pool3d_rule,
                 "at::native::adaptive_avg_pool3d_symint (AdaptiveAveragePooling3d.cpp)"});
  out.push_back({"aten.max_pool2d.default", max_pool2d_rule, "at::native::max_pool2d (MaxPooling.cpp)"});
}

}  // namespace pteforge::passes::decomp
