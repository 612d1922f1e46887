#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

TEST_CASE("prune_empty_tensors: zero-element cat inputs are dropped") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto e = b.input("e", ScalarType::Float, {2, 0});
  auto c = b.call("aten.cat.default", {arg_tensors({x, e, x}), arg_int(1)}, {ScalarType::Float, {2, 6}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "prune_empty_tensors");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("inputs_pruned") == 1);
  CHECK(print_graph(ep.graph()) ==
        "graph(%x, %e):\n"
        "  %cat = aten.cat.default([%x, %x], 1)\n"
        "  return (%cat)\n");
}

TEST_CASE("prune_empty_tensors: an all-empty cat becomes full(shape, 0, dtype)") {
  ProgramBuilder b;
  auto e = b.input("e", ScalarType::Long, {0, 4});
  auto c = b.call("aten.cat.default", {arg_tensors({e, e})}, {ScalarType::Long, {0, 4}});
  auto n = b.call("aten.neg.default", {arg_tensor(c)}, {ScalarType::Long, {0, 4}});
  b.output(n);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "prune_empty_tensors");
  REQUIRE(run.status.ok());
  CHECK(run.report.passes[0].stats.at("cats_replaced") == 1);
  CHECK(print_graph(ep.graph(), {true}) ==
        "graph(%e: int64[0, 4]):\n"
        "  %full: int64[0, 4] = aten.full.default([0, 4], 0, dtype=torch.int64)\n"
        "  %neg: int64[0, 4] = aten.neg.default(%full)\n"
        "  return (%neg)\n");
}

TEST_CASE("prune_empty_tensors: no empty input, no change") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto c = b.call("aten.cat.default", {arg_tensors({x, x})}, {ScalarType::Float, {4, 3}});
  b.output(c);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "prune_empty_tensors");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
}

TEST_CASE("prune_empty_tensors: ends with dead-code elimination, as ExecuTorch's pass does") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  b.call("aten.neg.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  b.output(x);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "prune_empty_tensors");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("nodes_removed") == 1);
  CHECK(print_graph(ep.graph()) == "graph(%x):\n  return (%x)\n");
}
