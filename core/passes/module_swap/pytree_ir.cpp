// Module-swap IR helpers (see pytree_ir.h).
#include "passes/module_swap/pytree_ir.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "serde/treespec_json.h"

namespace pteforge::passes::module_swap {
namespace {

bool has_target(const ir::Node& n, std::string_view t) { return n.target().str() == t; }

const ir::NamedArgument* find_input(const ir::Node& n, std::string_view name) {
  for (const auto& na : n.inputs()) {
    if (na.name == name) return &na;
  }
  return nullptr;
}

bool is_dict_type(const ir::TreeSpecNode& node) {
  return node.type && (*node.type == "builtins.dict" || *node.type == "collections.OrderedDict");
}

std::string py_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

bool is_call_module(const ir::Node& n) { return has_target(n, kCallModule); }
bool is_tree_unflatten(const ir::Node& n) { return has_target(n, kTreeUnflatten); }
bool is_tree_flatten_spec(const ir::Node& n) { return has_target(n, kTreeFlattenSpec); }
bool is_getitem(const ir::Node& n) { return has_target(n, kGetitem); }
bool is_module_swap_node(const ir::Node& n) {
  return is_call_module(n) || is_tree_unflatten(n) || is_tree_flatten_spec(n) || is_getitem(n);
}

const ir::GraphArgument* call_module_body(const ir::Node& n) {
  if (n.inputs().empty()) return nullptr;
  return n.inputs()[0].arg.get_if<ir::ArgTag::Graph>();
}

ir::GraphArgument* call_module_body(ir::Node& n) {
  return const_cast<ir::GraphArgument*>(call_module_body(static_cast<const ir::Node&>(n)));
}

std::string_view call_module_fqn(const ir::Node& n) {
  const ir::GraphArgument* g = call_module_body(n);
  return g ? std::string_view(g->name) : std::string_view();
}

std::vector<const ir::Argument*> call_module_args(const ir::Node& n) {
  std::vector<const ir::Argument*> out;
  for (const auto& na : n.inputs()) {
    if (na.name == "args") out.push_back(&na.arg);
  }
  return out;
}

namespace {
std::vector<std::pair<std::string, const ir::Argument*>> string_map(const ir::Node& n, std::string_view name) {
  std::vector<std::pair<std::string, const ir::Argument*>> out;
  const ir::NamedArgument* na = find_input(n, name);
  if (!na) return out;
  if (const auto* m = na->arg.get_if<ir::ArgTag::StringToArgument>()) {
    for (const auto& [k, v] : m->entries) out.emplace_back(k, &v);
  }
  return out;
}
}  // namespace

std::vector<std::pair<std::string, const ir::Argument*>> call_module_kwargs(const ir::Node& n) {
  return string_map(n, "kwargs");
}

std::vector<std::pair<std::string, const ir::Argument*>> call_module_captured(const ir::Node& n) {
  return string_map(n, "captured");
}

size_t call_module_num_flat_inputs(const ir::Node& n) {
  const ir::GraphArgument* g = call_module_body(n);
  if (!g) return 0;
  size_t total = g->graph->inputs().size();
  size_t captured = call_module_captured(n).size();
  return total >= captured ? total - captured : 0;
}

Result<ir::TreeSpec> node_spec(const ir::Node& n) {
  const ir::NamedArgument* na = find_input(n, "spec");
  const std::string* text = na ? na->arg.get_if<ir::ArgTag::String>() : nullptr;
  if (!text) {
    return make_error(ErrorCode::INTERNAL, "node '" + n.name() + "' (" + std::string(n.target().str()) +
                                               ") has no spec argument");
  }
  auto spec = serde::parse_treespec(*text);
  if (!spec.ok()) {
    Error e = std::move(spec).error();
    e.code = ErrorCode::INTERNAL;
    e.message = "node '" + n.name() + "': " + e.message;
    return e;
  }
  return std::move(spec).value();
}

std::optional<GetitemKey> getitem_key(const ir::Node& n) {
  if (n.inputs().size() != 2) return std::nullopt;
  const ir::Argument& b = n.inputs()[1].arg;
  GetitemKey k;
  if (const int64_t* i = b.get_if<ir::ArgTag::Int>()) {
    k.index = *i;
  } else if (const std::string* s = b.get_if<ir::ArgTag::String>()) {
    k.key = *s;
  } else {
    return std::nullopt;
  }
  return k;
}

const std::string* getitem_container(const ir::Node& n) {
  if (n.inputs().empty()) return nullptr;
  return n.inputs()[0].arg.value_name();
}

Result<std::vector<std::string>> dict_keys(const ir::TreeSpecNode& dict) {
  // The context is the JSON text of its value; PyTorch stores a dict's key
  // list as a JSON string holding JSON ("\"[\\\"a\\\"]\""), so unwrap once.
  // Iterative: the context is input text, and nesting must not recurse.
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(dict.context.data(), dict.context.size());
  if (!doc.HasParseError() && doc.IsString()) {
    std::string inner(doc.GetString(), doc.GetStringLength());
    doc.Parse<rapidjson::kParseIterativeFlag>(inner.data(), inner.size());
  }
  std::vector<std::string> keys;
  if (doc.HasParseError() || !doc.IsArray()) {
    return make_error(ErrorCode::MODULE_SWAP, "dict treespec context is not a list of keys: " + dict.context);
  }
  for (const auto& k : doc.GetArray()) {
    if (!k.IsString()) {
      return make_error(ErrorCode::MODULE_SWAP, "dict treespec has a non-string key: " + dict.context);
    }
    keys.emplace_back(k.GetString(), k.GetStringLength());
  }
  return keys;
}

std::optional<size_t> child_position(const ir::TreeSpecNode& node, const GetitemKey& key) {
  if (node.is_leaf()) return std::nullopt;
  if (key.index) {
    int64_t i = *key.index;
    if (i < 0) i += static_cast<int64_t>(node.children.size());
    if (i < 0 || static_cast<size_t>(i) >= node.children.size()) return std::nullopt;
    return static_cast<size_t>(i);
  }
  if (!key.key || !is_dict_type(node)) return std::nullopt;
  auto keys = dict_keys(node);
  if (!keys.ok()) return std::nullopt;
  for (size_t i = 0; i < keys->size() && i < node.children.size(); ++i) {
    if ((*keys)[i] == *key.key) return i;
  }
  return std::nullopt;
}

namespace {

bool is_keyed(const ir::TreeSpecNode& n) {
  return *n.type == "builtins.dict" || *n.type == "collections.OrderedDict";
}

/// leaf_permutation's walk: appends to `out` the leaf indices of `b` (whose
/// first leaf is `b_base`) matching the leaves of `a`; false when they differ.
bool match_leaves(const ir::TreeSpecNode& a, const ir::TreeSpecNode& b, size_t b_base,
                  std::vector<size_t>& out) {
  if (a.is_leaf() || b.is_leaf()) {
    if (!a.is_leaf() || !b.is_leaf()) return false;
    out.push_back(b_base);
    return true;
  }
  if (*a.type != *b.type || a.children.size() != b.children.size()) return false;
  if (!is_keyed(a)) {
    if (a.context != b.context) return false;
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (!match_leaves(a.children[i], b.children[i], b_base + leaf_offset(b, i), out)) return false;
    }
    return true;
  }
  Result<std::vector<std::string>> ka = dict_keys(a);
  Result<std::vector<std::string>> kb = dict_keys(b);
  if (!ka.ok() || !kb.ok() || ka->size() != a.children.size() || kb->size() != b.children.size())
    return false;
  std::map<std::string_view, size_t> b_child;
  for (size_t j = 0; j < kb->size(); ++j) {
    if (!b_child.emplace((*kb)[j], j).second) return false;  // a repeated key
  }
  std::set<std::string_view> a_seen;
  for (size_t i = 0; i < ka->size(); ++i) {
    auto it = b_child.find((*ka)[i]);
    if (it == b_child.end() || !a_seen.insert((*ka)[i]).second) return false;
    if (!match_leaves(a.children[i], b.children[it->second], b_base + leaf_offset(b, it->second), out))
      return false;
  }
  return true;
}

}  // namespace

std::optional<std::vector<size_t>> leaf_permutation(const ir::TreeSpecNode& a, const ir::TreeSpecNode& b) {
  std::vector<size_t> out;
  if (!match_leaves(a, b, 0, out)) return std::nullopt;
  return out;
}

size_t leaf_offset(const ir::TreeSpecNode& node, size_t child) {
  size_t n = 0;
  for (size_t i = 0; i < child && i < node.children.size(); ++i) n += node.children[i].num_leaves();
  return n;
}

std::string describe_treespec(const ir::TreeSpecNode& node) {
  if (node.is_leaf()) return "*";
  const std::string& type = *node.type;
  auto join = [&](const char* open, const char* close, bool trailing_comma_for_one) {
    std::string out = open;
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (i) out += ", ";
      out += describe_treespec(node.children[i]);
    }
    if (trailing_comma_for_one && node.children.size() == 1) out += ",";
    return out + close;
  };
  if (type == "builtins.tuple") return join("(", ")", true);
  if (type == "builtins.list") return join("[", "]", false);
  if (type == "builtins.NoneType") return "None";
  if (is_dict_type(node)) {
    auto keys = dict_keys(node);
    std::string out = type == "builtins.dict" ? "{" : "OrderedDict({";
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (i) out += ", ";
      std::string k = keys.ok() && i < keys->size() ? py_quote((*keys)[i]) : std::to_string(i);
      out += k + ": " + describe_treespec(node.children[i]);
    }
    return out + (type == "builtins.dict" ? "}" : "})");
  }
  std::string name = type;
  auto dot = name.rfind('.');
  if (dot != std::string::npos) name = name.substr(dot + 1);
  return join((name + "(").c_str(), ")", false);
}

std::string fresh_name(const ir::Graph& g, std::string_view base, const std::vector<std::string>& reserved) {
  std::string stem(base.empty() ? std::string_view("v") : base);
  if (!stem.empty() && stem[0] >= '0' && stem[0] <= '9') stem = "_" + stem;
  auto taken = [&](const std::string& n) {
    return g.find_value(n) != nullptr || g.find_node(n) != nullptr ||
           std::find(reserved.begin(), reserved.end(), n) != reserved.end();
  };
  if (!taken(stem)) return stem;
  // FX style: "permute_1" taken -> "permute_2", "permute" taken -> "permute_1".
  size_t num = 1;
  size_t us = stem.rfind('_');
  if (us != std::string::npos && us + 1 < stem.size() && us > 0 &&
      stem.find_first_not_of("0123456789", us + 1) == std::string::npos && stem.size() - us - 1 <= 9) {
    num = 0;
    for (size_t i = us + 1; i < stem.size(); ++i) num = num * 10 + static_cast<size_t>(stem[i] - '0');
    ++num;
    stem = stem.substr(0, us);
  }
  for (;; ++num) {
    std::string candidate = stem + "_" + std::to_string(num);
    if (!taken(candidate)) return candidate;
  }
}

std::string module_node_base(std::string_view fqn) {
  std::string out;
  for (char c : fqn) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty()) out = "module";
  if (out[0] >= '0' && out[0] <= '9') out = "_" + out;
  return out;
}

std::vector<ir::Node*> call_module_nodes(ir::Graph& g) {
  std::vector<ir::Node*> out;
  for (ir::Node& n : g) {
    if (is_call_module(n)) out.push_back(&n);
  }
  return out;
}

}  // namespace pteforge::passes::module_swap
