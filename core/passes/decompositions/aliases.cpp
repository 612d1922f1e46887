// Aliases and thin CompositeImplicitAutograd wrappers: ops whose C++ kernel
// (what run_decompositions() traces for them) calls one other op, or a few
// shape ops: subtract → sub, clip → clamp, greater → gt, arccos → acos,
// special_expit → sigmoid, broadcast_to → expand, moveaxis → movedim, ...;
// and fliplr/flipud, ravel, tile, atleast_1d/2d/3d, hstack/vstack, selu,
// log_sigmoid, std.dim/std.default/var.default, argsort.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/table.h"
#include "passes/lowering_util.h"

namespace pteforge::passes::decomp {

const std::vector<std::pair<std::string_view, std::string_view>>& alias_table() {
  // The alias's C++ kernel returns the target op called with the same arguments
  // (native_functions.yaml and its kernels: "alias for ...").
  static const std::vector<std::pair<std::string_view, std::string_view>> kTable = {
      {"aten.absolute.default", "aten.abs.default"},
      {"aten.arccos.default", "aten.acos.default"},
      {"aten.arccosh.default", "aten.acosh.default"},
      {"aten.arcsin.default", "aten.asin.default"},
      {"aten.arcsinh.default", "aten.asinh.default"},
      {"aten.arctan.default", "aten.atan.default"},
      {"aten.arctan2.default", "aten.atan2.default"},
      {"aten.arctanh.default", "aten.atanh.default"},
      {"aten.broadcast_to.default", "aten.expand.default"},
      {"aten.clip.Tensor", "aten.clamp.Tensor"},
      {"aten.clip.default", "aten.clamp.default"},
      {"aten.concat.default", "aten.cat.default"},
      {"aten.concatenate.default", "aten.cat.default"},
      {"aten.divide.Scalar", "aten.div.Scalar"},
      {"aten.divide.Scalar_mode", "aten.div.Scalar_mode"},
      {"aten.divide.Tensor", "aten.div.Tensor"},
      {"aten.divide.Tensor_mode", "aten.div.Tensor_mode"},
      {"aten.fix.default", "aten.trunc.default"},
      {"aten.greater.Scalar", "aten.gt.Scalar"},
      {"aten.greater.Tensor", "aten.gt.Tensor"},
      {"aten.greater_equal.Scalar", "aten.ge.Scalar"},
      {"aten.greater_equal.Tensor", "aten.ge.Tensor"},
      {"aten.less.Scalar", "aten.lt.Scalar"},
      {"aten.less.Tensor", "aten.lt.Tensor"},
      {"aten.less_equal.Scalar", "aten.le.Scalar"},
      {"aten.less_equal.Tensor", "aten.le.Tensor"},
      {"aten.moveaxis.int", "aten.movedim.int"},
      {"aten.multiply.Scalar", "aten.mul.Scalar"},
      {"aten.multiply.Tensor", "aten.mul.Tensor"},
      {"aten.negative.default", "aten.neg.default"},
      {"aten.not_equal.Scalar", "aten.ne.Scalar"},
      {"aten.not_equal.Tensor", "aten.ne.Tensor"},
      {"aten.row_stack.default", "aten.vstack.default"},
      {"aten.special_erf.default", "aten.erf.default"},
      {"aten.special_expit.default", "aten.sigmoid.default"},
      {"aten.special_expm1.default", "aten.expm1.default"},
      {"aten.special_log1p.default", "aten.log1p.default"},
      {"aten.special_log_softmax.default", "aten.log_softmax.int"},
      {"aten.special_logit.default", "aten.logit.default"},
      {"aten.special_logsumexp.default", "aten.logsumexp.default"},
      {"aten.special_sinc.default", "aten.sinc.default"},
      {"aten.special_softmax.default", "aten.softmax.int"},
      {"aten.special_xlogy.default", "aten.xlogy.Tensor"},
      {"aten.subtract.Scalar", "aten.sub.Scalar"},
      {"aten.subtract.Tensor", "aten.sub.Tensor"},
  };
  return kTable;
}

namespace {

/// An alias → its target, called with the node's own arguments as the node passes
/// them (positional ones positionally, keywords by name; defaults stay left out).
/// A target that is decomposed itself (softmax.int, movedim.int, ...) is decomposed
/// right away by its own rule, which reads the alias's arguments by the same names
/// (alias and target have the same arguments): the graph PyTorch's recursive
/// decomposition gives, without a node for the target in between.
void alias_rule(Rewriter& rw) {
  std::string_view to;
  const std::string self(rw.target());
  for (const auto& [from, target] : alias_table()) {
    if (from == self) to = target;
  }
  if (to.empty()) {
    rw.fail(ErrorCode::PASS_FAILED, "internal: no alias target for " + self);
    return;
  }
  const Decomposition* d = find_decomposition(to);
  if (d && !rw.preserved(to)) {
    d->apply(rw);
    return;
  }
  std::vector<ir::Argument> args;
  KwArgs kwargs;
  for (const ir::NamedArgument& in : rw.node().inputs()) {
    if (passed_by_keyword(in, rw.schema())) {
      kwargs.emplace_back(in.name, in.arg);
    } else {
      args.push_back(in.arg);
    }
  }
  std::string r = rw.call(to, std::move(args), std::move(kwargs));
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.fliplr / aten.flipud → at::native::fliplr / flipud: flip(self, [1]) on an input
/// of rank >= 2, flip(self, [0]) on rank >= 1, with torch's messages.
void flip_lr_ud_rule(Rewriter& rw) {
  const bool lr = rw.target() == "aten.fliplr.default";
  std::string x = rw.tensor("self");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() < (lr ? 2u : 1u)) {
    rw.fail(ErrorCode::INVALID_GRAPH, lr ? "Input must be >= 2-d." : "Input must be >= 1-d.");
    return;
  }
  rw.set_outputs({rw.call("aten.flip.default", {ir::arg_tensor(x), ir::arg_ints({lr ? 1 : 0})})});
}

/// aten.ravel.default → at::native::ravel: self.contiguous().view(-1).
void ravel_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::string c = contiguous(rw, x);
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.view.default", {ir::arg_tensor(c), ir::arg_ints({-1})})});
}

/// aten.tile.default → at::native::tile_symint: repeat(self, reps), reps padded with
/// leading 1s up to self's rank.
void tile_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::vector<SymPoly> reps = rw.syms("dims");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() > reps.size()) reps.insert(reps.begin(), m.rank() - reps.size(), SymPoly(1));
  ir::Argument r = rw.sizes(reps);
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.repeat.default", {ir::arg_tensor(x), r})});
}

/// at::atleast_{1,2,3}d of one tensor (TensorShape.cpp): a 0-d tensor reshaped to
/// [1] / [1, 1] / [1, 1, 1]; for 2d a 1-d tensor unsqueezed at 0; for 3d a 1-d
/// tensor unsqueezed at 0 then at -1, a 2-d one at -1; anything else itself.
std::string atleast(Rewriter& rw, const std::string& x, size_t rank) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (m.rank() == 0) return reshape(rw, x, std::vector<SymPoly>(rank, SymPoly(1)));
  if (rank == 2 && m.rank() == 1) return unsqueeze(rw, x, 0);
  if (rank == 3 && m.rank() == 1) return unsqueeze(rw, unsqueeze(rw, x, 0), -1);
  if (rank == 3 && m.rank() == 2) return unsqueeze(rw, x, -1);
  return x;
}

size_t atleast_rank(std::string_view target) {
  if (target.starts_with("aten.atleast_1d")) return 1;
  if (target.starts_with("aten.atleast_2d")) return 2;
  return 3;
}

/// aten.atleast_{1,2,3}d.default → at::native::atleast_{1,2,3}d (see atleast).
void atleast_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::string r = atleast(rw, x, atleast_rank(rw.target()));
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.hstack.default / aten.vstack.default → at::native::hstack / vstack: every
/// tensor through atleast_1d (hstack) or atleast_2d (vstack), then cat along 0 for
/// vstack, and for hstack along 0 when the first is 1-d, else along 1.
void stack_hv_rule(Rewriter& rw) {
  const bool h = rw.target() == "aten.hstack.default";
  std::vector<std::string> ts = rw.tensors("tensors");
  if (!rw.ok()) return;
  if (ts.empty()) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            std::string(h ? "hstack" : "vstack") + " expects a non-empty TensorList");
    return;
  }
  for (std::string& t : ts) t = atleast(rw, t, h ? 1 : 2);
  if (!rw.ok()) return;
  int64_t dim = 0;
  if (h) {
    Meta first = rw.meta(ts.front());
    if (!rw.ok()) return;
    dim = first.rank() == 1 ? 0 : 1;
  }
  std::vector<ir::Argument> args{ir::arg_tensors(ts)};
  if (dim != 0) args.push_back(ir::arg_int(dim));
  rw.set_outputs({rw.call("aten.cat.default", std::move(args))});
}

/// aten.selu.default → at::native::selu: elu(self, alpha=1.6732632423543772,
/// scale=1.0507009873554805) (SELU_ALPHA / SELU_SCALE, Activation.cpp).
void selu_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  rw.set_outputs(
      {rw.call("aten.elu.default", {ir::arg_tensor(x), ir::arg_float(1.6732632423543772848170429916717),
                                    ir::arg_float(1.0507009873554804934193349852946)})});
}

/// aten.log_sigmoid.default → at::native::log_sigmoid: log_sigmoid_forward(self)'s output.
void log_sigmoid_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  if (!rw.ok()) return;
  std::vector<std::string> outs =
      rw.call_multi("aten.log_sigmoid_forward.default", {ir::arg_tensor(x)}, {}, {true, false});
  if (rw.ok() && !outs.empty()) rw.set_outputs({outs.front()});
}

/// aten.std.dim / std.default / var.default → at::native::std / var (ReduceOps.cpp):
/// std.correction / var.correction(self, dim, correction=1 if unbiased else 0,
/// keepdim) (dim None for the .default overloads; keepdim only when true).
void unbiased_reduction_rule(Rewriter& rw) {
  const bool is_std = rw.target().starts_with("aten.std.");
  const bool has_dim = rw.target() == "aten.std.dim";
  std::string x = rw.tensor("self");
  const bool unbiased = rw.bool_("unbiased");
  const bool keepdim = has_dim && rw.bool_("keepdim");
  if (!rw.ok()) return;
  std::vector<ir::Argument> args{ir::arg_tensor(x)};
  if (has_dim) args.push_back(rw.raw("dim"));
  KwArgs kw{{"correction", ir::arg_int(unbiased ? 1 : 0)}};
  if (keepdim) kw.emplace_back("keepdim", ir::arg_bool(true));
  rw.set_outputs(
      {rw.call(is_std ? "aten.std.correction" : "aten.var.correction", std::move(args), std::move(kw))});
}

/// aten.argsort.default → at::native::argsort: sort(self, dim, descending)'s indices
/// (sort.default; a dim of -1 and descending False are left out, as the trace records
/// defaults).
void argsort_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  const int64_t dim = rw.int_("dim");
  const bool descending = rw.bool_("descending");
  if (!rw.ok()) return;
  std::vector<ir::Argument> args{ir::arg_tensor(x)};
  if (dim != -1 || descending) args.push_back(ir::arg_int(dim));
  if (descending) args.push_back(ir::arg_bool(true));
  std::vector<std::string> outs = rw.call_multi("aten.sort.default", std::move(args), {}, {false, true});
  if (rw.ok() && outs.size() == 2) rw.set_outputs({outs[1]});
}

}  // namespace

void add_alias_decompositions(std::vector<Decomposition>& out) {
  for (const auto& [from, to] : alias_table()) out.push_back({from, alias_rule, "an alias (same arguments)"});
  out.push_back({"aten.argsort.default", argsort_rule, "at::native::argsort → sort's indices"});
  out.push_back({"aten.fliplr.default", flip_lr_ud_rule, "at::native::fliplr → flip(self, [1])"});
  out.push_back({"aten.flipud.default", flip_lr_ud_rule, "at::native::flipud → flip(self, [0])"});
  out.push_back({"aten.ravel.default", ravel_rule, "at::native::ravel → contiguous + view(-1)"});
  out.push_back({"aten.tile.default", tile_rule, "at::native::tile_symint → repeat"});
  out.push_back({"aten.atleast_1d.default", atleast_rule, "at::native::atleast_1d"});
  out.push_back({"aten.atleast_2d.default", atleast_rule, "at::native::atleast_2d"});
  out.push_back({"aten.atleast_3d.default", atleast_rule, "at::native::atleast_3d"});
  out.push_back({"aten.hstack.default", stack_hv_rule, "at::native::hstack → atleast_1d + cat"});
  out.push_back({"aten.vstack.default", stack_hv_rule, "at::native::vstack → atleast_2d + cat"});
  out.push_back({"aten.selu.default", selu_rule, "at::native::selu → elu"});
  out.push_back(
      {"aten.log_sigmoid.default", log_sigmoid_rule, "at::native::log_sigmoid → log_sigmoid_forward"});
  out.push_back({"aten.std.dim", unbiased_reduction_rule, "at::native::std → std.correction"});
  out.push_back({"aten.std.default", unbiased_reduction_rule, "at::native::std → std.correction"});
  out.push_back({"aten.var.default", unbiased_reduction_rule, "at::native::var → var.correction"});
}

}  // namespace pteforge::passes::decomp
