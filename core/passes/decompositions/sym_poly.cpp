// SymPoly arithmetic (see sym_poly.h).
#include "passes/decompositions/sym_poly.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>

#include "support/checked_math.h"
#include "support/name_map.h"  // xxHash, inlined

namespace pteforge::passes::decomp {

SymPoly::SymPoly(int64_t v) : constant_(v) {}

SymPoly SymPoly::atom(const std::string& name) {
  SymPoly p;
  p.terms_[{name}] = 1;
  return p;
}

bool SymPoly::is_constant() const { return terms_.empty(); }

int64_t SymPoly::value() const { return constant_; }

std::optional<std::string> SymPoly::as_atom() const {
  if (terms_.size() != 1 || constant_ != 0) return std::nullopt;
  const auto& [m, c] = *terms_.begin();
  if (m.size() != 1 || c != 1) return std::nullopt;
  return m[0];
}

std::optional<SymPoly::AffineAtom> SymPoly::as_affine_atom() const {
  if (terms_.size() != 1) return std::nullopt;
  const auto& [m, c] = *terms_.begin();
  if (m.size() != 1) return std::nullopt;
  return AffineAtom{c, m[0], constant_};
}

void SymPoly::add_term(const Monomial& m, int64_t c) {
  if (m.empty()) {
    constant_ = saturating_add(constant_, c);
    return;
  }
  if (c == 0) return;
  auto it = terms_.find(m);
  if (it == terms_.end()) {
    terms_.emplace(m, c);
    return;
  }
  it->second = saturating_add(it->second, c);
  if (it->second == 0) terms_.erase(it);
}

SymPoly SymPoly::operator+(const SymPoly& o) const {
  SymPoly r = *this;
  r += o;
  return r;
}

SymPoly& SymPoly::operator+=(const SymPoly& o) {
  constant_ = saturating_add(constant_, o.constant_);
  for (const auto& [m, c] : o.terms_) add_term(m, c);
  return *this;
}

SymPoly SymPoly::operator-(const SymPoly& o) const {
  SymPoly r = *this;
  r.constant_ = saturating_add(r.constant_, o.constant_ == INT64_MIN ? INT64_MAX : -o.constant_);
  for (const auto& [m, c] : o.terms_) r.add_term(m, c == INT64_MIN ? INT64_MAX : -c);
  return r;
}

bool SymPoly::product_too_large(const SymPoly& a, const SymPoly& b) {
  const size_t na = a.terms_.size() + (a.constant_ != 0 ? 1 : 0);
  const size_t nb = b.terms_.size() + (b.constant_ != 0 ? 1 : 0);
  return a.terms_.size() > 0 && b.terms_.size() > 0 && na > kMaxTerms / nb;
}

SymPoly SymPoly::operator*(const SymPoly& o) const {
  if (product_too_large(*this, o)) {
    // Named by a hash of the factors' keys (their text grows with every such
    // product), ordered so that the product commutes. XXH3's 64 bits on
    // every platform (NameHash gives size_t, 32 bits under WebAssembly), so
    // the native and WebAssembly builds name it alike.
    const std::string ka = key(), kb = o.key();
    uint64_t ha = XXH3_64bits(ka.data(), ka.size());
    uint64_t hb = XXH3_64bits(kb.data(), kb.size());
    if (hb < ha) std::swap(ha, hb);
    char name[64];
    std::snprintf(name, sizeof name, "(product#%016llx%016llx)", static_cast<unsigned long long>(ha),
                  static_cast<unsigned long long>(hb));
    return atom(name);
  }
  SymPoly r(saturating_mul(constant_, o.constant_));
  if (constant_ != 0) {
    for (const auto& [m2, c2] : o.terms_) r.add_term(m2, saturating_mul(constant_, c2));
  }
  if (o.constant_ != 0) {
    for (const auto& [m1, c1] : terms_) r.add_term(m1, saturating_mul(c1, o.constant_));
  }
  for (const auto& [m1, c1] : terms_) {
    for (const auto& [m2, c2] : o.terms_) {
      // Both are sorted: a merge, not a sort (a product of n factors folded
      // one at a time re-sorted its growing monomial n times).
      Monomial m;
      m.reserve(m1.size() + m2.size());
      std::merge(m1.begin(), m1.end(), m2.begin(), m2.end(), std::back_inserter(m));
      r.add_term(m, saturating_mul(c1, c2));
    }
  }
  return r;
}

std::optional<SymPoly> SymPoly::div_exact(int64_t d) const {
  if (d == 0) return std::nullopt;
  if ((d == -1 && constant_ == INT64_MIN) || constant_ % d != 0) return std::nullopt;
  SymPoly r(constant_ / d);
  for (const auto& [m, c] : terms_) {
    if ((d == -1 && c == INT64_MIN) || c % d != 0) return std::nullopt;
    r.add_term(m, c / d);
  }
  return r;
}

namespace {

/// Graded order on monomials (sorted atom lists): by degree, then
/// lexicographically. Multiplying two monomials by a third keeps their order,
/// so polynomial long division by leading terms is well defined under it.
bool graded_less(const SymPoly::Monomial& a, const SymPoly::Monomial& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

/// `m` without the atoms of `d` (a multiset difference); nullopt when `d`
/// does not divide `m`.
std::optional<SymPoly::Monomial> monomial_quotient(const SymPoly::Monomial& m, const SymPoly::Monomial& d) {
  SymPoly::Monomial rest;
  rest.reserve(m.size());
  size_t j = 0;
  for (const auto& a : m) {
    if (j < d.size() && a == d[j]) {
      ++j;
    } else {
      rest.push_back(a);
    }
  }
  if (j != d.size()) return std::nullopt;
  return rest;
}

}  // namespace

std::optional<SymPoly> SymPoly::div_exact(const SymPoly& d) const {
  if (d.is_constant()) return div_exact(d.value());
  if (*this == d) return SymPoly(1);
  // Long division by leading terms under the graded order: the leading term
  // of the remainder must be a multiple of d's, or d does not divide it.
  // ((s0 + 1) * (s1 + 2)) / (s0 + 1) = s1 + 2; (32*s0 + 32) / (s0 + 1) = 32.
  auto leading = [](const SymPoly& p) -> std::pair<Monomial, int64_t> {
    const Monomial* best = nullptr;
    int64_t coef = 0;
    for (const auto& [m, c] : p.terms_) {
      if (!best || graded_less(*best, m)) {
        best = &m;
        coef = c;
      }
    }
    if (best) return {*best, coef};
    return {Monomial{}, p.constant_};
  };
  const auto [dm, dc] = leading(d);
  SymPoly quotient;
  SymPoly rest = *this;
  // Each step removes the remainder's leading monomial for good (later ones
  // are smaller), so the steps are bounded by the monomials below it; the cap
  // is a guard against saturated coefficients.
  for (size_t step = 0; step < 4 * kMaxTerms; ++step) {
    if (rest.is_constant() && rest.constant_ == 0) return quotient;
    const auto [rm, rc] = leading(rest);
    if ((dc == -1 && rc == INT64_MIN) || rc % dc != 0) return std::nullopt;
    std::optional<Monomial> qm = monomial_quotient(rm, dm);
    if (!qm) return std::nullopt;
    SymPoly term;
    term.add_term(*qm, rc / dc);
    quotient += term;
    rest += term * (SymPoly(0) - d);  // in place: no copy of the remainder per step
    // The leading monomial must have gone (saturated arithmetic aside).
    if (!rest.terms_.empty() && leading(rest).first == rm) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> SymPoly::evaluate(
    const std::function<std::optional<int64_t>(const std::string&)>& lookup) const {
  int64_t total = constant_;
  for (const auto& [m, c] : terms_) {
    int64_t t = c;
    for (const auto& a : m) {
      auto v = lookup(a);
      if (!v) return std::nullopt;
      if (__builtin_mul_overflow(t, *v, &t)) return std::nullopt;
    }
    if (__builtin_add_overflow(total, t, &total)) return std::nullopt;
  }
  return total;
}

std::string SymPoly::key() const {
  if (terms_.empty()) return std::to_string(constant_);
  std::string out = constant_ != 0 ? std::to_string(constant_) : std::string();
  for (const auto& [m, c] : terms_) {
    if (!out.empty()) out += "+";
    out += std::to_string(c);
    for (const auto& a : m) out += "*" + a;
  }
  return out;
}

SymPoly product(const std::vector<SymPoly>& xs) {
  SymPoly p(1);
  for (const auto& x : xs) p = p * x;
  return p;
}

}  // namespace pteforge::passes::decomp
