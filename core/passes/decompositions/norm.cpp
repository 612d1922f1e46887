// Normalization: batch_norm (eval) → _native_batch_norm_legit_no_training,
// layer_norm → native_layer_norm, group_norm → native_group_norm, rms_norm → its
// composite form.
#include "passes/decompositions/builders.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

/// The operands of a batch norm.
struct BatchNormArgs {
  std::string x;
  std::optional<std::string> w, b, rm, rv;
  double momentum = 0.1;
  double eps = 1e-5;
};

/// The batch-norm operands of the node being rewritten, by their schema names.
BatchNormArgs batch_norm_args(Rewriter& rw) {
  BatchNormArgs a;
  a.x = rw.tensor("input");
  a.w = rw.opt_tensor("weight");
  a.b = rw.opt_tensor("bias");
  a.rm = rw.opt_tensor("running_mean");
  a.rv = rw.opt_tensor("running_var");
  a.momentum = rw.float_("momentum");
  a.eps = rw.float_("eps");
  return a;
}

/// The Core ATen form of batch norm on explicit operands (batch_norm, native_batch_norm,
/// _batch_norm_no_update, instance_norm): eval mode with
/// running statistics becomes _native_batch_norm_legit_no_training (torch/_decomp
/// native_batch_norm_decomposition); training mode without statistics becomes
/// _native_batch_norm_legit.no_stats. Training mode with running statistics updates
/// buffers and is refused (export the model in eval mode).
std::vector<std::string> emit_batch_norm(Rewriter& rw, const BatchNormArgs& a, bool training,
                                         std::vector<bool> used) {
  if (!rw.ok()) return {};
  const std::string& x = a.x;
  const auto &w = a.w, &b = a.b, &rm = a.rm, &rv = a.rv;
  const double momentum = a.momentum, eps = a.eps;
  auto opt = [](const std::optional<std::string>& t) { return t ? ir::arg_tensor(*t) : ir::arg_none(); };
  used.resize(3, false);
  if (!rm && !rv) {
    return rw.call_multi("aten._native_batch_norm_legit.no_stats",
                         {ir::arg_tensor(x), opt(w), opt(b), ir::arg_bool(training), ir::arg_float(momentum),
                          ir::arg_float(eps)},
                         {}, used);
  }
  if (!rm || !rv) {
    rw.fail(ErrorCode::INVALID_GRAPH, "running_mean and running_var must both be given or both be None");
    return {};
  }
  if (training) {
    rw.unsupported(
        "batch norm in training mode updates its running statistics; export the model after model.eval() "
        "(pteforge converts inference programs)");
    return {};
  }
  return rw.call_multi("aten._native_batch_norm_legit_no_training.default",
                       {ir::arg_tensor(x), opt(w), opt(b), ir::arg_tensor(*rm), ir::arg_tensor(*rv),
                        ir::arg_float(momentum), ir::arg_float(eps)},
                       {}, used);
}

/// emit_batch_norm on the node's own operands.
std::vector<std::string> batch_norm_core(Rewriter& rw, bool training, size_t n_outputs,
                                         std::vector<bool> used) {
  (void)n_outputs;
  return emit_batch_norm(rw, batch_norm_args(rw), training, std::move(used));
}

/// aten.batch_norm.default → at::native::batch_norm → _batch_norm_impl_index →
/// native_batch_norm → (torch/_decomp native_batch_norm_decomposition)
/// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
/// momentum, eps) + getitem 0, when training is False.
void batch_norm_rule(Rewriter& rw) {
  bool training = rw.bool_("training");
  if (!rw.ok()) return;
  auto outs = batch_norm_core(rw, training, 1, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.native_batch_norm.default → native_batch_norm_decomposition (same forms as
/// batch_norm, all three outputs).
void native_batch_norm_rule(Rewriter& rw) {
  bool training = rw.bool_("training");
  if (!rw.ok()) return;
  auto outs = batch_norm_core(rw, training, 3, {true, true, true});
  if (!rw.ok()) return;
  rw.set_outputs(outs);
}

/// aten._batch_norm_no_update.default (eval-mode batch norm in newer training IRs) →
/// _native_batch_norm_legit_no_training; its fourth output (the cuDNN reserve, empty
/// on CPU) must be unused.
void batch_norm_no_update_rule(Rewriter& rw) {
  auto outs = batch_norm_core(rw, false, 3, {true, true, true});
  if (!rw.ok()) return;
  outs.push_back("");
  rw.set_outputs(outs);
}

/// aten.layer_norm.default → at::native::layer_norm_symint:
/// native_layer_norm(input, normalized_shape, weight, bias, eps) + getitem 0.
void layer_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  auto shape = rw.syms("normalized_shape");
  auto w = rw.opt_tensor("weight");
  auto b = rw.opt_tensor("bias");
  double eps = rw.float_("eps");
  if (!rw.ok()) return;
  auto outs = rw.call_multi("aten.native_layer_norm.default",
                            {ir::arg_tensor(x), rw.sizes(shape), w ? ir::arg_tensor(*w) : ir::arg_none(),
                             b ? ir::arg_tensor(*b) : ir::arg_none(), ir::arg_float(eps)},
                            {}, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.group_norm.default → at::native::group_norm: native_group_norm(input, weight,
/// bias, N, C, HxW, num_groups, eps) + getitem 0 (N = size(0), C = size(1), HxW =
/// product of the remaining sizes; the contiguous() calls are no-ops on contiguous input).
void group_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  int64_t groups = rw.int_("num_groups");
  auto w = rw.opt_tensor("weight");
  auto b = rw.opt_tensor("bias");
  double eps = rw.float_("eps");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() < 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "group_norm expects at least a 2-d input");
    return;
  }
  std::vector<SymPoly> rest(m.sizes.begin() + 2, m.sizes.end());
  std::string in = contiguous(rw, x);
  auto outs = rw.call_multi("aten.native_group_norm.default",
                            {ir::arg_tensor(in), w ? ir::arg_tensor(*w) : ir::arg_none(),
                             b ? ir::arg_tensor(*b) : ir::arg_none(), rw.size(m.sizes[0]), rw.size(m.sizes[1]),
                             rw.size(product(rest)), ir::arg_int(groups), ir::arg_float(eps)},
                            {}, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({outs[0]});
}

/// aten.rms_norm.default → at::native rms_norm composite (layer_norm.cpp
/// rms_norm_composite; the same ops as torch/_decomp _fused_rms_norm):
/// x.to(opmath) → pow.Tensor_Scalar(x, 2) → mean.dim(dims, True) → add.Scalar(eps) →
/// rsqrt → mul.Tensor(x, rsqrt) [→ mul.Tensor(weight)] → type_as(input).
/// eps None means float32 epsilon (1.1920928955078125e-07).
void rms_norm_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  auto shape = rw.syms("normalized_shape");
  auto w = rw.opt_tensor("weight");
  auto eps = rw.opt_float("eps");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (shape.size() > m.rank()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "normalized_shape is longer than the input rank");
    return;
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < shape.size(); ++i) dims.push_back(static_cast<int64_t>(m.rank() - i - 1));
  bool low = m.dtype == ir::ScalarType::Half || m.dtype == ir::ScalarType::BFloat16;
  ir::ScalarType opmath = low ? ir::ScalarType::Float : m.dtype;
  double e = eps ? *eps : (opmath == ir::ScalarType::Double ? 2.220446049250313e-16 : 1.1920928955078125e-07);
  std::string up = to_dtype(rw, x, opmath);
  std::string sq = rw.call("aten.pow.Tensor_Scalar", {ir::arg_tensor(up), ir::arg_int(2)});
  std::string mean = rw.call("aten.mean.dim", {ir::arg_tensor(sq), ir::arg_ints(dims), ir::arg_bool(true)});
  std::string add = rw.call("aten.add.Scalar", {ir::arg_tensor(mean), ir::arg_float(e)});
  std::string r = rw.call("aten.rsqrt.default", {ir::arg_tensor(add)});
  std::string out = rw.call("aten.mul.Tensor", {ir::arg_tensor(up), ir::arg_tensor(r)});
  if (w) out = rw.call("aten.mul.Tensor", {ir::arg_tensor(out), ir::arg_tensor(*w)});
  out = to_dtype(rw, out, m.dtype);
  rw.set_outputs({out});
}

/// aten.instance_norm.default → at::native::instance_norm (Normalization.cpp): weight
/// and bias repeated batch-size times (repeat(w, [N])), input.contiguous() viewed as
/// [1, N*C, ...], batch_norm over it (its Core ATen form, as batch_norm's rule emits),
/// and the result viewed back to the input's sizes. Running statistics are refused:
/// instance_norm writes their batch mean back into them (a buffer mutation).
void instance_norm_rule(Rewriter& rw) {
  BatchNormArgs a = batch_norm_args(rw);
  bool use_input_stats = rw.bool_("use_input_stats");
  Meta m = rw.meta(a.x);
  if (!rw.ok()) return;
  if (a.rm || a.rv) {
    rw.unsupported(
        "running statistics (track_running_stats=True): instance_norm writes their mean back into them");
    return;
  }
  if (!use_input_stats) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "expected running_mean and running_var to be defined when use_input_stats is false");
    return;
  }
  if (m.rank() < 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, "instance_norm expects at least a 2-d input");
    return;
  }
  const SymPoly& n = m.sizes[0];
  auto repeat = [&](std::optional<std::string>& t) {
    if (t) t = rw.call("aten.repeat.default", {ir::arg_tensor(*t), rw.sizes({n})});
  };
  repeat(a.w);
  repeat(a.b);
  std::vector<SymPoly> shape = m.sizes;
  shape[1] = n * m.sizes[1];
  shape[0] = SymPoly(1);
  a.x = view(rw, contiguous(rw, a.x), shape);
  auto outs = emit_batch_norm(rw, a, true, {true, false, false});
  if (!rw.ok()) return;
  rw.set_outputs({view(rw, outs[0], m.sizes)});
}

}  // namespace

void add_norm_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.batch_norm.default", batch_norm_rule,
                 "at::native::batch_norm → native_batch_norm_decomposition (torch/_decomp)"});
  out.push_back({"aten.native_batch_norm.default", native_batch_norm_rule,
                 "torch._decomp.decompositions.native_batch_norm_decomposition"});
  out.push_back({"aten._batch_norm_no_update.default", batch_norm_no_update_rule,
                 "eval-mode batch norm → _native_batch_norm_legit_no_training"});
  out.push_back({"aten.layer_norm.default", layer_norm_rule, "at::native::layer_norm_symint (layer_norm.cpp)"});
  out.push_back({"aten.group_norm.default", group_norm_rule, "at::native::group_norm (group_norm.cpp)"});
  out.push_back({"aten.instance_norm.default", instance_norm_rule,
                 "at::native::instance_norm (Normalization.cpp) → batch_norm"});
  out.push_back({"aten.rms_norm.default", rms_norm_rule,
                 "at::native rms_norm_composite (layer_norm.cpp) / torch._decomp _fused_rms_norm"});
}

}  // namespace pteforge::passes::decomp
