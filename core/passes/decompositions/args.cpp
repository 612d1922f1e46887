// ArgView and Env (see args.h).
#include "passes/decompositions/args.h"

#include <algorithm>
#include <unordered_map>

namespace pteforge::passes::decomp {

Result<Meta> Env::meta(const std::string& name) {
  auto it = cache_.find(name);
  if (it != cache_.end()) return it->second;
  const ir::TensorMeta* tm = graph_.tensor_meta(name);
  if (!tm) {
    Location where;
    where.node = name;
    return make_error(ErrorCode::INVALID_GRAPH, "value \"" + name + "\" has no tensor metadata", where);
  }
  PTEFORGE_ASSIGN_OR_RETURN(Meta m, symbols_.to_meta(*tm));
  cache_.emplace(name, m);
  return m;
}

Result<SymPoly> Env::sym_value(const std::string& name) {
  const ir::Value* v = graph_.find_value(name);
  if (!v || !v->sym_int()) {
    Location where;
    where.node = name;
    return make_error(ErrorCode::INVALID_GRAPH, "value \"" + name + "\" is not a SymInt with metadata", where);
  }
  return symbols_.to_poly(*v->sym_int());
}

void Env::set_meta(const std::string& name, const Meta& m) {
  cache_[name] = m;
  graph_.set_tensor_meta(name, symbols_.to_tensor_meta(m));
}

ir::Argument default_argument(const ops::Argument& arg) {
  if (!arg.default_value) return ir::arg_none();
  const ops::Value& v = *arg.default_value;
  using K = ops::Value::Kind;
  switch (v.kind) {
    case K::None: return ir::arg_none();
    case K::Bool: return ir::arg_bool(v.bool_value);
    case K::Int: return ir::arg_int(v.int_value);
    case K::Double: return ir::arg_float(v.double_value);
    case K::String: return ir::arg_string(v.string_value);
    case K::IntList: return ir::arg_ints(v.int_list);
    case K::DoubleList: return ir::arg_floats(v.double_list);
    case K::BoolList: return ir::Argument::make<ir::ArgTag::Bools>(v.bool_list);
    case K::ScalarType: return ir::arg_dtype(static_cast<ir::ScalarType>(v.int_value));
    case K::MemoryFormat: {
      switch (static_cast<ops::MemoryFormat>(v.int_value)) {
        case ops::MemoryFormat::Contiguous: return ir::arg_memory_format(ir::MemoryFormat::ContiguousFormat);
        case ops::MemoryFormat::Preserve: return ir::arg_memory_format(ir::MemoryFormat::PreserveFormat);
        case ops::MemoryFormat::ChannelsLast: return ir::arg_memory_format(ir::MemoryFormat::ChannelsLast);
        case ops::MemoryFormat::ChannelsLast3d: return ir::arg_memory_format(ir::MemoryFormat::ChannelsLast3d);
      }
      return ir::arg_none();
    }
    case K::Layout: return ir::arg_layout(ir::Layout::Strided);
    case K::Device: return ir::arg_device(ir::Device{v.string_value, std::nullopt});
  }
  return ir::arg_none();
}

namespace {

/// The Argument of a schema default, built once per schema argument (the
/// operator table is immutable, so its addresses are stable keys).
const ir::Argument& cached_default(const ops::Argument& arg) {
  thread_local std::unordered_map<const ops::Argument*, ir::Argument> cache;
  auto it = cache.find(&arg);
  if (it == cache.end()) it = cache.emplace(&arg, default_argument(arg)).first;
  return it->second;
}

}  // namespace

ArgView::ArgView(const ops::OpSchema* schema, const std::vector<ir::NamedArgument>& inputs, Env& env)
    : schema_(schema), env_(env) {
  values_.reserve(schema ? std::max(schema->arguments.size(), inputs.size()) : inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string_view name = inputs[i].name;
    if (name.empty() && schema && i < schema->arguments.size()) name = schema->arguments[i].name;
    values_.emplace_back(name, &inputs[i].arg);
  }
  num_passed_ = values_.size();
  if (schema) {
    for (const auto& a : schema->arguments) {
      if (!a.default_value || passed(a.name)) continue;
      values_.emplace_back(a.name, &cached_default(a));
    }
  }
}

const ir::Argument* ArgView::find(std::string_view name) const {
  for (const auto& [n, a] : values_) {
    if (n == name) return a;
  }
  return nullptr;
}

bool ArgView::passed(std::string_view name) const {
  for (size_t i = 0; i < num_passed_; ++i) {
    if (values_[i].first == name) return true;
  }
  return false;
}

bool ArgView::is_none(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (!a || a->is_none()) return true;
  if (const auto* o = a->get_if<ir::ArgTag::OptionalTensor>()) return o->is_none();
  return false;
}

Error ArgView::bad(std::string_view name, std::string_view expected, ErrorCode code) const {
  std::string op = schema_ ? schema_->full_name() : std::string("the operator");
  const ir::Argument* a = find(name);
  std::string found = a ? std::string(a->tag_name()) : std::string("nothing");
  return make_error(code, "argument \"" + std::string(name) + "\" of " + op + ": expected " + std::string(expected) +
                              ", found " + found);
}

Result<std::string> ArgView::tensor(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (a->is_tensor()) return a->tensor_name();
    if (const auto* o = a->get_if<ir::ArgTag::OptionalTensor>(); o && o->name) return *o->name;
  }
  return bad(name, "a tensor");
}

Result<std::optional<std::string>> ArgView::opt_tensor(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (!a || a->is_none()) return std::optional<std::string>();
  if (a->is_tensor()) return std::optional<std::string>(a->tensor_name());
  if (const auto* o = a->get_if<ir::ArgTag::OptionalTensor>()) return o->name;
  return bad(name, "a tensor or None");
}

Result<std::vector<std::string>> ArgView::tensors(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* l = a->get_if<ir::ArgTag::Tensors>()) {
      std::vector<std::string> out;
      for (const auto& t : *l) out.push_back(t.name);
      return out;
    }
    if (const auto* l = a->get_if<ir::ArgTag::OptionalTensors>()) {
      std::vector<std::string> out;
      for (const auto& t : *l) {
        if (!t.name) return bad(name, "a list of tensors without None");
        out.push_back(*t.name);
      }
      return out;
    }
  }
  return bad(name, "a list of tensors");
}

Result<std::vector<std::optional<std::string>>> ArgView::opt_tensors(std::string_view name) const {
  const ir::Argument* a = find(name);
  std::vector<std::optional<std::string>> out;
  if (a) {
    if (const auto* l = a->get_if<ir::ArgTag::OptionalTensors>()) {
      for (const auto& t : *l) out.push_back(t.name);
      return out;
    }
    if (const auto* l = a->get_if<ir::ArgTag::Tensors>()) {
      for (const auto& t : *l) out.push_back(t.name);
      return out;
    }
  }
  return bad(name, "a list of optional tensors");
}

Result<Meta> ArgView::meta(std::string_view name) const {
  PTEFORGE_ASSIGN_OR_RETURN(std::string t, tensor(name));
  return env_.meta(t);
}

Result<Meta> ArgView::env_meta(const std::string& value) const { return env_.meta(value); }

Result<std::vector<Meta>> ArgView::metas(std::string_view name) const {
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<std::string> ts, tensors(name));
  std::vector<Meta> out;
  for (const auto& t : ts) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta m, env_.meta(t));
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::optional<Meta>> ArgView::opt_meta(std::string_view name) const {
  PTEFORGE_ASSIGN_OR_RETURN(std::optional<std::string> t, opt_tensor(name));
  if (!t) return std::optional<Meta>();
  PTEFORGE_ASSIGN_OR_RETURN(Meta m, env_.meta(*t));
  return std::optional<Meta>(std::move(m));
}

Result<int64_t> ArgView::int_(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) return *v;
    if (const auto* s = a->get_if<ir::ArgTag::SymInt>()) {
      if (!s->is_name()) return s->value;
      PTEFORGE_ASSIGN_OR_RETURN(SymPoly p, env_.sym_value(*s->name));
      if (p.is_constant()) return p.value();
      return bad(name, "a concrete int (the decomposition needs its value)", ErrorCode::UNSUPPORTED_FEATURE);
    }
    if (const auto* b = a->get_if<ir::ArgTag::Bool>()) return static_cast<int64_t>(*b);
  }
  return bad(name, "an int");
}

Result<std::optional<int64_t>> ArgView::opt_int(std::string_view name) const {
  if (is_none(name)) return std::optional<int64_t>();
  PTEFORGE_ASSIGN_OR_RETURN(int64_t v, int_(name));
  return std::optional<int64_t>(v);
}

Result<std::vector<int64_t>> ArgView::ints(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Ints>()) return *v;
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) return std::vector<int64_t>{*v};
    if (a->is<ir::ArgTag::SymInts>()) {
      PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> ps, syms(name));
      std::vector<int64_t> out;
      for (const auto& p : ps) {
        if (!p.is_constant()) return bad(name, "concrete ints", ErrorCode::UNSUPPORTED_FEATURE);
        out.push_back(p.value());
      }
      return out;
    }
  }
  return bad(name, "a list of ints");
}

Result<std::optional<std::vector<int64_t>>> ArgView::opt_ints(std::string_view name) const {
  if (is_none(name)) return std::optional<std::vector<int64_t>>();
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> v, ints(name));
  return std::optional<std::vector<int64_t>>(std::move(v));
}

Result<SymPoly> ArgView::sym(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) return SymPoly(*v);
    if (const auto* s = a->get_if<ir::ArgTag::SymInt>()) {
      if (!s->is_name()) return SymPoly(s->value);
      return env_.sym_value(*s->name);
    }
  }
  return bad(name, "an int or SymInt");
}

Result<std::optional<SymPoly>> ArgView::opt_sym(std::string_view name) const {
  if (is_none(name)) return std::optional<SymPoly>();
  PTEFORGE_ASSIGN_OR_RETURN(SymPoly v, sym(name));
  return std::optional<SymPoly>(std::move(v));
}

Result<std::vector<SymPoly>> ArgView::syms(std::string_view name) const {
  const ir::Argument* a = find(name);
  std::vector<SymPoly> out;
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Ints>()) {
      for (int64_t x : *v) out.emplace_back(x);
      return out;
    }
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) {
      out.emplace_back(*v);
      return out;
    }
    if (const auto* v = a->get_if<ir::ArgTag::SymInts>()) {
      for (const auto& s : *v) {
        if (!s.is_name()) {
          out.emplace_back(s.value);
        } else {
          PTEFORGE_ASSIGN_OR_RETURN(SymPoly p, env_.sym_value(*s.name));
          out.push_back(p);
        }
      }
      return out;
    }
  }
  return bad(name, "a list of ints or SymInts");
}

Result<std::optional<std::vector<SymPoly>>> ArgView::opt_syms(std::string_view name) const {
  if (is_none(name)) return std::optional<std::vector<SymPoly>>();
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> v, syms(name));
  return std::optional<std::vector<SymPoly>>(std::move(v));
}

Result<double> ArgView::float_(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Float>()) return *v;
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) return static_cast<double>(*v);
    if (const auto* v = a->get_if<ir::ArgTag::SymFloat>(); v && !v->is_name()) return v->value;
  }
  return bad(name, "a float");
}

Result<std::optional<double>> ArgView::opt_float(std::string_view name) const {
  if (is_none(name)) return std::optional<double>();
  PTEFORGE_ASSIGN_OR_RETURN(double v, float_(name));
  return std::optional<double>(v);
}

Result<std::vector<double>> ArgView::floats(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Floats>()) return *v;
    if (const auto* v = a->get_if<ir::ArgTag::Ints>()) return std::vector<double>(v->begin(), v->end());
  }
  return bad(name, "a list of floats");
}

Result<bool> ArgView::bool_(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Bool>()) return *v;
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) return *v != 0;
    if (const auto* v = a->get_if<ir::ArgTag::SymBool>(); v && !v->is_name()) return v->value;
  }
  return bad(name, "a bool");
}

Result<std::optional<bool>> ArgView::opt_bool(std::string_view name) const {
  if (is_none(name)) return std::optional<bool>();
  PTEFORGE_ASSIGN_OR_RETURN(bool v, bool_(name));
  return std::optional<bool>(v);
}

Result<std::string> ArgView::str(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::String>()) return *v;
  }
  return bad(name, "a string");
}

Result<std::optional<ir::ScalarType>> ArgView::dtype(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (!a || a->is_none()) return std::optional<ir::ScalarType>();
  if (const auto* v = a->get_if<ir::ArgTag::ScalarType>()) return std::optional<ir::ScalarType>(*v);
  return bad(name, "a dtype");
}

Result<std::optional<ir::MemoryFormat>> ArgView::memory_format(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (!a || a->is_none()) return std::optional<ir::MemoryFormat>();
  if (const auto* v = a->get_if<ir::ArgTag::MemoryFormat>()) return std::optional<ir::MemoryFormat>(*v);
  return bad(name, "a memory format");
}

Result<Number> ArgView::number(std::string_view name) const {
  const ir::Argument* a = find(name);
  if (a) {
    if (const auto* v = a->get_if<ir::ArgTag::Int>()) return Number::of_int(*v);
    if (const auto* v = a->get_if<ir::ArgTag::Float>()) return Number::of_float(*v);
    if (const auto* v = a->get_if<ir::ArgTag::Bool>()) return Number::of_bool(*v);
    if (const auto* v = a->get_if<ir::ArgTag::SymInt>(); v && !v->is_name()) return Number::of_int(v->value);
    if (const auto* v = a->get_if<ir::ArgTag::SymFloat>(); v && !v->is_name()) return Number::of_float(v->value);
    if (a->is<ir::ArgTag::SymInt>() || a->is<ir::ArgTag::SymFloat>() || a->is<ir::ArgTag::SymBool>()) {
      return bad(name, "a literal number", ErrorCode::UNSUPPORTED_FEATURE);
    }
  }
  return bad(name, "a number");
}

}  // namespace pteforge::passes::decomp
