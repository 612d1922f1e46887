// remove_graph_asserts: assertion and range-constraint nodes go, with the
// code only they used (§1.3 B6).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

TEST_CASE("remove_graph_asserts: every assert kind is removed - then dead code") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4});
  Graph& g = b.program().graph();
  g.append(Node(OpTarget("torch.ops.aten.sym_size.int"), {positional("self", arg_tensor(x)), positional("dim", arg_int(0))},
                {arg_sym_int("sym_size_int")}, "sym_size_int"));
  g.set_sym_int("sym_size_int", SymInt(SymExpr{"s0", SymExprHint::of_int(4)}));
  g.append(Node(OpTarget("torch.ops.executorch_prim.ge.Scalar"),
                {positional("a", arg_sym_int("sym_size_int")), positional("b", arg_int(2))}, {arg_sym_bool("ge")}, "ge"));
  g.set_sym_bool("ge", SymBool(SymExpr{"s0 >= 2", SymExprHint::of_bool(true)}));
  g.append(Node(OpTarget("torch.ops.aten._assert_scalar.default"),
                {positional("self", arg_sym_bool("ge")), positional("assert_msg", arg_string("s0 >= 2"))}, {},
                "_assert_scalar"));
  g.append(Node(OpTarget("torch.ops.aten.sym_constrain_range_for_size.default"),
                {positional("size", arg_sym_int("sym_size_int")), keyword("min", arg_int(2))}, {},
                "sym_constrain_range_for_size"));
  g.append(Node(OpTarget("torch.ops.aten._assert_tensor_metadata.default"),
                {positional("a", arg_tensor(x)), keyword("dtype", arg_dtype(ScalarType::Float))}, {},
                "_assert_tensor_metadata"));
  g.append(Node(OpTarget("torch.ops.aten._assert_async.msg"),
                {positional("self", arg_tensor(x)), positional("assert_msg", arg_string("ok"))}, {}, "_assert_async"));
  g.append(Node(OpTarget("torch.ops.aten.sym_constrain_range.default"),
                {positional("size", arg_sym_int("sym_size_int")), keyword("max", arg_int(9))}, {},
                "sym_constrain_range"));
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {4}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"remove_graph_asserts"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %relu = aten.relu.default(%x)\n"
        "  return (%relu)\n");
  CHECK(run.report.passes[0].stats.at("asserts_removed") == 5);
  CHECK(run.report.passes[0].stats.at("nodes_removed") == 2);
  CHECK(run.report.passes[0].changed);
}

TEST_CASE("remove_graph_asserts: nothing to remove") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/ref_add/models/model.json");
  const std::string before = print_graph(ep.graph());
  auto run = run_passes(ep, {"remove_graph_asserts"});
  REQUIRE(run.status.ok());
  CHECK(print_graph(ep.graph()) == before);
  CHECK_FALSE(run.report.passes[0].changed);
}
