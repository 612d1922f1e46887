// Meta helpers and the SymbolTable (see meta.h).
#include "passes/decompositions/meta.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace pteforge::passes::decomp {
namespace {

bool max1(const SymPoly& s) { return s.is_constant() && s.value() <= 1; }

/// sympy srepr of a parsed expression (opaque atoms only need it).
std::string srepr_of(const ir::SymNode& n) {
  using Op = ir::SymNode::Op;
  auto join = [&](const char* head) {
    std::string out = std::string(head) + "(";
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i) out += ", ";
      out += srepr_of(n.args[i]);
    }
    return out + ")";
  };
  switch (n.op) {
    case Op::Integer: return "Integer(" + std::to_string(n.num) + ")";
    case Op::Rational: return "Rational(" + std::to_string(n.num) + ", " + std::to_string(n.den) + ")";
    case Op::Float: {
      char buf[48];
      std::snprintf(buf, sizeof(buf), "Float('%.17g', precision=53)", n.fvalue);
      return buf;
    }
    case Op::Bool: return n.num ? "true" : "false";
    case Op::Symbol: return "Symbol('" + n.name + "', integer=True, positive=True)";
    case Op::Add: return join("Add");
    case Op::Mul: return join("Mul");
    case Op::Pow: return join("Pow");
    case Op::Call: return join(n.name.c_str());
  }
  return {};
}

bool looks_srepr(const std::string& text) {
  return text.rfind("Symbol(", 0) == 0 || text.rfind("Mul(", 0) == 0 || text.rfind("Add(", 0) == 0 ||
         text.rfind("Integer(", 0) == 0 || text.rfind("Pow(", 0) == 0;
}

}  // namespace

std::vector<SymPoly> contiguous_strides(const std::vector<SymPoly>& sizes) {
  std::vector<SymPoly> out(sizes.size());
  SymPoly acc(1);
  for (size_t i = sizes.size(); i-- > 0;) {
    out[i] = acc;
    acc = max1(sizes[i]) ? acc : acc * sizes[i];
  }
  return out;
}

std::vector<SymPoly> strides_for_order(const std::vector<SymPoly>& sizes, const std::vector<size_t>& order) {
  std::vector<SymPoly> out(sizes.size());
  SymPoly acc(1);
  for (size_t k = order.size(); k-- > 0;) {
    size_t d = order[k];
    out[d] = acc;
    acc = max1(sizes[d]) ? acc : acc * sizes[d];
  }
  return out;
}

Meta make_meta(ir::ScalarType dtype, std::vector<SymPoly> sizes, bool requires_grad) {
  Meta m;
  m.dtype = dtype;
  m.strides = contiguous_strides(sizes);
  m.sizes = std::move(sizes);
  m.requires_grad = requires_grad;
  return m;
}

void SymbolTable::note(const ir::SymInt& s) {
  if (s.is_concrete()) return;
  const ir::SymExpr& e = s.expr();
  if (!style_known_) {
    srepr_ = looks_srepr(e.expr_str);
    style_known_ = true;
  }
  auto p = to_poly(s);
  if (!p.ok()) return;
  by_key_.emplace(p->key(), s.expr_ptr());
  // A symbol's own example value follows from any c*s + k with a hint (a
  // derived dim such as s0 + 1 may be the only place its symbol appears).
  if (e.hint && e.hint->kind == ir::SymExprHint::Kind::Int) {
    if (auto af = p->as_affine_atom(); af && af->coef != 0) {
      int64_t rest = 0;
      if (!__builtin_sub_overflow(e.hint->int_value, af->constant, &rest) &&
          !(af->coef == -1 && rest == std::numeric_limits<int64_t>::min()) && rest % af->coef == 0) {
        hints_.emplace(af->atom, rest / af->coef);
      }
    }
  }
}

void SymbolTable::scan(const ir::ExportedProgram& ep) {
  const ir::Graph& g = ep.graph();
  g.for_each_value([&](const ir::Value& v) {
    if (const auto* tm = v.tensor_meta()) {
      for (const auto& s : tm->sizes) note(s);
      for (const auto& s : tm->strides) note(s);
    } else if (const auto* si = v.sym_int()) {
      note(*si);
    }
  });
}

Result<SymPoly> SymbolTable::from_node(const ir::SymNode& n) {
  using Op = ir::SymNode::Op;
  switch (n.op) {
    case Op::Integer: return SymPoly(n.num);
    case Op::Symbol: return SymPoly::atom(n.name);
    case Op::Add: {
      SymPoly acc;
      for (const auto& a : n.args) {
        PTEFORGE_ASSIGN_OR_RETURN(SymPoly t, from_node(a));
        acc += t;
      }
      return acc;
    }
    case Op::Mul: {
      // A product that would expand past SymPoly::kMaxTerms stays one opaque
      // atom with the expression's own text and example value (below).
      SymPoly acc(1);
      bool expanded = true;
      for (const auto& a : n.args) {
        PTEFORGE_ASSIGN_OR_RETURN(SymPoly t, from_node(a));
        if (SymPoly::product_too_large(acc, t)) {
          expanded = false;
          break;
        }
        acc = acc * t;
      }
      if (expanded) return acc;
      break;
    }
    case Op::Pow:
      if (n.args.size() == 2 && n.args[1].op == Op::Integer && n.args[1].num >= 0 && n.args[1].num <= 8) {
        PTEFORGE_ASSIGN_OR_RETURN(SymPoly base, from_node(n.args[0]));
        SymPoly acc(1);
        bool expanded = true;
        for (int64_t i = 0; i < n.args[1].num && expanded; ++i) {
          expanded = !SymPoly::product_too_large(acc, base);
          if (expanded) acc = acc * base;
        }
        if (expanded) return acc;
      }
      break;
    default: break;
  }
  // Opaque atom: FloorDiv, Max, Rational, ..., or a product too large to expand.
  std::string plain = ir::format_sym_expr(n);
  std::string name = "(" + plain + ")";
  atom_plain_.emplace(name, plain);
  atom_srepr_.emplace(name, srepr_of(n));
  if (!hints_.count(name)) {
    auto v = ir::evaluate_sym_expr(n, [&](std::string_view sym) -> std::optional<int64_t> {
      auto it = hints_.find(std::string(sym));
      if (it == hints_.end()) return std::nullopt;
      return it->second;
    });
    if (v) hints_.emplace(name, *v);
  }
  return SymPoly::atom(name);
}

Result<SymPoly> SymbolTable::to_poly(const ir::SymInt& s) {
  if (s.is_concrete()) return SymPoly(s.value());
  const std::string& text = s.expr().expr_str;
  auto it = parsed_.find(text);
  if (it != parsed_.end()) return it->second;
  PTEFORGE_ASSIGN_OR_RETURN(ir::SymNode n, ir::parse_sym_expr(text));
  PTEFORGE_ASSIGN_OR_RETURN(SymPoly p, from_node(n));
  parsed_.emplace(text, p);
  return p;
}

std::string SymbolTable::atom_text(const std::string& atom, bool srepr) const {
  const auto& table = srepr ? atom_srepr_ : atom_plain_;
  auto it = table.find(atom);
  if (it != table.end()) return srepr ? it->second : "(" + it->second + ")";
  return srepr ? "Symbol('" + atom + "', integer=True, positive=True)" : atom;
}

std::string SymbolTable::format(const SymPoly& p, bool srepr) const {
  if (p.is_constant()) return srepr ? "Integer(" + std::to_string(p.value()) + ")" : std::to_string(p.value());
  std::vector<std::string> terms;
  std::string constant;
  if (p.constant() != 0) {
    constant = srepr ? "Integer(" + std::to_string(p.constant()) + ")" : std::to_string(p.constant());
  }
  for (const auto& [mono, coef] : p.terms()) {
    // Group repeated atoms into powers.
    std::vector<std::pair<std::string, int>> factors;
    for (const auto& a : mono) {
      if (!factors.empty() && factors.back().first == a) {
        ++factors.back().second;
      } else {
        factors.emplace_back(a, 1);
      }
    }
    std::vector<std::string> parts;
    if (coef != 1) parts.push_back(srepr ? "Integer(" + std::to_string(coef) + ")" : std::to_string(coef));
    for (const auto& [a, n] : factors) {
      std::string t = atom_text(a, srepr);
      if (n > 1) t = srepr ? "Pow(" + t + ", Integer(" + std::to_string(n) + "))" : t + "**" + std::to_string(n);
      parts.push_back(t);
    }
    if (parts.size() == 1) {
      terms.push_back(parts[0]);
    } else if (srepr) {
      std::string m = "Mul(";
      for (size_t i = 0; i < parts.size(); ++i) m += (i ? ", " : "") + parts[i];
      terms.push_back(m + ")");
    } else {
      std::string m;
      for (size_t i = 0; i < parts.size(); ++i) m += (i ? "*" : "") + parts[i];
      terms.push_back(m);
    }
  }
  if (!constant.empty()) terms.push_back(constant);
  if (terms.size() == 1) return terms[0];
  if (srepr) {
    std::string out = "Add(";
    for (size_t i = 0; i < terms.size(); ++i) out += (i ? ", " : "") + terms[i];
    return out + ")";
  }
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i) out += (i ? " + " : "") + terms[i];
  return out;
}

ir::SymInt SymbolTable::to_symint(const SymPoly& p) {
  if (p.is_constant()) return ir::SymInt(p.value());
  auto it = by_key_.find(p.key());
  if (it != by_key_.end()) return ir::SymInt(it->second);
  ir::SymExpr e;
  e.expr_str = format(p, srepr_);
  if (auto h = hint(p)) e.hint = ir::SymExprHint::of_int(*h);
  auto ptr = std::make_shared<const ir::SymExpr>(std::move(e));
  by_key_.emplace(p.key(), ptr);
  parsed_.emplace(ptr->expr_str, p);
  return ir::SymInt(ptr);
}

Result<Meta> SymbolTable::to_meta(const ir::TensorMeta& m) {
  Meta out;
  out.dtype = m.dtype;
  out.requires_grad = m.requires_grad;
  out.device = m.device;
  for (const auto& s : m.sizes) {
    PTEFORGE_ASSIGN_OR_RETURN(SymPoly p, to_poly(s));
    out.sizes.push_back(p);
  }
  for (const auto& s : m.strides) {
    PTEFORGE_ASSIGN_OR_RETURN(SymPoly p, to_poly(s));
    out.strides.push_back(p);
  }
  if (out.strides.size() != out.sizes.size()) out.strides = contiguous_strides(out.sizes);
  PTEFORGE_ASSIGN_OR_RETURN(out.storage_offset, to_poly(m.storage_offset));
  return out;
}

ir::TensorMeta SymbolTable::to_tensor_meta(const Meta& m) {
  ir::TensorMeta out;
  out.dtype = m.dtype;
  out.requires_grad = m.requires_grad;
  out.device = m.device;
  for (const auto& s : m.sizes) out.sizes.push_back(to_symint(s));
  for (const auto& s : m.strides) out.strides.push_back(to_symint(s));
  out.storage_offset = to_symint(m.storage_offset);
  out.layout = ir::Layout::Strided;
  return out;
}

std::optional<int64_t> SymbolTable::hint(const SymPoly& p) const {
  return p.evaluate([&](const std::string& a) -> std::optional<int64_t> {
    auto it = hints_.find(a);
    if (it == hints_.end()) return std::nullopt;
    return it->second;
  });
}

std::string SymbolTable::display(const SymPoly& p) const { return clipped(format(p, false)); }

}  // namespace pteforge::passes::decomp
