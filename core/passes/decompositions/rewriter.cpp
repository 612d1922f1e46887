// Rewriter (see rewriter.h).
#include "passes/decompositions/rewriter.h"

#include <functional>
#include <set>

#include "ops/op_table.h"
#include "passes/decompositions/shape_infer.h"

namespace pteforge::passes::decomp {
namespace {

/// FX renames values whose natural name is a Python builtin (pow -> pow_1).
bool is_python_builtin(std::string_view name) {
  static constexpr std::string_view kBuiltins[] = {"pow",  "sum",    "max",   "min", "abs",  "all",  "any",
                                                   "input", "round", "id",    "type", "filter", "map", "slice",
                                                   "len",  "list",   "dict",  "set", "str",  "int",  "float"};
  for (std::string_view b : kBuiltins) {
    if (b == name) return true;
  }
  return false;
}

std::string full_target(std::string_view target) {
  if (target.rfind("torch.ops.", 0) == 0 || target.rfind("_operator.", 0) == 0) return std::string(target);
  return "torch.ops." + std::string(target);
}

}  // namespace

std::string fx_base_name(std::string_view short_target) {
  if (short_target == "aten.sym_size.int") return "sym_size_int";
  auto first = short_target.find('.');
  if (first == std::string_view::npos) return std::string(short_target);
  auto rest = short_target.substr(first + 1);
  auto second = rest.find('.');
  return std::string(second == std::string_view::npos ? rest : rest.substr(0, second));
}

void SymValues::scan(ir::Graph& graph, SymbolTable& symbols) {
  graph.for_each_value([&](const ir::Value& v) {
    if (!v.sym_int() || !v.defined()) return;
    auto p = symbols.to_poly(*v.sym_int());
    if (p.ok()) add(*p, v.name);
  });
}

const std::vector<std::string>* SymValues::find(const SymPoly& p) const {
  auto it = by_key_.find(p.key());
  return it == by_key_.end() ? nullptr : &it->second;
}

Rewriter::Rewriter(Env& env, SymValues& sym_values, ir::Node& node, const ops::OpSchema* schema)
    : env_(env), sym_values_(sym_values), node_(node), schema_(schema), args_(schema, node.inputs(), env) {}

// ---- sticky accessors ---------------------------------------------------------------------------

std::string Rewriter::tensor(std::string_view name) { return take(args_.tensor(name)); }
std::optional<std::string> Rewriter::opt_tensor(std::string_view name) { return take(args_.opt_tensor(name)); }
std::vector<std::string> Rewriter::tensors(std::string_view name) { return take(args_.tensors(name)); }
std::vector<std::optional<std::string>> Rewriter::opt_tensors(std::string_view name) {
  return take(args_.opt_tensors(name));
}
int64_t Rewriter::int_(std::string_view name) { return take(args_.int_(name)); }
std::optional<int64_t> Rewriter::opt_int(std::string_view name) { return take(args_.opt_int(name)); }
std::vector<int64_t> Rewriter::ints(std::string_view name) { return take(args_.ints(name)); }
std::optional<std::vector<int64_t>> Rewriter::opt_ints(std::string_view name) { return take(args_.opt_ints(name)); }
SymPoly Rewriter::sym(std::string_view name) { return take(args_.sym(name)); }
std::optional<SymPoly> Rewriter::opt_sym(std::string_view name) { return take(args_.opt_sym(name)); }
std::vector<SymPoly> Rewriter::syms(std::string_view name) { return take(args_.syms(name)); }
std::optional<std::vector<SymPoly>> Rewriter::opt_syms(std::string_view name) { return take(args_.opt_syms(name)); }
double Rewriter::float_(std::string_view name) { return take(args_.float_(name)); }
std::optional<double> Rewriter::opt_float(std::string_view name) { return take(args_.opt_float(name)); }
bool Rewriter::bool_(std::string_view name) { return take(args_.bool_(name)); }
std::optional<bool> Rewriter::opt_bool(std::string_view name) { return take(args_.opt_bool(name)); }
std::string Rewriter::str(std::string_view name) { return take(args_.str(name)); }
std::optional<ir::ScalarType> Rewriter::dtype(std::string_view name) { return take(args_.dtype(name)); }
std::optional<ir::MemoryFormat> Rewriter::memory_format(std::string_view name) {
  return take(args_.memory_format(name));
}

ir::Argument Rewriter::raw(std::string_view name) const {
  const ir::Argument* a = args_.find(name);
  return a ? *a : ir::arg_none();
}

Meta Rewriter::meta(const std::string& value) {
  if (!ok() || value.empty()) return Meta{};
  return take(env_.meta(value));
}

// ---- errors ---------------------------------------------------------------------------------------

void Rewriter::fail(ErrorCode code, std::string message) {
  if (!error_) error_ = make_error(code, std::move(message));
}

void Rewriter::unsupported(const std::string& what) {
  fail(ErrorCode::UNSUPPORTED_FEATURE, std::string(target()) + ": " + what);
}

void Rewriter::set_outputs(std::vector<std::string> values) { outputs_ = std::move(values); }

// ---- emission ---------------------------------------------------------------------------------------

const ops::OpSchema* Rewriter::lookup(std::string_view target) {
  const ops::OpSchema* s = ops::op_table().find(target);
  if (!s) fail(ErrorCode::INTERNAL, "decomposition emits an operator the table does not know: " + std::string(target));
  return s;
}

std::string Rewriter::fresh(std::string_view base, int start) const {
  const ir::Graph& g = env_.graph();
  int k = start;
  if (k == 0 && is_python_builtin(base)) k = 1;
  for (;; ++k) {
    std::string name = k == 0 ? std::string(base) : std::string(base) + "_" + std::to_string(k);
    if (!g.find_node(name) && !g.find_value(name)) return name;
  }
}

ir::Node* Rewriter::insert(ir::Node n) {
  ir::Node& inserted = env_.graph().insert_before(node_, std::move(n));
  inserted.inherit_from(node_);
  if (!first_new_) first_new_ = &inserted;
  return &inserted;
}

std::vector<ir::NamedArgument> Rewriter::name_args(const ops::OpSchema& schema, std::vector<ir::Argument> args,
                                                   KwArgs kwargs) const {
  size_t npos = schema.num_positional();
  // Drop trailing positional arguments equal to their default.
  while (!args.empty()) {
    size_t i = args.size() - 1;
    if (i >= npos || !schema.arguments[i].default_value) break;
    if (!(args[i] == default_argument(schema.arguments[i]))) break;
    args.pop_back();
  }
  std::vector<ir::NamedArgument> out;
  for (size_t i = 0; i < args.size() && i < schema.arguments.size(); ++i) {
    out.push_back(ir::positional(schema.arguments[i].name, std::move(args[i])));
  }
  for (auto& [k, v] : kwargs) {
    const ops::Argument* sa = schema.find_argument(k);
    if (sa && sa->default_value && v == default_argument(*sa)) continue;
    out.push_back(ir::keyword(k, std::move(v)));
  }
  return out;
}

std::vector<Meta> Rewriter::infer(const ops::OpSchema& schema, const std::vector<ir::NamedArgument>& inputs,
                                  size_t expected) {
  ArgView view(&schema, inputs, env_);
  std::vector<Meta> metas = take(infer_meta(schema, view, env_.symbols()));
  if (ok() && expected != 0 && metas.size() != expected) {
    fail(ErrorCode::INTERNAL, "shape rule of " + schema.full_name() + " gave " + std::to_string(metas.size()) +
                                  " results, expected " + std::to_string(expected));
  }
  return metas;
}

std::string Rewriter::call(std::string_view target, std::vector<ir::Argument> args, KwArgs kwargs) {
  if (!ok()) return {};
  const ops::OpSchema* schema = lookup(target);
  if (!schema) return {};
  std::vector<ir::NamedArgument> inputs = name_args(*schema, std::move(args), std::move(kwargs));
  std::vector<Meta> metas = infer(*schema, inputs, 1);
  if (!ok()) return {};
  std::string name = fresh(fx_base_name(target), 0);
  insert(ir::Node(ir::OpTarget(full_target(target)), std::move(inputs), {ir::arg_tensor(name)}, name));
  env_.set_meta(name, metas[0]);
  return name;
}

std::vector<std::string> Rewriter::call_multi(std::string_view target, std::vector<ir::Argument> args, KwArgs kwargs,
                                              const std::vector<bool>& used) {
  if (!ok()) return {};
  const ops::OpSchema* schema = lookup(target);
  if (!schema) return {};
  std::vector<ir::NamedArgument> inputs = name_args(*schema, std::move(args), std::move(kwargs));
  std::vector<Meta> metas = infer(*schema, inputs, schema->returns.size());
  if (!ok()) return {};
  std::string node_name = fresh(fx_base_name(target), 0);
  std::vector<std::string> names;
  std::vector<ir::Argument> outputs;
  for (size_t i = 0; i < metas.size(); ++i) {
    bool is_used = i < used.size() && used[i];
    std::string n = is_used ? fresh("getitem", 0) : node_name + "_unused_" + std::to_string(i);
    // Reserve the name before choosing the next one.
    env_.graph().set_tensor_meta(n, env_.symbols().to_tensor_meta(metas[i]));
    names.push_back(n);
    outputs.push_back(ir::arg_tensor(n));
  }
  insert(ir::Node(ir::OpTarget(full_target(target)), std::move(inputs), std::move(outputs), node_name));
  for (size_t i = 0; i < names.size(); ++i) env_.set_meta(names[i], metas[i]);
  return names;
}

std::vector<std::string> Rewriter::call_list(std::string_view target, std::vector<ir::Argument> args, KwArgs kwargs) {
  if (!ok()) return {};
  const ops::OpSchema* schema = lookup(target);
  if (!schema) return {};
  std::vector<ir::NamedArgument> inputs = name_args(*schema, std::move(args), std::move(kwargs));
  std::vector<Meta> metas = infer(*schema, inputs, 0);
  if (!ok()) return {};
  std::string node_name = fresh(fx_base_name(target), 0);
  std::vector<std::string> names;
  for (size_t i = 0; i < metas.size(); ++i) {
    std::string n = fresh("getitem", 0);
    env_.graph().set_tensor_meta(n, env_.symbols().to_tensor_meta(metas[i]));
    names.push_back(n);
  }
  insert(ir::Node(ir::OpTarget(full_target(target)), std::move(inputs), {ir::arg_tensors(names)}, node_name));
  for (size_t i = 0; i < names.size(); ++i) env_.set_meta(names[i], metas[i]);
  return names;
}

// ---- symbolic sizes ---------------------------------------------------------------------------------

std::optional<std::string> Rewriter::available_sym(const SymPoly& p) const {
  const auto* names = sym_values_.find(p);
  if (!names) return std::nullopt;
  const ir::Graph& g = env_.graph();
  for (const auto& n : *names) {
    const ir::Value* v = g.find_value(n);
    if (!v || !v->defined()) continue;
    if (v->input_index >= 0) return n;
    if (v->producer && g.is_before(*v->producer, node_)) return n;
  }
  return std::nullopt;
}

std::string Rewriter::emit_sym_op(const char* op, ir::Argument a, ir::Argument b, const SymPoly& result) {
  std::string name = fresh(op, 0);
  std::vector<ir::NamedArgument> in{ir::positional("a", std::move(a)), ir::positional("b", std::move(b))};
  insert(
      ir::Node(ir::OpTarget(std::string("_operator.") + op), std::move(in), {ir::arg_sym_int(name)}, name));
  env_.graph().set_sym_int(name, env_.symbols().to_symint(result));
  sym_values_.add(result, name);
  return name;
}

std::vector<std::string> Rewriter::size_sources(bool node_args_only) const {
  std::vector<std::string> out;
  if (!node_args_only) {
    for (const auto& in : env_.graph().inputs()) {
      if (in.is_tensor()) out.push_back(in.tensor_name());
    }
  }
  for (const auto& na : node_.inputs()) {
    ir::for_each_value_name(na.arg, [&](const std::string& n, ir::ValueKind k) {
      if (k == ir::ValueKind::Tensor) out.push_back(n);
    });
  }
  return out;
}

namespace {

/// c and k with p == c * q + k (c != 0), when they exist.
std::optional<std::pair<int64_t, int64_t>> affine_of(const SymPoly& p, const SymPoly& q) {
  if (q.terms().empty() || p.terms().size() != q.terms().size()) return std::nullopt;
  const auto& [mono, cq] = *q.terms().begin();
  auto it = p.terms().find(mono);
  if (it == p.terms().end() || (cq == -1 && it->second == INT64_MIN) || it->second % cq != 0)
    return std::nullopt;
  const int64_t c = it->second / cq;
  SymPoly rest = p - q * SymPoly(c);
  if (!rest.is_constant()) return std::nullopt;
  return std::make_pair(c, rest.value());
}

}  // namespace

bool Rewriter::atoms_readable(const SymPoly& p) const {
  std::vector<std::string> sources;
  for (const auto& [mono, coef] : p.terms()) {
    for (const auto& a : mono) {
      SymPoly ap = SymPoly::atom(a);
      if (available_sym(ap)) continue;
      if (sources.empty()) sources = size_sources(false);
      bool found = false;
      for (const auto& t : sources) {
        auto m = env_.meta(t);
        if (!m.ok()) continue;
        for (const auto& s : m->sizes) found = found || s == ap;
        if (found) break;
      }
      if (!found) return false;
    }
  }
  return true;
}

std::optional<std::string> Rewriter::sym_from_sizes(const SymPoly& p) {
  if (p.is_constant()) return std::nullopt;
  ir::Graph& g = env_.graph();
  struct Dim {
    std::string tensor;
    size_t dim;
    SymPoly size;
  };
  auto dims_of = [&](bool node_args_only) {
    std::vector<Dim> dims;
    for (const auto& t : size_sources(node_args_only)) {
      auto m = env_.meta(t);
      if (!m.ok()) continue;
      for (size_t d = 0; d < m->sizes.size(); ++d) {
        if (!m->sizes[d].is_constant()) dims.push_back({t, d, m->sizes[d]});
      }
    }
    return dims;
  };
  auto read = [&](const Dim& dim) {
    if (auto have = available_sym(dim.size)) return *have;
    std::string name = fresh("sym_size_int", 1);
    std::vector<ir::NamedArgument> in{ir::positional("self", ir::arg_tensor(dim.tensor)),
                                      ir::positional("dim", ir::arg_int(static_cast<int64_t>(dim.dim)))};
    insert(
        ir::Node(ir::OpTarget("torch.ops.aten.sym_size.int"), std::move(in), {ir::arg_sym_int(name)}, name));
    g.set_sym_int(name, env_.symbols().to_symint(dim.size));
    sym_values_.add(dim.size, name);
    return name;
  };
  auto emit_binary = [&](const char* op, const std::string& a, int64_t b, const SymPoly& result) {
    if (auto have = available_sym(result)) return *have;
    return emit_sym_op(op, ir::arg_sym_int(a), ir::arg_int(b), result);
  };
  // c * base + k from a SymInt holding `base`.
  auto scale_shift = [&](std::string v, const SymPoly& base, int64_t c, int64_t k) {
    SymPoly acc = base;
    if (c != 1) {
      acc = acc * SymPoly(c);
      v = emit_binary("mul", v, c, acc);
    }
    if (k != 0) v = emit_binary("add", v, k, acc + SymPoly(k));
    return v;
  };
  std::vector<Dim> dims = dims_of(false);
  for (const auto& d : dims) {
    if (d.size == p) return read(d);
  }
  if (p.as_atom()) return std::nullopt;
  for (const auto& d : dims) {
    if (d.size.as_atom()) continue;  // the sum-of-monomials path reads atoms itself
    if (auto ck = affine_of(p, d.size)) return scale_shift(read(d), d.size, ck->first, ck->second);
  }
  // A product of this node's own sizes (a flatten of derived dims), times a
  // factor the usual path can build (a constant, or symbols some tensor
  // carries), plus a constant: found by exact division, one size at a time
  // in argument order, so [s0 + 1, s1 + 1, s2 + 1] flattens to
  // ((d0 * d1) * d2) as the reference's left-to-right product.
  std::vector<Dim> own = dims_of(true);
  std::function<std::optional<std::pair<std::vector<size_t>, SymPoly>>(const SymPoly&, size_t)> plan =
      [&](const SymPoly& q, size_t depth) -> std::optional<std::pair<std::vector<size_t>, SymPoly>> {
    if (q.is_constant() || available_sym(q) || atoms_readable(q))
      return std::make_pair(std::vector<size_t>{}, q);
    if (depth == 0) return std::nullopt;
    std::set<std::string> tried;  // one try per distinct size (a size shared by many tensors)
    for (size_t i = 0; i < own.size(); ++i) {
      if (own[i].size.as_atom()) continue;  // an atom is read by the usual path
      if (!tried.insert(own[i].size.key()).second) continue;
      std::optional<SymPoly> rest = q.div_exact(own[i].size);
      if (!rest) continue;
      if (auto sub = plan(*rest, depth - 1)) {
        sub->first.insert(sub->first.begin(), i);
        return sub;
      }
    }
    return std::nullopt;
  };
  for (const int64_t shift : {int64_t{0}, p.constant()}) {
    if (shift != 0 && p.terms().empty()) break;
    const SymPoly target = p - SymPoly(shift);
    auto found = plan(target, own.size());
    if (!found || found->first.empty()) continue;
    SymPoly acc = own[found->first[0]].size;
    std::string v = read(own[found->first[0]]);
    for (size_t k = 1; k < found->first.size(); ++k) {
      const Dim& dim = own[found->first[k]];
      SymPoly next = acc * dim.size;
      if (auto have = available_sym(next)) {
        v = *have;
      } else {
        std::string b = read(dim);
        v = emit_sym_op("mul", ir::arg_sym_int(v), ir::arg_sym_int(b), next);
      }
      acc = next;
    }
    const SymPoly& factor = found->second;
    if (factor.is_constant()) {
      v = scale_shift(v, acc, factor.value(), shift);
    } else {
      std::string f = sym_value(factor);
      if (!ok()) return std::nullopt;
      SymPoly next = acc * factor;
      v = available_sym(next) ? *available_sym(next)
                              : emit_sym_op("mul", ir::arg_sym_int(v), ir::arg_sym_int(f), next);
      v = scale_shift(v, next, 1, shift);
    }
    return v;
  }
  return std::nullopt;
}

std::string Rewriter::sym_value(const SymPoly& p) {
  if (!ok()) return {};
  if (auto have = available_sym(p)) return *have;
  auto emit_binary = [&](const char* op, ir::Argument a, ir::Argument b, const SymPoly& result) {
    return emit_sym_op(op, std::move(a), std::move(b), result);
  };
  // Symbols read off sizes directly give export's spelling (products of
  // sym_size values); a derived dim whose symbol no tensor carries alone is
  // read as a whole size instead.
  if (p.as_atom() || !atoms_readable(p)) {
    if (auto from_size = sym_from_sizes(p)) return *from_size;
    if (!ok()) return {};
  }
  if (p.as_atom()) {
    fail(ErrorCode::UNSUPPORTED_FEATURE, std::string(target()) + ": no tensor carries the symbolic size " +
                                             env_.symbols().display(p) + " before this node");
    return {};
  }
  // A sum of monomials, each coef * atom * atom ...: products first, then sums
  // (constant term last), reusing any SymInt value that already holds a partial result.
  std::vector<std::pair<ir::Argument, SymPoly>> terms;
  std::optional<std::pair<ir::Argument, SymPoly>> constant;
  if (p.constant() != 0) constant = std::make_pair(ir::arg_int(p.constant()), SymPoly(p.constant()));
  for (const auto& [mono, coef] : p.terms()) {
    std::string term;
    SymPoly term_poly(1);
    for (const auto& a : mono) {
      SymPoly ap = SymPoly::atom(a);
      std::string av = sym_value(ap);
      if (!ok()) return {};
      SymPoly next = term_poly * ap;
      if (term.empty()) {
        term = av;
      } else if (auto have = available_sym(next)) {
        term = *have;
      } else {
        term = emit_binary("mul", ir::arg_sym_int(term), ir::arg_sym_int(av), next);
      }
      term_poly = next;
    }
    if (coef != 1) {
      SymPoly scaled = term_poly * SymPoly(coef);
      if (auto have = available_sym(scaled)) {
        term = *have;
      } else {
        term = emit_binary("mul", ir::arg_sym_int(term), ir::arg_int(coef), scaled);
      }
      term_poly = scaled;
    }
    terms.emplace_back(ir::arg_sym_int(term), term_poly);
  }
  if (constant) terms.push_back(*constant);
  if (terms.empty()) return {};
  ir::Argument acc = terms[0].first;
  SymPoly acc_poly = terms[0].second;
  for (size_t i = 1; i < terms.size(); ++i) {
    SymPoly sum = acc_poly + terms[i].second;
    if (auto have = available_sym(sum)) {
      acc = ir::arg_sym_int(*have);
    } else {
      acc = ir::arg_sym_int(emit_binary("add", acc, terms[i].first, sum));
    }
    acc_poly = sum;
  }
  const std::string* n = acc.value_name();
  return n ? *n : std::string();
}

ir::Argument Rewriter::size(const SymPoly& p) {
  if (p.is_constant()) return ir::arg_int(p.value());
  return ir::arg_sym_int(sym_value(p));
}

ir::Argument Rewriter::sizes(const std::vector<SymPoly>& ps) {
  bool all_const = true;
  for (const auto& p : ps) all_const = all_const && p.is_constant();
  if (all_const) {
    std::vector<int64_t> v;
    for (const auto& p : ps) v.push_back(p.value());
    return ir::arg_ints(std::move(v));
  }
  std::vector<ir::SymIntArgument> out;
  for (const auto& p : ps) {
    if (p.is_constant()) {
      out.push_back(ir::SymIntArgument{std::nullopt, p.value()});
    } else {
      out.push_back(ir::SymIntArgument{sym_value(p), 0});
    }
  }
  return ir::Argument::make<ir::ArgTag::SymInts>(std::move(out));
}

}  // namespace pteforge::passes::decomp
