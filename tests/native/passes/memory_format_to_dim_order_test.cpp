#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;
using pteforge::testing::set_strides;
using pteforge::testing::strides_of;

TEST_CASE("memory_format_to_dim_order: _to_copy, clone and empty become dim-order ops") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 3, 4, 5});
  auto cl = b.input("cl", ScalarType::Float, {1, 3, 4, 5});  // channels-last in memory
  auto h = b.call("aten._to_copy.default", {arg_tensor(x)}, {ScalarType::Half, {1, 3, 4, 5}},
                  {{"dtype", arg_dtype(ScalarType::Half)}});
  auto c1 = b.call("aten.clone.default", {arg_tensor(h)}, {ScalarType::Half, {1, 3, 4, 5}},
                   {{"memory_format", arg_memory_format(MemoryFormat::ChannelsLast)}});
  auto c2 = b.call("aten.clone.default", {arg_tensor(cl)}, {ScalarType::Float, {1, 3, 4, 5}});
  auto c3 = b.call("aten.clone.default", {arg_tensor(cl)}, {ScalarType::Float, {1, 3, 4, 5}},
                   {{"memory_format", arg_memory_format(MemoryFormat::ContiguousFormat)}});
  auto e = b.call("aten.empty.memory_format", {arg_ints({2, 3})}, {ScalarType::Float, {2, 3}},
                  {{"dtype", arg_dtype(ScalarType::Float)}, {"memory_format", arg_none()}});
  b.output(c1);
  b.output(c2);
  b.output(c3);
  b.output(e);
  ExportedProgram ep = b.build();
  set_strides(ep, cl, {60, 1, 15, 3});
  set_strides(ep, c2, {60, 1, 15, 3});

  auto run = run_pass(ep, "memory_format_to_dim_order");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("ops_replaced") == 5);
  CHECK(print_graph(ep.graph()) ==
        "graph(%x, %cl):\n"
        "  %_to_copy = dim_order_ops._to_dim_order_copy.default(%x, dtype=torch.float16, dim_order=[0, 1, 2, "
        "3])\n"
        "  %clone = dim_order_ops._clone_dim_order.default(%_to_copy, dim_order=[0, 2, 3, 1])\n"
        "  %clone_1 = dim_order_ops._clone_dim_order.default(%cl, dim_order=[0, 2, 3, 1])\n"
        "  %clone_2 = dim_order_ops._clone_dim_order.default(%cl, dim_order=[0, 1, 2, 3])\n"
        "  %empty = dim_order_ops._empty_dim_order.default([2, 3], dtype=torch.float32, dim_order=[0, 1])\n"
        "  return (%clone, %clone_1, %clone_2, %empty)\n");
  // Results are laid out as their dim order says.
  CHECK(strides_of(ep, c1) == std::vector<int64_t>{60, 1, 15, 3});
  CHECK(strides_of(ep, c2) == std::vector<int64_t>{60, 1, 15, 3});
  CHECK(strides_of(ep, c3) == std::vector<int64_t>{60, 20, 5, 1});
}

TEST_CASE("memory_format_to_dim_order: no memory-format op, no change") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  b.output(r);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep, {true});
  auto run = run_pass(ep, "memory_format_to_dim_order");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep, {true}) == before);
}

TEST_CASE("memory_format_to_dim_order: layouts without a dim-order op are errors naming the node") {
  SUBCASE("channels_last on rank 3") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 3, 4});
    auto c = b.call("aten.clone.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3, 4}},
                    {{"memory_format", arg_memory_format(MemoryFormat::ChannelsLast)}});
    b.output(c);
    ExportedProgram ep = b.build();
    auto run = run_pass(ep, "memory_format_to_dim_order");
    REQUIRE_FALSE(run.status.ok());
    CHECK(run.status.error().code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(run.status.error().where.node == "clone");
    CHECK(run.status.error().message == "torch.channels_last needs a rank-4 tensor, found rank 3");
  }
  SUBCASE("preserve_format of a transposed input") {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 3});
    auto c = b.call("aten._to_copy.default", {arg_tensor(x)}, {ScalarType::Half, {2, 3}},
                    {{"dtype", arg_dtype(ScalarType::Half)}});
    b.output(c);
    ExportedProgram ep = b.build();
    set_strides(ep, x, {1, 2});
    auto run = run_pass(ep, "memory_format_to_dim_order");
    REQUIRE_FALSE(run.status.ok());
    CHECK(run.status.error().code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(run.status.error().where.node == "_to_copy");
    CHECK(run.status.error().message == "dim order [1, 0] of %x is neither contiguous nor channels-last");
  }
}
