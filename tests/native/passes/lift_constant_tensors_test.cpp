#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_passes;

TEST_CASE("lift_constant_tensors: N counts buffers, order of first use, before the first user input") {
  ProgramBuilder b;
  b.parameter("p_w", "w", ScalarType::Float, {3});
  auto buf = b.buffer("b_mean", "mean", ScalarType::Float, {3});
  b.buffer("b_tmp", "tmp", ScalarType::Float, {3}, /*persistent=*/false);
  auto c = b.constant("c_k", "k", ScalarType::Float, {3});  // the program's own constant: stays
  auto x = b.input("x", ScalarType::Float, {3});
  auto y = b.input("y", ScalarType::Long, {3});
  auto s = b.call("aten.sub.Tensor", {arg_tensor(y), arg_int(7)}, {ScalarType::Long, {3}});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_float(0.25)}, {ScalarType::Float, {3}});
  auto m = b.call("aten.mul.Tensor", {arg_tensor(a), arg_tensor(buf)}, {ScalarType::Float, {3}});
  auto d = b.call("aten.add.Tensor", {arg_tensor(m), arg_tensor(c)}, {ScalarType::Float, {3}});
  b.output(d);
  b.output(s);
  ExportedProgram ep = b.build();
  // The sub's constant is created first (graph order), so lifted first.
  auto run = run_passes(ep, {"scalar_to_tensor", "lift_constant_tensors"});
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[1].stats.at("constants_lifted") == 2);
  CHECK(print_exported_program(ep, {true}) ==
        "# input parameter %p_w <- w\n"
        "# input buffer %b_mean <- mean\n"
        "# input buffer %b_tmp <- tmp (non-persistent)\n"
        "# input tensor_constant %c_k <- k\n"
        "# input buffer %_lifted_tensor_constant2 <- _lifted_tensor_constant2\n"
        "# input buffer %_lifted_tensor_constant3 <- _lifted_tensor_constant3\n"
        "# input user_input %x\n"
        "# input user_input %y\n"
        "# output user_output %add_1\n"
        "# output user_output %sub\n"
        "graph(%p_w: float32[3], %b_mean: float32[3], %b_tmp: float32[3], %c_k: float32[3], "
        "%_lifted_tensor_constant2: int64[], %_lifted_tensor_constant3: float32[], %x: float32[3], %y: "
        "int64[3]):\n"
        "  %sub: int64[3] = aten.sub.Tensor(%y, %_lifted_tensor_constant2)\n"
        "  %add: float32[3] = aten.add.Tensor(%x, %_lifted_tensor_constant3)\n"
        "  %mul: float32[3] = aten.mul.Tensor(%add, %b_mean)\n"
        "  %add_1: float32[3] = aten.add.Tensor(%mul, %c_k)\n"
        "  return (%add_1, %sub)\n");
  REQUIRE(ep.state.tensors.size() == 2);  // only the lifted ones are bound in this test
  CHECK(ep.state.tensors[0].placeholder == "_lifted_tensor_constant2");
  CHECK(ep.state.tensors[0].fqn == "_lifted_tensor_constant2");
  CHECK(ep.state.tensors[0].kind == InputKind::Buffer);
  CHECK(*ep.state.tensors[0].inline_data == std::vector<uint8_t>{7, 0, 0, 0, 0, 0, 0, 0});
  CHECK(ep.state.tensors[1].placeholder == "_lifted_tensor_constant3");
  CHECK(*ep.state.tensors[1].inline_data == std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3e});
  CHECK(ep.signature().input_specs[4].persistent);
}

TEST_CASE("lift_constant_tensors: lifting order follows first use, not creation, unused ones are dropped") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_float(1.0)}, {ScalarType::Float, {3}});
  auto m = b.call("aten.mul.Tensor", {arg_tensor(x), arg_float(2.0)}, {ScalarType::Float, {3}});
  auto s = b.call("aten.sub.Tensor", {arg_tensor(m), arg_float(3.0)}, {ScalarType::Float, {3}});
  b.output(s);
  b.output(a);
  ExportedProgram ep = b.build();
  REQUIRE(run_passes(ep, {"scalar_to_tensor"}).status.ok());
  // Make the add dead and move the sub's use of its constant before the mul.
  ep.signature().output_specs.pop_back();
  ep.graph().set_outputs({arg_tensor(s)});
  REQUIRE(ep.graph().erase(*ep.graph().find_node("add")).ok());
  ep.graph().move_before(*ep.graph().find_node("sub"), *ep.graph().find_node("mul"));
  ep.graph().find_node("sub")->set_input(0, arg_tensor(x));
  auto run = run_passes(ep, {"lift_constant_tensors"});
  REQUIRE(run.status.ok());
  CHECK(run.report.passes[0].stats.at("constants_dropped") == 1);
  CHECK(print_exported_program(ep) ==
        "# input buffer %_lifted_tensor_constant0 <- _lifted_tensor_constant0\n"
        "# input buffer %_lifted_tensor_constant1 <- _lifted_tensor_constant1\n"
        "# input user_input %x\n"
        "# output user_output %sub\n"
        "graph(%_lifted_tensor_constant0, %_lifted_tensor_constant1, %x):\n"
        "  %sub = aten.sub.Tensor(%x, %_lifted_tensor_constant0)\n"
        "  %mul = aten.mul.Tensor(%x, %_lifted_tensor_constant1)\n"
        "  return (%sub)\n");
  REQUIRE(ep.state.tensors.size() == 2);
  CHECK(*ep.state.tensors[0].inline_data == std::vector<uint8_t>{0x00, 0x00, 0x40, 0x40});  // 3.0
  CHECK(*ep.state.tensors[1].inline_data == std::vector<uint8_t>{0x00, 0x00, 0x00, 0x40});  // 2.0
  CHECK(ep.graph().find_value("_tensor_constant0") == nullptr);
}

TEST_CASE("lift_constant_tensors: without user inputs the constants go first, name clashes get _1") {
  ProgramBuilder b;
  auto buf = b.buffer("_lifted_tensor_constant1", "buf", ScalarType::Float, {2});
  auto a = b.call("aten.add.Tensor", {arg_tensor(buf), arg_float(1.0)}, {ScalarType::Float, {2}});
  b.output(a);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"scalar_to_tensor", "lift_constant_tensors"});
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) ==
        "# input buffer %_lifted_tensor_constant1_1 <- _lifted_tensor_constant1\n"
        "# input buffer %_lifted_tensor_constant1 <- buf\n"
        "# output user_output %add\n"
        "graph(%_lifted_tensor_constant1_1, %_lifted_tensor_constant1):\n"
        "  %add = aten.add.Tensor(%_lifted_tensor_constant1, %_lifted_tensor_constant1_1)\n"
        "  return (%add)\n");
}

TEST_CASE("lift_constant_tensors: only the program's own constants, no change") {
  ProgramBuilder b;
  auto c = b.constant("c_k", "k", ScalarType::Float, {3});
  auto x = b.input("x", ScalarType::Float, {3});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(c)}, {ScalarType::Float, {3}});
  b.output(a);
  ExportedProgram ep = b.build();
  ConstantRef ref;
  ref.fqn = "k";
  ref.placeholder = "c_k";
  ref.kind = InputKind::TensorConstant;
  ep.state.storages.push_back(PayloadStorage{PayloadStore::Constants, "tensor_0", 12, ""});
  ep.state.tensors.push_back(ref);
  const std::string before = print_exported_program(ep);
  auto run = run_passes(ep, {"lift_constant_tensors"});
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
}
