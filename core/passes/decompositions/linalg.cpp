// Linear algebra: linear, matmul and the ops their decompositions reach
// (dot, mv, t, transpose), plus baddbmm and trace.
#include <cmath>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

/// aten.linear.default → at::native::linear (Linear.cpp, CompositeImplicitAutograd):
/// 2-d input with bias: permute(w, [1, 0]) + addmm(b, x, wt); contiguous N-d input
/// with a 1-d bias (_flatten_nd_linear): view(x, [prod(lead), K]) + permute + addmm +
/// view(lead + [N]) (symbolic lead sizes via sym_size.int / _operator.mul); otherwise
/// matmul(x, w.t()) followed by add.Tensor(out, b) when there is a bias.
void linear_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  std::string w = rw.tensor("weight");
  std::optional<std::string> b = rw.opt_tensor("bias");
  if (!rw.ok()) return;
  rw.set_outputs({linear(rw, x, w, b)});
}

/// aten.matmul.default → at::native::matmul (_matmul_impl): by ranks 1x1 dot, 2x1 mv,
/// 1x2 unsqueeze + mm + squeeze, 2x2 mm; >=3-d x <=2-d folds into mm/mv when
/// should_fold holds (view + mm + view, transposed for <=2-d x >=3-d); else expand both
/// to the broadcast batch, reshape to 3-d, bmm and view back.
void matmul_rule(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("other");
  if (!rw.ok()) return;
  rw.set_outputs({matmul(rw, a, b)});
}

/// torch._refs dot on real vectors: its _dot_check (1-d operands of one dtype and one
/// length, PyTorch's messages), then (a * b).sum() inside the DEFAULT type promotion
/// wrapper: float16/bfloat16 multiplied and summed in float32, and every result cast
/// back to the operands' dtype (an integer product sums to int64 first). Empty
/// string after refusing.
std::string dot_product(Rewriter& rw, std::string a, std::string b) {
  Meta am = rw.meta(a);
  Meta bm = rw.meta(b);
  if (!rw.ok() || !require_real(rw, {am.dtype, bm.dtype})) return {};
  if (am.rank() != 1 || bm.rank() != 1) {
    rw.fail(ErrorCode::INVALID_GRAPH, "1D tensors expected, but got " + std::to_string(am.rank()) + "D and " +
                                          std::to_string(bm.rank()) + "D tensors");
    return {};
  }
  if (am.dtype != bm.dtype) {
    rw.fail(ErrorCode::INVALID_GRAPH, "dot : expected both vectors to have same dtype, but found torch." +
                                          std::string(ir::scalar_type_name(am.dtype)) + " and torch." +
                                          std::string(ir::scalar_type_name(bm.dtype)));
    return {};
  }
  if (am.sizes[0] != bm.sizes[0]) {
    const std::string na = rw.symbols().display(am.sizes[0]), nb = rw.symbols().display(bm.sizes[0]);
    if (!am.sizes[0].is_constant() || !bm.sizes[0].is_constant()) {
      rw.unsupported("dot of vectors of symbolic lengths " + na + " and " + nb + " that may differ");
      return {};
    }
    rw.fail(ErrorCode::INVALID_GRAPH, "inconsistent tensor size, expected tensor [" + na + "] and src [" +
                                          nb + "] to have the same number of elements, but got " + na +
                                          " and " + nb + " elements respectively");
    return {};
  }
  const ir::ScalarType compute = opmath_dtype(am.dtype);
  a = to_dtype(rw, a, compute);
  b = to_dtype(rw, b, compute);
  std::string m = rw.call("aten.mul.Tensor", {ir::arg_tensor(a), ir::arg_tensor(b)});
  std::string sum = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(m), ir::arg_ints({})});
  return to_dtype(rw, sum, am.dtype);
}

/// aten.dot.default → torch._refs dot (see dot_product).
void dot_rule(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("tensor");
  std::string r = dot_product(rw, a, b);
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.vdot.default → torch._refs vdot for real operands: dot(self, other) under the
/// same checks and DEFAULT type promotion (see dot_product; the nested dot's own casts
/// are no-ops then). Complex operands are refused.
void vdot_rule(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("other");
  std::string r = dot_product(rw, a, b);
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.addr.default → torch._refs addr: with self, vec1 and vec2 in their promoted
/// dtype's opmath dtype (DEFAULT promotion; the result cast back), self expanded to
/// [len(vec1), len(vec2)], then beta * self + alpha * outer(vec1, vec2) (outer as
/// at::native::outer: view of vec1 as a column times vec2; beta == 0
/// drops self, NaNs included); for bool results logical_or(self, outer) or the outer
/// (a false alpha: full_like(self, False); a false beta: no self). Refused as the
/// reference refuses them: vectors that are not 1-d, bool alpha/beta for non-bool
/// tensors, a float alpha/beta for integer tensors. Complex operands are refused.
void addr_rule(Rewriter& rw) {
  std::string self = rw.tensor("self");
  std::string v1 = rw.tensor("vec1");
  std::string v2 = rw.tensor("vec2");
  Number beta = rw.take(rw.args().number("beta"));
  Number alpha = rw.take(rw.args().number("alpha"));
  Meta sm = rw.meta(self);
  Meta m1 = rw.meta(v1);
  Meta m2 = rw.meta(v2);
  if (!rw.ok() || !require_real(rw, {sm.dtype, m1.dtype, m2.dtype})) return;
  for (const auto& [m, name] : {std::pair<const Meta*, const char*>{&m1, "vec1"}, {&m2, "vec2"}}) {
    if (m->rank() != 1) {
      rw.fail(ErrorCode::INVALID_GRAPH, std::string("addr: Expected 1-D argument ") + name + ", but got " +
                                            std::to_string(m->rank()) + "-D");
      return;
    }
  }
  const ir::ScalarType result = promote_types({&sm, &m1, &m2}, {});
  const bool all_bool = sm.dtype == ir::ScalarType::Bool && m1.dtype == ir::ScalarType::Bool &&
                        m2.dtype == ir::ScalarType::Bool;
  for (const auto& [n, name] : {std::pair<const Number*, const char*>{&alpha, "alpha"}, {&beta, "beta"}}) {
    if (n->kind == Number::Kind::Bool && !all_bool) {
      rw.fail(ErrorCode::INVALID_GRAPH,
              std::string("Boolean ") + name + " only supported for Boolean results.");
      return;
    }
    if (n->is_float() && !ir::is_floating(result)) {
      rw.fail(ErrorCode::INVALID_GRAPH, std::string("addr: a float ") + name + " for " +
                                            std::string(ir::scalar_type_name(result)) +
                                            " tensors (torch: cannot safely convert float to it)");
      return;
    }
  }
  const ir::ScalarType compute = opmath_dtype(result);
  self = to_dtype(rw, self, compute);
  v1 = to_dtype(rw, v1, compute);
  v2 = to_dtype(rw, v2, compute);
  std::string e =
      rw.call("aten.expand.default", {ir::arg_tensor(self), rw.sizes({m1.sizes[0], m2.sizes[0]})});
  if (!rw.ok()) return;
  // torch.outer is CompositeImplicitAutograd: vec1.reshape([n, 1]) * vec2.
  auto outer = [&] {
    std::string col = reshape(rw, v1, {m1.sizes[0], SymPoly(1)});
    return rw.call("aten.mul.Tensor", {ir::arg_tensor(col), ir::arg_tensor(v2)});
  };
  std::string out;
  if (result == ir::ScalarType::Bool) {
    auto product = [&] {
      return alpha.as_double() != 0.0
                 ? outer()
                 : rw.call("aten.full_like.default", {ir::arg_tensor(e), ir::arg_bool(false)},
                           {{"pin_memory", ir::arg_bool(false)}});
    };
    out = beta.as_double() == 0.0
              ? product()
              : rw.call("aten.logical_or.default", {ir::arg_tensor(e), ir::arg_tensor(product())});
  } else if (beta.as_double() == 0.0) {
    out = rw.call("aten.mul.Tensor", {ir::arg_tensor(outer()), number_arg(alpha)});
  } else {
    std::string scaled = rw.call("aten.mul.Tensor", {ir::arg_tensor(e), number_arg(beta)});
    std::string prod = rw.call("aten.mul.Tensor", {ir::arg_tensor(outer()), number_arg(alpha)});
    out = rw.call("aten.add.Tensor", {ir::arg_tensor(scaled), ir::arg_tensor(prod)});
  }
  rw.set_outputs({to_dtype(rw, out, result)});
}

/// aten.mv.default → torch._decomp mv: (self * vec).sum(dim=1) → mul.Tensor + sum.dim_IntList(x, [1]),
/// in float32 for half/bfloat16 inputs (pw_cast_for_opmath), cast back.
void mv_rule(Rewriter& rw) {
  OpMath om{rw};  // @pw_cast_for_opmath: half/bfloat16 products and sum in float32
  std::string a = om.up(rw.tensor("self"));
  std::string v = om.up(rw.tensor("vec"));
  std::string m = rw.call("aten.mul.Tensor", {ir::arg_tensor(a), ir::arg_tensor(v)});
  rw.set_outputs({om.down(rw.call("aten.sum.dim_IntList", {ir::arg_tensor(m), ir::arg_ints({1})}))});
}

/// aten.t.default → torch._decomp t / transpose.int: permute(x, [1, 0]) (rank < 2: x).
void t_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  rw.set_outputs({t(rw, x)});
}

/// aten.transpose.int → torch._decomp transpose.int: permute with dim0 and dim1 swapped.
void transpose_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t d0 = rw.int_("dim0");
  int64_t d1 = rw.int_("dim1");
  if (!rw.ok()) return;
  rw.set_outputs({transpose(rw, x, d0, d1)});
}

/// aten.baddbmm.default → torch._decomp baddbmm: bmm(batch1, batch2), * alpha when
/// alpha != 1, self * beta when beta != 1 (beta == 0 drops self), add.Tensor; in
/// float32 for half/bfloat16 inputs (its @pw_cast_for_opmath casts self, batch1
/// and batch2 up in that order, the result back), as mv. For an integer (or
/// bool) self, alpha and beta become ints first, as its int(beta) / int(alpha).
void baddbmm_rule(Rewriter& rw) {
  OpMath om{rw};
  Number beta = rw.take(rw.args().number("beta"));
  Number alpha = rw.take(rw.args().number("alpha"));
  std::string self = rw.tensor("self");
  if (!rw.ok()) return;
  if (!ir::is_floating(rw.meta(self).dtype)) {
    auto python_int = [](Number n) {
      return n.is_float() && std::isfinite(n.d) && std::fabs(n.d) < 9.0e18
                 ? Number::of_int(static_cast<int64_t>(std::trunc(n.d)))
                 : (n.kind == Number::Kind::Bool ? Number::of_int(n.i) : n);
    };
    beta = python_int(beta);
    alpha = python_int(alpha);
  }
  const bool keep_self = beta.as_double() != 0.0;  // beta == 0: self's cast is dead code, not traced
  if (keep_self) self = om.up(self);
  std::string b1 = om.up(rw.tensor("batch1"));
  std::string b2 = om.up(rw.tensor("batch2"));
  std::string r = rw.call("aten.bmm.default", {ir::arg_tensor(b1), ir::arg_tensor(b2)});
  if (alpha.as_double() != 1.0) r = rw.call("aten.mul.Tensor", {ir::arg_tensor(r), number_arg(alpha)});
  if (!keep_self) {
    rw.set_outputs({om.down(r)});
    return;
  }
  if (beta.as_double() != 1.0) self = rw.call("aten.mul.Tensor", {ir::arg_tensor(self), number_arg(beta)});
  rw.set_outputs({om.down(rw.call("aten.add.Tensor", {ir::arg_tensor(self), ir::arg_tensor(r)}))});
}

/// aten.trace.default → torch._refs trace: torch.sum(torch.diag(self, 0)) — diag is
/// CompositeImplicitAutograd (at::native::diag: diagonal_copy(self, offset) for a 2-d
/// self; the tracer drops offset 0 and the default dims), torch.sum is sum.default in its
/// decomposed form sum.dim_IntList(·, []) (emitted directly so the node is named as torch
/// names it; integer inputs sum to int64). diagonal_copy is view_copy-tagged, kept as
/// ExecuTorch keeps it. A self that is not 2-d is refused as torch refuses it.
void trace_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() != 2) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "trace: expected a matrix, but got tensor with dim " + std::to_string(m.rank()));
    return;
  }
  std::string d = rw.call("aten.diagonal_copy.default", {ir::arg_tensor(x), ir::arg_int(0)});
  rw.set_outputs({rw.call("aten.sum.dim_IntList", {ir::arg_tensor(d), ir::arg_ints({})})});
}

}  // namespace

void add_linalg_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.linear.default", linear_rule, "at::native::linear (Linear.cpp) / _flatten_nd_linear"});
  out.push_back({"aten.matmul.default", matmul_rule, "at::native::matmul (_matmul_impl, should_fold)"});
  out.push_back({"aten.dot.default", dot_rule, "torch._refs dot"});
  out.push_back({"aten.mv.default", mv_rule, "torch._decomp.decompositions.mv"});
  out.push_back({"aten.vdot.default", vdot_rule, "torch._refs vdot → dot"});
  out.push_back({"aten.addr.default", addr_rule, "torch._refs addr"});
  out.push_back({"aten.t.default", t_rule, "torch._decomp.decompositions.t"});
  out.push_back({"aten.transpose.int", transpose_rule, "torch._decomp.decompositions.transpose_int"});
  out.push_back({"aten.baddbmm.default", baddbmm_rule, "torch._decomp.decompositions.baddbmm"});
  out.push_back({"aten.trace.default", trace_rule, "torch._refs.trace → diagonal_copy + sum"});
}

}  // namespace pteforge::passes::decomp
