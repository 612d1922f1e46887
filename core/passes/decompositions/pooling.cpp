// Pooling: adaptive average pooling, max_pool1d/2d/3d; 1-d nearest and linear upsampling.
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

/// The values of `with_indices` (max_pool2d/3d_with_indices.default) called with the node's
/// self, kernel_size, stride, padding, dilation and ceil_mode as given: its getitem 0.
void max_pool_values(Rewriter& rw, std::string_view with_indices) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::vector<ir::Argument> args{ir::arg_tensor(x)};
  for (const char* name : {"kernel_size", "stride", "padding", "dilation", "ceil_mode"}) args.push_back(rw.raw(name));
  auto outs = rw.call_multi(with_indices, std::move(args), {}, {true, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.max_pool2d.default → at::native::max_pool2d: max_pool2d_with_indices(self,
/// kernel_size, stride, padding, dilation, ceil_mode) + getitem 0 (arguments as given).
void max_pool2d_rule(Rewriter& rw) { max_pool_values(rw, "aten.max_pool2d_with_indices.default"); }

/// aten.max_pool3d.default → at::native::max_pool3d (MaxPooling.cpp; no mkldnn tensors in an
/// export): max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)
/// + getitem 0, the arguments as given (trailing defaults dropped as the tracer drops them).
/// input [N, C, D, H, W] or [C, D, H, W].
void max_pool3d_rule(Rewriter& rw) { max_pool_values(rw, "aten.max_pool3d_with_indices.default"); }

/// An int[1] pooling argument (kernel_size, stride, padding, dilation) as its one value.
int64_t one_int(Rewriter& rw, const char* name) {
  std::vector<int64_t> v = rw.ints(name);
  if (!rw.ok()) return 0;
  if (v.size() != 1) {
    rw.fail(ErrorCode::INVALID_GRAPH, std::string("max_pool1d() argument '") + name +
                                          "' should contain one int (got " + std::to_string(v.size()) + ")");
    return 0;
  }
  return v[0];
}

/// aten.max_pool1d.default → at::native::max_pool1d (MaxPooling.cpp; a traced input
/// takes its max_pool1d_with_indices branch, Pooling.cpp): unsqueeze(self, -2),
/// max_pool2d_with_indices(x, [1, k], [1, s], [0, p], [1, d], ceil_mode) + getitem 0,
/// squeeze(-2) (squeeze.dims(out, [-2]), torch._decomp's squeeze.dim). An empty
/// stride means the kernel size.
void max_pool1d_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t k = one_int(rw, "kernel_size");
  bool default_stride = rw.ints("stride").empty();
  int64_t s = default_stride ? k : one_int(rw, "stride");
  int64_t p = one_int(rw, "padding");
  int64_t d = one_int(rw, "dilation");
  bool ceil_mode = rw.bool_("ceil_mode");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() != 2 && m.rank() != 3) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "max_pool1d: expected a 2-d or 3-d input, got " + std::to_string(m.rank()) + "-d");
    return;
  }
  std::string u = unsqueeze(rw, x, -2);
  auto outs = rw.call_multi("aten.max_pool2d_with_indices.default",
                            {ir::arg_tensor(u), ir::arg_ints({1, k}), ir::arg_ints({1, s}),
                             ir::arg_ints({0, p}), ir::arg_ints({1, d}), ir::arg_bool(ceil_mode)},
                            {}, {true, false});
  if (!rw.ok()) return;
  rw.set_outputs({squeeze_dims(rw, outs[0], {-2})});
}

/// aten.adaptive_max_pool2d.default → torch._inductor.decomposition adaptive_max_pool2d
/// (core_aten_decompositions has none; this is the only PyTorch decomposition): when
/// each output size divides its input size, max_pool2d_with_indices(self, [H / h, W / w])
/// (both outputs). Other sizes (which need the adaptive kernel) and empty outputs are refused.
void adaptive_max_pool2d_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::vector<int64_t> osz = rw.ints("output_size");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (osz.size() != 2 || (m.rank() != 3 && m.rank() != 4)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "adaptive_max_pool2d: expected a 3-d or 4-d input and 2 output sizes");
    return;
  }
  const SymPoly& h = m.sizes[m.rank() - 2];
  const SymPoly& w = m.sizes[m.rank() - 1];
  if (!h.is_constant() || !w.is_constant()) {
    rw.unsupported("input of symbolic spatial size");
    return;
  }
  if (osz[0] <= 0 || osz[1] <= 0) {
    rw.unsupported("an empty output size (torch's decomposition makes new_empty tensors)");
    return;
  }
  if (h.value() % osz[0] != 0 || w.value() % osz[1] != 0) {
    rw.unsupported("output size (" + std::to_string(osz[0]) + ", " + std::to_string(osz[1]) +
                   ") that does not divide the input size (" + std::to_string(h.value()) + ", " +
                   std::to_string(w.value()) + "); only the max_pool2d form is supported");
    return;
  }
  auto outs = rw.call_multi("aten.max_pool2d_with_indices.default",
                            {ir::arg_tensor(x), ir::arg_ints({h.value() / osz[0], w.value() / osz[1]})}, {},
                            {true, true});
  if (!rw.ok()) return;
  rw.set_outputs(outs);
}

/// Checks an upsample call with `n` spatial dims as torch does: `n` output sizes and an
/// (n + 2)-d input, else INVALID_GRAPH with torch's message. False after a failure.
bool check_upsample_rank(Rewriter& rw, const Meta& m, const std::vector<SymPoly>& osz, size_t n) {
  const std::string op(rw.target());
  if (osz.size() != n) {
    rw.fail(ErrorCode::INVALID_GRAPH, op + ": It is expected output_size equals to " + std::to_string(n) +
                                          ", but got size " + std::to_string(osz.size()));
    return false;
  }
  if (m.rank() != n + 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, op + ": It is expected input_size equals to " + std::to_string(n + 2) +
                                          ", but got size " + std::to_string(m.rank()));
    return false;
  }
  return true;
}

/// The concrete spatial input and output sizes of an upsample call (rank already checked).
/// Refused: symbolic sizes (the index scale is computed from both) and a scales argument
/// <= 0 (`scales_note` says what PyTorch releases disagree on); non-positive sizes are
/// INVALID_GRAPH with torch's message. nullopt after a failure.
std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> upsample_sizes(
    Rewriter& rw, const Meta& m, const std::vector<SymPoly>& osz,
    const std::vector<std::optional<double>>& scales, std::string_view scales_note) {
  const size_t n = osz.size();
  std::vector<int64_t> in(n), out(n);
  for (size_t k = 0; k < n; ++k) {
    const SymPoly& isize = m.sizes[2 + k];
    if (!isize.is_constant() || !osz[k].is_constant()) {
      rw.unsupported(n == 1 ? "a symbolic input length or output size (the index scale is computed from both)"
                            : "a symbolic input or output size (the index scale is computed from both)");
      return std::nullopt;
    }
    in[k] = isize.value();
    out[k] = osz[k].value();
  }
  for (size_t k = 0; k < n; ++k) {
    if (in[k] <= 0 || out[k] <= 0) {
      std::string ins, outs;
      for (size_t j = 0; j < n; ++j) {
        ins += (j ? ", " : "") + std::to_string(in[j]);
        outs += (j ? ", " : "") + std::to_string(out[j]);
      }
      rw.fail(ErrorCode::INVALID_GRAPH,
              std::string(rw.target()) + ": Input and output sizes should be greater than 0, but got input " +
                  (n == 1 ? "size " + ins + " and output size " + outs
                          : "(" + ins + ") and output (" + outs + ")"));
      return std::nullopt;
    }
    if (scales[k] && !(*scales[k] > 0)) {
      rw.unsupported("scales <= 0 (" + std::string(scales_note) + ")");
      return std::nullopt;
    }
  }
  return std::pair(std::move(in), std::move(out));
}

/// torch._decomp _upsample_nearest for `n` spatial dims (upsample_nearest1d/2d/3d, exact =
/// false; _upsample_nearest_exact1d/2d/3d, exact = true) under its pw_cast_for_opmath (float16 /
/// bfloat16 input in float32 and back). Per spatial dim k (_compute_upsample_nearest_indices):
/// scale = isize / (isize * scales) for scales > 0, else isize / osize (a Python float);
/// arange(osize, dtype=float32, device) (as arange.start_step), add.Tensor(·, 0.0 or 0.5),
/// mul.Tensor(·, scale), _to_copy to int64, then unsqueeze(-1) n - 1 - k times; one
/// _unsafe_index(input, [None, None, idx...]) recorded as index.Tensor. input [N, C, L...] →
/// [N, C, osize...]; the 4-d result's contiguous(suggest_memory_format(input)) adds nothing for
/// the contiguous inputs taken here. Refused: a wrong rank, a non-contiguous input of rank 4
/// (that call could copy it), symbolic sizes, non-positive sizes and scales <= 0 (PyTorch
/// releases differ there: older ones take isize / (isize * scales) as given, newer ones fall back
/// to isize / osize).
void upsample_nearest_common(Rewriter& rw, size_t n, const std::vector<std::string_view>& scale_args,
                             bool exact) {
  std::string x = rw.tensor("self");
  auto osz = rw.syms("output_size");
  std::vector<std::optional<double>> scales;
  for (std::string_view name : scale_args) scales.push_back(rw.opt_float(name));
  Meta m = rw.meta(x);
  if (!rw.ok() || !check_upsample_rank(rw, m, osz, n)) return;
  if (m.rank() == 4 && !is_contiguous(m)) {
    rw.unsupported("a non-contiguous input (the reference's contiguous() call could copy the result)");
    return;
  }
  auto sizes = upsample_sizes(rw, m, osz, scales, "PyTorch versions disagree on the index scale it gives");
  if (!sizes) return;
  const auto& [in, out] = *sizes;
  OpMath om{rw};
  std::string input = om.up(x);
  std::vector<std::string> indices;
  for (size_t k = 0; k < n; ++k) {
    const double isz = static_cast<double>(in[k]);
    const double scale = scales[k] ? isz / (isz * *scales[k]) : isz / static_cast<double>(out[k]);
    std::string idx = arange(rw, ir::arg_int(out[k]), m.device, ir::ScalarType::Float);
    idx = rw.call("aten.add.Tensor", {ir::arg_tensor(idx), ir::arg_float(exact ? 0.5 : 0.0)});
    idx = rw.call("aten.mul.Tensor", {ir::arg_tensor(idx), ir::arg_float(scale)});
    idx = to_dtype(rw, idx, ir::ScalarType::Long);
    for (size_t u = 0; u + 1 + k < n; ++u) idx = unsqueeze(rw, idx, -1);
    if (!rw.ok()) return;
    indices.push_back(idx);
  }
  std::string result = index_spatial(rw, input, indices);
  if (!rw.ok()) return;
  rw.set_outputs({om.down(result)});
}
void upsample_nearest1d_rule(Rewriter& rw) { upsample_nearest_common(rw, 1, {"scales"}, false); }
void upsample_nearest_exact1d_rule(Rewriter& rw) { upsample_nearest_common(rw, 1, {"scales"}, true); }
void upsample_nearest2d_rule(Rewriter& rw) {
  upsample_nearest_common(rw, 2, {"scales_h", "scales_w"}, false);
}
void upsample_nearest_exact2d_rule(Rewriter& rw) {
  upsample_nearest_common(rw, 2, {"scales_h", "scales_w"}, true);
}
void upsample_nearest3d_rule(Rewriter& rw) {
  upsample_nearest_common(rw, 3, {"scales_d", "scales_h", "scales_w"}, false);
}
void upsample_nearest_exact3d_rule(Rewriter& rw) {
  upsample_nearest_common(rw, 3, {"scales_d", "scales_h", "scales_w"}, true);
}

/// aten.upsample_linear1d / upsample_bilinear2d / upsample_trilinear3d .default → torch._decomp
/// _upsample_linear for `n` spatial dims (under pw_cast_for_opmath: float16 / bfloat16 input in
/// float32 and back). Per spatial dim k, in order (get_values): scale (_compute_scale) =
/// (L - 1.0) / (osize - 1.0) (the int 0 when osize is 1) with align_corners, else 1.0 / scales
/// for scales > 0 or L / osize; i = arange(osize) to the computation dtype; source index
/// scale * i (align_corners) or scale * (i + 0.5) - 0.5, clamp(min=0.0), reshape to
/// [osize, 1 x (n - 1 - k)] (a view), x = to int64, xp1 = clamp(x + 1, max=L - 1). Then one
/// _unsafe_index(input, [None, None, x or xp1 per dim]) (as index.Tensor) per corner, corners in
/// itertools.product order (the last dim varies fastest), and from the last dim to the first:
/// w = clamp(x_f32 - x, 0.0, 1.0) to the dtype, each pair (v1, v2) → v1 + (v2 - v1) * w.
/// input [N, C, L...] → [N, C, osize...]. The final contiguous(suggest_memory_format(input)) adds
/// nothing for the contiguous inputs taken here. Refused: a non-floating input (the reference
/// rounds and casts), a non-contiguous input (its contiguous() call could copy), symbolic sizes,
/// scales <= 0 (PyTorch releases differ), and torch's size errors.
void upsample_linear_common(Rewriter& rw, size_t n, const std::vector<std::string_view>& scale_args) {
  std::string x = rw.tensor("self");
  auto osz = rw.syms("output_size");
  bool align_corners = rw.bool_("align_corners");
  std::vector<std::optional<double>> scales;
  for (std::string_view name : scale_args) scales.push_back(rw.opt_float(name));
  Meta m = rw.meta(x);
  if (!rw.ok() || !check_upsample_rank(rw, m, osz, n)) return;
  if (!require_floating(rw, m.dtype)) return;
  if (!is_contiguous(m)) {
    rw.unsupported("a non-contiguous input (the reference's contiguous() call could copy it)");
    return;
  }
  auto sizes = upsample_sizes(rw, m, osz, scales, "PyTorch versions disagree on the scale it gives");
  if (!sizes) return;
  const auto& [in, out] = *sizes;
  OpMath om{rw};
  std::string input = om.up(x);
  ir::ScalarType dtype = opmath_dtype(m.dtype);
  std::vector<std::string> xs_f(n), xs(n), xp1s(n);
  for (size_t k = 0; k < n; ++k) {
    // _compute_scale: a Python float, or the int 0 for align_corners with one output element.
    ir::Argument scale = ir::arg_int(0);
    if (align_corners) {
      if (out[k] > 1)
        scale = ir::arg_float((static_cast<double>(in[k]) - 1.0) / (static_cast<double>(out[k]) - 1.0));
    } else {
      scale = ir::arg_float(scales[k] ? 1.0 / *scales[k]
                                      : static_cast<double>(in[k]) / static_cast<double>(out[k]));
    }
    std::string i = to_dtype(rw, arange(rw, ir::arg_int(out[k]), m.device), dtype);
    std::string src;
    if (align_corners) {
      src = rw.call("aten.mul.Tensor", {ir::arg_tensor(i), scale});
    } else {
      src = rw.call("aten.add.Tensor", {ir::arg_tensor(i), ir::arg_float(0.5)});
      src = rw.call("aten.mul.Tensor", {ir::arg_tensor(src), scale});
      src = rw.call("aten.sub.Tensor", {ir::arg_tensor(src), ir::arg_float(0.5)});
    }
    src = rw.call("aten.clamp.default", {ir::arg_tensor(src), ir::arg_float(0.0)});
    std::vector<SymPoly> shape{SymPoly(out[k])};
    shape.resize(n - k, SymPoly(1));
    xs_f[k] = reshape(rw, src, shape);
    xs[k] = to_dtype(rw, xs_f[k], ir::ScalarType::Long);
    xp1s[k] = rw.call("aten.add.Tensor", {ir::arg_tensor(xs[k]), ir::arg_int(1)});
    xp1s[k] =
        rw.call("aten.clamp.default", {ir::arg_tensor(xp1s[k]), ir::arg_none(), ir::arg_int(in[k] - 1)});
    if (!rw.ok()) return;
  }
  std::vector<std::string> vs;
  for (size_t corner = 0; corner < (size_t{1} << n); ++corner) {
    std::vector<std::string> idx;
    for (size_t k = 0; k < n; ++k) {
      const bool upper = (corner >> (n - 1 - k)) & 1;  // product order: the last dim varies fastest
      idx.push_back(upper ? xp1s[k] : xs[k]);
    }
    vs.push_back(index_spatial(rw, input, idx));
  }
  for (size_t k = n; k-- > 0;) {
    std::string w = rw.call("aten.sub.Tensor", {ir::arg_tensor(xs_f[k]), ir::arg_tensor(xs[k])});
    w = rw.call("aten.clamp.default", {ir::arg_tensor(w), ir::arg_float(0.0), ir::arg_float(1.0)});
    w = to_dtype(rw, w, dtype);
    std::vector<std::string> next;
    for (size_t j = 0; j + 1 < vs.size(); j += 2) {
      std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(vs[j + 1]), ir::arg_tensor(vs[j])});
      d = rw.call("aten.mul.Tensor", {ir::arg_tensor(d), ir::arg_tensor(w)});
      next.push_back(rw.call("aten.add.Tensor", {ir::arg_tensor(vs[j]), ir::arg_tensor(d)}));
    }
    vs = std::move(next);
  }
  if (!rw.ok()) return;
  rw.set_outputs({om.down(vs.front())});
}
void upsample_linear1d_rule(Rewriter& rw) { upsample_linear_common(rw, 1, {"scales"}); }
void upsample_bilinear2d_rule(Rewriter& rw) { upsample_linear_common(rw, 2, {"scales_h", "scales_w"}); }
void upsample_trilinear3d_rule(Rewriter& rw) {
  upsample_linear_common(rw, 3, {"scales_d", "scales_h", "scales_w"});
}

/// aten.im2col.default (F.unfold) → torch._decomp im2col (recent releases; older ones
/// wrapped it in pw_cast_for_opmath, same values): per spatial dim the block indices
/// arange(0, in + 2p - d(k - 1), s) [None, :] + arange(0, k * d, d) [:, None] (int64),
/// constant_pad_nd(x, [pw, pw, ph, ph], 0.0), x[:, :, rows[..., None, None], cols]
/// (index.Tensor, [N, C, kh, oh, kw, ow]), permute(0, 1, 2, 4, 3, 5), reshape to
/// [N, C * kh * kw, oh * ow]; a 3-d input is unsqueezed first and squeezed after.
/// Refused as PyTorch refuses them: other than 2 kernel/dilation/padding/stride
/// entries, a kernel, dilation or stride below 1, negative padding, an input not 3-d
/// or 4-d or with a zero channel/spatial size, no block fitting. Symbolic channel or
/// spatial sizes are refused (the batch may be symbolic).
void im2col_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::vector<int64_t> k = rw.ints("kernel_size");
  std::vector<int64_t> d = rw.ints("dilation");
  std::vector<int64_t> p = rw.ints("padding");
  std::vector<int64_t> s = rw.ints("stride");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  const std::pair<const std::vector<int64_t>*, const char*> params[] = {
      {&k, "kernel"}, {&d, "dilation"}, {&p, "padding"}, {&s, "stride"}};
  for (const auto& [v, name] : params) {
    if (v->size() != 2) {
      rw.fail(ErrorCode::INVALID_GRAPH, std::string("im2col(): only 2D ") + name + " supported");
      return;
    }
  }
  auto list = [](const std::vector<int64_t>& v) {
    return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]";
  };
  const std::pair<const std::vector<int64_t>*, const char*> positive[] = {
      {&k, "kernel_size"}, {&d, "dilation"}, {&s, "stride"}};
  for (const auto& [v, name] : positive) {
    if ((*v)[0] <= 0 || (*v)[1] <= 0) {
      rw.fail(ErrorCode::INVALID_GRAPH,
              std::string(name) + " should be greater than zero, but got " + list(*v));
      return;
    }
  }
  if (p[0] < 0 || p[1] < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "padding should be non-negative, but got " + list(p));
    return;
  }
  const size_t rank = m.rank();
  bool zero = false;
  for (size_t i = rank >= 3 ? rank - 3 : 0; i < rank; ++i) {
    zero = zero || (m.sizes[i].is_constant() && m.sizes[i].value() == 0);
  }
  if ((rank != 3 && rank != 4) || zero) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size "
            "and non-zero dimensions, but got: " +
                shape_text(m.sizes, rw.symbols()));
    return;
  }
  for (size_t i = rank - 3; i < rank; ++i) {
    if (!m.sizes[i].is_constant()) {
      rw.unsupported("im2col of an input with a symbolic channel or spatial size");
      return;
    }
  }
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t in = m.sizes[rank - 2 + i].value();
    const int64_t span = in + 2 * p[i] - d[i] * (k[i] - 1) - 1;  // Python's // floors
    out[i] = 1 + (span >= 0 ? span / s[i] : -((-span + s[i] - 1) / s[i]));
  }
  if (out[0] <= 0 || out[1] <= 0) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "Given an input with spatial size " +
                shape_text({m.sizes[rank - 2], m.sizes[rank - 1]}, rw.symbols()) + ", kernel_size=" +
                list(k) + ", dilation=" + list(d) + ", padding=" + list(p) + ", stride=" + list(s) +
                ", the calculated shape of the array of sliding blocks is [" + std::to_string(out[0]) + ", " +
                std::to_string(out[1]) + "], but its components must be at least one.");
    return;
  }
  const bool batched = rank == 4;
  if (!batched) x = unsqueeze(rw, x, 0);
  const SymPoly batch = batched ? m.sizes[0] : SymPoly(1);
  const int64_t channels = m.sizes[rank - 3].value();
  auto block_indices = [&](int i) {
    const int64_t in = m.sizes[rank - 2 + i].value();
    KwArgs kw{{"dtype", ir::arg_dtype(ir::ScalarType::Long)},
              {"device", ir::arg_device(m.device)},
              {"pin_memory", ir::arg_bool(false)}};
    std::string starts =
        rw.call("aten.arange.start_step",
                {ir::arg_int(0), ir::arg_int(in + 2 * p[i] - d[i] * (k[i] - 1)), ir::arg_int(s[i])}, kw);
    starts = unsqueeze(rw, starts, 0);
    std::string grid =
        rw.call("aten.arange.start_step", {ir::arg_int(0), ir::arg_int(k[i] * d[i]), ir::arg_int(d[i])}, kw);
    grid = unsqueeze(rw, grid, -1);
    return rw.call("aten.add.Tensor", {ir::arg_tensor(starts), ir::arg_tensor(grid)});
  };
  std::string rows = block_indices(0);
  std::string cols = block_indices(1);
  std::string padded = rw.call("aten.constant_pad_nd.default",
                               {ir::arg_tensor(x), ir::arg_ints({p[1], p[1], p[0], p[0]}), ir::arg_float(0)});
  rows = unsqueeze(rw, unsqueeze(rw, rows, -1), -1);
  std::string blocks = index_spatial(rw, padded, {rows, cols});
  blocks = permute(rw, blocks, {0, 1, 2, 4, 3, 5});
  std::string result =
      reshape(rw, blocks, {batch, SymPoly(channels * k[0] * k[1]), SymPoly(out[0] * out[1])});
  if (!batched) result = rw.call("aten.squeeze.dim", {ir::arg_tensor(result), ir::arg_int(0)});
  rw.set_outputs({result});
}

}  // namespace

void add_pooling_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.im2col.default", im2col_rule, "torch._decomp im2col"});
  out.push_back({"aten.adaptive_avg_pool2d.default", adaptive_avg_pool2d_rule,
                 "at::native::adaptive_avg_pool2d_symint (AdaptiveAveragePooling.cpp)"});
  out.push_back({"aten.adaptive_avg_pool3d.default", adaptive_avg_pool3d_rule,
                 "at::native::adaptive_avg_pool3d_symint (AdaptiveAveragePooling3d.cpp)"});
  out.push_back({"aten.max_pool1d.default", max_pool1d_rule,
                 "at::native::max_pool1d (MaxPooling.cpp) → max_pool1d_with_indices (Pooling.cpp)"});
  out.push_back({"aten.adaptive_max_pool2d.default", adaptive_max_pool2d_rule,
                 "torch._inductor.decomposition.adaptive_max_pool2d (divisible sizes)"});
  out.push_back({"aten.max_pool2d.default", max_pool2d_rule, "at::native::max_pool2d (MaxPooling.cpp)"});
  out.push_back({"aten.max_pool3d.default", max_pool3d_rule, "at::native::max_pool3d (MaxPooling.cpp)"});
  out.push_back({"aten.upsample_nearest1d.default", upsample_nearest1d_rule,
                 "torch._decomp upsample_nearest1d (_upsample_nearest, _compute_upsample_nearest_indices)"});
  out.push_back(
      {"aten.upsample_linear1d.default", upsample_linear1d_rule,
       "torch._decomp upsample_linear1d (_upsample_linear, _compute_scale, _compute_source_index)"});
  out.push_back({"aten.upsample_bilinear2d.default", upsample_bilinear2d_rule,
                 "torch._decomp upsample_bilinear2d (_upsample_linear with two spatial dims)"});
  out.push_back({"aten.upsample_trilinear3d.default", upsample_trilinear3d_rule,
                 "torch._decomp upsample_trilinear3d (_upsample_linear with three spatial dims)"});
  out.push_back({"aten._upsample_nearest_exact1d.default", upsample_nearest_exact1d_rule,
                 "torch._decomp upsample_nearest_exact1d (_upsample_nearest with exact=True)"});
  out.push_back({"aten.upsample_nearest2d.default", upsample_nearest2d_rule,
                 "torch._decomp upsample_nearest2d (_upsample_nearest with two spatial dims)"});
  out.push_back({"aten.upsample_nearest3d.default", upsample_nearest3d_rule,
                 "torch._decomp upsample_nearest3d (_upsample_nearest with three spatial dims)"});
  out.push_back({"aten._upsample_nearest_exact2d.default", upsample_nearest_exact2d_rule,
                 "torch._decomp _upsample_nearest_exact2d (_upsample_nearest with exact=True)"});
  out.push_back({"aten._upsample_nearest_exact3d.default", upsample_nearest_exact3d_rule,
                 "torch._decomp _upsample_nearest_exact3d (_upsample_nearest with exact=True)"});
}

}  // namespace pteforge::passes::decomp
