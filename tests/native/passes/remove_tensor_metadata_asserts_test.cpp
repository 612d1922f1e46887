#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

namespace {

/// Appends a node that defines nothing (like _assert_tensor_metadata).
void append_void(ExportedProgram& ep, const std::string& target, std::vector<NamedArgument> inputs,
                 const std::string& name) {
  ep.graph().append(Node(OpTarget("torch.ops." + target), std::move(inputs), {}, name));
}

}  // namespace

TEST_CASE("remove_tensor_metadata_asserts: drops the asserts and what only they used") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto n = b.call("aten.neg.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  b.output(r);
  ExportedProgram ep = b.build();
  append_void(ep, "aten._assert_tensor_metadata.default",
              {positional("a", arg_tensor(n)), keyword("dtype", arg_dtype(ScalarType::Float))},
              "_assert_tensor_metadata");
  append_void(ep, "aten._assert_tensor_metadata.default", {positional("a", arg_tensor(x))},
              "_assert_tensor_metadata_1");
  REQUIRE(print_graph(ep.graph()) ==
          "graph(%x):\n"
          "  %neg = aten.neg.default(%x)\n"
          "  %relu = aten.relu.default(%x)\n"
          "  aten._assert_tensor_metadata.default(%neg, dtype=torch.float32)  # _assert_tensor_metadata\n"
          "  aten._assert_tensor_metadata.default(%x)  # _assert_tensor_metadata_1\n"
          "  return (%relu)\n");
  auto run = run_pass(ep, "remove_tensor_metadata_asserts");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("asserts_removed") == 2);
  CHECK(run.report.passes[0].stats.at("nodes_removed") == 1);  // %neg became dead
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %relu = aten.relu.default(%x)\n"
        "  return (%relu)\n");
}

TEST_CASE("remove_tensor_metadata_asserts: no assert, no change (dead code stays)") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  b.call("aten.neg.default", {arg_tensor(x)}, {ScalarType::Float, {2}});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2}});
  b.output(r);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "remove_tensor_metadata_asserts");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
}
