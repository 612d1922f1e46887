// Interval arithmetic over sympy expressions (see sym_bounds.h).
#include "passes/sym_bounds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/sym_expr.h"

namespace pteforge::passes {
namespace {

using I = SymInterval;
constexpr int64_t kNegInf = I::kNegInf;
constexpr int64_t kPosInf = I::kPosInf;

bool is_inf(int64_t v) { return v == kNegInf || v == kPosInf; }

/// a + b with infinities; `toward` (+1 / -1) decides inf + (-inf) and overflow direction ties.
int64_t ext_add(int64_t a, int64_t b, int toward) {
  bool a_pos = a == kPosInf, a_neg = a == kNegInf, b_pos = b == kPosInf, b_neg = b == kNegInf;
  if ((a_pos || b_pos) && (a_neg || b_neg)) return toward > 0 ? kPosInf : kNegInf;
  if (a_pos || b_pos) return kPosInf;
  if (a_neg || b_neg) return kNegInf;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kPosInf : kNegInf;
  return r;
}

int sign(int64_t v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

int64_t ext_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (is_inf(a) || is_inf(b)) return sign(a) * sign(b) > 0 ? kPosInf : kNegInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return sign(a) * sign(b) > 0 ? kPosInf : kNegInf;
  return r;
}

/// floor(a / b) for b != 0 with infinities.
int64_t ext_floordiv(int64_t a, int64_t b) {
  if (is_inf(b)) {
    if (is_inf(a)) return sign(a) * sign(b) > 0 ? kPosInf : kNegInf;  // not reached for finite-sign cases
    // |a| finite over an infinite divisor: the quotient tends to 0 from the sign of a/b.
    int s = sign(a) * sign(b);
    return s < 0 ? -1 : 0;
  }
  if (is_inf(a)) return sign(a) * sign(b) > 0 ? kPosInf : kNegInf;
  return ir::python_floor_div(a, b);
}

I from_corners(const std::array<int64_t, 4>& c) {
  return {*std::min_element(c.begin(), c.end()), *std::max_element(c.begin(), c.end())};
}

I add(const I& a, const I& b) { return {ext_add(a.lo, b.lo, -1), ext_add(a.hi, b.hi, +1)}; }

I mul(const I& a, const I& b) {
  return from_corners({ext_mul(a.lo, b.lo), ext_mul(a.lo, b.hi), ext_mul(a.hi, b.lo), ext_mul(a.hi, b.hi)});
}

/// a * num / den (den > 0) with the low end rounded down and the high end
/// up: exact when the products divide (sympy's Rational coefficients, as in
/// s0/2 = Mul(Rational(1, 2), s0)), else the smallest integer interval
/// holding the rational one.
I scale(const I& a, int64_t num, int64_t den) {
  const I p = mul(a, I::point(num));
  auto down = [den](int64_t v) { return is_inf(v) ? v : ir::python_floor_div(v, den); };
  // v > INT64_MIN here, so -v is defined.
  auto up = [den](int64_t v) { return is_inf(v) ? v : -ir::python_floor_div(-v, den); };
  return {down(p.lo), up(p.hi)};
}

I neg(const I& a) {
  auto n = [](int64_t v) { return v == kPosInf ? kNegInf : (v == kNegInf ? kPosInf : -v); };
  return {n(a.hi), n(a.lo)};
}

I floordiv(const I& a, const I& b) {
  if (b.lo > 0 || b.hi < 0) {
    return from_corners({ext_floordiv(a.lo, b.lo), ext_floordiv(a.lo, b.hi), ext_floordiv(a.hi, b.lo),
                         ext_floordiv(a.hi, b.hi)});
  }
  return I::unbounded();
}

I mod(const I& a, const I& b) {
  if (b.lo > 0) {
    if (a.lo >= 0 && a.hi < b.lo) return a;
    // One divisor d, and a within one multiple's run [k*d, (k+1)*d): a % d
    // increases with a there (torch's ValueRanges mod: "locally linear if
    // they are in the same class"), e.g. s0 in [18, 20] % 16 gives [2, 4].
    if (b.lo == b.hi && a.lo >= 0 && !is_inf(a.hi) && a.lo / b.lo == a.hi / b.lo) {
      return {a.lo % b.lo, a.hi % b.lo};
    }
    return {0, b.hi == kPosInf ? kPosInf : b.hi - 1};
  }
  if (b.hi < 0) return {b.lo == kNegInf ? kNegInf : b.lo + 1, 0};
  return I::unbounded();
}

I power(const I& base, int64_t exp) {
  if (exp > 64) return I::unbounded();
  I r = I::point(1);
  for (int64_t i = 0; i < exp; ++i) r = mul(r, base);
  if (exp % 2 == 0 && exp > 0 && base.lo < 0 && base.hi > 0) r.lo = 0;  // even power of a range around 0
  return r;
}

/// A closed real interval (±infinity allowed), for the float-valued parts of
/// a size such as TruncToInt(1.5 * ToFloat(s0)).
struct Real {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
};

Real to_real(const I& a) {
  const double inf = std::numeric_limits<double>::infinity();
  return {a.lo == kNegInf ? -inf : static_cast<double>(a.lo),
          a.hi == kPosInf ? inf : static_cast<double>(a.hi)};
}

/// An integer interval from a real one rounded by `round` (monotonic), saturating.
template <typename F>
I to_int(const Real& r, F round) {
  auto conv = [&round](double v, int64_t inf_value) {
    if (std::isnan(v)) return inf_value;
    const double x = round(v);
    if (x >= 9.2e18) return kPosInf;
    if (x <= -9.2e18) return kNegInf;
    return static_cast<int64_t>(x);
  };
  return {conv(r.lo, kNegInf), conv(r.hi, kPosInf)};
}

/// x * y with 0 * inf = 0 (a zero-width factor keeps the product at zero).
double real_mul(double x, double y) { return (x == 0 || y == 0) ? 0.0 : x * y; }

Real real_corners(double a, double b, double c, double d) {
  return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}

bool is_real_call(const std::string& f) {
  return f == "ToFloat" || f == "IntTrueDiv" || f == "FloatTrueDiv" || f == "FloatPow" || f == "TruncToFloat";
}

/// True when `e` has a float value (a Float constant, or a float function at its top).
bool is_real_valued(const ir::SymNode& e) {
  using Op = ir::SymNode::Op;
  if (e.op == Op::Float) return true;
  if (e.op == Op::Call) return is_real_call(e.name);
  if (e.op == Op::Add || e.op == Op::Mul || e.op == Op::Pow) {
    for (const auto& a : e.args) {
      if (is_real_valued(a)) return true;
    }
  }
  return false;
}

Real bound_real(const ir::SymNode& e, const SymbolRange& ranges);

Real real_div(const Real& a, const Real& b) {
  if (b.lo > 0 || b.hi < 0) {
    return real_corners(a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi);
  }
  return Real{};
}

Real bound_real(const ir::SymNode& e, const SymbolRange& ranges) {
  using Op = ir::SymNode::Op;
  switch (e.op) {
    case Op::Float:
      return {e.fvalue, e.fvalue};
    case Op::Rational:
      if (e.den == 0) break;
      return {static_cast<double>(e.num) / static_cast<double>(e.den),
              static_cast<double>(e.num) / static_cast<double>(e.den)};
    case Op::Add: {
      Real acc{0, 0};
      for (const auto& a : e.args) {
        Real r = bound_real(a, ranges);
        acc = {acc.lo + r.lo, acc.hi + r.hi};
      }
      return acc;
    }
    case Op::Mul: {
      Real acc{1, 1};
      for (const auto& a : e.args) {
        Real r = bound_real(a, ranges);
        acc = real_corners(real_mul(acc.lo, r.lo), real_mul(acc.lo, r.hi), real_mul(acc.hi, r.lo),
                           real_mul(acc.hi, r.hi));
      }
      return acc;
    }
    case Op::Pow:
      if (e.args.size() == 2 && e.args[1].op == Op::Integer && e.args[1].num == -1) {
        return real_div({1, 1}, bound_real(e.args[0], ranges));  // sympy writes a / b as a * b**-1
      }
      break;
    case Op::Call: {
      const std::string& f = e.name;
      if ((f == "ToFloat" || f == "TruncToFloat") && e.args.size() == 1) return bound_real(e.args[0], ranges);
      if ((f == "IntTrueDiv" || f == "FloatTrueDiv") && e.args.size() == 2) {
        return real_div(bound_real(e.args[0], ranges), bound_real(e.args[1], ranges));
      }
      if (f == "FloatPow" && e.args.size() == 2) {
        Real b = bound_real(e.args[0], ranges), x = bound_real(e.args[1], ranges);
        if (b.lo >= 1 && x.lo >= 0) return {std::pow(b.lo, x.lo), std::pow(b.hi, x.hi)};
        return Real{};
      }
      break;
    }
    default:
      break;
  }
  return to_real(bound_sym_expr(e, ranges));
}

/// base ** exp for a base and a non-negative exponent interval (PowByNatural).
I power_range(const I& base, const I& exp) {
  if (exp.lo < 0) return I::unbounded();
  if (exp.lo == exp.hi) return power(base, exp.lo);
  if (base.lo < 0 || exp.hi > 64) return base.lo >= 1 ? I{power(base, exp.lo).lo, kPosInf} : I::unbounded();
  // A non-negative base: the power grows with the exponent (base >= 1) or is 0/1.
  I lo = power(I::point(base.lo), base.lo >= 1 ? exp.lo : exp.hi);
  I hi = power(I::point(base.hi), base.hi >= 1 ? exp.hi : exp.lo);
  return {std::min(lo.lo, hi.lo), std::max(lo.hi, hi.hi)};
}

}  // namespace

SymInterval bound_sym_expr(const ir::SymNode& e, const SymbolRange& ranges) {
  using Op = ir::SymNode::Op;
  auto sub = [&ranges](const ir::SymNode& a) { return bound_sym_expr(a, ranges); };
  switch (e.op) {
    case Op::Integer:
      return I::point(e.num);
    case Op::Bool:
      return I::point(e.num != 0 ? 1 : 0);
    case Op::Rational: {
      if (e.den == 0) return I::unbounded();
      int64_t f = ir::python_floor_div(e.num, e.den);
      return {f, e.num % e.den == 0 ? f : f + 1};
    }
    case Op::Float:
      return I::unbounded();
    case Op::Symbol: {
      std::optional<I> r = ranges ? ranges(e.name) : std::nullopt;
      if (r) return *r;
      return {0, kPosInf};
    }
    case Op::Add: {
      I acc = I::point(0);
      for (const auto& a : e.args) acc = add(acc, sub(a));
      return acc;
    }
    case Op::Mul: {
      // Rational factors are applied last, exactly: Mul(Rational(3, 2), s0)
      // with s0 <= 32 is 48 (rounding 3/2 up first would give 64).
      I acc = I::point(1);
      int64_t num = 1, den = 1;
      for (const auto& a : e.args) {
        if (a.op == Op::Rational && a.den > 0 && !__builtin_mul_overflow(num, a.num, &num) &&
            !__builtin_mul_overflow(den, a.den, &den)) {
          continue;
        }
        if (a.op == Op::Rational) return I::unbounded();  // a zero/negative denominator, or overflow
        acc = mul(acc, sub(a));
      }
      return den == 1 ? mul(acc, I::point(num)) : scale(acc, num, den);
    }
    case Op::Pow: {
      if (e.args.size() != 2 || e.args[1].op != Op::Integer || e.args[1].num < 0) return I::unbounded();
      return power(sub(e.args[0]), e.args[1].num);
    }
    case Op::Call: {
      const std::string& f = e.name;
      std::vector<I> v;
      v.reserve(e.args.size());
      for (const auto& a : e.args) v.push_back(sub(a));
      if (f == "FloorDiv" && v.size() == 2) return floordiv(v[0], v[1]);
      // The str form's a / k (sympy's Mul(Rational(1, k), a)) for a constant k.
      if (f == "TrueDiv" && e.args.size() == 2 && e.args[1].op == Op::Integer && e.args[1].num != 0 &&
          e.args[1].num != kNegInf) {
        const int64_t k = e.args[1].num;
        return k > 0 ? scale(v[0], 1, k) : scale(v[0], -1, -k);
      }
      if (f == "CeilDiv" && v.size() == 2) return neg(floordiv(neg(v[0]), v[1]));
      if ((f == "Mod" || f == "PythonMod") && v.size() == 2) return mod(v[0], v[1]);
      if ((f == "Max" || f == "Min") && !v.empty()) {
        I r = v[0];
        for (const I& x : v) {
          if (f == "Max") {
            r = {std::max(r.lo, x.lo), std::max(r.hi, x.hi)};
          } else {
            r = {std::min(r.lo, x.lo), std::min(r.hi, x.hi)};
          }
        }
        return r;
      }
      if (f == "Abs" && v.size() == 1) {
        const I& a = v[0];
        if (a.lo >= 0) return a;
        if (a.hi <= 0) return neg(a);
        I n = neg(a);
        return {0, std::max(n.hi, a.hi)};
      }
      if ((f == "TruncToInt" || f == "FloorToInt" || f == "CeilToInt" || f == "RoundToInt" ||
           f == "Identity") &&
          e.args.size() == 1 && is_real_valued(e.args[0])) {
        const Real r = bound_real(e.args[0], ranges);
        if (f == "FloorToInt") return to_int(r, [](double x) { return std::floor(x); });
        if (f == "CeilToInt") return to_int(r, [](double x) { return std::ceil(x); });
        if (f == "RoundToInt") return to_int(r, [](double x) { return std::nearbyint(x); });  // half to even
        return to_int(r,
                      [](double x) { return std::trunc(x); });  // TruncToInt; Identity keeps a float's value
      }
      if ((f == "Identity" || f == "TruncToInt" || f == "FloorToInt" || f == "CeilToInt" || f == "RoundToInt") &&
          v.size() == 1) {
        return v[0];
      }
      if (f == "PowByNatural" && v.size() == 2) return power_range(v[0], v[1]);
      if (f == "CleanDiv" && v.size() == 2) return floordiv(v[0], v[1]);
      if (f == "ModularIndexing" && v.size() == 3) return mod(floordiv(v[0], v[1]), v[2]);
      if ((f == "LShift" || f == "RShift") && v.size() == 2) {
        // a << b = a * 2**b; a >> b = a // 2**b (torch's sympy functions).
        const I factor = power_range(I::point(2), v[1]);
        return f == "LShift" ? mul(v[0], factor) : floordiv(v[0], factor);
      }
      if (f == "Where" && v.size() == 3) {  // either branch, whatever the condition
        return {std::min(v[1].lo, v[2].lo), std::max(v[1].hi, v[2].hi)};
      }
      // A (value, condition) pair: srepr's ExprCondPair, or str()'s tuple.
      if ((f == "ExprCondPair" || f.empty()) && v.size() == 2) return v[0];
      if (f == "Piecewise" && !v.empty()) {  // any piece's value
        I r = v[0];
        for (const I& x : v) r = {std::min(r.lo, x.lo), std::max(r.hi, x.hi)};
        return r;
      }
      static constexpr std::string_view kRelations[] = {"StrictLessThan", "LessThan", "StrictGreaterThan",
                                                        "GreaterThan",    "Equality", "Unequality",
                                                        "And",            "Or",       "Not"};
      for (std::string_view r : kRelations) {
        if (f == r) return {0, 1};
      }
      return I::unbounded();
    }
  }
  return I::unbounded();
}

SymbolRange program_ranges(const ir::ExportedProgram& ep) {
  auto index = std::make_shared<const ir::RangeIndex>(ep);
  return [index](std::string_view sym) -> std::optional<SymInterval> {
    const ir::RangeConstraint* rc = index->find(sym);
    if (!rc) return std::nullopt;
    SymInterval i;
    if (auto lo = rc->lower()) i.lo = *lo;
    if (auto hi = rc->upper()) i.hi = *hi;
    return i;
  };
}

Result<const ir::SymNode*> ProgramSymBounds::parse(const std::string& text) {
  auto it = parsed_.find(text);
  if (it == parsed_.end()) {
    PTEFORGE_ASSIGN_OR_RETURN(ir::SymNode e, ir::parse_sym_expr(text));
    it = parsed_.emplace(text, std::move(e)).first;
  }
  return &it->second;
}

}  // namespace pteforge::passes
