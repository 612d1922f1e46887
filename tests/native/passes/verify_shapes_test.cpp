// verify_shapes on small hand-built programs: what it refuses (with the exact
// message and node), what it skips, and that it changes nothing. Whole
// conversions of wrong programs are in tests/native/e2e/shape_errors_native.cpp.
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

TEST_CASE("verify_shapes: a consistent program passes unchanged and every call is counted") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.input("y", ScalarType::Float, {3});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Float, {2, 3}});
  auto r1 = b.call("aten.relu.default", {arg_tensor(a)}, {ScalarType::Float, {2, 3}});
  auto r2 = b.call("aten.relu.default", {arg_tensor(r1)}, {ScalarType::Float, {2, 3}});
  auto s = b.call("aten.sum.dim_IntList", {arg_tensor(r2), arg_ints({1}), arg_bool(true)}, {ScalarType::Float, {2, 1}});
  b.output(s);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK_FALSE(run.changed());
  CHECK(run.report.passes[0].stats.at("nodes_checked") == 4);
  CHECK(run.report.passes[0].stats.at("nodes_skipped") == 0);
  CHECK(print_exported_program(ep) == before);
}

TEST_CASE("verify_shapes: operands that do not broadcast are refused at their node") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.input("y", ScalarType::Float, {4});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Float, {2, 3}});
  b.output(a);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  const Error& e = run.status.error();
  CHECK(e.code == ErrorCode::INVALID_GRAPH);
  CHECK(e.message == "node \"add\": aten::add.Tensor: shapes [2, 3], [4] do not broadcast");
  CHECK(e.where.node == std::optional<std::string>("add"));
  CHECK(e.where.pass == std::optional<std::string>("verify_shapes"));
  REQUIRE(e.notes.size() == 1);
}

TEST_CASE("verify_shapes: a wrong node after an identical correct one is still refused") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r1 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto r2 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto r3 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {3, 2}});
  auto s = b.call("aten.add.Tensor", {arg_tensor(r1), arg_tensor(r2)}, {ScalarType::Float, {2, 3}});
  b.output(s);
  b.output(r3);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"relu_2\": declared as float32[3, 2], but aten::relu of its inputs gives float32[2, 3]");
  CHECK(run.status.error().where.node == std::optional<std::string>("relu_2"));
}

TEST_CASE("verify_shapes: each output of a multi-output call is compared, and named when wrong") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 2, 4, 4});
  auto outs = b.call_multi("aten.max_pool2d_with_indices.default",
                           {arg_tensor(x), arg_ints({2, 2}), arg_ints({2, 2})},
                           {{ScalarType::Float, {1, 2, 2, 2}}, {ScalarType::Float, {1, 2, 2, 2}}},
                           {"getitem", "getitem_1"});
  b.output(outs[0]);
  b.output(outs[1]);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"max_pool2d_with_indices\": output \"getitem_1\" declared as float32[1, 2, 2, 2], but "
        "aten::max_pool2d_with_indices of its inputs gives int64[1, 2, 2, 2]");
}

TEST_CASE("verify_shapes: ops without a shape rule, and other namespaces, are skipped, not refused") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  // cumsum has no rule: even a wrong declared shape passes through.
  auto c = b.call("aten.cumsum.default", {arg_tensor(x), arg_int(1)}, {ScalarType::Float, {7}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.report.passes[0].stats.at("nodes_checked") == 0);
  CHECK(run.report.passes[0].stats.at("nodes_skipped") == 1);
}

TEST_CASE("verify_shapes: a convolution bias of the wrong length is refused with PyTorch's wording") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {4, 3, 3, 3});
  auto bias = b.parameter("p_b", "b", ScalarType::Float, {5});
  auto x = b.input("x", ScalarType::Float, {1, 3, 8, 8});
  auto y = b.call("aten.convolution.default",
                  {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_ints({1, 1}), arg_ints({0, 0}),
                   arg_ints({1, 1}), arg_bool(false), arg_ints({0, 0}), arg_int(1)},
                  {ScalarType::Float, {1, 4, 6, 6}});
  b.output(y);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"convolution\": aten::convolution: given weight of size [4, 3, 3, 3], expected a 1-d bias of 4 "
        "elements, but got bias of size [5]");
}

TEST_CASE("verify_shapes: clamp's Scalar bounds take part in type promotion, as in PyTorch") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Long, {3});
  auto c = b.call("aten.clamp.default", {arg_tensor(x), arg_float(0.5)}, {ScalarType::Long, {3}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"clamp\": declared as int64[3], but aten::clamp of its inputs gives float32[3]");
}

TEST_CASE("verify_shapes: results on a device other than the CPU are not compared") {
  // On CUDA the eval-mode batch norm's saved statistics have one entry per
  // channel; the CPU rule gives empty ones.
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 2, 3, 3});
  auto w = b.parameter("p_w", "w", ScalarType::Float, {2});
  auto bias = b.parameter("p_b", "b", ScalarType::Float, {2});
  auto mean = b.buffer("b_mean", "mean", ScalarType::Float, {2});
  auto var = b.buffer("b_var", "var", ScalarType::Float, {2});
  auto outs = b.call_multi("aten._native_batch_norm_legit_no_training.default",
                           {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_tensor(mean), arg_tensor(var),
                            arg_float(0.1), arg_float(1e-5)},
                           {{ScalarType::Float, {1, 2, 3, 3}}, {ScalarType::Float, {2}}, {ScalarType::Float, {2}}},
                           {"getitem", "getitem_1", "getitem_2"});
  b.output(outs[0]);
  ExportedProgram ep = b.build();
  SUBCASE("on the CPU the per-channel statistics are refused") {
    auto run = run_pass(ep, "verify_shapes");
    REQUIRE_FALSE(run.status.ok());
    CHECK(run.status.error().message ==
          "node \"_native_batch_norm_legit_no_training\": output \"getitem_1\" declared as float32[2], but "
          "aten::_native_batch_norm_legit_no_training of its inputs gives float32[0]");
  }
  SUBCASE("on CUDA they are not compared") {
    for (const char* name : {"getitem", "getitem_1", "getitem_2"}) {
      TensorMeta m = *ep.graph().tensor_meta(name);
      m.device.type = "cuda";
      ep.graph().set_tensor_meta(name, m);
    }
    auto run = run_pass(ep, "verify_shapes");
    REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  }
}
