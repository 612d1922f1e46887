// OpSchema accessors and printing (see op_schema.h).
#include "ops/op_schema.h"

#include <array>

#include "ops/str_cat.h"

namespace pteforge::ops {
namespace {

constexpr std::array<std::string_view, 20> kBaseTypeNames = {
    "Tensor", "int",       "SymInt", "float", "bool",     "str",     "Scalar",
    "ScalarType", "MemoryFormat", "Layout", "Device", "Generator", "Dimname", "DeviceIndex",
    "Storage", "Stream", "QScheme", "SymFloat", "SymBool", "Any"};
static_assert(kBaseTypeNames.size() == static_cast<size_t>(BaseType::Any) + 1);

constexpr std::string_view kTagNames[] = {
#define PTEFORGE_OP_TAG(id, yaml_name) yaml_name,
#include "ops/op_tags.def"
#undef PTEFORGE_OP_TAG
};

// Python augmented-assignment dunders whose `__i<x>__` form is in-place
// (`__iand__` is the in-place `__and__`).
constexpr std::string_view kAugmented[] = {"add", "sub", "mul", "div", "pow", "truediv", "floordiv",
                                           "mod", "matmul", "and", "or", "xor", "lshift", "rshift"};

// Base name of an in-place op name, or nullopt when `name` is not in-place.
std::optional<std::string> inplace_base(std::string_view name) {
  if (name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__") {
    std::string_view inner = name.substr(2, name.size() - 4);
    if (!inner.empty() && inner[0] == 'i') {
      for (std::string_view a : kAugmented) {
        if (inner.substr(1) == a) return detail::str_cat({"__", a, "__"});
      }
    }
    return std::nullopt;
  }
  if (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') {
    return std::string(name.substr(0, name.size() - 1));
  }
  return std::nullopt;
}

}  // namespace

std::string_view base_type_name(BaseType t) { return kBaseTypeNames[static_cast<size_t>(t)]; }

std::optional<BaseType> base_type_from_name(std::string_view name) {
  for (size_t i = 0; i < kBaseTypeNames.size(); ++i) {
    if (kBaseTypeNames[i] == name) return static_cast<BaseType>(i);
  }
  return std::nullopt;
}

std::string_view tag_name(Tag t) { return kTagNames[static_cast<size_t>(t)]; }

std::optional<Tag> tag_from_name(std::string_view name) {
  for (int i = 0; i < kTagCount; ++i) {
    if (kTagNames[i] == name) return static_cast<Tag>(i);
  }
  return std::nullopt;
}

std::string AliasInfo::to_string() const {
  std::string s = set;
  if (is_write) s += '!';
  if (to_wildcard) s += " -> *";
  return s;
}

std::string Type::to_string(bool with_alias) const {
  std::string s(base_type_name(base));
  if (with_alias && alias) {
    s += '(';
    s += alias->to_string();
    s += ')';
  }
  if (is_list) {
    if (element_optional) s += '?';
    s += '[';
    if (list_size > 0) s += std::to_string(list_size);
    s += ']';
  }
  if (optional) s += '?';
  return s;
}

std::string Argument::to_string() const {
  std::string s = type.to_string();
  s += ' ';
  s += name;
  if (default_value) {
    s += '=';
    s += default_text;
  }
  return s;
}

std::string Return::to_string() const {
  std::string s = type.to_string();
  if (!name.empty()) {
    s += ' ';
    s += name;
  }
  return s;
}

SchemaKind OpSchema::kind() const { return kind_cache_.kind ? *kind_cache_.kind : compute_kind(); }

SchemaKind OpSchema::compute_kind() const {
  if (inplace_base(name)) return SchemaKind::Inplace;
  bool any_out = false;
  bool all_scratch = true;
  bool positional_write = false;
  for (const Argument& a : arguments) {
    if (a.is_out()) {
      any_out = true;
      if (a.name.rfind("_scratch_", 0) != 0) all_scratch = false;
    } else if (a.type.is_write()) {
      positional_write = true;
    }
  }
  if (any_out) return all_scratch ? SchemaKind::Scratch : SchemaKind::Out;
  if (positional_write) return SchemaKind::Mutable;
  return SchemaKind::Functional;
}

bool OpSchema::is_view() const {
  if (kind() != SchemaKind::Functional) return false;
  for (const Return& r : returns) {
    if (r.type.alias && !r.type.alias->is_write) return true;
  }
  return false;
}

std::string OpSchema::base_name() const {
  auto b = inplace_base(name);
  return b ? *b : name;
}

std::string OpSchema::qualified_name() const { return detail::str_cat({ns, "::", name}); }

std::string OpSchema::full_name() const {
  std::string s = qualified_name();
  if (!overload.empty()) {
    s += '.';
    s += overload;
  }
  return s;
}

std::string OpSchema::torch_name() const {
  return detail::str_cat({"torch.ops.", ns, ".", name, ".", overload.empty() ? std::string_view("default") : overload});
}

std::string OpSchema::to_string() const {
  std::string s = full_name();
  s += '(';
  bool star = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) s += ", ";
    if (arguments[i].kwarg_only && !star) {
      s += "*, ";
      star = true;
    }
    s += arguments[i].to_string();
  }
  s += ") -> ";
  if (returns.size() == 1) {
    s += returns[0].to_string();
  } else {
    s += '(';
    for (size_t i = 0; i < returns.size(); ++i) {
      if (i > 0) s += ", ";
      s += returns[i].to_string();
    }
    s += ')';
  }
  return s;
}

std::vector<size_t> OpSchema::out_argument_indices() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].is_out()) out.push_back(i);
  }
  return out;
}

std::vector<std::string> OpSchema::out_argument_names() const {
  std::vector<std::string> out;
  for (const Argument& a : arguments) {
    if (a.is_out()) out.push_back(a.name);
  }
  return out;
}

size_t OpSchema::num_positional() const {
  size_t n = 0;
  while (n < arguments.size() && !arguments[n].kwarg_only) ++n;
  return n;
}

const Argument* OpSchema::find_argument(std::string_view arg_name) const {
  for (const Argument& a : arguments) {
    if (a.name == arg_name) return &a;
  }
  return nullptr;
}

}  // namespace pteforge::ops
