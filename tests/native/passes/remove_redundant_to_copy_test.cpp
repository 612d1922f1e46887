#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

TEST_CASE("remove_redundant_to_copy: a _to_copy that changes nothing is removed, real casts stay") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto xt = b.input("xt", ScalarType::Float, {2, 3});
  auto same = b.call("aten._to_copy.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}},
                     {{"dtype", arg_dtype(ScalarType::Float)}});
  auto half = b.call("aten._to_copy.default", {arg_tensor(same)}, {ScalarType::Half, {2, 3}},
                     {{"dtype", arg_dtype(ScalarType::Half)}});
  auto relayout = b.call("aten._to_copy.default", {arg_tensor(xt)}, {ScalarType::Float, {2, 3}},
                         {{"memory_format", arg_memory_format(MemoryFormat::ContiguousFormat)}});
  b.output(half);
  b.output(relayout);
  ExportedProgram ep = b.build();
  TensorMeta m = *ep.graph().tensor_meta(xt);  // xt is transposed in memory: the relayout copy is real
  m.strides = {SymInt(int64_t{1}), SymInt(int64_t{2})};
  ep.graph().set_tensor_meta(xt, m);
  auto run = run_pass(ep, "remove_redundant_to_copy");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("to_copies_removed") == 1);
  CHECK(print_graph(ep.graph()) ==
        "graph(%x, %xt):\n"
        "  %_to_copy_1 = aten._to_copy.default(%x, dtype=torch.float16)\n"
        "  %_to_copy_2 = aten._to_copy.default(%xt, memory_format=torch.contiguous_format)\n"
        "  return (%_to_copy_1, %_to_copy_2)\n");
}

TEST_CASE("remove_redundant_to_copy: nothing redundant, no change") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto half = b.call("aten._to_copy.default", {arg_tensor(x)}, {ScalarType::Half, {2, 3}},
                     {{"dtype", arg_dtype(ScalarType::Half)}});
  b.output(half);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "remove_redundant_to_copy");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
}
