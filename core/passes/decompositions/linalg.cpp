// Linear algebra: linear, matmul and the ops their decompositions reach
// (dot, mv, t, transpose), plus baddbmm, trace, einsum and linalg_cross.
#include <algorithm>
#include <cmath>
#include <deque>

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

/// torch._refs.linalg.cross (pw_cast_for_opmath: float16/bfloat16 in float32 and back):
/// operands of one rank, each of length 3 at dim; broadcast_tensors (expand of an operand
/// whose sizes differ from the broadcast shape); idx = arange(3); then, in Python's order
/// of evaluation, a.index_select(dim, (idx + 1) % 3) * b.index_select(dim, (idx + 2) % 3)
/// - a.index_select(dim, (idx + 2) % 3) * b.index_select(dim, (idx + 1) % 3), each
/// (idx + k) % 3 computed anew (add.Tensor, remainder.Scalar). Empty after failing.
std::string linalg_cross(Rewriter& rw, std::string a, std::string b, int64_t dim) {
  Meta am = rw.meta(a);
  Meta bm = rw.meta(b);
  if (!rw.ok() || !require_real(rw, {am.dtype, bm.dtype})) return {};
  if (am.rank() != bm.rank()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "linalg.cross: inputs must have the same number of dimensions.");
    return {};
  }
  if (am.rank() == 0) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "Dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
    return {};
  }
  const size_t d = static_cast<size_t>(rw.take(normalize_dim(dim, am.rank())));
  if (!rw.ok()) return {};
  const SymPoly three(3);
  if (!(am.sizes[d] == three) || !(bm.sizes[d] == three)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "linalg.cross: inputs dim " + std::to_string(dim) +
                                          " must have length 3, got " + rw.symbols().display(am.sizes[d]) +
                                          " and " + rw.symbols().display(bm.sizes[d]));
    return {};
  }
  OpMath om{rw};
  a = om.up(a);
  b = om.up(b);
  std::vector<SymPoly> shape = rw.take(broadcast_shapes({am.sizes, bm.sizes}, &rw.symbols()));
  if (!rw.ok()) return {};
  if (am.sizes != shape) a = expand(rw, a, shape);
  if (bm.sizes != shape) b = expand(rw, b, shape);
  std::string idx = arange(rw, ir::arg_int(3), am.device);
  auto shifted = [&](int64_t k) {
    std::string s = rw.call("aten.add.Tensor", {ir::arg_tensor(idx), ir::arg_int(k)});
    return rw.call("aten.remainder.Scalar", {ir::arg_tensor(s), ir::arg_int(3)});
  };
  auto pick = [&](const std::string& x, int64_t k) {
    std::string i = shifted(k);
    return rw.call("aten.index_select.default",
                   {ir::arg_tensor(x), ir::arg_int(static_cast<int64_t>(d)), ir::arg_tensor(i)});
  };
  std::string a1 = pick(a, 1);
  std::string b2 = pick(b, 2);
  std::string left = rw.call("aten.mul.Tensor", {ir::arg_tensor(a1), ir::arg_tensor(b2)});
  std::string a2 = pick(a, 2);
  std::string b1 = pick(b, 1);
  std::string right = rw.call("aten.mul.Tensor", {ir::arg_tensor(a2), ir::arg_tensor(b1)});
  return om.down(rw.call("aten.sub.Tensor", {ir::arg_tensor(left), ir::arg_tensor(right)}));
}

/// aten.linalg_cross.default → torch._refs.linalg.cross (see linalg_cross).
void linalg_cross_rule(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("other");
  const int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  std::string r = linalg_cross(rw, a, b, dim);
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.cross.default → at::native::cross (Cross.cpp): linalg_cross(self, other, dim);
/// without a dim, the first dim of size 3 (torch's deprecated default; none is an error).
void cross_rule(Rewriter& rw) {
  std::string a = rw.tensor("self");
  std::string b = rw.tensor("other");
  std::optional<int64_t> dim = rw.opt_int("dim");
  Meta am = rw.meta(a);
  if (!rw.ok()) return;
  if (!dim) {
    for (size_t i = 0; i < am.rank() && !dim; ++i) {
      if (am.sizes[i] == SymPoly(3)) dim = static_cast<int64_t>(i);
    }
    if (!dim) {
      rw.fail(ErrorCode::INVALID_GRAPH, "no dimension of size 3 in input");
      return;
    }
  }
  std::string r = linalg_cross(rw, a, b, *dim);
  if (rw.ok()) rw.set_outputs({r});
}

// ---- einsum -------------------------------------------------------------------------------------

/// Einsum labels as at::native::einsum numbers them: 'A'..'Z' are 0..25, 'a'..'z'
/// 26..51 (the order of the implicit output and of the contraction dims), the
/// ellipsis 52.
constexpr int kEinsumLetters = 26;
constexpr int kEinsumLabels = 2 * kEinsumLetters;
constexpr int kEllipsis = kEinsumLabels;

bool is_ascii_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
int einsum_subscript(char c) { return c <= 'Z' ? c - 'A' : c - 'a' + kEinsumLetters; }
char einsum_label(int s) {
  return static_cast<char>(s < kEinsumLetters ? 'A' + s : 'a' + s - kEinsumLetters);
}

/// A size einsum treats as "not 1" (it broadcasts otherwise): a constant other
/// than 1, or a symbolic size (torch.export gives dynamic dims a minimum of 2).
bool einsum_not_one(const SymPoly& p) { return !(p.is_constant() && p.value() == 1); }

/// Checks that `seen` (1 when unset) and `size` agree as at::native::einsum's
/// broadcast checks do; `mismatch` is torch's message. A pair that differs only
/// symbolically is refused as unsupported. False after failing.
bool einsum_sizes_agree(Rewriter& rw, const SymPoly& seen, const SymPoly& size, const std::string& mismatch) {
  if (!einsum_not_one(seen) || seen == size) return true;
  if (seen.is_constant() && size.is_constant()) {
    rw.fail(ErrorCode::INVALID_GRAPH, mismatch);
  } else {
    rw.unsupported("sizes " + rw.symbols().display(seen) + " and " + rw.symbols().display(size) +
                   " of one subscript may differ");
  }
  return false;
}

/// at::native::sumproduct_pair with keepdim: (left * right).sum(sum_dims) through
/// permute + reshape + bmm + view + permute (mul.Tensor when nothing is summed);
/// a summed dim that only one side has (size != 1) is summed on that side first.
/// The operands have equal ranks. Empty string after failing.
std::string einsum_sumproduct_pair(Rewriter& rw, std::string left, std::string right,
                                   const std::vector<int64_t>& sum_dims) {
  if (sum_dims.empty()) return rw.call("aten.mul.Tensor", {ir::arg_tensor(left), ir::arg_tensor(right)});
  Meta lm = rw.meta(left);
  Meta rm = rw.meta(right);
  if (!rw.ok()) return {};
  const size_t dim = lm.rank();
  std::vector<bool> summed(dim, false);
  for (int64_t d : sum_dims) summed[static_cast<size_t>(d)] = true;
  std::vector<int64_t> lro, lo, ro;
  SymPoly lro_size(1), lo_size(1), ro_size(1), sum_size(1);
  for (size_t i = 0; i < dim; ++i) {
    const bool sl = einsum_not_one(lm.sizes[i]);
    const bool sr = einsum_not_one(rm.sizes[i]);
    const int64_t d = static_cast<int64_t>(i);
    if (summed[i]) {
      if (sl && sr) {
        sum_size = sum_size * lm.sizes[i];
      } else if (sl) {
        left = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(left), ir::arg_ints({d}), ir::arg_bool(true)});
      } else if (sr) {
        right =
            rw.call("aten.sum.dim_IntList", {ir::arg_tensor(right), ir::arg_ints({d}), ir::arg_bool(true)});
      }
    } else if (sl && sr) {
      lro.push_back(d);
      lro_size = lro_size * lm.sizes[i];
    } else if (sl) {
      lo.push_back(d);
      lo_size = lo_size * lm.sizes[i];
    } else {
      ro.push_back(d);
      ro_size = ro_size * rm.sizes[i];
    }
  }
  std::vector<SymPoly> out_size;
  for (int64_t d : lro) out_size.push_back(lm.sizes[static_cast<size_t>(d)]);
  for (int64_t d : lo) out_size.push_back(lm.sizes[static_cast<size_t>(d)]);
  for (size_t k = 0; k < sum_dims.size(); ++k) out_size.emplace_back(1);
  for (int64_t d : ro) out_size.push_back(rm.sizes[static_cast<size_t>(d)]);
  auto concat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> v;
    for (const std::vector<int64_t>* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
  const std::vector<int64_t> lperm = concat({&lro, &lo, &sum_dims, &ro});
  const std::vector<int64_t> rperm = concat({&lro, &sum_dims, &ro, &lo});
  std::vector<int64_t> operm(dim, -1);
  for (size_t k = 0; k < lperm.size(); ++k) operm[static_cast<size_t>(lperm[k])] = static_cast<int64_t>(k);
  left = reshape(rw, permute(rw, left, lperm), {lro_size, lo_size, sum_size});
  right = reshape(rw, permute(rw, right, rperm), {lro_size, sum_size, ro_size});
  if (!rw.ok()) return {};
  std::string result = rw.call("aten.bmm.default", {ir::arg_tensor(left), ir::arg_tensor(right)});
  return permute(rw, view(rw, result, out_size), operm);
}

/// aten.einsum.default → at::native::einsum (Linear.cpp, CompositeImplicitAutograd),
/// as run_decompositions() traces it: the equation parsed with torch's checks and
/// messages; each operand unsqueezed for the labels it lacks and permuted to
/// [output dims, ellipsis dims when not in the output, contraction dims];
/// operands contracted pairwise left to right (or in the order of `path`, which
/// torch.einsum passes for three or more operands when opt_einsum is on), a dim
/// that only one operand still has summed on that operand first
/// (sum.dim_IntList, keepdim), each pair through sumproduct_pair; finally the
/// contracted dims dropped by a view, or summed when there is one operand.
/// Refused: a subscript repeated within one operand (a diagonal), operands of
/// different dtypes (whether torch promotes them depends on the contraction),
/// sizes of one subscript that differ only symbolically.
void einsum_rule(Rewriter& rw) {
  const std::string equation = rw.str("equation");
  std::vector<std::string> operands = rw.tensors("tensors");
  const std::optional<std::vector<int64_t>> path = rw.opt_ints("path");
  if (!rw.ok()) return;
  auto invalid = [&rw](const std::string& msg) { rw.fail(ErrorCode::INVALID_GRAPH, "einsum(): " + msg); };
  if (operands.empty()) return invalid("must provide at least one operand");
  const size_t num_ops = operands.size();
  if (path) {
    const size_t path_size = num_ops == 1 ? 1 : (num_ops - 1) * 2;
    if (path->size() != path_size) {
      return invalid("expected contraction path given in path parameter to have size " +
                     std::to_string(path_size) + " but got " + std::to_string(path->size()));
    }
  }
  std::vector<Meta> metas;
  for (const std::string& op : operands) metas.push_back(rw.meta(op));
  if (!rw.ok()) return;

  // Labels per operand.
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> op_labels(num_ops);
  bool ell_in_input = false;
  size_t curr = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (ell_in_input) {
        return invalid("found '.' for operand " + std::to_string(curr) +
                       " for which an ellipsis was already found");
      }
      if (!(i + 2 < lhs.size() && lhs[i + 1] == '.' && lhs[i + 2] == '.')) {
        return invalid("found '.' for operand " + std::to_string(curr) + " that is not part of any ellipsis");
      }
      i += 2;
      op_labels[curr].push_back(kEllipsis);
      ell_in_input = true;
    } else if (c == ',') {
      if (++curr >= num_ops) return invalid("fewer operands were provided than specified in the equation");
      ell_in_input = false;
    } else if (is_ascii_letter(c)) {
      op_labels[curr].push_back(einsum_subscript(c));
    } else {
      return invalid("invalid subscript given at index " + std::to_string(i) +
                     " in the equation string, subscripts must be in [a-zA-Z]");
    }
  }
  if (curr != num_ops - 1) return invalid("more operands were provided than specified in the equation");

  std::vector<int64_t> label_count(kEinsumLabels, 0);
  int64_t ell_num_dim = 0;
  for (size_t i = 0; i < num_ops; ++i) {
    const int64_t ndims = static_cast<int64_t>(metas[i].rank());
    int64_t nlabels = static_cast<int64_t>(op_labels[i].size());
    bool has_ellipsis = false;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        --nlabels;
        has_ellipsis = true;
        ell_num_dim = std::max(ell_num_dim, ndims - nlabels);
      } else {
        ++label_count[static_cast<size_t>(s)];
      }
    }
    if (has_ellipsis ? nlabels > ndims : nlabels != ndims) {
      return invalid("the number of subscripts in the equation (" + std::to_string(nlabels) +
                     (has_ellipsis ? ") is more than the number of dimensions ("
                                   : ") does not match the number of dimensions (") +
                     std::to_string(ndims) + ") for operand " + std::to_string(i) +
                     (has_ellipsis ? "" : " and no ellipsis was given"));
    }
  }

  // Where each label goes: output dims first, then contraction dims.
  std::vector<int64_t> label_perm_index(kEinsumLabels, -1);
  int64_t perm_index = 0;
  int64_t ell_index = 0;
  bool ell_in_output = false;
  if (arrow == std::string::npos) {
    perm_index = ell_num_dim;  // implicit output: the ellipsis, then labels seen once
    ell_in_output = true;
    for (int s = 0; s < kEinsumLabels; ++s) {
      if (label_count[static_cast<size_t>(s)] == 1) label_perm_index[static_cast<size_t>(s)] = perm_index++;
    }
  } else {
    const std::string rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        if (ell_in_output) return invalid("found '.' for output but an ellipsis (...) was already found");
        if (!(i + 2 < rhs.size() && rhs[i + 1] == '.' && rhs[i + 2] == '.')) {
          return invalid("found '.' for output that is not part of any ellipsis (...)");
        }
        i += 2;
        ell_index = perm_index;
        perm_index += ell_num_dim;
        ell_in_output = true;
      } else if (is_ascii_letter(c)) {
        const size_t s = static_cast<size_t>(einsum_subscript(c));
        if (label_count[s] == 0 || label_perm_index[s] != -1) {
          return invalid(std::string("output subscript ") + c +
                         (label_perm_index[s] > -1
                              ? " appears more than once in the output"
                              : " does not appear in the equation for any input operand"));
        }
        label_perm_index[s] = perm_index++;
      } else {
        return invalid("invalid subscript given at index " + std::to_string(lhs.size() + 2 + i) +
                       " in the equation string, subscripts must be in [a-zA-Z]");
      }
    }
  }
  const int64_t out_num_dim = perm_index;
  if (!ell_in_output) {
    ell_index = perm_index;
    perm_index += ell_num_dim;
  }
  for (int s = 0; s < kEinsumLabels; ++s) {
    const size_t k = static_cast<size_t>(s);
    if (label_count[k] > 0 && label_perm_index[k] == -1) label_perm_index[k] = perm_index++;
  }

  // Align every operand to the perm_index dims (unsqueeze the missing ones, permute).
  std::vector<SymPoly> label_size(kEinsumLabels, SymPoly(1));
  std::vector<SymPoly> ell_sizes(static_cast<size_t>(ell_num_dim), SymPoly(1));
  std::vector<uint64_t> dim_counts(static_cast<size_t>(perm_index), 0);
  std::deque<std::string> ops;
  for (size_t i = 0; i < num_ops; ++i) {
    std::string op = operands[i];
    const Meta& m = metas[i];
    std::vector<int64_t> permutation(static_cast<size_t>(perm_index), -1);
    int64_t dim = 0;
    for (int s : op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t ndim = static_cast<int64_t>(m.rank()) - (static_cast<int64_t>(op_labels[i].size()) - 1);
        for (int64_t j = ell_num_dim - ndim; j < ell_num_dim; ++j) {
          const SymPoly& size = m.sizes[static_cast<size_t>(dim)];
          if (einsum_not_one(size)) {
            SymPoly& seen = ell_sizes[static_cast<size_t>(j)];
            if (!einsum_sizes_agree(rw, seen, size,
                                    "einsum(): dimension " + std::to_string(dim) +
                                        " covered by ellipsis in operand " + std::to_string(i) + "has size " +
                                        rw.symbols().display(size) +
                                        " which does not broadcast with previously seen ellipsis with size " +
                                        rw.symbols().display(seen) + " for the respective dimension")) {
              return;
            }
            seen = size;
            ++dim_counts[static_cast<size_t>(ell_index + j)];
          }
          permutation[static_cast<size_t>(ell_index + j)] = dim++;
        }
        continue;
      }
      const size_t at = static_cast<size_t>(label_perm_index[static_cast<size_t>(s)]);
      if (permutation[at] != -1) {
        return rw.unsupported(std::string("the subscript ") + einsum_label(s) + " repeated in operand " +
                              std::to_string(i) + " (a diagonal)");
      }
      const SymPoly& size = m.sizes[static_cast<size_t>(dim)];
      if (einsum_not_one(size)) {
        SymPoly& seen = label_size[static_cast<size_t>(s)];
        if (!einsum_sizes_agree(rw, seen, size,
                                std::string("einsum(): subscript ") + einsum_label(s) + " has size " +
                                    rw.symbols().display(size) + " for operand " + std::to_string(i) +
                                    " which does not broadcast with previously seen size " +
                                    rw.symbols().display(seen))) {
          return;
        }
        seen = size;
        ++dim_counts[at];
      }
      permutation[at] = dim++;
    }
    for (int64_t& val : permutation) {
      if (val == -1) {
        op = unsqueeze(rw, op, dim);
        val = dim++;
      }
    }
    ops.push_back(permute(rw, op, permutation));
  }
  if (!rw.ok()) return;

  // Mixed dtypes last, where torch's bmm would refuse them (after the equation and size checks).
  for (const Meta& m : metas) {
    if (m.dtype != metas.front().dtype) {
      return rw.unsupported("operands of different dtypes (" +
                            std::string(ir::scalar_type_name(metas.front().dtype)) + " and " +
                            std::string(ir::scalar_type_name(m.dtype)) + ")");
    }
  }
  // Contract pairwise.
  size_t next = 0;
  while (ops.size() > 1) {
    int64_t i = 0;
    int64_t j = 1;
    if (path) {
      i = (*path)[next++];
      j = (*path)[next++];
      if (j < i) std::swap(i, j);
      if (i == j || i < 0 || j >= static_cast<int64_t>(ops.size())) {
        return invalid(
            "invalid contraction (" + std::to_string(i) + ", " + std::to_string(j) +
            (i == j ? ") cannot contract an operand with itself" : ") operand index is out of bounds"));
      }
    }
    std::string a = ops[static_cast<size_t>(i)];
    std::string b = ops[static_cast<size_t>(j)];
    ops.erase(ops.begin() + j);
    ops.erase(ops.begin() + i);
    Meta am = rw.meta(a);
    Meta bm = rw.meta(b);
    if (!rw.ok()) return;
    std::vector<int64_t> sum_dims, a_dims_to_sum, b_dims_to_sum;
    for (int64_t d = out_num_dim; d < perm_index; ++d) {
      const size_t k = static_cast<size_t>(d);
      const bool in_a = einsum_not_one(am.sizes[k]);
      const bool in_b = einsum_not_one(bm.sizes[k]);
      if (in_a && in_b) {
        if (--dim_counts[k] == 1) {
          sum_dims.push_back(d);
          dim_counts[k] = 0;
        }
      } else if (dim_counts[k] == 1) {
        if (in_a) {
          a_dims_to_sum.push_back(d);
          dim_counts[k] = 0;
        } else if (in_b) {
          b_dims_to_sum.push_back(d);
          dim_counts[k] = 0;
        }
      }
    }
    if (!a_dims_to_sum.empty()) {
      a = rw.call("aten.sum.dim_IntList",
                  {ir::arg_tensor(a), ir::arg_ints(a_dims_to_sum), ir::arg_bool(true)});
    }
    if (!b_dims_to_sum.empty()) {
      b = rw.call("aten.sum.dim_IntList",
                  {ir::arg_tensor(b), ir::arg_ints(b_dims_to_sum), ir::arg_bool(true)});
    }
    std::string pair = einsum_sumproduct_pair(rw, a, b, sum_dims);
    if (!rw.ok()) return;
    if (path) {
      ops.push_back(pair);
    } else {
      ops.push_front(pair);
    }
  }

  std::string result = ops.front();
  if (perm_index > out_num_dim) {
    if (num_ops > 1) {
      Meta m = rw.meta(result);
      if (!rw.ok()) return;
      result = view(rw, result, std::vector<SymPoly>(m.sizes.begin(), m.sizes.begin() + out_num_dim));
    } else {
      std::vector<int64_t> dims;
      for (int64_t d = out_num_dim; d < perm_index; ++d) dims.push_back(d);
      result = rw.call("aten.sum.dim_IntList", {ir::arg_tensor(result), ir::arg_ints(dims)});
    }
  }
  if (rw.ok()) rw.set_outputs({result});
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
  out.push_back({"aten.linalg_cross.default", linalg_cross_rule, "torch._refs.linalg.cross"});
  out.push_back({"aten.cross.default", cross_rule, "at::native::cross → linalg_cross"});
  out.push_back({"aten.einsum.default", einsum_rule, "at::native::einsum (Linear.cpp) / sumproduct_pair"});
}

}  // namespace pteforge::passes::decomp
