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

namespace {

void bind_strided(ExportedProgram& ep, const std::string& placeholder, InputKind kind, std::vector<int64_t> strides) {
  ConstantRef t;
  t.placeholder = placeholder;
  t.fqn = placeholder;
  t.kind = kind;
  t.sizes = *ep.graph().tensor_meta(placeholder)->concrete_sizes();
  t.strides = std::move(strides);
  ep.state.tensors.push_back(t);
}

}  // namespace

TEST_CASE(
    "contiguous_constants: constants and buffers neither contiguous nor channels-last become contiguous") {
  ProgramBuilder b;
  auto w = b.parameter("p_t", "pt", ScalarType::Float, {2, 3});
  auto bt = b.buffer("b_t", "bt", ScalarType::Float, {2, 3});
  auto bn = b.buffer("b_np", "bnp", ScalarType::Float, {2, 3}, /*persistent=*/false);
  auto ct = b.constant("c_t", "ct", ScalarType::Float, {2, 3});
  auto cl = b.constant("c_cl", "ccl", ScalarType::Float, {1, 3, 2, 2});
  auto c1 = b.constant("c_one", "cone", ScalarType::Float, {3, 1});
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto s = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(w)}, {ScalarType::Float, {2, 3}});
  b.output(s);
  b.output(bt);
  b.output(bn);
  b.output(ct);
  b.output(cl);
  b.output(c1);
  ExportedProgram ep = b.build();
  for (const auto& name : {w, bt, bn, ct}) set_strides(ep, name, {1, 2});
  set_strides(ep, cl, {12, 1, 6, 3});  // channels-last: kept
  set_strides(ep, c1, {1, 7});         // size-1 dim: still contiguous for torch
  bind_strided(ep, w, InputKind::Parameter, {1, 2});
  bind_strided(ep, bt, InputKind::Buffer, {1, 2});
  bind_strided(ep, ct, InputKind::TensorConstant, {1, 2});

  auto run = run_pass(ep, "contiguous_constants");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("constants_made_contiguous") == 3);
  CHECK(strides_of(ep, w) == std::vector<int64_t>{1, 2});  // parameters are not touched (as ExecuTorch)
  CHECK(strides_of(ep, bt) == std::vector<int64_t>{3, 1});
  CHECK(strides_of(ep, bn) == std::vector<int64_t>{3, 1});
  CHECK(strides_of(ep, ct) == std::vector<int64_t>{3, 1});
  CHECK(strides_of(ep, cl) == std::vector<int64_t>{12, 1, 6, 3});
  CHECK(strides_of(ep, c1) == std::vector<int64_t>{1, 7});
  CHECK_FALSE(ep.state.find_placeholder(w)->make_contiguous);
  CHECK(ep.state.find_placeholder(bt)->make_contiguous);
  CHECK(ep.state.find_placeholder(ct)->make_contiguous);
  CHECK(ep.state.find_placeholder(ct)->strides == std::vector<int64_t>{1, 2});  // payload layout kept
}

TEST_CASE("contiguous_constants: contiguous state, no change") {
  ProgramBuilder b;
  auto bt = b.buffer("b_t", "bt", ScalarType::Float, {2, 3});
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto s = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(bt)}, {ScalarType::Float, {2, 3}});
  b.output(s);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep, {true});
  auto run = run_pass(ep, "contiguous_constants");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep, {true}) == before);
}
