// sym_shape_eval: symbolic sizes -> upper bounds from range_constraints (§1.3 B8, §5.3),
// and the interval arithmetic behind it (passes/sym_bounds.h).
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "et_test_util.h"
#include "ir/printer.h"
#include "passes/sym_bounds.h"

using namespace pteforge;
using namespace pteforge::ir;
using passes::SymInterval;
using pteforge::testing::et::describe;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::et::run_passes;

namespace {

SymInterval bound(const std::string& text) {
  auto e = parse_sym_expr(text);
  REQUIRE_MESSAGE(e.ok(), text);
  return passes::bound_sym_expr(*e, [](std::string_view s) -> std::optional<SymInterval> {
    if (s == "s0") return SymInterval{2, 32};
    if (s == "s1") return SymInterval{1, 8};
    if (s == "u0") return SymInterval{0, SymInterval::kPosInf};
    return std::nullopt;
  });
}

/// relu(x) with x and the result of float32[size].
ExportedProgram relu_of_size(const SymInt& size) {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3});
  b.output(b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {3}}));
  ExportedProgram ep = b.build();
  for (const char* v : {"x", "relu"}) {
    TensorMeta meta = *ep.graph().tensor_meta(v);
    meta.sizes[0] = size;
    ep.graph().set_tensor_meta(v, meta);
  }
  return ep;
}

void strip_max(ExportedProgram& ep) {
  for (auto& [name, rc] : ep.range_constraints) rc.max_val.reset();
}

}  // namespace

TEST_CASE("sym_bounds: interval arithmetic over sympy expressions") {
  CHECK(bound("Mul(Integer(4), Symbol('s0', integer=True, positive=True))") == SymInterval{8, 128});
  CHECK(bound("2*s0") == SymInterval{4, 64});
  CHECK(bound("s0 + s1 - 1") == SymInterval{2, 39});
  CHECK(bound("s0*s1") == SymInterval{2, 256});
  CHECK(bound("(s0//2)") == SymInterval{1, 16});
  CHECK(bound("FloorDiv(s0, s1)") == SymInterval{0, 32});
  CHECK(bound("CeilDiv(s0, 4)") == SymInterval{1, 8});
  CHECK(bound("Mod(s0, 3)") == SymInterval{0, 2});
  CHECK(bound("PythonMod(s1, 16)") == SymInterval{1, 8});
  // Within one run of the divisor's multiples (18..20 and 33..40 here) the remainder increases
  // with the dividend, as torch's ValueRanges mod maps it; across runs it is [0, d - 1].
  CHECK(bound("Mod(s0 + 16, 16)") == SymInterval{0, 15});
  CHECK(bound("Mod(s1 + 17, 16)") == SymInterval{2, 9});
  CHECK(bound("PythonMod(s1 + 32, 16)") == SymInterval{1, 8});
  CHECK(bound("Mod(s1 + 32, 3)") == SymInterval{0, 2});
  CHECK(bound("Max(s0, 40)") == SymInterval{40, 40});
  CHECK(bound("Max(s0, s1)") == SymInterval{2, 32});
  CHECK(bound("Min(s0, 10)") == SymInterval{2, 10});
  CHECK(bound("Pow(s1, 2)") == SymInterval{1, 64});
  CHECK(bound("-s0 + 40") == SymInterval{8, 38});
  CHECK(bound("Abs(s1 - 4)") == SymInterval{0, 4});
  CHECK(bound("Rational(7, 2)") == SymInterval{3, 4});
  // Rational coefficients apply exactly (sympy writes s0/2 as Mul(Rational(1, 2), s0)); the str
  // form's true division by a constant is the same; an inexact end rounds outward.
  CHECK(bound("Mul(Rational(3, 2), Symbol('s0', integer=True, positive=True))") == SymInterval{3, 48});
  CHECK(bound("Mul(Rational(1, 4), s0)") == SymInterval{0, 8});
  CHECK(bound("s0/2") == SymInterval{1, 16});
  CHECK(bound("s0/(-2)") == SymInterval{-16, -1});
  CHECK(bound("Mul(Rational(1, 3), s0)") == SymInterval{0, 11});
  CHECK(bound("Mul(Rational(-1, 2), s0)") == SymInterval{-16, -1});
  CHECK(bound("s0 <= 16") == SymInterval{0, 1});
  // A symbol without a range is a size: [0, +inf).
  CHECK(bound("s9") == SymInterval{0, SymInterval::kPosInf});
  CHECK(bound("10 - s9") == SymInterval{SymInterval::kNegInf, 10});
  CHECK_FALSE(bound("u0 + 1").has_upper());
  CHECK(bound("u0 + 1").lo == 1);
  CHECK_FALSE(bound("Foo(s0)").has_upper());
  CHECK_FALSE(bound("Foo(s0)").has_lower());
  CHECK_FALSE(bound("FloorDiv(s0, s1 - 1)").has_upper());  // divisor range contains 0
  CHECK(bound("Mul(Integer(4611686018427387904), s0)").hi == SymInterval::kPosInf);  // saturates
}

TEST_CASE("sym_bounds: torch's integer and float functions (what bound_sympy bounds, s0 in [2, 32])") {
  // Python n ** 2 and a non-integer scale (interpolate), floor / ceil / trunc of true division.
  CHECK(bound("PowByNatural(s0, 2)") == SymInterval{4, 1024});
  CHECK(bound("PowByNatural(2, s1)") == SymInterval{2, 256});
  CHECK(bound("TruncToInt(Mul(Float(1.5), ToFloat(s0)))") == SymInterval{3, 48});
  CHECK(bound("FloorToInt(Mul(Float(2.0), ToFloat(s0)))") == SymInterval{4, 64});
  CHECK(bound("TruncToInt(IntTrueDiv(s0, 2))") == SymInterval{1, 16});
  CHECK(bound("CeilToInt(IntTrueDiv(s0, 3))") == SymInterval{1, 11});
  CHECK(bound("RoundToInt(FloatTrueDiv(ToFloat(s0), Float(4.0)))") == SymInterval{0, 8});
  CHECK(bound("CleanDiv(4*s0, 2)") == SymInterval{4, 64});
  CHECK(bound("ModularIndexing(s0, 1, 4)") == SymInterval{0, 3});
  CHECK(bound("ModularIndexing(s1, 2, 16)") == SymInterval{0, 4});
  CHECK(bound("LShift(s0, 1)") == SymInterval{4, 64});
  CHECK(bound("RShift(s0, 2)") == SymInterval{0, 8});
  // Either branch, whatever the condition.
  CHECK(bound("Where(s0 > 5, s0, 5)") == SymInterval{2, 32});
  CHECK(bound("Piecewise(ExprCondPair(s1, s1 > 5), ExprCondPair(40, True))") == SymInterval{1, 40});
  CHECK(bound("Piecewise((s1, s1 > 5), (40, True))") == SymInterval{1, 40});  // str() form
  // A float without a bounded integer cast stays unbounded; a divisor range around 0 too.
  CHECK_FALSE(bound("TruncToInt(IntTrueDiv(s0, s1 - 1))").has_upper());
}

TEST_CASE("sym_shape_eval: dynamic_batch -> DYNAMIC_BOUND specs at their upper bounds - then planned") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.report.diagnostics.empty());
  CHECK(print_graph(ep.graph()) ==
        "graph(%p_fc_weight, %p_fc_bias, %x):\n"
        "  %sym_size_int_1 = aten.sym_size.int(%x, 0)\n"
        "  %mul = executorch_prim.mul.Scalar(%sym_size_int_1, 4)\n"
        "  %view = memory.view(%x, [%mul, 8])\n"
        "  %alloc = memory.alloc([8, 6], torch.float32)\n"
        "  %permute = aten.permute_copy.out(%p_fc_weight, [1, 0], out=%alloc)\n"
        "  %alloc_1 = memory.alloc([128, 6], torch.float32)\n"
        "  %addmm = aten.addmm.out(%p_fc_bias, %view, %permute, out=%alloc_1)\n"
        "  %view_1 = memory.view(%addmm, [%sym_size_int_1, 4, 6])\n"
        "  %alloc_2 = memory.alloc([32, 4, 6], torch.float32)\n"
        "  %relu = aten.relu.out(%view_1, out=%alloc_2)\n"
        "  return (%relu)\n");
  CHECK(describe(run.state, "x") == "float32[32, 4, 8] dim_order=[0, 1, 2] dynamic_bound mem=1@0 life=[0,9]");
  CHECK(run.state.specs.get("x")->strides == std::vector<int64_t>{32, 8, 1});
  CHECK(describe(run.state, "view") == "float32[128, 8] dim_order=[0, 1] dynamic_bound mem=1@0 life=[0,9] view");
  CHECK(describe(run.state, "permute") == "float32[8, 6] dim_order=[0, 1] static mem=1@7168 life=[6,9]");
  CHECK(describe(run.state, "addmm") == "float32[128, 6] dim_order=[0, 1] dynamic_bound mem=1@4096 life=[8,12]");
  CHECK(describe(run.state, "view_1") == "float32[32, 4, 6] dim_order=[0, 1, 2] dynamic_bound mem=1@4096 life=[8,12] view");
  CHECK(describe(run.state, "relu") == "float32[32, 4, 6] dim_order=[0, 1, 2] dynamic_bound mem=1@0 life=[11,13]");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 7360});
  // The symbolic shape is kept next to the bounds.
  CHECK(run.state.specs.get("view")->sym_sizes[0].is_symbolic());
}

TEST_CASE("sym_shape_eval: dynamic_batch_plain (str-form expressions) gives the same bounds") {
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch_plain/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "x") == "float32[32, 4, 8] dim_order=[0, 1, 2] dynamic_bound mem=1@0 life=[0,9]");
  CHECK(describe(run.state, "view") == "float32[128, 8] dim_order=[0, 1] dynamic_bound mem=1@0 life=[0,9] view");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 7360});
}

TEST_CASE("sym_shape_eval: corpus dynamic_seq - s from 2 to 64") {
  ExportedProgram ep = testing::et::load_program("fixtures/corpus/dynamic_seq/json/models/model.json");
  testing::et::to_edge_lite(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.report.diagnostics.empty());
  CHECK(describe(run.state, "x") == "float32[1, 64, 8] dim_order=[0, 1, 2] dynamic_bound mem=1@0 life=[0,8]");
  CHECK(describe(run.state, "addmm") == "float32[64, 6] dim_order=[0, 1] dynamic_bound mem=1@2048 life=[7,11]");
  CHECK(describe(run.state, "_softmax") == "float32[1, 64, 6] dim_order=[0, 1, 2] dynamic_bound mem=1@0 life=[10,12]");
  CHECK(run.state.non_const_buffer_sizes == std::vector<uint64_t>{0, 3776});
}

TEST_CASE("sym_shape_eval: a symbol without an upper bound is refused, as ExecuTorch's pass does") {
  // ExecuTorch's ConstraintBasedSymShapeEvalPass gets int_oo from eval_upper_bound and raises;
  // planning at the example size (s0 = 3) would overflow for any larger input.
  ExportedProgram ep = testing::et::load_program("fixtures/programs/dynamic_batch/models/model.json");
  testing::et::to_edge_lite(ep);
  strip_max(ep);
  auto run = run_passes(ep, testing::et::to_executorch_passes());
  REQUIRE_FALSE(run.status.ok());
  const Error& e = run.status.error();
  CHECK(e.code == ErrorCode::PASS_FAILED);
  CHECK(
      e.message ==
      "cannot compute an upper bound of the symbolic size 's0' of 'x': range_constraints give no max to its "
      "symbol 's0' (ExecuTorch's ConstraintBasedSymShapeEvalPass refuses it too, and memory planning needs a "
      "bound); give each a max in the dynamic shapes, e.g. Dim(\"s0\", max=N)");
  CHECK(e.where.node == std::optional<std::string>("x"));
  CHECK(e.where.pass == std::optional<std::string>("sym_shape_eval"));
  CHECK(run.report.diagnostics.empty());
}

TEST_CASE(
    "sym_shape_eval: bounded symbols whose expression has no integer bound are refused, not planned at the "
    "hint") {
  // x: float32[size] with s0 in [2, 2^20] (hint 3). ExecuTorch's eval_upper_bound raises for a
  // float factor; s0**5 it bounds with Python integers (2^100), a tensor no planner can place.
  // `stride`: the size is s0 and the stride `expr` (x as float32[s0, 1] with that stride).
  auto check = [](const std::string& expr, bool stride = false) {
    ExportedProgram ep = relu_of_size(SymInt(SymExpr{stride ? "s0" : expr, SymExprHint::of_int(3)}));
    if (stride) {
      for (const char* v : {"x", "relu"}) {
        TensorMeta meta = *ep.graph().tensor_meta(v);
        meta.sizes.push_back(SymInt(int64_t{1}));
        meta.strides = {SymInt(SymExpr{expr, SymExprHint::of_int(3)}), SymInt(int64_t{1})};
        ep.graph().set_tensor_meta(v, meta);
      }
    }
    RangeConstraint rc;
    rc.min_val = 2;
    rc.max_val = int64_t{1} << 20;
    ep.range_constraints.emplace_back("s0", rc);
    auto run = run_passes(ep, {"spec_prop", "sym_shape_eval"});
    return run.status.ok() ? std::string() : run.status.error().message;
  };
  CHECK(check("s0") == "");
  CHECK(check("s0**2") == "");
  CHECK(check("s0**5") ==
        "cannot compute an integer upper bound of the symbolic size 's0**5' of 'x' although each of its "
        "symbols has a max: it overflows 64 bits (no tensor that large can be planned), or it is not an "
        "integer expression (a float factor, a true division), which ExecuTorch's eval_upper_bound refuses "
        "too");
  // A stride is named as one (the sizes, here s0 and 1, have bounds).
  CHECK(check("s0**4", true)
            .find("cannot compute an integer upper bound of the symbolic stride 's0**4' of "
                  "'x' although") == 0);
  CHECK(check("s0**2", true) == "");
  CHECK(check("Mul(Float(0.5), s0)")
            .find("cannot compute an integer upper bound of the symbolic size '0.5*s0'") == 0);
}

TEST_CASE("sym_shape_eval: an unbounded expression names its symbols, at most five") {
  // No range_constraints at all: every symbol is unbounded (bound_sympy gives [1, oo]).
  ExportedProgram ep =
      relu_of_size(SymInt(SymExpr{"s0 + s1 + s2 + s3 + s4 + s5 + s6", SymExprHint::of_int(-3)}));
  auto run = run_passes(ep, {"spec_prop", "sym_shape_eval"});
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "cannot compute an upper bound of the symbolic size 's0 + s1 + s2 + s3 + s4 + s5 + s6' of 'x': "
        "range_constraints give no max to its symbols 's0', 's1', 's2', 's3', 's4' and 2 more (ExecuTorch's "
        "ConstraintBasedSymShapeEvalPass refuses it too, and memory planning needs a bound); give each a max "
        "in "
        "the dynamic shapes, e.g. Dim(\"s0\", max=N)");
  CHECK(run.status.error().where.node == std::optional<std::string>("x"));
}

TEST_CASE("sym_shape_eval: an unbacked size (no hint) with a bounded range is planned at its bound") {
  // nonzero(x[4, 3]) -> int64[u0, 2], u0 in [0, 12]: ExecuTorch's bound_sympy gives [12, 2].
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4, 3});
  auto nz = b.call("aten.nonzero.default", {arg_tensor(x)}, {ScalarType::Long, {1, 2}});
  auto n = b.call("aten.neg.default", {arg_tensor(nz)}, {ScalarType::Long, {1, 2}});
  b.output(n);
  ExportedProgram ep = b.build();
  for (const std::string& v : {nz, n}) {
    TensorMeta meta = *ep.graph().tensor_meta(v);
    meta.sizes[0] = SymInt(SymExpr{"u0", std::nullopt});
    meta.strides[0] = SymInt(int64_t{2});
    ep.graph().set_tensor_meta(v, meta);
  }
  RangeConstraint rc;
  rc.min_val = 0;
  rc.max_val = 12;
  ep.range_constraints.emplace_back("u0", rc);
  auto run = run_passes(ep, {"spec_prop", "sym_shape_eval"});
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(describe(run.state, "nonzero") == "int64[12, 2] dim_order=[0, 1] dynamic_bound unplanned");
  CHECK(describe(run.state, "neg") == "int64[12, 2] dim_order=[0, 1] dynamic_bound unplanned");
  // Without a max the size has neither a hint nor a bound: refused where its spec is made.
  ep.range_constraints.clear();
  auto unbounded = run_passes(ep, {"spec_prop"});
  REQUIRE_FALSE(unbounded.status.ok());
  CHECK(unbounded.status.error().message ==
        "value 'nonzero': size 'u0' is symbolic without a trace-time hint (unbacked) and range_constraints "
        "give "
        "it no upper bound");
}

TEST_CASE("sym_shape_eval: an unbounded size without a hint fails - no specs is a precondition error") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4});
  auto nz = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {4}});
  b.output(nz);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  // An unbacked size (data-dependent, no hint) on the spec itself.
  passes::TensorSpecPtr spec = run.state.specs.get("relu");
  spec->sym_sizes = {SymInt(SymExpr{"u0", std::nullopt})};
  passes::PipelineOptions options;
  options.passes = {"sym_shape_eval"};
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  passes::PassReport report;
  Status st = pm->run(ep, run.state, report);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::PASS_FAILED);
  CHECK(st.error().where.node == std::optional<std::string>("relu"));
  CHECK(st.error().message.find("'u0'") != std::string::npos);

  ExportedProgram ep2 = testing::et::load_program("fixtures/programs/ref_add/models/model.json");
  auto run2 = run_passes(ep2, {"sym_shape_eval"});
  REQUIRE_FALSE(run2.status.ok());
  CHECK(run2.status.error().code == ErrorCode::PASS_PRECONDITION);
}

TEST_CASE(
    "sym_shape_eval: a static program changes nothing - a spec whose strides would change is still "
    "evaluated") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_passes(ep, {"spec_prop"});
  REQUIRE(run.status.ok());
  passes::PipelineOptions options;
  options.passes = {"sym_shape_eval"};
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  {
    passes::PassReport report;
    REQUIRE(pm->run(ep, run.state, report).ok());
    REQUIRE(report.passes.size() == 1);
    CHECK_FALSE(report.passes[0].changed);
    CHECK(run.state.specs.get("relu")->strides == std::vector<int64_t>{3, 1});
  }
  // A view spec (strides = contiguous strides of its sizes) holding other
  // strides, and a spec without traced strides: both get contiguous strides,
  // as before the static fast path; nothing symbolic, so still "unchanged".
  passes::TensorSpecPtr view = run.state.specs.get("relu");
  view->base = run.state.specs.get("x");
  view->sym_strides.clear();
  view->strides = {1, 2};
  passes::TensorSpecPtr input = run.state.specs.get("x");
  input->sym_strides.clear();
  input->strides = {9, 9};
  passes::PassReport report;
  REQUIRE(pm->run(ep, run.state, report).ok());
  CHECK_FALSE(report.passes[0].changed);
  CHECK(view->strides == std::vector<int64_t>{3, 1});
  CHECK(input->strides == std::vector<int64_t>{3, 1});
}
