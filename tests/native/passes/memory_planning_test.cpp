// memory_planning: exactness against the ExecuTorch reference files
// (executorch-pipeline.md §7: arduino_add_model, module_linear, add), the
// options and preconditions (the full pipeline on every fixture is in
// to_executorch_pipeline_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"
#include "passes/memory_plan/check.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;
using pteforge::testing::et::to_executorch_passes;

namespace {

/// x + 1.0 after to_edge (§7.1): the lifted 0-d constant sits before x.
ExportedProgram arduino_add_edge() {
  ProgramBuilder b;
  auto c = b.buffer("_lifted_tensor_constant0", "_lifted_tensor_constant0", ScalarType::Float, {});
  auto x = b.input("x", ScalarType::Float, {3});
  auto add = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(c)}, {ScalarType::Float, {3}});
  b.output(add);
  return b.build();
}

}  // namespace

TEST_CASE("memory_planning: arduino_add_model.pte (section 7.1) exactly") {
  ExportedProgram ep = arduino_add_edge();
  auto run = run_passes(ep, to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%_lifted_tensor_constant0, %x):\n"
        "  %alloc = memory.alloc([3], torch.float32)\n"
        "  %add = aten.add.out(%x, %_lifted_tensor_constant0, out=%alloc)\n"
        "  return (%add)\n");
  // value 0: FLOAT [] dim_order [] data_buffer_idx 1 (const)
  CHECK(describe(run.state, "_lifted_tensor_constant0") == "float32[] dim_order=[] static unplanned life=[0,3] const");
  // value 1: x FLOAT [3] at {1, 16}; value 2: the alloc at {1, 0}
  CHECK(describe(run.state, "x") == "float32[3] dim_order=[0] static mem=1@16 life=[0,3]");
  CHECK(describe(run.state, "alloc") == "float32[3] dim_order=[0] static mem=1@0 life=[2,4]");
  CHECK(run.state.specs.get("alloc") == run.state.specs.get("add"));
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 32});
  CHECK(run.state.planning_algorithm == "greedy");
  CHECK(run.state.live_bytes_lower_bound == std::vector<uint64_t>{0, 32});
}

TEST_CASE("memory_planning: module_linear_no_constant_segment.pte (section 7.3) from the ref_module_linear fixture") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/ref_module_linear/models/model.json");
  auto run = run_passes(ep, to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%c_a, %c_b, %x):\n"
        "  %alloc = memory.alloc([2, 2], torch.float32)\n"
        "  %mul = aten.mul.out(%c_a, %x, out=%alloc)\n"
        "  %alloc_1 = memory.alloc([2, 2], torch.float32)\n"
        "  %add = aten.add.out(%mul, %c_b, out=%alloc_1)\n"
        "  return (%add)\n");
  // Nodes: a0 b1 x2 alloc3 mul4 alloc5 add6 out7; x=0, t1=16, t2=0, size 32.
  const std::string x = ep.signature().input_specs[2].arg.tensor_name();
  CHECK(describe(run.state, ep.signature().input_specs[0].arg.tensor_name()) ==
        "float32[2, 2] dim_order=[0, 1] static unplanned life=[0,4] const");
  CHECK(describe(run.state, ep.signature().input_specs[1].arg.tensor_name()) ==
        "float32[2, 2] dim_order=[0, 1] static unplanned life=[0,6] const");
  CHECK(describe(run.state, x) == "float32[2, 2] dim_order=[0, 1] static mem=1@0 life=[0,4]");
  CHECK(describe(run.state, "alloc") == "float32[2, 2] dim_order=[0, 1] static mem=1@16 life=[3,6]");
  CHECK(describe(run.state, "alloc_1") == "float32[2, 2] dim_order=[0, 1] static mem=1@0 life=[5,7]");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 32});
}

TEST_CASE("memory_planning: add.pte (section 7.2) from the ref_add fixture: greedy now - naive = the old offsets") {
  for (const char* algo : {"greedy", "naive"}) {
    CAPTURE(algo);
    ExportedProgram ep = testing::et::load_program("fixtures/programs/ref_add/models/model.json");
    passes::PipelineOptions options;
    options.memory_planning = algo;
    auto run = run_passes(ep, to_executorch_passes(), options);
    REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
    const std::string x = ep.signature().input_specs[0].arg.tensor_name();
    const std::string y = ep.signature().input_specs[1].arg.tensor_name();
    CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 48});
    CHECK(run.state.planning_algorithm == algo);
    if (std::string(algo) == "greedy") {
      // The current greedy (§7.2): out=0, y=16, x=32.
      CHECK(describe(run.state, x) == "float32[1] dim_order=[0] static mem=1@32 life=[0,3]");
      CHECK(describe(run.state, y) == "float32[1] dim_order=[0] static mem=1@16 life=[0,3]");
      CHECK(describe(run.state, "alloc") == "float32[1] dim_order=[0] static mem=1@0 life=[2,4]");
    } else {
      // The file's own offsets (pre-2025 planner, collection order): x=0, y=16, out=32.
      CHECK(describe(run.state, x) == "float32[1] dim_order=[0] static mem=1@0 life=[0,3]");
      CHECK(describe(run.state, y) == "float32[1] dim_order=[0] static mem=1@16 life=[0,3]");
      CHECK(describe(run.state, "alloc") == "float32[1] dim_order=[0] static mem=1@32 life=[2,4]");
    }
  }
}

TEST_CASE("memory_planning: alloc_graph_input / alloc_graph_output off leave the I/O unplanned") {
  struct Case {
    bool in, out;
    const char* x;
    const char* alloc;
    std::vector<uint64_t> sizes;
  };
  const Case cases[] = {
      {false, true, "float32[3] dim_order=[0] static unplanned life=[0,3]",
       "float32[3] dim_order=[0] static mem=1@0 life=[2,4]", {0, 16}},
      {true, false, "float32[3] dim_order=[0] static mem=1@0 life=[0,3]",
       "float32[3] dim_order=[0] static unplanned life=[2,4]", {0, 16}},
      {false, false, "float32[3] dim_order=[0] static unplanned life=[0,3]",
       "float32[3] dim_order=[0] static unplanned life=[2,4]", {0, 0}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.in);
    CAPTURE(c.out);
    ExportedProgram ep = arduino_add_edge();
    passes::PipelineOptions options;
    options.alloc_graph_input = c.in;
    options.alloc_graph_output = c.out;
    auto run = run_passes(ep, to_executorch_passes(), options);
    REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
    CHECK(describe(run.state, "x") == c.x);
    CHECK(describe(run.state, "alloc") == c.alloc);
    CHECK(run.state.non_const_buffer_sizes == c.sizes);
  }
}

TEST_CASE("memory_planning: algorithms by name - an unknown one is OPTION_INVALID") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/small_cnn/models/model.json");
  testing::et::to_edge_lite(ep);
  auto base = ep;
  std::map<std::string, uint64_t> arena;
  for (const char* algo : {"greedy", "naive", "best_fit", "best"}) {
    CAPTURE(algo);
    ExportedProgram p = base;
    passes::PipelineOptions options;
    options.memory_planning = algo;
    auto run = run_passes(p, to_executorch_passes(), options);
    REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
    REQUIRE(run.state.non_const_buffer_sizes.size() == 2);
    arena[algo] = run.state.non_const_buffer_sizes[1];
    CHECK(run.state.non_const_buffer_sizes[1] >= run.state.live_bytes_lower_bound[1]);
    if (std::string(algo) == "best") {
      CHECK((run.state.planning_algorithm == "greedy" || run.state.planning_algorithm == "best_fit"));
    } else {
      CHECK(run.state.planning_algorithm == algo);
    }
  }
  CHECK(arena["naive"] >= arena["greedy"]);
  CHECK(arena["best"] == std::min(arena["greedy"], arena["best_fit"]));

  ExportedProgram p = base;
  passes::PipelineOptions options;
  options.memory_planning = "bogus";
  auto run = run_passes(p, to_executorch_passes(), options);
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::OPTION_INVALID);
  CHECK(run.status.error().where.pass == std::optional<std::string>("memory_planning"));
}

TEST_CASE("memory_planning: without specs it is a precondition error - a graph without tensors plans 0 and 0") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/ref_add/models/model.json");
  auto run = run_passes(ep, {"memory_planning"});
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::PASS_PRECONDITION);

  ProgramBuilder b;
  ExportedProgram empty = b.build();
  auto run2 = run_passes(empty, {"memory_planning"});
  REQUIRE(run2.status.ok());
  CHECK(run2.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 0});
}

namespace {

/// relu(x) on float32[2, 4], for tests that edit the specs spec_prop gives x
/// and relu, then plan it with run_on_state.
ExportedProgram relu_program() {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 4});
  b.output(b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 4}}));
  return b.build();
}

}  // namespace

TEST_CASE("memory_planning: a tensor whose size in bytes overflows 64 bits is named") {
  ExportedProgram ep = relu_program();
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  // The upper bound of a dynamic size near 2^62 (what sym_shape_eval would give).
  run.state.specs.get("relu")->sizes = {int64_t{4611686018427387903}, 4};
  Status st = testing::et::run_on_state(ep, run.state, {"memory_planning"});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::PASS_FAILED);
  CHECK(
      st.error().message ==
      "tensor 'relu' cannot be planned: its size in bytes (sizes [4611686018427387903, 4], upper bounds for "
      "dynamic sizes), rounded up to the alignment, overflows 64 bits; give its symbols a smaller max");
  CHECK(st.error().where.node == std::optional<std::string>("relu"));
  // A size in bytes that fits, but not once rounded up to the alignment (16).
  run.state.specs.get("relu")->sizes = {int64_t{4611686018427387903}};
  Status rounded = testing::et::run_on_state(ep, run.state, {"memory_planning"});
  REQUIRE_FALSE(rounded.ok());
  CHECK(rounded.error().message ==
        "tensor 'relu' cannot be planned: its size in bytes (sizes [4611686018427387903], upper bounds for "
        "dynamic "
        "sizes), rounded up to the alignment, overflows 64 bits; give its symbols a smaller max");
  CHECK(rounded.error().where.node == std::optional<std::string>("relu"));
}

TEST_CASE("memory_planning: an arena whose size overflows 64 bits names its largest tensors") {
  ExportedProgram ep = relu_program();
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  // Two tensors alive together of 2^63 bytes each (dynamic upper bounds near 2^61 elements).
  run.state.specs.get("x")->sizes = {int64_t{1} << 61};
  run.state.specs.get("relu")->sizes = {int64_t{1} << 61};
  Status st = testing::et::run_on_state(ep, run.state, {"memory_planning"});
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::PASS_FAILED);
  CHECK(st.error().message ==
        "memory pool size overflows 64 bits (9223372036854775808 + 9223372036854775808)");
  REQUIRE(st.error().notes.size() == 1);
  CHECK(st.error().notes[0] ==
        "largest planned tensors: 'x' (9223372036854775808 bytes), 'relu' (9223372036854775808 bytes); give "
        "their "
        "symbols a smaller max");
}

TEST_CASE("memory_planning: only an argument naming a value as a tensor extends its lifetime") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 4});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 4}});
  b.output(b.call("aten.relu.default", {arg_tensor(r)}, {ScalarType::Float, {2, 4}}));
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  // A node at index 2 that names x as a SymInt (no valid graph has one: the
  // verifier refuses a value used as two kinds). Only the tensor use by relu
  // (index 1) counts, as ExecuTorch's walk over tensor arguments sees it.
  Graph& g = ep.graph();
  g.insert_before(*g.last_node(), Node(OpTarget("_operator.add"),
                                       {positional("a", arg_sym_int("x")), positional("b", arg_int(1))},
                                       {arg_sym_int("n")}, "n"));
  // The plan is made; the IR verifier that runs after the pass in test builds
  // then refuses the graph (INTERNAL), which is not what is tested here.
  Status st = testing::et::run_on_state(ep, run.state, {"memory_planning"});
  if (!st.ok())
    CHECK(st.error().message == "after pass memory_planning: value 'x' is a tensor but is used as a SymInt");
  CHECK(describe(run.state, "x") == "float32[2, 4] dim_order=[0, 1] static mem=1@0 life=[0,1]");
  CHECK(describe(run.state, "relu") == "float32[2, 4] dim_order=[0, 1] static mem=1@32 life=[1,3]");
}
