// Program summaries (what `pteforge inspect` prints), asserted in full.
#include <doctest/doctest.h>

#include "serde/import_exported_program.h"
#include "serde/payload_config.h"
#include "serde/state_binding.h"
#include "serde/summary.h"
#include "test_files.h"

using namespace pteforge;

namespace {

serde::ProgramSummary summarize_corpus(const std::string& case_name, const std::string& model = "model") {
  auto r = serde::import_exported_program(
      test::read_file(test::data_path("fixtures/corpus/" + case_name + "/json/models/" + model + ".json")));
  REQUIRE(r.ok());
  ir::Program p;
  p.methods.emplace("forward", std::move(r->program));
  return serde::summarize_program(p, {{"forward", r->warnings}});
}

}  // namespace

TEST_CASE("inspect: modules_preserved as text") {
  CHECK(serde::summary_to_text(summarize_corpus("modules_preserved")) ==
        R"(method forward
  schema 8.20, torch 2.11.0+cpu, verifiers [ATEN]
  forward(input)
  inputs (5):
    p_0_0_weight  parameter   0.0.weight  float32[5, 6]
    p_0_0_bias    parameter   0.0.bias    float32[5]
    p_1_0_weight  parameter   1.0.weight  float32[4, 5]
    p_1_0_bias    parameter   1.0.bias    float32[4]
    input_1       user_input              float32[3, 6]
  outputs (1):
    tanh  user_output    float32[3, 4]
  nodes (7):
    aten.addmm.default    2
    aten.permute.default  2
    aten.mul.Tensor       1
    aten.sigmoid.default  1
    aten.tanh.default     1
  state:
    parameters  4 (236 bytes)
    buffers     0
    constants   0
  modules:
    (root)   torch.nn.modules.container.Sequential  7 nodes
      0      torch.nn.modules.container.Sequential  4 nodes
        0.0  torch.nn.modules.linear.Linear         2 nodes
        0.1  torch.nn.modules.activation.SiLU       2 nodes
      1      torch.nn.modules.container.Sequential  3 nodes
        1.0  torch.nn.modules.linear.Linear         2 nodes
        1.1  torch.nn.modules.activation.Tanh       1 node
  preserved call signatures:
    0  (%input_1) -> (%mul)
    1  (%mul) -> (%tanh)
)");
}

TEST_CASE("inspect: dynamic_seq as text (symbolic dims with their range)") {
  CHECK(serde::summary_to_text(summarize_corpus("dynamic_seq")) ==
        R"(method forward
  schema 8.20, torch 2.11.0+cpu, verifiers [ATEN]
  forward(x)
  inputs (3):
    p_proj_weight  parameter   proj.weight  float32[6, 8]
    p_proj_bias    parameter   proj.bias    float32[6]
    x              user_input               float32[1, s53, 8]
  outputs (1):
    _softmax  user_output    float32[1, s53, 6]
  symbols:
    s53  [2, 64]
  nodes (6):
    aten.view.default      2
    aten._softmax.default  1
    aten.addmm.default     1
    aten.permute.default   1
    aten.sym_size.int      1
  state:
    parameters  2 (216 bytes)
    buffers     0
    constants   0
  modules:
    (root)  __main__.SeqSoftmax             6 nodes
      proj  torch.nn.modules.linear.Linear  5 nodes
)");
}

TEST_CASE("inspect: buffer_running_sum as text (mutated buffer)") {
  CHECK(serde::summary_to_text(summarize_corpus("buffer_running_sum")) ==
        R"(method forward
  schema 8.20, torch 2.11.0+cpu, verifiers [ATEN]
  forward(x)
  inputs (2):
    b_total  buffer      total  float32[3]
    x        user_input         float32[3]
  outputs (2):
    add  buffer_mutation  total  float32[3]
    mul  user_output             float32[3]
  nodes (2):
    aten.add.Tensor  1
    aten.mul.Tensor  1
  state:
    parameters  0
    buffers     1 (12 bytes)
    constants   0
  modules:
    (root)  __main__.RunningSum  2 nodes
)");
}

TEST_CASE("inspect: dynamic_seq as JSON") {
  CHECK(serde::summary_to_json(summarize_corpus("dynamic_seq")) == test::read_file(test::data_path("native/serde/golden/inspect_dynamic_seq.json")));
}

TEST_CASE("inspect: warnings and bound payload sizes are reported") {
  auto r = serde::import_exported_program(test::read_file(test::data_path("fixtures/errors/unknown_keys.json")));
  REQUIRE(r.ok());
  std::string dir = test::data_path("fixtures/corpus/buffer_running_sum/json/");
  auto weights = serde::parse_payload_config(test::read_file(dir + "data/weights/model_weights_config.json"), "w");
  auto constants = serde::parse_payload_config(test::read_file(dir + "data/constants/model_constants_config.json"), "c");
  REQUIRE(weights.ok());
  REQUIRE(constants.ok());
  auto bound = serde::bind_state(r->program, *weights, *constants,
                                 [](const std::string&, bool) -> std::optional<uint64_t> { return 12; });
  REQUIRE(bound.ok());
  r->program.state = std::move(bound).value();
  serde::MethodSummary m = serde::summarize_method("forward", r->program, r->warnings);
  CHECK(m.bytes_from_payloads);
  CHECK(m.buffers.count == 1);
  CHECK(m.buffers.bytes == 12);
  serde::ProgramSummary s{{m}};
  std::string text = serde::summary_to_text(s);
  CHECK(text.find("  state (bytes from payloads):\n") != std::string::npos);
  CHECK(text.find("  warnings:\n"
                  "    unknown field \"future_field\" in ExportedProgram ignored (pointer=/future_field)\n") !=
        std::string::npos);
  std::string json = serde::summary_to_json(s);
  CHECK(json.find(R"("message": "unknown field \"new_node_key\" in Node ignored",)") != std::string::npos);
  CHECK(json.find(R"("pointer": "/graph_module/graph/nodes/0/new_node_key")") != std::string::npos);
}
