#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;
using pteforge::testing::strides_of;

namespace {

/// Gives value `name` view strides (as torch.export records them for views).
void set_view_strides(ExportedProgram& ep, const std::string& name, std::vector<int64_t> strides,
                 int64_t offset = 0) {
  TensorMeta m = *ep.graph().tensor_meta(name);
  m.strides.clear();
  for (int64_t s : strides) m.strides.emplace_back(s);
  m.storage_offset = SymInt(offset);
  ep.graph().set_tensor_meta(name, m);
}

}  // namespace

TEST_CASE("replace_view_ops_with_copy: views become _copy ops with contiguous results") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {4, 8});
  auto x = b.input("x", ScalarType::Float, {2, 8});
  auto t = b.call("aten.permute.default", {arg_tensor(w), arg_ints({1, 0})}, {ScalarType::Float, {8, 4}});
  auto tt = b.call("aten.t.default", {arg_tensor(w)}, {ScalarType::Float, {8, 4}});
  auto mm = b.call("aten.mm.default", {arg_tensor(x), arg_tensor(t)}, {ScalarType::Float, {2, 4}});
  auto mm2 = b.call("aten.mm.default", {arg_tensor(x), arg_tensor(tt)}, {ScalarType::Float, {2, 4}});
  auto sel = b.call("aten.select.int", {arg_tensor(mm), arg_int(0), arg_int(1)}, {ScalarType::Float, {4}});
  auto ex = b.call("aten.expand.default", {arg_tensor(sel), arg_ints({3, 4})}, {ScalarType::Float, {3, 4}});
  auto al = b.call("aten.alias.default", {arg_tensor(mm2)}, {ScalarType::Float, {2, 4}});
  auto uv = b.call("aten._unsafe_view.default", {arg_tensor(al), arg_ints({8})}, {ScalarType::Float, {8}});
  auto ct = b.call("aten.contiguous.default", {arg_tensor(ex)}, {ScalarType::Float, {3, 4}});
  auto parts =
      b.call_multi("aten.split.Tensor", {arg_tensor(uv), arg_int(4)},
                   {Out{ScalarType::Float, {4}}, Out{ScalarType::Float, {4}}}, {"getitem", "getitem_1"});
  b.output(ct);
  b.output(parts[1]);
  ExportedProgram ep = b.build();
  set_view_strides(ep, t, {1, 8});
  set_view_strides(ep, tt, {1, 8});
  set_view_strides(ep, sel, {1}, 4);
  set_view_strides(ep, ex, {0, 1}, 4);
  set_view_strides(ep, parts[1], {1}, 4);

  auto run = run_pass(ep, "replace_view_ops_with_copy");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("views_replaced") == 7);
  CHECK(print_graph(ep.graph()) ==
        "graph(%p_w, %x):\n"
        "  %permute = aten.permute_copy.default(%p_w, [1, 0])\n"
        "  %t = aten.t_copy.default(%p_w)\n"
        "  %mm = aten.mm.default(%x, %permute)\n"
        "  %mm_1 = aten.mm.default(%x, %t)\n"
        "  %select = aten.select_copy.int(%mm, 0, 1)\n"
        "  %expand = aten.expand_copy.default(%select, [3, 4])\n"
        "  %alias = aten.alias_copy.default(%mm_1)\n"
        "  %_unsafe_view = aten.view_copy.default(%alias, [8])\n"
        "  %contiguous = aten.contiguous.default(%expand)\n"
        "  %getitem, %getitem_1 = aten.split_copy.Tensor(%_unsafe_view, 4)  # split\n"
        "  return (%contiguous, %getitem_1)\n");
  CHECK(strides_of(ep, t) == std::vector<int64_t>{4, 1});
  CHECK(strides_of(ep, tt) == std::vector<int64_t>{4, 1});
  CHECK(strides_of(ep, ex) == std::vector<int64_t>{4, 1});
  CHECK(strides_of(ep, parts[1]) == std::vector<int64_t>{1});
  CHECK(ep.graph().tensor_meta(sel)->storage_offset == SymInt(int64_t{0}));
  CHECK(ep.graph().tensor_meta(parts[1])->storage_offset == SymInt(int64_t{0}));
}

TEST_CASE("replace_view_ops_with_copy: symbolic sizes get symbolic contiguous strides") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3, 8});
  auto t = b.call("aten.t.default", {arg_tensor(x)}, {ScalarType::Float, {8, 3}});
  b.output(t);
  ExportedProgram ep = b.build();
  TensorMeta m = *ep.graph().tensor_meta(t);
  SymInt s(SymExpr{"s0", SymExprHint::of_int(3)});
  m.sizes = {SymInt(int64_t{8}), s};
  m.strides = {SymInt(int64_t{1}), SymInt(int64_t{8})};
  ep.graph().set_tensor_meta(t, m);
  auto run = run_pass(ep, "replace_view_ops_with_copy");
  REQUIRE(run.status.ok());
  const TensorMeta* out = ep.graph().tensor_meta(t);
  REQUIRE(out->strides.size() == 2);
  REQUIRE(out->strides[0].is_symbolic());
  CHECK(out->strides[0].expr().expr_str == "s0");
  CHECK(out->strides[0].hint() == 3);
  CHECK(out->strides[1] == SymInt(int64_t{1}));
}

TEST_CASE("replace_view_ops_with_copy: no view, no change") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto c = b.call("aten.contiguous.default", {arg_tensor(r)}, {ScalarType::Float, {2, 3}});
  auto v = b.call("aten.view_copy.default", {arg_tensor(c), arg_ints({6})}, {ScalarType::Float, {6}});
  b.output(v);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep, {true});
  auto run = run_pass(ep, "replace_view_ops_with_copy");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep, {true}) == before);
}

TEST_CASE("replace_view_ops_with_copy: a view op without a _copy twin is an error naming the node") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.call("aten.to.dtype", {arg_tensor(x), arg_dtype(ScalarType::Half)}, {ScalarType::Half, {2, 3}});
  b.output(y);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "replace_view_ops_with_copy");
  REQUIRE_FALSE(run.status.ok());
  const Error& e = run.status.error();
  CHECK(e.code == ErrorCode::UNSUPPORTED_OPERATOR);
  CHECK(e.message == "view op aten::to.dtype has no _copy variant (expected aten::to_copy.dtype)");
  CHECK(e.where.node == "to");
  CHECK(e.where.pass == "replace_view_ops_with_copy");
}

TEST_CASE("replace_view_ops_with_copy: results that followed a view's layout become contiguous too") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.input("y", ScalarType::Float, {3, 2});
  auto t = b.call("aten.permute.default", {arg_tensor(x), arg_ints({1, 0})}, {ScalarType::Float, {3, 2}});
  auto r = b.call("aten.relu.default", {arg_tensor(t)}, {ScalarType::Float, {3, 2}});
  auto a = b.call("aten.add.Tensor", {arg_tensor(r), arg_tensor(y)}, {ScalarType::Float, {3, 2}});
  auto c = b.call("aten.clone.default", {arg_tensor(a)}, {ScalarType::Float, {3, 2}});
  auto s = b.call("aten._softmax.default", {arg_tensor(c), arg_int(1), arg_bool(false)},
                  {ScalarType::Float, {3, 2}});
  auto yt = b.input("yt", ScalarType::Float, {3, 2});
  auto m = b.call("aten.mul.Tensor", {arg_tensor(t), arg_tensor(yt)}, {ScalarType::Float, {3, 2}});
  b.output(s);
  b.output(m);
  ExportedProgram ep = b.build();
  // As exported: the permute and everything that followed its layout have strides [1, 3].
  for (const auto& name : {t, r, a, c, s, yt, m}) set_view_strides(ep, name, {1, 3});
  auto run = run_pass(ep, "replace_view_ops_with_copy");
  REQUIRE(run.status.ok());
  CHECK(run.report.passes[0].stats.at("layouts_refreshed") == 3);
  CHECK(strides_of(ep, t) == std::vector<int64_t>{2, 1});
  CHECK(strides_of(ep, r) == std::vector<int64_t>{2, 1});
  CHECK(strides_of(ep, a) == std::vector<int64_t>{2, 1});
  CHECK(strides_of(ep, c) == std::vector<int64_t>{2, 1});
  CHECK(strides_of(ep, s) == std::vector<int64_t>{1, 3});  // not layout-following: kept
  CHECK(strides_of(ep, m) == std::vector<int64_t>{1, 3});  // its other input is still transposed
}
