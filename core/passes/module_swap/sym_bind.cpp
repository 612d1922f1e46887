// Binding replacement symbols to program sizes (see sym_bind.h).
#include "passes/module_swap/sym_bind.h"

#include <memory>

#include "passes/sym_bounds.h"

namespace pteforge::passes::module_swap {
namespace {

std::string range_text(std::optional<int64_t> lo, std::optional<int64_t> hi) {
  // Appended piece by piece: "[" + std::string&& gives a false -Wrestrict from GCC 12 at -O2.
  std::string out = "[";
  out += lo ? std::to_string(*lo) : std::string("-inf");
  out += ", ";
  out += hi ? std::to_string(*hi) : std::string("inf");
  out += "]";
  return out;
}

std::string range_text(const ir::RangeConstraint* r) {
  return range_text(r ? r->lower() : std::nullopt, r ? r->upper() : std::nullopt);
}

std::optional<ir::SymNode> parse(const ir::SymInt& s) {
  if (s.is_concrete()) {
    ir::SymNode n;
    n.op = ir::SymNode::Op::Integer;
    n.num = s.value();
    return n;
  }
  auto p = ir::parse_sym_expr(s.expr().expr_str);
  if (!p.ok()) return std::nullopt;
  return std::move(p).value();
}

}  // namespace

std::string SymBinding::display(const ir::SymInt& s) const {
  if (s.is_concrete()) return std::to_string(s.value());
  return ir::display_sym_expr(s.expr().expr_str);
}

std::optional<std::string> SymBinding::bind(const std::string& symbol, const ir::SymInt& outer) {
  auto expr = parse(outer);
  if (!expr) return "size " + display(outer) + " of the program cannot be parsed";
  std::string text = display(outer);
  auto it = bound_.find(symbol);
  if (it != bound_.end()) {
    if (it->second.text == text) return std::nullopt;
    return "the replacement's symbol " + symbol + " would stand for both " + it->second.text + " and " + text;
  }
  const ir::RangeConstraint* rr = rep_.range_for(symbol);
  if (outer.is_concrete()) {
    int64_t v = outer.value();
    if (rr && ((rr->lower() && v < *rr->lower()) || (rr->upper() && v > *rr->upper()))) {
      return "size " + std::to_string(v) + " is outside the range " + range_text(rr) + " of the replacement's symbol " +
             symbol;
    }
  } else if (expr->op == ir::SymNode::Op::Symbol) {
    const ir::RangeConstraint* mr = main_.range_for(expr->name);
    if (rr) {
      bool lo_ok = !rr->lower() || (mr && mr->lower() && *mr->lower() >= *rr->lower());
      bool hi_ok = !rr->upper() || (mr && mr->upper() && *mr->upper() <= *rr->upper());
      if (!lo_ok || !hi_ok) {
        return "the program's size " + expr->name + " ranges over " + range_text(mr) +
               ", wider than the range " + range_text(rr) + " of the replacement's symbol " + symbol;
      }
    }
  } else if (rr) {
    // An expression (8*s0): its range over the program's symbols, by
    // interval arithmetic, must lie within the symbol's (torch checks every
    // call's sizes against the replacement's range_constraints). A range that
    // cannot be computed at all is not held against it.
    const SymInterval r = bound_sym_expr(*expr, program_ranges(main_));
    if (r.has_lower() || r.has_upper()) {
      const bool lo_ok = !rr->lower() || (r.has_lower() && r.lo >= *rr->lower());
      const bool hi_ok = !rr->upper() || (r.has_upper() && r.hi <= *rr->upper());
      if (!lo_ok || !hi_ok) {
        const std::string range = range_text(r.has_lower() ? std::optional<int64_t>(r.lo) : std::nullopt,
                                             r.has_upper() ? std::optional<int64_t>(r.hi) : std::nullopt);
        return "the program's size " + display(outer) + " ranges over " + range + ", not within the range " +
               range_text(rr) + " of the replacement's symbol " + symbol;
      }
    }
  }
  Bound b;
  b.expr = std::move(*expr);
  b.hint = outer.hint();
  b.text = std::move(text);
  bound_.emplace(symbol, std::move(b));
  return std::nullopt;
}

std::optional<std::string> SymBinding::unify(const ir::SymInt& rep, const ir::SymInt& outer) {
  if (rep.is_concrete()) {
    if (outer.is_concrete()) {
      if (rep.value() == outer.value()) return std::nullopt;
      return "size " + std::to_string(outer.value()) + " in the program but " + std::to_string(rep.value()) +
             " in the replacement";
    }
    return "the program's size " + display(outer) + " is dynamic but the replacement was exported with the static size " +
           std::to_string(rep.value());
  }
  auto e = parse(rep);
  if (e && e->op == ir::SymNode::Op::Symbol) return bind(e->name, outer);
  deferred_.emplace_back(rep, outer);
  return std::nullopt;
}

std::optional<std::string> SymBinding::finish() {
  for (const auto& [rep, outer] : deferred_) {
    ir::SymInt got = apply(rep);
    if (got.is_concrete() && outer.is_concrete()) {
      if (got.value() == outer.value()) continue;
    } else if (got.is_symbolic() && outer.is_symbolic() && display(got) == display(outer)) {
      continue;
    }
    return "size " + display(outer) + " in the program but " + display(rep) + " (= " + display(got) +
           ") in the replacement";
  }
  deferred_.clear();
  return std::nullopt;
}

std::vector<std::string> SymBinding::bound_symbols() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : bound_) out.push_back(k);
  return out;
}

std::optional<ir::SymNode> SymBinding::substitute(const ir::SymNode& e, bool& changed) const {
  if (e.op == ir::SymNode::Op::Symbol) {
    auto it = bound_.find(e.name);
    if (it == bound_.end()) return e;
    changed = true;
    return it->second.expr;
  }
  ir::SymNode out = e;
  for (auto& a : out.args) {
    auto s = substitute(a, changed);
    if (!s) return std::nullopt;
    a = std::move(*s);
  }
  return out;
}

ir::SymInt SymBinding::apply(const ir::SymInt& s) const {
  if (s.is_concrete() || bound_.empty()) return s;
  auto e = parse(s);
  if (!e) return s;
  bool changed = false;
  auto sub = substitute(*e, changed);
  if (!sub || !changed) return s;
  auto no_symbols = [](std::string_view) -> std::optional<int64_t> { return std::nullopt; };
  if (ir::free_symbols(*sub).empty()) {
    if (auto v = ir::evaluate_sym_expr(*sub, no_symbols)) return ir::SymInt(*v);
  }
  ir::SymExpr expr;
  expr.expr_str = ir::format_sym_expr(*sub);
  // Hint: the original expression evaluated with the bound symbols' hints.
  auto hint_of = [this](std::string_view name) -> std::optional<int64_t> {
    auto it = bound_.find(std::string(name));
    return it == bound_.end() ? std::nullopt : it->second.hint;
  };
  if (auto h = ir::evaluate_sym_expr(*e, hint_of)) {
    expr.hint = ir::SymExprHint::of_int(*h);
  } else {
    expr.hint = s.expr().hint;
  }
  return ir::SymInt(std::move(expr));
}

ir::TensorMeta SymBinding::apply(const ir::TensorMeta& m) const {
  ir::TensorMeta out = m;
  for (auto& s : out.sizes) s = apply(s);
  for (auto& s : out.strides) s = apply(s);
  out.storage_offset = apply(out.storage_offset);
  return out;
}

ir::ValueMeta SymBinding::apply(const ir::ValueMeta& m) const {
  if (const auto* t = std::get_if<ir::TensorMeta>(&m)) return apply(*t);
  if (const auto* s = std::get_if<ir::SymInt>(&m)) return apply(*s);
  auto text_only = [this](const auto& v, auto make) -> ir::ValueMeta {
    if (v.is_concrete() || bound_.empty()) return v;
    auto e = ir::parse_sym_expr(v.expr().expr_str);
    if (!e.ok()) return v;
    bool changed = false;
    auto sub = substitute(*e, changed);
    if (!sub || !changed) return v;
    ir::SymExpr expr;
    expr.expr_str = ir::format_sym_expr(*sub);
    expr.hint = v.expr().hint;
    return make(std::move(expr));
  };
  if (const auto* f = std::get_if<ir::SymFloat>(&m)) {
    return text_only(*f, [](ir::SymExpr e) { return ir::SymFloat(std::move(e)); });
  }
  if (const auto* b = std::get_if<ir::SymBool>(&m)) {
    return text_only(*b, [](ir::SymExpr e) { return ir::SymBool(std::move(e)); });
  }
  return m;
}

}  // namespace pteforge::passes::module_swap
