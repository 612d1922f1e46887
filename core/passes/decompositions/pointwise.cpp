// Elementwise helpers outside Core ATen: rsub, masked_fill, clamp_min/max, square,
// floor/true divide, where with Python numbers, dtype conversions (to, type_as).
#include <cmath>
#include <limits>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

KwArgs alpha_kw(Rewriter& rw) {
  KwArgs kw;
  ir::Argument alpha = rw.raw("alpha");
  if (!alpha.is_none()) kw.emplace_back("alpha", alpha);
  return kw;
}

/// aten.rsub.Scalar / rsub.Tensor → torch._decomp rsub: sub.Tensor(other, self, alpha=alpha)
/// (a Python number `other` stays a number in the Tensor slot, as the tracer records it).
void rsub_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument other = rw.raw("other");
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.sub.Tensor", {other, ir::arg_tensor(x)}, alpha_kw(rw))});
}

/// aten.masked_fill.Scalar → torch._refs masked_fill: where(mask, value, self) with the
/// number as a 0-d full([], value, dtype=self.dtype, layout, device, pin_memory=False).
void masked_fill_scalar_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string mask = rw.tensor("mask");
  ir::Argument value = rw.raw("value");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  std::string v = rw.call("aten.full.default", {ir::arg_ints({}), value},
                          {{"dtype", ir::arg_dtype(m.dtype)},
                           {"layout", ir::arg_layout(ir::Layout::Strided)},
                           {"device", ir::arg_device(m.device)},
                           {"pin_memory", ir::arg_bool(false)}});
  rw.set_outputs({rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(v), ir::arg_tensor(x)})});
}

/// aten.masked_fill.Tensor → torch._refs masked_fill: where(mask, value.to(self.dtype), self).
void masked_fill_tensor_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string mask = rw.tensor("mask");
  std::string value = rw.tensor("value");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  value = to_dtype(rw, value, m.dtype);
  rw.set_outputs({rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(value), ir::arg_tensor(x)})});
}

/// The clamp overload torch.clamp records for a bound: clamp.Tensor for a tensor, else clamp.default.
const char* clamp_for(const ir::Argument& bound) {
  return bound.is_tensor() ? "aten.clamp.Tensor" : "aten.clamp.default";
}

/// aten.clamp_min.default / clamp_min.Tensor → torch._refs clamp_min: clamp(self, min=min)
/// (clamp.Tensor for a tensor bound).
void clamp_min_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument min = rw.raw("min");
  rw.set_outputs({rw.call(clamp_for(min), {ir::arg_tensor(x), min})});
}

/// aten.clamp_max.default / clamp_max.Tensor → torch._refs clamp_max: clamp(self, max=max)
/// (clamp.Tensor for a tensor bound).
void clamp_max_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument max = rw.raw("max");
  rw.set_outputs({rw.call(clamp_for(max), {ir::arg_tensor(x), ir::arg_none(), max})});
}

/// aten.square.default → at::native::square: pow.Tensor_Scalar(self, 2).
void square_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  rw.set_outputs({rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(x), ir::arg_int(2)})});
}

/// aten.floor_divide.default / .Scalar → div.Tensor_mode(self, other, rounding_mode='floor').
void floor_divide_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument other = rw.raw("other");
  rw.set_outputs({rw.call("aten.div.Tensor_mode", {ir::arg_tensor(x), other}, {{"rounding_mode", ir::arg_string("floor")}})});
}

/// aten.true_divide.Tensor / .Scalar → div.Tensor(self, other).
void true_divide_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument other = rw.raw("other");
  rw.set_outputs({rw.call("aten.div.Tensor", {ir::arg_tensor(x), other})});
}

}  // namespace

/// at::native::where with a Python number for `self` and/or `other` (`numbers`: their
/// values, self's first): the number becomes scalar_tensor(value, dtype=result type,
/// layout=strided, device) and where.self follows (a tensor operand of another dtype is
/// converted after the scalar tensor is built).
std::string where_scalar(Rewriter& rw, const std::string& cond, const ir::Argument& self,
                         const ir::Argument& other, const std::vector<Number>& numbers) {
  Meta cm = rw.meta(cond);
  if (!rw.ok()) return {};
  std::vector<const Meta*> tensors;
  Meta sm, om;
  if (self.is_tensor()) {
    sm = rw.meta(self.tensor_name());
    tensors.push_back(&sm);
  }
  if (other.is_tensor()) {
    om = rw.meta(other.tensor_name());
    tensors.push_back(&om);
  }
  if (!rw.ok()) return {};
  ir::ScalarType t = promote_types(tensors, numbers);
  auto operand = [&](const ir::Argument& a) -> std::string {
    if (a.is_tensor()) return to_dtype(rw, a.tensor_name(), t);
    return scalar_tensor(rw, a, t, cm.device);
  };
  // at::native::where builds the scalar tensor(s) first (other's before
  // self's when both are numbers), then converts the tensor operand.
  std::string s, o;
  if (self.is_tensor()) {
    o = operand(other);
    s = operand(self);
  } else if (other.is_tensor()) {
    s = operand(self);
    o = operand(other);
  } else {
    o = operand(other);
    s = operand(self);
  }
  return rw.call("aten.where.self", {ir::arg_tensor(cond), ir::arg_tensor(s), ir::arg_tensor(o)});
}

namespace {

/// aten.where.ScalarOther / ScalarSelf / Scalar → at::native::where (see where_scalar()).
void where_scalar_rule(Rewriter& rw) {
  std::string cond = rw.tensor("condition");
  const ir::Argument* self = rw.args().find("self");
  const ir::Argument* other = rw.args().find("other");
  if (!self || !other) {
    rw.fail(ErrorCode::INVALID_GRAPH, "where: missing operands");
    return;
  }
  std::vector<Number> numbers;
  if (!self->is_tensor()) numbers.push_back(rw.take(rw.args().number("self")));
  if (!other->is_tensor()) numbers.push_back(rw.take(rw.args().number("other")));
  if (!rw.ok()) return;
  rw.set_outputs({where_scalar(rw, cond, *self, *other, numbers)});
}

/// torch.finfo(t).max for the floating dtypes torch's nan_to_num takes (nullopt for others).
std::optional<double> finfo_max(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::Half:
      return 65504.0;
    case ir::ScalarType::BFloat16:
      return 3.3895313892515355e38;
    case ir::ScalarType::Float:
      return static_cast<double>(std::numeric_limits<float>::max());
    case ir::ScalarType::Double:
      return std::numeric_limits<double>::max();
    default:
      return std::nullopt;
  }
}

/// aten.nan_to_num.default → torch._refs nan_to_num: integer and bool inputs are cloned;
/// otherwise nan defaults to 0.0, posinf/neginf to ±torch.finfo(dtype).max, and
/// where(isnan(a), nan, a), where(isneginf(a), neginf, ·), where(isposinf(a), posinf, ·)
/// — isnan, then isneginf/isposinf as torch._refs does for a floating tensor
/// (eq.Scalar(a, ∓inf)), each torch.where with a number being scalar_tensor + where.self.
/// Complex and other non-standard floating dtypes are refused.
void nan_to_num_rule(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::optional<double> nan = rw.opt_float("nan");
  std::optional<double> posinf = rw.opt_float("posinf");
  std::optional<double> neginf = rw.opt_float("neginf");
  Meta m = rw.meta(a);
  if (!rw.ok()) return;
  std::optional<double> max = finfo_max(m.dtype);
  if (!max && !is_complex_dtype(m.dtype) && !ir::is_floating(m.dtype)) {  // integer and bool
    rw.set_outputs({clone(rw, a)});
    return;
  }
  if (!max) {
    rw.unsupported("input of dtype " + std::string(ir::scalar_type_name(m.dtype)));
    return;
  }
  const double nan_v = nan.value_or(0.0), pos_v = posinf.value_or(*max), neg_v = neginf.value_or(-*max);
  const double inf = std::numeric_limits<double>::infinity();
  std::string is_nan = rw.call("aten.isnan.default", {ir::arg_tensor(a)});
  std::string r =
      where_scalar(rw, is_nan, ir::arg_float(nan_v), ir::arg_tensor(a), {Number::of_float(nan_v)});
  std::string is_neg = rw.call("aten.eq.Scalar", {ir::arg_tensor(a), ir::arg_float(-inf)});
  r = where_scalar(rw, is_neg, ir::arg_float(neg_v), ir::arg_tensor(r), {Number::of_float(neg_v)});
  std::string is_pos = rw.call("aten.eq.Scalar", {ir::arg_tensor(a), ir::arg_float(inf)});
  rw.set_outputs(
      {where_scalar(rw, is_pos, ir::arg_float(pos_v), ir::arg_tensor(r), {Number::of_float(pos_v)})});
}

/// aten.frac.default → torch._refs frac (DEFAULT type promotion: float16/bfloat16 computed
/// in float32): x - floor(abs(x)) * sign(x) (abs, floor, sign, mul.Tensor, sub.Tensor).
/// Non-floating inputs are refused (ATen's frac kernel takes floating-point tensors only).
void frac_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  Meta m = rw.meta(in);
  if (!rw.ok()) return;
  if (!require_floating(rw, m.dtype)) return;
  OpMath om{rw};
  std::string x = om.up(in);
  std::string a = rw.call("aten.abs.default", {ir::arg_tensor(x)});
  std::string f = rw.call("aten.floor.default", {ir::arg_tensor(a)});
  std::string sg = rw.call("aten.sign.default", {ir::arg_tensor(x)});
  std::string trunc = rw.call("aten.mul.Tensor", {ir::arg_tensor(f), ir::arg_tensor(sg)});
  rw.set_outputs({om.down(rw.call("aten.sub.Tensor", {ir::arg_tensor(x), ir::arg_tensor(trunc)}))});
}

/// torch._refs deg2rad / rad2deg (INT_TO_FLOAT type promotion: integer and bool inputs
/// are computed and returned in float32, float16/bfloat16 computed in float32):
/// mul.Tensor(self, factor). Complex inputs are refused as torch refuses them.
void angle_scale(Rewriter& rw, std::string_view op, double factor) {
  std::string in = rw.tensor("self");
  Meta m = rw.meta(in);
  if (!rw.ok()) return;
  if (is_complex_dtype(m.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, std::string(op) + " is not supported for complex tensors.");
    return;
  }
  ir::ScalarType result = ir::ScalarType::Float;
  std::string x = int_to_float_operand(rw, in, result);
  std::string y = rw.call("aten.mul.Tensor", {ir::arg_tensor(x), ir::arg_float(factor)});
  rw.set_outputs({to_dtype(rw, y, result)});
}

/// aten.deg2rad.default → torch._refs deg2rad: self * (pi / 180) (see angle_scale).
void deg2rad_rule(Rewriter& rw) {
  angle_scale(rw, "deg2rad", 0.017453292519943295769236907684886127134428718885417);
}

/// aten.rad2deg.default → torch._refs rad2deg: self * (180 / pi) (see angle_scale).
void rad2deg_rule(Rewriter& rw) {
  angle_scale(rw, "rad2deg", 57.295779513082320876798154814105170332405472466564);
}

/// aten.xlogy.Tensor → torch._refs xlogy and aten.special_xlog1py.default →
/// torch._refs.special xlog1py (two tensor operands; INT_TO_FLOAT type promotion: both
/// operands converted to the computation dtype — float32 for integer/bool results and for
/// float16/bfloat16 — and the result back): rhs = where(eq(a, 0), 0, mul(a, log(b))) (log1p
/// for xlog1py), then where(isnan(b), nan, rhs) — eq.Scalar, log / log1p, mul.Tensor,
/// torch.where with a number (scalar_tensor + where.self), isnan, the same where with nan.
/// Complex operands are refused.
void xlogy_like(Rewriter& rw, const char* log_op) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("other");
  Meta am = rw.meta(a);
  Meta bm = rw.meta(b);
  if (!rw.ok() || !require_real(rw, {am.dtype, bm.dtype})) return;
  const ir::ScalarType promoted = promote_types({&am, &bm}, {});
  const ir::ScalarType result = ir::is_floating(promoted) ? promoted : ir::ScalarType::Float;
  const ir::ScalarType compute = opmath_dtype(result);
  a = to_dtype(rw, a, compute);
  b = to_dtype(rw, b, compute);
  std::string zero = rw.call("aten.eq.Scalar", {ir::arg_tensor(a), ir::arg_int(0)});
  std::string lb = rw.call(log_op, {ir::arg_tensor(b)});
  std::string prod = rw.call("aten.mul.Tensor", {ir::arg_tensor(a), ir::arg_tensor(lb)});
  std::string rhs = where_scalar(rw, zero, ir::arg_int(0), ir::arg_tensor(prod), {Number::of_int(0)});
  std::string nan = rw.call("aten.isnan.default", {ir::arg_tensor(b)});
  const double qnan = std::numeric_limits<double>::quiet_NaN();
  std::string out = where_scalar(rw, nan, ir::arg_float(qnan), ir::arg_tensor(rhs), {Number::of_float(qnan)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

void xlogy_rule(Rewriter& rw) { xlogy_like(rw, "aten.log.default"); }
void xlog1py_rule(Rewriter& rw) { xlogy_like(rw, "aten.log1p.default"); }

/// What at::native::to_impl passes on to _to_copy besides dtype and memory
/// format: layout, device and pin_memory, each None where the overload
/// leaves it out (the tracer then drops it).
struct ToOptions {
  ir::Argument layout;
  ir::Argument device;
  ir::Argument pin_memory;
};

/// Shared conversion of the aten.to overloads / type_as (at::native::to_impl):
/// the input itself when to_will_alias holds (dtype, layout and device absent or
/// equal to the input's, no copy, memory format preserved or already the
/// input's), else _to_copy(self, dtype=, layout=, device=, pin_memory=, memory_format=).
void emit_to(Rewriter& rw, const std::string& x, std::optional<ir::ScalarType> dtype, const ToOptions& to,
             bool copy, std::optional<ir::MemoryFormat> mf) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  const bool same_dtype = !dtype || *dtype == m.dtype;
  const auto* layout = to.layout.get_if<ir::ArgTag::Layout>();
  const bool same_layout = !layout || *layout == ir::Layout::Strided;
  const auto* device = to.device.get_if<ir::ArgTag::Device>();
  const bool same_device = !device || *device == m.device;
  const bool same_format = !mf || *mf == ir::MemoryFormat::PreserveFormat ||
                           (*mf == ir::MemoryFormat::ContiguousFormat && is_contiguous(m));
  if (same_dtype && same_layout && same_device && same_format && !copy) {
    rw.set_outputs({x});
    return;
  }
  KwArgs kw;
  if (dtype) kw.emplace_back("dtype", ir::arg_dtype(*dtype));
  kw.emplace_back("layout", to.layout);
  kw.emplace_back("device", to.device);
  kw.emplace_back("pin_memory", to.pin_memory);
  if (mf) kw.emplace_back("memory_format", ir::arg_memory_format(*mf));
  rw.set_outputs({rw.call("aten._to_copy.default", {ir::arg_tensor(x)}, std::move(kw))});
}

/// aten.to.dtype / to.dtype_layout / to.device (at::native::to): to.dtype passes
/// only the dtype on, to.device also the device, to.dtype_layout its layout,
/// device and pin_memory as given; _to_copy when they change something or copy=True.
void to_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto dt = rw.dtype("dtype");
  bool copy = rw.args().find("copy") ? rw.bool_("copy") : false;
  auto mf = rw.memory_format("memory_format");
  ToOptions to;
  to.layout = rw.raw("layout");
  to.device = rw.raw("device");
  to.pin_memory = rw.raw("pin_memory");
  if (!rw.ok()) return;
  emit_to(rw, x, dt, to, copy, mf);
}

/// aten.to.other → to_impl with other's dtype, layout, device and
/// pin_memory=False (TensorOptions::pinned_memory() of other.options()).
void to_other_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta o = rw.meta(rw.tensor("other"));
  bool copy = rw.args().find("copy") ? rw.bool_("copy") : false;
  auto mf = rw.args().find("memory_format") ? rw.memory_format("memory_format") : std::nullopt;
  if (!rw.ok()) return;
  emit_to(rw, x, o.dtype,
          {ir::arg_layout(ir::Layout::Strided), ir::arg_device(o.device), ir::arg_bool(false)}, copy, mf);
}

/// aten.type_as → self.to(other.options()), i.e. to.dtype_layout with other's
/// dtype, layout and device (Tensor::options() sets no pinned memory).
void type_as_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta o = rw.meta(rw.tensor("other"));
  if (!rw.ok()) return;
  emit_to(rw, x, o.dtype, {ir::arg_layout(ir::Layout::Strided), ir::arg_device(o.device), ir::Argument()},
          false, std::nullopt);
}

/// aten.sum.default → torch._decomp sum_default: sum.dim_IntList(self, [], dtype=dtype).
void sum_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  KwArgs kw;
  if (dt) kw.emplace_back("dtype", ir::arg_dtype(*dt));
  rw.set_outputs({rw.call("aten.sum.dim_IntList", {ir::arg_tensor(x), ir::arg_ints({})}, std::move(kw))});
}

/// var.correction(self, dim, correction=correction, keepdim=keepdim), with the node's own
/// dim / correction / keepdim (a left-out correction stays out).
std::string var_correction(Rewriter& rw, const std::string& x) {
  KwArgs kw;
  ir::Argument corr = rw.raw("correction");
  if (!corr.is_none()) kw.emplace_back("correction", corr);
  kw.emplace_back("keepdim", rw.raw("keepdim"));
  return rw.call("aten.var.correction", {ir::arg_tensor(x), rw.raw("dim")}, std::move(kw));
}

/// aten.std.correction → torch._decomp std_decomposition: sqrt(var.correction(self, dim,
/// correction=correction, keepdim=keepdim)).
void std_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::string v = var_correction(rw, x);
  rw.set_outputs({rw.call("aten.sqrt.default", {ir::arg_tensor(v)})});
}

/// aten.logsumexp.default → torch._refs logsumexp (INT_TO_FLOAT type promotion:
/// integer input computes in float32, float16/bfloat16 in float32 and back):
/// maxes = amax(x, dim, True); masked_fill(maxes, abs(maxes) == inf, 0);
/// log(sum(exp(x - maxes), dim, keepdim)) + (keepdim ? maxes : squeeze.dims(maxes, dim)).
/// An input with no elements is log(sum(exp(x), dim, keepdim)).
void logsumexp_rule(Rewriter& rw) {
  std::string self = rw.tensor("self");
  std::vector<int64_t> dims = rw.ints("dim");
  bool keepdim = rw.bool_("keepdim");
  ir::ScalarType result = ir::ScalarType::Float;
  std::string x = int_to_float_operand(rw, self, result);
  if (!rw.ok()) return;
  auto sum_of_exp = [&](const std::string& t) {
    std::string e = rw.call("aten.exp.default", {ir::arg_tensor(t)});
    std::string sum =
        rw.call("aten.sum.dim_IntList", {ir::arg_tensor(e), ir::arg_ints(dims), ir::arg_bool(keepdim)});
    return rw.call("aten.log.default", {ir::arg_tensor(sum)});
  };
  SymPoly numel = rw.meta(self).numel();
  if (numel.is_constant() && numel.value() == 0) {
    rw.set_outputs({to_dtype(rw, sum_of_exp(x), result)});
    return;
  }
  std::string maxes =
      rw.call("aten.amax.default", {ir::arg_tensor(x), ir::arg_ints(dims), ir::arg_bool(true)});
  std::string abs = rw.call("aten.abs.default", {ir::arg_tensor(maxes)});
  std::string inf = rw.call("aten.eq.Scalar",
                            {ir::arg_tensor(abs), ir::arg_float(std::numeric_limits<double>::infinity())});
  maxes = rw.call("aten.masked_fill.Scalar", {ir::arg_tensor(maxes), ir::arg_tensor(inf), ir::arg_int(0)});
  std::string squeezed = keepdim ? maxes : squeeze_dims(rw, maxes, dims);
  std::string shifted = rw.call("aten.sub.Tensor", {ir::arg_tensor(x), ir::arg_tensor(maxes)});
  std::string lse = sum_of_exp(shifted);
  std::string out = rw.call("aten.add.Tensor", {ir::arg_tensor(lse), ir::arg_tensor(squeezed)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

/// aten.std_mean.correction → torch._refs std_mean: x in the reduction's opmath dtype
/// (float32 for float16/bfloat16), var_mean as torch._refs var_mean computes it
/// (var.correction(x, dim, correction=c, keepdim=keepdim), mean.dim(x, dim, keepdim)),
/// sqrt of the variance, both results back to the input dtype. c is the correction
/// as a float (utils.set_correction: 1.0 when None).
void std_mean_rule(Rewriter& rw) {
  std::string self = rw.tensor("self");
  auto corr =
      rw.args().is_none("correction") ? std::optional<Number>() : rw.take(rw.args().number("correction"));
  Meta m = rw.meta(self);
  if (!rw.ok()) return;
  if (!ir::is_floating(m.dtype)) {
    rw.unsupported("std_mean of a " + std::string(ir::scalar_type_name(m.dtype)) + " tensor");
    return;
  }
  std::string x = to_dtype(rw, self, opmath_dtype(m.dtype));
  ir::Argument dim = rw.raw("dim");
  ir::Argument keepdim = rw.raw("keepdim");
  std::string var =
      rw.call("aten.var.correction", {ir::arg_tensor(x), dim},
              {{"correction", ir::arg_float(corr ? corr->as_double() : 1.0)}, {"keepdim", keepdim}});
  std::string mean = rw.call("aten.mean.dim", {ir::arg_tensor(x), dim, keepdim});
  std::string sd = rw.call("aten.sqrt.default", {ir::arg_tensor(var)});
  rw.set_outputs({to_dtype(rw, sd, m.dtype), to_dtype(rw, mean, m.dtype)});
}

/// aten.addcmul.default / addcdiv.default → torch._refs addcmul (DEFAULT type promotion)
/// / addcdiv (INT_TO_FLOAT): self, tensor1, tensor2 converted to the computation dtype
/// (the promoted dtype; float32 for float16/bfloat16; float32 for an integer addcdiv),
/// self + value * tensor1 * tensor2 (mul.Tensor(tensor1, value), mul.Tensor, add.Tensor)
/// or self + value * tensor1 / tensor2 (div.Tensor), cast back to the result dtype.
void addc_rule(Rewriter& rw, bool divide) {
  std::vector<std::string> xs{rw.tensor("self"), rw.tensor("tensor1"), rw.tensor("tensor2")};
  Number value = rw.take(rw.args().number("value"));
  if (!rw.ok()) return;
  std::vector<Meta> ms;
  for (const auto& x : xs) ms.push_back(rw.meta(x));
  if (!rw.ok()) return;
  ir::ScalarType result = promote_types({&ms[0], &ms[1], &ms[2]}, {});
  if (divide && !ir::is_floating(result)) result = ir::ScalarType::Float;
  const ir::ScalarType compute = opmath_dtype(result);
  for (auto& x : xs) x = to_dtype(rw, x, compute);
  std::string scaled = rw.call("aten.mul.Tensor", {ir::arg_tensor(xs[1]), number_arg(value)});
  std::string prod = rw.call(divide ? "aten.div.Tensor" : "aten.mul.Tensor",
                             {ir::arg_tensor(scaled), ir::arg_tensor(xs[2])});
  std::string out = rw.call("aten.add.Tensor", {ir::arg_tensor(xs[0]), ir::arg_tensor(prod)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

void addcmul_rule(Rewriter& rw) { addc_rule(rw, false); }
void addcdiv_rule(Rewriter& rw) { addc_rule(rw, true); }

/// aten.lerp.Scalar / lerp.Tensor → torch._refs lerp (DEFAULT type promotion over start,
/// end and weight): a number weight becomes start.new_full([], weight);
/// mask = abs(weight) >= 0.5; coeff = where(mask, weight - 1, weight);
/// base = where(mask, end, start); coeff * (end - start) + base. Non-contiguous inputs
/// are refused (the reference may then restride its result with prims.copy_strided).
void lerp_rule(Rewriter& rw) {
  std::string start = rw.tensor("self");
  std::string end = rw.tensor("end");
  const ir::Argument* wa = rw.args().find("weight");
  if (!rw.ok()) return;
  if (!wa) {
    rw.fail(ErrorCode::INVALID_GRAPH, "lerp: missing weight");
    return;
  }
  const bool number_weight = !wa->is_tensor();
  std::vector<Meta> ms{rw.meta(start), rw.meta(end)};
  std::vector<Number> numbers;
  if (number_weight) {
    numbers.push_back(rw.take(rw.args().number("weight")));
  } else {
    ms.push_back(rw.meta(wa->tensor_name()));
  }
  if (!rw.ok()) return;
  std::vector<const Meta*> ptrs;
  for (const auto& m : ms) {
    if (!is_contiguous(m)) {
      rw.unsupported("a non-contiguous operand");
      return;
    }
    ptrs.push_back(&m);
  }
  const ir::ScalarType result = promote_types(ptrs, numbers);
  const ir::ScalarType compute = opmath_dtype(result);
  start = to_dtype(rw, start, compute);
  end = to_dtype(rw, end, compute);
  std::string w;
  if (number_weight) {
    // The number becomes the Python type of the computation dtype (float for floating point).
    Number n = numbers[0];
    if (ir::is_floating(compute)) n = Number::of_float(n.as_double());
    w = rw.call("aten.new_full.default", {ir::arg_tensor(start), ir::arg_ints({}), number_arg(n)});
  } else {
    w = to_dtype(rw, wa->tensor_name(), compute);
  }
  std::string a = rw.call("aten.abs.default", {ir::arg_tensor(w)});
  std::string mask = rw.call("aten.ge.Scalar", {ir::arg_tensor(a), ir::arg_float(0.5)});
  std::string wm1 = rw.call("aten.sub.Tensor", {ir::arg_tensor(w), ir::arg_int(1)});
  std::string coeff =
      rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(wm1), ir::arg_tensor(w)});
  std::string base =
      rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(end), ir::arg_tensor(start)});
  std::string diff = rw.call("aten.sub.Tensor", {ir::arg_tensor(end), ir::arg_tensor(start)});
  std::string scaled = rw.call("aten.mul.Tensor", {ir::arg_tensor(coeff), ir::arg_tensor(diff)});
  std::string out = rw.call("aten.add.Tensor", {ir::arg_tensor(scaled), ir::arg_tensor(base)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

/// aten.var_mean.correction → torch._refs var_mean: var(self, dim, correction, keepdim)
/// then mean(self, dim, keepdim), at the ATen level var.correction(self, dim,
/// correction=correction, keepdim=keepdim) and mean.dim(self, dim, keepdim). (The
/// reference calls the refs var / mean directly, which trace to prims; this rule keeps
/// their ATen ops.) No opmath casts: var and mean take float16/bfloat16 as they are.
void var_mean_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::string v = var_correction(rw, x);
  std::string m = rw.call("aten.mean.dim", {ir::arg_tensor(x), rw.raw("dim"), rw.raw("keepdim")});
  rw.set_outputs({v, m});
}

/// aten.aminmax.default → torch._decomp aminmax: amin(self, dim, keepdim) and
/// amax(self, dim, keepdim), dim [d] for an int dim and [] (every dimension,
/// as aminmax without a dim reduces them all) for None.
void aminmax_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::optional<int64_t> dim = rw.opt_int("dim");
  ir::Argument keepdim = rw.raw("keepdim");
  if (!rw.ok()) return;
  ir::Argument dims = dim ? ir::arg_ints({*dim}) : ir::arg_ints({});
  std::string lo = rw.call("aten.amin.default", {ir::arg_tensor(x), dims, keepdim});
  std::string hi = rw.call("aten.amax.default", {ir::arg_tensor(x), dims, keepdim});
  rw.set_outputs({lo, hi});
}

/// aten.nansum.default → torch._decomp nansum: sum.dim_IntList(where(isnan(self), 0,
/// self), dim, keepdim, dtype=dtype) — torch.where with the number 0 is
/// where.ScalarSelf's scalar_tensor + where.self. Complex inputs are refused (as
/// PyTorch's nansum refuses them).
void nansum_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument dim = rw.raw("dim");
  ir::Argument keepdim = rw.raw("keepdim");
  auto dt = rw.dtype("dtype");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (is_complex_dtype(m.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "nansum does not support complex inputs");
    return;
  }
  std::string nan = rw.call("aten.isnan.default", {ir::arg_tensor(x)});
  std::string kept = where_scalar(rw, nan, ir::arg_int(0), ir::arg_tensor(x), {Number::of_int(0)});
  KwArgs kw;
  if (dt) kw.emplace_back("dtype", ir::arg_dtype(*dt));
  rw.set_outputs({rw.call("aten.sum.dim_IntList", {ir::arg_tensor(kept), dim, keepdim}, std::move(kw))});
}

/// The operands of logaddexp in their opmath dtype (float32 for
/// float16/bfloat16: the reference's DEFAULT type promotion) and the result
/// dtype; nullopt after refusing complex or non-floating operands (PyTorch's
/// kernels take floating tensors only).
struct LogaddexpOperands {
  std::string a, b;
  ir::ScalarType result;
};
std::optional<LogaddexpOperands> logaddexp_operands(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("other");
  Meta am = rw.meta(a);
  Meta bm = rw.meta(b);
  if (!rw.ok() || !require_real(rw, {am.dtype, bm.dtype})) return std::nullopt;
  const ir::ScalarType result = promote_types({&am, &bm}, {});
  if (!require_floating(rw, result, "operands")) return std::nullopt;
  const ir::ScalarType compute = opmath_dtype(result);
  a = to_dtype(rw, a, compute);
  b = to_dtype(rw, b, compute);
  return LogaddexpOperands{a, b, result};
}

/// aten.logaddexp.default → torch._refs.logaddexp (real operands): mask = a >= b,
/// max = where(mask, a, b), min = where(mask, b, a); where(isfinite(a) is false and
/// a == b, a, max + log1p(exp(min - max))). isfinite is CompositeImplicitAutograd:
/// (a == a) * (abs(a) != inf). In float32 for float16/bfloat16, cast back.
void logaddexp_rule(Rewriter& rw) {
  auto ops = logaddexp_operands(rw);
  if (!ops) return;
  const std::string& a = ops->a;
  const std::string& b = ops->b;
  auto t = [](const std::string& n) { return ir::arg_tensor(n); };
  std::string mask = rw.call("aten.ge.Tensor", {t(a), t(b)});
  std::string hi = rw.call("aten.where.self", {t(mask), t(a), t(b)});
  std::string lo = rw.call("aten.where.self", {t(mask), t(b), t(a)});
  std::string not_nan = rw.call("aten.eq.Tensor", {t(a), t(a)});
  std::string mag = rw.call("aten.abs.default", {t(a)});
  std::string not_inf =
      rw.call("aten.ne.Scalar", {t(mag), ir::arg_float(std::numeric_limits<double>::infinity())});
  std::string finite = rw.call("aten.mul.Tensor", {t(not_nan), t(not_inf)});
  std::string infinite = rw.call("aten.logical_not.default", {t(finite)});
  std::string same = rw.call("aten.eq.Tensor", {t(a), t(b)});
  std::string inf_mask = rw.call("aten.logical_and.default", {t(infinite), t(same)});
  std::string diff = rw.call("aten.sub.Tensor", {t(lo), t(hi)});
  std::string e = rw.call("aten.exp.default", {t(diff)});
  std::string l = rw.call("aten.log1p.default", {t(e)});
  std::string sum = rw.call("aten.add.Tensor", {t(hi), t(l)});
  std::string out = rw.call("aten.where.self", {t(inf_mask), t(a), t(sum)});
  rw.set_outputs({to_dtype(rw, out, ops->result)});
}

/// aten.logit.default → torch._refs.special.logit (INT_TO_FLOAT promotion: integer and
/// bool inputs are computed and returned in float32, float16/bfloat16 computed in float32):
/// lo = eps (-1.0 when None), hi = 1 - eps, x = where(x < lo, lo, where(x > hi, hi, x)),
/// log(x / (1 - x)) — lt.Scalar, gt.Scalar, then twice torch.where with a number
/// (where.ScalarSelf, at::native::where: scalar_tensor + where.self), sub.Tensor(1, x),
/// div.Tensor, log.
/// Complex inputs are refused.
void logit_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  auto eps = rw.opt_float("eps");
  ir::ScalarType result = ir::ScalarType::Float;
  std::string x = int_to_float_operand(rw, in, result);
  if (!rw.ok()) return;
  const double lo = eps.value_or(-1.0);
  const double hi = 1 - lo;
  std::string below = rw.call("aten.lt.Scalar", {ir::arg_tensor(x), ir::arg_float(lo)});
  std::string above = rw.call("aten.gt.Scalar", {ir::arg_tensor(x), ir::arg_float(hi)});
  std::string upper = where_scalar(rw, above, ir::arg_float(hi), ir::arg_tensor(x), {Number::of_float(hi)});
  std::string clamped =
      where_scalar(rw, below, ir::arg_float(lo), ir::arg_tensor(upper), {Number::of_float(lo)});
  std::string denom = rw.call("aten.sub.Tensor", {ir::arg_int(1), ir::arg_tensor(clamped)});
  std::string ratio = rw.call("aten.div.Tensor", {ir::arg_tensor(clamped), ir::arg_tensor(denom)});
  std::string out = rw.call("aten.log.default", {ir::arg_tensor(ratio)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

/// aten.round.decimals → torch._refs.round at the ATen level (the reference calls prims
/// mul/round, which torch.export does not emit; DEFAULT type promotion: float16/bfloat16
/// computed in float32): decimals 0 is round.default; otherwise mul.Tensor(x, 10**decimals),
/// round.default, mul.Tensor(·, 10**-decimals), with Python's int/float powers (an int for
/// a non-negative exponent). Refused: non-floating inputs (ATen's round kernel is floating
/// point only) and |decimals| > 18 (10**decimals past int64).
void round_decimals_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  int64_t decimals = rw.int_("decimals");
  Meta m = rw.meta(in);
  if (!rw.ok()) return;
  if (!require_floating(rw, m.dtype)) return;
  if (decimals > 18 || decimals < -18) {
    rw.unsupported("decimals=" + std::to_string(decimals) + " (10**decimals past int64)");
    return;
  }
  auto power_of_ten = [](int64_t e) -> ir::Argument {
    if (e < 0) return ir::arg_float(std::pow(10.0, static_cast<double>(e)));
    int64_t v = 1;
    for (int64_t i = 0; i < e; ++i) v *= 10;
    return ir::arg_int(v);
  };
  OpMath om{rw};
  std::string x = om.up(in);
  if (decimals == 0) {
    rw.set_outputs({om.down(rw.call("aten.round.default", {ir::arg_tensor(x)}))});
    return;
  }
  std::string scaled = rw.call("aten.mul.Tensor", {ir::arg_tensor(x), power_of_ten(decimals)});
  std::string rounded = rw.call("aten.round.default", {ir::arg_tensor(scaled)});
  rw.set_outputs({om.down(rw.call("aten.mul.Tensor", {ir::arg_tensor(rounded), power_of_ten(-decimals)}))});
}

/// aten.sinc.default → torch._refs sinc (INT_TO_FLOAT type promotion: integer and bool
/// inputs are computed and returned in float32, float16/bfloat16 computed in float32):
/// a = pi * x (mul.Tensor(x, pi)), then where(a == 0, 1, sin(a) / a) — eq.Scalar(a, 0),
/// sin, div.Tensor, torch.where with a number (scalar_tensor + where.self, see
/// where_scalar). Complex inputs are refused.
void sinc_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  ir::ScalarType result = ir::ScalarType::Float;
  std::string x = int_to_float_operand(rw, in, result);
  if (!rw.ok()) return;
  std::string a = rw.call("aten.mul.Tensor", {ir::arg_tensor(x), ir::arg_float(3.141592653589793)});
  std::string zero = rw.call("aten.eq.Scalar", {ir::arg_tensor(a), ir::arg_int(0)});
  std::string s = rw.call("aten.sin.default", {ir::arg_tensor(a)});
  std::string q = rw.call("aten.div.Tensor", {ir::arg_tensor(s), ir::arg_tensor(a)});
  std::string out = where_scalar(rw, zero, ir::arg_int(1), ir::arg_tensor(q), {Number::of_int(1)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

/// torch._refs _maybe_broadcast for two tensor operands (the elementwise binary
/// references): an operand whose sizes differ from the broadcast shape is expanded to it
/// (expand.default), except a 0-d tensor on the CPU, which is kept as is.
std::pair<std::string, std::string> maybe_broadcast(Rewriter& rw, const std::string& a,
                                                    const std::string& b) {
  Meta am = rw.meta(a);
  Meta bm = rw.meta(b);
  if (!rw.ok()) return {};
  std::vector<SymPoly> common = rw.take(broadcast_shapes({am.sizes, bm.sizes}, &rw.symbols()));
  if (!rw.ok()) return {};
  auto one = [&](const std::string& x, const Meta& m) {
    if (m.rank() == 0 && m.device.type == "cpu") return x;
    if (same_sizes(m.sizes, common, rw.symbols())) return x;
    return expand(rw, x, common);
  };
  std::string ea = one(a, am);
  std::string eb = one(b, bm);
  return {ea, eb};
}

/// aten.heaviside.default → torch._refs heaviside (an elementwise binary reference,
/// DEFAULT type promotion: float16/bfloat16 computed in float32 and cast back; operands
/// broadcast with expand, see maybe_broadcast): where(x == 0, values, where(x < 0 or
/// isnan(x), 0, 1)) — eq.Scalar(x, 0), lt.Scalar(x, 0), isnan, logical_or, torch.where
/// with two numbers (int64 scalar_tensor 1, scalar_tensor 0, where.self), where.self.
/// Refused as ATen refuses them: operands of different dtypes and complex operands.
void heaviside_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  std::string values = rw.tensor("values");
  Meta im = rw.meta(in);
  Meta vm = rw.meta(values);
  if (!rw.ok()) return;
  if (is_complex_dtype(im.dtype) || is_complex_dtype(vm.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "heaviside is not yet implemented for complex tensors.");
    return;
  }
  if (im.dtype != vm.dtype) {
    rw.fail(ErrorCode::INVALID_GRAPH, "heaviside is not yet implemented for tensors with different dtypes.");
    return;
  }
  const ir::ScalarType result = im.dtype;
  const ir::ScalarType compute = opmath_dtype(result);
  std::string x = to_dtype(rw, in, compute);
  std::string v = to_dtype(rw, values, compute);
  auto [bx, bv] = maybe_broadcast(rw, x, v);
  if (!rw.ok()) return;
  std::string eq0 = rw.call("aten.eq.Scalar", {ir::arg_tensor(bx), ir::arg_int(0)});
  std::string lt0 = rw.call("aten.lt.Scalar", {ir::arg_tensor(bx), ir::arg_int(0)});
  std::string nan = rw.call("aten.isnan.default", {ir::arg_tensor(bx)});
  std::string neg = rw.call("aten.logical_or.default", {ir::arg_tensor(lt0), ir::arg_tensor(nan)});
  std::string step =
      where_scalar(rw, neg, ir::arg_int(0), ir::arg_int(1), {Number::of_int(0), Number::of_int(1)});
  std::string out =
      rw.call("aten.where.self", {ir::arg_tensor(eq0), ir::arg_tensor(bv), ir::arg_tensor(step)});
  rw.set_outputs({to_dtype(rw, out, result)});
}

/// aten.sgn.default → torch._refs sgn (an elementwise unary reference, DEFAULT type
/// promotion: float16/bfloat16 computed in float32 and cast back): a real input's sign
/// (sign.default). Complex inputs (a / abs(a) in the reference) are refused.
void sgn_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  Meta m = rw.meta(in);
  if (!rw.ok()) return;
  if (is_complex_dtype(m.dtype)) {
    rw.unsupported("a complex input");
    return;
  }
  std::string x = to_dtype(rw, in, opmath_dtype(m.dtype));
  std::string s = rw.call("aten.sign.default", {ir::arg_tensor(x)});
  rw.set_outputs({to_dtype(rw, s, m.dtype)});
}

/// aten.isposinf.default / aten.isneginf.default → torch._refs isposinf / isneginf (an
/// elementwise unary reference, ALWAYS_BOOL: float16/bfloat16 converted to float32 first):
/// a floating input compared with inf or -inf (eq.Scalar); any other input gives
/// zeros_like(a, dtype=torch.bool) (full_like(a, 0, dtype=bool, ...)). Complex inputs
/// are refused as torch refuses them.
template <bool Negative>
void isinf_sign_rule(Rewriter& rw) {
  std::string in = rw.tensor("self");
  Meta m = rw.meta(in);
  if (!rw.ok()) return;
  const char* name = Negative ? "isneginf" : "isposinf";
  if (is_complex_dtype(m.dtype)) {
    rw.fail(ErrorCode::INVALID_GRAPH, std::string("Complex dtype is not supported for ") + name +
                                          ", got dtype " + std::string(ir::scalar_type_name(m.dtype)));
    return;
  }
  if (!ir::is_floating(m.dtype)) {
    rw.set_outputs({full_like(rw, in, ir::arg_int(0), ir::ScalarType::Bool)});
    return;
  }
  std::string x = to_dtype(rw, in, opmath_dtype(m.dtype));
  const double inf = std::numeric_limits<double>::infinity();
  rw.set_outputs({rw.call("aten.eq.Scalar", {ir::arg_tensor(x), ir::arg_float(Negative ? -inf : inf)})});
}

/// aten.all.default / all.dim / all.dims → torch._refs all (see the all() builder: an int dim
/// records any.dim, None (all.default) or a list any.dims), then .to(uint8) for a uint8 self.
void all_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument dim = rw.raw("dim");
  bool keepdim = rw.args().find("keepdim") ? rw.bool_("keepdim") : false;
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  std::string r = all(rw, x, std::move(dim), keepdim);
  if (m.dtype == ir::ScalarType::Byte) r = to_dtype(rw, r, ir::ScalarType::Byte);
  if (!rw.ok()) return;
  rw.set_outputs({r});
}

/// aten.count_nonzero.default / count_nonzero.dim_IntList → torch._refs count_nonzero:
/// (self != 0).sum(dim) = ne.Scalar(self, 0), then sum.dim_IntList(·, dim) as Tensor.sum's
/// Python overloads record it: None stays None (sum.dim_IntList's dim has no default, so it is
/// kept), an int d becomes [d], a list stays. The count is int64.
void count_nonzero_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument dim = rw.raw("dim");
  if (!rw.ok()) return;
  if (const auto* d = dim.get_if<ir::ArgTag::Int>()) dim = ir::arg_ints({*d});
  std::string ne = rw.call("aten.ne.Scalar", {ir::arg_tensor(x), ir::arg_int(0)});
  rw.set_outputs({rw.call("aten.sum.dim_IntList", {ir::arg_tensor(ne), std::move(dim)})});
}

}  // namespace

void add_pointwise_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.all.default", all_rule, "torch._refs all → logical_not(any(logical_not))"});
  out.push_back({"aten.all.dim", all_rule, "torch._refs all → logical_not(any.dim(logical_not))"});
  out.push_back({"aten.all.dims", all_rule, "torch._refs all → logical_not(any.dims(logical_not))"});
  out.push_back({"aten.count_nonzero.default", count_nonzero_rule, "torch._refs count_nonzero → ne, sum"});
  out.push_back(
      {"aten.count_nonzero.dim_IntList", count_nonzero_rule, "torch._refs count_nonzero → ne, sum"});
  out.push_back({"aten.rsub.Scalar", rsub_rule, "torch._decomp rsub_Scalar → sub.Tensor(other, self)"});
  out.push_back({"aten.rsub.Tensor", rsub_rule, "torch._decomp rsub_Tensor → sub.Tensor(other, self)"});
  out.push_back({"aten.masked_fill.Scalar", masked_fill_scalar_rule, "torch._refs masked_fill → full + where"});
  out.push_back({"aten.masked_fill.Tensor", masked_fill_tensor_rule, "torch._refs masked_fill → where"});
  out.push_back({"aten.clamp_min.default", clamp_min_rule, "torch._decomp clamp_min → clamp"});
  out.push_back({"aten.clamp_max.default", clamp_max_rule, "torch._decomp clamp_max → clamp"});
  out.push_back({"aten.clamp_min.Tensor", clamp_min_rule, "torch._refs clamp_min → clamp.Tensor"});
  out.push_back({"aten.clamp_max.Tensor", clamp_max_rule, "torch._refs clamp_max → clamp.Tensor"});
  out.push_back({"aten.square.default", square_rule, "at::native::square → pow.Tensor_Scalar(x, 2)"});
  out.push_back({"aten.floor_divide.default", floor_divide_rule, "torch._decomp floor_divide → div.Tensor_mode"});
  out.push_back({"aten.floor_divide.Scalar", floor_divide_rule, "torch._decomp floor_divide → div.Tensor_mode"});
  out.push_back({"aten.true_divide.Tensor", true_divide_rule, "at::native::true_divide → div.Tensor"});
  out.push_back({"aten.true_divide.Scalar", true_divide_rule, "at::native::true_divide → div.Tensor"});
  out.push_back({"aten.where.ScalarOther", where_scalar_rule, "at::native::where (scalar_tensor + where.self)"});
  out.push_back({"aten.where.ScalarSelf", where_scalar_rule, "at::native::where (scalar_tensor + where.self)"});
  out.push_back({"aten.where.Scalar", where_scalar_rule, "at::native::where (scalar_tensor + where.self)"});
  out.push_back({"aten.to.dtype", to_rule, "at::native::to → _to_copy"});
  out.push_back({"aten.to.dtype_layout", to_rule, "at::native::to → _to_copy"});
  out.push_back({"aten.to.device", to_rule, "at::native::to → _to_copy"});
  out.push_back({"aten.to.other", to_other_rule, "at::native::to → _to_copy"});
  out.push_back({"aten.type_as.default", type_as_rule, "at::native::type_as → to → _to_copy"});
  out.push_back({"aten.sum.default", sum_rule, "torch._decomp sum_default → sum.dim_IntList(x, [])"});
  out.push_back({"aten.addcmul.default", addcmul_rule, "torch._refs.addcmul"});
  out.push_back({"aten.addcdiv.default", addcdiv_rule, "torch._refs.addcdiv"});
  out.push_back({"aten.lerp.Scalar", lerp_rule, "torch._refs.lerp (number weight → new_full)"});
  out.push_back({"aten.lerp.Tensor", lerp_rule, "torch._refs.lerp"});
  out.push_back({"aten.logsumexp.default", logsumexp_rule, "torch._refs.logsumexp"});
  out.push_back({"aten.std_mean.correction", std_mean_rule, "torch._refs.std_mean"});
  out.push_back(
      {"aten.round.decimals", round_decimals_rule, "torch._refs.round (ATen-level mul, round, mul)"});
  out.push_back({"aten.logit.default", logit_rule, "torch._refs.special.logit"});
  out.push_back({"aten.nan_to_num.default", nan_to_num_rule, "torch._refs.nan_to_num"});
  out.push_back({"aten.frac.default", frac_rule, "torch._refs.frac"});
  out.push_back({"aten.deg2rad.default", deg2rad_rule, "torch._refs.deg2rad"});
  out.push_back({"aten.rad2deg.default", rad2deg_rule, "torch._refs.rad2deg"});
  out.push_back({"aten.xlogy.Tensor", xlogy_rule, "torch._refs.xlogy"});
  out.push_back({"aten.special_xlog1py.default", xlog1py_rule, "torch._refs.special.xlog1py"});
  out.push_back(
      {"aten.var_mean.correction", var_mean_rule, "torch._refs.var_mean → var.correction + mean.dim"});
  out.push_back({"aten.std.correction", std_rule, "torch._decomp std_decomposition → sqrt(var.correction)"});
  out.push_back({"aten.sinc.default", sinc_rule, "torch._refs.sinc"});
  out.push_back({"aten.sgn.default", sgn_rule, "torch._refs.sgn"});
  out.push_back({"aten.isposinf.default", isinf_sign_rule<false>, "torch._refs.isposinf"});
  out.push_back({"aten.isneginf.default", isinf_sign_rule<true>, "torch._refs.isneginf"});
  out.push_back({"aten.heaviside.default", heaviside_rule, "torch._refs.heaviside"});
  out.push_back({"aten.aminmax.default", aminmax_rule, "torch._decomp aminmax → amin + amax"});
  out.push_back({"aten.logaddexp.default", logaddexp_rule, "torch._refs.logaddexp"});
  out.push_back({"aten.nansum.default", nansum_rule, "torch._decomp nansum → where + sum.dim_IntList"});
}

}  // namespace pteforge::passes::decomp
