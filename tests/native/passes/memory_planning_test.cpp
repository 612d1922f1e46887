// memory_planning: exactness against the ExecuTorch reference files
// (executorch-pipeline.md §7: arduino_add_model, module_linear, add), the
// node numbering rules (getitem slots, views, mutable buffers), options, and
// the plan checker on every fixture after the to_executorch group.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"
#include "passes/memory_plan/check.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::describe;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_passes;
using pteforge::testing::to_executorch_passes;

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

TEST_CASE("memory_planning: arduino_add_model.pte (§7.1) exactly") {
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

TEST_CASE("memory_planning: module_linear_no_constant_segment.pte (§7.3) from the ref_module_linear fixture") {
  ExportedProgram ep = testing::load_program("fixtures/programs/ref_module_linear/models/model.json");
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

TEST_CASE("memory_planning: add.pte (§7.2) from the ref_add fixture: greedy now, naive = the old offsets") {
  for (const char* algo : {"greedy", "naive"}) {
    CAPTURE(algo);
    ExportedProgram ep = testing::load_program("fixtures/programs/ref_add/models/model.json");
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
