// The decompose pass as a whole: corpus training IR, no-op on Core ATen,
// metadata and origin carried to new nodes, the unsupported-op error,
// preserve_ops, verifiers.
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "decompose_test_util.h"
#include "passes/pass_registry.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::load_program;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::F;

TEST_CASE("decompose: corpus training_ir_conv_bn becomes the documented Core ATen form") {
  ExportedProgram ep = load_program("fixtures/corpus/training_ir_conv_bn/json/models/model.json");
  REQUIRE(ep.verifiers == std::vector<std::string>{"TRAINING"});
  passes::PassReport report;
  Status st = pteforge::testing::run_passes(ep, {"decompose"}, &report);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%p_conv_weight, %p_conv_bias, %p_bn_weight, %p_bn_bias, %p_fc_weight, %p_fc_bias, "
        "%b_bn_running_mean, %b_bn_running_var, %b_bn_num_batches_tracked, %x):\n"
        "  %convolution = aten.convolution.default(%x, %p_conv_weight, %p_conv_bias, [2, 2], [0, 0], [1, 1], False, "
        "[0, 0], 1)\n"
        "  %getitem, %_native_batch_norm_legit_no_training_unused_1, %_native_batch_norm_legit_no_training_unused_2 = "
        "aten._native_batch_norm_legit_no_training.default(%convolution, %p_bn_weight, %p_bn_bias, %b_bn_running_mean, "
        "%b_bn_running_var, 0.1, 1e-05)  # _native_batch_norm_legit_no_training\n"
        "  %relu = aten.relu.default(%getitem)\n"
        "  %mean = aten.mean.dim(%relu, [-1, -2], True)\n"
        "  %view = aten.view.default(%mean, [2, 4])\n"
        "  %permute = aten.permute.default(%p_fc_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_fc_bias, %view, %permute)\n"
        "  return (%addmm)\n");
  CHECK(ep.verifiers == std::vector<std::string>{"ATEN"});
  REQUIRE(ep.signature().output_specs.size() == 1);
  CHECK(ep.signature().output_specs[0].name() == "addmm");
  REQUIRE(report.passes.size() == 1);
  CHECK(report.passes[0].changed);
  const auto& stats = report.passes[0].stats;
  CHECK(stats.at("decomposed.aten.conv2d.default") == 1);
  CHECK(stats.at("decomposed.aten.batch_norm.default") == 1);
  CHECK(stats.at("decomposed.aten.adaptive_avg_pool2d.default") == 1);
  CHECK(stats.at("decomposed.aten.flatten.using_ints") == 1);
  CHECK(stats.at("decomposed.aten.linear.default") == 1);
}

TEST_CASE("decompose: corpus training_ir_linear_gelu (eval dropout becomes clone)") {
  ExportedProgram ep = load_program("fixtures/corpus/training_ir_linear_gelu/json/models/model.json");
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%p_fc1_weight, %p_fc1_bias, %p_fc2_weight, %p_fc2_bias, %x):\n"
        "  %permute = aten.permute.default(%p_fc1_weight, [1, 0])\n"
        "  %addmm = aten.addmm.default(%p_fc1_bias, %x, %permute)\n"
        "  %gelu = aten.gelu.default(%addmm)\n"
        "  %clone = aten.clone.default(%gelu)\n"
        "  %permute_1 = aten.permute.default(%p_fc2_weight, [1, 0])\n"
        "  %addmm_1 = aten.addmm.default(%p_fc2_bias, %clone, %permute_1)\n"
        "  return (%addmm_1)\n");
}

TEST_CASE("decompose: new nodes carry the replaced node's metadata and origin (debug-handle ancestry)") {
  ExportedProgram ep = load_program("fixtures/corpus/training_ir_conv_bn/json/models/model.json");
  const Node* linear = ep.graph().find_node("linear");
  REQUIRE(linear);
  const NodeMetadata md = linear->metadata();
  const std::string origin = linear->origin().pointer();
  REQUIRE(md.nn_module_stack);
  REQUIRE(md.stack_trace);
  CHECK(origin == "/graph_module/graph/nodes/5");
  const Node* conv = ep.graph().find_node("conv2d");
  REQUIRE(conv);
  const std::string conv_origin = conv->origin().pointer();
  const NodeMetadata conv_md = conv->metadata();

  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  for (const char* name : {"permute", "addmm"}) {
    const Node* n = ep.graph().find_node(name);
    REQUIRE(n);
    CHECK(n->metadata() == md);
    CHECK(n->origin().pointer() == origin);
    CHECK(n->metadata().module_path() == "fc");
  }
  const Node* convolution = ep.graph().find_node("convolution");
  REQUIRE(convolution);
  CHECK(convolution->metadata() == conv_md);
  CHECK(convolution->origin().pointer() == conv_origin);
  // An error inside a decomposed region points at the source node of the training IR.
  CHECK(ir::node_location(*ep.graph().find_node("addmm")).pointer == std::optional<std::string>(origin));
}

TEST_CASE("decompose: Core ATen programs are left unchanged") {
  for (const char* c : {"linear_tanh", "conv_avgpool", "layernorm_residual", "dynamic_seq", "joint_linear_mse",
                        "modules_preserved", "buffer_running_sum"}) {
    CAPTURE(c);
    ExportedProgram ep = load_program(std::string("fixtures/corpus/") + c + "/json/models/model.json");
    ExportedProgram before = ep;
    passes::PassReport report;
    Status st = pteforge::testing::run_passes(ep, {"decompose"}, &report);
    if (!st.ok()) FAIL(st.error().to_string());
    CHECK_FALSE(report.passes[0].changed);
    CHECK(ep == before);
  }
}

TEST_CASE("decompose: running it twice changes nothing the second time") {
  ExportedProgram ep = load_program("fixtures/tir/tir_vit_block/models/model.json");
  REQUIRE(pteforge::testing::decompose(ep).ok());
  ExportedProgram once = ep;
  passes::PassReport report;
  REQUIRE(pteforge::testing::run_passes(ep, {"decompose"}, &report).ok());
  CHECK_FALSE(report.passes[0].changed);
  CHECK(ep == once);
}

TEST_CASE("decompose: a non-core op without a decomposition is one clear UNSUPPORTED_OPERATOR error") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.call("aten.relu.default", {arg_tensor(x)}, {F, {2, 3}});
  b.output(b.call("aten.logcumsumexp.default", {arg_tensor(y), arg_int(1)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  ep.verifiers = {"TRAINING"};
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  const Error& e = st.error();
  CHECK(e.code == ErrorCode::UNSUPPORTED_OPERATOR);
  CHECK(e.message ==
        "node \"logcumsumexp\" calls aten.logcumsumexp.default, which is not in the Core ATen opset and has no "
        "decomposition in pteforge");
  CHECK(e.where.node == std::optional<std::string>("logcumsumexp"));
  CHECK(e.where.pass == std::optional<std::string>("decompose"));
  CHECK(e.where.method == std::optional<std::string>("forward"));
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] ==
        "export with ep = ep.run_decompositions() before torch.export.save(ep, ...) (pteforge accepts the Core ATen "
        "program), or open an issue asking for a decomposition of aten.logcumsumexp.default");
  // Nothing was changed before the error (relu is core and stays).
  CHECK(ep.graph().find_node("relu") != nullptr);
}

TEST_CASE("decompose: custom-namespace ops and symbolic arithmetic are kept") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  b.output(b.call("aten.silu.default", {arg_tensor(x)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  // A quantized_decomposed op (not aten) in front of the output.
  Node q(OpTarget("torch.ops.quantized_decomposed.quantize_per_tensor.default"),
         {positional("input", arg_tensor("silu")), positional("scale", arg_float(0.1)),
          positional("zero_point", arg_int(0)), positional("quant_min", arg_int(-128)),
          positional("quant_max", arg_int(127)), positional("dtype", arg_dtype(ScalarType::Char))},
         {arg_tensor("q")}, "q");
  ep.graph().append(std::move(q));
  ep.graph().set_tensor_meta("q", pteforge::testing::make_meta({ScalarType::Char, {2, 3}}));
  ep.graph().set_output(0, arg_tensor("q"));
  ep.signature().output_specs[0].arg = arg_tensor("q");
  REQUIRE(verify_program(ep).ok());
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::targets(ep.graph()) ==
        std::vector<std::string>{"aten.sigmoid.default", "aten.mul.Tensor",
                                 "quantized_decomposed.quantize_per_tensor.default"});
}

TEST_CASE("decompose: preserve_ops keeps chosen ops (also inside other decompositions)") {
  SUBCASE("linear preserved") {
    ExportedProgram ep = load_program("fixtures/corpus/training_ir_linear_gelu/json/models/model.json");
    Status st = pteforge::testing::decompose(ep, {"aten.linear.default"});
    if (!st.ok()) FAIL(st.error().to_string());
    CHECK(pteforge::testing::targets(ep.graph()) ==
          std::vector<std::string>{"aten.linear.default", "aten.gelu.default", "aten.clone.default",
                                   "aten.linear.default"});
  }
  SUBCASE("matmul preserved inside a bias-free 3-d linear") {
    ProgramBuilder b;
    auto w = b.parameter("p_w", "w", F, {6, 8});
    auto x = b.input("x", F, {2, 5, 8});
    b.output(b.call("aten.linear.default", {arg_tensor(x), arg_tensor(w)}, {F, {2, 5, 6}}));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep, {"torch.ops.aten.matmul.default"});
    if (!st.ok()) FAIL(st.error().to_string());
    CHECK(pteforge::testing::typed(ep.graph()) ==
          "graph(%p_w: float32[6, 8], %x: float32[2, 5, 8]):\n"
          "  %permute: float32[8, 6] = aten.permute.default(%p_w, [1, 0])\n"
          "  %matmul: float32[2, 5, 6] = aten.matmul.default(%x, %permute)\n"
          "  return (%matmul)\n");
  }
  SUBCASE("a preserved op that no node calls gets one warning per op, in option order; one that is called, none") {
    // The Core ATen corpus program was saved after run_decompositions():
    // linear is already permute + addmm there.
    ExportedProgram ep = load_program("fixtures/corpus/linear_tanh/json/models/model.json");
    passes::PassReport report;
    Status st = pteforge::testing::run_passes(
        ep, {"decompose"}, &report,
        {"aten.matmul.default", "aten.linear.default", "aten.tanh.default", "aten::linear", "aten::matmul"});
    if (!st.ok()) FAIL(st.error().to_string());
    REQUIRE(report.diagnostics.size() == 2);
    const std::string says =
        " is not called in this method, so there was nothing to preserve; if the program was saved after "
        "run_decompositions(), save it before that step instead (pteforge decomposes it itself) "
        "(method=forward pass=decompose)";
    CHECK(report.diagnostics[0].to_string() == "warning: preserve_ops: aten::matmul" + says);
    CHECK(report.diagnostics[1].to_string() == "warning: preserve_ops: aten::linear" + says);

    ExportedProgram tir = load_program("fixtures/corpus/training_ir_linear_gelu/json/models/model.json");
    passes::PassReport called;
    st = pteforge::testing::run_passes(tir, {"decompose"}, &called, {"aten.linear.default"});
    if (!st.ok()) FAIL(st.error().to_string());
    CHECK(called.diagnostics.empty());
  }
  SUBCASE("invalid preserve_ops are OPTION_INVALID before anything changes") {
    struct Case {
      const char* op;
      const char* says;
    };
    for (Case c : {Case{"aten.no_such_op.default", "is not a known operator"},
                   Case{"aten.add_.Tensor", "is a view or mutating op"},
                   Case{"aten.view.default", "is a view or mutating op"},
                   Case{"aten.layer_norm.default", "has no out variant"}}) {
      CAPTURE(std::string(c.op));
      ExportedProgram ep = load_program("fixtures/corpus/training_ir_linear_gelu/json/models/model.json");
      ExportedProgram before = ep;
      Status st = pteforge::testing::decompose(ep, {c.op});
      REQUIRE_FALSE(st.ok());
      CHECK(st.error().code == ErrorCode::OPTION_INVALID);
      CHECK(st.error().message.find(c.says) != std::string::npos);
      CHECK(ep == before);
    }
  }
}

TEST_CASE("decompose: registered in the default pipeline right after remove_tensor_metadata_asserts") {
  auto names = passes::default_pipeline();
  REQUIRE(names.size() > 2);
  CHECK(names[0] == "remove_tensor_metadata_asserts");
  CHECK(names[1] == "decompose");
  auto p = passes::create_pass("decompose");
  REQUIRE(p.ok());
  CHECK((*p)->info().name == "decompose");
  CHECK((*p)->info().group == "decompose");
}

TEST_CASE(
    "decompose: a non-core op that ExecuTorch's kernels run is refused with a note naming --preserve-ops") {
  auto build = [] {
    ProgramBuilder b;
    auto x = b.input("x", F, {1, 2, 4, 4});
    b.output(b.call("aten._upsample_bilinear2d_aa.default",
                    {arg_tensor(x), arg_ints({8, 8}), arg_bool(false)}, {F, {1, 2, 8, 8}}));
    return b.build();
  };
  ExportedProgram ep = build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::UNSUPPORTED_OPERATOR);
  REQUIRE(st.error().notes.size() == 2);
  CHECK(st.error().notes[0] ==
        "ExecuTorch's portable kernels run it (aten::_upsample_bilinear2d_aa.out): --preserve-ops "
        "aten._upsample_bilinear2d_aa.default keeps it, as EdgeCompileConfig's _core_aten_ops_exception_list "
        "would");
  CHECK(st.error().notes[1].rfind("export with ep = ep.run_decompositions()", 0) == 0);
  // What the note says works.
  ExportedProgram kept = build();
  Status ok = pteforge::testing::decompose(kept, {"aten._upsample_bilinear2d_aa.default"});
  REQUIRE_MESSAGE(ok.ok(), ok.error().to_string());
  CHECK(pteforge::testing::targets(kept.graph()) ==
        std::vector<std::string>{"aten._upsample_bilinear2d_aa.default"});
}

TEST_CASE("decompose: a non-core op no ExecuTorch kernel runs gets only the run_decompositions note") {
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 2, 4, 4});
  b.output(b.call("aten.upsample_bicubic2d.default", {arg_tensor(x), arg_ints({8, 8}), arg_bool(false)},
                  {F, {1, 2, 8, 8}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  REQUIRE(st.error().notes.size() == 1);
  CHECK(st.error().notes[0].rfind("export with ep = ep.run_decompositions()", 0) == 0);
}
