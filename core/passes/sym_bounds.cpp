// Interval arithmetic over sympy expressions (see sym_bounds.h).
#include "passes/sym_bounds.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

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

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
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
  return floor_div(a, b);
}

I from_corners(const std::array<int64_t, 4>& c) {
  return {*std::min_element(c.begin(), c.end()), *std::max_element(c.begin(), c.end())};
}

I add(const I& a, const I& b) { return {ext_add(a.lo, b.lo, -1), ext_add(a.hi, b.hi, +1)}; }

I mul(const I& a, const I& b) {
  return from_corners({ext_mul(a.lo, b.lo), ext_mul(a.lo, b.hi), ext_mul(a.hi, b.lo), ext_mul(a.hi, b.hi)});
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
      int64_t f = floor_div(e.num, e.den);
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
      I acc = I::point(1);
      for (const auto& a : e.args) acc = mul(acc, sub(a));
      return acc;
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
      if ((f == "Identity" || f == "TruncToInt" || f == "FloorToInt" || f == "CeilToInt" || f == "RoundToInt") &&
          v.size() == 1) {
        return v[0];
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

}  // namespace pteforge::passes
