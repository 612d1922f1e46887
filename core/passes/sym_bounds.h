// Interval arithmetic over parsed sympy expressions (ir/sym_expr.h): the
// value range of a symbolic size given the ranges of its symbols. Used by
// sym_shape_eval to find upper bounds the way ExecuTorch's
// ConstraintBasedSymShapeEvalPass does with torch's bound_sympy over the
// program's range_constraints (executorch-pipeline.md §5.3).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ir/sym_expr.h"

namespace pteforge::ir {
struct ExportedProgram;
}

namespace pteforge::passes {

/// A closed integer interval; lo == kNegInf / hi == kPosInf mean unbounded.
struct SymInterval {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;

  static SymInterval point(int64_t v) { return {v, v}; }
  static SymInterval unbounded() { return {}; }
  bool has_upper() const { return hi != kPosInf; }
  bool has_lower() const { return lo != kNegInf; }
  bool operator==(const SymInterval&) const = default;
};

/// Range of one symbol: the interval, or nullopt when the symbol has no known
/// range (it is then taken as [0, +inf): shape symbols are never negative).
using SymbolRange = std::function<std::optional<SymInterval>(std::string_view symbol)>;

/// The range of `e` by interval arithmetic, as torch's bound_sympy gives it:
/// Integer/Rational/Bool constants, symbols (via `ranges`), Add, Mul, Pow
/// with a constant non-negative integer exponent, PowByNatural, FloorDiv,
/// CleanDiv, CeilDiv, Mod/PythonMod, ModularIndexing, LShift/RShift, Max, Min,
/// Abs, Where and Piecewise (either branch), relations (0 or 1), and the
/// *ToInt casts of float-valued parts (Float constants, ToFloat, IntTrueDiv,
/// FloatTrueDiv, FloatPow), bounded in doubles then rounded as the cast does.
/// Anything else is unbounded. Results that overflow int64 saturate to the
/// unbounded side. Never fails.
SymInterval bound_sym_expr(const ir::SymNode& e, const SymbolRange& ranges);

/// The ranges of `ep`'s range_constraints (a symbol without an entry has none).
/// `ep` must outlive the result.
SymbolRange program_ranges(const ir::ExportedProgram& ep);

/// The symbolic sizes of one program: each expression text parsed once, and
/// bounded over the program's range_constraints (what spec_prop and
/// sym_shape_eval both ask). `ep` must outlive it.
class ProgramSymBounds {
 public:
  explicit ProgramSymBounds(const ir::ExportedProgram& ep) : ranges_(program_ranges(ep)) {}
  /// The parsed expression of `text` (kept for later calls); parse_sym_expr's error otherwise.
  Result<const ir::SymNode*> parse(const std::string& text);
  /// The range of `e` over the program's ranges (bound_sym_expr).
  SymInterval bound(const ir::SymNode& e) const { return bound_sym_expr(e, ranges_); }

 private:
  SymbolRange ranges_;
  std::map<std::string, ir::SymNode, std::less<>> parsed_;
};

}  // namespace pteforge::passes
