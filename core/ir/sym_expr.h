// Parsed sympy expressions (SymExpr.expr_str, torch-export-format.md §9.2).
//
// Both textual forms are accepted: sympy "srepr" (Mul(Integer(4),
// Symbol('s77', integer=True, positive=True))) and the older str() form
// (4*s77, s0 + 1, (s0//2), Max(s0, s1)). The tree is small and generic:
// numbers, symbols, Add/Mul/Pow, and named function calls for everything else
// (FloorDiv, Mod, Max, relationals, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace pteforge::ir {

struct SymNode {
  enum class Op : uint8_t {
    Integer,   ///< num
    Rational,  ///< num / den
    Float,     ///< fvalue
    Bool,      ///< num (0 or 1)
    Symbol,    ///< name
    Add,       ///< args
    Mul,       ///< args
    Pow,       ///< args[0] ** args[1]
    Call,      ///< name(args): FloorDiv, Mod, Max, Min, StrictLessThan, ...
  };
  Op op = Op::Integer;
  int64_t num = 0;
  int64_t den = 1;
  double fvalue = 0.0;
  std::string name;
  std::vector<SymNode> args;

  bool operator==(const SymNode&) const = default;
};

/// Parses an expr_str in srepr or str form. INPUT_SCHEMA on syntax errors or
/// more than 40 levels of parentheses or calls (a bound that keeps the
/// recursive parser inside Node's stack in every WebAssembly build).
Result<SymNode> parse_sym_expr(std::string_view text);

/// Compact infix form for display: "s77", "4*s77", "s0 - 1", "(s0//2)", "Max(s0, s1)", "s0 <= 64".
std::string format_sym_expr(const SymNode& e);

/// format_sym_expr(parse_sym_expr(text)), or `text` itself when it does not parse.
std::string display_sym_expr(std::string_view text);

/// The value of an expression that is a plain integer ("7", "-3",
/// "Integer(7)"), else nullopt. torch.export's loader turns such an as_expr
/// into a plain int (ShapeEnv.create_symintnode of a sympy.Integer), so the
/// size is static.
std::optional<int64_t> integer_literal(std::string_view text);

/// Python's floor division a // b (rounds toward negative infinity).
/// b != 0, and not INT64_MIN // -1 (the callers exclude both).
int64_t python_floor_div(int64_t a, int64_t b);
/// Python's a % b: the remainder takes the sign of the divisor. Same domain as python_floor_div.
int64_t python_mod(int64_t a, int64_t b);

/// Free symbol names in first-appearance order, without duplicates.
std::vector<std::string> free_symbols(const SymNode& e);

/// Integer value of the expression with symbols bound by `lookup`; nullopt when
/// a symbol is unbound, an operation is not integral (Float, true division),
/// or on overflow. FloorDiv floors, Mod/PythonMod follow Python's sign rule.
std::optional<int64_t> evaluate_sym_expr(const SymNode& e,
                                         const std::function<std::optional<int64_t>(std::string_view)>& lookup);

}  // namespace pteforge::ir
