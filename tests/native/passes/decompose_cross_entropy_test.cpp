// cross_entropy_loss, nll_loss, nll_loss2d and nll_loss_nd (at::native, LossNLL.cpp): the exact
// graphs for class-index targets (log_softmax, then nll_loss_forward or, from rank 3 on,
// nll_loss2d_forward, itself decomposed), class probabilities (with a weight and label
// smoothing) and class indices with label smoothing; kl_div and margin_ranking_loss (Loss.cpp);
// the refusals with torch's messages.
#include <doctest/doctest.h>

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

TEST_CASE("decompose cross_entropy_loss with class indices -> _log_softmax, then nll_loss_forward's graph") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto t = b.input("t", ScalarType::Long, {2});
  b.output(b.call("aten.cross_entropy_loss.default", {arg_tensor(x), arg_tensor(t)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %t: int64[2]):\n"
                    "  %_log_softmax: float32[2, 3] = aten._log_softmax.default(%x, 1, False)\n"
                    "  %ne: bool[2] = aten.ne.Scalar(%t, -100)\n"
                    "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where: int64[2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
                    "  %unsqueeze: int64[2, 1] = aten.unsqueeze.default(%where, 1)\n"
                    "  %gather: float32[2, 1] = aten.gather.default(%_log_softmax, 1, %unsqueeze)\n"
                    "  %squeeze: float32[2] = aten.squeeze.dims(%gather, [1])\n"
                    "  %neg: float32[2] = aten.neg.default(%squeeze)\n"
                    "  %ne_1: bool[2] = aten.ne.Scalar(%t, -100)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
                    "  %ne_2: bool[2] = aten.ne.Scalar(%t, -100)\n"
                    "  %sum_1: int64[] = aten.sum.dim_IntList(%ne_2, [])\n"
                    "  %_to_copy: float32[] = aten._to_copy.default(%sum_1, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %sum_2: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
                    "  %div: float32[] = aten.div.Tensor(%sum_2, %_to_copy)\n"
                    "  return (%div)\n");
}

TEST_CASE("decompose cross_entropy_loss with class probabilities, a weight and label smoothing (mean)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto p = b.input("p", F, {2, 3});
  auto w = b.input("w", F, {3});
  b.output(b.call("aten.cross_entropy_loss.default",
                  {arg_tensor(x), arg_tensor(p), arg_tensor(w), arg_int(1), arg_int(-100), arg_float(0.25)},
                  {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %p: float32[2, 3], %w: float32[3]):\n"
                    "  %_log_softmax: float32[2, 3] = aten._log_softmax.default(%x, 1, False)\n"
                    "  %mul: float32[2, 3] = aten.mul.Scalar(%p, 0.75)\n"
                    "  %add: float32[2, 3] = aten.add.Scalar(%mul, 0.08333333333333333)\n"
                    "  %mul_1: float32[2, 3] = aten.mul.Tensor(%_log_softmax, %add)\n"
                    "  %view: float32[1, 3] = aten.view.default(%w, [1, 3])\n"
                    "  %mul_2: float32[2, 3] = aten.mul.Tensor(%mul_1, %view)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%mul_2, [])\n"
                    "  %neg: float32[] = aten.neg.default(%sum_1)\n"
                    "  %div: float32[] = aten.div.Scalar(%neg, 2)\n"
                    "  return (%div)\n");
}

TEST_CASE("decompose cross_entropy_loss with class probabilities, reduction none: sum over the class dim") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto p = b.input("p", F, {2, 3});
  b.output(b.call("aten.cross_entropy_loss.default", {arg_tensor(x), arg_tensor(p), arg_none(), arg_int(0)},
                  {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %p: float32[2, 3]):\n"
                    "  %_log_softmax: float32[2, 3] = aten._log_softmax.default(%x, 1, False)\n"
                    "  %mul: float32[2, 3] = aten.mul.Tensor(%_log_softmax, %p)\n"
                    "  %sum_1: float32[2] = aten.sum.dim_IntList(%mul, [1])\n"
                    "  %neg: float32[2] = aten.neg.default(%sum_1)\n"
                    "  return (%neg)\n");
}

TEST_CASE("decompose nll_loss and nll_loss_nd -> nll_loss_forward's first result") {
  // sum_2: nll_loss_forward sums the kept count (total_weight, then unused) before the loss.
  for (const std::string op : {"aten.nll_loss.default", "aten.nll_loss_nd.default"}) {
    CAPTURE(op);
    ProgramBuilder b;
    auto x = b.input("x", F, {2, 3});
    auto t = b.input("t", ScalarType::Long, {2});
    b.output(b.call(op, {arg_tensor(x), arg_tensor(t), arg_none(), arg_int(2)}, {F, {}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%x: float32[2, 3], %t: int64[2]):\n"
                      "  %ne: bool[2] = aten.ne.Scalar(%t, -100)\n"
                      "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                      "layout=torch.strided, device=device(type='cpu'))\n"
                      "  %where: int64[2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
                      "  %unsqueeze: int64[2, 1] = aten.unsqueeze.default(%where, 1)\n"
                      "  %gather: float32[2, 1] = aten.gather.default(%x, 1, %unsqueeze)\n"
                      "  %squeeze: float32[2] = aten.squeeze.dims(%gather, [1])\n"
                      "  %neg: float32[2] = aten.neg.default(%squeeze)\n"
                      "  %ne_1: bool[2] = aten.ne.Scalar(%t, -100)\n"
                      "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                      "layout=torch.strided, device=device(type='cpu'))\n"
                      "  %where_1: float32[2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
                      "  %sum_2: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
                      "  return (%sum_2)\n");
  }
}

TEST_CASE("decompose cross_entropy_loss with class indices and label smoothing (mean, no weight)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto t = b.input("t", ScalarType::Long, {2});
  b.output(b.call("aten.cross_entropy_loss.default",
                  {arg_tensor(x), arg_tensor(t), arg_none(), arg_int(1), arg_int(-100), arg_float(0.25)},
                  {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %t: int64[2]):\n"
                    "  %_log_softmax: float32[2, 3] = aten._log_softmax.default(%x, 1, False)\n"
                    "  %ne: bool[2] = aten.ne.Scalar(%t, -100)\n"
                    "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where: int64[2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
                    "  %unsqueeze: int64[2, 1] = aten.unsqueeze.default(%where, 1)\n"
                    "  %gather: float32[2, 1] = aten.gather.default(%_log_softmax, 1, %unsqueeze)\n"
                    "  %squeeze: float32[2] = aten.squeeze.dims(%gather, [1])\n"
                    "  %neg_1: float32[2] = aten.neg.default(%squeeze)\n"
                    "  %ne_1: bool[2] = aten.ne.Scalar(%t, -100)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[2] = aten.where.self(%ne_1, %neg_1, %scalar_tensor_1)\n"
                    "  %ne_2: bool[2] = aten.ne.Scalar(%t, -100)\n"
                    "  %sum_4: int64[] = aten.sum.dim_IntList(%ne_2, [])\n"
                    "  %_to_copy: float32[] = aten._to_copy.default(%sum_4, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %sum_5: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
                    "  %div_1: float32[] = aten.div.Tensor(%sum_5, %_to_copy)\n"
                    "  %sum_1: float32[2] = aten.sum.dim_IntList(%_log_softmax, [1])\n"
                    "  %neg: float32[2] = aten.neg.default(%sum_1)\n"
                    "  %eq: bool[2] = aten.eq.Scalar(%t, -100)\n"
                    "  %full: float32[] = aten.full.default([], 0.0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %where_2: float32[2] = aten.where.self(%eq, %full, %neg)\n"
                    "  %bitwise_not: bool[2] = aten.bitwise_not.default(%eq)\n"
                    "  %sum_2: float32[] = aten.sum.dim_IntList(%where_2, [])\n"
                    "  %sum_3: int64[] = aten.sum.dim_IntList(%bitwise_not, [])\n"
                    "  %div: float32[] = aten.div.Tensor(%sum_2, %sum_3)\n"
                    "  %mul: float32[] = aten.mul.Scalar(%div_1, 0.75)\n"
                    "  %mul_1: float32[] = aten.mul.Scalar(%div, 0.08333333333333333)\n"
                    "  %add: float32[] = aten.add.Tensor(%mul, %mul_1)\n"
                    "  return (%add)\n");
}

TEST_CASE("decompose nll_loss with int32 targets is refused: gather takes int64 indices only") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto t = b.input("t", ScalarType::Int, {2});
  b.output(b.call("aten.nll_loss.default", {arg_tensor(x), arg_tensor(t)}, {F, {}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::INVALID_GRAPH);
  CHECK_MESSAGE(st.error().message.find("gather(): Expected dtype int64 for index, but it is int32") !=
                    std::string::npos,
                st.error().message);
}

TEST_CASE("decompose cross_entropy_loss / nll_loss_nd refusals: torch's checks, the unsupported forms") {
  auto program = [](const char* op, std::vector<int64_t> xs, ScalarType tdt, std::vector<int64_t> ts,
                    double smoothing, std::vector<int64_t> out) {
    ProgramBuilder b;
    auto x = b.input("x", F, xs);
    auto t = b.input("t", tdt, ts);
    std::vector<Argument> args{arg_tensor(x), arg_tensor(t), arg_none(), arg_int(1), arg_int(-100)};
    if (std::string(op) == "aten.cross_entropy_loss.default") args.push_back(arg_float(smoothing));
    b.output(b.call(op, std::move(args), {F, std::move(out)}));
    return b.build();
  };
  ExportedProgram b = program("aten.cross_entropy_loss.default", {2, 3}, ScalarType::Long, {2}, 1.5, {});
  expect_refused(b, ErrorCode::INVALID_GRAPH, "cross_entropy_loss",
                 "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  ExportedProgram c = program("aten.cross_entropy_loss.default", {2, 3}, ScalarType::Long, {2, 3}, 0.0, {});
  expect_refused(c, ErrorCode::INVALID_GRAPH, "cross_entropy_loss",
                 "Expected floating point type for target with class probabilities, got int64");
  ExportedProgram d = program("aten.nll_loss_nd.default", {2, 3}, ScalarType::Long, {4}, 0.0, {});
  expect_refused(d, ErrorCode::INVALID_GRAPH, "nll_loss_nd",
                 "Expected input batch_size (2) to match target batch_size (4).");
  ExportedProgram e =
      program("aten.cross_entropy_loss.default", {2, 3, 4}, ScalarType::Long, {2, 5}, 0.0, {});
  expect_refused(e, ErrorCode::INVALID_GRAPH, "cross_entropy_loss",
                 "Expected target size [2, 4], got [2, 5]");
  ExportedProgram f = program("aten.nll_loss_nd.default", {2, 3, 4, 5}, ScalarType::Long, {2, 4, 6}, 0.0, {});
  expect_refused(f, ErrorCode::INVALID_GRAPH, "nll_loss_nd",
                 "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 6]");
  ExportedProgram g = program("aten.nll_loss2d.default", {2, 3, 4}, ScalarType::Long, {2, 4}, 0.0, {});
  expect_refused(g, ErrorCode::INVALID_GRAPH, "nll_loss2d",
                 "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2");
  ExportedProgram h = program("aten.nll_loss2d.default", {2, 3, 4}, ScalarType::Long, {2, 4, 1}, 0.0, {});
  expect_refused(h, ErrorCode::INVALID_GRAPH, "nll_loss2d",
                 "only batches of spatial inputs supported (4D tensors), but got input of dimension: 3");
}

TEST_CASE("decompose cross_entropy_loss of a 4-d input -> nll_loss2d_forward's graph (channel dim 1)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 2, 2});
  auto t = b.input("t", ScalarType::Long, {2, 2, 2});
  b.output(b.call("aten.cross_entropy_loss.default", {arg_tensor(x), arg_tensor(t)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 2, 2], %t: int64[2, 2, 2]):\n"
                    "  %_log_softmax: float32[2, 3, 2, 2] = aten._log_softmax.default(%x, 1, False)\n"
                    "  %ne: bool[2, 2, 2] = aten.ne.Scalar(%t, -100)\n"
                    "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where: int64[2, 2, 2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
                    "  %unsqueeze: int64[2, 1, 2, 2] = aten.unsqueeze.default(%where, 1)\n"
                    "  %gather: float32[2, 1, 2, 2] = aten.gather.default(%_log_softmax, 1, %unsqueeze)\n"
                    "  %squeeze: float32[2, 2, 2] = aten.squeeze.dims(%gather, [1])\n"
                    "  %neg: float32[2, 2, 2] = aten.neg.default(%squeeze)\n"
                    "  %ne_1: bool[2, 2, 2] = aten.ne.Scalar(%t, -100)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[2, 2, 2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
                    "  %ne_2: bool[2, 2, 2] = aten.ne.Scalar(%t, -100)\n"
                    "  %sum_1: int64[] = aten.sum.dim_IntList(%ne_2, [])\n"
                    "  %_to_copy: float32[] = aten._to_copy.default(%sum_1, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %sum_2: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
                    "  %div: float32[] = aten.div.Tensor(%sum_2, %_to_copy)\n"
                    "  return (%div)\n");
}

TEST_CASE("decompose nll_loss_nd of a 3-d input, reduction none -> views around nll_loss2d_forward") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 5});
  auto t = b.input("t", ScalarType::Long, {2, 5});
  b.output(b.call("aten.nll_loss_nd.default",
                  {arg_tensor(x), arg_tensor(t), arg_none(), arg_int(0), arg_int(-100)}, {F, {2, 5}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 5], %t: int64[2, 5]):\n"
                    "  %view: float32[2, 3, 1, 5] = aten.view.default(%x, [2, 3, 1, -1])\n"
                    "  %view_1: int64[2, 1, 5] = aten.view.default(%t, [2, 1, -1])\n"
                    "  %ne: bool[2, 1, 5] = aten.ne.Scalar(%view_1, -100)\n"
                    "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where: int64[2, 1, 5] = aten.where.self(%ne, %view_1, %scalar_tensor)\n"
                    "  %unsqueeze: int64[2, 1, 1, 5] = aten.unsqueeze.default(%where, 1)\n"
                    "  %gather: float32[2, 1, 1, 5] = aten.gather.default(%view, 1, %unsqueeze)\n"
                    "  %squeeze: float32[2, 1, 5] = aten.squeeze.dims(%gather, [1])\n"
                    "  %neg: float32[2, 1, 5] = aten.neg.default(%squeeze)\n"
                    "  %ne_1: bool[2, 1, 5] = aten.ne.Scalar(%view_1, -100)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[2, 1, 5] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
                    "  %view_2: float32[2, 5] = aten.view.default(%where_1, [2, 5])\n"
                    "  return (%view_2)\n");
}

TEST_CASE(
    "decompose nll_loss2d_forward with a weight (sum) -> _nll_loss_forward with the weight as [1, C, 1, 1]") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 3, 2, 2});
  auto t = b.input("t", ScalarType::Long, {1, 2, 2});
  auto w = b.input("w", F, {3});
  auto outs = b.call_multi("aten.nll_loss2d_forward.default",
                           {arg_tensor(x), arg_tensor(t), arg_tensor(w), arg_int(2), arg_int(1)},
                           {{F, {}}, {F, {}}}, {"loss", "total_weight"});
  b.output(outs[0]);
  b.output(outs[1]);
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[1, 3, 2, 2], %t: int64[1, 2, 2], %w: float32[3]):\n"
                    "  %view: float32[1, 3, 1, 1] = aten.view.default(%w, [1, 3, 1, 1])\n"
                    "  %mul: float32[1, 3, 2, 2] = aten.mul.Tensor(%x, %view)\n"
                    "  %ne: bool[1, 2, 2] = aten.ne.Scalar(%t, 1)\n"
                    "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where: int64[1, 2, 2] = aten.where.self(%ne, %t, %scalar_tensor)\n"
                    "  %unsqueeze: int64[1, 1, 2, 2] = aten.unsqueeze.default(%where, 1)\n"
                    "  %gather: float32[1, 1, 2, 2] = aten.gather.default(%mul, 1, %unsqueeze)\n"
                    "  %squeeze: float32[1, 2, 2] = aten.squeeze.dims(%gather, [1])\n"
                    "  %neg: float32[1, 2, 2] = aten.neg.default(%squeeze)\n"
                    "  %ne_1: bool[1, 2, 2] = aten.ne.Scalar(%t, 1)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[1, 2, 2] = aten.where.self(%ne_1, %neg, %scalar_tensor_1)\n"
                    "  %expand: float32[1, 3, 2, 2] = aten.expand.default(%view, [1, 3, 2, 2])\n"
                    "  %gather_1: float32[1, 1, 2, 2] = aten.gather.default(%expand, 1, %unsqueeze)\n"
                    "  %squeeze_1: float32[1, 2, 2] = aten.squeeze.dims(%gather_1, [1])\n"
                    "  %ne_2: bool[1, 2, 2] = aten.ne.Scalar(%t, 1)\n"
                    "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_2: float32[1, 2, 2] = aten.where.self(%ne_2, %squeeze_1, %scalar_tensor_2)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%where_2, [])\n"
                    "  %sum_2: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
                    "  return (%sum_2, %sum_1)\n");
}

TEST_CASE("decompose cross_entropy_loss of a 3-d input with label smoothing and a weight (mean)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 2});
  auto t = b.input("t", ScalarType::Long, {2, 2});
  auto w = b.input("w", F, {3});
  b.output(b.call("aten.cross_entropy_loss.default",
                  {arg_tensor(x), arg_tensor(t), arg_tensor(w), arg_int(1), arg_int(-100), arg_float(0.1)},
                  {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3, 2], %t: int64[2, 2], %w: float32[3]):\n"
                    "  %_log_softmax: float32[2, 3, 2] = aten._log_softmax.default(%x, 1, False)\n"
                    "  %view: float32[2, 3, 1, 2] = aten.view.default(%_log_softmax, [2, 3, 1, -1])\n"
                    "  %view_1: int64[2, 1, 2] = aten.view.default(%t, [2, 1, -1])\n"
                    "  %view_5: float32[1, 3, 1, 1] = aten.view.default(%w, [1, 3, 1, 1])\n"
                    "  %mul_3: float32[2, 3, 1, 2] = aten.mul.Tensor(%view, %view_5)\n"
                    "  %ne: bool[2, 1, 2] = aten.ne.Scalar(%view_1, -100)\n"
                    "  %scalar_tensor: int64[] = aten.scalar_tensor.default(0, dtype=torch.int64, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where: int64[2, 1, 2] = aten.where.self(%ne, %view_1, %scalar_tensor)\n"
                    "  %unsqueeze: int64[2, 1, 1, 2] = aten.unsqueeze.default(%where, 1)\n"
                    "  %gather_1: float32[2, 1, 1, 2] = aten.gather.default(%mul_3, 1, %unsqueeze)\n"
                    "  %squeeze: float32[2, 1, 2] = aten.squeeze.dims(%gather_1, [1])\n"
                    "  %neg_1: float32[2, 1, 2] = aten.neg.default(%squeeze)\n"
                    "  %ne_1: bool[2, 1, 2] = aten.ne.Scalar(%view_1, -100)\n"
                    "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_1: float32[2, 1, 2] = aten.where.self(%ne_1, %neg_1, %scalar_tensor_1)\n"
                    "  %expand: float32[2, 3, 1, 2] = aten.expand.default(%view_5, [2, 3, 1, 2])\n"
                    "  %gather_2: float32[2, 1, 1, 2] = aten.gather.default(%expand, 1, %unsqueeze)\n"
                    "  %squeeze_1: float32[2, 1, 2] = aten.squeeze.dims(%gather_2, [1])\n"
                    "  %ne_2: bool[2, 1, 2] = aten.ne.Scalar(%view_1, -100)\n"
                    "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'))\n"
                    "  %where_2: float32[2, 1, 2] = aten.where.self(%ne_2, %squeeze_1, %scalar_tensor_2)\n"
                    "  %sum_4: float32[] = aten.sum.dim_IntList(%where_2, [])\n"
                    "  %sum_5: float32[] = aten.sum.dim_IntList(%where_1, [])\n"
                    "  %div_1: float32[] = aten.div.Tensor(%sum_5, %sum_4)\n"
                    "  %view_2: float32[1, 3, 1] = aten.view.default(%w, [1, 3, 1])\n"
                    "  %mul: float32[2, 3, 2] = aten.mul.Tensor(%_log_softmax, %view_2)\n"
                    "  %sum_1: float32[2, 2] = aten.sum.dim_IntList(%mul, [1])\n"
                    "  %neg: float32[2, 2] = aten.neg.default(%sum_1)\n"
                    "  %eq: bool[2, 2] = aten.eq.Scalar(%t, -100)\n"
                    "  %full: float32[] = aten.full.default([], 0.0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %where_3: float32[2, 2] = aten.where.self(%eq, %full, %neg)\n"
                    "  %full_1: int64[] = aten.full.default([], 0, dtype=torch.int64, layout=torch.strided, "
                    "device=device(type='cpu'), pin_memory=False)\n"
                    "  %where_4: int64[2, 2] = aten.where.self(%eq, %full_1, %t)\n"
                    "  %view_3: int64[4] = aten.view.default(%where_4, [4])\n"
                    "  %gather: float32[4] = aten.gather.default(%w, 0, %view_3)\n"
                    "  %view_4: bool[4] = aten.view.default(%eq, [4])\n"
                    "  %full_2: float32[] = aten.full.default([], 0, dtype=torch.float32, "
                    "layout=torch.strided, device=device(type='cpu'), pin_memory=False)\n"
                    "  %where_5: float32[4] = aten.where.self(%view_4, %full_2, %gather)\n"
                    "  %sum_2: float32[] = aten.sum.dim_IntList(%where_5, [])\n"
                    "  %sum_3: float32[] = aten.sum.dim_IntList(%where_3, [])\n"
                    "  %div: float32[] = aten.div.Tensor(%sum_3, %sum_2)\n"
                    "  %mul_1: float32[] = aten.mul.Scalar(%div_1, 0.9)\n"
                    "  %mul_2: float32[] = aten.mul.Scalar(%div, 0.03333333333333333)\n"
                    "  %add: float32[] = aten.add.Tensor(%mul_1, %mul_2)\n"
                    "  return (%add)\n");
}

TEST_CASE("decompose kl_div (log_target) and margin_ranking_loss -> their Loss.cpp graphs, mean reduction") {
  ProgramBuilder b;
  auto i = b.input("i", F, {4});
  auto t = b.input("t", F, {4});
  auto y = b.input("y", F, {4});
  b.output(b.call("aten.kl_div.default", {arg_tensor(i), arg_tensor(t)}, {F, {}},
                  {{"log_target", arg_bool(true)}}));
  b.output(b.call("aten.margin_ranking_loss.default",
                  {arg_tensor(i), arg_tensor(t), arg_tensor(y), arg_float(0.5)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%i: float32[4], %t: float32[4], %y: float32[4]):\n"
                    "  %exp: float32[4] = aten.exp.default(%t)\n"
                    "  %sub: float32[4] = aten.sub.Tensor(%t, %i)\n"
                    "  %mul: float32[4] = aten.mul.Tensor(%exp, %sub)\n"
                    "  %mean: float32[] = aten.mean.default(%mul)\n"
                    "  %neg: float32[4] = aten.neg.default(%y)\n"
                    "  %sub_1: float32[4] = aten.sub.Tensor(%i, %t)\n"
                    "  %mul_1: float32[4] = aten.mul.Tensor(%neg, %sub_1)\n"
                    "  %add: float32[4] = aten.add.Scalar(%mul_1, 0.5)\n"
                    "  %clamp: float32[4] = aten.clamp.default(%add, 0)\n"
                    "  %mean_1: float32[] = aten.mean.default(%clamp)\n"
                    "  return (%mean, %mean_1)\n");
  ProgramBuilder bi;
  auto n = bi.input("n", ScalarType::Long, {4});
  auto m = bi.input("m", F, {4});
  bi.output(bi.call("aten.kl_div.default", {arg_tensor(n), arg_tensor(m)}, {F, {}}));
  ExportedProgram epi = bi.build();
  expect_refused(epi, ErrorCode::INVALID_GRAPH, "kl_div", "kl_div: Integral inputs not supported.");
}
