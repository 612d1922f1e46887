// legalize_portable_dim_order: contiguous copies in front of the five
// layout-sensitive portable ops (§1.3 B2).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

namespace {

/// Declares value `v` of `b` with channels-last strides for its [n, c, h, w] sizes.
void declare_channels_last(ProgramBuilder& b, const std::string& v) {
  TensorMeta m = *b.program().graph().tensor_meta(v);
  const int64_t c = m.sizes[1].value(), h = m.sizes[2].value(), w = m.sizes[3].value();
  m.strides = {SymInt(c * h * w), SymInt(1), SymInt(w * c), SymInt(c)};
  b.program().graph().set_tensor_meta(v, m);
}

/// x: float32[1, 3, 4, 4] in channels-last strides (48, 1, 12, 3).
std::string channels_last_input(ProgramBuilder& b) {
  auto x = b.input("x", ScalarType::Float, {1, 3, 4, 4});
  declare_channels_last(b, x);
  return x;
}

}  // namespace

TEST_CASE("legalize_portable_dim_order: mean.dim on a channels-last input reads a contiguous copy") {
  ProgramBuilder b;
  auto x = channels_last_input(b);
  auto mean = b.call("aten.mean.dim", {arg_tensor(x), arg_ints({2, 3}), arg_bool(true)}, {ScalarType::Float, {1, 3, 1, 1}});
  b.output(mean);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order", "spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %_to_dim_order_copy = dim_order_ops._to_dim_order_copy.default(%x, dim_order=[0, 1, 2, 3])\n"
        "  %mean = aten.mean.dim(%_to_dim_order_copy, [2, 3], True)\n"
        "  return (%mean)\n");
  CHECK(describe(run.state, "x") == "float32[1, 3, 4, 4] dim_order=[0, 2, 3, 1] static unplanned");
  CHECK(describe(run.state, "_to_dim_order_copy") == "float32[1, 3, 4, 4] dim_order=[0, 1, 2, 3] static unplanned");
  CHECK(run.report.passes[0].stats.at("copies_inserted") == 1);
}

TEST_CASE("legalize_portable_dim_order: every target op - and only those") {
  const char* targets[] = {"aten._adaptive_avg_pool2d.default", "aten.avg_pool2d.default", "aten.expand_copy.default",
                           "aten.mean.dim", "aten.sum.dim_IntList"};
  for (const char* t : targets) {
    CAPTURE(t);
    ProgramBuilder b;
    auto x = channels_last_input(b);
    auto y = b.call(t, {arg_tensor(x), arg_ints({2, 2})}, {ScalarType::Float, {1, 3, 2, 2}}, {}, "y");
    b.output(y);
    ExportedProgram ep = b.build();
    auto run = run_passes(ep, {"legalize_portable_dim_order"});
    REQUIRE(run.status.ok());
    CHECK(run.report.passes[0].changed);
    CHECK(ep.graph().find_node("y")->inputs()[0].arg.tensor_name() == "_to_dim_order_copy");
  }
  // relu is layout-agnostic: untouched.
  ProgramBuilder b;
  auto x = channels_last_input(b);
  b.output(b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {1, 3, 4, 4}}));
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order"});
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.report.passes[0].changed);
  CHECK(ep.graph().num_nodes() == 1);
}

TEST_CASE("legalize_portable_dim_order: contiguous and 0-d inputs are left alone") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto s = b.input("s", ScalarType::Float, {});
  auto m = b.call("aten.mean.dim", {arg_tensor(x), arg_ints({1})}, {ScalarType::Float, {2}});
  auto t = b.call("aten.sum.dim_IntList", {arg_tensor(s), arg_ints({})}, {ScalarType::Float, {}});
  b.output(m);
  b.output(t);
  ExportedProgram ep = b.build();
  const std::string before = print_graph(ep.graph());
  auto run = run_passes(ep, {"legalize_portable_dim_order"});
  REQUIRE(run.status.ok());
  CHECK(print_graph(ep.graph()) == before);
  CHECK_FALSE(run.report.passes[0].changed);
}

TEST_CASE("legalize_portable_dim_order: the op's result and its users take the copy's contiguous layout") {
  // avg_pool2d of a channels-last x, declared channels-last as torch traced
  // it, then relu: ExecuTorch re-traces both on the copy, so both become
  // contiguous (the portable avg_pool2d kernel wants in and out in one dim
  // order). x itself keeps its layout.
  ProgramBuilder b;
  auto x = channels_last_input(b);
  auto pool = b.call("aten.avg_pool2d.default", {arg_tensor(x), arg_ints({2, 2})},
                     {ScalarType::Float, {1, 3, 2, 2}}, {}, "pool");
  auto relu = b.call("aten.relu.default", {arg_tensor(pool)}, {ScalarType::Float, {1, 3, 2, 2}}, {}, "relu");
  declare_channels_last(b, pool);
  declare_channels_last(b, relu);
  b.output(relu);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order", "spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "x") == "float32[1, 3, 4, 4] dim_order=[0, 2, 3, 1] static unplanned");
  CHECK(describe(run.state, "pool") == "float32[1, 3, 2, 2] dim_order=[0, 1, 2, 3] static unplanned");
  CHECK(describe(run.state, "relu") == "float32[1, 3, 2, 2] dim_order=[0, 1, 2, 3] static unplanned");
  const TensorMeta& pooled = *ep.graph().tensor_meta("pool");
  CHECK(pooled.strides == std::vector<SymInt>{SymInt(12), SymInt(4), SymInt(2), SymInt(1)});
  CHECK(run.report.passes[0].stats.at("copies_inserted") == 1);
  CHECK(run.report.passes[0].stats.at("layouts_updated") == 2);
}

TEST_CASE("legalize_portable_dim_order: an op without a stride rule follows its input's new layout") {
  // upsample_nearest2d has no rule in decomp::infer_meta; it follows its
  // input's layout (suggest_memory_format), so after the pool turns
  // contiguous so does its result (the portable kernel wants one dim order).
  ProgramBuilder b;
  auto x = channels_last_input(b);
  auto pool = b.call("aten.avg_pool2d.default", {arg_tensor(x), arg_ints({2, 2})},
                     {ScalarType::Float, {1, 3, 2, 2}}, {}, "pool");
  auto up = b.call("aten.upsample_nearest2d.vec", {arg_tensor(pool), arg_ints({4, 4}), arg_none()},
                   {ScalarType::Float, {1, 3, 4, 4}}, {}, "up");
  declare_channels_last(b, pool);
  declare_channels_last(b, up);
  b.output(up);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order", "spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "pool") == "float32[1, 3, 2, 2] dim_order=[0, 1, 2, 3] static unplanned");
  CHECK(describe(run.state, "up") == "float32[1, 3, 4, 4] dim_order=[0, 1, 2, 3] static unplanned");
  CHECK(run.report.passes[0].stats.at("layouts_updated") == 2);
}

TEST_CASE(
    "legalize_portable_dim_order: a target op whose input an earlier copy made contiguous gets no copy") {
  // avg_pool2d -> _adaptive_avg_pool2d on channels-last x: ExecuTorch visits
  // the second op with the re-traced (contiguous) pool result, so one copy.
  ProgramBuilder b;
  auto x = channels_last_input(b);
  auto pool = b.call("aten.avg_pool2d.default", {arg_tensor(x), arg_ints({2, 2})},
                     {ScalarType::Float, {1, 3, 2, 2}}, {}, "pool");
  auto ada = b.call("aten._adaptive_avg_pool2d.default", {arg_tensor(pool), arg_ints({1, 1})},
                    {ScalarType::Float, {1, 3, 1, 1}}, {}, "ada");
  declare_channels_last(b, pool);
  b.output(ada);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %_to_dim_order_copy = dim_order_ops._to_dim_order_copy.default(%x, dim_order=[0, 1, 2, 3])\n"
        "  %pool = aten.avg_pool2d.default(%_to_dim_order_copy, [2, 2])\n"
        "  %ada = aten._adaptive_avg_pool2d.default(%pool, [1, 1])\n"
        "  return (%ada)\n");
  CHECK(run.report.passes[0].stats.at("copies_inserted") == 1);
}

TEST_CASE("legalize_portable_dim_order: a dim-order copy after a legalized op keeps the order it asks for") {
  // avg_pool2d of a channels-last x is channels-last as traced, so the clone
  // after it (memory_format_to_dim_order gave it dim_order [0, 2, 3, 1]) was
  // a no-op layout-wise; once the pool reads a contiguous copy, the clone's
  // result must still be channels-last, as its out tensor (the portable
  // kernel checks the out tensor's dim order against dim_order).
  ProgramBuilder b;
  auto x = channels_last_input(b);
  auto pool = b.call("aten.avg_pool2d.default", {arg_tensor(x), arg_ints({1, 1})},
                     {ScalarType::Float, {1, 3, 4, 4}}, {}, "pool");
  declare_channels_last(b, pool);
  auto clone = b.call("dim_order_ops._clone_dim_order.default", {arg_tensor(pool)},
                      {ScalarType::Float, {1, 3, 4, 4}}, {{"dim_order", arg_ints({0, 2, 3, 1})}}, "clone");
  declare_channels_last(b, clone);
  b.output(clone);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order", "spec_prop"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "pool") == "float32[1, 3, 4, 4] dim_order=[0, 1, 2, 3] static unplanned");
  CHECK(describe(run.state, "clone") == "float32[1, 3, 4, 4] dim_order=[0, 2, 3, 1] static unplanned");
}

TEST_CASE(
    "legalize_portable_dim_order: size-1 dims with strides out of order are contiguous, as torch's "
    "dim_order()") {
  // x = torch.randn(1, 4).t(): sizes [4, 1], strides [1, 4]. Tensor.dim_order()
  // ignores the size-1 dim and says (0, 1): ExecuTorch inserts no copy.
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4, 1});
  TensorMeta m = *b.program().graph().tensor_meta(x);
  m.strides = {SymInt(1), SymInt(4)};
  b.program().graph().set_tensor_meta(x, m);
  b.output(b.call("aten.sum.dim_IntList", {arg_tensor(x), arg_ints({0}), arg_bool(true)},
                  {ScalarType::Float, {1, 1}}));
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"legalize_portable_dim_order"});
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.report.passes[0].changed);
  CHECK(ep.graph().num_nodes() == 1);
}
