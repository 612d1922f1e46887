// Activations, softmax and dropout.
#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

/// A positional Scalar argument of the op with an int schema default, and the
/// reference's own default for it.
struct RefScalar {
  std::string_view name;
  int64_t schema_default;
  std::optional<Number> ref_default;  ///< nullopt: the reference takes None
  bool float_default = false;         ///< the schema default is the float schema_default (celu's 1.0)
};

/// The Scalar arguments `args` (positional, in schema order) as the Python reference
/// sees them: the dispatcher hands a decomposition the node's arguments after dropping
/// the trailing ones that are left out or equal to their schema default
/// (parseIValuesToPyArgsKwargs in torch/csrc/autograd/python_variable.cpp); a dropped
/// one takes the reference's default, and a default followed by a non-default argument
/// reaches the reference as passed (elu(x, 1, 2) has alpha the int 1).
std::vector<std::optional<Number>> ref_scalars(Rewriter& rw, std::initializer_list<RefScalar> args) {
  std::vector<std::optional<Number>> out(args.size());
  bool trailing = true;  // every later argument was dropped
  for (size_t k = args.size(); k-- > 0;) {
    const RefScalar& a = *(args.begin() + k);
    if (!rw.args().passed(a.name)) {
      out[k] = a.ref_default;
      continue;
    }
    Number n = rw.take(rw.args().number(a.name));
    // IValue equality compares tags: an int never equals a float default, nor a float an int one.
    const bool is_default =
        a.float_default ? n.kind == Number::Kind::Float && n.d == static_cast<double>(a.schema_default)
                        : n.kind == Number::Kind::Int && n.i == a.schema_default;
    if (trailing && is_default) {
      out[k] = a.ref_default;
      continue;
    }
    out[k] = n;
    trailing = false;
  }
  return out;
}

/// Python's a * b for two numbers: int when both are ints (or bools), else float.
Number times(Rewriter& rw, const Number& a, const Number& b) {
  if (a.is_float() || b.is_float()) return Number::of_float(a.as_double() * b.as_double());
  int64_t r = 0;
  if (__builtin_mul_overflow(a.i, b.i, &r)) rw.unsupported("a scalar product past int64");
  return Number::of_int(r);
}

/// aten.silu.default → torch._decomp silu: self * sigmoid(self) (sigmoid + mul.Tensor).
void silu_rule(Rewriter& rw) {
  OpMath om{rw};
  std::string x = om.up(rw.tensor("self"));
  std::string s = rw.call("aten.sigmoid.default", {ir::arg_tensor(x)});
  rw.set_outputs({om.down(rw.call("aten.mul.Tensor", {ir::arg_tensor(x), ir::arg_tensor(s)}))});
}

/// aten.hardswish.default → torch._decomp hardswish:
/// self * clamp(clamp(self + 3, min=0), max=6) / 6 (add.Tensor, clamp, clamp, mul.Tensor, div.Tensor).
void hardswish_rule(Rewriter& rw) {
  OpMath om{rw};
  std::string x = om.up(rw.tensor("self"));
  std::string a = rw.call("aten.add.Tensor", {ir::arg_tensor(x), ir::arg_int(3)});
  std::string c0 = rw.call("aten.clamp.default", {ir::arg_tensor(a), ir::arg_int(0)});
  std::string c1 = rw.call("aten.clamp.default", {ir::arg_tensor(c0), ir::arg_none(), ir::arg_int(6)});
  std::string m = rw.call("aten.mul.Tensor", {ir::arg_tensor(x), ir::arg_tensor(c1)});
  rw.set_outputs({om.down(rw.call("aten.div.Tensor", {ir::arg_tensor(m), ir::arg_int(6)}))});
}

/// aten.hardsigmoid.default → torch._decomp hardsigmoid:
/// clamp(clamp(self + 3, min=0), max=6) / 6 (add.Tensor, clamp, clamp, div.Tensor).
void hardsigmoid_rule(Rewriter& rw) {
  OpMath om{rw};
  std::string x = om.up(rw.tensor("self"));
  std::string a = rw.call("aten.add.Tensor", {ir::arg_tensor(x), ir::arg_int(3)});
  std::string c0 = rw.call("aten.clamp.default", {ir::arg_tensor(a), ir::arg_int(0)});
  std::string c1 = rw.call("aten.clamp.default", {ir::arg_tensor(c0), ir::arg_none(), ir::arg_int(6)});
  rw.set_outputs({om.down(rw.call("aten.div.Tensor", {ir::arg_tensor(c1), ir::arg_int(6)}))});
}

/// aten.elu.default → torch._refs.nn.functional.elu (elementwise_type_promotion_wrapper,
/// DEFAULT: float16/bfloat16 computed in float32): where(a > 0, scale * a,
/// (alpha * scale) * expm1(a * input_scale)) — gt.Scalar, mul.Tensor, mul.Tensor, expm1,
/// mul.Tensor, where.self. Dropped Scalars take the reference's defaults (1.0; see ref_scalars).
/// Non-floating inputs are refused.
void elu_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  const Number one = Number::of_float(1.0);
  std::vector<std::optional<Number>> scalars =
      ref_scalars(rw, {{"alpha", 1, one}, {"scale", 1, one}, {"input_scale", 1, one}});
  Meta m = rw.meta(in);
  if (!rw.ok() || !require_floating(rw, m.dtype)) return;
  const Number alpha = *scalars[0], scale = *scalars[1], input_scale = *scalars[2];
  Number neg_coef = times(rw, alpha, scale);
  if (!rw.ok()) return;
  OpMath om{rw};
  std::string a = om.up(in);
  std::string positive = rw.call("aten.gt.Scalar", {ir::arg_tensor(a), ir::arg_int(0)});
  std::string pos = rw.call("aten.mul.Tensor", {ir::arg_tensor(a), number_arg(scale)});
  std::string scaled = rw.call("aten.mul.Tensor", {ir::arg_tensor(a), number_arg(input_scale)});
  std::string em1 = rw.call("aten.expm1.default", {ir::arg_tensor(scaled)});
  std::string neg = rw.call("aten.mul.Tensor", {ir::arg_tensor(em1), number_arg(neg_coef)});
  rw.set_outputs({om.down(
      rw.call("aten.where.self", {ir::arg_tensor(positive), ir::arg_tensor(pos), ir::arg_tensor(neg)}))});
}

/// aten.celu.default → torch._refs.nn.functional.celu (elementwise_type_promotion_wrapper,
/// DEFAULT: float16/bfloat16 computed in float32 and cast back). With alpha: rhs =
/// alpha * expm1(a / alpha) (div.Tensor, expm1, mul.Tensor); without (left out, or the
/// float default 1.0 the dispatcher drops, see ref_scalars): rhs = expm1(a). Then
/// where(a > 0, a, rhs) (gt.Scalar, where.self). Non-floating inputs are refused (the
/// kernel takes floating-point tensors only), and alpha 0 as ATen's celu refuses it.
void celu_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  std::vector<std::optional<Number>> scalars = ref_scalars(rw, {{"alpha", 1, std::nullopt, true}});
  Meta m = rw.meta(in);
  if (!rw.ok() || !require_floating(rw, m.dtype)) return;
  if (scalars[0] && scalars[0]->as_double() == 0.0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "ZeroDivisionError: alpha cannot be 0 for CELU");
    return;
  }
  OpMath om{rw};
  std::string a = om.up(in);
  std::string rhs;
  if (scalars[0]) {
    std::string q = rw.call("aten.div.Tensor", {ir::arg_tensor(a), number_arg(*scalars[0])});
    std::string e = rw.call("aten.expm1.default", {ir::arg_tensor(q)});
    rhs = rw.call("aten.mul.Tensor", {ir::arg_tensor(e), number_arg(*scalars[0])});
  } else {
    rhs = rw.call("aten.expm1.default", {ir::arg_tensor(a)});
  }
  std::string positive = rw.call("aten.gt.Scalar", {ir::arg_tensor(a), ir::arg_int(0)});
  rw.set_outputs({om.down(
      rw.call("aten.where.self", {ir::arg_tensor(positive), ir::arg_tensor(a), ir::arg_tensor(rhs)}))});
}

/// aten.threshold.default → torch._refs.nn.functional.threshold
/// (elementwise_type_promotion_wrapper, DEFAULT: float16/bfloat16 computed in float32):
/// where(a <= threshold, value, a) — le.Scalar, torch.where with a number (scalar_tensor
/// + where.self, see where_scalar), then the result converted to the input's dtype (an
/// integer input with a float value comes back from where as float32). Bool and complex
/// inputs are refused (ATen's threshold kernel has none).
void threshold_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  ir::Argument threshold = rw.raw("threshold");
  ir::Argument value = rw.raw("value");
  Number v = rw.take(rw.args().number("value"));
  Meta m = rw.meta(in);
  if (!rw.ok()) return;
  if (m.dtype == ir::ScalarType::Bool || is_complex_dtype(m.dtype)) {
    rw.unsupported("an input of dtype " + std::string(ir::scalar_type_name(m.dtype)));
    return;
  }
  std::string a = to_dtype(rw, in, opmath_dtype(m.dtype));
  std::string below = rw.call("aten.le.Scalar", {ir::arg_tensor(a), threshold});
  std::string out = where_scalar(rw, below, value, ir::arg_tensor(a), {v});
  rw.set_outputs({to_dtype(rw, out, m.dtype)});
}

/// aten.log_sigmoid_forward.default → torch._decomp log_sigmoid_forward (pw_cast_for_opmath:
/// float16/bfloat16 computed in float32, both outputs cast back): output =
/// minimum(new_zeros(()), x) - log1p(exp(-abs(x))) (new_zeros in its decomposed form,
/// full.default(size, 0, dtype, layout=strided, device, pin_memory=False) as the new_zeros
/// rule emits it; minimum, abs, neg, exp, log1p, sub.Tensor); buffer = exp(-abs(x)). A
/// cuda/xpu input (whose buffer the reference makes new_zeros((0,))) is refused, and so are
/// non-floating inputs (the kernel takes floating-point tensors only).
void log_sigmoid_forward_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  Meta m = rw.meta(in);
  if (!rw.ok() || !require_floating(rw, m.dtype)) return;
  auto [out, buffer] = log_sigmoid_forward(rw, in, true);
  if (!rw.ok()) return;
  rw.set_outputs({out, buffer});
}

/// aten.softplus.default → torch._refs.nn.functional.softplus (DEFAULT type promotion:
/// float16/bfloat16 computed in float32). With beta: s = a * beta, rhs =
/// log1p(exp(s)) / beta (mul.Tensor, exp, log1p, div.Tensor); without (left out, or the
/// int default 1 when the dispatcher drops it, see ref_scalars): s = a, rhs = log1p(exp(a)). Then
/// where(s > threshold, a, rhs) (gt.Scalar, where.self). Non-floating inputs are refused.
void softplus_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  std::vector<std::optional<Number>> scalars =
      ref_scalars(rw, {{"beta", 1, std::nullopt}, {"threshold", 20, Number::of_int(20)}});
  Meta m = rw.meta(in);
  if (!rw.ok() || !require_floating(rw, m.dtype)) return;
  const bool has_beta = scalars[0].has_value();
  const Number beta = scalars[0].value_or(Number::of_int(1)), threshold = *scalars[1];
  OpMath om{rw};
  std::string a = om.up(in);
  std::string scaled = has_beta ? rw.call("aten.mul.Tensor", {ir::arg_tensor(a), number_arg(beta)}) : a;
  std::string e = rw.call("aten.exp.default", {ir::arg_tensor(scaled)});
  std::string rhs = rw.call("aten.log1p.default", {ir::arg_tensor(e)});
  if (has_beta) rhs = rw.call("aten.div.Tensor", {ir::arg_tensor(rhs), number_arg(beta)});
  std::string above = rw.call("aten.gt.Scalar", {ir::arg_tensor(scaled), number_arg(threshold)});
  rw.set_outputs(
      {om.down(rw.call("aten.where.self", {ir::arg_tensor(above), ir::arg_tensor(a), ir::arg_tensor(rhs)}))});
}

/// aten.relu6.default → at::native::relu6: hardtanh(self, 0, 6).
void relu6_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  rw.set_outputs({rw.call("aten.hardtanh.default", {ir::arg_tensor(x), ir::arg_int(0), ir::arg_int(6)})});
}

/// aten.rrelu.default → at::native::rrelu → rrelu_with_noise (torch._decomp, pw_cast_for_opmath):
/// in evaluation (training False) leaky_relu(self, (lower + upper) / 2), float16/bfloat16
/// computed in float32 and cast back (the noise buffer it allocates is unused). Refused:
/// training (random slopes), lower > upper (torch's check).
void rrelu_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  const double lower = rw.float_("lower");
  const double upper = rw.float_("upper");
  const bool training = rw.bool_("training");
  if (!rw.ok()) return;
  if (lower > upper) {
    rw.fail(ErrorCode::INVALID_GRAPH, "Lower bound should be less than or equal to the upper bound");
    return;
  }
  if (training) {
    rw.unsupported("training mode (random negative slopes drawn per element)");
    return;
  }
  OpMath om{rw};
  std::string a = om.up(x);
  rw.set_outputs(
      {om.down(rw.call("aten.leaky_relu.default", {ir::arg_tensor(a), ir::arg_float((lower + upper) / 2)}))});
}

/// aten.softmax.int → at::native::softmax: x.toType(dtype) when a dtype is given, then
/// _softmax(x, dim, False).
void softmax_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  if (dt) x = to_dtype(rw, x, *dt);
  rw.set_outputs({rw.call("aten._softmax.default", {ir::arg_tensor(x), ir::arg_int(dim), ir::arg_bool(false)})});
}

/// aten.log_softmax.int → at::native::log_softmax: optional dtype conversion, then
/// _log_softmax(x, dim, False).
void log_softmax_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  if (dt) x = to_dtype(rw, x, *dt);
  rw.set_outputs({rw.call("aten._log_softmax.default", {ir::arg_tensor(x), ir::arg_int(dim), ir::arg_bool(false)})});
}

/// aten._safe_softmax.default → torch._decomp safe_softmax: softmax, eq(-inf), all over
/// dim (logical_not / any.dim / logical_not), zeros_like (full_like 0), where.
void safe_softmax_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  if (dt) x = to_dtype(rw, x, *dt);
  rw.set_outputs({safe_softmax(rw, x, dim)});
}

/// aten.dropout.default → torch._decomp dropout: train and p != 0 → native_dropout(x, p,
/// train) + getitem 0; otherwise input.clone() (eval mode).
void dropout_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  double p = rw.float_("p");
  bool train = rw.bool_("train");
  if (!rw.ok()) return;
  if (train && p != 0.0) {
    auto outs = rw.call_multi("aten.native_dropout.default", {ir::arg_tensor(x), ir::arg_float(p), ir::arg_bool(true)},
                              {}, {true, false});
    if (!rw.ok()) return;
    rw.set_outputs({outs[0]});
    return;
  }
  rw.set_outputs({clone(rw, x)});
}

/// aten.feature_dropout / alpha_dropout / feature_alpha_dropout → at::native _dropout_impl:
/// the input itself when not training or p == 0; training mode is refused.
void identity_dropout_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  double p = rw.float_("p");
  bool train = rw.bool_("train");
  if (!rw.ok()) return;
  if (train && p != 0.0) {
    rw.unsupported("feature/alpha dropout in training mode (export the model after model.eval())");
    return;
  }
  rw.set_outputs({x});
}

/// aten.mish.default → torch._refs.nn.functional.mish (DEFAULT type promotion, so
/// float16/bfloat16 compute in float32): self * tanh(softplus(self)) (softplus.default,
/// tanh, mul.Tensor; softplus is decomposed in turn).
void mish_rule(Rewriter& rw) {
  OpMath om{rw};
  std::string x = om.up(rw.tensor("self"));
  std::string sp = rw.call("aten.softplus.default", {ir::arg_tensor(x)});
  std::string th = rw.call("aten.tanh.default", {ir::arg_tensor(sp)});
  rw.set_outputs({om.down(rw.call("aten.mul.Tensor", {ir::arg_tensor(x), ir::arg_tensor(th)}))});
}

/// aten.glu.default → torch._refs.nn.functional.glu (DEFAULT type promotion): the
/// halves of `dim` by tensor_split(self, 2, dim) (at::native tensor_split_sections:
/// slice.Tensor(x, d, 0, n/2), slice.Tensor(x, d, n/2, n), d wrapped), then
/// first * sigmoid(second). A halved dimension of symbolic size is refused.
void glu_rule(Rewriter& rw) {
  std::string self = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  Meta m = rw.meta(self);
  if (!rw.ok()) return;
  if (m.rank() == 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "glu does not support 0-dimensional tensors");
    return;
  }
  int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return;
  if (!m.sizes[d].is_constant()) {
    rw.unsupported("halving a dimension of symbolic size " + rw.symbols().display(m.sizes[d]));
    return;
  }
  int64_t n = m.sizes[d].value();
  if (n % 2 != 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "glu: halving dimension must be even, but dimension " +
                                          std::to_string(d) + " is size " + std::to_string(n));
    return;
  }
  OpMath om{rw};
  std::string x = om.up(self);
  std::string a =
      rw.call("aten.slice.Tensor", {ir::arg_tensor(x), ir::arg_int(d), ir::arg_int(0), ir::arg_int(n / 2)});
  std::string b =
      rw.call("aten.slice.Tensor", {ir::arg_tensor(x), ir::arg_int(d), ir::arg_int(n / 2), ir::arg_int(n)});
  std::string s = rw.call("aten.sigmoid.default", {ir::arg_tensor(b)});
  rw.set_outputs({om.down(rw.call("aten.mul.Tensor", {ir::arg_tensor(a), ir::arg_tensor(s)}))});
}

/// aten.prelu.default → at::native::prelu (Activation.cpp): a weight of another rank
/// is reshaped to [1, numel(weight), 1, ...] (all ones but dim 1; [] for a 0-d
/// input), then _prelu_kernel(self, weight), which decomposes in turn.
void prelu_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string w = rw.tensor("weight");
  Meta xm = rw.meta(x);
  Meta wm = rw.meta(w);
  if (!rw.ok()) return;
  if (xm.dtype != wm.dtype) {
    rw.fail(ErrorCode::INVALID_GRAPH, "prelu: type promoting not supported (self and weight dtypes differ)");
    return;
  }
  const SymPoly weights = wm.numel();
  if (!(weights.is_constant() && weights.value() == 1)) {
    // at::native::prelu: several weights are one per channel (dim 1; a 1-d input has one channel).
    if (xm.rank() == 0) {
      rw.fail(ErrorCode::INVALID_GRAPH, "prelu: a 0-d input takes a single weight");
      return;
    }
    const SymPoly channels = xm.rank() > 1 ? xm.sizes[1] : SymPoly(1);
    if (!(channels == weights)) {
      auto text = [](const SymPoly& p) {
        return p.is_constant() ? std::to_string(p.value()) : std::string("symbolic");
      };
      rw.fail(ErrorCode::INVALID_GRAPH, "prelu: mismatch of parameter numbers and input channel size: " +
                                            text(weights) + " weights for " + text(channels) + " channels");
      return;
    }
  }
  if (wm.rank() > 1) {
    rw.fail(ErrorCode::INVALID_GRAPH, "prelu: expected `weight` to be a scalar or 1D tensor");
    return;
  }
  if (xm.rank() != wm.rank()) {
    std::vector<SymPoly> shape(xm.rank(), SymPoly(1));
    if (xm.rank() > 1) shape[1] = wm.numel();
    w = reshape(rw, w, shape);
  }
  rw.set_outputs({rw.call("aten._prelu_kernel.default", {ir::arg_tensor(x), ir::arg_tensor(w)})});
}

/// aten._prelu_kernel.default → torch._decomp _prelu_kernel: where(self > 0, self,
/// weight * self) (gt.Scalar, mul.Tensor, where.self).
void prelu_kernel_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string w = rw.tensor("weight");
  if (!rw.ok()) return;
  std::string pos = rw.call("aten.gt.Scalar", {ir::arg_tensor(x), ir::arg_int(0)});
  std::string neg = rw.call("aten.mul.Tensor", {ir::arg_tensor(w), ir::arg_tensor(x)});
  rw.set_outputs({rw.call("aten.where.self", {ir::arg_tensor(pos), ir::arg_tensor(x), ir::arg_tensor(neg)})});
}

/// aten.hardshrink.default → torch._refs.nn.functional.hardshrink (no type promotion):
/// where(abs(self) <= lambd, 0, self) (abs, le.Scalar, where.ScalarSelf, which
/// decomposes to scalar_tensor + where.self).
void hardshrink_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument lambd = rw.raw("lambd");
  if (!rw.ok()) return;
  std::string a = rw.call("aten.abs.default", {ir::arg_tensor(x)});
  std::string small = rw.call("aten.le.Scalar", {ir::arg_tensor(a), lambd});
  rw.set_outputs(
      {rw.call("aten.where.ScalarSelf", {ir::arg_tensor(small), ir::arg_int(0), ir::arg_tensor(x)})});
}

/// aten.softshrink.default → torch._refs.nn.functional.softshrink (no type promotion):
/// where(abs(self) > lambd, self - sign(self) * lambd, self * 0) (abs, gt.Scalar, sign,
/// mul.Tensor, sub.Tensor, mul.Tensor, where.self). A negative lambd is refused as
/// torch refuses it.
void softshrink_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument lambd = rw.raw("lambd");
  Number l = rw.take(rw.args().number("lambd"));
  if (!rw.ok()) return;
  if (l.as_double() < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "softshrink: lambda must be greater or equal to 0");
    return;
  }
  std::string a = rw.call("aten.abs.default", {ir::arg_tensor(x)});
  std::string big = rw.call("aten.gt.Scalar", {ir::arg_tensor(a), lambd});
  std::string sg = rw.call("aten.sign.default", {ir::arg_tensor(x)});
  std::string step = rw.call("aten.mul.Tensor", {ir::arg_tensor(sg), lambd});
  std::string shrunk = rw.call("aten.sub.Tensor", {ir::arg_tensor(x), ir::arg_tensor(step)});
  std::string zero = rw.call("aten.mul.Tensor", {ir::arg_tensor(x), ir::arg_int(0)});
  rw.set_outputs(
      {rw.call("aten.where.self", {ir::arg_tensor(big), ir::arg_tensor(shrunk), ir::arg_tensor(zero)})});
}

}  // namespace

std::pair<std::string, std::string> log_sigmoid_forward(Rewriter& rw, const std::string& in,
                                                        bool with_buffer) {
  Meta m = rw.meta(in);
  if (!rw.ok()) return {};
  if (m.device.type == "cuda" || m.device.type == "xpu") {
    rw.unsupported("an input on a " + m.device.type +
                   " device (the reference's buffer is new_zeros((0,)) there)");
    return {};
  }
  OpMath om{rw};
  std::string x = om.up(in);
  std::string zero = rw.call("aten.full.default", {ir::arg_ints({}), ir::arg_int(0)},
                             {{"dtype", ir::arg_dtype(opmath_dtype(m.dtype))},
                              {"layout", ir::arg_layout(ir::Layout::Strided)},
                              {"device", ir::arg_device(m.device)},
                              {"pin_memory", ir::arg_bool(false)}});
  std::string lo = rw.call("aten.minimum.default", {ir::arg_tensor(zero), ir::arg_tensor(x)});
  std::string a = rw.call("aten.abs.default", {ir::arg_tensor(x)});
  std::string n = rw.call("aten.neg.default", {ir::arg_tensor(a)});
  std::string z = rw.call("aten.exp.default", {ir::arg_tensor(n)});
  std::string l = rw.call("aten.log1p.default", {ir::arg_tensor(z)});
  std::string out = om.down(rw.call("aten.sub.Tensor", {ir::arg_tensor(lo), ir::arg_tensor(l)}));
  std::string buffer = with_buffer ? om.down(z) : std::string();
  return {out, buffer};
}

void add_activation_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.silu.default", silu_rule, "torch._decomp.decompositions.silu"});
  out.push_back({"aten.hardswish.default", hardswish_rule, "torch._decomp.decompositions.hardswish"});
  out.push_back({"aten.hardsigmoid.default", hardsigmoid_rule, "torch._decomp.decompositions.hardsigmoid"});
  out.push_back({"aten.mish.default", mish_rule, "torch._refs.nn.functional.mish"});
  out.push_back(
      {"aten.glu.default", glu_rule, "torch._refs.nn.functional.glu (tensor_split → slice.Tensor)"});
  out.push_back({"aten.prelu.default", prelu_rule, "at::native::prelu (Activation.cpp) → _prelu_kernel"});
  out.push_back(
      {"aten._prelu_kernel.default", prelu_kernel_rule, "torch._decomp.decompositions._prelu_kernel"});
  out.push_back({"aten.hardshrink.default", hardshrink_rule, "torch._refs.nn.functional.hardshrink"});
  out.push_back({"aten.softshrink.default", softshrink_rule, "torch._refs.nn.functional.softshrink"});
  out.push_back({"aten.elu.default", elu_rule, "torch._refs.nn.functional.elu"});
  out.push_back({"aten.celu.default", celu_rule, "torch._refs.nn.functional.celu"});
  out.push_back({"aten.threshold.default", threshold_rule, "torch._refs.nn.functional.threshold"});
  out.push_back({"aten.log_sigmoid_forward.default", log_sigmoid_forward_rule,
                 "torch._decomp.decompositions.log_sigmoid_forward"});
  out.push_back({"aten.softplus.default", softplus_rule, "torch._refs.nn.functional.softplus"});
  out.push_back({"aten.relu6.default", relu6_rule, "at::native::relu6 → hardtanh(x, 0, 6)"});
  out.push_back({"aten.softmax.int", softmax_rule, "at::native::softmax (SoftMax.cpp) → _softmax"});
  out.push_back(
      {"aten.rrelu.default", rrelu_rule, "at::native::rrelu → rrelu_with_noise (eval: leaky_relu)"});
  out.push_back({"aten.log_softmax.int", log_softmax_rule, "at::native::log_softmax (SoftMax.cpp) → _log_softmax"});
  out.push_back({"aten._safe_softmax.default", safe_softmax_rule, "torch._decomp.decompositions.safe_softmax"});
  out.push_back({"aten.dropout.default", dropout_rule, "torch._decomp.decompositions.dropout"});
  out.push_back({"aten.feature_dropout.default", identity_dropout_rule, "at::native feature_dropout (_dropout_impl)"});
  out.push_back({"aten.alpha_dropout.default", identity_dropout_rule, "at::native alpha_dropout (_dropout_impl)"});
  out.push_back({"aten.feature_alpha_dropout.default", identity_dropout_rule,
                 "at::native feature_alpha_dropout (_dropout_impl)"});
}

}  // namespace pteforge::passes::decomp
