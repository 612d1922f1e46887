// Argument helpers (see argument.h).
#include "ir/argument.h"

#include <array>

namespace pteforge::ir {
namespace {

constexpr std::array<std::string_view, kNumArgTags> kTagNames = {
    "as_none",          "as_tensor",        "as_tensors",         "as_int",
    "as_ints",          "as_float",         "as_floats",          "as_string",
    "as_strings",       "as_sym_int",       "as_sym_ints",        "as_scalar_type",
    "as_memory_format", "as_layout",        "as_device",          "as_bool",
    "as_bools",         "as_sym_bool",      "as_sym_bools",       "as_optional_tensors",
    "as_graph",         "as_custom_obj",    "as_operator",        "as_sym_float",
    "as_sym_floats",    "as_optional_tensor", "as_complex",       "as_nested_tensors",
    "as_int_lists",     "as_string_to_argument", "as_float_lists",
};
static_assert(std::variant_size_v<Argument::Variant> == kNumArgTags);

bool same_doubles(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!same_double(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view value_kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::Unknown: return "unknown";
    case ValueKind::Tensor: return "tensor";
    case ValueKind::SymInt: return "SymInt";
    case ValueKind::SymFloat: return "SymFloat";
    case ValueKind::SymBool: return "SymBool";
    case ValueKind::CustomObj: return "custom object";
  }
  return "unknown";
}

std::string_view arg_tag_name(ArgTag t) { return kTagNames[static_cast<size_t>(t)]; }

std::optional<ArgTag> arg_tag_from_name(std::string_view name) {
  for (size_t i = 0; i < kTagNames.size(); ++i) {
    if (kTagNames[i] == name) return static_cast<ArgTag>(i);
  }
  return std::nullopt;
}

const std::string* Argument::value_name() const {
  switch (tag()) {
    case ArgTag::Tensor: return &get<ArgTag::Tensor>().name;
    case ArgTag::SymInt: return get<ArgTag::SymInt>().name ? &*get<ArgTag::SymInt>().name : nullptr;
    case ArgTag::SymFloat: return get<ArgTag::SymFloat>().name ? &*get<ArgTag::SymFloat>().name : nullptr;
    case ArgTag::SymBool: return get<ArgTag::SymBool>().name ? &*get<ArgTag::SymBool>().name : nullptr;
    case ArgTag::CustomObj: return &get<ArgTag::CustomObj>().name;
    case ArgTag::OptionalTensor:
      return get<ArgTag::OptionalTensor>().name ? &*get<ArgTag::OptionalTensor>().name : nullptr;
    default: return nullptr;
  }
}

bool Argument::operator==(const Argument& o) const {
  if (tag() != o.tag()) return false;
  switch (tag()) {
    case ArgTag::Float: return same_double(get<ArgTag::Float>(), o.get<ArgTag::Float>());
    case ArgTag::Floats: return same_doubles(get<ArgTag::Floats>(), o.get<ArgTag::Floats>());
    case ArgTag::FloatLists: {
      const auto& a = get<ArgTag::FloatLists>();
      const auto& b = o.get<ArgTag::FloatLists>();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!same_doubles(a[i], b[i])) return false;
      }
      return true;
    }
    default: return v_ == o.v_;
  }
}

bool StringToArgument::operator==(const StringToArgument& o) const { return entries == o.entries; }

Argument arg_tensors(const std::vector<std::string>& names) {
  std::vector<TensorArgument> v;
  v.reserve(names.size());
  for (const auto& n : names) v.push_back(TensorArgument{n});
  return Argument::make<ArgTag::Tensors>(std::move(v));
}

namespace {
std::string escape_token(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

bool find_name(const Argument& a, std::string_view name, std::string& path) {
  // Built by appending: GCC 12 -O3 warns (-Wrestrict, a false positive) on
  // `"literal" + std::string&&`, which goes through string::insert.
  std::string tag("/");
  tag += a.tag_name();
  auto idx = [](size_t i) {
    std::string s("/");
    s += std::to_string(i);
    return s;
  };
  switch (a.tag()) {
    case ArgTag::Tensor:
    case ArgTag::CustomObj:
      if (*a.value_name() == name) {
        path = tag + "/name";
        return true;
      }
      return false;
    case ArgTag::Tensors: {
      const auto& v = a.get<ArgTag::Tensors>();
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].name == name) {
          path = tag + idx(i) + "/name";
          return true;
        }
      }
      return false;
    }
    case ArgTag::NestedTensors: {
      const auto& v = a.get<ArgTag::NestedTensors>();
      for (size_t i = 0; i < v.size(); ++i) {
        for (size_t j = 0; j < v[i].size(); ++j) {
          if (v[i][j].name == name) {
            path = tag + idx(i) + idx(j) + "/name";
            return true;
          }
        }
      }
      return false;
    }
    case ArgTag::OptionalTensor:
      if (a.get<ArgTag::OptionalTensor>().name == std::optional<std::string>(std::string(name))) {
        path = tag + "/as_tensor/name";
        return true;
      }
      return false;
    case ArgTag::OptionalTensors: {
      const auto& v = a.get<ArgTag::OptionalTensors>();
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].name && *v[i].name == name) {
          path = tag + idx(i) + "/as_tensor/name";
          return true;
        }
      }
      return false;
    }
    case ArgTag::SymInt:
    case ArgTag::SymFloat:
    case ArgTag::SymBool:
      if (*a.value_name() == name) {
        path = tag + "/as_name";
        return true;
      }
      return false;
    case ArgTag::SymInts:
    case ArgTag::SymFloats:
    case ArgTag::SymBools: {
      size_t i = 0;
      bool found = false;
      auto check = [&](const auto& vec) {
        for (i = 0; i < vec.size(); ++i) {
          if (vec[i].name && *vec[i].name == name) {
            found = true;
            return;
          }
        }
      };
      if (a.tag() == ArgTag::SymInts) check(a.get<ArgTag::SymInts>());
      if (a.tag() == ArgTag::SymFloats) check(a.get<ArgTag::SymFloats>());
      if (a.tag() == ArgTag::SymBools) check(a.get<ArgTag::SymBools>());
      if (found) path = tag + idx(i) + "/as_name";
      return found;
    }
    case ArgTag::StringToArgument: {
      for (const auto& [key, value] : a.get<ArgTag::StringToArgument>().entries) {
        std::string sub;
        if (find_name(value, name, sub)) {
          path = tag + "/" + escape_token(key) + sub;
          return true;
        }
      }
      return false;
    }
    default: return false;
  }
}
}  // namespace

std::string argument_name_pointer(const Argument& a, std::string_view name) {
  std::string path;
  if (find_name(a, name, path)) return path;
  return {};
}

}  // namespace pteforge::ir
