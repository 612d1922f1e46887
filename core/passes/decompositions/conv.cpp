// Convolutions: conv1d/2d/3d (int and string padding), conv_transpose1d/2d/3d and
// _convolution all become aten.convolution (Convolution.cpp, CompositeImplicitAutograd).
#include "passes/decompositions/builders.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

std::vector<int64_t> expand_list(std::vector<int64_t> v, size_t n) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  return v;
}

/// batchify: an unbatched input (rank = spatial + 1) gets unsqueeze(0) before and
/// squeeze(0) (→ squeeze.dims [0]) after the convolution.
void emit_conv(Rewriter& rw, size_t spatial, std::string input, const std::string& weight,
               const std::optional<std::string>& bias, std::vector<int64_t> stride, std::vector<int64_t> padding,
               std::vector<int64_t> dilation, bool transposed, std::vector<int64_t> output_padding, int64_t groups,
               std::optional<std::vector<int64_t>> pad_nd = std::nullopt) {
  Meta x = rw.meta(input);
  if (!rw.ok()) return;
  bool batched = x.rank() != spatial + 1;
  if (x.rank() != spatial + 1 && x.rank() != spatial + 2) {
    rw.fail(ErrorCode::INVALID_GRAPH, std::string(rw.target()) + ": expected a " + std::to_string(spatial + 1) +
                                          "-d or " + std::to_string(spatial + 2) + "-d input, got " +
                                          std::to_string(x.rank()) + "-d");
    return;
  }
  if (!batched) input = unsqueeze(rw, input, 0);
  if (pad_nd) {
    input = rw.call("aten.constant_pad_nd.default", {ir::arg_tensor(input), ir::arg_ints(*pad_nd), ir::arg_float(0)});
  }
  std::string out = rw.call(
      "aten.convolution.default",
      {ir::arg_tensor(input), ir::arg_tensor(weight), bias ? ir::arg_tensor(*bias) : ir::arg_none(),
       ir::arg_ints(expand_list(stride, spatial)), ir::arg_ints(expand_list(padding, spatial)),
       ir::arg_ints(expand_list(dilation, spatial)), ir::arg_bool(transposed),
       ir::arg_ints(expand_list(output_padding, spatial)), ir::arg_int(groups)});
  if (!batched) out = squeeze_dims(rw, out, {0});
  rw.set_outputs({out});
}

/// aten.conv{1,2,3}d.default → at::native::conv{1,2,3}d_symint:
/// convolution(input, weight, bias, stride, padding, dilation, False, [0]*n, groups).
template <size_t N>
void conv_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  std::string w = rw.tensor("weight");
  auto b = rw.opt_tensor("bias");
  auto stride = rw.ints("stride");
  auto padding = rw.ints("padding");
  auto dilation = rw.ints("dilation");
  int64_t groups = rw.int_("groups");
  if (!rw.ok()) return;
  emit_conv(rw, N, x, w, b, stride, padding, dilation, false, std::vector<int64_t>(N, 0), groups);
}

/// aten.conv{1,2,3}d.padding (padding="valid"/"same") → _convolution_mode: "valid" is
/// padding 0; "same" pads dilation*(k-1) split evenly, and an odd total first goes
/// through constant_pad_nd on the input (extra element on the right).
template <size_t N>
void conv_padding_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  std::string w = rw.tensor("weight");
  auto b = rw.opt_tensor("bias");
  auto stride = expand_list(rw.ints("stride"), N);
  std::string mode = rw.str("padding");
  auto dilation = expand_list(rw.ints("dilation"), N);
  int64_t groups = rw.int_("groups");
  Meta wm = rw.meta(w);
  if (!rw.ok()) return;
  std::vector<int64_t> pad(N, 0);
  std::optional<std::vector<int64_t>> pad_nd;
  if (mode == "same") {
    for (int64_t s : stride) {
      if (s != 1) {
        rw.fail(ErrorCode::INVALID_GRAPH, "padding='same' is not supported for strided convolutions");
        return;
      }
    }
    std::vector<int64_t> nd(2 * N, 0);
    bool symmetric = true;
    for (size_t i = 0; i < N; ++i) {
      if (!wm.sizes[2 + i].is_constant()) {
        rw.unsupported("symbolic kernel size with padding='same'");
        return;
      }
      int64_t total = dilation[i] * (wm.sizes[2 + i].value() - 1);
      int64_t left = total / 2;
      int64_t right = total - left;
      pad[i] = left;
      if (left != right) {
        symmetric = false;
        nd[2 * (N - 1 - i) + 1] = right - left;
      }
    }
    if (!symmetric) pad_nd = nd;
  } else if (mode != "valid") {
    rw.fail(ErrorCode::INVALID_GRAPH, "invalid padding string '" + mode + "', should be 'valid' or 'same'");
    return;
  }
  emit_conv(rw, N, x, w, b, stride, pad, dilation, false, std::vector<int64_t>(N, 0), groups, pad_nd);
}

/// aten.conv_transpose{1,2,3}d → at::native::conv_transpose{1,2,3}d_symint:
/// convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups).
template <size_t N>
void conv_transpose_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  std::string w = rw.tensor("weight");
  auto b = rw.opt_tensor("bias");
  auto stride = rw.ints("stride");
  auto padding = rw.ints("padding");
  auto output_padding = rw.ints("output_padding");
  int64_t groups = rw.int_("groups");
  auto dilation = rw.ints("dilation");
  if (!rw.ok()) return;
  emit_conv(rw, N, x, w, b, stride, padding, dilation, true, output_padding, groups);
}

/// aten._convolution.default → convolution with the same geometry (the backend flags
/// benchmark / deterministic / cudnn_enabled / allow_tf32 do not change the result).
void underscore_convolution_rule(Rewriter& rw) {
  std::string x = rw.tensor("input");
  std::string w = rw.tensor("weight");
  auto b = rw.opt_tensor("bias");
  auto stride = rw.ints("stride");
  auto padding = rw.ints("padding");
  auto dilation = rw.ints("dilation");
  bool transposed = rw.bool_("transposed");
  auto output_padding = rw.ints("output_padding");
  int64_t groups = rw.int_("groups");
  if (!rw.ok()) return;
  std::string out = rw.call("aten.convolution.default",
                            {ir::arg_tensor(x), ir::arg_tensor(w), b ? ir::arg_tensor(*b) : ir::arg_none(),
                             ir::arg_ints(stride), ir::arg_ints(padding), ir::arg_ints(dilation),
                             ir::arg_bool(transposed), ir::arg_ints(output_padding), ir::arg_int(groups)});
  rw.set_outputs({out});
}

}  // namespace

void add_conv_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.conv1d.default", conv_rule<1>, "at::native::conv1d_symint (Convolution.cpp)"});
  out.push_back({"aten.conv2d.default", conv_rule<2>, "at::native::conv2d_symint (Convolution.cpp)"});
  out.push_back({"aten.conv3d.default", conv_rule<3>, "at::native::conv3d_symint (Convolution.cpp)"});
  out.push_back({"aten.conv1d.padding", conv_padding_rule<1>, "at::native::conv1d_padding_symint / _convolution_mode"});
  out.push_back({"aten.conv2d.padding", conv_padding_rule<2>, "at::native::conv2d_padding_symint / _convolution_mode"});
  out.push_back({"aten.conv3d.padding", conv_padding_rule<3>, "at::native::conv3d_padding_symint / _convolution_mode"});
  out.push_back({"aten.conv_transpose1d.default", conv_transpose_rule<1>, "at::native::conv_transpose1d_symint"});
  out.push_back({"aten.conv_transpose2d.input", conv_transpose_rule<2>, "at::native::conv_transpose2d_symint"});
  out.push_back({"aten.conv_transpose3d.input", conv_transpose_rule<3>, "at::native::conv_transpose3d_symint"});
  out.push_back({"aten._convolution.default", underscore_convolution_rule, "at::native::_convolution → convolution"});
}

}  // namespace pteforge::passes::decomp
