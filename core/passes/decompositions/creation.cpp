// Tensor creation: zeros/ones(/_like), new_*, arange, eye, linspace/logspace, tril/triu.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

ir::Argument fill_value(ir::ScalarType dtype, int64_t v) {
  if (dtype == ir::ScalarType::Bool) return ir::arg_bool(v != 0);
  return ir::arg_int(v);
}

/// The node's device argument; the default (CPU) when it is None.
ir::Device device_arg(Rewriter& rw) {
  const ir::Argument arg = rw.raw("device");  // held: get_if points into it
  const auto* d = arg.get_if<ir::ArgTag::Device>();
  return d ? *d : ir::Device{};
}

/// Keyword arguments of torch._refs creation functions: dtype (resolved), layout
/// (default torch.strided), device when given, pin_memory (default False).
KwArgs creation_kwargs(Rewriter& rw, std::optional<ir::ScalarType> dtype) {
  KwArgs kw;
  if (dtype) kw.emplace_back("dtype", ir::arg_dtype(*dtype));
  ir::Argument layout = rw.raw("layout");
  kw.emplace_back("layout", layout.is_none() ? ir::arg_layout(ir::Layout::Strided) : layout);
  ir::Argument device = rw.raw("device");
  if (!device.is_none()) kw.emplace_back("device", device);
  ir::Argument pin = rw.raw("pin_memory");
  kw.emplace_back("pin_memory", pin.is_none() ? ir::arg_bool(false) : pin);
  return kw;
}

/// aten.zeros.default / aten.ones.default → torch._refs zeros / ones: full(size, 0 or 1
/// (False/True for bool), dtype=dtype or float32, layout=strided, device, pin_memory=False).
template <int64_t V>
void constant_fill_rule(Rewriter& rw) {
  auto size = rw.syms("size");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  ir::ScalarType t = dt.value_or(ir::ScalarType::Float);
  rw.set_outputs({rw.call("aten.full.default", {rw.sizes(size), fill_value(t, V)}, creation_kwargs(rw, t))});
}

/// aten.zeros_like / ones_like → torch._refs zeros_like / ones_like: full_like(self, 0 or 1,
/// dtype, layout, device, pin_memory=False, memory_format=preserve_format when not given).
template <int64_t V>
void constant_fill_like_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto dt = rw.dtype("dtype");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  KwArgs kw;
  if (dt) kw.emplace_back("dtype", ir::arg_dtype(*dt));
  for (const char* k : {"layout", "device"}) {
    ir::Argument a = rw.raw(k);
    if (!a.is_none()) kw.emplace_back(k, a);
  }
  ir::Argument pin = rw.raw("pin_memory");
  kw.emplace_back("pin_memory", pin.is_none() ? ir::arg_bool(false) : pin);
  ir::Argument mf = rw.raw("memory_format");
  kw.emplace_back("memory_format", mf.is_none() ? ir::arg_memory_format(ir::MemoryFormat::PreserveFormat) : mf);
  ir::ScalarType t = dt.value_or(m.dtype);
  rw.set_outputs({rw.call("aten.full_like.default", {ir::arg_tensor(x), fill_value(t, V)}, std::move(kw))});
}

/// aten.fill.Scalar → torch._decomp fill_scalar: full_like(self, value) as the Python call
/// torch.full_like(self, value) reaches the dispatcher: pin_memory=False, no memory_format
/// (None). fill.Scalar is Core ATen, but core_aten_decompositions() lists it (fill), so
/// run_decompositions() rewrites it, including the fill the functionalization of x.fill_(v)
/// writes.
void fill_scalar_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  ir::Argument value = rw.raw("value");
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.full_like.default", {ir::arg_tensor(x), std::move(value)},
                          {{"pin_memory", ir::arg_bool(false)}})});
}

/// aten.fill.Tensor → torch._decomp fill_tensor: copy(self, value) for a 0-d value (torch's
/// check: "fill only supports 0-dimension value tensor but got tensor with N dimensions").
void fill_tensor_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string v = rw.tensor("value");
  Meta vm = rw.meta(v);
  if (!rw.ok()) return;
  if (vm.rank() != 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "fill only supports 0-dimension value tensor but got tensor with " +
                                          std::to_string(vm.rank()) + " dimensions");
    return;
  }
  rw.set_outputs({rw.call("aten.copy.default", {ir::arg_tensor(x), ir::arg_tensor(v)})});
}

/// aten.new_zeros / new_ones / new_full → torch._refs new_*: full(size, value,
/// dtype=self.dtype unless given, layout=strided, device=self's device, pin_memory=False).
void new_fill_rule(Rewriter& rw, ir::Argument value) {
  std::string x = rw.tensor("self");
  auto size = rw.syms("size");
  auto dt = rw.dtype("dtype");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  ir::ScalarType t = dt.value_or(m.dtype);
  if (const auto* i = value.get_if<ir::ArgTag::Int>(); i && t == ir::ScalarType::Bool) value = ir::arg_bool(*i != 0);
  KwArgs kw;
  kw.emplace_back("dtype", ir::arg_dtype(t));
  ir::Argument layout = rw.raw("layout");
  kw.emplace_back("layout", layout.is_none() ? ir::arg_layout(ir::Layout::Strided) : layout);
  ir::Argument device = rw.raw("device");
  kw.emplace_back("device", device.is_none() ? ir::arg_device(m.device) : device);
  ir::Argument pin = rw.raw("pin_memory");
  kw.emplace_back("pin_memory", pin.is_none() ? ir::arg_bool(false) : pin);
  rw.set_outputs({rw.call("aten.full.default", {rw.sizes(size), std::move(value)}, std::move(kw))});
}
void new_zeros_rule(Rewriter& rw) { new_fill_rule(rw, ir::arg_int(0)); }
void new_ones_rule(Rewriter& rw) { new_fill_rule(rw, ir::arg_int(1)); }
void new_full_rule(Rewriter& rw) { new_fill_rule(rw, rw.raw("fill_value")); }

/// aten.arange.default / arange.start → torch._decomp arange_default / arange_start:
/// arange.start_step(start (0), end, 1, dtype, layout=strided, device, pin_memory=False).
void arange_rule(Rewriter& rw) {
  ir::Argument start = rw.args().find("start") ? rw.raw("start") : ir::arg_int(0);
  ir::Argument end = rw.raw("end");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.arange.start_step", {start, end, ir::arg_int(1)}, creation_kwargs(rw, dt))});
}

/// Shared by tril / triu (torch._refs tril/triu): mask = (arange(w).unsqueeze(-2) -
/// arange(h).unsqueeze(-1)) <= diagonal (>= for triu); bool input → logical_and(mask, a),
/// else where(mask, a, 0) with the 0 as scalar_tensor (where.ScalarOther).
void triangle(Rewriter& rw, bool lower) {
  std::string x = rw.tensor("self");
  int64_t diagonal = rw.int_("diagonal");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() < 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "tril/triu: input tensor must have at least 2 dimensions");
    return;
  }
  SymPoly h = m.sizes[m.rank() - 2];
  SymPoly w = m.sizes[m.rank() - 1];
  std::string aw = arange(rw, rw.size(w), m.device);
  std::string uw = unsqueeze(rw, aw, -2);
  std::string ah = arange(rw, rw.size(h), m.device);
  std::string uh = unsqueeze(rw, ah, -1);
  std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(uw), ir::arg_tensor(uh)});
  std::string mask = rw.call(lower ? "aten.le.Scalar" : "aten.ge.Scalar", {ir::arg_tensor(d), ir::arg_int(diagonal)});
  if (m.dtype == ir::ScalarType::Bool) {
    rw.set_outputs({rw.call("aten.logical_and.default", {ir::arg_tensor(mask), ir::arg_tensor(x)})});
    return;
  }
  std::string zero = scalar_tensor(rw, ir::arg_int(0), m.dtype, m.device);
  rw.set_outputs({rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(x), ir::arg_tensor(zero)})});
}
void tril_rule(Rewriter& rw) { triangle(rw, true); }
void triu_rule(Rewriter& rw) { triangle(rw, false); }

/// aten.eye.default / eye.m → torch._refs eye as recent PyTorch has it: the two ranges in
/// the smallest of uint8 / uint16 / int32 / int64 that holds max(n, m)
/// (_strength_reduce_integer), arange(n) and arange(m) (arange.start_step, device as
/// given), cond = eq(arange(n).unsqueeze(-1), arange(m)), then cond.to(dtype or float32) (no
/// node for bool). Older releases built int64 ranges and where(cond, ones, 0): the values
/// are the same. Refused: symbolic n or m (the reference then keeps int64 ranges), a
/// layout other than strided and pin_memory=True (the reference's where form); negative
/// sizes are torch's error.
void eye_rule(Rewriter& rw) {
  auto n_arg = rw.syms("n");
  const bool has_m = rw.args().find("m") != nullptr;
  std::vector<SymPoly> m_arg = has_m ? rw.syms("m") : std::vector<SymPoly>{};
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return;
  const SymPoly& n = n_arg.front();
  const SymPoly& m = has_m ? m_arg.front() : n;
  if (!n.is_constant() || !m.is_constant()) {
    rw.unsupported("a symbolic size (the reference then builds int64 ranges)");
    return;
  }
  if (n.value() < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "n must be greater or equal to 0, got " + std::to_string(n.value()));
    return;
  }
  if (m.value() < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "m must be greater or equal to 0, got " + std::to_string(m.value()));
    return;
  }
  ir::Argument layout = rw.raw("layout");
  ir::Argument pin = rw.raw("pin_memory");
  const auto* lay = layout.get_if<ir::ArgTag::Layout>();
  const auto* pinned = pin.get_if<ir::ArgTag::Bool>();
  if ((lay && *lay != ir::Layout::Strided) || (pinned && *pinned)) {
    rw.unsupported("a layout other than strided or pin_memory=True (the reference's where form)");
    return;
  }
  const ir::Device device = device_arg(rw);
  const int64_t top = std::max(n.value(), m.value());
  const ir::ScalarType range = top <= 255         ? ir::ScalarType::Byte
                               : top <= 65535     ? ir::ScalarType::UInt16
                               : top <= INT32_MAX ? ir::ScalarType::Int
                                                  : ir::ScalarType::Long;
  std::string rn = arange(rw, ir::arg_int(n.value()), device, range);
  std::string rm = arange(rw, ir::arg_int(m.value()), device, range);
  std::string cond = rw.call("aten.eq.Tensor", {ir::arg_tensor(unsqueeze(rw, rn, -1)), ir::arg_tensor(rm)});
  const ir::ScalarType out = dt.value_or(ir::ScalarType::Float);
  rw.set_outputs({out == ir::ScalarType::Bool ? cond : to_dtype(rw, cond, out)});
}

/// torch._refs.linspace (recent releases; older ones computed start + step * arange
/// everywhere, differing in the last bits) with number bounds: steps 0 → full([0], 0),
/// steps 1 → full([1], start) (the node's layout/device/pin_memory); else rg =
/// arange(0, steps) (int64), step = (end - start) / (steps - 1) in double, and
/// where(rg < steps / 2, start + step * rg, end - step * ((steps - 1) - rg)) with rg
/// cast to the computation dtype (int64 for integer or bool dtypes, float32 for
/// float16/bfloat16, else the dtype), the result cast to `dtype`. `steps` >= 0.
std::string linspace(Rewriter& rw, const Number& start, const Number& end, int64_t steps,
                     ir::ScalarType dtype) {
  if (steps <= 1) {
    ir::Argument fill = steps == 0 ? fill_value(dtype, 0) : number_arg(start);
    return rw.call("aten.full.default", {ir::arg_ints({steps}), std::move(fill)}, creation_kwargs(rw, dtype));
  }
  const ir::Device device = device_arg(rw);
  std::string rg = arange(rw, ir::arg_int(0), ir::arg_int(steps), device);
  const ir::ScalarType compute = ir::is_floating(dtype) ? opmath_dtype(dtype) : ir::ScalarType::Long;
  const double step = (end.as_double() - start.as_double()) / static_cast<double>(steps - 1);
  auto t = [](const std::string& n) { return ir::arg_tensor(n); };
  std::string first_half =
      rw.call("aten.lt.Scalar", {t(rg), ir::arg_float(static_cast<double>(steps) / 2.0)});
  std::string up = rw.call("aten.mul.Tensor", {t(to_dtype(rw, rg, compute)), ir::arg_float(step)});
  up = rw.call("aten.add.Tensor", {t(up), number_arg(start)});
  std::string back = rw.call("aten.rsub.Scalar", {t(rg), ir::arg_int(steps - 1)});
  std::string down = rw.call("aten.mul.Tensor", {t(to_dtype(rw, back, compute)), ir::arg_float(step)});
  down = rw.call("aten.rsub.Scalar", {t(down), number_arg(end)});
  std::string out = rw.call("aten.where.self", {t(first_half), t(up), t(down)});
  return to_dtype(rw, out, dtype);
}

/// The start, end and steps of linspace / logspace and the dtype (float32 unless
/// given); nullopt after refusing a negative steps (PyTorch's error) or a complex dtype.
struct SpaceArgs {
  Number start, end;
  int64_t steps;
  ir::ScalarType dtype;
};
std::optional<SpaceArgs> space_args(Rewriter& rw) {
  SpaceArgs a;
  a.start = rw.take(rw.args().number("start"));
  a.end = rw.take(rw.args().number("end"));
  a.steps = rw.int_("steps");
  auto dt = rw.dtype("dtype");
  if (!rw.ok()) return std::nullopt;
  if (a.steps < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "number of steps must be non-negative");
    return std::nullopt;
  }
  a.dtype = dt.value_or(ir::ScalarType::Float);
  if (is_complex_dtype(a.dtype)) {
    rw.unsupported("a complex dtype");
    return std::nullopt;
  }
  return a;
}

/// aten.linspace.default → torch._refs.linspace (see linspace()).
void linspace_rule(Rewriter& rw) {
  auto a = space_args(rw);
  if (!a) return;
  rw.set_outputs({linspace(rw, a->start, a->end, a->steps, a->dtype)});
}

/// aten.logspace.default → torch._refs.logspace: for an integer dtype, float bounds
/// truncated to ints first; linspace(start, end, steps) in float64, pow.Scalar(base,
/// it), cast to the dtype. A negative base is refused (the reference raises
/// NotImplementedError).
void logspace_rule(Rewriter& rw) {
  auto a = space_args(rw);
  const double base = rw.float_("base");
  if (!a || !rw.ok()) return;
  if (base < 0) {
    rw.unsupported("a negative base (torch._refs.logspace raises NotImplementedError)");
    return;
  }
  if (!ir::is_floating(a->dtype)) {
    for (Number* n : {&a->start, &a->end}) {
      if (n->is_float() && std::isfinite(n->d) && std::fabs(n->d) < 9.0e18) {
        *n = Number::of_int(static_cast<int64_t>(std::trunc(n->d)));
      }
    }
  }
  std::string exponents = linspace(rw, a->start, a->end, a->steps, ir::ScalarType::Double);
  std::string powers = rw.call("aten.pow.Scalar", {ir::arg_float(base), ir::arg_tensor(exponents)});
  rw.set_outputs({to_dtype(rw, powers, a->dtype)});
}

}  // namespace

void add_creation_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.zeros.default", constant_fill_rule<0>, "torch._refs zeros → full"});
  out.push_back({"aten.linspace.default", linspace_rule, "torch._refs.linspace (the two-ended form)"});
  out.push_back(
      {"aten.logspace.default", logspace_rule, "torch._refs.logspace → linspace (float64) + pow.Scalar"});
  out.push_back({"aten.ones.default", constant_fill_rule<1>, "torch._refs ones → full"});
  out.push_back({"aten.zeros_like.default", constant_fill_like_rule<0>, "torch._refs zeros_like → full_like"});
  out.push_back({"aten.ones_like.default", constant_fill_like_rule<1>, "torch._refs ones_like → full_like"});
  out.push_back({"aten.new_zeros.default", new_zeros_rule, "torch._refs new_zeros → full"});
  out.push_back({"aten.new_ones.default", new_ones_rule, "torch._refs new_ones → full"});
  out.push_back({"aten.new_full.default", new_full_rule, "torch._refs new_full → full"});
  out.push_back({"aten.fill.Scalar", fill_scalar_rule, "torch._decomp fill_scalar → full_like", true});
  out.push_back({"aten.fill.Tensor", fill_tensor_rule, "torch._decomp fill_tensor → copy"});
  out.push_back({"aten.arange.default", arange_rule, "torch._decomp arange_default → arange.start_step"});
  out.push_back({"aten.arange.start", arange_rule, "torch._decomp arange_start → arange.start_step"});
  out.push_back({"aten.eye.default", eye_rule, "torch._refs eye (ranges, eq, to dtype)"});
  out.push_back({"aten.eye.m", eye_rule, "torch._refs eye (ranges, eq, to dtype)"});
  out.push_back({"aten.tril.default", tril_rule, "torch._refs tril (arange mask + where / logical_and)"});
  out.push_back({"aten.triu.default", triu_rule, "torch._refs triu (arange mask + where / logical_and)"});
}

}  // namespace pteforge::passes::decomp
