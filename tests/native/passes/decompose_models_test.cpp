// The training-IR fixtures of each model family (tests/fixtures/tir): decompose
// leaves only Core ATen with consistent metadata, and the default pipeline
// (every pass implemented so far) converts them without error.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "decompose_test_util.h"
#include "passes/decompositions/table.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::load_program;

namespace {

const char* const kFixtures[] = {"tir_resnet_block", "tir_mobilenet_v3_block", "tir_efficientnet_block",
                                 "tir_vit_block",    "tir_gpt2_block",         "tir_llama_decoder",
                                 "tir_lstm_cell",    "tir_rnn_ops",            "tir_dynamic_batch"};

ExportedProgram fixture(const std::string& name) { return load_program("fixtures/tir/" + name + "/models/model.json"); }

std::map<std::string, int> histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const auto& n : g) ++h[std::string(n.target().short_name())];
  return h;
}

}  // namespace

TEST_CASE("models: every training-IR fixture decomposes to Core ATen and still verifies") {
  for (const char* name : kFixtures) {
    CAPTURE(std::string(name));
    ExportedProgram ep = fixture(name);
    REQUIRE(ep.verifiers == std::vector<std::string>{"TRAINING"});
    REQUIRE_FALSE(pteforge::testing::non_core_ops(ep.graph()).empty());
    Status st = pteforge::testing::decompose(ep);
    if (!st.ok()) FAIL(st.error().to_string());
    CHECK(pteforge::testing::non_core_ops(ep.graph()) == std::vector<std::string>{});
    CHECK(ep.verifiers == std::vector<std::string>{"ATEN"});
    Status v = verify_program(ep);
    if (!v.ok()) FAIL(v.error().to_string());
    // No in-place or mutating op survives (functionalization).
    for (const auto& n : ep.graph()) {
      const ops::OpSchema* s = ops::op_table().find(n.target().str());
      if (s) CHECK_MESSAGE(s->is_functional(), n.name() << " " << n.target().short_name());
    }
    // Every created node keeps a source location of the training IR.
    for (const auto& n : ep.graph()) CHECK_MESSAGE(n.origin().known(), n.name());
  }
}

TEST_CASE("models: the default pipeline converts every training-IR fixture without error") {
  for (const char* name : kFixtures) {
    CAPTURE(std::string(name));
    ExportedProgram ep = fixture(name);
    passes::PassReport report;
    Status st = pteforge::testing::run_passes(ep, {}, &report);
    if (!st.ok()) FAIL(st.error().to_string());
    bool ran = false;
    for (const auto& r : report.passes) ran = ran || (r.name == "decompose" && !r.skipped && r.changed);
    CHECK(ran);
    // Later passes may turn ops into *_copy / out variants, so the check here is
    // only that nothing the decomposition table handles survives, and every aten
    // op is a known one (the strict core-only check is the test above).
    for (const auto& n : ep.graph()) {
      if (n.target().kind() != ir::TargetKind::Operator || n.target().ns() != "aten") continue;
      CHECK_MESSAGE(ops::op_table().find(n.target().str()) != nullptr, n.name());
      CHECK_MESSAGE(passes::decomp::find_decomposition(n.target().short_name()) == nullptr, n.name());
    }
  }
}

TEST_CASE("models: per-family op content after decompose") {
  SUBCASE("resnet: conv + bn + relu (from relu_) + max_pool + residual add + mean + addmm") {
    ExportedProgram ep = fixture("tir_resnet_block");
    REQUIRE(pteforge::testing::decompose(ep).ok());
    auto h = histogram(ep.graph());
    CHECK(h["aten.convolution.default"] == 3);
    CHECK(h["aten._native_batch_norm_legit_no_training.default"] == 3);
    CHECK(h["aten.relu.default"] == 3);
    CHECK(h["aten.max_pool2d_with_indices.default"] == 1);
    CHECK(h["aten.add.Tensor"] == 1);
    CHECK(h["aten.mean.dim"] == 1);
    CHECK(h["aten.addmm.default"] == 1);
    CHECK(ep.signature().output_specs.size() == 1);
  }
  SUBCASE("mobilenet v3: hardswish/hardsigmoid as add/clamp/clamp(/mul)/div, dropout_ as clone") {
    ExportedProgram ep = fixture("tir_mobilenet_v3_block");
    REQUIRE(pteforge::testing::decompose(ep).ok());
    auto h = histogram(ep.graph());
    CHECK(h["aten.clamp.default"] == 8);  // 3 hardswish + 1 hardsigmoid
    CHECK(h["aten.div.Tensor"] == 4);
    CHECK(h["aten.clone.default"] == 1);
    CHECK(h["aten.mean.dim"] == 2);
    CHECK(h["aten.convolution.default"] == 6);
  }
  SUBCASE("efficientnet: silu as sigmoid + mul") {
    ExportedProgram ep = fixture("tir_efficientnet_block");
    REQUIRE(pteforge::testing::decompose(ep).ok());
    auto h = histogram(ep.graph());
    CHECK(h["aten.sigmoid.default"] == 6);  // 5 silu + the SE gate
    CHECK(h["aten.mul.Tensor"] == 6);       // 5 silu + SE scale
  }
  SUBCASE("llama: caches become buffer mutations, attention reads the updated caches") {
    ExportedProgram ep = fixture("tir_llama_decoder");
    REQUIRE(pteforge::testing::decompose(ep).ok());
    const auto& specs = ep.signature().output_specs;
    REQUIRE(specs.size() == 3);
    CHECK(specs[0].kind == OutputKind::BufferMutation);
    CHECK(specs[0].target == "k_cache");
    CHECK(std::string(ep.graph().producer(std::string(specs[0].name()))->target().short_name()) ==
          "aten.index_put.default");
    CHECK(specs[1].kind == OutputKind::BufferMutation);
    CHECK(specs[1].target == "v_cache");
    CHECK(std::string(ep.graph().producer(std::string(specs[1].name()))->target().short_name()) ==
          "aten.slice_scatter.default");
    CHECK(specs[2].kind == OutputKind::UserOutput);
    // The buffers are only read by the cache updates themselves (and the slice that feeds copy).
    for (const char* buf : {"b_k_cache", "b_v_cache"}) {
      for (const Node* u : ep.graph().users(buf)) {
        std::string t(u->target().short_name());
        CHECK_MESSAGE((t == "aten.index_put.default" || t == "aten.slice_scatter.default" ||
                       t == "aten.slice.Tensor"),
                      t);
      }
    }
    auto h = histogram(ep.graph());
    CHECK(h["aten.rsqrt.default"] == 2);
    CHECK(h["aten.embedding.default"] == 1);
    CHECK(h["aten.cat.default"] == 2);
  }
  SUBCASE("gpt2: causal sdpa builds the mask from arange/le") {
    ExportedProgram ep = fixture("tir_gpt2_block");
    REQUIRE(pteforge::testing::decompose(ep).ok());
    auto h = histogram(ep.graph());
    CHECK(h["aten.split_with_sizes.default"] == 1);
    CHECK(h["aten.le.Scalar"] == 1);
    CHECK(h["aten.bmm.default"] == 2);
    CHECK(h["aten.gelu.default"] == 1);
    CHECK(h["aten.native_layer_norm.default"] == 2);
  }
  SUBCASE("lstm (decomposed form) and rnn ops") {
    ExportedProgram a = fixture("tir_lstm_cell");
    REQUIRE(pteforge::testing::decompose(a).ok());
    auto h = histogram(a.graph());
    CHECK(h["aten.split_with_sizes.default"] == 3);
    CHECK(h["aten.addmm.default"] == 4);
    ExportedProgram b = fixture("tir_rnn_ops");
    REQUIRE(pteforge::testing::decompose(b).ok());
    const auto& outs = b.graph().outputs();
    REQUIRE(outs.size() == 4);
    std::vector<std::vector<int64_t>> want{{3, 1, 6}, {1, 1, 5}, {1, 1, 5}, {2, 1, 3}};
    for (size_t i = 0; i < 4; ++i) {
      const TensorMeta* m = b.graph().tensor_meta(outs[i].tensor_name());
      REQUIRE(m);
      CHECK(m->concrete_sizes() == want[i]);
    }
  }
}
