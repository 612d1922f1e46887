// Symbolic shapes through decompositions: view sizes become SymInt arguments
// with sym_size.int / _operator.mul nodes as export writes them, and new
// tensor metas carry symbolic sizes in the program's expression style.
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "decompose_test_util.h"
#include "passes/pass_registry.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::load_program;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::F;

namespace {

SymInt sym(const std::string& expr, int64_t hint) {
  SymExpr e;
  e.expr_str = expr;
  e.hint = SymExprHint::of_int(hint);
  return SymInt(std::move(e));
}

const std::string kS0 = "Symbol('s0', integer=True, positive=True)";
const std::string kS1 = "Symbol('s1', integer=True, positive=True)";

/// A contiguous meta with symbolic sizes (strides computed from `strides`).
TensorMeta meta(std::vector<SymInt> sizes, std::vector<SymInt> strides) {
  TensorMeta m;
  m.dtype = F;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storage_offset = SymInt(0);
  return m;
}
/// Appends `name` = aten.sym_size.int(x, dim), a SymInt of value `v`.
void append_sym_size(ExportedProgram& p, const std::string& x, int64_t dim, const std::string& name,
                     const SymInt& v) {
  p.graph().append(Node(OpTarget("torch.ops.aten.sym_size.int"),
                        {positional("self", arg_tensor(x)), positional("dim", arg_int(dim))},
                        {arg_sym_int(name)}, name));
  p.graph().set_sym_int(name, v);
}

/// Appends `name` = _operator.mul(a, k), a SymInt of value `v`.
void append_mul(ExportedProgram& p, const std::string& a, int64_t k, const std::string& name,
                const SymInt& v) {
  p.graph().append(Node(OpTarget("_operator.mul"),
                        {positional("a", arg_sym_int(a)), positional("b", arg_int(k))}, {arg_sym_int(name)},
                        name));
  p.graph().set_sym_int(name, v);
}
}  // namespace

TEST_CASE("symbolic: tir_dynamic_batch (dynamic batch through linear and matmul)") {
  ExportedProgram ep = load_program("fixtures/tir/tir_dynamic_batch/models/model.json");
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%p_w: float32[6, 3], %p_fc_weight: float32[6, 8], %p_fc_bias: float32[6], %x: float32[s0, 4, 8]):\n"
        "  %sym_size_int_1: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
        "  %mul: SymInt(4*s0) = _operator.mul(%sym_size_int_1, 4)\n"
        "  %view: float32[4*s0, 8] = aten.view.default(%x, [%mul, 8])\n"
        "  %permute: float32[8, 6] = aten.permute.default(%p_fc_weight, [1, 0])\n"
        "  %addmm: float32[4*s0, 6] = aten.addmm.default(%p_fc_bias, %view, %permute)\n"
        "  %view_1: float32[s0, 4, 6] = aten.view.default(%addmm, [%sym_size_int_1, 4, 6])\n"
        "  %relu: float32[s0, 4, 6] = aten.relu.default(%view_1)\n"
        "  %view_2: float32[4*s0, 6] = aten.view.default(%relu, [%mul, 6])\n"
        "  %mm: float32[4*s0, 3] = aten.mm.default(%view_2, %p_w)\n"
        "  %view_3: float32[s0, 4, 3] = aten.view.default(%mm, [%sym_size_int_1, 4, 3])\n"
        "  return (%view_3)\n");
  // New SymInt values and sizes use the program's srepr spelling with hints.
  const Value* mul = ep.graph().find_value("mul");
  REQUIRE(mul);
  REQUIRE(mul->sym_int());
  CHECK(mul->sym_int()->expr().expr_str == "Mul(Integer(4), " + kS0 + ")");
  CHECK(mul->sym_int()->hint() == std::optional<int64_t>(12));
  const TensorMeta* v = ep.graph().tensor_meta("view");
  REQUIRE(v);
  REQUIRE(v->sizes[0].is_symbolic());
  CHECK(v->sizes[0].expr().expr_str == "Mul(Integer(4), " + kS0 + ")");
  CHECK(v->strides[0] == SymInt(8));
  const TensorMeta* v1 = ep.graph().tensor_meta("view_1");
  REQUIRE(v1);
  CHECK(v1->sizes[0].expr().expr_str == kS0);
  // The leading stride of [s0, 4, 6] is 24 (contiguous, independent of s0).
  CHECK(v1->strides[0] == SymInt(24));
  REQUIRE(verify_program(ep).ok());
}

TEST_CASE("symbolic: two dynamic dims flatten through linear with _operator.mul of two sym_size values") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", F, {6, 8});
  auto bias = b.parameter("p_b", "b", F, {6});
  auto x = b.input("x", F, {2, 3, 8});
  b.output(b.call("aten.linear.default", {arg_tensor(x), arg_tensor(w), arg_tensor(bias)}, {F, {2, 3, 6}}));
  ExportedProgram& p = b.program();
  SymInt s0 = sym(kS0, 2), s1 = sym(kS1, 3);
  p.graph().set_tensor_meta("x", meta({s0, s1, SymInt(8)}, {sym("Mul(Integer(8), " + kS1 + ")", 24), SymInt(8),
                                                            SymInt(1)}));
  p.graph().set_tensor_meta("linear", meta({s0, s1, SymInt(6)}, {sym("Mul(Integer(6), " + kS1 + ")", 18), SymInt(6),
                                                                 SymInt(1)}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%p_w: float32[6, 8], %p_b: float32[6], %x: float32[s0, s1, 8]):\n"
        "  %sym_size_int_1: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
        "  %sym_size_int_2: SymInt(s1) = aten.sym_size.int(%x, 1)\n"
        "  %mul: SymInt(s0*s1) = _operator.mul(%sym_size_int_1, %sym_size_int_2)\n"
        "  %view: float32[s0*s1, 8] = aten.view.default(%x, [%mul, 8])\n"
        "  %permute: float32[8, 6] = aten.permute.default(%p_w, [1, 0])\n"
        "  %addmm: float32[s0*s1, 6] = aten.addmm.default(%p_b, %view, %permute)\n"
        "  %view_1: float32[s0, s1, 6] = aten.view.default(%addmm, [%sym_size_int_1, %sym_size_int_2, 6])\n"
        "  return (%view_1)\n");
  const Value* mul = ep.graph().find_value("mul");
  REQUIRE(mul);
  CHECK(mul->sym_int()->expr().expr_str == "Mul(" + kS0 + ", " + kS1 + ")");
  CHECK(mul->sym_int()->hint() == std::optional<int64_t>(6));
}

TEST_CASE("symbolic: an existing SymInt value of the training IR is reused, not recomputed") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4, 8});
  ExportedProgram& p = b.program();
  SymInt s0 = sym(kS0, 4);
  p.graph().set_tensor_meta("x", meta({s0, SymInt(8)}, {SymInt(8), SymInt(1)}));
  append_sym_size(p, x, 0, "sym_size_int", s0);
  p.graph().append(Node(OpTarget("torch.ops.aten.view.default"),
                        {positional("self", arg_tensor(x)),
                         positional("size", Argument::make<ArgTag::SymInts>(std::vector<SymIntArgument>{
                                                {std::string("sym_size_int"), 0}, {std::nullopt, 2}, {std::nullopt, 4}}))},
                        {arg_tensor("view")}, "view"));
  p.graph().set_tensor_meta("view", meta({s0, SymInt(2), SymInt(4)}, {SymInt(8), SymInt(4), SymInt(1)}));
  p.graph().append(Node(OpTarget("torch.ops.aten.flatten.using_ints"),
                        {positional("self", arg_tensor("view")), positional("start_dim", arg_int(0)),
                         positional("end_dim", arg_int(1))},
                        {arg_tensor("flatten")}, "flatten"));
  p.graph().set_tensor_meta("flatten",
                            meta({sym("Mul(Integer(2), " + kS0 + ")", 8), SymInt(4)}, {SymInt(4), SymInt(1)}));
  b.output("flatten");
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%x: float32[s0, 8]):\n"
        "  %sym_size_int: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
        "  %view: float32[s0, 2, 4] = aten.view.default(%x, [%sym_size_int, 2, 4])\n"
        "  %mul: SymInt(2*s0) = _operator.mul(%sym_size_int, 2)\n"
        "  %view_1: float32[2*s0, 4] = aten.view.default(%view, [%mul, 4])\n"
        "  return (%view_1)\n");
  // The flatten's own expression text is reused for the new size.
  const TensorMeta* v1 = ep.graph().tensor_meta("view_1");
  REQUIRE(v1);
  CHECK(v1->sizes[0].expr().expr_str == "Mul(Integer(2), " + kS0 + ")");
}

TEST_CASE("symbolic: batched matmul over a dynamic batch (expand + view + bmm + view)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4, 5});
  auto y = b.input("y", F, {3, 5, 6});
  b.output(b.call("aten.matmul.default", {arg_tensor(x), arg_tensor(y)}, {F, {3, 4, 6}}));
  ExportedProgram& p = b.program();
  SymInt s0 = sym("s0", 3);  // the older str() spelling (torch-export-format.md §9.2)
  p.graph().set_tensor_meta("x", meta({s0, SymInt(4), SymInt(5)}, {SymInt(20), SymInt(5), SymInt(1)}));
  p.graph().set_tensor_meta("y", meta({s0, SymInt(5), SymInt(6)}, {SymInt(30), SymInt(6), SymInt(1)}));
  p.graph().set_tensor_meta("matmul", meta({s0, SymInt(4), SymInt(6)}, {SymInt(24), SymInt(6), SymInt(1)}));
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%x: float32[s0, 4, 5], %y: float32[s0, 5, 6]):\n"
        "  %sym_size_int_1: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
        "  %expand: float32[s0, 4, 5] = aten.expand.default(%x, [%sym_size_int_1, 4, 5])\n"
        "  %view: float32[s0, 4, 5] = aten.view.default(%expand, [%sym_size_int_1, 4, 5])\n"
        "  %expand_1: float32[s0, 5, 6] = aten.expand.default(%y, [%sym_size_int_1, 5, 6])\n"
        "  %view_1: float32[s0, 5, 6] = aten.view.default(%expand_1, [%sym_size_int_1, 5, 6])\n"
        "  %bmm: float32[s0, 4, 6] = aten.bmm.default(%view, %view_1)\n"
        "  %view_2: float32[s0, 4, 6] = aten.view.default(%bmm, [%sym_size_int_1, 4, 6])\n"
        "  return (%view_2)\n");
  const Value* s = ep.graph().find_value("sym_size_int_1");
  REQUIRE(s);
  CHECK(s->sym_int()->expr().expr_str == "s0");
}

TEST_CASE("symbolic: a view of [s0 + 1, 4, 8] as [4*s0 + 4, 8] (a derived dim) is a view") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4, 8});
  ExportedProgram& p = b.program();
  SymInt n = sym("Add(" + kS0 + ", Integer(1))", 3);
  p.graph().set_tensor_meta("x", meta({n, SymInt(4), SymInt(8)}, {SymInt(32), SymInt(8), SymInt(1)}));
  append_sym_size(p, x, 0, "sym_size_int", n);
  SymInt n4 = sym("Add(Mul(Integer(4), " + kS0 + "), Integer(4))", 12);
  append_mul(p, "sym_size_int", 4, "mul", n4);
  p.graph().append(Node(OpTarget("torch.ops.aten.view.default"),
                        {positional("self", arg_tensor(x)),
                         positional("size", Argument::make<ArgTag::SymInts>(std::vector<SymIntArgument>{
                                                {std::string("mul"), 0}, {std::nullopt, 8}}))},
                        {arg_tensor("view")}, "view"));
  p.graph().set_tensor_meta("view", meta({n4, SymInt(8)}, {SymInt(8), SymInt(1)}));
  b.output("view");
  ExportedProgram ep = b.build();
  ep.range_constraints.emplace_back("s0", RangeConstraint{1, 15});
  Status st = pteforge::testing::run_passes(ep, passes::default_pipeline());
  if (!st.ok()) FAIL(st.error().to_string());
  // s0 itself has no hint anywhere; it follows from s0 + 1 = 3 (view_strides
  // orders sizes by hint), and the arena holds the bound 4*15 + 4 = 64 rows.
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%x: float32[s0 + 1, 4, 8]):\n"
        "  %sym_size_int: SymInt(s0 + 1) = aten.sym_size.int(%x, 0)\n"
        "  %mul: SymInt(4*s0 + 4) = executorch_prim.mul.Scalar(%sym_size_int, 4)\n"
        "  %alloc: float32[4*s0 + 4, 8] = memory.alloc([64, 8], torch.float32)\n"
        "  %view: float32[4*s0 + 4, 8] = aten.view_copy.out(%x, [%mul, 8], out=%alloc)\n"
        "  return (%view)\n");
}

TEST_CASE("symbolic: a flatten over derived dims reads the new size off the input's sizes") {
  // No tensor carries s0 or s1 alone: the sizes are read whole (sym_size.int of
  // s0 + 1), then scaled, or two of them multiplied.
  auto flatten_of = [](std::vector<SymInt> sizes, SymInt stride0, SymInt flat, SymInt rest) {
    ProgramBuilder b;
    auto x = b.input("x", F, {3, 4, 8});
    ExportedProgram& p = b.program();
    p.graph().set_tensor_meta("x", meta(sizes, {stride0, SymInt(8), SymInt(1)}));
    p.graph().append(Node(OpTarget("torch.ops.aten.flatten.using_ints"),
                          {positional("self", arg_tensor(x)), positional("start_dim", arg_int(0)),
                           positional("end_dim", arg_int(1))},
                          {arg_tensor("flatten")}, "flatten"));
    p.graph().set_tensor_meta("flatten", meta({flat, rest}, {SymInt(8), SymInt(1)}));
    b.output("flatten");
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    if (!st.ok()) FAIL(st.error().to_string());
    return pteforge::testing::typed(ep.graph());
  };
  SymInt n0 = sym("Add(" + kS0 + ", Integer(1))", 3);
  SymInt n1 = sym("Add(" + kS1 + ", Integer(2))", 4);
  CHECK(flatten_of({n0, SymInt(4), SymInt(8)}, SymInt(32),
                   sym("Add(Mul(Integer(4), " + kS0 + "), Integer(4))", 12), SymInt(8)) ==
        "graph(%x: float32[s0 + 1, 4, 8]):\n"
        "  %sym_size_int_1: SymInt(s0 + 1) = aten.sym_size.int(%x, 0)\n"
        "  %mul: SymInt(4*s0 + 4) = _operator.mul(%sym_size_int_1, 4)\n"
        "  %view: float32[4*s0 + 4, 8] = aten.view.default(%x, [%mul, 8])\n"
        "  return (%view)\n");
  SymInt stride0 = sym("Add(Mul(Integer(8), " + kS1 + "), Integer(16))", 32);
  SymInt flat =
      sym("Add(Mul(Integer(2), " + kS0 + "), Mul(" + kS0 + ", " + kS1 + "), " + kS1 + ", Integer(2))", 12);
  CHECK(flatten_of({n0, n1, SymInt(8)}, stride0, flat, SymInt(8)) ==
        "graph(%x: float32[s0 + 1, s1 + 2, 8]):\n"
        "  %sym_size_int_1: SymInt(s0 + 1) = aten.sym_size.int(%x, 0)\n"
        "  %sym_size_int_2: SymInt(s1 + 2) = aten.sym_size.int(%x, 1)\n"
        "  %mul: SymInt(2*s0 + s0*s1 + s1 + 2) = _operator.mul(%sym_size_int_1, %sym_size_int_2)\n"
        "  %view: float32[2*s0 + s0*s1 + s1 + 2, 8] = aten.view.default(%x, [%mul, 8])\n"
        "  return (%view)\n");
}

TEST_CASE("symbolic: without any hint a view of [s0 + 1, 4, 8] as [4*s0 + 4, 8] still checks") {
  auto no_hint = [](const std::string& expr) {
    SymExpr e;
    e.expr_str = expr;
    return SymInt(std::move(e));
  };
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4, 8});
  ExportedProgram& p = b.program();
  SymInt n = no_hint("Add(" + kS0 + ", Integer(1))");
  SymInt n4 = no_hint("Add(Mul(Integer(4), " + kS0 + "), Integer(4))");
  p.graph().set_tensor_meta("x", meta({n, SymInt(4), SymInt(8)}, {SymInt(32), SymInt(8), SymInt(1)}));
  append_sym_size(p, x, 0, "sym_size_int", n);
  append_mul(p, "sym_size_int", 4, "mul", n4);
  // No hint anywhere: view_strides compares the partial products as polynomials.
  p.graph().append(
      Node(OpTarget("torch.ops.aten.view.default"),
           {positional("self", arg_tensor(x)),
            positional("size", Argument::make<ArgTag::SymInts>(std::vector<SymIntArgument>{
                                   {std::string("mul"), 0}, {std::nullopt, 4}, {std::nullopt, 2}}))},
           {arg_tensor("view")}, "view"));
  p.graph().set_tensor_meta("view", meta({n4, SymInt(4), SymInt(2)}, {SymInt(8), SymInt(2), SymInt(1)}));
  b.output("view");
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::run_passes(ep, {"verify_shapes"});
  if (!st.ok()) FAIL(st.error().to_string());
}

TEST_CASE("symbolic: a flatten of three derived dims multiplies the sizes read whole, left to right") {
  const std::string kS2 = "Symbol('s2', integer=True, positive=True)";
  auto plus1 = [](const std::string& s, int64_t hint) { return sym("Add(" + s + ", Integer(1))", hint); };
  ProgramBuilder b;
  auto x = b.input("x", F, {3, 4, 5, 2});
  ExportedProgram& p = b.program();
  // Strides of a contiguous [s0 + 1, s1 + 1, s2 + 1, 2] (their hints 40, 10, 2).
  SymInt st1 = sym("Add(Mul(Integer(2), " + kS2 + "), Integer(2))", 10);
  p.graph().set_tensor_meta(
      "x", meta({plus1(kS0, 3), plus1(kS1, 4), plus1(kS2, 5), SymInt(2)},
                {sym("Mul(Integer(2), Add(" + kS1 + ", Integer(1)), Add(" + kS2 + ", Integer(1)))", 40), st1,
                 SymInt(2), SymInt(1)}));
  p.graph().append(Node(OpTarget("torch.ops.aten.flatten.using_ints"),
                        {positional("self", arg_tensor(x)), positional("start_dim", arg_int(0)),
                         positional("end_dim", arg_int(2))},
                        {arg_tensor("flatten")}, "flatten"));
  p.graph().set_tensor_meta("flatten", meta({sym("Mul(Add(" + kS0 + ", Integer(1)), Add(" + kS1 +
                                                     ", Integer(1)), Add(" + kS2 + ", Integer(1)))",
                                                 60),
                                             SymInt(2)},
                                            {SymInt(2), SymInt(1)}));
  b.output("flatten");
  ExportedProgram ep = b.build();
  Status st = pteforge::testing::decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  // The new size keeps the declared expression's text (its product form).
  CHECK(pteforge::testing::typed(ep.graph()) ==
        "graph(%x: float32[s0 + 1, s1 + 1, s2 + 1, 2]):\n"
        "  %sym_size_int_1: SymInt(s0 + 1) = aten.sym_size.int(%x, 0)\n"
        "  %sym_size_int_2: SymInt(s1 + 1) = aten.sym_size.int(%x, 1)\n"
        "  %mul: SymInt(s0 + s0*s1 + s1 + 1) = _operator.mul(%sym_size_int_1, %sym_size_int_2)\n"
        "  %sym_size_int_3: SymInt(s2 + 1) = aten.sym_size.int(%x, 2)\n"
        "  %mul_1: SymInt((s0 + 1)*(s1 + 1)*(s2 + 1)) = _operator.mul(%mul, %sym_size_int_3)\n"
        "  %view: float32[(s0 + 1)*(s1 + 1)*(s2 + 1), 2] = aten.view.default(%x, [%mul_1, 2])\n"
        "  return (%view)\n");
}

TEST_CASE("symbolic: a -1 beside a derived size is the exact quotient (view and reshape of [s0 + 1, 4, 8])") {
  for (const auto& call : {std::pair<const char*, const char*>{"torch.ops.aten.view.default", "size"},
                           {"torch.ops.aten.reshape.default", "shape"}}) {
    // (Not a structured binding: clang 14 cannot capture one in CAPTURE's lambda.)
    const char* op = call.first;
    const char* arg = call.second;
    CAPTURE(op);
    ProgramBuilder b;
    auto x = b.input("x", F, {3, 4, 8});
    ExportedProgram& p = b.program();
    SymInt n = sym("Add(" + kS0 + ", Integer(1))", 3);
    p.graph().set_tensor_meta("x", meta({n, SymInt(4), SymInt(8)}, {SymInt(32), SymInt(8), SymInt(1)}));
    append_sym_size(p, x, 0, "sym_size_int", n);
    p.graph().append(Node(OpTarget(op),
                          {positional("self", arg_tensor(x)),
                           positional(arg, Argument::make<ArgTag::SymInts>(std::vector<SymIntArgument>{
                                               {std::string("sym_size_int"), 0}, {std::nullopt, -1}}))},
                          {arg_tensor("v")}, "v"));
    p.graph().set_tensor_meta("v", meta({n, SymInt(32)}, {SymInt(32), SymInt(1)}));
    b.output("v");
    ExportedProgram ep = b.build();
    ep.range_constraints.emplace_back("s0", RangeConstraint{1, 15});
    Status st = pteforge::testing::run_passes(ep, {"decompose", "verify_shapes"});
    if (!st.ok()) FAIL(st.error().to_string());
    const TensorMeta* v = ep.graph().tensor_meta(ep.graph().outputs()[0].tensor_name());
    REQUIRE(v);
    CHECK(v->sizes[1] == SymInt(32));
  }
}
