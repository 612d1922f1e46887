// scaled_dot_product_attention in its math form.
#include <limits>
#include <cmath>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

bool is_one(const SymPoly& p) { return p.is_constant() && p.value() == 1; }

/// sdp_utils_cpp use_flash_attention_cpp (the CPU backend choice): 4-d q/k/v with
/// equal head dims, no dropout, a mask of rank 2 or 4 whose dims are 1 or full, a
/// floating dtype and a unit last-dim stride.
bool use_flash_cpu(const Meta& q, const Meta& k, const Meta& v, const std::optional<Meta>& mask, double dropout_p,
                   bool enable_gqa) {
  if (dropout_p != 0.0) return false;
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) return false;
  if (q.sizes[3] != k.sizes[3] || k.sizes[3] != v.sizes[3]) return false;
  if (q.sizes[0] != k.sizes[0] || q.sizes[0] != v.sizes[0]) return false;
  if (!enable_gqa && (q.sizes[1] != k.sizes[1] || q.sizes[1] != v.sizes[1])) return false;
  for (const Meta* m : {&q, &k, &v}) {
    if (!ir::is_floating(m->dtype)) return false;
    if (!is_one(m->strides[3])) return false;
    for (const auto& s : m->sizes) {
      if (s.is_constant() && s.value() == 0) return false;
    }
  }
  if (mask) {
    if (mask->rank() == 2) {
      const SymPoly full[2] = {q.sizes[2], k.sizes[2]};
      for (size_t i = 0; i < 2; ++i) {
        if (!is_one(mask->sizes[i]) && mask->sizes[i] != full[i]) return false;
      }
    } else if (mask->rank() == 4) {
      const SymPoly full[4] = {q.sizes[0], q.sizes[1], q.sizes[2], k.sizes[2]};
      for (size_t i = 0; i < 4; ++i) {
        if (!is_one(mask->sizes[i]) && mask->sizes[i] != full[i]) return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

/// convert_boolean_attn_mask (attention.cpp): where(mask, 0.0, scalar_tensor(-inf)) —
/// scalar_tensor(-inf, dtype, device), then where.ScalarSelf's scalar_tensor(0.0, dtype,
/// layout, device) and where.self.
std::string bool_mask_to_additive(Rewriter& rw, const std::string& mask, ir::ScalarType dtype, const ir::Device& dev) {
  std::string neg = rw.call("aten.scalar_tensor.default", {ir::arg_float(-std::numeric_limits<double>::infinity())},
                            {{"dtype", ir::arg_dtype(dtype)}, {"device", ir::arg_device(dev)}});
  std::string zero = scalar_tensor(rw, ir::arg_float(0.0), dtype, dev);
  return rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(zero), ir::arg_tensor(neg)});
}

/// repeat_interleave(x, repeats, dim=-3) for GQA (at::native::repeat_interleave_symint):
/// unsqueeze(dim + 1), expand, clone(contiguous_format), flatten(dim, dim + 1).
std::string repeat_heads(Rewriter& rw, const std::string& x, const SymPoly& repeats) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  int64_t dim = static_cast<int64_t>(m.rank()) - 3;
  std::string u = unsqueeze(rw, x, dim + 1);
  std::vector<SymPoly> shape = m.sizes;
  shape.insert(shape.begin() + dim + 1, repeats);
  std::string e = expand(rw, u, shape);
  std::string c = clone(rw, e, ir::MemoryFormat::ContiguousFormat);
  std::vector<SymPoly> flat = m.sizes;
  flat[dim] = m.sizes[dim] * repeats;
  return reshape(rw, c, flat);
}

/// _scaled_dot_product_attention_math (attention.cpp, CompositeImplicitAutograd):
/// query * sqrt(scale) (mul.Scalar); causal mask = ones(L, S, bool).tril() made additive;
/// GQA heads repeated; attn = matmul(query, key.transpose(-2, -1) * sqrt(scale)) (+ mask);
/// _safe_softmax(attn, -1); matmul(attn, value). Returns the output (attn weights unused).
std::string sdpa_math(Rewriter& rw, std::string q, std::string k, std::string v, std::optional<std::string> mask,
                      bool is_causal, std::optional<double> scale, bool enable_gqa) {
  Meta Q = rw.meta(q);
  Meta K = rw.meta(k);
  Meta V = rw.meta(v);
  if (!rw.ok()) return {};
  ir::ScalarType origin = Q.dtype;
  bool low = origin == ir::ScalarType::Half || origin == ir::ScalarType::BFloat16;
  if (low) {
    q = to_dtype(rw, q, ir::ScalarType::Float);
    k = to_dtype(rw, k, ir::ScalarType::Float);
    v = to_dtype(rw, v, ir::ScalarType::Float);
  }
  bool negative = scale && *scale < 0.0;
  double base;
  if (scale) {
    base = std::fabs(*scale);
  } else {
    const SymPoly& e = Q.sizes.back();
    if (!e.is_constant()) {
      rw.unsupported("symbolic head dimension without an explicit scale");
      return {};
    }
    base = 1.0 / std::sqrt(static_cast<double>(e.value()));
  }
  double sf = std::sqrt(base);
  std::string query = rw.call("aten.mul.Scalar", {ir::arg_tensor(q), ir::arg_float(negative ? 0.0 - sf : sf)});
  if (is_causal) {
    if (mask) {
      rw.fail(ErrorCode::INVALID_GRAPH, "scaled_dot_product_attention: explicit attn_mask with is_causal=True");
      return {};
    }
    SymPoly L = Q.sizes[Q.rank() - 2];
    SymPoly S = K.sizes[K.rank() - 2];
    std::string ones = rw.call("aten.ones.default", {rw.sizes({L, S})},
                               {{"dtype", ir::arg_dtype(ir::ScalarType::Bool)},
                                {"layout", ir::arg_layout(ir::Layout::Strided)},
                                {"device", ir::arg_device(Q.device)}});
    std::string tril = rw.call("aten.tril.default", {ir::arg_tensor(ones)});
    mask = bool_mask_to_additive(rw, tril, low ? ir::ScalarType::Float : origin, Q.device);
  }
  if (enable_gqa && Q.rank() >= 3) {
    const SymPoly& hq = Q.sizes[Q.rank() - 3];
    const SymPoly& hk = K.sizes[K.rank() - 3];
    const SymPoly& hv = V.sizes[V.rank() - 3];
    if (!(hq == hk && hk == hv)) {
      auto rk = hq.div_exact(hk);
      auto rv = hq.div_exact(hv);
      if (!rk || !rv) {
        rw.fail(ErrorCode::INVALID_GRAPH, "scaled_dot_product_attention: query heads must be a multiple of key/value heads");
        return {};
      }
      k = repeat_heads(rw, k, *rk);
      v = repeat_heads(rw, v, *rv);
    }
  }
  std::string kt = transpose(rw, k, -2, -1);
  std::string ks = rw.call("aten.mul.Scalar", {ir::arg_tensor(kt), ir::arg_float(sf)});
  std::string attn = matmul(rw, query, ks);
  if (mask) attn = rw.call("aten.add.Tensor", {ir::arg_tensor(attn), ir::arg_tensor(*mask)});
  attn = safe_softmax(rw, attn, -1);
  std::string out = matmul(rw, attn, v);
  if (low) out = to_dtype(rw, out, origin);
  return out;
}

/// aten.scaled_dot_product_attention.default → at::native::scaled_dot_product_attention:
/// a boolean attn_mask is made additive first; on CPU the flash backend (when its
/// conditions hold) is _scaled_dot_product_flash_attention_for_cpu, whose decomposition
/// (torch._decomp) is the math form above followed by permute(2, 0, 1, 3) +
/// clone(contiguous_format) + permute(1, 2, 0, 3); otherwise the math form alone.
/// dropout_p > 0 (training) is refused.
void sdpa_rule(Rewriter& rw) {
  std::string q = rw.tensor("query");
  std::string k = rw.tensor("key");
  std::string v = rw.tensor("value");
  auto mask = rw.opt_tensor("attn_mask");
  double dropout_p = rw.float_("dropout_p");
  bool is_causal = rw.bool_("is_causal");
  auto scale = rw.opt_float("scale");
  bool enable_gqa = rw.args().find("enable_gqa") ? rw.bool_("enable_gqa") : false;
  Meta Q = rw.meta(q);
  Meta K = rw.meta(k);
  Meta V = rw.meta(v);
  std::optional<Meta> M;
  if (mask) M = rw.meta(*mask);
  if (!rw.ok()) return;
  if (dropout_p > 0.0) {
    rw.unsupported("attention dropout (dropout_p > 0) is training-only; export the model after model.eval()");
    return;
  }
  bool flash = use_flash_cpu(Q, K, V, M, dropout_p, enable_gqa);
  if (mask && M->dtype == ir::ScalarType::Bool) mask = bool_mask_to_additive(rw, *mask, Q.dtype, Q.device);
  if (!flash) {
    rw.set_outputs({sdpa_math(rw, q, k, v, mask, is_causal, scale, enable_gqa)});
    return;
  }
  bool gqa = Q.sizes[1] != K.sizes[1];
  std::string out = sdpa_math(rw, q, k, v, mask, is_causal, scale, gqa);
  std::string p1 = permute(rw, out, {2, 0, 1, 3});
  std::string c = contiguous(rw, p1);
  rw.set_outputs({permute(rw, c, {1, 2, 0, 3})});
}

}  // namespace

void add_attention_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.scaled_dot_product_attention.default", sdpa_rule,
                 "at::native::scaled_dot_product_attention → _scaled_dot_product_flash_attention_for_cpu "
                 "(torch._decomp) → _scaled_dot_product_attention_math"});
}

}  // namespace pteforge::passes::decomp
