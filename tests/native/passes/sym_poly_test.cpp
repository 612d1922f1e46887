// SymPoly arithmetic and its expansion limit: a symbolic size whose product
// would expand past SymPoly::kMaxTerms stays one opaque atom, so a crafted
// expression cannot make the passes expand millions of terms (a hang).
#include "passes/decompositions/sym_poly.h"

#include <doctest/doctest.h>

#include <string>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"
#include "passes/decompositions/meta.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::passes::decomp::SymbolTable;
using pteforge::passes::decomp::SymPoly;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

namespace {

/// s<first> + s<first+1> + ... (n atoms).
SymPoly sum_of_atoms(int first, int n) {
  SymPoly p;
  for (int i = first; i < first + n; ++i) p = p + SymPoly::atom("s" + std::to_string(i));
  return p;
}

std::string srepr_symbol(int i) {
  return "Symbol('s" + std::to_string(i) + "', integer=True, positive=True)";
}

/// srepr text of s<first> + ... (n symbols).
std::string srepr_sum(int first, int n) {
  std::string t = "Add(";
  for (int i = first; i < first + n; ++i) t += (i > first ? ", " : "") + srepr_symbol(i);
  return t + ")";
}

SymInt sym(const std::string& expr, int64_t hint) {
  SymExpr e;
  e.expr_str = expr;
  e.hint = SymExprHint::of_int(hint);
  return SymInt(std::move(e));
}

}  // namespace

TEST_CASE("SymPoly: small products expand exactly") {
  const SymPoly a = SymPoly::atom("s0") + SymPoly(1);
  const SymPoly b = SymPoly::atom("s1") + SymPoly(2);
  const SymPoly p = a * b;
  CHECK(p.key() == "2+2*s0+1*s0*s1+1*s1");
  CHECK(p.constant() == 2);
  CHECK(p.terms().size() == 3);
  CHECK(p == b * a);
}

TEST_CASE("SymPoly: exact division by a polynomial, and none where it does not divide") {
  const SymPoly s0 = SymPoly::atom("s0"), s1 = SymPoly::atom("s1"), s2 = SymPoly::atom("s2");
  const SymPoly a = s0 + SymPoly(1), b = s1 + SymPoly(2);
  auto key_of = [](const std::optional<SymPoly>& q) { return q ? q->key() : std::string("none"); };
  CHECK(key_of((a * SymPoly(32)).div_exact(a)) == "32");
  CHECK(key_of((a * b).div_exact(a)) == (b).key());
  CHECK(key_of((a * b).div_exact(b)) == (a).key());
  CHECK(key_of((a * b * (s2 + SymPoly(3)) * SymPoly(4)).div_exact(a * b)) ==
        (s2 * SymPoly(4) + SymPoly(12)).key());
  CHECK(key_of((s0 * SymPoly(4)).div_exact(s0)) == "4");
  CHECK(key_of((s0 * s0 - SymPoly(1)).div_exact(s0 - SymPoly(1))) == (s0 + SymPoly(1)).key());
  CHECK(key_of((a * SymPoly(32) + SymPoly(1)).div_exact(a)) == "none");
  CHECK(key_of((s0 * s1).div_exact(s0 + s1)) == "none");
  CHECK(key_of((a * b).div_exact(s0)) == "none");
  CHECK(key_of(a.div_exact(SymPoly(0))) == "none");
  CHECK(key_of(SymPoly(0).div_exact(a)) == "0");
  CHECK(key_of(SymPoly(6).div_exact(a)) == "none");
}

TEST_CASE("SymPoly: a product up to kMaxTerms terms expands, one past it stays an opaque atom") {
  REQUIRE(SymPoly::kMaxTerms == 1024);
  // 32 x 32 = 1024 terms: expanded.
  const SymPoly a = sum_of_atoms(0, 32);
  const SymPoly b = sum_of_atoms(100, 32);
  CHECK_FALSE(SymPoly::product_too_large(a, b));
  const SymPoly ab = a * b;
  CHECK(ab.terms().size() == 1024);
  CHECK(ab.constant() == 0);
  // A constant term counts: (32 atoms + 1) x 32 = 1056 terms.
  const SymPoly a1 = a + SymPoly(1);
  CHECK(SymPoly::product_too_large(a1, b));
  const SymPoly big = a1 * b;
  REQUIRE(big.as_atom().has_value());
  CHECK(big.as_atom()->rfind("(product#", 0) == 0);
  CHECK(big.as_atom()->size() == std::string("(product#)").size() + 32);
  // The opaque product commutes and differs from other products.
  CHECK(big == b * a1);
  CHECK(big != a1 * (b + SymPoly(1)));
  // A constant factor never counts as a product of terms.
  CHECK_FALSE(SymPoly::product_too_large(sum_of_atoms(0, 5000), SymPoly(3)));
  CHECK((sum_of_atoms(0, 5000) * SymPoly(3)).terms().size() == 5000);
}

TEST_CASE("SymbolTable: an input expression that would expand past the limit is one atom with its own text") {
  // (s0 + ... + s7)^30 as a product of 30 sums: C(37, 7) = 10,295,472 terms expanded.
  std::string expr = "Mul(";
  for (int i = 0; i < 30; ++i) expr += (i ? ", " : "") + srepr_sum(0, 8);
  expr += ")";
  SymbolTable table;
  auto p = table.to_poly(sym(expr, 3));
  REQUIRE_MESSAGE(p.ok(), p.error().to_string());
  REQUIRE(p->as_atom().has_value());
  std::string one = "(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7)";
  std::string plain;
  for (int i = 0; i < 30; ++i) plain += (i ? "*" : "") + one;
  CHECK(*p->as_atom() == "(" + plain + ")");
  // A power of a sum too: (s0 + ... + s31)^2 multiplies 32 x 32 term pairs
  // (expanded: 528 terms); ^3 would multiply 528 x 32.
  auto square = table.to_poly(sym("Pow(" + srepr_sum(0, 32) + ", Integer(2))", 3));
  REQUIRE(square.ok());
  CHECK(square->terms().size() == 528);
  auto cube = table.to_poly(sym("Pow(" + srepr_sum(0, 32) + ", Integer(3))", 3));
  REQUIRE(cube.ok());
  CHECK(cube->as_atom().has_value());
}

TEST_CASE("SymbolTable: a sum of 20,000 symbols becomes a polynomial of 20,000 terms") {
  // Built in place (+=): a copy per term made this quadratic (a 40,000-symbol
  // size in a 3.5 MB program took over a minute).
  SymbolTable table;
  auto p = table.to_poly(sym(srepr_sum(0, 20000), 3));
  REQUIRE_MESSAGE(p.ok(), p.error().to_string());
  CHECK(p->terms().size() == 20000);
  CHECK(p->constant() == 0);
  CHECK(p->terms().count({"s19999"}) == 1);
  SymPoly q = SymPoly::atom("s0");
  q += SymPoly(4);
  q += SymPoly::atom("s0");
  CHECK(q.key() == "4+2*s0");
}

TEST_CASE(
    "verify_shapes: a tensor whose sizes are long sums of symbols is checked without expanding their "
    "product") {
  // relu of a rank-5 tensor whose every size is s0 + ... + s59: its contiguous
  // strides multiply the sizes, which expanded would be C(63, 3) = 39,711 terms
  // for the second stride and millions for the first (this used to hang).
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 1, 1, 1, 1});
  auto r = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {1, 1, 1, 1, 1}});
  b.output(r);
  ExportedProgram ep = b.build();
  const SymInt size = sym(srepr_sum(0, 60), 120);
  for (const std::string& name : {x, r}) {
    TensorMeta m = *ep.graph().tensor_meta(name);
    m.sizes.assign(5, size);
    ep.graph().set_tensor_meta(name, m);
  }
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.report.passes[0].stats.at("nodes_checked") == 1);
  CHECK(print_exported_program(ep) == before);
}

TEST_CASE("SymPoly: dividing a 1,000-term product by a factor finishes (a bench guard, not a timing)") {
  // (s0 + 1) * (t1 + ... + t500) has 1,000 terms; dividing by s0 + 1 takes 500 steps.
  SymPoly many;
  for (int i = 1; i <= 500; ++i) many += SymPoly::atom("t" + std::to_string(i));
  const SymPoly a = SymPoly::atom("s0") + SymPoly(1);
  const SymPoly p = a * many;
  REQUIRE(p.terms().size() == 1000);
  std::optional<SymPoly> q = p.div_exact(a);
  REQUIRE(q);
  CHECK(*q == many);
  CHECK_FALSE((p + SymPoly(1)).div_exact(a));
}
