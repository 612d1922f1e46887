// Elementwise helpers outside Core ATen: rsub, masked_fill, clamp_min/max, square,
// floor/true divide, where with Python numbers, dtype conversions (to, type_as).
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

/// aten.clamp_min.default → torch._decomp clamp_min: clamp(self, min=min).
void clamp_min_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  rw.set_outputs({rw.call("aten.clamp.default", {ir::arg_tensor(x), rw.raw("min")})});
}

/// aten.clamp_max.default → torch._decomp clamp_max: clamp(self, max=max).
void clamp_max_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  rw.set_outputs({rw.call("aten.clamp.default", {ir::arg_tensor(x), ir::arg_none(), rw.raw("max")})});
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

/// aten.where.ScalarOther / ScalarSelf / Scalar → at::native::where: the number becomes
/// scalar_tensor(value, dtype=result type, layout=strided, device) and where.self follows
/// (a tensor operand of another dtype is converted first).
void where_scalar_rule(Rewriter& rw) {
  std::string cond = rw.tensor("condition");
  const ir::Argument* self = rw.args().find("self");
  const ir::Argument* other = rw.args().find("other");
  if (!self || !other) {
    rw.fail(ErrorCode::INVALID_GRAPH, "where: missing operands");
    return;
  }
  Meta cm = rw.meta(cond);
  if (!rw.ok()) return;
  std::vector<const Meta*> tensors;
  std::vector<Number> numbers;
  Meta sm, om;
  if (self->is_tensor()) {
    sm = rw.meta(self->tensor_name());
    tensors.push_back(&sm);
  } else {
    numbers.push_back(rw.take(rw.args().number("self")));
  }
  if (other->is_tensor()) {
    om = rw.meta(other->tensor_name());
    tensors.push_back(&om);
  } else {
    numbers.push_back(rw.take(rw.args().number("other")));
  }
  if (!rw.ok()) return;
  ir::ScalarType t = promote_types(tensors, numbers);
  auto operand = [&](const ir::Argument& a) -> std::string {
    if (a.is_tensor()) return to_dtype(rw, a.tensor_name(), t);
    return rw.call("aten.scalar_tensor.default", {a},
                   {{"dtype", ir::arg_dtype(t)},
                    {"layout", ir::arg_layout(ir::Layout::Strided)},
                    {"device", ir::arg_device(cm.device)}});
  };
  // C++ evaluates the converted tensor first, then builds the scalar tensor.
  std::string s, o;
  if (self->is_tensor()) {
    s = operand(*self);
    o = operand(*other);
  } else {
    o = operand(*other);
    s = operand(*self);
  }
  rw.set_outputs({rw.call("aten.where.self", {ir::arg_tensor(cond), ir::arg_tensor(s), ir::arg_tensor(o)})});
}

/// Shared dtype conversion of the aten.to overloads / type_as (at::native::to): the
/// input itself when nothing changes, else _to_copy(self, dtype=..., memory_format=...).
void emit_to(Rewriter& rw, const std::string& x, std::optional<ir::ScalarType> dtype, bool copy,
             std::optional<ir::MemoryFormat> mf) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  bool same_dtype = !dtype || *dtype == m.dtype;
  bool same_format = !mf || *mf == ir::MemoryFormat::PreserveFormat ||
                     (*mf == ir::MemoryFormat::ContiguousFormat && is_contiguous(m));
  if (same_dtype && same_format && !copy) {
    rw.set_outputs({x});
    return;
  }
  KwArgs kw;
  if (dtype) kw.emplace_back("dtype", ir::arg_dtype(*dtype));
  if (mf) kw.emplace_back("memory_format", ir::arg_memory_format(*mf));
  rw.set_outputs({rw.call("aten._to_copy.default", {ir::arg_tensor(x)}, std::move(kw))});
}

/// aten.to.dtype / to.dtype_layout / to.device → _to_copy when the dtype (or memory
/// format) changes or copy=True; the input itself otherwise.
void to_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto dt = rw.dtype("dtype");
  bool copy = rw.args().find("copy") ? rw.bool_("copy") : false;
  auto mf = rw.memory_format("memory_format");
  if (!rw.ok()) return;
  emit_to(rw, x, dt, copy, mf);
}

/// aten.to.other / type_as → to(other.dtype).
void to_other_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta o = rw.meta(rw.tensor("other"));
  bool copy = rw.args().find("copy") ? rw.bool_("copy") : false;
  auto mf = rw.args().find("memory_format") ? rw.memory_format("memory_format") : std::nullopt;
  if (!rw.ok()) return;
  emit_to(rw, x, o.dtype, copy, mf);
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

/// aten.std.correction → torch._decomp std_decomposition: sqrt(var.correction(self, dim,
/// correction=correction, keepdim=keepdim)).
void std_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  KwArgs kw;
  ir::Argument corr = rw.raw("correction");
  if (!corr.is_none()) kw.emplace_back("correction", corr);
  kw.emplace_back("keepdim", rw.raw("keepdim"));
  std::string v = rw.call("aten.var.correction", {ir::arg_tensor(x), rw.raw("dim")}, std::move(kw));
  rw.set_outputs({rw.call("aten.sqrt.default", {ir::arg_tensor(v)})});
}

}  // namespace

void add_pointwise_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.rsub.Scalar", rsub_rule, "torch._decomp rsub_Scalar → sub.Tensor(other, self)"});
  out.push_back({"aten.rsub.Tensor", rsub_rule, "torch._decomp rsub_Tensor → sub.Tensor(other, self)"});
  out.push_back({"aten.masked_fill.Scalar", masked_fill_scalar_rule, "torch._refs masked_fill → full + where"});
  out.push_back({"aten.masked_fill.Tensor", masked_fill_tensor_rule, "torch._refs masked_fill → where"});
  out.push_back({"aten.clamp_min.default", clamp_min_rule, "torch._decomp clamp_min → clamp"});
  out.push_back({"aten.clamp_max.default", clamp_max_rule, "torch._decomp clamp_max → clamp"});
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
  out.push_back({"aten.type_as.default", to_other_rule, "at::native::type_as → to → _to_copy"});
  out.push_back({"aten.sum.default", sum_rule, "torch._decomp sum_default → sum.dim_IntList(x, [])"});
  out.push_back({"aten.std.correction", std_rule, "torch._decomp std_decomposition → sqrt(var.correction)"});
}

}  // namespace pteforge::passes::decomp
