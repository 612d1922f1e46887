#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

TEST_CASE("scalar_to_tensor: scalars passed to Tensor arguments become 0-d constants with inline bytes") {
  ProgramBuilder b;
  b.parameter("p_w", "w", ScalarType::Float, {3});
  auto x = b.input("x", ScalarType::Float, {3});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_float(1.0)}, {ScalarType::Float, {3}});
  auto m = b.call("aten.mul.Tensor", {arg_tensor(a), arg_int(2)}, {ScalarType::Float, {3}});
  auto ms =
      b.call("aten.mul.Scalar", {arg_tensor(m), arg_float(0.5)}, {ScalarType::Float, {3}});  // Scalar: kept
  auto lt = b.call("aten.lt.Tensor", {arg_tensor(ms), arg_tensor(x)}, {ScalarType::Bool, {3}});
  auto eq = b.call("aten.eq.Tensor", {arg_tensor(lt), arg_bool(true)}, {ScalarType::Bool, {3}});
  b.output(eq);
  ExportedProgram ep = b.build();

  auto run = run_pass(ep, "scalar_to_tensor");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("constants_created") == 3);
  CHECK(print_exported_program(ep, {true}) ==
        "# input parameter %p_w <- w\n"
        "# input tensor_constant %_tensor_constant0 <- _tensor_constant0\n"
        "# input tensor_constant %_tensor_constant1 <- _tensor_constant1\n"
        "# input tensor_constant %_tensor_constant2 <- _tensor_constant2\n"
        "# input user_input %x\n"
        "# output user_output %eq\n"
        "graph(%p_w: float32[3], %_tensor_constant0: float32[], %_tensor_constant1: int64[], "
        "%_tensor_constant2: bool[], %x: float32[3]):\n"
        "  %add: float32[3] = aten.add.Tensor(%x, %_tensor_constant0)\n"
        "  %mul: float32[3] = aten.mul.Tensor(%add, %_tensor_constant1)\n"
        "  %mul_1: float32[3] = aten.mul.Scalar(%mul, 0.5)\n"
        "  %lt: bool[3] = aten.lt.Tensor(%mul_1, %x)\n"
        "  %eq: bool[3] = aten.eq.Tensor(%lt, %_tensor_constant2)\n"
        "  return (%eq)\n");
  REQUIRE(ep.state.tensors.size() == 3);
  const ConstantRef& f = ep.state.tensors[0];
  CHECK(f.placeholder == "_tensor_constant0");
  CHECK(f.fqn == "_tensor_constant0");
  CHECK(f.kind == InputKind::TensorConstant);
  CHECK(f.dtype == ScalarType::Float);
  CHECK(f.sizes.empty());
  CHECK(f.byte_length == 4);
  REQUIRE(f.is_inline());
  CHECK(*f.inline_data == std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f});
  CHECK(ep.state.tensors[1].dtype == ScalarType::Long);
  CHECK(*ep.state.tensors[1].inline_data == std::vector<uint8_t>{2, 0, 0, 0, 0, 0, 0, 0});
  CHECK(ep.state.tensors[2].dtype == ScalarType::Bool);
  CHECK(*ep.state.tensors[2].inline_data == std::vector<uint8_t>{1});
}

TEST_CASE("scalar_to_tensor: literal symbolic numbers (as_sym_int {as_int: 3}, ...) are the plain numbers") {
  // torch's deserializer reads them as Python numbers, which ScalarToTensorPass
  // turns into tensors; written as scalars they would sit in Tensor slots.
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3});
  auto a = b.call("aten.add.Tensor",
                  {arg_tensor(x), Argument::make<ArgTag::SymInt>(SymIntArgument{std::nullopt, 3})},
                  {ScalarType::Float, {3}});
  auto m = b.call("aten.mul.Tensor",
                  {arg_tensor(a), Argument::make<ArgTag::SymFloat>(SymFloatArgument{std::nullopt, 0.5})},
                  {ScalarType::Float, {3}});
  auto e = b.call("aten.eq.Tensor",
                  {arg_tensor(m), Argument::make<ArgTag::SymBool>(SymBoolArgument{std::nullopt, true})},
                  {ScalarType::Bool, {3}});
  b.output(e);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "scalar_to_tensor");
  REQUIRE(run.status.ok());
  CHECK(run.report.passes[0].stats.at("constants_created") == 3);
  REQUIRE(ep.state.tensors.size() == 3);
  CHECK(ep.state.tensors[0].dtype == ScalarType::Long);
  CHECK(*ep.state.tensors[0].inline_data == std::vector<uint8_t>{3, 0, 0, 0, 0, 0, 0, 0});
  CHECK(ep.state.tensors[1].dtype == ScalarType::Float);
  CHECK(*ep.state.tensors[1].inline_data == std::vector<uint8_t>{0x00, 0x00, 0x00, 0x3f});
  CHECK(ep.state.tensors[2].dtype == ScalarType::Bool);
  CHECK(*ep.state.tensors[2].inline_data == std::vector<uint8_t>{1});
  CHECK(print_graph(ep.graph()).find("aten.add.Tensor(%x, %_tensor_constant0)") != std::string::npos);
}

TEST_CASE("scalar_to_tensor: keyword Tensor arguments too, Tensor? arguments are left alone") {
  ProgramBuilder b;
  auto c = b.input("c", ScalarType::Bool, {2});
  auto x = b.input("x", ScalarType::Float, {2});
  auto w = b.call("aten.where.self", {arg_tensor(c), arg_tensor(x)}, {ScalarType::Float, {2}},
                  {{"other", arg_float(-1.5)}});
  auto cl = b.call("aten.clamp.Tensor", {arg_tensor(w)}, {ScalarType::Float, {2}}, {{"min", arg_float(0.0)}});
  b.output(cl);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "scalar_to_tensor");
  REQUIRE(run.status.ok());
  CHECK(print_graph(ep.graph()) ==
        "graph(%_tensor_constant0, %c, %x):\n"
        "  %where = aten.where.self(%c, %x, other=%_tensor_constant0)\n"
        "  %clamp = aten.clamp.Tensor(%where, min=0.0)\n"
        "  return (%clamp)\n");
  CHECK(*ep.state.tensors[0].inline_data == std::vector<uint8_t>{0x00, 0x00, 0xc0, 0xbf});
}

TEST_CASE("scalar_to_tensor: nothing to convert, no change") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3});
  auto y = b.call("aten.add.Scalar", {arg_tensor(x), arg_float(1.0)}, {ScalarType::Float, {3}});
  b.output(y);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "scalar_to_tensor");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
  CHECK(ep.state.tensors.empty());
}

TEST_CASE("scalar_to_tensor: a scalar for a Tensor argument inside a nested graph is an error") {
  Graph body;
  body.set_inputs({arg_tensor("a")});
  body.set_tensor_meta("a", make_tensor_meta(ScalarType::Float, {2}));
  body.append(Node(OpTarget("torch.ops.aten.add.Tensor"),
                   {positional("self", arg_tensor("a")), positional("other", arg_float(2.0))},
                   {arg_tensor("s")}, "s"));
  body.set_tensor_meta("s", make_tensor_meta(ScalarType::Float, {2}));
  body.set_outputs({arg_tensor("s")});

  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  b.output(x);
  ExportedProgram ep = b.build();
  Graph& g = ep.graph();
  g.append(Node(OpTarget("torch.ops.higher_order.map_impl"),
                {positional("", Argument::make<ArgTag::Graph>(GraphArgument{"body_graph_0", GraphBox(body)})),
                 positional("", arg_tensors({x}))},
                {arg_tensor("map_impl")}, "map_impl"));
  g.set_tensor_meta("map_impl", make_tensor_meta(ScalarType::Float, {2}));
  g.set_output(0, arg_tensor("map_impl"));
  ep.signature().output_specs[0].arg = arg_tensor("map_impl");

  auto run = run_pass(ep, "scalar_to_tensor");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(run.status.error().where.node == "s");
  CHECK(run.status.error().message ==
        "a Python scalar passed to a Tensor argument of aten.add.Tensor inside a nested graph cannot become "
        "a tensor "
        "constant");
}
