// Schema-string parser (grammar: reference OPS.md §2) and typed default values.
//
// It runs at startup over every generated schema (op_table.cpp), so it works
// on string_views, does one pass, and allocates only for the names it keeps.
#include <charconv>
#include <iterator>
#include <cmath>
#include <cstdlib>

#include "ir/dtype.h"
#include "ops/op_schema.h"
#include "ops/str_cat.h"

namespace pteforge::ops {
namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Error schema_error(std::string_view text, size_t offset, std::string_view what) {
  Location where;
  where.byte_offset = offset;
  std::string found = offset < text.size() ? detail::str_cat({"'", text.substr(offset, 12), "'"})
                                           : std::string("end of text");
  return make_error(ErrorCode::INPUT_SCHEMA,
                    detail::str_cat({"operator schema \"", text, "\": expected ", what, " at byte ",
                                     std::to_string(offset), ", found ", found}),
                    where);
}

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  size_t pos() const { return i_; }
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(std::string_view tok) {
    if (s_.substr(i_, tok.size()) == tok) {
      i_ += tok.size();
      return true;
    }
    return false;
  }
  void skip_spaces() {
    while (peek() == ' ') ++i_;
  }
  std::string_view ident() {
    size_t start = i_;
    if (!is_ident_start(peek())) return {};
    while (i_ < s_.size() && is_ident_char(s_[i_])) ++i_;
    return s_.substr(start, i_ - start);
  }
  // Text up to (not including) `c`; empty optional when `c` is absent.
  std::optional<std::string_view> until(char c) {
    size_t j = s_.find(c, i_);
    if (j == std::string_view::npos) return std::nullopt;
    std::string_view out = s_.substr(i_, j - i_);
    i_ = j + 1;
    return out;
  }
  // A default value: up to a top-level ',' or ')', skipping brackets and quotes.
  std::string_view default_text() {
    size_t start = i_;
    int depth = 0;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\'' || c == '"') {
        ++i_;
        while (i_ < s_.size() && s_[i_] != c) i_ += (s_[i_] == '\\') ? 2 : 1;
      } else if (c == '[') {
        ++depth;
      } else if (c == ']') {
        --depth;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
      ++i_;
    }
    if (i_ > s_.size()) i_ = s_.size();
    return s_.substr(start, i_ - start);
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

Result<AliasInfo> parse_alias(std::string_view text, std::string_view inner, size_t offset) {
  AliasInfo a;
  std::string_view s = trim(inner);
  size_t arrow = s.find("->");
  if (arrow != std::string_view::npos) {
    if (trim(s.substr(arrow + 2)) != "*") return schema_error(text, offset, "'-> *' in alias annotation");
    a.to_wildcard = true;
    s = trim(s.substr(0, arrow));
  }
  if (!s.empty() && s.back() == '!') {
    a.is_write = true;
    s.remove_suffix(1);
  }
  if (s.empty()) return schema_error(text, offset, "an alias set name");
  for (char c : s) {
    if (!is_ident_char(c)) return schema_error(text, offset, "an alias set name");
  }
  a.set = std::string(s);
  return a;
}

Result<Type> parse_type(std::string_view text, Cursor& c) {
  size_t start = c.pos();
  std::string_view base_name = c.ident();
  auto base = base_type_from_name(base_name);
  if (!base) return schema_error(text, start, "a type name");
  Type t;
  t.base = *base;
  if (c.eat("(")) {
    size_t at = c.pos();
    auto inner = c.until(')');
    if (!inner) return schema_error(text, at, "')' closing the alias annotation");
    PTEFORGE_ASSIGN_OR_RETURN(AliasInfo a, parse_alias(text, *inner, at));
    t.alias = std::move(a);
  }
  bool q1 = c.eat("?");
  if (c.eat("[")) {
    size_t at = c.pos();
    auto inner = c.until(']');
    if (!inner) return schema_error(text, at, "']' closing the list type");
    t.is_list = true;
    if (!inner->empty()) {
      int32_t n = 0;
      auto r = std::from_chars(inner->data(), inner->data() + inner->size(), n);
      if (r.ec != std::errc() || r.ptr != inner->data() + inner->size() || n <= 0) {
        return schema_error(text, at, "a list size");
      }
      t.list_size = n;
    }
    t.element_optional = q1;
    t.optional = c.eat("?");
  } else {
    t.optional = q1;
  }
  return t;
}

Result<Return> parse_return(std::string_view text, Cursor& c) {
  Return r;
  PTEFORGE_ASSIGN_OR_RETURN(r.type, parse_type(text, c));
  if (c.peek() == ' ') {
    c.eat(" ");
    size_t at = c.pos();
    std::string_view n = c.ident();
    if (n.empty()) return schema_error(text, at, "a return name");
    r.name = std::string(n);
  }
  return r;
}

// --- default values -------------------------------------------------------

Error default_error(const Type& type, std::string_view text, std::string_view why) {
  return make_error(ErrorCode::INPUT_SCHEMA,
                    detail::str_cat({"default value \"", text, "\" for type ", type.to_string(), ": ", why}));
}

std::optional<int64_t> parse_int(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 64) return std::nullopt;
  std::string buf(s);
  char* end = nullptr;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return std::nullopt;
  return v;
}

std::optional<bool> parse_bool(std::string_view s) {
  s = trim(s);
  if (s == "True") return true;
  if (s == "False") return false;
  return std::nullopt;
}

// A number written with a fraction, exponent, inf or nan is a double.
bool looks_floating(std::string_view s) {
  return s.find_first_of(".eEiInN") != std::string_view::npos;
}

std::optional<std::string> parse_string_literal(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front()) return std::nullopt;
  std::string out;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '\\' && i + 2 < s.size()) {
      char n = s[++i];
      switch (n) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '0': out += '\0'; break;
        default: out += n; break;  // \\ \' \"
      }
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<int64_t> scalar_type_code(std::string_view name) {
  // torch's short dtype names, as schemas write them (`ScalarType? dtype=long`).
  struct Alias {
    std::string_view schema_name;
    ir::ScalarType type;
  };
  static constexpr Alias kAliases[] = {
      {"byte", ir::ScalarType::Byte},       {"char", ir::ScalarType::Char},
      {"short", ir::ScalarType::Short},     {"int", ir::ScalarType::Int},
      {"long", ir::ScalarType::Long},       {"half", ir::ScalarType::Half},
      {"float", ir::ScalarType::Float},     {"double", ir::ScalarType::Double},
      {"cfloat", ir::ScalarType::ComplexFloat}, {"cdouble", ir::ScalarType::ComplexDouble},
  };
  for (const Alias& a : kAliases) {
    if (a.schema_name == name) return static_cast<int64_t>(a.type);
  }
  if (auto t = ir::scalar_type_from_name(name)) return static_cast<int64_t>(*t);
  return std::nullopt;
}

std::optional<int64_t> memory_format_code(std::string_view name) {
  if (name == "contiguous_format") return 0;
  if (name == "preserve_format") return 1;
  if (name == "channels_last") return 2;
  if (name == "channels_last_3d") return 3;
  return std::nullopt;
}

std::optional<int64_t> layout_code(std::string_view name) {
  constexpr std::string_view kNames[] = {"strided",    "sparse_coo", "sparse_csr", "_mkldnn",
                                         "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged"};
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == name) return static_cast<int64_t>(i);
  }
  return std::nullopt;
}

// One non-list value of base type `base`.
Result<Value> parse_element(const Type& type, BaseType base, std::string_view s) {
  s = trim(s);
  Value v;
  switch (base) {
    case BaseType::Int:
    case BaseType::SymInt:
    case BaseType::DeviceIndex:
      if (auto i = parse_int(s)) {
        v.kind = Value::Kind::Int;
        v.int_value = *i;
        return v;
      }
      // at::Reduction names (`int reduction=Mean`).
      if (s == "Mean" || s == "Sum") {
        v.kind = Value::Kind::Int;
        v.int_value = s == "Mean" ? 1 : 2;
        return v;
      }
      return default_error(type, s, "expected an integer");
    case BaseType::Float:
    case BaseType::SymFloat:
      if (auto d = parse_double(s)) {
        v.kind = Value::Kind::Double;
        v.double_value = *d;
        return v;
      }
      return default_error(type, s, "expected a number");
    case BaseType::Bool:
    case BaseType::SymBool:
      if (auto b = parse_bool(s)) {
        v.kind = Value::Kind::Bool;
        v.bool_value = *b;
        return v;
      }
      return default_error(type, s, "expected True or False");
    case BaseType::Scalar:
      if (auto b = parse_bool(s)) {
        v.kind = Value::Kind::Bool;
        v.bool_value = *b;
        return v;
      }
      if (!looks_floating(s)) {
        if (auto i = parse_int(s)) {
          v.kind = Value::Kind::Int;
          v.int_value = *i;
          return v;
        }
      } else if (auto d = parse_double(s)) {
        v.kind = Value::Kind::Double;
        v.double_value = *d;
        return v;
      }
      return default_error(type, s, "expected a number");
    case BaseType::Str:
      if (auto str = parse_string_literal(s)) {
        v.kind = Value::Kind::String;
        v.string_value = std::move(*str);
        return v;
      }
      return default_error(type, s, "expected a quoted string");
    case BaseType::ScalarType:
      if (auto code = scalar_type_code(s)) {
        v.kind = Value::Kind::ScalarType;
        v.int_value = *code;
        return v;
      }
      return default_error(type, s, "expected a dtype name");
    case BaseType::MemoryFormat:
      if (auto code = memory_format_code(s)) {
        v.kind = Value::Kind::MemoryFormat;
        v.int_value = *code;
        return v;
      }
      return default_error(type, s, "expected a memory format name");
    case BaseType::Layout:
      if (auto code = layout_code(s)) {
        v.kind = Value::Kind::Layout;
        v.int_value = *code;
        return v;
      }
      return default_error(type, s, "expected a layout name");
    case BaseType::Device:
      v.kind = Value::Kind::Device;
      if (auto str = parse_string_literal(s)) {
        v.string_value = std::move(*str);
      } else {
        v.string_value = std::string(s);
      }
      return v;
    default:
      return default_error(type, s, "this type takes no default other than None");
  }
}

}  // namespace

Result<Value> parse_default_value(const Type& type, std::string_view text) {
  std::string_view s = trim(text);
  if (s == "None") return Value{};
  if (!type.is_list) return parse_element(type, type.base, s);

  Value::Kind list_kind;
  switch (type.base) {
    case BaseType::Int:
    case BaseType::SymInt:
      list_kind = Value::Kind::IntList;
      break;
    case BaseType::Float:
      list_kind = Value::Kind::DoubleList;
      break;
    case BaseType::Bool:
      list_kind = Value::Kind::BoolList;
      break;
    default:
      return default_error(type, s, "list defaults are supported for int, float and bool lists only");
  }
  std::vector<Value> items;
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') return default_error(type, s, "expected ']'");
    std::string_view body = trim(s.substr(1, s.size() - 2));
    while (!body.empty()) {
      size_t comma = body.find(',');
      std::string_view item = body.substr(0, comma);
      PTEFORGE_ASSIGN_OR_RETURN(Value v, parse_element(type, type.base, item));
      items.push_back(std::move(v));
      if (comma == std::string_view::npos) break;
      body = body.substr(comma + 1);
    }
  } else {
    // A scalar default for a sized list is broadcast: `int[2] padding=0` is [0, 0].
    if (type.list_size <= 0) return default_error(type, s, "a single value needs a sized list type");
    PTEFORGE_ASSIGN_OR_RETURN(Value v, parse_element(type, type.base, s));
    items.assign(static_cast<size_t>(type.list_size), v);
  }
  Value out;
  out.kind = list_kind;
  for (const Value& v : items) {
    if (list_kind == Value::Kind::IntList) out.int_list.push_back(v.int_value);
    if (list_kind == Value::Kind::DoubleList) out.double_list.push_back(v.double_value);
    if (list_kind == Value::Kind::BoolList) out.bool_list.push_back(v.bool_value);
  }
  return out;
}

Result<OpSchema> parse_schema(std::string_view text, std::string_view default_ns) {
  Cursor c(text);
  OpSchema s;
  std::string_view first = c.ident();
  if (first.empty()) return schema_error(text, c.pos(), "an operator name");
  if (c.eat("::")) {
    s.ns = std::string(first);
    size_t at = c.pos();
    std::string_view n = c.ident();
    if (n.empty()) return schema_error(text, at, "an operator name after '::'");
    s.name = std::string(n);
  } else {
    s.ns = std::string(default_ns);
    s.name = std::string(first);
  }
  if (c.eat(".")) {
    size_t at = c.pos();
    std::string_view ov = c.ident();
    if (ov.empty()) return schema_error(text, at, "an overload name after '.'");
    s.overload = std::string(ov);
  }
  if (!c.eat("(")) return schema_error(text, c.pos(), "'('");
  // Upper bound on the argument count: one more than the commas before " -> ".
  size_t arrow = text.find(") -> ");
  size_t commas = 0;
  for (size_t k = c.pos(); k < arrow && k < text.size(); ++k) commas += text[k] == ',';
  s.arguments.reserve(commas + 1);
  bool kwarg_only = false;
  c.skip_spaces();
  if (!c.eat(")")) {
    while (true) {
      c.skip_spaces();
      if (c.eat("*")) {
        if (kwarg_only) return schema_error(text, c.pos() - 1, "a single '*'");
        kwarg_only = true;
      } else {
        Argument a;
        PTEFORGE_ASSIGN_OR_RETURN(a.type, parse_type(text, c));
        if (!c.eat(" ")) return schema_error(text, c.pos(), "' ' before the argument name");
        size_t at = c.pos();
        std::string_view n = c.ident();
        if (n.empty()) return schema_error(text, at, "an argument name");
        a.name = std::string(n);
        a.kwarg_only = kwarg_only;
        if (c.eat("=")) {
          size_t dat = c.pos();
          std::string_view d = c.default_text();
          if (d.empty()) return schema_error(text, dat, "a default value");
          auto v = parse_default_value(a.type, d);
          if (!v.ok()) {
            Error e = std::move(v).error();
            e.where.byte_offset = dat;
            e.message = detail::str_cat({"operator schema \"", text, "\": ", e.message});
            return e;
          }
          a.default_value = std::move(v).value();
          a.default_text = std::string(d);
        }
        s.arguments.push_back(std::move(a));
      }
      c.skip_spaces();
      if (c.eat(")")) break;
      if (!c.eat(",")) return schema_error(text, c.pos(), "',' or ')' after an argument");
    }
  }
  if (!c.eat(" -> ")) return schema_error(text, c.pos(), "' -> '");
  if (c.eat("(")) {
    c.skip_spaces();
    if (!c.eat(")")) {
      while (true) {
        c.skip_spaces();
        PTEFORGE_ASSIGN_OR_RETURN(Return r, parse_return(text, c));
        s.returns.push_back(std::move(r));
        c.skip_spaces();
        if (c.eat(")")) break;
        if (!c.eat(",")) return schema_error(text, c.pos(), "',' or ')' after a return");
      }
    }
  } else {
    PTEFORGE_ASSIGN_OR_RETURN(Return r, parse_return(text, c));
    s.returns.push_back(std::move(r));
  }
  if (!c.done()) return schema_error(text, c.pos(), "end of schema");
  return s;
}

}  // namespace pteforge::ops
