// to_out_variant: functional ops -> out variants with memory.alloc outputs (§4.1–§4.3).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

TEST_CASE("to_out_variant: native_layer_norm (3 outs) from the multi_output fixture") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/multi_output/models/model.json");
  auto run = run_passes(ep, {"spec_prop", "to_out_variant"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%p_weight, %p_bias, %x):\n"
        "  %alloc = memory.alloc([2, 3, 8], torch.float32)\n"
        "  %alloc_1 = memory.alloc([2, 3, 1], torch.float32)\n"
        "  %alloc_2 = memory.alloc([2, 3, 1], torch.float32)\n"
        "  %getitem, %getitem_1, %getitem_2 = aten.native_layer_norm.out(%x, [8], %p_weight, %p_bias, 1e-05, "
        "out0=%alloc, out1=%alloc_1, out2=%alloc_2)  # native_layer_norm\n"
        "  %alloc_3 = memory.alloc([2, 3, 8], torch.float32)\n"
        "  %relu = aten.relu.out(%getitem, out=%alloc_3)\n"
        "  return (%relu, %getitem_1, %getitem_2)\n");
  CHECK(run.state.specs.get("alloc") == run.state.specs.get("getitem"));
  CHECK(run.state.specs.get("alloc_1") == run.state.specs.get("getitem_1"));
  CHECK(run.state.specs.get("alloc_2") == run.state.specs.get("getitem_2"));
  CHECK(run.state.specs.get("alloc_3") == run.state.specs.get("relu"));
  CHECK(*ep.graph().tensor_meta("alloc_1") == *ep.graph().tensor_meta("getitem_1"));
  CHECK(run.report.passes[1].stats.at("out_variants") == 2);
  CHECK(run.report.passes[1].stats.at("allocs") == 4);
}

TEST_CASE("to_out_variant: max_pool2d_with_indices gets out and indices allocs - planning counts getitem slots") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 2, 4, 4});
  auto outs = b.call_multi("aten.max_pool2d_with_indices.default", {arg_tensor(x), arg_ints({2, 2}), arg_ints({2, 2})},
                           {{ScalarType::Float, {1, 2, 2, 2}}, {ScalarType::Long, {1, 2, 2, 2}}},
                           {"getitem", "getitem_1"});
  auto r = b.call("aten.relu.default", {arg_tensor(outs[0])}, {ScalarType::Float, {1, 2, 2, 2}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %alloc = memory.alloc([1, 2, 2, 2], torch.float32)\n"
        "  %alloc_1 = memory.alloc([1, 2, 2, 2], torch.int64)\n"
        "  %getitem, %getitem_1 = aten.max_pool2d_with_indices.out(%x, [2, 2], [2, 2], out=%alloc, indices=%alloc_1)"
        "  # max_pool2d_with_indices\n"
        "  %alloc_2 = memory.alloc([1, 2, 2, 2], torch.float32)\n"
        "  %relu = aten.relu.out(%getitem, out=%alloc_2)\n"
        "  return (%relu)\n");
  // Indices: 0 x, 1 alloc, 2 alloc_1, 3 max_pool, 4 getitem (the only used result), 5 alloc_2, 6 relu, 7 output.
  // The unused indices live until the getitem of its node (ExecuTorch's getitem names the whole node).
  CHECK(describe(run.state, "x") == "float32[1, 2, 4, 4] dim_order=[0, 1, 2, 3] static mem=1@0 life=[0,3]");
  CHECK(describe(run.state, "alloc") == "float32[1, 2, 2, 2] dim_order=[0, 1, 2, 3] static mem=1@192 life=[1,6]");
  CHECK(describe(run.state, "alloc_1") == "int64[1, 2, 2, 2] dim_order=[0, 1, 2, 3] static mem=1@128 life=[2,4]");
  CHECK(describe(run.state, "alloc_2") == "float32[1, 2, 2, 2] dim_order=[0, 1, 2, 3] static mem=1@0 life=[5,7]");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 224});
}

TEST_CASE("to_out_variant: split_copy.Tensor writes a Tensor list out through one list alloc") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4, 3});
  Graph& g = b.program().graph();
  g.append(Node(OpTarget("torch.ops.aten.split_copy.Tensor"),
                {positional("self", arg_tensor(x)), positional("split_size", arg_int(2))},
                {arg_tensors({"split_0", "split_1"})}, "split_copy"));
  g.set_tensor_meta("split_0", testing::make_meta({ScalarType::Float, {2, 3}}));
  g.set_tensor_meta("split_1", testing::make_meta({ScalarType::Float, {2, 3}}));
  auto r = b.call("aten.add.Tensor", {arg_tensor("split_0"), arg_tensor("split_1")}, {ScalarType::Float, {2, 3}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  [%alloc_0, %alloc_1] = memory.alloc([[2, 3], [2, 3]], torch.float32)  # alloc\n"
        "  [%split_0, %split_1] = aten.split_copy.Tensor_out(%x, 2, out=[%alloc_0, %alloc_1])  # split_copy\n"
        "  %alloc_2 = memory.alloc([2, 3], torch.float32)\n"
        "  %add = aten.add.out(%split_0, %split_1, out=%alloc_2)\n"
        "  return (%add)\n");
  CHECK(run.state.specs.get("alloc_0") == run.state.specs.get("split_0"));
  CHECK(run.state.specs.get("alloc_1") == run.state.specs.get("split_1"));
  // 0 x, 1 alloc (list), 2 split, 3-4 getitems, 5 alloc_2, 6 add, 7 output.
  CHECK(describe(run.state, "split_0") == "float32[2, 3] dim_order=[0, 1] static mem=1@80 life=[1,6]");
  CHECK(describe(run.state, "split_1") == "float32[2, 3] dim_order=[0, 1] static mem=1@48 life=[1,6]");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 112});
}

TEST_CASE("to_out_variant: keyword arguments the out variant lacks are dropped (_to_dim_order_copy)") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.call("dim_order_ops._to_dim_order_copy.default", {arg_tensor(x)}, {ScalarType::Half, {2, 3}},
                  {{"dtype", arg_dtype(ScalarType::Half)}, {"layout", arg_layout(Layout::Strided)},
                   {"device", arg_device(Device{})}, {"dim_order", arg_ints({0, 1})}});
  b.output(y);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"spec_prop", "to_out_variant"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %alloc = memory.alloc([2, 3], torch.float16)\n"
        "  %_to_dim_order_copy = dim_order_ops._to_dim_order_copy.out(%x, dim_order=[0, 1], out=%alloc)\n"
        "  return (%_to_dim_order_copy)\n");
}

TEST_CASE("to_out_variant: skipped nodes (in-place - symbolic - memory.view - Python callables)") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, {"spec_prop", "edge_to_backend_ops", "remove_view_copy", "to_out_variant"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(ep.graph().find_node("sym_size_int_1")->target().short_name() == "aten.sym_size.int");
  CHECK(ep.graph().find_node("mul")->target().short_name() == "executorch_prim.mul.Scalar");
  CHECK(ep.graph().find_node("view")->target().str() == "memory.view");
  CHECK(run.report.passes[3].stats.at("out_variants") == 3);

  ExportedProgram ep2 = testing::et::load_program("fixtures/corpus/buffer_running_sum/json/models/model.json");
  auto run2 = run_passes(ep2, {"insert_write_back_for_buffers", "spec_prop", "to_out_variant"});
  REQUIRE(run2.status.ok());
  CHECK(ep2.graph().find_node("copy_")->target().short_name() == "aten.copy_.default");
  // Running it again changes nothing: out variants are kept.
  const std::string before = print_graph(ep2.graph());
  auto again = run_passes(ep2, {"to_out_variant"});
  REQUIRE(again.status.ok());
  CHECK(print_graph(ep2.graph()) == before);
  CHECK_FALSE(again.report.passes[0].changed);
}

TEST_CASE("to_out_variant: every op without an out variant is named in one UNSUPPORTED_OPERATOR error") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  auto c1 = b.call("aten._cast_Float.default", {arg_tensor(x)}, {ScalarType::Float, {2}});
  auto c2 = b.call("aten._cast_Float.default", {arg_tensor(c1)}, {ScalarType::Float, {2}});
  auto c3 = b.call("mylib.frobnicate.default", {arg_tensor(c2)}, {ScalarType::Float, {2}});
  auto r = b.call("aten.relu.default", {arg_tensor(c3)}, {ScalarType::Float, {2}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"to_out_variant"});
  REQUIRE_FALSE(run.status.ok());
  const Error& e = run.status.error();
  CHECK(e.code == ErrorCode::UNSUPPORTED_OPERATOR);
  CHECK(e.message ==
        "missing out variants: aten::_cast_Float (%_cast_Float, %_cast_Float_1); mylib.frobnicate.default "
        "(%frobnicate). ExecuTorch's runtime only runs out-variant kernels (ToOutVarPass); decompose these ops or "
        "add kernels");
  CHECK(e.where.node == std::optional<std::string>("_cast_Float"));
  CHECK(e.where.pass == std::optional<std::string>("to_out_variant"));
  REQUIRE(e.notes.size() == 2);
  CHECK(e.notes[0] == "aten::_cast_Float: no similar supported operator");
  CHECK(e.notes[1] == "mylib.frobnicate.default: no similar supported operator");
}

TEST_CASE("to_out_variant: portable_only rejects kernels outside the portable library") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 2, 8});
  auto p = b.call("aten.avg_pool1d.default", {arg_tensor(x), arg_ints({2})}, {ScalarType::Float, {1, 2, 4}});
  auto r = b.call("aten.relu.default", {arg_tensor(p)}, {ScalarType::Float, {1, 2, 4}});
  b.output(r);
  ExportedProgram ep = b.build();
  ExportedProgram copy = ep;
  passes::PipelineOptions options;
  options.portable_only = true;
  auto run = run_passes(ep, {"to_out_variant"}, options);
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::UNSUPPORTED_OPERATOR);
  CHECK(run.status.error().message ==
        "operators outside ExecuTorch's portable kernel library (portable_only): aten::avg_pool1d.out (%avg_pool1d)");
  CHECK(run.status.error().where.node == std::optional<std::string>("avg_pool1d"));
  // Without the option the same program converts.
  auto ok = run_passes(copy, {"to_out_variant"});
  CHECK(ok.status.ok());
}

TEST_CASE("to_out_variant: a misspelled op gets the nearest supported ops as a note") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  b.output(b.call("aten.rellu.default", {arg_tensor(x)}, {ScalarType::Float, {2}}));
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"to_out_variant"});
  REQUIRE_FALSE(run.status.ok());
  REQUIRE(run.status.error().notes.size() == 1);
  CHECK(run.status.error().notes[0].rfind("aten.rellu.default: nearest supported: aten::relu", 0) == 0);
}

TEST_CASE("to_out_variant: an existing out variant whose out is a single-use non-alloc tensor gets an alloc") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2});
  auto e = b.call("aten.empty.memory_format", {arg_ints({2})}, {ScalarType::Float, {2}},
                  {{"dtype", arg_dtype(ScalarType::Float)}});
  auto r = b.call("aten.relu.out", {arg_tensor(x)}, {ScalarType::Float, {2}}, {{"out", arg_tensor(e)}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"to_out_variant"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %alloc_1 = memory.alloc([2], torch.float32)\n"
        "  %relu = aten.relu.out(%x, out=%alloc_1)\n"
        "  return (%relu)\n");
  // empty.memory_format became empty.out (alloc), then lost its only use to a fresh alloc.
  CHECK(run.report.passes[0].stats.at("allocs") == 2);
}

TEST_CASE("to_out_variant: portable_only accepts copy_ - the prim ops and the usual out variants") {
  for (const char* rel : {"fixtures/corpus/buffer_running_sum/json/models/model.json",
                          "fixtures/programs/dynamic_batch/models/model.json",
                          "fixtures/programs/small_cnn/models/model.json"}) {
    CAPTURE(rel);
    ExportedProgram ep = testing::et::load_program(rel);
    testing::et::to_edge_lite(ep);
    passes::PipelineOptions options;
    options.portable_only = true;
    auto run = run_passes(ep, testing::et::to_executorch_passes(), options);
    CHECK_MESSAGE(run.status.ok(), run.status.error().to_string());
  }
}
