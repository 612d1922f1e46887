// Test helpers: seeded generators of planning problems.
//  - random_case: random DAG-like graphs (ops consuming recent tensors), with
//    optional preset pools, aliases, reservations and padding;
//  - transformer_case: the lifetimes ExecuTorch would see for a decoder-only
//    transformer lowered to out-variants (allocs right before each op).
// Header-only so a benchmark executable can reuse them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph_sim.h"
#include "passes/memory_plan/memory_plan.h"

namespace memplan_test {

using pteforge::memplan::PlanOptions;

/// splitmix64: the same sequence on every platform (unlike <random> distributions).
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform-enough integer in [0, n); n > 0.
  uint64_t below(uint64_t n) { return next() % n; }
  /// Integer in [lo, hi].
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(uint64_t num, uint64_t den) { return below(den) < num; }
};

struct RandomCase {
  std::vector<PlannedTensor> tensors;
  PlanOptions options;
};

inline uint64_t random_size(Rng& rng, int mode) {
  if (rng.chance(1, 20)) return 0;
  switch (mode) {
    case 0: return rng.range(1, 64);                    // small, unaligned
    case 1: return 16 * rng.range(1, 4);                // few distinct sizes: many ties
    case 2: return uint64_t{1} << rng.range(0, 16);       // powers of two
    default: return rng.range(1, 100000);               // wide spread
  }
}

/// A random DAG-like planning problem for `seed`.
inline RandomCase random_case(uint64_t seed) {
  Rng rng(seed * 7919 + 17);
  RandomCase c;
  GraphSim g;
  const int mode = static_cast<int>(rng.below(4));
  const uint64_t n_inputs = rng.below(4);
  const uint64_t n_ops = rng.range(0, seed % 5 == 0 ? 150 : 40);
  std::vector<size_t> avail;  // tensors that later ops may consume
  uint64_t id = 0;
  for (uint64_t i = 0; i < n_inputs; ++i) {
    if (rng.chance(1, 3)) g.skip(1);  // a constant placeholder before it
    const size_t t = g.tensor(id++, random_size(rng, mode));
    g.placeholder(t);
    avail.push_back(t);
  }
  for (uint64_t k = 0; k < n_ops; ++k) {
    std::vector<size_t> inputs;
    const uint64_t n_in = avail.empty() ? 0 : rng.range(1, 3);
    for (uint64_t j = 0; j < n_in; ++j) {
      // Mostly recent tensors, sometimes a long-lived one (skip connections).
      const uint64_t window = rng.chance(1, 5) ? avail.size() : std::min<uint64_t>(avail.size(), 6);
      inputs.push_back(avail[avail.size() - 1 - rng.below(window)]);
    }
    std::vector<std::pair<uint64_t, uint64_t>> outs;
    const uint64_t n_out = rng.chance(1, 6) ? 2 : 1;
    for (uint64_t j = 0; j < n_out; ++j) outs.push_back({id++, random_size(rng, mode)});
    for (size_t t : g.op(inputs, outs)) avail.push_back(t);
    if (rng.chance(1, 10)) g.skip(rng.range(1, 3));  // getitem / sym nodes
  }
  // The output node returns a few tensors.
  std::vector<size_t> outputs;
  for (uint64_t j = 0; j < std::min<uint64_t>(avail.size(), rng.range(1, 3)); ++j) {
    outputs.push_back(avail[avail.size() - 1 - j]);
  }
  g.node(outputs);
  c.tensors = g.tensors();
  const int64_t last_node = g.node_count() - 1;
  // Mutable buffers live for the whole graph.
  if (rng.chance(1, 6) && !c.tensors.empty()) {
    PlannedTensor& t = c.tensors[rng.below(c.tensors.size())];
    t.first_use = 0;
    t.last_use = last_node;
  }
  // Preset pools.
  if (rng.chance(1, 4)) {
    for (PlannedTensor& t : c.tensors) t.mem_id = static_cast<uint32_t>(rng.below(4));  // 0 = default pool
  }
  // Aliases (inplace_base): inside the base's lifetime and size, possibly chained.
  if (rng.chance(1, 4) && !c.tensors.empty()) {
    const uint64_t n_alias = rng.range(1, 5);
    for (uint64_t j = 0; j < n_alias; ++j) {
      const size_t b = rng.below(c.tensors.size());
      size_t root = b;
      while (c.tensors[root].alias_of) root = *c.tensors[root].alias_of;
      const PlannedTensor& base = c.tensors[root];
      PlannedTensor a;
      a.id = id++;
      a.nbytes = base.nbytes == 0 ? 0 : rng.range(1, base.nbytes);
      a.first_use = static_cast<int64_t>(rng.range(static_cast<uint64_t>(base.first_use), static_cast<uint64_t>(base.last_use)));
      a.last_use = static_cast<int64_t>(rng.range(static_cast<uint64_t>(a.first_use), static_cast<uint64_t>(base.last_use)));
      a.alias_of = b;
      c.tensors.push_back(a);
    }
  }
  if (rng.chance(1, 8)) c.options.alignment = c.options.sort_alignment = uint64_t{1} << rng.range(0, 7);
  // Submodule reservations are sums of aligned sizes (§6.8), so aligned too.
  const uint64_t a = c.options.alignment;
  if (rng.chance(1, 8)) c.options.reserved = {0, a * rng.below(8), a * rng.below(8)};
  if (rng.chance(1, 8)) c.options.extra_padding = 64;
  return c;
}

/// Shape of a decoder-only transformer (float32 activations).
struct TransformerShape {
  std::string name;
  uint64_t seq = 128;      // tokens
  uint64_t hidden = 768;   // d
  uint64_t heads = 12;
  uint64_t layers = 12;
  uint64_t mlp_mult = 4;
  uint64_t vocab = 32000;
  bool weight_transposes = false;  // linear → permute_copy(weight) + addmm, weight copy planned
  uint64_t elem = 4;
};

/// Planned tensors for one forward pass. Per layer: layer norm (out, mean, rstd),
/// q/k/v projections, head split (view + permute_copy), scores, scale, mask add,
/// softmax, context, head merge, output projection, residual add; layer norm,
/// MLP up, GELU, down, residual add. The residual stream stays live across each block.
inline std::vector<PlannedTensor> transformer_case(const TransformerShape& s) {
  GraphSim g;
  uint64_t id = 0;
  const uint64_t S = s.seq, d = s.hidden, h = s.heads, e = s.elem;
  const uint64_t dh = d / h;
  auto one = [&](const std::vector<size_t>& in, uint64_t bytes) { return g.op(in, {{id++, bytes}})[0]; };
  auto linear = [&](size_t x, uint64_t in_features, uint64_t out_features) {
    std::vector<size_t> in = {x};
    if (s.weight_transposes) {
      const size_t wt = one({}, in_features * out_features * e);
      in.push_back(wt);
    }
    return one(in, S * out_features * e);
  };
  auto layer_norm = [&](size_t x) {
    std::vector<size_t> outs = g.op({x}, {{id, S * d * e}, {id + 1, S * e}, {id + 2, S * e}});
    id += 3;
    for (size_t t : outs) g.node({t});  // getitem nodes
    return outs[0];
  };
  g.skip(static_cast<int64_t>(2 + s.layers * 12));  // weight placeholders
  size_t x = g.tensor(id++, S * d * e);
  g.placeholder(x);
  for (uint64_t l = 0; l < s.layers; ++l) {
    const size_t ln1 = layer_norm(x);
    const size_t q = linear(ln1, d, d);
    const size_t k = linear(ln1, d, d);
    const size_t v = linear(ln1, d, d);
    g.node({q});  // view to [S, h, dh]
    const size_t qh = one({q}, h * S * dh * e);
    g.node({k});
    const size_t kt = one({k}, h * dh * S * e);
    g.node({v});
    const size_t vh = one({v}, h * S * dh * e);
    const size_t scores = one({qh, kt}, h * S * S * e);
    const size_t scaled = one({scores}, h * S * S * e);
    const size_t masked = one({scaled}, h * S * S * e);
    const size_t probs = one({masked}, h * S * S * e);
    const size_t ctx = one({probs, vh}, h * S * dh * e);
    const size_t merged = one({ctx}, S * h * dh * e);
    g.node({merged});  // view to [S, d]
    const size_t attn = linear(merged, d, d);
    const size_t x1 = one({x, attn}, S * d * e);
    const size_t ln2 = layer_norm(x1);
    const size_t up = linear(ln2, d, s.mlp_mult * d);
    const size_t act = one({up}, S * s.mlp_mult * d * e);
    const size_t down = linear(act, s.mlp_mult * d, d);
    x = one({x1, down}, S * d * e);
  }
  const size_t lnf = layer_norm(x);
  const size_t logits = linear(lnf, d, s.vocab);
  g.node({logits});  // output
  return g.tensors();
}

/// Shape of a Llama-style decoder (RMSNorm, RoPE, grouped-query attention with
/// a KV cache, SwiGLU), float32, exported without custom ops.
struct LlamaShape {
  std::string name;
  uint64_t seq = 32;        // new tokens this call
  uint64_t max_seq = 256;   // KV cache length
  uint64_t hidden = 288;
  uint64_t heads = 6;
  uint64_t kv_heads = 6;
  uint64_t layers = 6;
  uint64_t ffn = 768;
  uint64_t vocab = 32000;
  /// Cache update as a functional index_put: a new full-size cache tensor per
  /// layer that lives until the write-back copy_ at the end of the graph.
  bool functional_cache_update = false;
  uint64_t elem = 4;
};

/// Planned tensors for one Llama-style forward. KV caches are mutable buffers
/// (live for the whole graph); RoPE cos/sin and the mask are computed once and
/// used by every layer; RMSNorm and RoPE are decomposed into small ops.
inline std::vector<PlannedTensor> llama_case(const LlamaShape& s) {
  GraphSim g;
  uint64_t id = 0;
  const uint64_t S = s.seq, T = s.max_seq, d = s.hidden, e = s.elem;
  const uint64_t dh = d / s.heads, kvd = s.kv_heads * dh;
  auto one = [&](const std::vector<size_t>& in, uint64_t bytes) { return g.op(in, {{id++, bytes}})[0]; };
  g.skip(static_cast<int64_t>(3 + s.layers * 9));  // weights and constant tables
  std::vector<size_t> caches;
  for (uint64_t l = 0; l < 2 * s.layers; ++l) {
    caches.push_back(g.tensor(id++, T * kvd * e));
    g.placeholder(caches.back());
  }
  const size_t pos = g.tensor(id++, S * 8);
  g.placeholder(pos);
  size_t x = g.tensor(id++, S * d * e);
  g.placeholder(x);
  const size_t cos = one({pos}, S * dh / 2 * e);
  const size_t sin = one({pos}, S * dh / 2 * e);
  const size_t mask = one({pos}, S * T * e);
  auto rms_norm = [&](size_t in) {
    const size_t sq = one({in}, S * d * e);
    const size_t mean = one({sq}, S * e);
    const size_t eps = one({mean}, S * e);
    const size_t rs = one({eps}, S * e);
    const size_t normed = one({in, rs}, S * d * e);
    return one({normed}, S * d * e);  // × weight
  };
  auto rope = [&](size_t t, uint64_t heads) {
    const uint64_t half = S * heads * dh / 2 * e;
    g.node({t});  // view [S, heads, dh/2, 2]
    const size_t x1 = one({t}, half);
    const size_t x2 = one({t}, half);
    const size_t a1 = one({x1, cos}, half);
    const size_t a2 = one({x2, sin}, half);
    const size_t a = one({a1, a2}, half);
    const size_t b1 = one({x1, sin}, half);
    const size_t b2 = one({x2, cos}, half);
    const size_t b = one({b1, b2}, half);
    return one({a, b}, 2 * half);  // stack
  };
  std::vector<size_t> write_back;
  for (uint64_t l = 0; l < s.layers; ++l) {
    const size_t h1 = rms_norm(x);
    const size_t q = one({h1}, S * d * e);
    const size_t k = one({h1}, S * kvd * e);
    const size_t v = one({h1}, S * kvd * e);
    const size_t qr = rope(q, s.heads);
    const size_t kr = rope(k, s.kv_heads);
    size_t kc = caches[2 * l], vc = caches[2 * l + 1];
    if (s.functional_cache_update) {
      kc = one({caches[2 * l], pos, kr}, T * kvd * e);
      vc = one({caches[2 * l + 1], pos, v}, T * kvd * e);
      write_back.push_back(kc);
      write_back.push_back(vc);
    } else {
      g.node({kc, pos, kr});  // in-place cache update (copy_ into the buffer)
      g.node({vc, pos, v});
    }
    const size_t qt = one({qr}, S * d * e);                       // [h, S, dh]
    const size_t kt = one({kc}, T * kvd * e);                     // [kvh, dh, T]
    const size_t kx = one({kt}, s.heads * T * dh * e);            // repeat_interleave to h heads
    const size_t vt = one({vc}, T * kvd * e);
    const size_t vx = one({vt}, s.heads * T * dh * e);
    const size_t scores = one({qt, kx}, s.heads * S * T * e);
    const size_t scaled = one({scores}, s.heads * S * T * e);
    const size_t masked = one({scaled, mask}, s.heads * S * T * e);
    const size_t probs = one({masked}, s.heads * S * T * e);
    const size_t ctx = one({probs, vx}, S * d * e);
    const size_t merged = one({ctx}, S * d * e);
    const size_t attn = one({merged}, S * d * e);
    const size_t x1 = one({x, attn}, S * d * e);
    const size_t h2 = rms_norm(x1);
    const size_t gate = one({h2}, S * s.ffn * e);
    const size_t up = one({h2}, S * s.ffn * e);
    const size_t act = one({gate}, S * s.ffn * e);
    const size_t prod = one({act, up}, S * s.ffn * e);
    const size_t down = one({prod}, S * d * e);
    x = one({x1, down}, S * d * e);
  }
  const size_t hf = rms_norm(x);
  const size_t last = one({hf}, d * e);  // last token only
  const size_t logits = one({last}, s.vocab * e);
  for (size_t i = 0; i < write_back.size(); ++i) g.node({caches[i], write_back[i]});  // copy_ write-back
  g.node({logits});  // output
  std::vector<PlannedTensor> ts = g.tensors();
  for (size_t c : caches) ts[c].last_use = g.node_count() - 1;  // mutable buffers live to the end (§6.1.2)
  return ts;
}

/// The Llama-style shapes the ratio test reports on.
inline std::vector<LlamaShape> llama_shapes() {
  std::vector<LlamaShape> v;
  v.push_back({"stories15M prefill S=32", 32, 256, 288, 6, 6, 6, 768, 32000, false, 4});
  v.push_back({"stories15M prefill functional cache", 32, 256, 288, 6, 6, 6, 768, 32000, true, 4});
  v.push_back({"tinyllama prefill S=128 T=512", 128, 512, 2048, 32, 4, 4, 5632, 32000, false, 4});
  v.push_back({"llama7b-like decode S=1 T=2048", 1, 2048, 4096, 32, 8, 4, 11008, 32000, false, 4});
  v.push_back({"llama7b-like decode functional cache", 1, 2048, 4096, 32, 8, 4, 11008, 32000, true, 4});
  return v;
}

/// The shapes the ratio test reports on.
inline std::vector<TransformerShape> transformer_shapes() {
  std::vector<TransformerShape> v;
  v.push_back({"gpt2-small S=128", 128, 768, 12, 12, 4, 50257, false, 4});
  v.push_back({"gpt2-small S=1024", 1024, 768, 12, 12, 4, 50257, false, 4});
  v.push_back({"llama-like decode S=1", 1, 4096, 32, 4, 4, 32000, false, 4});
  v.push_back({"small S=64", 64, 256, 4, 2, 4, 1000, false, 4});
  v.push_back({"gpt2-small S=128 +weight copies", 128, 768, 12, 12, 4, 50257, true, 4});
  v.push_back({"tiny S=512 +weight copies", 512, 128, 2, 6, 4, 256, true, 4});
  return v;
}

}  // namespace memplan_test
