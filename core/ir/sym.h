// Symbolic scalars of torch.export (schema §3.5): SymExpr, SymInt, SymFloat, SymBool.
//
// A SymInt is either a concrete int64 or a sympy expression (`expr_str`, §9.2)
// with an optional example value (`hint`). Concrete values are by far the
// common case, so a SymInt is 16 bytes plus a shared, immutable SymExpr only
// when symbolic (the importer shares one SymExpr between all uses of the same
// expression).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace pteforge::ir {

/// Equality for doubles that treats two NaNs as equal (structural comparison).
inline bool same_double(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

/// Example value of a symbolic expression at export time (SymExprHint union).
struct SymExprHint {
  enum class Kind : uint8_t { Int, Bool, Float };
  Kind kind = Kind::Int;
  int64_t int_value = 0;
  bool bool_value = false;
  double float_value = 0.0;

  static SymExprHint of_int(int64_t v) { return {Kind::Int, v, false, 0.0}; }
  static SymExprHint of_bool(bool v) { return {Kind::Bool, 0, v, 0.0}; }
  static SymExprHint of_float(double v) { return {Kind::Float, 0, false, v}; }

  bool operator==(const SymExprHint& o) const {
    if (kind != o.kind) return false;
    switch (kind) {
      case Kind::Int: return int_value == o.int_value;
      case Kind::Bool: return bool_value == o.bool_value;
      case Kind::Float: return same_double(float_value, o.float_value);
    }
    return false;
  }
};

/// A sympy expression as text (srepr or str form, §9.2) plus its hint.
/// Parse it with parse_sym_expr() (ir/sym_expr.h) when structure is needed.
struct SymExpr {
  std::string expr_str;
  std::optional<SymExprHint> hint;  ///< absent for unbacked (data-dependent) values
  bool operator==(const SymExpr&) const = default;
};

namespace detail {
/// Shared implementation of SymInt/SymFloat/SymBool: a concrete value or an expression.
template <typename T>
class SymValue {
 public:
  SymValue() = default;
  SymValue(T value) : value_(value) {}  // NOLINT: implicit from a concrete value by design
  explicit SymValue(std::shared_ptr<const SymExpr> expr) : expr_(std::move(expr)) {}
  explicit SymValue(SymExpr expr) : expr_(std::make_shared<const SymExpr>(std::move(expr))) {}

  bool is_symbolic() const { return expr_ != nullptr; }
  bool is_concrete() const { return expr_ == nullptr; }
  /// The concrete value (only meaningful when is_concrete()).
  T value() const { return value_; }
  /// The expression (precondition: is_symbolic()).
  const SymExpr& expr() const { return *expr_; }
  const std::shared_ptr<const SymExpr>& expr_ptr() const { return expr_; }

  bool operator==(const SymValue& o) const {
    if (is_symbolic() != o.is_symbolic()) return false;
    if (is_symbolic()) return expr_ == o.expr_ || *expr_ == *o.expr_;
    if constexpr (std::is_floating_point_v<T>) return same_double(value_, o.value_);
    return value_ == o.value_;
  }

 protected:
  T value_{};
  std::shared_ptr<const SymExpr> expr_;
};
}  // namespace detail

/// SymInt union (as_int | as_expr).
class SymInt : public detail::SymValue<int64_t> {
 public:
  using SymValue::SymValue;
  /// Concrete value, or the expression's integer hint; nullopt for unbacked values.
  std::optional<int64_t> hint() const {
    if (is_concrete()) return value_;
    if (expr_->hint && expr_->hint->kind == SymExprHint::Kind::Int) return expr_->hint->int_value;
    return std::nullopt;
  }
};

/// SymFloat union (as_float | as_expr).
class SymFloat : public detail::SymValue<double> {
 public:
  using SymValue::SymValue;
};

/// SymBool union (as_bool | as_expr).
class SymBool : public detail::SymValue<bool> {
 public:
  using SymValue::SymValue;
};

}  // namespace pteforge::ir
