// Loss functions: mse_loss, l1_loss, binary_cross_entropy, nll_loss_forward, nll_loss2d_forward,
// nll_loss, nll_loss2d, nll_loss_nd,
// cross_entropy_loss, kl_div, margin_ranking_loss, smooth_l1_loss, huber_loss,
// soft_margin_loss, binary_cross_entropy_with_logits.
#include "ir/float_repr.h"
#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

/// at::Reduction: the `reduction` argument of the loss ops.
enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

/// The node's `reduction`; values other than none/mean/sum are refused (ATen rejects them).
std::optional<int64_t> loss_reduction(Rewriter& rw) {
  int64_t r = rw.int_("reduction");
  if (!rw.ok()) return std::nullopt;
  if (r != kNone && r != kMean && r != kSum) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            std::string(rw.target()) + ": " + std::to_string(r) + " is not a valid value for reduction");
    return std::nullopt;
  }
  return r;
}

/// torch._decomp apply_loss_reduction: mean (mean.default), sum (torch.sum's sum.default in
/// its decomposed form sum.dim_IntList(loss, []), emitted directly so the node is named as
/// torch names it) or the loss itself.
std::string apply_loss_reduction(Rewriter& rw, const std::string& loss, int64_t reduction) {
  if (reduction == kMean) return rw.call("aten.mean.default", {ir::arg_tensor(loss)});
  if (reduction == kSum) return rw.call("aten.sum.dim_IntList", {ir::arg_tensor(loss), ir::arg_ints({})});
  return loss;
}

/// torch._decomp pw_cast_for_opmath for the two tensor operands of a loss: the dtype
/// both promote to (DEFAULT), computed in float32 for float16/bfloat16; each operand is
/// converted to the computation dtype (self first) and the result back.
struct LossOperands {
  std::string self, target;
  ir::ScalarType result = ir::ScalarType::Float;
};

/// Reads self and target, refusing non-floating results (the loss kernels take
/// floating-point tensors only).
std::optional<LossOperands> loss_operands(Rewriter& rw) {
  std::string self = rw.tensor("self");
  std::string target = rw.tensor("target");
  Meta sm = rw.meta(self);
  Meta tm = rw.meta(target);
  if (!rw.ok()) return std::nullopt;
  const ir::ScalarType result = promote_types({&sm, &tm}, {});
  if (!require_floating(rw, result, "operands")) return std::nullopt;
  const ir::ScalarType compute = opmath_dtype(result);
  LossOperands ops;
  ops.self = to_dtype(rw, self, compute);
  ops.target = to_dtype(rw, target, compute);
  ops.result = result;
  return ops;
}

/// aten.mse_loss.default → torch._decomp mse_loss (pw_cast_for_opmath, see LossOperands):
/// (self - target) ** 2 (sub.Tensor, pow.Tensor_Scalar 2), then the reduction (mean.default,
/// sum.default or none), then the cast back.
void mse_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  if (!reduction) return;
  std::optional<LossOperands> ops = loss_operands(rw);
  if (!ops) return;
  std::string diff = rw.call("aten.sub.Tensor", {ir::arg_tensor(ops->self), ir::arg_tensor(ops->target)});
  std::string sq = rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(diff), ir::arg_int(2)});
  rw.set_outputs({to_dtype(rw, apply_loss_reduction(rw, sq, *reduction), ops->result)});
}

/// aten.l1_loss.default → at::native::l1_loss (CompositeImplicitAutograd; torch._refs'
/// l1_loss is not registered): apply_loss_reduction((input - target).abs(), reduction) —
/// sub.Tensor, abs, then mean.default / sum (sum.dim_IntList) / none; no opmath casts
/// (float16 stays float16). Complex operands are refused.
void l1_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string self = rw.tensor("self");
  std::string target = rw.tensor("target");
  Meta sm = rw.meta(self);
  Meta tm = rw.meta(target);
  if (!reduction || !rw.ok()) return;
  if (!require_real(rw, {sm.dtype, tm.dtype})) return;
  std::string diff = rw.call("aten.sub.Tensor", {ir::arg_tensor(self), ir::arg_tensor(target)});
  std::string loss = rw.call("aten.abs.default", {ir::arg_tensor(diff)});
  rw.set_outputs({apply_loss_reduction(rw, loss, *reduction)});
}

/// aten.binary_cross_entropy.default → torch._decomp binary_cross_entropy (pw_cast_for_opmath
/// over self, target and weight: their promoted dtype, computed in float32 for
/// float16/bfloat16; each converted in that order and the result back):
/// (target - 1) * maximum(log1p(-self), self.new_full((), -100))
///   - target * maximum(log(self), self.new_full((), -100)), times weight when given, then
/// the reduction — sub.Tensor(target, 1), neg, log1p, new_full, maximum, mul.Tensor, log,
/// new_full, maximum, mul.Tensor, sub.Tensor, [mul.Tensor(loss, weight)], then mean.default /
/// sum (sum.dim_IntList) / none. Non-floating operands are refused (the kernel takes floating
/// point only), and so is a target whose sizes differ from self's (ATen refuses it).
void binary_cross_entropy_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string self = rw.tensor("self");
  std::string target = rw.tensor("target");
  std::optional<std::string> weight = rw.opt_tensor("weight");
  Meta sm = rw.meta(self);
  Meta tm = rw.meta(target);
  Meta wm = weight ? rw.meta(*weight) : Meta{};
  if (!reduction || !rw.ok()) return;
  if (!same_sizes(sm.sizes, tm.sizes, rw.symbols())) {
    rw.fail(ErrorCode::INVALID_GRAPH, "binary_cross_entropy: Using a target size (" +
                                          describe_meta(tm, rw.symbols()) +
                                          ") that is different to the input size (" +
                                          describe_meta(sm, rw.symbols()) + ") is deprecated.");
    return;
  }
  std::vector<const Meta*> metas{&sm, &tm};
  if (weight) metas.push_back(&wm);
  const ir::ScalarType result = promote_types(metas, {});
  if (!require_floating(rw, result, "operands")) return;
  const ir::ScalarType compute = opmath_dtype(result);
  self = to_dtype(rw, self, compute);
  target = to_dtype(rw, target, compute);
  if (weight) weight = to_dtype(rw, *weight, compute);
  auto floor_at_minus_100 = [&](const std::string& lg) {
    std::string full =
        rw.call("aten.new_full.default", {ir::arg_tensor(self), ir::arg_ints({}), ir::arg_int(-100)});
    return rw.call("aten.maximum.default", {ir::arg_tensor(lg), ir::arg_tensor(full)});
  };
  std::string tm1 = rw.call("aten.sub.Tensor", {ir::arg_tensor(target), ir::arg_int(1)});
  std::string neg = rw.call("aten.neg.default", {ir::arg_tensor(self)});
  std::string l1p = rw.call("aten.log1p.default", {ir::arg_tensor(neg)});
  std::string left =
      rw.call("aten.mul.Tensor", {ir::arg_tensor(tm1), ir::arg_tensor(floor_at_minus_100(l1p))});
  std::string lg = rw.call("aten.log.default", {ir::arg_tensor(self)});
  std::string right =
      rw.call("aten.mul.Tensor", {ir::arg_tensor(target), ir::arg_tensor(floor_at_minus_100(lg))});
  std::string loss = rw.call("aten.sub.Tensor", {ir::arg_tensor(left), ir::arg_tensor(right)});
  if (weight) loss = rw.call("aten.mul.Tensor", {ir::arg_tensor(loss), ir::arg_tensor(*weight)});
  rw.set_outputs({to_dtype(rw, apply_loss_reduction(rw, loss, *reduction), result)});
}

/// torch._decomp's _nll_loss_forward (no opmath casts), the body of both nll_loss_forward
/// and nll_loss2d_forward: self [C], [N, C] or [N, C, H, W], target [], [N] or [N, H, W],
/// channel dim c (1, or 0 for a 1-d self): with weight, self * weight.view(shape) (shape
/// all 1s but C at c; the weight itself for a 1-d self); safe_target = where(target !=
/// ignore_index, target, 0); result = where(target != ignore_index,
/// -gather(self, c, safe_target.unsqueeze(c)).squeeze(c), 0) — each torch.where with a number
/// is scalar_tensor + where.self and each target != ignore_index a new ne.Scalar. Reduction
/// none of a self of rank > 1: total_weight = self.new_full((), 0.0). Otherwise total_weight
/// is, with weight, where(ne, gather(w.expand(self.shape), c, safe_target_).squeeze(c),
/// 0).sum(), else (target != ignore_index).sum().to(self) (to.other: _to_copy with dtype,
/// layout, device and pin_memory=False); then sum: result.sum(), mean: result.sum() /
/// total_weight (sum.default as sum.dim_IntList(·, [])). The callers check the operands.
void nll_loss_forward_body(Rewriter& rw, std::string self, const std::string& target,
                           const std::optional<std::string>& weight, int64_t reduction,
                           const ir::Argument& ignore_index, const Meta& sm, const Meta& wm) {
  const int64_t c = sm.rank() < 2 ? 0 : 1;
  std::string w;
  if (weight) {
    if (sm.rank() > 1) {
      std::vector<SymPoly> shape(sm.rank(), SymPoly(1));
      shape[static_cast<size_t>(c)] = wm.sizes[0];
      w = view(rw, *weight, shape);
    } else {
      w = *weight;
    }
    self = rw.call("aten.mul.Tensor", {ir::arg_tensor(self), ir::arg_tensor(w)});
  }
  auto kept = [&]() { return rw.call("aten.ne.Scalar", {ir::arg_tensor(target), ignore_index}); };
  auto zero_where_ignored = [&](const std::string& x) {
    return where_scalar(rw, kept(), ir::arg_tensor(x), ir::arg_int(0), {Number::of_int(0)});
  };
  std::string safe_target = zero_where_ignored(target);
  std::string safe_target_ = unsqueeze(rw, safe_target, c);
  auto pick = [&](const std::string& x) {
    std::string g =
        rw.call("aten.gather.default", {ir::arg_tensor(x), ir::arg_int(c), ir::arg_tensor(safe_target_)});
    return squeeze_dims(rw, g, {c});
  };
  std::string picked = pick(self);
  std::string result = zero_where_ignored(rw.call("aten.neg.default", {ir::arg_tensor(picked)}));
  if (reduction == kNone && sm.rank() > 1) {
    std::string total =
        rw.call("aten.new_full.default", {ir::arg_tensor(self), ir::arg_ints({}), ir::arg_float(0.0)});
    rw.set_outputs({result, total});
    return;
  }
  auto sum = [&](const std::string& x) {
    return rw.call("aten.sum.dim_IntList", {ir::arg_tensor(x), ir::arg_ints({})});
  };
  std::string total;
  if (weight) {
    std::string we = expand(rw, w, sm.sizes);
    total = sum(zero_where_ignored(pick(we)));
  } else {
    std::string count = sum(kept());
    total = rw.call("aten._to_copy.default", {ir::arg_tensor(count)},
                    {{"dtype", ir::arg_dtype(sm.dtype)},
                     {"layout", ir::arg_layout(ir::Layout::Strided)},
                     {"device", ir::arg_device(sm.device)},
                     {"pin_memory", ir::arg_bool(false)}});
  }
  if (reduction == kSum) {
    result = sum(result);
  } else if (reduction == kMean) {
    result = rw.call("aten.div.Tensor", {ir::arg_tensor(sum(result)), ir::arg_tensor(total)});
  }
  rw.set_outputs({result, total});
}

/// The operands of nll_loss_forward / nll_loss2d_forward, read and their metadata looked up.
struct NllForwardArgs {
  int64_t reduction;
  std::string self, target;
  std::optional<std::string> weight;
  ir::Argument ignore_index;
  Meta sm, tm, wm;  ///< wm is empty without a weight
};

/// nullopt after failing (a bad reduction, a missing operand or metadata).
std::optional<NllForwardArgs> nll_forward_args(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  NllForwardArgs a{
      0, rw.tensor("self"), rw.tensor("target"), rw.opt_tensor("weight"), rw.raw("ignore_index"), {}, {}, {}};
  a.sm = rw.meta(a.self);
  a.tm = rw.meta(a.target);
  if (a.weight) a.wm = rw.meta(*a.weight);
  if (!reduction || !rw.ok()) return std::nullopt;
  a.reduction = *reduction;
  return a;
}

/// aten.nll_loss_forward.default → torch._decomp nll_loss_forward: its asserts, then
/// _nll_loss_forward (nll_loss_forward_body). Refused as the asserts refuse them: self not
/// 1-d or 2-d, target of rank > 1, batch sizes that differ, a weight that is not [C]; also a
/// bad reduction.
void nll_loss_forward_rule(Rewriter& rw) {
  std::optional<NllForwardArgs> args = nll_forward_args(rw);
  if (!args) return;
  const auto& [reduction, self, target, weight, ignore_index, sm, tm, wm] = *args;
  auto refuse = [&](const std::string& what) {
    rw.fail(ErrorCode::INVALID_GRAPH, "nll_loss_forward: " + what);
  };
  if (sm.rank() < 1 || sm.rank() > 2) return refuse("input tensor should be 1D or 2D");
  if (tm.rank() > 1) return refuse("0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch_dim = sm.rank() == 1 && tm.rank() == 0;
  if (!no_batch_dim && (tm.rank() == 0 || !(sm.sizes[0] == tm.sizes[0]))) {
    return refuse("size mismatch (got input: " + describe_meta(sm, rw.symbols()) +
                  ", target: " + describe_meta(tm, rw.symbols()) + ")");
  }
  const SymPoly n_classes = sm.sizes.back();
  if (weight && (wm.rank() != 1 || !(wm.sizes[0] == n_classes))) {
    return refuse(
        "weight tensor should be defined either for all " + rw.symbols().display(n_classes) +
        " classes or no classes but got weight tensor of shape: " + describe_meta(wm, rw.symbols()));
  }
  nll_loss_forward_body(rw, self, target, weight, reduction, ignore_index, sm, wm);
}

/// aten.nll_loss2d_forward.default → torch._decomp nll_loss2d_forward, which is
/// _nll_loss_forward itself (nll_loss_forward_body) with channel dim 1. The operands are
/// checked first as ATen's nll_loss2d kernels check them (nll_loss2d_operand_error); also a
/// bad reduction.
void nll_loss2d_forward_rule(Rewriter& rw) {
  std::optional<NllForwardArgs> args = nll_forward_args(rw);
  if (!args) return;
  const auto& [reduction, self, target, weight, ignore_index, sm, tm, wm] = *args;
  std::optional<Meta> weight_meta;
  if (weight) weight_meta = wm;
  if (std::optional<std::string> bad = nll_loss2d_operand_error(sm, tm, weight_meta, rw.symbols())) {
    rw.fail(ErrorCode::INVALID_GRAPH, *bad);
    return;
  }
  // A weight of C elements in another shape: view(shape) takes it as torch does.
  Meta w1 = wm;
  if (weight) w1.sizes = {sm.sizes[1]};
  nll_loss_forward_body(rw, self, target, weight, reduction, ignore_index, sm, w1);
}

/// aten.smooth_l1_loss.default → torch._decomp smooth_l1_loss (pw_cast_for_opmath, see
/// LossOperands): loss = abs(self - target), where(loss < beta, 0.5 * loss ** 2 / beta,
/// loss - 0.5 * beta) (sub.Tensor, abs, lt.Scalar, pow.Tensor_Scalar, mul.Tensor,
/// div.Tensor, sub.Tensor, where.self), the reduction, the cast back. A negative beta is
/// refused as ATen refuses it.
void smooth_l1_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  double beta = rw.float_("beta");
  if (!reduction || !rw.ok()) return;
  if (beta < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "smooth_l1_loss does not support negative values for beta.");
    return;
  }
  std::optional<LossOperands> ops = loss_operands(rw);
  if (!ops) return;
  std::string diff = rw.call("aten.sub.Tensor", {ir::arg_tensor(ops->self), ir::arg_tensor(ops->target)});
  std::string loss = rw.call("aten.abs.default", {ir::arg_tensor(diff)});
  std::string small = rw.call("aten.lt.Scalar", {ir::arg_tensor(loss), ir::arg_float(beta)});
  std::string sq = rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(loss), ir::arg_int(2)});
  std::string half = rw.call("aten.mul.Tensor", {ir::arg_tensor(sq), ir::arg_float(0.5)});
  std::string quad = rw.call("aten.div.Tensor", {ir::arg_tensor(half), ir::arg_float(beta)});
  std::string lin = rw.call("aten.sub.Tensor", {ir::arg_tensor(loss), ir::arg_float(0.5 * beta)});
  std::string w =
      rw.call("aten.where.self", {ir::arg_tensor(small), ir::arg_tensor(quad), ir::arg_tensor(lin)});
  rw.set_outputs({to_dtype(rw, apply_loss_reduction(rw, w, *reduction), ops->result)});
}

/// aten.huber_loss.default → torch._refs.nn.functional huber_loss (DEFAULT type promotion,
/// the same casts as LossOperands): z = abs(input - target), where(z < delta, 0.5 * z * z,
/// delta * (z - 0.5 * delta)) (sub.Tensor, abs, lt.Scalar, mul.Tensor, mul.Tensor,
/// sub.Tensor, mul.Tensor, where.self), the reduction, the cast back. A non-positive delta is
/// refused as the reference refuses it.
void huber_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  double delta = rw.float_("delta");
  if (!reduction || !rw.ok()) return;
  if (!(delta > 0)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "huber_loss does not support non-positive values for delta.");
    return;
  }
  std::optional<LossOperands> ops = loss_operands(rw);
  if (!ops) return;
  std::string diff = rw.call("aten.sub.Tensor", {ir::arg_tensor(ops->self), ir::arg_tensor(ops->target)});
  std::string z = rw.call("aten.abs.default", {ir::arg_tensor(diff)});
  std::string small = rw.call("aten.lt.Scalar", {ir::arg_tensor(z), ir::arg_float(delta)});
  std::string half = rw.call("aten.mul.Tensor", {ir::arg_tensor(z), ir::arg_float(0.5)});
  std::string quad = rw.call("aten.mul.Tensor", {ir::arg_tensor(half), ir::arg_tensor(z)});
  std::string shifted = rw.call("aten.sub.Tensor", {ir::arg_tensor(z), ir::arg_float(0.5 * delta)});
  std::string lin = rw.call("aten.mul.Tensor", {ir::arg_tensor(shifted), ir::arg_float(delta)});
  std::string w =
      rw.call("aten.where.self", {ir::arg_tensor(small), ir::arg_tensor(quad), ir::arg_tensor(lin)});
  rw.set_outputs({to_dtype(rw, apply_loss_reduction(rw, w, *reduction), ops->result)});
}

/// aten.soft_margin_loss.default → torch._decomp soft_margin_loss (pw_cast_for_opmath, see
/// LossOperands): log1p(exp(-self * target)) (neg, mul.Tensor, exp, log1p), then the reduction
/// (mean.default, sum.dim_IntList or none), then the cast back. Non-floating operands and bad
/// reductions are refused.
void soft_margin_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  if (!reduction) return;
  std::optional<LossOperands> ops = loss_operands(rw);
  if (!ops) return;
  std::string neg = rw.call("aten.neg.default", {ir::arg_tensor(ops->self)});
  std::string prod = rw.call("aten.mul.Tensor", {ir::arg_tensor(neg), ir::arg_tensor(ops->target)});
  std::string e = rw.call("aten.exp.default", {ir::arg_tensor(prod)});
  std::string loss = rw.call("aten.log1p.default", {ir::arg_tensor(e)});
  rw.set_outputs({to_dtype(rw, apply_loss_reduction(rw, loss, *reduction), ops->result)});
}

/// aten.binary_cross_entropy_with_logits.default → torch._decomp
/// binary_cross_entropy_with_logits (no opmath casts of its own): with pos_weight, log_weight
/// = (pos_weight - 1) * target + 1 (sub.Tensor, mul.Tensor, add.Tensor) and loss = (1 - target)
/// * self - log_weight * logsigmoid(self); without, loss = (1 - target) * self -
/// logsigmoid(self). 1 - target is rsub's form sub.Tensor(1, target); F.logsigmoid is
/// log_sigmoid_forward's output (see log_sigmoid_forward, float16/bfloat16 in float32 and
/// back). Times weight when given (mul.Tensor), then the reduction. A non-floating self, a
/// cuda/xpu self and bad reductions are refused.
void binary_cross_entropy_with_logits_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string self = rw.tensor("self");
  std::string target = rw.tensor("target");
  std::optional<std::string> weight = rw.opt_tensor("weight");
  std::optional<std::string> pos_weight = rw.opt_tensor("pos_weight");
  Meta sm = rw.meta(self);
  if (!reduction || !rw.ok() || !require_floating(rw, sm.dtype)) return;
  std::string log_weight;
  if (pos_weight) {
    std::string pm1 = rw.call("aten.sub.Tensor", {ir::arg_tensor(*pos_weight), ir::arg_int(1)});
    std::string scaled = rw.call("aten.mul.Tensor", {ir::arg_tensor(pm1), ir::arg_tensor(target)});
    log_weight = rw.call("aten.add.Tensor", {ir::arg_tensor(scaled), ir::arg_int(1)});
  }
  std::string one_minus = rw.call("aten.sub.Tensor", {ir::arg_int(1), ir::arg_tensor(target)});
  std::string left = rw.call("aten.mul.Tensor", {ir::arg_tensor(one_minus), ir::arg_tensor(self)});
  std::string ls = log_sigmoid_forward(rw, self, false).first;
  if (!rw.ok()) return;
  if (pos_weight) ls = rw.call("aten.mul.Tensor", {ir::arg_tensor(log_weight), ir::arg_tensor(ls)});
  std::string loss = rw.call("aten.sub.Tensor", {ir::arg_tensor(left), ir::arg_tensor(ls)});
  if (weight) loss = rw.call("aten.mul.Tensor", {ir::arg_tensor(loss), ir::arg_tensor(*weight)});
  rw.set_outputs({apply_loss_reduction(rw, loss, *reduction)});
}

// ---- nll_loss, nll_loss_nd, cross_entropy_loss (at::native, LossNLL.cpp) ----------------------

/// The first result of `op` (aten.nll_loss_forward.default or aten.nll_loss2d_forward.default)
/// on (self, target, weight, reduction, ignore_index): what at::native::nll_loss and
/// nll_loss2d return (the op's own rule decomposes the call). Empty after failing.
std::string nll_forward_output(Rewriter& rw, const char* op, const std::string& self,
                               const std::string& target, const std::optional<std::string>& weight,
                               int64_t reduction, const ir::Argument& ignore_index) {
  std::vector<std::string> outs =
      rw.call_multi(op,
                    {ir::arg_tensor(self), ir::arg_tensor(target),
                     weight ? ir::arg_tensor(*weight) : ir::arg_none(), ir::arg_int(reduction), ignore_index},
                    {}, {true, false});
  return outs.empty() ? std::string() : outs.front();
}

/// at::native::nll_loss_symint: nll_loss_forward's first result.
std::string nll_loss_call(Rewriter& rw, const std::string& self, const std::string& target,
                          const std::optional<std::string>& weight, int64_t reduction,
                          const ir::Argument& ignore_index) {
  return nll_forward_output(rw, "aten.nll_loss_forward.default", self, target, weight, reduction,
                            ignore_index);
}

/// at::native::nll_loss2d_symint: nll_loss2d_forward's first result.
std::string nll_loss2d_call(Rewriter& rw, const std::string& self, const std::string& target,
                            const std::optional<std::string>& weight, int64_t reduction,
                            const ir::Argument& ignore_index) {
  return nll_forward_output(rw, "aten.nll_loss2d_forward.default", self, target, weight, reduction,
                            ignore_index);
}

/// at::native::nll_loss_nd: self of rank >= 1, batch sizes equal unless self is 1-d; a
/// 1-d or 2-d self is nll_loss (nll_loss_forward), a 4-d one nll_loss2d
/// (nll_loss2d_forward). A 3-d or 5-d and larger self [N, C, d...] needs target [N, d...]
/// ("Expected target size ..."), is made contiguous (a clone only when it is not) and viewed
/// as [N, C, 1, -1] ([N, C, 0, 0] when empty), the target likewise as [N, 1, -1] ([N, 0,
/// 0]); then nll_loss2d, whose output for reduction none is viewed back as [N, d...]. Sizes
/// that are not all concrete are refused (whether the input is empty decides the view).
/// Empty after failing.
std::string nll_loss_nd(Rewriter& rw, const std::string& self, const std::string& target,
                        const std::optional<std::string>& weight, int64_t reduction,
                        const ir::Argument& ignore_index) {
  Meta sm = rw.meta(self);
  Meta tm = rw.meta(target);
  if (!rw.ok()) return {};
  if (sm.rank() < 1) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "Expected 1 or more dimensions (got " + std::to_string(sm.rank()) + ")");
    return {};
  }
  if (sm.rank() != 1 && (tm.rank() == 0 || !(sm.sizes[0] == tm.sizes[0]))) {
    const std::string tb = tm.rank() == 0 ? std::string("none") : rw.symbols().display(tm.sizes[0]);
    rw.fail(ErrorCode::INVALID_GRAPH, "Expected input batch_size (" + rw.symbols().display(sm.sizes[0]) +
                                          ") to match target batch_size (" + tb + ").");
    return {};
  }
  if (sm.rank() <= 2) return nll_loss_call(rw, self, target, weight, reduction, ignore_index);
  if (sm.rank() == 4) return nll_loss2d_call(rw, self, target, weight, reduction, ignore_index);
  std::vector<SymPoly> out_size(sm.sizes.begin() + 2, sm.sizes.end());
  out_size.insert(out_size.begin(), sm.sizes[0]);
  if (!std::equal(tm.sizes.begin() + (tm.rank() > 0 ? 1 : 0), tm.sizes.end(), sm.sizes.begin() + 2,
                  sm.sizes.end()) ||
      tm.rank() != sm.rank() - 1) {
    rw.fail(ErrorCode::INVALID_GRAPH, "Expected target size " + shape_text(out_size, rw.symbols()) +
                                          ", got " + shape_text(tm.sizes, rw.symbols()));
    return {};
  }
  if (!sm.numel().is_constant() || !tm.numel().is_constant()) {
    rw.unsupported("an input of rank " + std::to_string(sm.rank()) + " with symbolic sizes " +
                   describe_meta(sm, rw.symbols()) + " (torch views it by whether it is empty)");
    return {};
  }
  const SymPoly n = sm.sizes[0];
  const SymPoly c = sm.sizes[1];
  const std::string self_c = contiguous(rw, self);
  const std::string target_c = contiguous(rw, target);
  if (!rw.ok()) return {};
  std::string input = sm.numel().value() > 0 ? view(rw, self_c, {n, c, SymPoly(1), SymPoly(-1)})
                                             : view(rw, self_c, {n, c, SymPoly(0), SymPoly(0)});
  std::string tgt = tm.numel().value() > 0 ? view(rw, target_c, {n, SymPoly(1), SymPoly(-1)})
                                           : view(rw, target_c, {n, SymPoly(0), SymPoly(0)});
  std::string out = nll_loss2d_call(rw, input, tgt, weight, reduction, ignore_index);
  if (reduction != kNone || !rw.ok()) return out;
  return view(rw, out, out_size);
}

/// aten.nll_loss.default → at::native::nll_loss_symint (nll_loss_forward's output),
/// aten.nll_loss2d.default → at::native::nll_loss2d_symint (nll_loss2d_forward's output), and
/// aten.nll_loss_nd.default → at::native::nll_loss_nd_symint (see nll_loss_nd).
void nll_loss_rule(Rewriter& rw) {
  const bool nd = rw.target() == "aten.nll_loss_nd.default";
  const bool two_d = rw.target() == "aten.nll_loss2d.default";
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string self = rw.tensor("self");
  std::string target = rw.tensor("target");
  std::optional<std::string> weight = rw.opt_tensor("weight");
  ir::Argument ignore_index = rw.raw("ignore_index");
  if (!reduction || !rw.ok()) return;
  std::string r = nd      ? nll_loss_nd(rw, self, target, weight, *reduction, ignore_index)
                  : two_d ? nll_loss2d_call(rw, self, target, weight, *reduction, ignore_index)
                          : nll_loss_call(rw, self, target, weight, *reduction, ignore_index);
  if (rw.ok()) rw.set_outputs({r});
}

/// at::native::cross_entropy_loss_label_smoothing for class-index targets, given
/// input = log_softmax(self) and c its class dim: nll = nll_loss_nd(input, ...); smooth =
/// -sum(input * weight viewed along c, [c]) (without a weight -sum(input, [c]));
/// masked_fill(smooth, target == ignore_index, 0.0); none: smooth; sum: sum(smooth);
/// mean: sum(smooth) / the weights of the kept targets (the fake-tensor branch: gather of
/// weight at masked_fill(target, ignored, 0), flattened, masked_fill(ignored, 0), sum), or
/// without a weight / sum(~ignored); then (1 - ls) * nll + ret * (ls / C) (mul.Scalar,
/// mul.Scalar, add.Tensor). The number of classes C is concrete (cross_entropy_loss_rule
/// checks it). Empty after failing.
std::string cross_entropy_label_smoothing(Rewriter& rw, const std::string& input, const std::string& target,
                                          const std::optional<std::string>& weight, int64_t reduction,
                                          const ir::Argument& ignore_index, double ls) {
  Meta im = rw.meta(input);
  Meta tm = rw.meta(target);
  if (!rw.ok()) return {};
  std::string nll = nll_loss_nd(rw, input, target, weight, reduction, ignore_index);
  if (!rw.ok()) return {};
  const int64_t c = im.rank() == 1 ? 0 : 1;
  const SymPoly& n_classes = im.sizes[static_cast<size_t>(c)];  // concrete: the caller checks
  std::string smooth;
  if (weight) {
    std::vector<SymPoly> shape(im.rank(), SymPoly(1));
    shape[static_cast<size_t>(c)] = n_classes;
    std::string w = view(rw, *weight, shape);
    std::string p = rw.call("aten.mul.Tensor", {ir::arg_tensor(input), ir::arg_tensor(w)});
    smooth = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(p), ir::arg_ints({c})});
  } else {
    smooth = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(input), ir::arg_ints({c})});
  }
  smooth = rw.call("aten.neg.default", {ir::arg_tensor(smooth)});
  std::string ignored = rw.call("aten.eq.Scalar", {ir::arg_tensor(target), ignore_index});
  smooth = rw.call("aten.masked_fill.Scalar",
                   {ir::arg_tensor(smooth), ir::arg_tensor(ignored), ir::arg_float(0.0)});
  auto sum_all = [&](const std::string& x) {
    return rw.call("aten.sum.dim_IntList", {ir::arg_tensor(x), ir::arg_ints({})});
  };
  // flatten(): a 0-d tensor becomes [1], a 1-d one stays as it is, a larger one is viewed as
  // [numel] (at::native::flatten's reshape).
  auto flatten = [&](const std::string& x) {
    if (tm.rank() == 1) return x;
    return view(rw, x, {tm.rank() == 0 ? SymPoly(1) : tm.numel()});
  };
  std::string ret = smooth;
  if (reduction == kSum) {
    ret = sum_all(smooth);
  } else if (reduction == kMean) {
    std::string denominator;
    if (weight) {
      std::string filtered = rw.call("aten.masked_fill.Scalar",
                                     {ir::arg_tensor(target), ir::arg_tensor(ignored), ir::arg_int(0)});
      std::string picked = rw.call("aten.gather.default", {ir::arg_tensor(*weight), ir::arg_int(0),
                                                           ir::arg_tensor(flatten(filtered))});
      std::string kept = rw.call("aten.masked_fill.Scalar",
                                 {ir::arg_tensor(picked), ir::arg_tensor(flatten(ignored)), ir::arg_int(0)});
      denominator = sum_all(kept);
      std::string total = sum_all(smooth);
      ret = rw.call("aten.div.Tensor", {ir::arg_tensor(total), ir::arg_tensor(denominator)});
    } else {
      // As written: ~ignored first, then the two sums left to right (the order in which a
      // compiler evaluates the operands of `/` is not fixed; only node names depend on it).
      std::string kept = rw.call("aten.bitwise_not.default", {ir::arg_tensor(ignored)});
      std::string total = sum_all(smooth);
      std::string count = sum_all(kept);
      ret = rw.call("aten.div.Tensor", {ir::arg_tensor(total), ir::arg_tensor(count)});
    }
  }
  std::string a = rw.call("aten.mul.Scalar", {ir::arg_tensor(nll), ir::arg_float(1 - ls)});
  std::string b = rw.call("aten.mul.Scalar",
                          {ir::arg_tensor(ret), ir::arg_float(ls / static_cast<double>(n_classes.value()))});
  return rw.call("aten.add.Tensor", {ir::arg_tensor(a), ir::arg_tensor(b)});
}

/// aten.cross_entropy_loss.default → at::native::cross_entropy_loss_symint. The class dim
/// c is 1 (0 for a 1-d self); log_softmax(self, c, self's dtype) is _log_softmax(self, c,
/// False). Class-index targets (sizes differ from self's): nll_loss_nd of it. Class
/// probabilities (target sizes equal self's; floating target, ignore_index < 0), as
/// cross_entropy_loss_prob_target: with label smoothing ls, target * (1 - ls) + ls / C
/// (mul.Scalar, add.Scalar); p = log_softmax * target (mul.Tensor), times the weight
/// (viewed as [1, C, 1, ...] beyond 1-d); none: neg(sum(p, [c])), sum: neg(sum(p)), mean:
/// neg(sum(p)) / (numel / C) (div.Scalar, integer quotient). Class-index targets with label
/// smoothing: see cross_entropy_label_smoothing. Refused: a probability mean over an empty
/// input or over symbolic sizes, label smoothing over a symbolic number of classes.
void cross_entropy_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string self = rw.tensor("self");
  std::string target = rw.tensor("target");
  std::optional<std::string> weight = rw.opt_tensor("weight");
  ir::Argument ignore_index = rw.raw("ignore_index");
  const double label_smoothing = rw.float_("label_smoothing");
  Meta sm = rw.meta(self);
  Meta tm = rw.meta(target);
  Meta wm = weight ? rw.meta(*weight) : Meta{};
  if (!reduction || !rw.ok()) return;
  if (sm.rank() < 1) {
    rw.fail(ErrorCode::INVALID_GRAPH, "Expected 1 or more dimensions (got 0)");
    return;
  }
  const int64_t c = sm.rank() == 1 ? 0 : 1;
  const SymPoly& n_classes = sm.sizes[static_cast<size_t>(c)];
  // A positive label smoothing, in both target forms: at most 1.0 (torch's check), over a
  // concrete number of classes (its ls / C is a trace-time number).
  auto smoothing_ok = [&]() {
    if (label_smoothing > 1.0) {
      rw.fail(ErrorCode::INVALID_GRAPH,
              "label_smoothing must be between 0.0 and 1.0. Got: " + ir::python_float_repr(label_smoothing));
      return false;
    }
    if (!n_classes.is_constant()) {
      rw.unsupported("label smoothing over a symbolic number of classes " + rw.symbols().display(n_classes));
      return false;
    }
    return true;
  };
  auto log_softmax = [&]() {
    return rw.call("aten._log_softmax.default", {ir::arg_tensor(self), ir::arg_int(c), ir::arg_bool(false)});
  };
  if (sm.sizes != tm.sizes) {
    if (label_smoothing > 0.0 && !smoothing_ok()) return;
    std::string r = label_smoothing > 0.0
                        ? cross_entropy_label_smoothing(rw, log_softmax(), target, weight, *reduction,
                                                        ignore_index, label_smoothing)
                        : nll_loss_nd(rw, log_softmax(), target, weight, *reduction, ignore_index);
    if (rw.ok()) rw.set_outputs({r});
    return;
  }
  if (!ir::is_floating(tm.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "Expected floating point type for target with class probabilities, got " +
                std::string(ir::scalar_type_name(tm.dtype)));
    return;
  }
  const ir::Argument* ii = rw.args().find("ignore_index");
  if (ii && ii->tag() == ir::ArgTag::Int && ii->get<ir::ArgTag::Int>() >= 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "ignore_index is not supported for floating point target");
    return;
  }
  if (weight && (wm.rank() != 1 || !(wm.sizes[0] == n_classes))) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "cross_entropy: weight tensor should be defined either for all " +
                rw.symbols().display(n_classes) +
                " classes or no classes but got weight tensor of shape: " + describe_meta(wm, rw.symbols()));
    return;
  }
  if (*reduction == kMean && !(n_classes.is_constant() && sm.numel().is_constant())) {
    rw.unsupported("a mean over symbolic sizes " + describe_meta(sm, rw.symbols()) +
                   " (torch divides by numel() / classes, a trace-time number)");
    return;
  }
  if (*reduction == kMean && sm.numel().value() == 0) {
    rw.unsupported("a mean over an empty input (torch fills the result with NaN in place)");
    return;
  }
  std::string input = log_softmax();
  if (label_smoothing > 0.0) {
    if (!smoothing_ok()) return;
    std::string scaled =
        rw.call("aten.mul.Scalar", {ir::arg_tensor(target), ir::arg_float(1 - label_smoothing)});
    target = rw.call(
        "aten.add.Scalar",
        {ir::arg_tensor(scaled), ir::arg_float(label_smoothing / static_cast<double>(n_classes.value()))});
  }
  std::string p = rw.call("aten.mul.Tensor", {ir::arg_tensor(input), ir::arg_tensor(target)});
  if (weight) {
    std::string w = *weight;
    if (sm.rank() > 1) {
      std::vector<SymPoly> shape(sm.rank(), SymPoly(1));
      shape[1] = wm.sizes[0];
      w = view(rw, w, shape);
    }
    p = rw.call("aten.mul.Tensor", {ir::arg_tensor(p), ir::arg_tensor(w)});
  }
  std::string r;
  if (*reduction == kNone) {
    r = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(p), ir::arg_ints({c})});
    r = rw.call("aten.neg.default", {ir::arg_tensor(r)});
  } else {
    r = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(p), ir::arg_ints({})});
    r = rw.call("aten.neg.default", {ir::arg_tensor(r)});
    if (*reduction == kMean) {
      r = rw.call("aten.div.Scalar",
                  {ir::arg_tensor(r), ir::arg_int(sm.numel().value() / n_classes.value())});
    }
  }
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.kl_div.default → at::native::kl_div (Loss.cpp): real floating operands only
/// (torch's checks); log_target: exp(target) * (target - input); else xlogy(target,
/// target) - target * input (xlogy.Tensor, decomposed in turn); then the reduction
/// (apply_loss_reduction: mean.default, or sum.dim_IntList(x, [])).
void kl_div_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string input = rw.tensor("self");
  std::string target = rw.tensor("target");
  const bool log_target = rw.bool_("log_target");
  Meta im = rw.meta(input);
  Meta tm = rw.meta(target);
  if (!reduction || !rw.ok()) return;
  if (is_complex_dtype(im.dtype) || is_complex_dtype(tm.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "kl_div: Complex inputs not supported.");
    return;
  }
  if (!ir::is_floating(im.dtype) || !ir::is_floating(tm.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "kl_div: Integral inputs not supported.");
    return;
  }
  std::string out;
  if (log_target) {
    std::string e = rw.call("aten.exp.default", {ir::arg_tensor(target)});
    std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(target), ir::arg_tensor(input)});
    out = rw.call("aten.mul.Tensor", {ir::arg_tensor(e), ir::arg_tensor(d)});
  } else {
    std::string x = rw.call("aten.xlogy.Tensor", {ir::arg_tensor(target), ir::arg_tensor(target)});
    std::string m = rw.call("aten.mul.Tensor", {ir::arg_tensor(target), ir::arg_tensor(input)});
    out = rw.call("aten.sub.Tensor", {ir::arg_tensor(x), ir::arg_tensor(m)});
  }
  if (!rw.ok()) return;
  rw.set_outputs({apply_loss_reduction(rw, out, *reduction)});
}

/// aten.margin_ranking_loss.default → at::native::margin_ranking_loss (Loss.cpp):
/// (-target * (input1 - input2) + margin) clamped at 0 (neg, sub.Tensor, mul.Tensor,
/// add.Scalar; the in-place clamp_min_ functionalized: clamp(x, 0)), then the reduction.
void margin_ranking_loss_rule(Rewriter& rw) {
  std::optional<int64_t> reduction = loss_reduction(rw);
  std::string a = rw.tensor("input1");
  std::string b = rw.tensor("input2");
  std::string target = rw.tensor("target");
  const double margin = rw.float_("margin");
  if (!reduction || !rw.ok()) return;
  std::string n = rw.call("aten.neg.default", {ir::arg_tensor(target)});
  std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(a), ir::arg_tensor(b)});
  std::string m = rw.call("aten.mul.Tensor", {ir::arg_tensor(n), ir::arg_tensor(d)});
  std::string u = rw.call("aten.add.Scalar", {ir::arg_tensor(m), ir::arg_float(margin)});
  std::string c = rw.call("aten.clamp.default", {ir::arg_tensor(u), ir::arg_int(0)});
  if (!rw.ok()) return;
  rw.set_outputs({apply_loss_reduction(rw, c, *reduction)});
}

}  // namespace

void add_loss_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.mse_loss.default", mse_loss_rule, "torch._decomp.decompositions.mse_loss"});
  out.push_back({"aten.binary_cross_entropy.default", binary_cross_entropy_rule,
                 "torch._decomp.decompositions.binary_cross_entropy"});
  out.push_back({"aten.binary_cross_entropy_with_logits.default", binary_cross_entropy_with_logits_rule,
                 "torch._decomp.decompositions.binary_cross_entropy_with_logits"});
  out.push_back({"aten.nll_loss_forward.default", nll_loss_forward_rule,
                 "torch._decomp.decompositions.nll_loss_forward"});
  out.push_back({"aten.nll_loss2d_forward.default", nll_loss2d_forward_rule,
                 "torch._decomp.decompositions.nll_loss2d_forward"});
  out.push_back({"aten.nll_loss.default", nll_loss_rule, "at::native::nll_loss_symint (LossNLL.cpp)"});
  out.push_back({"aten.nll_loss2d.default", nll_loss_rule, "at::native::nll_loss2d_symint (LossNLL2d.cpp)"});
  out.push_back({"aten.nll_loss_nd.default", nll_loss_rule, "at::native::nll_loss_nd_symint (LossNLL.cpp)"});
  out.push_back({"aten.cross_entropy_loss.default", cross_entropy_loss_rule,
                 "at::native::cross_entropy_loss_symint (LossNLL.cpp)"});
  out.push_back({"aten.kl_div.default", kl_div_rule, "at::native::kl_div (Loss.cpp)"});
  out.push_back({"aten.margin_ranking_loss.default", margin_ranking_loss_rule,
                 "at::native::margin_ranking_loss (Loss.cpp)"});
  out.push_back({"aten.l1_loss.default", l1_loss_rule, "at::native::l1_loss (Loss.cpp)"});
  out.push_back(
      {"aten.smooth_l1_loss.default", smooth_l1_loss_rule, "torch._decomp.decompositions.smooth_l1_loss"});
  out.push_back({"aten.huber_loss.default", huber_loss_rule, "torch._refs.nn.functional.huber_loss"});
  out.push_back({"aten.soft_margin_loss.default", soft_margin_loss_rule,
                 "torch._decomp.decompositions.soft_margin_loss"});
}

}  // namespace pteforge::passes::decomp
