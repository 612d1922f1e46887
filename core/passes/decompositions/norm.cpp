// Normalization: batch_norm (eval) → _native_batch_norm_legit_no_training,
// layer_norm → native_layer_norm, group_norm → native_group_norm, rms_norm → its
// composite form; cosine_similarity and pairwise_distance through the norm helpers.
#include <algorithm>
#include <cmath>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

/// The operands of a batch norm.
struct BatchNormArgs {
  std::string x;
  std::optional<std::string> w, b, rm, rv;
  double momentum = 0.1;
  double eps = 1e-5;
};

/// The batch-norm operands of the node being rewritten, by their schema names.
BatchNormArgs batch_norm_args(Rewriter& rw) {
  BatchNormArgs a;
  a.x = rw.tensor("input");
  a.w = rw.opt_tensor("weight");
  a.b = rw.opt_tensor("bias");
  a.rm = rw.opt_tensor("running_mean");
  a.rv = rw.opt_tensor("running_var");
  a.momentum = rw.float_("momentum");
  a.eps = rw.float_("eps");
  return a;
}

/// The Core ATen form of batch norm on explicit operands (batch_norm, native_batch_norm,
/// _batch_norm_no_update, instance_norm): eval mode with
/// running statistics becomes _native_batch_norm_legit_no_training (torch/_decomp
/// native_batch_norm_decomposition); training mode without statistics becomes
/// _native_batch_norm_legit.no_stats. Training mode with running statistics updates
/// buffers and is refused (export the model in eval mode).
std::vector<std::string> emit_batch_norm(Rewriter& rw, const BatchNormArgs& a, bool training,
                                         std::vector<bool> used) {
  if (!rw.ok()) return {};
  const std::string& x = a.x;
  const auto &w = a.w, &b = a.b, &rm = a.rm, &rv = a.rv;
  const double momentum = a.momentum, eps = a.eps;
  auto opt = [](const std::optional<std::string>& t) { return t ? ir::arg_tensor(*t) : ir::arg_none(); };
  used.resize(3, false);
  if (!rm && !rv) {
    return rw.call_multi("aten._native_batch_norm_legit.no_stats",
                         {ir::arg_tensor(x), opt(w), opt(b), ir::arg_bool(training), ir::arg_float(momentum),
                          ir::arg_float(eps)},
                         {}, used);
  }
  if (!rm || !rv) {
    rw.fail(ErrorCode::INVALID_GRAPH, "running_mean and running_var must both be given or both be None");
    return {};
  }
  if (training) {
    rw.unsupported(
        "batch norm in training mode updates its running statistics; export the model after model.eval() "
        "(pteforge converts inference programs)");
    return {};
  }
  return rw.call_multi("aten._native_batch_norm_legit_no_training.default",
                       {ir::arg_tensor(x), opt(w), opt(b), ir::arg_tensor(*rm), ir::arg_tensor(*rv),
                        ir::arg_float(momentum), ir::arg_float(eps)},
                       {}, used);
}

/// emit_batch_norm on the node's own operands.
std::vector<std::string> batch_norm_core(Rewriter& rw, bool training, size_t n_outputs,
                                         std::vector<bool> used) {
  (void)n_outputs;
  return emit_batch_norm(rw, batch_norm_args(rw), training, std::move(used));
}

/// aten.batch_norm.default → at::native::batch_norm → _batch_norm_impl_index →
/// native_batch_norm → (torch/_decomp native_batch_norm_decomposition)
/// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
/// momentum, eps) + getitem 0, when training is False.
void batch_norm_rule(Rewriter& rw) {
  bool training = rw.bool_("training");
  if (!rw.ok()) return;
  auto outs = batch_norm_core(rw, training, 1, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.native_batch_norm.default → native_batch_norm_decomposition (same forms as
/// batch_norm, all three outputs).
void native_batch_norm_rule(Rewriter& rw) {
  bool training = rw.bool_("training");
  if (!rw.ok()) return;
  auto outs = batch_norm_core(rw, training, 3, {true, true, true});
  if (!rw.ok()) return;
  rw.set_outputs(outs);
}

/// aten._batch_norm_no_update.default (eval-mode batch norm in newer training IRs) →
/// _native_batch_norm_legit_no_training; its fourth output (the cuDNN reserve, empty
/// on CPU) must be unused.
void batch_norm_no_update_rule(Rewriter& rw) {
  auto outs = batch_norm_core(rw, false, 3, {true, true, true});
  if (!rw.ok()) return;
  outs.push_back("");
  rw.set_outputs(outs);
}

/// aten.layer_norm.default → at::native::layer_norm_symint:
/// native_layer_norm(input, normalized_shape, weight, bias, eps) + getitem 0.
void layer_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  auto shape = rw.syms("normalized_shape");
  auto w = rw.opt_tensor("weight");
  auto b = rw.opt_tensor("bias");
  double eps = rw.float_("eps");
  if (!rw.ok()) return;
  auto outs = rw.call_multi("aten.native_layer_norm.default",
                            {ir::arg_tensor(x), rw.sizes(shape), w ? ir::arg_tensor(*w) : ir::arg_none(),
                             b ? ir::arg_tensor(*b) : ir::arg_none(), ir::arg_float(eps)},
                            {}, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.group_norm.default → at::native::group_norm: native_group_norm(input, weight,
/// bias, N, C, HxW, num_groups, eps) + getitem 0 (N = size(0), C = size(1), HxW =
/// product of the remaining sizes; the contiguous() calls are no-ops on contiguous input).
void group_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  int64_t groups = rw.int_("num_groups");
  auto w = rw.opt_tensor("weight");
  auto b = rw.opt_tensor("bias");
  double eps = rw.float_("eps");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() < 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "group_norm expects at least a 2-d input");
    return;
  }
  std::vector<SymPoly> rest(m.sizes.begin() + 2, m.sizes.end());
  std::string in = contiguous(rw, x);
  auto outs = rw.call_multi("aten.native_group_norm.default",
                            {ir::arg_tensor(in), w ? ir::arg_tensor(*w) : ir::arg_none(),
                             b ? ir::arg_tensor(*b) : ir::arg_none(), rw.size(m.sizes[0]), rw.size(m.sizes[1]),
                             rw.size(product(rest)), ir::arg_int(groups), ir::arg_float(eps)},
                            {}, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.rms_norm.default → at::native rms_norm composite (layer_norm.cpp
/// rms_norm_composite; the same ops as torch/_decomp _fused_rms_norm):
/// x.to(opmath) → pow.Tensor_Scalar(x, 2) → mean.dim(dims, True) → add.Scalar(eps) →
/// rsqrt → mul.Tensor(x, rsqrt) [→ mul.Tensor(weight)] → type_as(input).
/// eps None means float32 epsilon (1.1920928955078125e-07).
void rms_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  auto shape = rw.syms("normalized_shape");
  auto w = rw.opt_tensor("weight");
  auto eps = rw.opt_float("eps");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (shape.size() > m.rank()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "normalized_shape is longer than the input rank");
    return;
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < shape.size(); ++i) dims.push_back(static_cast<int64_t>(m.rank() - i - 1));
  bool low = m.dtype == ir::ScalarType::Half || m.dtype == ir::ScalarType::BFloat16;
  ir::ScalarType opmath = low ? ir::ScalarType::Float : m.dtype;
  double e = eps ? *eps : (opmath == ir::ScalarType::Double ? 2.220446049250313e-16 : 1.1920928955078125e-07);
  std::string up = to_dtype(rw, x, opmath);
  std::string sq = rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(up), ir::arg_int(2)});
  std::string mean = rw.call("aten.mean.dim", {ir::arg_tensor(sq), ir::arg_ints(dims), ir::arg_bool(true)});
  std::string add = rw.call("aten.add.Scalar", {ir::arg_tensor(mean), ir::arg_float(e)});
  std::string r = rw.call("aten.rsqrt.default", {ir::arg_tensor(add)});
  std::string out = rw.call("aten.mul.Tensor", {ir::arg_tensor(up), ir::arg_tensor(r)});
  if (w) out = rw.call("aten.mul.Tensor", {ir::arg_tensor(out), ir::arg_tensor(*w)});
  out = to_dtype(rw, out, m.dtype);
  rw.set_outputs({out});
}

/// aten.instance_norm.default → at::native::instance_norm (Normalization.cpp): weight
/// and bias repeated batch-size times (repeat(w, [N])), input.contiguous() viewed as
/// [1, N*C, ...], batch_norm over it (its Core ATen form, as batch_norm's rule emits),
/// and the result viewed back to the input's sizes. Running statistics are refused:
/// instance_norm writes their batch mean back into them (a buffer mutation).
void instance_norm_rule(Rewriter& rw) {
  BatchNormArgs a = batch_norm_args(rw);
  bool use_input_stats = rw.bool_("use_input_stats");
  Meta m = rw.meta(a.x);
  if (!rw.ok()) return;
  if (a.rm || a.rv) {
    rw.unsupported(
        "running statistics (track_running_stats=True): instance_norm writes their mean back into them");
    return;
  }
  if (!use_input_stats) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "expected running_mean and running_var to be defined when use_input_stats is false");
    return;
  }
  if (m.rank() < 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "instance_norm expects at least a 2-d input");
    return;
  }
  const SymPoly& n = m.sizes[0];
  auto repeat = [&](std::optional<std::string>& t) {
    if (t) t = rw.call("aten.repeat.default", {ir::arg_tensor(*t), rw.sizes({n})});
  };
  repeat(a.w);
  repeat(a.b);
  std::vector<SymPoly> shape = m.sizes;
  shape[1] = n * m.sizes[1];
  shape[0] = SymPoly(1);
  a.x = view(rw, contiguous(rw, a.x), shape);
  auto outs = emit_batch_norm(rw, a, true, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({view(rw, outs[0], m.sizes)});
}

/// torch._refs.linalg _check_norm_dtype: a dtype given must be floating and at least as
/// wide as the input's (a promotion of the two gives the dtype back).
bool check_norm_dtype(Rewriter& rw, ir::ScalarType dtype, ir::ScalarType x) {
  Meta d = make_meta(dtype, {});
  Meta i = make_meta(x, {});
  if (ir::is_floating(dtype) && promote_types({&d, &i}, {}) == dtype) return true;
  rw.fail(ErrorCode::INVALID_GRAPH, std::string("linalg.vector_norm: the dtype of the input (") +
                                        std::string(ir::scalar_type_name(x)) +
                                        ") should be convertible without narrowing to the specified dtype (" +
                                        std::string(ir::scalar_type_name(dtype)) + ")");
  return false;
}

/// torch._refs.linalg.vector_norm (reduction_dtypes:
/// computed in float32 for float16/bfloat16, returned in `dtype` or the input's dtype):
/// ord 0: sum.dim_IntList(ne.Scalar(x, 0.0), dim, keepdim, dtype=result); ord ±inf:
/// amax/amin(abs(x), dim, keepdim) (+ _to_copy to the result dtype); otherwise x in the
/// computation dtype, abs unless ord is even, pow.Tensor_Scalar(ord), sum.dim_IntList(dim,
/// keepdim), pow.Tensor_Scalar(1.0 / ord), _to_copy to the result dtype. Refused: complex
/// inputs, and ord ±inf without dim (amax/amin take no None dim).
std::string vector_norm(Rewriter& rw, const std::string& x, const Number& ord, const ir::Argument& dim,
                        bool keepdim, std::optional<ir::ScalarType> dt) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (!ir::is_floating(m.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "linalg.vector_norm: expected a floating point tensor as input, got " +
                                          std::string(ir::scalar_type_name(m.dtype)) +
                                          " (complex inputs are not decomposed)");
    return {};
  }
  if (dt && !check_norm_dtype(rw, *dt, m.dtype)) return {};
  const ir::ScalarType result = dt.value_or(m.dtype);
  const ir::ScalarType compute = opmath_dtype(result);
  const double o = ord.as_double();
  if (o == 0.0) {
    std::string nz = rw.call("aten.ne.Scalar", {ir::arg_tensor(x), ir::arg_float(0.0)});
    return rw.call("aten.sum.dim_IntList", {ir::arg_tensor(nz), dim, ir::arg_bool(keepdim)},
                   {{"dtype", ir::arg_dtype(result)}});
  }
  if (std::isinf(o)) {
    if (dim.is_none()) {
      rw.unsupported("ord=" + std::string(o > 0 ? "inf" : "-inf") + " without dim (amax/amin need dims)");
      return {};
    }
    std::string a = rw.call("aten.abs.default", {ir::arg_tensor(x)});
    std::string r = rw.call(o > 0 ? "aten.amax.default" : "aten.amin.default",
                            {ir::arg_tensor(a), dim, ir::arg_bool(keepdim)});
    return to_dtype(rw, r, result);
  }
  std::string xc = to_dtype(rw, x, compute);
  bool even = ord.is_float() ? std::fmod(o, 2.0) == 0.0 : ord.i % 2 == 0;
  if (!even) xc = rw.call("aten.abs.default", {ir::arg_tensor(xc)});
  std::string p = rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(xc), number_arg(ord)});
  std::string s = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(p), dim, ir::arg_bool(keepdim)});
  std::string r = rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(s), ir::arg_float(1.0 / o)});
  return to_dtype(rw, r, result);
}

/// aten.linalg_vector_norm.default → torch._refs.linalg.vector_norm (see vector_norm()).
void linalg_vector_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Number ord = rw.take(rw.args().number("ord"));
  ir::Argument dim = rw.raw("dim");
  bool keepdim = rw.bool_("keepdim");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  rw.set_outputs({vector_norm(rw, x, ord, dim, keepdim, dt)});
}

/// aten.norm.ScalarOpt_dim → torch._refs.norm: p None becomes 2 (an int), then
/// torch.linalg.vector_norm(self, p, dim, keepdim), decomposed as vector_norm() does.
void norm_scalar_opt_dim_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Number p = rw.args().is_none("p") ? Number::of_int(2) : rw.take(rw.args().number("p"));
  ir::Argument dim = rw.raw("dim");
  bool keepdim = rw.bool_("keepdim");
  if (!rw.ok()) return;
  rw.set_outputs({vector_norm(rw, x, p, dim, keepdim, std::nullopt)});
}

/// The operands both weight-norm ops take: v, g, dim and the metas of v and g.
struct WeightNormOperands {
  std::string v, g;
  int64_t dim = 0;
  Meta vm, gm;
};
WeightNormOperands weight_norm_operands(Rewriter& rw) {
  WeightNormOperands o;
  o.v = rw.tensor("v");
  o.g = rw.tensor("g");
  o.dim = rw.int_("dim");
  if (!rw.ok()) return o;
  o.vm = rw.meta(o.v);
  o.gm = rw.meta(o.g);
  return o;
}

/// aten._weight_norm.default → at::native::_weight_norm (WeightNorm.cpp): v and g made
/// contiguous, then, where the fused kernel applies (dim 0 or v.dim() - 1, no float16),
/// _weight_norm_interface(v, g, dim) + getitem 0 (decomposed in turn). Refused: the other
/// path, v * (g / norm_except_dim(v, 2, dim)), taken for another dim or float16 operands.
void weight_norm_rule(Rewriter& rw) {
  auto [v, g, dim, vm, gm] = weight_norm_operands(rw);
  if (!rw.ok()) return;
  const bool half = vm.dtype == ir::ScalarType::Half || gm.dtype == ir::ScalarType::Half;
  const bool fused = !half && (dim == 0 || dim == static_cast<int64_t>(vm.rank()) - 1);
  if (!fused) {
    rw.unsupported(half ? "float16 operands (the unfused norm_except_dim path)"
                        : "dim " + std::to_string(dim) + " (only 0 and the last take the fused path)");
    return;
  }
  std::string vc = contiguous(rw, v);
  std::string gc = contiguous(rw, g);
  if (!rw.ok()) return;
  auto outs = rw.call_multi("aten._weight_norm_interface.default",
                            {ir::arg_tensor(vc), ir::arg_tensor(gc), ir::arg_int(dim)}, {}, {true, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten._weight_norm_interface.default → torch._decomp _weight_norm_interface:
/// norm = linalg.vector_norm(v, 2, [every dim i != dim], keepdim=True[, dtype=float32 when g
/// is bfloat16]) (the reference's v.norm(), decomposed as vector_norm() does), then
/// (v * (g / norm.to(g.dtype)), norm). v [O, I, K], g [O, 1, 1], dim 0 → ([O, I, K], [O, 1, 1]).
void weight_norm_interface_rule(Rewriter& rw) {
  auto [v, g, dim, vm, gm] = weight_norm_operands(rw);
  if (!rw.ok()) return;
  std::vector<int64_t> keep;  // as the reference builds it: i != dim, with dim as given
  for (int64_t i = 0; i < static_cast<int64_t>(vm.rank()); ++i) {
    if (i != dim) keep.push_back(i);
  }
  std::optional<ir::ScalarType> dt;
  if (gm.dtype == ir::ScalarType::BFloat16) dt = ir::ScalarType::Float;
  std::string norm = vector_norm(rw, v, Number::of_int(2), ir::arg_ints(keep), true, dt);
  std::string n = to_dtype(rw, norm, gm.dtype);
  std::string q = rw.call("aten.div.Tensor", {ir::arg_tensor(g), ir::arg_tensor(n)});
  std::string w = rw.call("aten.mul.Tensor", {ir::arg_tensor(v), ir::arg_tensor(q)});
  if (!rw.ok()) return;
  rw.set_outputs({w, norm});
}

/// aten.cosine_similarity.default → at::native::cosine_similarity (Distance.cpp): the
/// common dtype must be floating; integer operands are converted to it (_to_copy);
/// operands of different sizes are both expanded to the broadcast shape; each norm is
/// linalg_vector_norm(x, 2, [dim], True) (decomposed as vector_norm() does), cloned and
/// clamped to at least eps (the in-place clamp_min_ functionalized: clamp(clone, eps));
/// then sum((x1 / n1) * (x2 / n2), [dim]).
void cosine_similarity_rule(Rewriter& rw) {
  std::string x1 = rw.tensor("x1");
  std::string x2 = rw.tensor("x2");
  const int64_t dim = rw.int_("dim");
  const double eps = rw.float_("eps");
  Meta m1 = rw.meta(x1);
  Meta m2 = rw.meta(x2);
  if (!rw.ok()) return;
  const ir::ScalarType common = promote_types({&m1, &m2}, {});
  if (!ir::is_floating(common)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "expected common dtype to be floating point, yet common dtype is " +
                                          std::string(ir::scalar_type_name(common)));
    return;
  }
  if (!ir::is_floating(m1.dtype)) x1 = to_dtype(rw, x1, common);
  if (!ir::is_floating(m2.dtype)) x2 = to_dtype(rw, x2, common);
  if (m1.sizes != m2.sizes) {
    std::vector<SymPoly> shape = rw.take(broadcast_shapes({m1.sizes, m2.sizes}, &rw.symbols()));
    if (!rw.ok()) return;
    x1 = expand(rw, x1, shape);
    x2 = expand(rw, x2, shape);
  }
  auto norm = [&](const std::string& x) {
    std::string n = vector_norm(rw, x, Number::of_int(2), ir::arg_ints({dim}), true, std::nullopt);
    if (!rw.ok()) return std::string();
    return rw.call("aten.clone.default", {ir::arg_tensor(n)});
  };
  std::string n1 = norm(x1);
  std::string n2 = norm(x2);
  if (!rw.ok()) return;
  n1 = rw.call("aten.clamp.default", {ir::arg_tensor(n1), ir::arg_float(eps)});
  n2 = rw.call("aten.clamp.default", {ir::arg_tensor(n2), ir::arg_float(eps)});
  std::string d1 = rw.call("aten.div.Tensor", {ir::arg_tensor(x1), ir::arg_tensor(n1)});
  std::string d2 = rw.call("aten.div.Tensor", {ir::arg_tensor(x2), ir::arg_tensor(n2)});
  std::string prod = rw.call("aten.mul.Tensor", {ir::arg_tensor(d1), ir::arg_tensor(d2)});
  std::string r = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(prod), ir::arg_ints({dim})});
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.pairwise_distance.default → at::native::pairwise_distance (Distance.cpp):
/// norm(x1 - x2 + eps, p, [last dim of the higher-ranked operand], keepdim) — sub.Tensor,
/// add.Scalar, then norm.ScalarOpt_dim as torch._refs.norm decomposes it (vector_norm()).
void pairwise_distance_rule(Rewriter& rw) {
  std::string x1 = rw.tensor("x1");
  std::string x2 = rw.tensor("x2");
  const double p = rw.float_("p");
  const double eps = rw.float_("eps");
  const bool keepdim = rw.bool_("keepdim");
  Meta m1 = rw.meta(x1);
  Meta m2 = rw.meta(x2);
  if (!rw.ok()) return;
  const int64_t innermost = static_cast<int64_t>(std::max(m1.rank(), m2.rank())) - 1;
  std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(x1), ir::arg_tensor(x2)});
  d = rw.call("aten.add.Scalar", {ir::arg_tensor(d), ir::arg_float(eps)});
  std::string r = vector_norm(rw, d, Number::of_float(p), ir::arg_ints({innermost}), keepdim, std::nullopt);
  if (rw.ok()) rw.set_outputs({r});
}

}  // namespace

void add_norm_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.batch_norm.default", batch_norm_rule,
                 "at::native::batch_norm → native_batch_norm_decomposition (torch/_decomp)"});
  out.push_back({"aten.native_batch_norm.default", native_batch_norm_rule,
                 "torch._decomp.decompositions.native_batch_norm_decomposition"});
  out.push_back({"aten._batch_norm_no_update.default", batch_norm_no_update_rule,
                 "eval-mode batch norm → _native_batch_norm_legit_no_training"});
  out.push_back({"aten.layer_norm.default", layer_norm_rule, "at::native::layer_norm_symint (layer_norm.cpp)"});
  out.push_back({"aten.group_norm.default", group_norm_rule, "at::native::group_norm (group_norm.cpp)"});
  out.push_back({"aten.instance_norm.default", instance_norm_rule,
                 "at::native::instance_norm (Normalization.cpp) → batch_norm"});
  out.push_back(
      {"aten.linalg_vector_norm.default", linalg_vector_norm_rule, "torch._refs.linalg.vector_norm"});
  out.push_back(
      {"aten.norm.ScalarOpt_dim", norm_scalar_opt_dim_rule, "torch._refs.norm → linalg.vector_norm"});
  out.push_back({"aten._weight_norm.default", weight_norm_rule, "at::native::_weight_norm (WeightNorm.cpp)"});
  out.push_back({"aten._weight_norm_interface.default", weight_norm_interface_rule,
                 "torch._decomp _weight_norm_interface → linalg.vector_norm"});
  out.push_back({"aten.cosine_similarity.default", cosine_similarity_rule,
                 "at::native::cosine_similarity (Distance.cpp) → linalg_vector_norm, clamp, div, sum"});
  out.push_back({"aten.pairwise_distance.default", pairwise_distance_rule,
                 "at::native::pairwise_distance (Distance.cpp) → norm(x1 - x2 + eps)"});
  out.push_back({"aten.rms_norm.default", rms_norm_rule,
                 "at::native rms_norm_composite (layer_norm.cpp) / torch._decomp _fused_rms_norm"});
}

}  // namespace pteforge::passes::decomp
