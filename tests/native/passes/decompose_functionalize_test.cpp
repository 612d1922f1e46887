// Functionalization of in-place ops by the decompose pass: functional form,
// later readers see the new value, views are scattered back into their base,
// mutated buffers / user inputs become mutation outputs in input order.
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::F;

namespace {

std::string program_text(const ExportedProgram& ep) {
  PrintOptions po;
  po.types = true;
  return print_exported_program(ep, po);
}
}  // namespace

TEST_CASE("functionalize: add_ on a buffer -> add.Tensor, later readers see it, BUFFER_MUTATION output first") {
  ProgramBuilder b;
  auto buf = b.buffer("b_total", "total", F, {3});
  auto x = b.input("x", F, {3});
  b.call("aten.add_.Tensor", {arg_tensor(buf), arg_tensor(x)}, {F, {3}});
  b.output(b.call("aten.mul.Tensor", {arg_tensor(buf), arg_int(2)}, {F, {3}}));
  ExportedProgram ep = b.build();
  ep.verifiers = {"TRAINING"};
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(program_text(ep) ==
        "# input buffer %b_total <- total\n"
        "# input user_input %x\n"
        "# output buffer_mutation %add -> total\n"
        "# output user_output %mul\n"
        "graph(%b_total: float32[3], %x: float32[3]):\n"
        "  %add: float32[3] = aten.add.Tensor(%b_total, %x)\n"
        "  %mul: float32[3] = aten.mul.Tensor(%add, 2)\n"
        "  return (%add, %mul)\n");
  CHECK(verify_program(ep).ok());
}

TEST_CASE("functionalize: in-place ops on intermediates need no outputs, in-place results are renamed") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_int(3)}, {F, {2, 3}});
  auto r = b.call("aten.relu_.default", {arg_tensor(y)}, {F, {2, 3}});
  auto s = b.call("aten.hardswish_.default", {arg_tensor(y)}, {F, {2, 3}});
  b.output(b.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(s)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  // relu_(y) → relu(y); hardswish_(y) reads the relu result and decomposes. Both in-place
  // results alias y, so the add reads y's final value twice, as eager PyTorch does.
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%x: float32[2, 3]):\n"
        "  %mul: float32[2, 3] = aten.mul.Tensor(%x, 3)\n"
        "  %relu: float32[2, 3] = aten.relu.default(%mul)\n"
        "  %add_1: float32[2, 3] = aten.add.Tensor(%relu, 3)\n"
        "  %clamp: float32[2, 3] = aten.clamp.default(%add_1, 0)\n"
        "  %clamp_1: float32[2, 3] = aten.clamp.default(%clamp, None, 6)\n"
        "  %mul_1: float32[2, 3] = aten.mul.Tensor(%relu, %clamp_1)\n"
        "  %div: float32[2, 3] = aten.div.Tensor(%mul_1, 6)\n"
        "  %add: float32[2, 3] = aten.add.Tensor(%div, %div)\n"
        "  return (%add)\n");
  CHECK(ep.signature().output_specs.size() == 1);
}

TEST_CASE("functionalize: a mutated user input becomes a USER_INPUT_MUTATION output") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4});
  b.call("aten.mul_.Tensor", {arg_tensor(x), arg_float(2.0)}, {F, {4}});
  b.output(b.call("aten.neg.default", {arg_tensor(x)}, {F, {4}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(program_text(ep) ==
        "# input user_input %x\n"
        "# output user_input_mutation %mul -> x\n"
        "# output user_output %neg\n"
        "graph(%x: float32[4]):\n"
        "  %mul: float32[4] = aten.mul.Tensor(%x, 2.0)\n"
        "  %neg: float32[4] = aten.neg.default(%mul)\n"
        "  return (%mul, %neg)\n");
}

TEST_CASE("functionalize: repeated mutations keep one output with the newest value, outputs in input order") {
  ProgramBuilder b;
  auto b1 = b.buffer("b_a", "a", F, {2});
  auto b2 = b.buffer("b_b", "b", F, {2});
  auto x = b.input("x", F, {2});
  b.call("aten.add_.Tensor", {arg_tensor(b2), arg_tensor(x)}, {F, {2}});
  b.call("aten.sub_.Tensor", {arg_tensor(b1), arg_tensor(b2)}, {F, {2}});
  b.call("aten.mul_.Tensor", {arg_tensor(b2), arg_int(3)}, {F, {2}});
  b.output(b.call("aten.add.Tensor", {arg_tensor(b1), arg_tensor(b2)}, {F, {2}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(program_text(ep) ==
        "# input buffer %b_a <- a\n"
        "# input buffer %b_b <- b\n"
        "# input user_input %x\n"
        "# output buffer_mutation %sub -> a\n"
        "# output buffer_mutation %mul -> b\n"
        "# output user_output %add\n"
        "graph(%b_a: float32[2], %b_b: float32[2], %x: float32[2]):\n"
        "  %add_1: float32[2] = aten.add.Tensor(%b_b, %x)\n"
        "  %sub: float32[2] = aten.sub.Tensor(%b_a, %add_1)\n"
        "  %mul: float32[2] = aten.mul.Tensor(%add_1, 3)\n"
        "  %add: float32[2] = aten.add.Tensor(%sub, %mul)\n"
        "  return (%sub, %mul, %add)\n");
  CHECK(verify_program(ep).ok());
}

TEST_CASE("functionalize: KV-cache writes (index_copy_, index_put_, copy_ into a slice, select)") {
  ProgramBuilder b;
  auto kc = b.buffer("b_k", "k_cache", F, {1, 2, 8, 4});
  auto vc = b.buffer("b_v", "v_cache", F, {1, 2, 8, 4});
  auto pc = b.buffer("b_p", "pos_cache", F, {8, 4});
  auto pos = b.input("pos", ScalarType::Long, {3});
  auto k = b.input("k", F, {1, 2, 3, 4});
  auto row = b.input("row", F, {4});
  b.call("aten.index_copy_.default", {arg_tensor(kc), arg_int(2), arg_tensor(pos), arg_tensor(k)}, {F, {1, 2, 8, 4}});
  auto sl = b.call("aten.slice.Tensor", {arg_tensor(vc), arg_int(2), arg_int(0), arg_int(3)}, {F, {1, 2, 3, 4}});
  b.call("aten.copy_.default", {arg_tensor(sl), arg_tensor(k)}, {F, {1, 2, 3, 4}});
  auto se = b.call("aten.select.int", {arg_tensor(pc), arg_int(0), arg_int(5)}, {F, {4}});
  b.call("aten.copy_.default", {arg_tensor(se), arg_tensor(row)}, {F, {4}});
  b.output(b.call("aten.add.Tensor", {arg_tensor(kc), arg_tensor(vc)}, {F, {1, 2, 8, 4}}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(program_text(ep) ==
        "# input buffer %b_k <- k_cache\n"
        "# input buffer %b_v <- v_cache\n"
        "# input buffer %b_p <- pos_cache\n"
        "# input user_input %pos\n"
        "# input user_input %k\n"
        "# input user_input %row\n"
        "# output buffer_mutation %index_put -> k_cache\n"
        "# output buffer_mutation %slice_scatter -> v_cache\n"
        "# output buffer_mutation %where -> pos_cache\n"
        "# output user_output %add\n"
        "graph(%b_k: float32[1, 2, 8, 4], %b_v: float32[1, 2, 8, 4], %b_p: float32[8, 4], %pos: int64[3], "
        "%k: float32[1, 2, 3, 4], %row: float32[4]):\n"
        "  %index_put: float32[1, 2, 8, 4] = aten.index_put.default(%b_k, [None, None, %pos], %k)\n"
        "  %slice: float32[1, 2, 3, 4] = aten.slice.Tensor(%b_v, 2, 0, 3)\n"
        "  %copy: float32[1, 2, 3, 4] = aten.copy.default(%slice, %k)\n"
        "  %slice_scatter: float32[1, 2, 8, 4] = aten.slice_scatter.default(%b_v, %copy, 2, 0, 3)\n"
        "  %select: float32[4] = aten.select.int(%b_p, 0, 5)\n"
        "  %copy_1: float32[4] = aten.copy.default(%select, %row)\n"
        // The select write-back's select_scatter, decomposed as torch._refs select_scatter.
        "  %arange: int64[8] = aten.arange.start_step(0, 8, layout=torch.strided, device=device(type='cpu'), "
        "pin_memory=False)\n"
        "  %view: int64[8, 1] = aten.view.default(%arange, [-1, 1])\n"
        "  %eq: bool[8, 1] = aten.eq.Scalar(%view, 5)\n"
        "  %unsqueeze: float32[1, 4] = aten.unsqueeze.default(%copy_1, 0)\n"
        "  %expand: float32[8, 4] = aten.expand.default(%unsqueeze, [8, 4])\n"
        "  %where: float32[8, 4] = aten.where.self(%eq, %expand, %b_p)\n"
        "  %add: float32[1, 2, 8, 4] = aten.add.Tensor(%index_put, %slice_scatter)\n"
        "  return (%index_put, %slice_scatter, %where, %add)\n");
  CHECK(verify_program(ep).ok());
}

TEST_CASE("functionalize: in-place shape changes (unsqueeze_) are refused with a clear error") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.call("aten.mul.Tensor", {arg_tensor(x), arg_int(2)}, {F, {3}});
  b.call("aten.unsqueeze_.default", {arg_tensor(y), arg_int(0)}, {F, {1, 3}});
  b.output(y);
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(st.error().where.node == std::optional<std::string>("unsqueeze_"));
  CHECK(st.error().message.find("in-place change of a tensor's shape") != std::string::npos);
}
