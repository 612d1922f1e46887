// insert_write_back_for_buffers: mutations become explicit copy_ nodes (§3.11).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

TEST_CASE("insert_write_back_for_buffers: buffer_running_sum corpus case") {
  ExportedProgram ep = testing::et::load_program("fixtures/corpus/buffer_running_sum/json/models/model.json");
  auto run = run_passes(ep, {"insert_write_back_for_buffers"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_exported_program(ep) ==
        "# input buffer %b_total <- total\n"
        "# input user_input %x\n"
        "# output buffer_mutation %copy_ -> total\n"
        "# output user_output %mul\n"
        "graph(%b_total, %x):\n"
        "  %add = aten.add.Tensor(%b_total, %x)\n"
        "  %mul = aten.mul.Tensor(%add, 2)\n"
        "  %copy_ = aten.copy_.default(%b_total, %add)\n"
        "  return (%copy_, %mul)\n");
  CHECK(run.report.passes[0].stats.at("copies_inserted") == 1);
  CHECK(*ep.graph().tensor_meta("copy_") == *ep.graph().tensor_meta("b_total"));
}

TEST_CASE("insert_write_back_for_buffers: buffer_mutation fixture - then the whole group plans the buffers for the whole method") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/buffer_mutation/models/model.json");
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_exported_program(ep) ==
        "# input buffer %b_running_mean <- running_mean\n"
        "# input buffer %b_steps <- steps\n"
        "# input user_input %x\n"
        "# output buffer_mutation %copy_ -> running_mean\n"
        "# output buffer_mutation %copy__1 -> steps\n"
        "# output user_output %sub\n"
        "graph(%b_running_mean, %b_steps, %x):\n"
        "  %alloc = memory.alloc([4], torch.float32)\n"
        "  %mul = aten.mul.out(%b_running_mean, 0.9, out=%alloc)\n"
        "  %alloc_1 = memory.alloc([4], torch.float32)\n"
        "  %mean = aten.mean.out(%x, [0], out=%alloc_1)\n"
        "  %alloc_2 = memory.alloc([4], torch.float32)\n"
        "  %mul_1 = aten.mul.out(%mean, 0.1, out=%alloc_2)\n"
        "  %alloc_3 = memory.alloc([4], torch.float32)\n"
        "  %add = aten.add.out(%mul, %mul_1, out=%alloc_3)\n"
        "  %alloc_4 = memory.alloc([], torch.int64)\n"
        "  %add_1 = aten.add.out(%b_steps, 1, out=%alloc_4)\n"
        "  %alloc_5 = memory.alloc([3, 4], torch.float32)\n"
        "  %sub = aten.sub.out(%x, %add, out=%alloc_5)\n"
        "  %copy_ = aten.copy_.default(%b_running_mean, %add)\n"
        "  %copy__1 = aten.copy_.default(%b_steps, %add_1)\n"
        "  return (%copy_, %copy__1, %sub)\n");
  // 3 placeholders + 14 nodes + output: the mutable buffers live over [0, 17].
  CHECK(describe(run.state, "b_running_mean") == "float32[4] dim_order=[0] static mem=1@144 life=[0,17] mutable");
  CHECK(describe(run.state, "b_steps") == "int64[] dim_order=[] static mem=1@128 life=[0,17] mutable");
  // The copy_ result is the buffer (one spec object, one emitted value).
  CHECK(run.state.specs.get("copy_") == run.state.specs.get("b_running_mean"));
  CHECK(run.state.specs.get("copy__1") == run.state.specs.get("b_steps"));
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 160});
}

TEST_CASE("insert_write_back_for_buffers: user-input mutation - outputs reordered with the copies first") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_tensor(x)}, {ScalarType::Float, {2}});
  auto x2 = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(x)}, {ScalarType::Float, {2}});
  b.output(y);
  b.output(x2, OutputKind::UserInputMutation, "x");
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"insert_write_back_for_buffers"});
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) ==
        "# input user_input %x\n"
        "# output user_input_mutation %copy_ -> x\n"
        "# output user_output %mul\n"
        "graph(%x):\n"
        "  %mul = aten.mul.Tensor(%x, %x)\n"
        "  %add = aten.add.Tensor(%x, %x)\n"
        "  %copy_ = aten.copy_.default(%x, %add)\n"
        "  return (%copy_, %mul)\n");
}

TEST_CASE("insert_write_back_for_buffers: no copy when the output is the buffer through in-place ops") {
  ProgramBuilder b;
  auto buf = b.buffer("b_acc", "acc", ScalarType::Float, {2});
  auto x = b.input("x", ScalarType::Float, {2});
  auto a = b.call("aten.add_.Tensor", {arg_tensor(buf), arg_tensor(x)}, {ScalarType::Float, {2}});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(a), arg_tensor(x)}, {ScalarType::Float, {2}});
  b.output(a, OutputKind::BufferMutation, "acc");
  b.output(y);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_passes(ep, {"insert_write_back_for_buffers"});
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) == before);
  CHECK_FALSE(run.report.passes[0].changed);
}

TEST_CASE("insert_write_back_for_buffers: nothing to do without mutations") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/ref_add/models/model.json");
  const std::string before = print_exported_program(ep);
  auto run = run_passes(ep, {"insert_write_back_for_buffers"});
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) == before);
  CHECK_FALSE(run.report.passes[0].changed);
}
