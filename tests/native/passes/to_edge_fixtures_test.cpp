// The whole to_edge group on every Core ATen fixture (corpus default group and
// tests/fixtures/programs), with exact results for some of them.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "edge_test_util.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "ops/op_table.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::load_fixture;
using pteforge::testing::read_text;
using pteforge::testing::run_passes;
using pteforge::testing::to_edge_passes;

namespace {

namespace fs = std::filesystem;

/// (fixture root relative to tests/, model name) of every Core ATen program.
std::vector<std::pair<std::string, std::string>> core_aten_fixtures() {
  std::vector<std::pair<std::string, std::string>> out;
  rapidjson::Document manifest;
  std::string text = read_text(fs::path(PTEFORGE_TEST_DATA_DIR) / "fixtures/corpus/MANIFEST.json");
  manifest.Parse(text.c_str(), text.size());
  REQUIRE(manifest.IsObject());
  for (auto it = manifest.MemberBegin(); it != manifest.MemberEnd(); ++it) {
    const auto& c = it->value;
    if (!c.HasMember("group") || std::string(c["group"].GetString()) != "default") continue;
    std::string root = std::string("fixtures/corpus/") + it->name.GetString() + "/json";
    const auto& methods = c["methods"];
    fs::path models = fs::path(PTEFORGE_TEST_DATA_DIR) / root / "models";
    if (fs::exists(models / "model.json")) {
      out.emplace_back(root, "model");
    } else {
      for (const auto& m : methods.GetArray()) out.emplace_back(root, m.GetString());
    }
  }
  std::vector<fs::path> dirs;
  for (const auto& d : fs::directory_iterator(fs::path(PTEFORGE_TEST_DATA_DIR) / "fixtures/programs")) {
    if (d.is_directory()) dirs.push_back(d.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    std::vector<std::string> models;
    for (const auto& m : fs::directory_iterator(d / "models")) models.push_back(m.path().stem().string());
    std::sort(models.begin(), models.end());
    for (const auto& m : models) out.emplace_back("fixtures/programs/" + d.filename().string(), m);
  }
  return out;
}

bool is_view_target(const OpTarget& t) {
  const ops::OpSchema* op = ops::op_table().find(t.str());
  if (!op || op->ns != "aten" || op->arguments.empty() || op->name == "contiguous") return false;
  const auto& alias = op->arguments[0].type.alias;
  return alias && !alias->is_write;
}

/// The post-conditions of the to_edge group that hold for every program.
void check_edge_invariants(const ExportedProgram& ep, const passes::MethodState& state) {
  std::set<int64_t> handles;
  size_t nodes = 0;
  for (const Node& n : ep.graph()) {
    ++nodes;
    CAPTURE(n.name());
    CHECK_FALSE(is_view_target(n.target()));
    CHECK_FALSE(n.target().is("aten._to_copy.default"));
    CHECK_FALSE(n.target().is("aten.clone.default"));
    CHECK_FALSE(n.target().is("aten.empty.memory_format"));
    CHECK_FALSE(n.target().is("aten._assert_tensor_metadata.default"));
    if (const ops::OpSchema* op = ops::op_table().find(n.target().str())) {
      for (const auto& a : op->arguments) {
        if (!a.type.is_tensor() || a.type.optional) continue;
        const Argument* v = n.input(a.name);
        CHECK((v == nullptr || v->is_tensor()));
      }
    }
    auto it = state.debug_handles.find(&n);
    REQUIRE(it != state.debug_handles.end());
    handles.insert(it->second);
  }
  CHECK(state.debug_handles.size() == nodes);
  if (!handles.empty()) {
    CHECK(*handles.begin() == 1);
    CHECK(*handles.rbegin() == static_cast<int64_t>(handles.size()));
  }
  for (const InputSpec& s : ep.signature().input_specs) {
    if (s.kind == InputKind::Parameter) CHECK(ep.graph().use_count(s.name()) > 0);
    const ConstantRef* ref = ep.state.find_placeholder(s.name());
    if (ref && ref->is_inline()) {
      CHECK(s.kind == InputKind::Buffer);
      CHECK(s.target.rfind("_lifted_tensor_constant", 0) == 0);
    }
  }
}

ExportedProgram lowered(const std::string& root, const std::string& model,
                        passes::MethodState* state = nullptr) {
  ExportedProgram ep = load_fixture(root, model);
  auto run = run_passes(ep, to_edge_passes());
  if (!run.status.ok()) FAIL(run.status.error().to_string());
  if (state) *state = run.state;
  return ep;
}

}  // namespace

TEST_CASE("to_edge group: every Core ATen fixture lowers, verifies and meets the edge invariants") {
  auto fixtures = core_aten_fixtures();
  CHECK(fixtures.size() ==
        25);  // 9 corpus programs (two_methods has 2) + 16 hand-written ones (two_method has 2)
  for (const auto& entry : fixtures) {
    const auto& [root, model] = entry;
    CAPTURE(entry.first);  // CAPTURE's lambda cannot capture a structured binding under clang 14
    CAPTURE(entry.second);
    passes::MethodState state;
    ExportedProgram ep = lowered(root, model, &state);
    Status st = verify_program(ep);
    CHECK_MESSAGE(st.ok(), (st.ok() ? std::string() : st.error().to_string()));
    check_edge_invariants(ep, state);
  }
}

TEST_CASE("to_edge group: corpus linear_tanh") {
  passes::MethodState state;
  ExportedProgram ep = lowered("fixtures/corpus/linear_tanh/json", "model", &state);
  CHECK(print_exported_program(ep, {true}) ==
        "# input parameter %p_hidden_weight <- hidden.weight\n"
        "# input parameter %p_hidden_bias <- hidden.bias\n"
        "# input parameter %p_out_weight <- out.weight\n"
        "# input parameter %p_out_bias <- out.bias\n"
        "# input user_input %x\n"
        "# output user_output %addmm_1\n"
        "graph(%p_hidden_weight: float32[8, 8], %p_hidden_bias: float32[8], %p_out_weight: float32[2, 8], "
        "%p_out_bias: float32[2], %x: float32[4, 8]):\n"
        "  %permute: float32[8, 8] = aten.permute_copy.default(%p_hidden_weight, [1, 0])\n"
        "  %addmm: float32[4, 8] = aten.addmm.default(%p_hidden_bias, %x, %permute)\n"
        "  %tanh: float32[4, 8] = aten.tanh.default(%addmm)\n"
        "  %permute_1: float32[8, 2] = aten.permute_copy.default(%p_out_weight, [1, 0])\n"
        "  %addmm_1: float32[4, 2] = aten.addmm.default(%p_out_bias, %tanh, %permute_1)\n"
        "  return (%addmm_1)\n");
  // The exported permute had view strides [1, 8]; the copy is contiguous.
  CHECK(*ep.graph().tensor_meta("permute_1")->concrete_strides() == std::vector<int64_t>{2, 1});
  std::vector<int64_t> handles;
  for (const Node& n : ep.graph()) handles.push_back(state.debug_handles.at(&n));
  CHECK(handles == std::vector<int64_t>{1, 2, 3, 4, 5});
  CHECK(ep.state.tensors.size() == 4);
}

TEST_CASE("to_edge group: ref_arduino_add ends with the lifted constant of arduino_add_model.pte") {
  passes::MethodState state;
  ExportedProgram ep = lowered("fixtures/programs/ref_arduino_add", "model", &state);
  CHECK(print_exported_program(ep, {true}) ==
        "# input buffer %_lifted_tensor_constant0 <- _lifted_tensor_constant0\n"
        "# input user_input %x\n"
        "# output user_output %add\n"
        "graph(%_lifted_tensor_constant0: float32[], %x: float32[3]):\n"
        "  %add: float32[3] = aten.add.Tensor(%x, %_lifted_tensor_constant0)\n"
        "  return (%add)\n");
  CHECK(ep.signature().input_specs[0].persistent);
  REQUIRE(ep.state.tensors.size() == 1);
  const ConstantRef& c = ep.state.tensors[0];
  CHECK(c.fqn == "_lifted_tensor_constant0");
  CHECK(c.kind == InputKind::Buffer);
  CHECK(c.dtype == ScalarType::Float);
  CHECK(c.nbytes() == 4);
  REQUIRE(c.is_inline());

  // The reference program: value 0 is the constant (FLOAT, sizes [], constant
  // buffer 1, holding segment bytes 00 00 80 3f), value 1 the input x.
  rapidjson::Document ref;
  std::string text =
      read_text(fs::path(PTEFORGE_TEST_DATA_DIR) / "data/reference/pte/arduino_add_model.json");
  ref.Parse(text.c_str(), text.size());
  REQUIRE(ref.IsObject());
  const auto& plan = ref["execution_plan"][0];
  const auto& v0 = plan["values"][0]["val"];
  CHECK(std::string(v0["scalar_type"].GetString()) == "FLOAT");
  CHECK(v0["sizes"].Size() == 0);
  CHECK(v0["data_buffer_idx"].GetInt() == 1);
  CHECK(plan["inputs"][0].GetInt() == 1);
  CHECK(*c.inline_data == std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f});
  // Placeholder order = value order: the constant comes before x.
  CHECK(ep.graph().inputs()[0].tensor_name() == "_lifted_tensor_constant0");
  CHECK(ep.graph().inputs()[1].tensor_name() == "x");
  CHECK(state.debug_handles.at(ep.graph().first_node()) == 1);
}

TEST_CASE("to_edge group: corpus layernorm_residual") {
  ExportedProgram ep = lowered("fixtures/corpus/layernorm_residual/json", "model");
  CHECK(print_graph(ep.graph()) ==
        "graph(%p_norm_weight, %p_norm_bias, %p_proj_weight, %p_proj_bias, %x):\n"
        "  %getitem, %native_layer_norm_unused_1, %native_layer_norm_unused_2 = "
        "aten.native_layer_norm.default(%x, [8], %p_norm_weight, %p_norm_bias, 1e-05)  # native_layer_norm\n"
        "  %view = aten.view_copy.default(%getitem, [10, 8])\n"
        "  %permute = aten.permute_copy.default(%p_proj_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_proj_bias, %view, %permute)\n"
        "  %view_1 = aten.view_copy.default(%addmm, [2, 5, 8])\n"
        "  %relu = aten.relu.default(%view_1)\n"
        "  %add = aten.add.Tensor(%x, %relu)\n"
        "  return (%add)\n");
}

TEST_CASE("to_edge group: buffer_mutation lifts its scalars after the two buffers") {
  ExportedProgram ep = lowered("fixtures/programs/buffer_mutation", "model");
  CHECK(print_exported_program(ep, {true}) ==
        "# input buffer %b_running_mean <- running_mean\n"
        "# input buffer %b_steps <- steps\n"
        "# input buffer %_lifted_tensor_constant2 <- _lifted_tensor_constant2\n"
        "# input buffer %_lifted_tensor_constant3 <- _lifted_tensor_constant3\n"
        "# input buffer %_lifted_tensor_constant4 <- _lifted_tensor_constant4\n"
        "# input user_input %x\n"
        "# output buffer_mutation %add -> running_mean\n"
        "# output buffer_mutation %add_1 -> steps\n"
        "# output user_output %sub\n"
        "graph(%b_running_mean: float32[4], %b_steps: int64[], %_lifted_tensor_constant2: float32[], "
        "%_lifted_tensor_constant3: float32[], %_lifted_tensor_constant4: int64[], %x: float32[3, 4]):\n"
        "  %mul: float32[4] = aten.mul.Tensor(%b_running_mean, %_lifted_tensor_constant2)\n"
        "  %mean: float32[4] = aten.mean.dim(%x, [0])\n"
        "  %mul_1: float32[4] = aten.mul.Tensor(%mean, %_lifted_tensor_constant3)\n"
        "  %add: float32[4] = aten.add.Tensor(%mul, %mul_1)\n"
        "  %add_1: int64[] = aten.add.Tensor(%b_steps, %_lifted_tensor_constant4)\n"
        "  %sub: float32[3, 4] = aten.sub.Tensor(%x, %add)\n"
        "  return (%add, %add_1, %sub)\n");
  // Bindings follow the signature: the two payload buffers, then the three inline constants.
  REQUIRE(ep.state.tensors.size() == 5);
  CHECK(ep.state.tensors[0].fqn == "running_mean");
  CHECK(ep.state.tensors[1].fqn == "steps");
  CHECK(ep.state.tensors[2].fqn == "_lifted_tensor_constant2");
  CHECK(ep.state.tensors[4].dtype == ScalarType::Long);
  CHECK(*ep.state.tensors[4].inline_data == std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0, 0});
}
