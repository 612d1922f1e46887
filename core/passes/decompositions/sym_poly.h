// SymPoly: a tensor size or stride that may be symbolic, as a polynomial
// with integer coefficients over shape symbols (s0, s77, ...).
//
// Decompositions compute new shapes (a linear layer flattens [s0, 4, 8] to
// [4*s0, 8]; matmul folds batch dimensions), so they need arithmetic on
// sizes. Export's sizes are products and sums of backed symbols, which a
// polynomial represents exactly and compares structurally. Anything else
// (FloorDiv, Max, ...) is kept as an opaque atom that can still be
// multiplied and compared, but not simplified.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pteforge::passes::decomp {

class SymPoly {
 public:
  /// A monomial: the sorted list of atom names (repeated for powers).
  using Monomial = std::vector<std::string>;

  /// Most pairs of terms one product may multiply out (the constant term
  /// counts as a term), which bounds the terms of its result. Export's sizes
  /// have a handful of terms; a crafted expression such as a product of 30
  /// sums of 8 symbols would expand to millions (a hang), so a larger product
  /// stays unexpanded: it becomes one opaque atom (see operator*).
  static constexpr size_t kMaxTerms = 1024;
  /// True when multiplying `a` by `b` would multiply more than kMaxTerms
  /// pairs of terms (never when either is a constant).
  static bool product_too_large(const SymPoly& a, const SymPoly& b);

  SymPoly() = default;
  SymPoly(int64_t v);  // NOLINT: implicit from a concrete size by design
  /// The atom `name` (a symbol such as "s0", or an opaque atom).
  static SymPoly atom(const std::string& name);

  bool is_constant() const;
  /// The value when constant (precondition: is_constant()).
  int64_t value() const;
  /// The single atom name when the polynomial is exactly one atom with coefficient 1.
  std::optional<std::string> as_atom() const;
  /// coef * atom + constant, when the polynomial has one non-constant term and
  /// it is a single atom to the first power (coef may be 1, constant 0).
  struct AffineAtom {
    int64_t coef;
    std::string atom;
    int64_t constant;
  };
  std::optional<AffineAtom> as_affine_atom() const;

  /// The non-constant terms: monomial → coefficient (no zero coefficients, no empty monomial).
  const std::map<Monomial, int64_t>& terms() const { return terms_; }
  /// The constant term (0 when there is none).
  int64_t constant() const { return constant_; }

  SymPoly operator+(const SymPoly& o) const;
  /// Adds `o` in place: a sum of n terms built with += costs n log n, with + n^2 (each + copies).
  SymPoly& operator+=(const SymPoly& o);
  SymPoly operator-(const SymPoly& o) const;
  /// The expanded product; above kMaxTerms terms, instead one opaque atom
  /// ("(product#<hash of both factors>)", the same for a*b and b*a) that has
  /// no example value and compares equal only to the same product.
  SymPoly operator*(const SymPoly& o) const;
  bool operator==(const SymPoly& o) const { return constant_ == o.constant_ && terms_ == o.terms_; }
  bool operator!=(const SymPoly& o) const { return !(*this == o); }

  /// Exact division by a positive constant; nullopt when a coefficient is not divisible.
  std::optional<SymPoly> div_exact(int64_t d) const;
  /// Exact division by a polynomial `d` (polynomial long division): (4*s0) / s0 = 4,
  /// (32*s0 + 32) / (s0 + 1) = 32, ((s0 + 1)(s1 + 2)) / (s1 + 2) = s0 + 1. nullopt when
  /// `d` does not divide this exactly (or is 0).
  std::optional<SymPoly> div_exact(const SymPoly& d) const;

  /// Value with atoms bound by `lookup`; nullopt when an atom is unbound or on overflow.
  std::optional<int64_t> evaluate(const std::function<std::optional<int64_t>(const std::string&)>& lookup) const;

  /// Stable text key (for maps): "4*s0+1".
  std::string key() const;

 private:
  // The constant term is kept apart from the map, so that a concrete size (by
  // far the most common) is copied and compared without touching the heap.
  int64_t constant_ = 0;
  std::map<Monomial, int64_t> terms_;
  void add_term(const Monomial& m, int64_t c);
};

/// Product of a list of sizes.
SymPoly product(const std::vector<SymPoly>& xs);

}  // namespace pteforge::passes::decomp
