// Decomposition rules for the RNN layers rnn_tanh / rnn_relu, the single-step RNN cells (rnn_tanh_cell,
// rnn_relu_cell, gru_cell, lstm_cell), nearest and linear upsampling (upsample_nearest1d/2d/3d,
// _upsample_nearest_exact1d/2d/3d, upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d) and
// max_pool3d: the exact node list after the pass (typed
// printer form), the float16 opmath form, and the refused cases.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::expect_refused;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

namespace {

/// A cell program: input [3, 4], hx [3, 2], w_ih [gates * 2, 4], w_hh [gates * 2, 2] and,
/// when `biases`, b_ih / b_hh [gates * 2].
struct CellOperands {
  std::string x, h, wih, whh;
  Argument bih = arg_none(), bhh = arg_none();
};
CellOperands cell_operands(ProgramBuilder& b, int64_t gates, bool bih, bool bhh) {
  CellOperands o;
  o.wih = b.parameter("p_wih", "cell.weight_ih", F, {gates * 2, 4});
  o.whh = b.parameter("p_whh", "cell.weight_hh", F, {gates * 2, 2});
  if (bih) o.bih = arg_tensor(b.parameter("p_bih", "cell.bias_ih", F, {gates * 2}));
  if (bhh) o.bhh = arg_tensor(b.parameter("p_bhh", "cell.bias_hh", F, {gates * 2}));
  o.x = b.input("x", F, {3, 4});
  o.h = b.input("h", F, {3, 2});
  return o;
}

}  // namespace

// ---- rnn_tanh_cell / rnn_relu_cell ---------------------------------------------------------------

TEST_CASE("decompose rnn_tanh_cell -> linear(hx) first, linear(input), add, tanh") {
  ProgramBuilder b;
  CellOperands o = cell_operands(b, 1, true, true);
  b.output(b.call("aten.rnn_tanh_cell.default",
                  {arg_tensor(o.x), arg_tensor(o.h), arg_tensor(o.wih), arg_tensor(o.whh), o.bih, o.bhh},
                  {F, {3, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_wih: float32[2, 4], %p_whh: float32[2, 2], %p_bih: float32[2], %p_bhh: "
                    "float32[2], %x: float32[3, 4], %h: float32[3, 2]):\n"
                    "  %permute: float32[2, 2] = aten.permute.default(%p_whh, [1, 0])\n"
                    "  %addmm: float32[3, 2] = aten.addmm.default(%p_bhh, %h, %permute)\n"
                    "  %permute_1: float32[4, 2] = aten.permute.default(%p_wih, [1, 0])\n"
                    "  %addmm_1: float32[3, 2] = aten.addmm.default(%p_bih, %x, %permute_1)\n"
                    "  %add: float32[3, 2] = aten.add.Tensor(%addmm, %addmm_1)\n"
                    "  %tanh: float32[3, 2] = aten.tanh.default(%add)\n"
                    "  return (%tanh)\n");
}

TEST_CASE("decompose rnn_relu_cell without biases -> mm, mm, add, relu") {
  ProgramBuilder b;
  CellOperands o = cell_operands(b, 1, false, false);
  b.output(b.call("aten.rnn_relu_cell.default",
                  {arg_tensor(o.x), arg_tensor(o.h), arg_tensor(o.wih), arg_tensor(o.whh)}, {F, {3, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%p_wih: float32[2, 4], %p_whh: float32[2, 2], %x: float32[3, 4], %h: float32[3, 2]):\n"
      "  %permute: float32[2, 2] = aten.permute.default(%p_whh, [1, 0])\n"
      "  %mm: float32[3, 2] = aten.mm.default(%h, %permute)\n"
      "  %permute_1: float32[4, 2] = aten.permute.default(%p_wih, [1, 0])\n"
      "  %mm_1: float32[3, 2] = aten.mm.default(%x, %permute_1)\n"
      "  %add: float32[3, 2] = aten.add.Tensor(%mm, %mm_1)\n"
      "  %relu: float32[3, 2] = aten.relu.default(%add)\n"
      "  return (%relu)\n");
}

// ---- gru_cell ------------------------------------------------------------------------------------

TEST_CASE("decompose gru_cell -> linear(input) split, linear(hx) split, gates, (hx - n) * z + n") {
  ProgramBuilder b;
  CellOperands o = cell_operands(b, 3, true, true);
  b.output(b.call("aten.gru_cell.default",
                  {arg_tensor(o.x), arg_tensor(o.h), arg_tensor(o.wih), arg_tensor(o.whh), o.bih, o.bhh},
                  {F, {3, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_wih: float32[6, 4], %p_whh: float32[6, 2], %p_bih: float32[6], %p_bhh: "
                    "float32[6], %x: float32[3, 4], %h: float32[3, 2]):\n"
                    "  %permute: float32[4, 6] = aten.permute.default(%p_wih, [1, 0])\n"
                    "  %addmm: float32[3, 6] = aten.addmm.default(%p_bih, %x, %permute)\n"
                    "  [%getitem: float32[3, 2], %getitem_1: float32[3, 2], %getitem_2: float32[3, 2]] = "
                    "aten.split_with_sizes.default(%addmm, [2, 2, 2], 1)  # split_with_sizes\n"
                    "  %permute_1: float32[2, 6] = aten.permute.default(%p_whh, [1, 0])\n"
                    "  %addmm_1: float32[3, 6] = aten.addmm.default(%p_bhh, %h, %permute_1)\n"
                    "  [%getitem_3: float32[3, 2], %getitem_4: float32[3, 2], %getitem_5: float32[3, 2]] = "
                    "aten.split_with_sizes.default(%addmm_1, [2, 2, 2], 1)  # split_with_sizes_1\n"
                    "  %add: float32[3, 2] = aten.add.Tensor(%getitem_3, %getitem)\n"
                    "  %sigmoid: float32[3, 2] = aten.sigmoid.default(%add)\n"
                    "  %add_1: float32[3, 2] = aten.add.Tensor(%getitem_4, %getitem_1)\n"
                    "  %sigmoid_1: float32[3, 2] = aten.sigmoid.default(%add_1)\n"
                    "  %mul: float32[3, 2] = aten.mul.Tensor(%getitem_5, %sigmoid)\n"
                    "  %add_2: float32[3, 2] = aten.add.Tensor(%getitem_2, %mul)\n"
                    "  %tanh: float32[3, 2] = aten.tanh.default(%add_2)\n"
                    "  %sub: float32[3, 2] = aten.sub.Tensor(%h, %tanh)\n"
                    "  %mul_1: float32[3, 2] = aten.mul.Tensor(%sub, %sigmoid_1)\n"
                    "  %add_3: float32[3, 2] = aten.add.Tensor(%mul_1, %tanh)\n"
                    "  return (%add_3)\n");
}

// ---- lstm_cell -----------------------------------------------------------------------------------

TEST_CASE("decompose lstm_cell (b_hh only) -> linear(hx) first, split 4, gates, cy, hy") {
  ProgramBuilder b;
  CellOperands o = cell_operands(b, 4, false, true);
  auto c = b.input("c", F, {3, 2});
  b.call_multi("aten.lstm_cell.default",
               {arg_tensor(o.x), arg_tensors({o.h, c}), arg_tensor(o.wih), arg_tensor(o.whh), o.bih, o.bhh},
               {{F, {3, 2}}, {F, {3, 2}}}, {"hy", "cy"});
  b.output("hy");
  b.output("cy");
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%p_wih: float32[8, 4], %p_whh: float32[8, 2], %p_bhh: float32[8], %x: float32[3, 4], %h: "
      "float32[3, 2], %c: float32[3, 2]):\n"
      "  %permute: float32[2, 8] = aten.permute.default(%p_whh, [1, 0])\n"
      "  %addmm: float32[3, 8] = aten.addmm.default(%p_bhh, %h, %permute)\n"
      "  %permute_1: float32[4, 8] = aten.permute.default(%p_wih, [1, 0])\n"
      "  %mm: float32[3, 8] = aten.mm.default(%x, %permute_1)\n"
      "  %add: float32[3, 8] = aten.add.Tensor(%addmm, %mm)\n"
      "  [%getitem: float32[3, 2], %getitem_1: float32[3, 2], %getitem_2: float32[3, 2], %getitem_3: "
      "float32[3, 2]] = aten.split_with_sizes.default(%add, [2, 2, 2, 2], 1)  # split_with_sizes\n"
      "  %sigmoid: float32[3, 2] = aten.sigmoid.default(%getitem)\n"
      "  %sigmoid_1: float32[3, 2] = aten.sigmoid.default(%getitem_1)\n"
      "  %tanh: float32[3, 2] = aten.tanh.default(%getitem_2)\n"
      "  %sigmoid_2: float32[3, 2] = aten.sigmoid.default(%getitem_3)\n"
      "  %mul: float32[3, 2] = aten.mul.Tensor(%sigmoid_1, %c)\n"
      "  %mul_1: float32[3, 2] = aten.mul.Tensor(%sigmoid, %tanh)\n"
      "  %add_1: float32[3, 2] = aten.add.Tensor(%mul, %mul_1)\n"
      "  %tanh_1: float32[3, 2] = aten.tanh.default(%add_1)\n"
      "  %mul_2: float32[3, 2] = aten.mul.Tensor(%sigmoid_2, %tanh_1)\n"
      "  return (%mul_2, %add_1)\n");
}

// ---- refused -------------------------------------------------------------------------------------

TEST_CASE("decompose rnn cells: torch's size checks and non-2-d operands are refused") {
  SUBCASE("rnn_tanh_cell weight_ih rows") {
    ProgramBuilder b;
    auto wih = b.parameter("p_wih", "cell.weight_ih", F, {3, 4});
    auto whh = b.parameter("p_whh", "cell.weight_hh", F, {2, 2});
    auto x = b.input("x", F, {3, 4});
    auto h = b.input("h", F, {3, 2});
    b.output(b.call("aten.rnn_tanh_cell.default",
                    {arg_tensor(x), arg_tensor(h), arg_tensor(wih), arg_tensor(whh)}, {F, {3, 2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "rnn_tanh_cell",
                   "weight_ih first dim must be 1 * hidden_size = 2, but got 3");
  }
  SUBCASE("gru_cell input size") {
    ProgramBuilder b;
    auto wih = b.parameter("p_wih", "cell.weight_ih", F, {6, 5});
    auto whh = b.parameter("p_whh", "cell.weight_hh", F, {6, 2});
    auto x = b.input("x", F, {3, 4});
    auto h = b.input("h", F, {3, 2});
    b.output(b.call("aten.gru_cell.default", {arg_tensor(x), arg_tensor(h), arg_tensor(wih), arg_tensor(whh)},
                    {F, {3, 2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "gru_cell",
                   "input has inconsistent input_size: got 4 expected 5");
  }
  SUBCASE("lstm_cell cell state batch and hidden size") {
    ProgramBuilder b;
    CellOperands o = cell_operands(b, 4, false, false);
    auto c = b.input("c", F, {2, 2});
    b.call_multi("aten.lstm_cell.default",
                 {arg_tensor(o.x), arg_tensors({o.h, c}), arg_tensor(o.wih), arg_tensor(o.whh)},
                 {{F, {3, 2}}, {F, {3, 2}}}, {"hy", "cy"});
    b.output("hy");
    b.output("cy");
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "lstm_cell",
                   "Input batch size 3 doesn't match hidden1 batch size 2");
  }
  SUBCASE("lstm_cell with one hidden state") {
    ProgramBuilder b;
    CellOperands o = cell_operands(b, 4, false, false);
    b.call_multi("aten.lstm_cell.default",
                 {arg_tensor(o.x), arg_tensors({o.h}), arg_tensor(o.wih), arg_tensor(o.whh)},
                 {{F, {3, 2}}, {F, {3, 2}}}, {"hy", "cy"});
    b.output("hy");
    b.output("cy");
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "lstm_cell", "lstm_cell expects two hidden states");
  }
  SUBCASE("rnn_relu_cell hidden size") {
    ProgramBuilder b;
    auto wih = b.parameter("p_wih", "cell.weight_ih", F, {2, 4});
    auto whh = b.parameter("p_whh", "cell.weight_hh", F, {2, 2});
    auto x = b.input("x", F, {3, 4});
    auto h = b.input("h", F, {3, 5});
    b.output(b.call("aten.rnn_relu_cell.default",
                    {arg_tensor(x), arg_tensor(h), arg_tensor(wih), arg_tensor(whh)}, {F, {3, 2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "rnn_relu_cell",
                   "hidden0 has inconsistent hidden_size: got 5, expected 2");
  }
  SUBCASE("unbatched (1-d) input") {
    ProgramBuilder b;
    auto wih = b.parameter("p_wih", "cell.weight_ih", F, {2, 4});
    auto whh = b.parameter("p_whh", "cell.weight_hh", F, {2, 2});
    auto x = b.input("x", F, {4});
    auto h = b.input("h", F, {2});
    b.output(b.call("aten.rnn_tanh_cell.default",
                    {arg_tensor(x), arg_tensor(h), arg_tensor(wih), arg_tensor(whh)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "rnn_tanh_cell", "input of rank 1");
  }
}
// ---- upsample_nearest1d / _upsample_nearest_exact1d ----------------------------------------------

TEST_CASE("decompose upsample_nearest1d -> arange(float32), add 0.0, mul isize / osize, to int64, index") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3});
  b.output(b.call("aten.upsample_nearest1d.default", {arg_tensor(x), arg_ints({5})}, {F, {1, 2, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[1, 2, 3]):\n"
                    "  %arange: float32[5] = aten.arange.start_step(0, 5, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %add: float32[5] = aten.add.Tensor(%arange, 0.0)\n"
                    "  %mul: float32[5] = aten.mul.Tensor(%add, 0.6)\n"
                    "  %_to_copy: int64[5] = aten._to_copy.default(%mul, dtype=torch.int64)\n"
                    "  %index: float32[1, 2, 5] = aten.index.Tensor(%x, [None, None, %_to_copy])\n"
                    "  return (%index)\n");
}

TEST_CASE(
    "decompose _upsample_nearest_exact1d (float16, scales given) -> float32, add 0.5, scale 1 / scales") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Half, {2, 1, 4});
  b.output(b.call("aten._upsample_nearest_exact1d.default", {arg_tensor(x), arg_ints({2}), arg_float(0.5)},
                  {ScalarType::Half, {2, 1, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float16[2, 1, 4]):\n"
                    "  %_to_copy: float32[2, 1, 4] = aten._to_copy.default(%x, dtype=torch.float32)\n"
                    "  %arange: float32[2] = aten.arange.start_step(0, 2, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %add: float32[2] = aten.add.Tensor(%arange, 0.5)\n"
                    "  %mul: float32[2] = aten.mul.Tensor(%add, 2.0)\n"
                    "  %_to_copy_1: int64[2] = aten._to_copy.default(%mul, dtype=torch.int64)\n"
                    "  %index: float32[2, 1, 2] = aten.index.Tensor(%_to_copy, [None, None, %_to_copy_1])\n"
                    "  %_to_copy_2: float16[2, 1, 2] = aten._to_copy.default(%index, dtype=torch.float16)\n"
                    "  return (%_to_copy_2)\n");
}

TEST_CASE("decompose upsample_nearest1d: a non-3-d input and scales <= 0 are refused") {
  SUBCASE("2-d input") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 3});
    b.output(b.call("aten.upsample_nearest1d.default", {arg_tensor(x), arg_ints({6})}, {F, {2, 6}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "upsample_nearest1d",
                   "It is expected input_size equals to 3, but got size 2");
  }
  SUBCASE("negative scales") {
    ProgramBuilder b;
    auto x = b.input("x", F, {1, 2, 3});
    b.output(b.call("aten._upsample_nearest_exact1d.default", {arg_tensor(x), arg_ints({6}), arg_float(-2.0)},
                    {F, {1, 2, 6}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "_upsample_nearest_exact1d", "scales <= 0");
  }
}
// ---- max_pool3d ----------------------------------------------------------------------------------

TEST_CASE("decompose max_pool3d -> max_pool3d_with_indices (arguments as given) + getitem 0") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 4, 4, 4});
  auto y = b.input("y", F, {2, 5, 6, 7});
  b.output(b.call("aten.max_pool3d.default", {arg_tensor(x), arg_ints({2, 2, 2})}, {F, {1, 2, 2, 2, 2}}));
  b.output(b.call("aten.max_pool3d.default",
                  {arg_tensor(y), arg_ints({3, 3, 3}), arg_ints({1, 2, 2}), arg_ints({1, 1, 1}),
                   arg_ints({1, 1, 1}), arg_bool(true)},
                  {F, {2, 5, 4, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[1, 2, 4, 4, 4], %y: float32[2, 5, 6, 7]):\n"
                    "  %getitem: float32[1, 2, 2, 2, 2], %max_pool3d_with_indices_unused_1: int64[1, 2, 2, "
                    "2, 2] = aten.max_pool3d_with_indices.default(%x, [2, 2, 2])  # max_pool3d_with_indices\n"
                    "  %getitem_1: float32[2, 5, 4, 4], %max_pool3d_with_indices_1_unused_1: int64[2, 5, 4, "
                    "4] = aten.max_pool3d_with_indices.default(%y, [3, 3, 3], [1, 2, 2], [1, 1, 1], [1, 1, "
                    "1], True)  # max_pool3d_with_indices_1\n"
                    "  return (%getitem, %getitem_1)\n");
}

// ---- rnn_tanh.input / rnn_relu.input -------------------------------------------------------------

TEST_CASE("decompose rnn_tanh.input: one layer, two steps, unrolled into linear + tanh(linear(h) + x)") {
  ProgramBuilder b;
  auto wih = b.parameter("p_wih", "rnn.weight_ih_l0", F, {2, 3});
  auto whh = b.parameter("p_whh", "rnn.weight_hh_l0", F, {2, 2});
  auto bih = b.parameter("p_bih", "rnn.bias_ih_l0", F, {2});
  auto bhh = b.parameter("p_bhh", "rnn.bias_hh_l0", F, {2});
  auto x = b.input("x", F, {2, 1, 3});
  auto h0 = b.input("h0", F, {1, 1, 2});
  b.call_multi("aten.rnn_tanh.input",
               {arg_tensor(x), arg_tensor(h0), arg_tensors({wih, whh, bih, bhh}), arg_bool(true), arg_int(1),
                arg_float(0.0), arg_bool(false), arg_bool(false), arg_bool(false)},
               {{F, {2, 1, 2}}, {F, {1, 1, 2}}}, {"out", "hn"});
  b.output("out");
  b.output("hn");
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%p_wih: float32[2, 3], %p_whh: float32[2, 2], %p_bih: float32[2], %p_bhh: "
                    "float32[2], %x: float32[2, 1, 3], %h0: float32[1, 1, 2]):\n"
                    "  %slice_1: float32[1, 1, 2] = aten.slice.Tensor(%h0, 0, 0, 1)\n"
                    "  %squeeze: float32[1, 2] = aten.squeeze.dims(%slice_1, [0])\n"
                    "  %view: float32[2, 3] = aten.view.default(%x, [2, 3])\n"
                    "  %permute: float32[3, 2] = aten.permute.default(%p_wih, [1, 0])\n"
                    "  %addmm: float32[2, 2] = aten.addmm.default(%p_bih, %view, %permute)\n"
                    "  %view_1: float32[2, 1, 2] = aten.view.default(%addmm, [2, 1, 2])\n"
                    "  %unsqueeze: float32[1, 1, 2] = aten.unsqueeze.default(%squeeze, 0)\n"
                    "  %slice_2: float32[1, 1, 2] = aten.slice.Tensor(%view_1, 0, 0, 1)\n"
                    "  %slice_3: float32[1, 1, 2] = aten.slice.Tensor(%view_1, 0, 1, 2)\n"
                    "  %squeeze_1: float32[1, 2] = aten.squeeze.dims(%slice_2, [0])\n"
                    "  %squeeze_2: float32[1, 2] = aten.squeeze.dims(%slice_3, [0])\n"
                    "  %view_2: float32[1, 2] = aten.view.default(%unsqueeze, [1, 2])\n"
                    "  %permute_1: float32[2, 2] = aten.permute.default(%p_whh, [1, 0])\n"
                    "  %addmm_1: float32[1, 2] = aten.addmm.default(%p_bhh, %view_2, %permute_1)\n"
                    "  %view_3: float32[1, 1, 2] = aten.view.default(%addmm_1, [1, 1, 2])\n"
                    "  %add: float32[1, 1, 2] = aten.add.Tensor(%view_3, %squeeze_1)\n"
                    "  %tanh: float32[1, 1, 2] = aten.tanh.default(%add)\n"
                    "  %view_4: float32[1, 2] = aten.view.default(%tanh, [1, 2])\n"
                    "  %permute_2: float32[2, 2] = aten.permute.default(%p_whh, [1, 0])\n"
                    "  %addmm_2: float32[1, 2] = aten.addmm.default(%p_bhh, %view_4, %permute_2)\n"
                    "  %view_5: float32[1, 1, 2] = aten.view.default(%addmm_2, [1, 1, 2])\n"
                    "  %add_1: float32[1, 1, 2] = aten.add.Tensor(%view_5, %squeeze_2)\n"
                    "  %tanh_1: float32[1, 1, 2] = aten.tanh.default(%add_1)\n"
                    "  %cat: float32[2, 1, 2] = aten.cat.default([%tanh, %tanh_1])\n"
                    "  %squeeze_3: float32[1, 2] = aten.squeeze.dims(%tanh_1, [0])\n"
                    "  %cat_1: float32[1, 2] = aten.cat.default([%squeeze_3])\n"
                    "  %view_6: float32[1, 1, 2] = aten.view.default(%cat_1, [1, 1, 2])\n"
                    "  return (%cat, %view_6)\n");
}

TEST_CASE("decompose rnn_relu.input (bidirectional, batch_first, no biases) leaves only core ops") {
  ProgramBuilder b;
  std::vector<std::string> params;
  for (const char* sfx : {"l0", "l0_reverse"}) {
    params.push_back(
        b.parameter(std::string("p_wih_") + sfx, std::string("rnn.weight_ih_") + sfx, F, {2, 3}));
    params.push_back(
        b.parameter(std::string("p_whh_") + sfx, std::string("rnn.weight_hh_") + sfx, F, {2, 2}));
  }
  auto x = b.input("x", F, {1, 3, 3});
  auto h0 = b.input("h0", F, {2, 1, 2});
  b.call_multi("aten.rnn_relu.input",
               {arg_tensor(x), arg_tensor(h0), arg_tensors(params), arg_bool(false), arg_int(1),
                arg_float(0.0), arg_bool(false), arg_bool(true), arg_bool(true)},
               {{F, {1, 3, 4}}, {F, {2, 1, 2}}}, {"out", "hn"});
  b.output("out");
  b.output("hn");
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::non_core_ops(ep.graph()).empty());
  const auto& outs = ep.graph().outputs();
  REQUIRE(outs.size() == 2);
  const TensorMeta* o = ep.graph().tensor_meta(outs[0].tensor_name());
  const TensorMeta* h = ep.graph().tensor_meta(outs[1].tensor_name());
  REQUIRE(o);
  REQUIRE(h);
  CHECK(o->concrete_sizes() == std::vector<int64_t>{1, 3, 4});
  CHECK(h->concrete_sizes() == std::vector<int64_t>{2, 1, 2});
  auto t = pteforge::testing::targets(ep.graph());
  CHECK(std::count(t.begin(), t.end(), "aten.flip.default") == 1);
  CHECK(std::count(t.begin(), t.end(), "aten.relu.default") == 6);
}

// ---- upsample_linear1d ---------------------------------------------------------------------------

TEST_CASE(
    "decompose upsample_linear1d -> source index, clamp, view, x and x + 1, two index, lerp by weight") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3});
  auto h = b.input("h", ScalarType::Half, {1, 1, 4});
  b.output(b.call("aten.upsample_linear1d.default", {arg_tensor(x), arg_ints({5}), arg_bool(false)},
                  {F, {1, 2, 5}}));
  // align_corners, float16 in float32.
  b.output(b.call("aten.upsample_linear1d.default", {arg_tensor(h), arg_ints({3}), arg_bool(true)},
                  {ScalarType::Half, {1, 1, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[1, 2, 3], %h: float16[1, 1, 4]):\n"
      "  %arange: int64[5] = aten.arange.start_step(0, 5, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %_to_copy: float32[5] = aten._to_copy.default(%arange, dtype=torch.float32)\n"
      "  %add: float32[5] = aten.add.Tensor(%_to_copy, 0.5)\n"
      "  %mul: float32[5] = aten.mul.Tensor(%add, 0.6)\n"
      "  %sub: float32[5] = aten.sub.Tensor(%mul, 0.5)\n"
      "  %clamp: float32[5] = aten.clamp.default(%sub, 0.0)\n"
      "  %view: float32[5] = aten.view.default(%clamp, [5])\n"
      "  %_to_copy_1: int64[5] = aten._to_copy.default(%view, dtype=torch.int64)\n"
      "  %add_1: int64[5] = aten.add.Tensor(%_to_copy_1, 1)\n"
      "  %clamp_1: int64[5] = aten.clamp.default(%add_1, None, 2)\n"
      "  %index: float32[1, 2, 5] = aten.index.Tensor(%x, [None, None, %_to_copy_1])\n"
      "  %index_1: float32[1, 2, 5] = aten.index.Tensor(%x, [None, None, %clamp_1])\n"
      "  %sub_1: float32[5] = aten.sub.Tensor(%view, %_to_copy_1)\n"
      "  %clamp_2: float32[5] = aten.clamp.default(%sub_1, 0.0, 1.0)\n"
      "  %sub_2: float32[1, 2, 5] = aten.sub.Tensor(%index_1, %index)\n"
      "  %mul_1: float32[1, 2, 5] = aten.mul.Tensor(%sub_2, %clamp_2)\n"
      "  %add_2: float32[1, 2, 5] = aten.add.Tensor(%index, %mul_1)\n"
      "  %_to_copy_2: float32[1, 1, 4] = aten._to_copy.default(%h, dtype=torch.float32)\n"
      "  %arange_1: int64[3] = aten.arange.start_step(0, 3, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %_to_copy_3: float32[3] = aten._to_copy.default(%arange_1, dtype=torch.float32)\n"
      "  %mul_2: float32[3] = aten.mul.Tensor(%_to_copy_3, 1.5)\n"
      "  %clamp_3: float32[3] = aten.clamp.default(%mul_2, 0.0)\n"
      "  %view_1: float32[3] = aten.view.default(%clamp_3, [3])\n"
      "  %_to_copy_4: int64[3] = aten._to_copy.default(%view_1, dtype=torch.int64)\n"
      "  %add_3: int64[3] = aten.add.Tensor(%_to_copy_4, 1)\n"
      "  %clamp_4: int64[3] = aten.clamp.default(%add_3, None, 3)\n"
      "  %index_2: float32[1, 1, 3] = aten.index.Tensor(%_to_copy_2, [None, None, %_to_copy_4])\n"
      "  %index_3: float32[1, 1, 3] = aten.index.Tensor(%_to_copy_2, [None, None, %clamp_4])\n"
      "  %sub_3: float32[3] = aten.sub.Tensor(%view_1, %_to_copy_4)\n"
      "  %clamp_5: float32[3] = aten.clamp.default(%sub_3, 0.0, 1.0)\n"
      "  %sub_4: float32[1, 1, 3] = aten.sub.Tensor(%index_3, %index_2)\n"
      "  %mul_3: float32[1, 1, 3] = aten.mul.Tensor(%sub_4, %clamp_5)\n"
      "  %add_4: float32[1, 1, 3] = aten.add.Tensor(%index_2, %mul_3)\n"
      "  %_to_copy_5: float16[1, 1, 3] = aten._to_copy.default(%add_4, dtype=torch.float16)\n"
      "  return (%add_2, %_to_copy_5)\n");
}

TEST_CASE("decompose upsample_linear1d: integer input and scales <= 0 are refused") {
  SUBCASE("int64 input") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Long, {1, 2, 3});
    b.output(b.call("aten.upsample_linear1d.default", {arg_tensor(x), arg_ints({6}), arg_bool(false)},
                    {ScalarType::Long, {1, 2, 6}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "upsample_linear1d", "floating-point");
  }
  SUBCASE("zero scales") {
    ProgramBuilder b;
    auto x = b.input("x", F, {1, 2, 3});
    b.output(b.call("aten.upsample_linear1d.default",
                    {arg_tensor(x), arg_ints({6}), arg_bool(false), arg_float(0.0)}, {F, {1, 2, 6}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "upsample_linear1d", "scales <= 0");
  }
}

// ---- upsample_bilinear2d / upsample_trilinear3d ------------------------------------------------------

TEST_CASE(
    "decompose upsample_bilinear2d -> per dim source index and x / x + 1, four corners, lerp along w then "
    "h") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3, 4});
  b.output(b.call("aten.upsample_bilinear2d.default", {arg_tensor(x), arg_ints({5, 2}), arg_bool(true)},
                  {F, {1, 2, 5, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[1, 2, 3, 4]):\n"
      "  %arange: int64[5] = aten.arange.start_step(0, 5, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %_to_copy: float32[5] = aten._to_copy.default(%arange, dtype=torch.float32)\n"
      "  %mul: float32[5] = aten.mul.Tensor(%_to_copy, 0.5)\n"
      "  %clamp: float32[5] = aten.clamp.default(%mul, 0.0)\n"
      "  %view: float32[5, 1] = aten.view.default(%clamp, [5, 1])\n"
      "  %_to_copy_1: int64[5, 1] = aten._to_copy.default(%view, dtype=torch.int64)\n"
      "  %add: int64[5, 1] = aten.add.Tensor(%_to_copy_1, 1)\n"
      "  %clamp_1: int64[5, 1] = aten.clamp.default(%add, None, 2)\n"
      "  %arange_1: int64[2] = aten.arange.start_step(0, 2, layout=torch.strided, device=device(type='cpu'), "
      "pin_memory=False)\n"
      "  %_to_copy_2: float32[2] = aten._to_copy.default(%arange_1, dtype=torch.float32)\n"
      "  %mul_1: float32[2] = aten.mul.Tensor(%_to_copy_2, 3.0)\n"
      "  %clamp_2: float32[2] = aten.clamp.default(%mul_1, 0.0)\n"
      "  %view_1: float32[2] = aten.view.default(%clamp_2, [2])\n"
      "  %_to_copy_3: int64[2] = aten._to_copy.default(%view_1, dtype=torch.int64)\n"
      "  %add_1: int64[2] = aten.add.Tensor(%_to_copy_3, 1)\n"
      "  %clamp_3: int64[2] = aten.clamp.default(%add_1, None, 3)\n"
      "  %index: float32[1, 2, 5, 2] = aten.index.Tensor(%x, [None, None, %_to_copy_1, %_to_copy_3])\n"
      "  %index_1: float32[1, 2, 5, 2] = aten.index.Tensor(%x, [None, None, %_to_copy_1, %clamp_3])\n"
      "  %index_2: float32[1, 2, 5, 2] = aten.index.Tensor(%x, [None, None, %clamp_1, %_to_copy_3])\n"
      "  %index_3: float32[1, 2, 5, 2] = aten.index.Tensor(%x, [None, None, %clamp_1, %clamp_3])\n"
      "  %sub: float32[2] = aten.sub.Tensor(%view_1, %_to_copy_3)\n"
      "  %clamp_4: float32[2] = aten.clamp.default(%sub, 0.0, 1.0)\n"
      "  %sub_1: float32[1, 2, 5, 2] = aten.sub.Tensor(%index_1, %index)\n"
      "  %mul_2: float32[1, 2, 5, 2] = aten.mul.Tensor(%sub_1, %clamp_4)\n"
      "  %add_2: float32[1, 2, 5, 2] = aten.add.Tensor(%index, %mul_2)\n"
      "  %sub_2: float32[1, 2, 5, 2] = aten.sub.Tensor(%index_3, %index_2)\n"
      "  %mul_3: float32[1, 2, 5, 2] = aten.mul.Tensor(%sub_2, %clamp_4)\n"
      "  %add_3: float32[1, 2, 5, 2] = aten.add.Tensor(%index_2, %mul_3)\n"
      "  %sub_3: float32[5, 1] = aten.sub.Tensor(%view, %_to_copy_1)\n"
      "  %clamp_5: float32[5, 1] = aten.clamp.default(%sub_3, 0.0, 1.0)\n"
      "  %sub_4: float32[1, 2, 5, 2] = aten.sub.Tensor(%add_3, %add_2)\n"
      "  %mul_4: float32[1, 2, 5, 2] = aten.mul.Tensor(%sub_4, %clamp_5)\n"
      "  %add_4: float32[1, 2, 5, 2] = aten.add.Tensor(%add_2, %mul_4)\n"
      "  return (%add_4)\n");
}

TEST_CASE("decompose upsample_trilinear3d -> eight corners lerped along w, h, then d") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 1, 2, 3, 2});
  b.output(b.call("aten.upsample_trilinear3d.default", {arg_tensor(x), arg_ints({4, 4, 3}), arg_bool(false)},
                  {F, {1, 1, 4, 4, 3}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  auto t = pteforge::testing::targets(ep.graph());
  CHECK(std::count(t.begin(), t.end(), "aten.index.Tensor") == 8);
  CHECK(std::count(t.begin(), t.end(), "aten.arange.start_step") == 3);
  CHECK(std::count(t.begin(), t.end(), "aten.view.default") == 3);
  // Per dim: sub + clamp for the weight; per pair 4 + 2 + 1 lerps of sub, mul, add.
  CHECK(std::count(t.begin(), t.end(), "aten.add.Tensor") == 3 + 3 + 7);
  CHECK(std::count(t.begin(), t.end(), "aten.mul.Tensor") == 3 + 7);
  const TensorMeta* out = ep.graph().tensor_meta(ep.graph().outputs()[0].tensor_name());
  REQUIRE(out != nullptr);
  CHECK(out->concrete_sizes() == std::vector<int64_t>{1, 1, 4, 4, 3});
}

TEST_CASE("decompose upsample_bilinear2d: a 3-d input is refused with torch's message") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3});
  b.output(b.call("aten.upsample_bilinear2d.default", {arg_tensor(x), arg_ints({5, 2}), arg_bool(false)},
                  {F, {1, 2, 5, 2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::INVALID_GRAPH, "upsample_bilinear2d",
                 "It is expected input_size equals to 4, but got size 3");
}

// ---- upsample_nearest2d/3d, _upsample_nearest_exact2d/3d ------------------------------------------------

TEST_CASE(
    "decompose _upsample_nearest_exact2d -> per dim arange, + 0.5, * scale, int64, h unsqueezed, then one "
    "index") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 3, 4});
  b.output(
      b.call("aten._upsample_nearest_exact2d.default", {arg_tensor(x), arg_ints({5, 2})}, {F, {1, 2, 5, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[1, 2, 3, 4]):\n"
      "  %arange: float32[5] = aten.arange.start_step(0, 5, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %add: float32[5] = aten.add.Tensor(%arange, 0.5)\n"
      "  %mul: float32[5] = aten.mul.Tensor(%add, 0.6)\n"
      "  %_to_copy: int64[5] = aten._to_copy.default(%mul, dtype=torch.int64)\n"
      "  %unsqueeze: int64[5, 1] = aten.unsqueeze.default(%_to_copy, -1)\n"
      "  %arange_1: float32[2] = aten.arange.start_step(0, 2, dtype=torch.float32, layout=torch.strided, "
      "device=device(type='cpu'), pin_memory=False)\n"
      "  %add_1: float32[2] = aten.add.Tensor(%arange_1, 0.5)\n"
      "  %mul_1: float32[2] = aten.mul.Tensor(%add_1, 2.0)\n"
      "  %_to_copy_1: int64[2] = aten._to_copy.default(%mul_1, dtype=torch.int64)\n"
      "  %index: float32[1, 2, 5, 2] = aten.index.Tensor(%x, [None, None, %unsqueeze, %_to_copy_1])\n"
      "  return (%index)\n");
}

TEST_CASE("decompose upsample_nearest3d -> three index vectors shaped [d, 1, 1], [h, 1], [w]") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Half, {1, 1, 2, 3, 2});
  b.output(b.call("aten.upsample_nearest3d.default", {arg_tensor(x), arg_ints({4, 3, 5})},
                  {ScalarType::Half, {1, 1, 4, 3, 5}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  auto t = pteforge::testing::targets(ep.graph());
  CHECK(std::count(t.begin(), t.end(), "aten.index.Tensor") == 1);
  CHECK(std::count(t.begin(), t.end(), "aten.arange.start_step") == 3);
  CHECK(std::count(t.begin(), t.end(), "aten.unsqueeze.default") == 3);  // 2 for d, 1 for h
  CHECK(std::count(t.begin(), t.end(), "aten._to_copy.default") ==
        3 + 2);  // int64 indices, float16 in and out
  const TensorMeta* out = ep.graph().tensor_meta(ep.graph().outputs()[0].tensor_name());
  REQUIRE(out != nullptr);
  CHECK(out->dtype == ScalarType::Half);
  CHECK(out->concrete_sizes() == std::vector<int64_t>{1, 1, 4, 3, 5});
}
