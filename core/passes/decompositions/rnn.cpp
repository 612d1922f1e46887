// Recurrent layers: aten.lstm.input, aten.gru.input, aten.rnn_tanh.input and
// aten.rnn_relu.input, unrolled over time as torch._decomp's lstm_impl / gru_impl /
// rnn_tanh_input / rnn_relu_input do (one_layer_lstm / one_layer_rnn with lstm_cell /
// gru_cell / rnn_cell). The mkldnn_rnn_layer variant torch picks on mkldnn CPU
// builds is not Core ATen and is not reproduced.
#include <algorithm>
#include <tuple>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

struct Layer {
  std::string ih_w, hh_w;
  std::optional<std::string> ih_b, hh_b, hr_w;
};

/// gather_params: groups of 2 (w_ih, w_hh), 3 (+ w_hr), 4 (+ biases) or 5 tensors.
std::vector<Layer> gather(Rewriter& rw, const std::vector<std::string>& params, bool has_biases, bool projections) {
  size_t group = has_biases ? (projections ? 5 : 4) : (projections ? 3 : 2);
  if (params.size() % group != 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "RNN params do not form groups of " + std::to_string(group));
    return {};
  }
  std::vector<Layer> out;
  for (size_t i = 0; i < params.size(); i += group) {
    Layer l;
    l.ih_w = params[i];
    l.hh_w = params[i + 1];
    if (has_biases) {
      l.ih_b = params[i + 2];
      l.hh_b = params[i + 3];
    }
    if (group == 5) l.hr_w = params[i + 4];
    if (group == 3) l.hr_w = params[i + 2];
    out.push_back(l);
  }
  return out;
}

std::string add(Rewriter& rw, const std::string& a, const std::string& b) {
  return rw.call("aten.add.Tensor", {ir::arg_tensor(a), ir::arg_tensor(b)});
}
std::string mul(Rewriter& rw, const std::string& a, const std::string& b) {
  return rw.call("aten.mul.Tensor", {ir::arg_tensor(a), ir::arg_tensor(b)});
}
std::string unary(Rewriter& rw, const char* op, const std::string& a) { return rw.call(op, {ir::arg_tensor(a)}); }

/// lstm_cell (torch._decomp): gates = linear(hx, w_hh, b_hh) + inp; chunk(4, 2);
/// sigmoid / sigmoid / tanh / sigmoid; cy = f * cx + i * g; hy = o * tanh(cy) (then the
/// projection when w_hr is given).
std::pair<std::string, std::string> lstm_cell(Rewriter& rw, const std::string& inp, const std::string& hx,
                                              const std::string& cx, const Layer& l) {
  std::string gates = add(rw, linear(rw, hx, l.hh_w, l.hh_b), inp);
  auto c = chunk(rw, gates, 4, 2);
  if (!rw.ok() || c.size() != 4) {
    rw.fail(ErrorCode::INVALID_GRAPH, "lstm gates do not split into 4 chunks");
    return {};
  }
  std::string in_gate = unary(rw, "aten.sigmoid.default", c[0]);
  std::string forget_gate = unary(rw, "aten.sigmoid.default", c[1]);
  std::string cell_gate = unary(rw, "aten.tanh.default", c[2]);
  std::string out_gate = unary(rw, "aten.sigmoid.default", c[3]);
  std::string fc = mul(rw, forget_gate, cx);
  std::string ic = mul(rw, in_gate, cell_gate);
  std::string cy = add(rw, fc, ic);
  std::string hy = mul(rw, out_gate, unary(rw, "aten.tanh.default", cy));
  if (l.hr_w) hy = linear(rw, hy, *l.hr_w, std::nullopt);
  return {hy, cy};
}

/// gru_cell (torch._decomp): igates = inp.chunk(3, 1); hgates = linear(h, w_hh, b_hh).chunk(3, 2);
/// r = sigmoid(h0 + i0); z = sigmoid(h1 + i1); n = tanh(i2 + h2 * r); (h - n) * z + n.
std::string gru_cell(Rewriter& rw, const std::string& inp, const std::string& h, const Layer& l) {
  auto ig = chunk(rw, inp, 3, 1);
  auto hg = chunk(rw, linear(rw, h, l.hh_w, l.hh_b), 3, 2);
  if (!rw.ok() || ig.size() != 3 || hg.size() != 3) {
    rw.fail(ErrorCode::INVALID_GRAPH, "gru gates do not split into 3 chunks");
    return {};
  }
  std::string r = unary(rw, "aten.sigmoid.default", add(rw, hg[0], ig[0]));
  std::string z = unary(rw, "aten.sigmoid.default", add(rw, hg[1], ig[1]));
  std::string n = unary(rw, "aten.tanh.default", add(rw, ig[2], mul(rw, hg[2], r)));
  std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(h), ir::arg_tensor(n)});
  return add(rw, mul(rw, d, z), n);
}

std::string flip0(Rewriter& rw, const std::string& x) {
  return rw.call("aten.flip.default", {ir::arg_tensor(x), ir::arg_ints({0})});
}

/// one_layer_lstm: returns (out [T, B, H], final h, final c).
std::tuple<std::string, std::string, std::string> one_layer_lstm(Rewriter& rw, const std::string& input,
                                                                 const std::string& h0, const std::string& c0,
                                                                 const Layer& l, bool reverse) {
  std::string hx = unsqueeze(rw, h0, 0);
  std::string cx = unsqueeze(rw, c0, 0);
  std::string pre = linear(rw, input, l.ih_w, l.ih_b);
  if (reverse) pre = flip0(rw, pre);
  std::vector<std::string> steps;
  for (const auto& x : unbind(rw, pre, 0)) {
    if (!rw.ok()) return {};
    std::tie(hx, cx) = lstm_cell(rw, x, hx, cx, l);
    steps.push_back(hx);
  }
  if (reverse) std::reverse(steps.begin(), steps.end());
  std::string out = cat(rw, steps, 0);
  // torch squeezes dim 1, which only matches the [B, H] hidden shape for B == 1; the
  // batch-independent squeeze of dim 0 is used otherwise.
  Meta hm = rw.meta(hx);
  if (!rw.ok()) return {};
  int64_t sq = hm.rank() == 3 && hm.sizes[1].is_constant() && hm.sizes[1].value() == 1 ? 1 : 0;
  return {out, squeeze_dims(rw, hx, {sq}), squeeze_dims(rw, cx, {sq})};
}

/// one_layer_rnn with gru_cell (`nonlinearity` null) or with rnn_cell(nonlinearity)
/// (nonlinearity(linear(h, w_hh, b_hh) + x): "aten.tanh.default" / "aten.relu.default"):
/// returns (out, final h).
std::pair<std::string, std::string> one_layer_rnn(Rewriter& rw, const std::string& input,
                                                  const std::string& h0, const Layer& l, bool reverse,
                                                  const char* nonlinearity) {
  std::string pre = linear(rw, input, l.ih_w, l.ih_b);
  if (reverse) pre = flip0(rw, pre);
  std::string h = unsqueeze(rw, h0, 0);
  std::vector<std::string> steps;
  for (const auto& x : unbind(rw, pre, 0)) {
    if (!rw.ok()) return {};
    h = nonlinearity ? unary(rw, nonlinearity, add(rw, linear(rw, h, l.hh_w, l.hh_b), x))
                     : gru_cell(rw, x, h, l);
    steps.push_back(h);
  }
  if (reverse) std::reverse(steps.begin(), steps.end());
  return {cat(rw, steps, 0), squeeze_dims(rw, h, {0})};
}

struct RnnArgs {
  std::string input;
  std::vector<std::string> params;
  bool has_biases = true;
  int64_t num_layers = 1;
  double dropout = 0.0;
  bool train = false;
  bool bidirectional = false;
  bool batch_first = false;
};

RnnArgs read_rnn_args(Rewriter& rw) {
  RnnArgs a;
  a.input = rw.tensor("input");
  a.params = rw.tensors("params");
  a.has_biases = rw.bool_("has_biases");
  a.num_layers = rw.int_("num_layers");
  a.dropout = rw.float_("dropout");
  a.train = rw.bool_("train");
  a.bidirectional = rw.bool_("bidirectional");
  a.batch_first = rw.bool_("batch_first");
  if (rw.ok() && a.train && a.dropout != 0.0 && a.num_layers > 1) {
    rw.unsupported("inter-layer dropout in training mode (export the model after model.eval())");
  }
  return a;
}

/// aten.lstm.input → torch._decomp lstm_impl (_rnn_helper + one_layer_lstm): hidden
/// states unbound per layer/direction, input transposed for batch_first, per layer the
/// input projection linear(x, w_ih, b_ih) for all steps, the steps unrolled (reverse
/// direction via flip), directions concatenated, final states stacked.
void lstm_rule(Rewriter& rw) {
  RnnArgs a = read_rnn_args(rw);
  auto hx = rw.tensors("hx");
  if (!rw.ok()) return;
  if (hx.size() != 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "lstm expects two hidden states");
    return;
  }
  Meta h0 = rw.meta(hx[0]);
  Meta c0 = rw.meta(hx[1]);
  if (!rw.ok()) return;
  bool projections = h0.sizes.back() != c0.sizes.back();
  std::vector<Layer> layers = gather(rw, a.params, a.has_biases, projections);
  auto hs = unbind(rw, hx[0], 0);
  auto cs = unbind(rw, hx[1], 0);
  if (!rw.ok()) return;
  size_t dirs = a.bidirectional ? 2 : 1;
  if (layers.size() != static_cast<size_t>(a.num_layers) * dirs || hs.size() != layers.size()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "lstm params / hidden states do not match num_layers and directions");
    return;
  }
  std::string input = a.batch_first ? transpose(rw, a.input, 0, 1) : a.input;
  std::vector<std::string> final_h, final_c;
  for (int64_t i = 0; i < a.num_layers; ++i) {
    size_t k = static_cast<size_t>(i) * dirs;
    auto [fwd, fh, fc] = one_layer_lstm(rw, input, hs[k], cs[k], layers[k], false);
    final_h.push_back(fh);
    final_c.push_back(fc);
    if (a.bidirectional) {
      auto [bwd, bh, bc] = one_layer_lstm(rw, input, hs[k + 1], cs[k + 1], layers[k + 1], true);
      final_h.push_back(bh);
      final_c.push_back(bc);
      Meta fm = rw.meta(fwd);
      if (!rw.ok()) return;
      input = cat(rw, {fwd, bwd}, static_cast<int64_t>(fm.rank()) - 1);
    } else {
      input = fwd;
    }
    if (!rw.ok()) return;
  }
  std::string out = a.batch_first ? transpose(rw, input, 0, 1) : input;
  std::string hn = stack(rw, final_h, 0);
  std::string cn = stack(rw, final_c, 0);
  rw.set_outputs({out, hn, cn});
}

/// aten.gru.input → torch._decomp gru_impl (_rnn_helper + one_layer_rnn with gru_cell);
/// aten.rnn_tanh.input / aten.rnn_relu.input → torch._decomp rnn_tanh_input / rnn_relu_input,
/// the same with rnn_cell(torch.tanh / torch.relu) (`nonlinearity`). hx is unbound first
/// (gather_params emits nothing), the final hidden states stacked.
void one_hidden_rnn(Rewriter& rw, const char* nonlinearity) {
  RnnArgs a = read_rnn_args(rw);
  std::string hx = rw.tensor("hx");
  if (!rw.ok()) return;
  std::vector<Layer> layers = gather(rw, a.params, a.has_biases, false);
  auto hs = unbind(rw, hx, 0);
  if (!rw.ok()) return;
  size_t dirs = a.bidirectional ? 2 : 1;
  if (layers.size() != static_cast<size_t>(a.num_layers) * dirs || hs.size() != layers.size()) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            std::string(rw.target()) + " params / hidden states do not match num_layers and directions");
    return;
  }
  std::string input = a.batch_first ? transpose(rw, a.input, 0, 1) : a.input;
  std::vector<std::string> final_h;
  for (int64_t i = 0; i < a.num_layers; ++i) {
    size_t k = static_cast<size_t>(i) * dirs;
    auto [fwd, fh] = one_layer_rnn(rw, input, hs[k], layers[k], false, nonlinearity);
    final_h.push_back(fh);
    if (a.bidirectional) {
      auto [bwd, bh] = one_layer_rnn(rw, input, hs[k + 1], layers[k + 1], true, nonlinearity);
      final_h.push_back(bh);
      Meta fm = rw.meta(fwd);
      if (!rw.ok()) return;
      input = cat(rw, {fwd, bwd}, static_cast<int64_t>(fm.rank()) - 1);
    } else {
      input = fwd;
    }
    if (!rw.ok()) return;
  }
  std::string out = a.batch_first ? transpose(rw, input, 0, 1) : input;
  rw.set_outputs({out, stack(rw, final_h, 0)});
}
void gru_rule(Rewriter& rw) { one_hidden_rnn(rw, nullptr); }
void rnn_tanh_rule(Rewriter& rw) { one_hidden_rnn(rw, "aten.tanh.default"); }
void rnn_relu_rule(Rewriter& rw) { one_hidden_rnn(rw, "aten.relu.default"); }

// ---- single-step cells (at::native, RNN.cpp) ----------------------------------------------------

/// The operands of an RNN cell op, read and checked as at::native's cells check them.
struct CellArgs {
  std::string input;
  std::vector<std::string> hx;  // one hidden state, two for lstm_cell
  Layer params;
};

std::string size_text(Rewriter& rw, const SymPoly& p) { return rw.symbols().display(p); }

/// Sizes that differ for sure (both concrete); symbolic ones are left to the runtime.
bool differ(const SymPoly& a, const SymPoly& b) { return a.is_constant() && b.is_constant() && !(a == b); }

/// check_rnn_cell_forward_input, check_rnn_cell_forward_hidden and
/// check_rnn_cell_forward_weights<gates> in the order `order` gives ('i', 'h', 'w'),
/// with torch's messages. Operands other than 2-d are refused first (torch's checks
/// index dims 0 and 1; nn.RNNCell passes 2-d tensors).
bool check_cell(Rewriter& rw, const CellArgs& a, int64_t gates, const std::string& order) {
  std::string op(rw.target());
  std::vector<std::pair<std::string, std::string>> named{{"input", a.input}};
  for (size_t k = 0; k < a.hx.size(); ++k) named.emplace_back("hx[" + std::to_string(k) + "]", a.hx[k]);
  named.emplace_back("w_ih", a.params.ih_w);
  named.emplace_back("w_hh", a.params.hh_w);
  std::vector<Meta> m;
  for (const auto& [name, value] : named) {
    m.push_back(rw.meta(value));
    if (!rw.ok()) return false;
    if (m.back().rank() != 2) {
      rw.unsupported(name + " of rank " + std::to_string(m.back().rank()) +
                     " (the cell takes 2-d input, hidden states and weights)");
      return false;
    }
  }
  const Meta& in = m[0];
  const Meta& w_ih = m[m.size() - 2];
  const Meta& w_hh = m[m.size() - 1];
  const SymPoly& hidden = w_hh.sizes[1];
  auto bad = [&](const std::string& what) {
    rw.fail(ErrorCode::INVALID_GRAPH, op + ": " + what);
    return false;
  };
  for (char c : order) {
    if (c == 'i' && differ(in.sizes[1], w_ih.sizes[1])) {
      return bad("input has inconsistent input_size: got " + size_text(rw, in.sizes[1]) + " expected " +
                 size_text(rw, w_ih.sizes[1]));
    }
    if (c == 'w') {
      SymPoly want = hidden * SymPoly(gates);
      for (const auto& [w, name] :
           {std::pair<const Meta*, const char*>{&w_ih, "weight_ih"}, {&w_hh, "weight_hh"}}) {
        if (differ(w->sizes[0], want)) {
          return bad(std::string(name) + " first dim must be " + std::to_string(gates) +
                     " * hidden_size = " + size_text(rw, want) + ", but got " + size_text(rw, w->sizes[0]));
        }
      }
    }
    if (c == 'h') {
      for (size_t k = 0; k < a.hx.size(); ++k) {
        const Meta& h = m[1 + k];
        if (differ(in.sizes[0], h.sizes[0])) {
          return bad("Input batch size " + size_text(rw, in.sizes[0]) + " doesn't match hidden" +
                     std::to_string(k) + " batch size " + size_text(rw, h.sizes[0]));
        }
        if (differ(h.sizes[1], hidden)) {
          return bad("hidden" + std::to_string(k) + " has inconsistent hidden_size: got " +
                     size_text(rw, h.sizes[1]) + ", expected " + size_text(rw, hidden));
        }
      }
    }
  }
  return true;
}

CellArgs read_cell_args(Rewriter& rw, bool lstm) {
  CellArgs a;
  a.input = rw.tensor("input");
  if (lstm) {
    a.hx = rw.tensors("hx");
  } else {
    a.hx = {rw.tensor("hx")};
  }
  a.params.ih_w = rw.tensor("w_ih");
  a.params.hh_w = rw.tensor("w_hh");
  a.params.ih_b = rw.opt_tensor("b_ih");
  a.params.hh_b = rw.opt_tensor("b_hh");
  return a;
}

/// aten.rnn_tanh_cell / aten.rnn_relu_cell → at::native::rnn_tanh_cell / rnn_relu_cell
/// (SimpleCell): nonlinearity(linear(hx, w_hh, b_hh) + linear(input, w_ih, b_ih)); the
/// hidden projection is evaluated first (the object of add_ before its argument), add_
/// recorded as add.Tensor, then tanh.default / relu.default. input [B, I], hx [B, H],
/// w_ih [H, I], w_hh [H, H] → [B, H]. torch's size checks (weights, input, hidden) refused
/// with its messages; operands other than 2-d refused.
void simple_cell_rule(Rewriter& rw, const char* nonlinearity) {
  CellArgs a = read_cell_args(rw, false);
  if (!rw.ok() || !check_cell(rw, a, 1, "wih")) return;
  std::string hh = linear(rw, a.hx[0], a.params.hh_w, a.params.hh_b);
  std::string ih = linear(rw, a.input, a.params.ih_w, a.params.ih_b);
  rw.set_outputs({unary(rw, nonlinearity, add(rw, hh, ih))});
}
void rnn_tanh_cell_rule(Rewriter& rw) { simple_cell_rule(rw, "aten.tanh.default"); }
void rnn_relu_cell_rule(Rewriter& rw) { simple_cell_rule(rw, "aten.relu.default"); }

/// aten.gru_cell → at::native::gru_cell (GRUCell): linear(input, w_ih, b_ih).unsafe_chunk(3, 1),
/// then linear(hx, w_hh, b_hh).unsafe_chunk(3, 1) (each split_with_sizes along dim 1, as
/// torch._decomp's unsafe_split / split.Tensor record it); r = sigmoid(h0 + i0),
/// z = sigmoid(h1 + i1), n = tanh(i2 + h2 * r), result (hx - n) * z + n (in-place steps
/// recorded as their functional forms). Shapes and checks as for rnn_tanh_cell, with 3 * H gates.
void gru_cell_rule(Rewriter& rw) {
  CellArgs a = read_cell_args(rw, false);
  if (!rw.ok() || !check_cell(rw, a, 3, "ihw")) return;
  auto ig = chunk(rw, linear(rw, a.input, a.params.ih_w, a.params.ih_b), 3, 1);
  auto hg = chunk(rw, linear(rw, a.hx[0], a.params.hh_w, a.params.hh_b), 3, 1);
  if (!rw.ok()) return;
  if (ig.size() != 3 || hg.size() != 3) {
    rw.fail(ErrorCode::INVALID_GRAPH, "gru_cell: gates do not split into 3 chunks");
    return;
  }
  std::string r = unary(rw, "aten.sigmoid.default", add(rw, hg[0], ig[0]));
  std::string z = unary(rw, "aten.sigmoid.default", add(rw, hg[1], ig[1]));
  std::string n = unary(rw, "aten.tanh.default", add(rw, ig[2], mul(rw, hg[2], r)));
  std::string d = rw.call("aten.sub.Tensor", {ir::arg_tensor(a.hx[0]), ir::arg_tensor(n)});
  rw.set_outputs({add(rw, mul(rw, d, z), n)});
}

/// aten.lstm_cell → at::native::lstm_cell (LSTMCell, CPU path): gates = linear(hx[0], w_hh, b_hh)
/// + linear(input, w_ih, b_ih) (hidden projection first), unsafe_chunk(4, 1); sigmoid, sigmoid,
/// tanh, sigmoid for the input, forget, cell and output gates; cy = f * cx + i * g (f * cx
/// first); hy = o * tanh(cy). Returns (hy, cy), each [B, H]. hx must hold two tensors ("lstm_cell
/// expects two hidden states"); checks input, weights (4 * H), then both hidden states.
void lstm_cell_rule(Rewriter& rw) {
  CellArgs a = read_cell_args(rw, true);
  if (!rw.ok()) return;
  if (a.hx.size() != 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "lstm_cell: lstm_cell expects two hidden states");
    return;
  }
  if (!check_cell(rw, a, 4, "iwh")) return;
  std::string hh = linear(rw, a.hx[0], a.params.hh_w, a.params.hh_b);
  std::string ih = linear(rw, a.input, a.params.ih_w, a.params.ih_b);
  auto c = chunk(rw, add(rw, hh, ih), 4, 1);
  if (!rw.ok()) return;
  if (c.size() != 4) {
    rw.fail(ErrorCode::INVALID_GRAPH, "lstm_cell: gates do not split into 4 chunks");
    return;
  }
  std::string in_gate = unary(rw, "aten.sigmoid.default", c[0]);
  std::string forget_gate = unary(rw, "aten.sigmoid.default", c[1]);
  std::string cell_gate = unary(rw, "aten.tanh.default", c[2]);
  std::string out_gate = unary(rw, "aten.sigmoid.default", c[3]);
  std::string fc = mul(rw, forget_gate, a.hx[1]);
  std::string ic = mul(rw, in_gate, cell_gate);
  std::string cy = add(rw, fc, ic);
  std::string hy = mul(rw, out_gate, unary(rw, "aten.tanh.default", cy));
  rw.set_outputs({hy, cy});
}

}  // namespace

void add_rnn_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.lstm.input", lstm_rule, "torch._decomp.decompositions.lstm_impl (one_layer_lstm, lstm_cell)"});
  out.push_back({"aten.gru.input", gru_rule, "torch._decomp.decompositions.gru_impl (one_layer_rnn, gru_cell)"});
  out.push_back({"aten.rnn_tanh.input", rnn_tanh_rule,
                 "torch._decomp.decompositions.rnn_tanh_input (one_layer_rnn, rnn_cell(torch.tanh))"});
  out.push_back({"aten.rnn_relu.input", rnn_relu_rule,
                 "torch._decomp.decompositions.rnn_relu_input (one_layer_rnn, rnn_cell(torch.relu))"});
  out.push_back(
      {"aten.rnn_tanh_cell.default", rnn_tanh_cell_rule, "at::native::rnn_tanh_cell (RNN.cpp, SimpleCell)"});
  out.push_back(
      {"aten.rnn_relu_cell.default", rnn_relu_cell_rule, "at::native::rnn_relu_cell (RNN.cpp, SimpleCell)"});
  out.push_back({"aten.gru_cell.default", gru_cell_rule, "at::native::gru_cell (RNN.cpp, GRUCell)"});
  out.push_back({"aten.lstm_cell.default", lstm_cell_rule, "at::native::lstm_cell (RNN.cpp, LSTMCell)"});
}

}  // namespace pteforge::passes::decomp
