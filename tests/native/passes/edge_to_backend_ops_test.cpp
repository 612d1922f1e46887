// edge_to_backend_ops: symbolic Python arithmetic -> executorch_prim ops (§1.3 B5, §3.8).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

namespace {

/// Appends `name = target(args...)` defining a SymInt (hint 3 * k).
void sym_call(Graph& g, const std::string& target, std::vector<Argument> args, const std::string& name) {
  std::vector<NamedArgument> inputs;
  for (size_t i = 0; i < args.size(); ++i) inputs.push_back(positional("arg" + std::to_string(i), std::move(args[i])));
  g.append(Node(OpTarget(target), std::move(inputs), {arg_sym_int(name)}, name));
  g.set_sym_int(name, SymInt(SymExpr{name, SymExprHint::of_int(3)}));
}

Argument sym(const std::string& name) { return arg_sym_int(name); }
Argument lit(int64_t v) { return Argument::make<ArgTag::SymInt>(SymIntArgument{std::nullopt, v}); }

}  // namespace

TEST_CASE("edge_to_backend_ops: dynamic_batch's _operator.mul becomes executorch_prim.mul.Scalar") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  auto run = run_passes(ep, {"edge_to_backend_ops"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  const Node* mul = ep.graph().find_node("mul");
  REQUIRE(mul);
  CHECK(mul->target().str() == "torch.ops.executorch_prim.mul.Scalar");
  REQUIRE(mul->inputs().size() == 2);
  CHECK(mul->inputs()[0].name == "a");
  CHECK(mul->inputs()[1].name == "b");
  CHECK(print_graph(ep.graph()).find("  %mul = executorch_prim.mul.Scalar(%sym_size_int_1, 4)\n") != std::string::npos);
  CHECK(run.report.passes[0].stats.at("ops_replaced") == 1);
}

TEST_CASE("edge_to_backend_ops: the whole mapping table - getitem and unknown callables stay") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4});
  ExportedProgram& p = b.program();
  Graph& g = p.graph();
  g.append(Node(OpTarget("torch.ops.aten.sym_size.int"), {positional("self", arg_tensor(x)), positional("dim", arg_int(0))},
                {arg_sym_int("s")}, "s"));
  g.set_sym_int("s", SymInt(SymExpr{"s0", SymExprHint::of_int(4)}));
  const char* binary[] = {"_operator.add", "_operator.sub", "_operator.mul", "_operator.floordiv", "_operator.truediv",
                          "_operator.eq", "_operator.gt", "_operator.lt", "_operator.ge", "_operator.le",
                          "_operator.mod", "torch.sym_max", "torch.sym_min"};
  const char* unary[] = {"_operator.neg", "math.ceil", "math.trunc", "builtins.round", "torch.sym_float",
                         "torch.sym_int", "torch.sym_not"};
  int i = 0;
  for (const char* t : binary) sym_call(g, t, {sym("s"), lit(2)}, "b" + std::to_string(i++));
  for (const char* t : unary) sym_call(g, t, {sym("s")}, "u" + std::to_string(i++));
  sym_call(g, "torch.sym_ite", {sym("b5"), sym("s"), lit(1)}, "ite");
  sym_call(g, "_operator.pow", {sym("s"), lit(2)}, "pw");
  b.output(x);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"edge_to_backend_ops"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %s = aten.sym_size.int(%x, 0)\n"
        "  %b0 = executorch_prim.add.Scalar(%s, 2)\n"
        "  %b1 = executorch_prim.sub.Scalar(%s, 2)\n"
        "  %b2 = executorch_prim.mul.Scalar(%s, 2)\n"
        "  %b3 = executorch_prim.floordiv.Scalar(%s, 2)\n"
        "  %b4 = executorch_prim.truediv.Scalar(%s, 2)\n"
        "  %b5 = executorch_prim.eq.Scalar(%s, 2)\n"
        "  %b6 = executorch_prim.gt.Scalar(%s, 2)\n"
        "  %b7 = executorch_prim.lt.Scalar(%s, 2)\n"
        "  %b8 = executorch_prim.ge.Scalar(%s, 2)\n"
        "  %b9 = executorch_prim.le.Scalar(%s, 2)\n"
        "  %b10 = executorch_prim.mod.Scalar(%s, 2)\n"
        "  %b11 = executorch_prim.sym_max.Scalar(%s, 2)\n"
        "  %b12 = executorch_prim.sym_min.Scalar(%s, 2)\n"
        "  %u13 = executorch_prim.neg.Scalar(%s)\n"
        "  %u14 = executorch_prim.ceil.Scalar(%s)\n"
        "  %u15 = executorch_prim.trunc.Scalar(%s)\n"
        "  %u16 = executorch_prim.round.Scalar(%s)\n"
        "  %u17 = executorch_prim.sym_float.Scalar(%s)\n"
        "  %u18 = executorch_prim.sym_int.Scalar(%s)\n"
        "  %u19 = executorch_prim.sym_not.Scalar(%s)\n"
        "  %ite = executorch_prim.sym_ite.Scalar(%b5, %s, 1)\n"
        "  %pw = _operator.pow(%s, 2)\n"
        "  return (%x)\n");
  CHECK(run.report.passes[0].stats.at("ops_replaced") == 21);
  const Node* ite = ep.graph().find_node("ite");
  CHECK(ite->inputs()[0].name == "b");
  CHECK(ite->inputs()[1].name == "t");
  CHECK(ite->inputs()[2].name == "f");
}

TEST_CASE("edge_to_backend_ops: wrong arity is PASS_FAILED at the node") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4});
  Graph& g = b.program().graph();
  g.append(Node(OpTarget("torch.ops.aten.sym_size.int"), {positional("self", arg_tensor(x)), positional("dim", arg_int(0))},
                {arg_sym_int("s")}, "s"));
  g.set_sym_int("s", SymInt(SymExpr{"s0", SymExprHint::of_int(4)}));
  sym_call(g, "_operator.add", {sym("s")}, "bad");
  b.output(x);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"edge_to_backend_ops"});
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::PASS_FAILED);
  CHECK(run.status.error().where.node == std::optional<std::string>("bad"));
}
