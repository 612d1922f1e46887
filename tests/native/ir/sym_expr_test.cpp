// sympy expression parsing, display and evaluation (§9.2).
#include "ir/sym_expr.h"

#include <doctest/doctest.h>

#include <cstdint>

using namespace pteforge;
using namespace pteforge::ir;

namespace {
std::string show(std::string_view text) {
  auto e = parse_sym_expr(text);
  return e.ok() ? format_sym_expr(*e) : "error: " + e.error().message;
}
std::optional<int64_t> eval(std::string_view text, int64_t s0 = 5, int64_t s1 = 7) {
  auto e = parse_sym_expr(text);
  REQUIRE(e.ok());
  return evaluate_sym_expr(*e, [&](std::string_view name) -> std::optional<int64_t> {
    if (name == "s0" || name == "s53") return s0;
    if (name == "s1") return s1;
    return std::nullopt;
  });
}
}  // namespace

TEST_CASE("sym_expr: srepr form displays compactly") {
  CHECK(show("Symbol('s53', integer=True, positive=True)") == "s53");
  CHECK(show("Mul(Integer(8), Symbol('s53', integer=True, positive=True))") == "8*s53");
  CHECK(show("Add(Symbol('s0', integer=True, positive=True), Integer(-1))") == "s0 - 1");
  CHECK(show("Add(Integer(-1), Symbol('s0', integer=True))") == "s0 - 1");
  CHECK(show("Add(Mul(Integer(-2), Symbol('s1')), Symbol('s0'))") == "s0 - 2*s1");
  CHECK(show("FloorDiv(Mul(Integer(2), Symbol('x', positive=True)), Integer(3))") == "(2*x//3)");
  CHECK(show("Pow(Symbol('s0'), Integer(2))") == "s0**2");
  CHECK(show("Mul(Add(Symbol('s0'), Integer(1)), Symbol('s1'))") == "(s0 + 1)*s1");
  CHECK(show("StrictLessThan(Symbol('u0'), Integer(64))") == "u0 < 64");
  CHECK(show("Max(Symbol('s0'), Symbol('s1'))") == "Max(s0, s1)");
  CHECK(show("Rational(1, 2)") == "1/2");
  CHECK(show("Float('1.5', precision=53)") == "1.5");
  CHECK(show("And(LessThan(Integer(2), Symbol('s0')), Eq(Symbol('s1'), Integer(3)))") == "(2 <= s0) & (s1 == 3)");
  CHECK(show("true") == "True");
}

TEST_CASE("sym_expr: str form displays compactly") {
  CHECK(show("s0") == "s0");
  CHECK(show("2*s0") == "2*s0");
  CHECK(show("s0 + 1") == "s0 + 1");
  CHECK(show("(s0//2)") == "(s0//2)");
  CHECK(show("-s0 + 4") == "4 - s0");
  CHECK(show("s0**2 - 1") == "s0**2 - 1");
  CHECK(show("s0 <= 64") == "s0 <= 64");
  CHECK(show("Eq(s0, 2)") == "s0 == 2");
  // Piecewise's (value, condition) pairs are tuples in str() form.
  CHECK(show("Piecewise((s0, s0 > 5), (40, True))") == "Piecewise((s0, s0 > 5), (40, True))");
  CHECK(show("(s0, 2,)") == "(s0, 2)");
  CHECK(show("(s0, ") == "error: cannot parse symbolic expression \"(s0, \": unexpected end at offset 5");
}

TEST_CASE("sym_expr: evaluation with Python integer semantics") {
  CHECK(eval("Mul(Integer(8), Symbol('s53'))", 5) == 40);
  CHECK(eval("s0 + s1") == 12);
  CHECK(eval("FloorDiv(Integer(-7), Integer(2))") == -4);
  CHECK(eval("Mod(Integer(-7), Integer(3))") == 2);
  CHECK(eval("PythonMod(Integer(7), Integer(-3))") == -2);
  CHECK(eval("CeilDiv(s1, Integer(2))") == 4);
  CHECK(eval("Max(s0, s1, Integer(3))") == 7);
  CHECK(eval("s0**2") == 25);
  CHECK(eval("ModularIndexing(s1, Integer(2), Integer(2))") == 1);
  CHECK(eval("s0 < s1") == 1);
  CHECK_FALSE(eval("u0 + 1").has_value());                  // unbound symbol
  CHECK_FALSE(eval("FloorDiv(s0, Integer(0))").has_value());  // division by zero
  CHECK_FALSE(eval("Mul(Integer(9223372036854775807), s0)").has_value());  // overflow
  CHECK_FALSE(eval("Float('1.5', precision=53)").has_value());
}

TEST_CASE("sym_expr: python_floor_div and python_mod round as Python does") {
  // Each sign combination, exact and inexact quotients.
  CHECK(python_floor_div(7, 2) == 3);
  CHECK(python_floor_div(-7, 2) == -4);
  CHECK(python_floor_div(7, -2) == -4);
  CHECK(python_floor_div(-7, -2) == 3);
  CHECK(python_floor_div(-8, 2) == -4);
  CHECK(python_mod(7, 3) == 1);
  CHECK(python_mod(-7, 3) == 2);
  CHECK(python_mod(7, -3) == -2);
  CHECK(python_mod(-7, -3) == -1);
  CHECK(python_mod(-9, 3) == 0);
  CHECK(python_floor_div(INT64_MIN, 2) == INT64_MIN / 2);
  CHECK(python_mod(INT64_MIN, 3) == 1);  // -9223372036854775808 % 3 in Python
}

TEST_CASE("sym_expr: free symbols in first-appearance order") {
  auto e = parse_sym_expr("Add(Mul(Symbol('s1'), Symbol('s0')), Symbol('s1'))");
  REQUIRE(e.ok());
  CHECK(free_symbols(*e) == std::vector<std::string>{"s1", "s0"});
}

TEST_CASE("sym_expr: malformed text is INPUT_SCHEMA, display falls back to the text") {
  auto bad = parse_sym_expr("Mul(Integer(8), ");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(display_sym_expr("Mul(Integer(8), ") == "Mul(Integer(8), ");
  CHECK_FALSE(parse_sym_expr("Symbol(s0)").ok());
  CHECK_FALSE(parse_sym_expr("Integer(99999999999999999999)").ok());
  CHECK_FALSE(parse_sym_expr("s0 s1").ok());
  std::string deep(500, '(');
  deep += "s0" + std::string(500, ')');
  auto d = parse_sym_expr(deep);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(d.error().message.find("nested too deeply") != std::string::npos);
}

TEST_CASE("sym_expr: 40 levels of parentheses or calls parse, 41 are nested too deeply") {
  auto parens = [](int n) { return std::string(static_cast<size_t>(n), '(') + "s0" + std::string(static_cast<size_t>(n), ')'); };
  auto calls = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "Max(1, ";
    s += "s0";
    return s + std::string(static_cast<size_t>(n), ')');
  };
  auto p40 = parse_sym_expr(parens(40));
  REQUIRE(p40.ok());
  CHECK(format_sym_expr(*p40) == "s0");
  auto c40 = parse_sym_expr(calls(40));
  REQUIRE(c40.ok());
  auto s0_is_7 = [](std::string_view n) { return n == "s0" ? std::optional<int64_t>(7) : std::nullopt; };
  CHECK(evaluate_sym_expr(*c40, s0_is_7) == std::optional<int64_t>(7));
  for (const std::string& text : {parens(41), calls(41)}) {
    auto r = parse_sym_expr(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::INPUT_SCHEMA);
    CHECK(r.error().message.find("nested too deeply") != std::string::npos);
  }
  const std::string p41 = parens(41);
  CHECK(parse_sym_expr(p41).error().message ==
        "cannot parse symbolic expression \"" + p41 +
            "\": expression nested too deeply (more than 40 levels of parentheses or calls) at offset 43");
  // A long text is cut in the message (the offset still says where).
  const std::string long_text = std::string(300, '(') + "s0" + std::string(300, ')');
  CHECK(parse_sym_expr(long_text).error().message ==
        "cannot parse symbolic expression \"" + std::string(120, '(') +
            "...\" (602 bytes): expression nested too deeply (more than 40 levels of parentheses or "
            "calls) at offset 42");
  // The cut never splits a UTF-8 character (é is two bytes, at 119 and 120).
  const std::string accented = std::string(119, '(') + "\xC3\xA9" + std::string(200, 'x');
  CHECK(parse_sym_expr(accented).error().message.rfind(
            "cannot parse symbolic expression \"" + std::string(119, '(') + "...\" (321 bytes)", 0) == 0);
  // Unary chains (one call per level) stop at the same budget.
  CHECK(parse_sym_expr(std::string(80, '-') + "s0").ok());
  CHECK_FALSE(parse_sym_expr(std::string(81, '-') + "s0").ok());
}

TEST_CASE("free_symbols: first-seen order without repeats, also over thousands of symbols") {
  auto e = parse_sym_expr("s2*s0 + s2 + 3*s1*s0 + s7");
  REQUIRE(e.ok());
  CHECK(free_symbols(*e) == std::vector<std::string>{"s2", "s0", "s1", "s7"});
  // 20,000 distinct symbols, each named twice (s0 + s1 + ... + s0 + s1 + ...).
  std::string text;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20000; ++i) text += (text.empty() ? "s" : " + s") + std::to_string(i);
  }
  auto big = parse_sym_expr(text);
  REQUIRE(big.ok());
  std::vector<std::string> syms = free_symbols(*big);
  REQUIRE(syms.size() == 20000);
  CHECK(syms.front() == "s0");
  CHECK(syms[12345] == "s12345");
  CHECK(syms.back() == "s19999");
}
