// Removing pytree pairs between module calls (see pytree_pairs.h).
#include "passes/module_swap/pytree_pairs.h"

#include <algorithm>
#include <string>
#include <vector>

#include "passes/module_swap/pytree_ir.h"
#include "passes/module_swap/resolve.h"

namespace pteforge::passes::module_swap {
namespace {

/// Distinct users of every value `n` defines; nullopt when a value is a graph output.
std::optional<std::vector<ir::Node*>> value_users(const ir::Graph& g, const ir::Node& n) {
  std::vector<ir::Node*> out;
  for (std::string_view name : n.output_names()) {
    const ir::Value* v = g.find_value(name);
    if (!v) continue;
    if (v->output_uses > 0) return std::nullopt;
    for (ir::Node* u : g.users(name)) {
      if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
    }
  }
  return out;
}

/// Users of the users of `n` (all users of `n` must be getitems); nullopt otherwise.
std::optional<std::vector<ir::Node*>> getitem_users(const ir::Graph& g, const ir::Node& n) {
  auto direct = value_users(g, n);
  if (!direct) return std::nullopt;
  std::vector<ir::Node*> out;
  for (ir::Node* u : *direct) {
    if (!is_getitem(*u)) return std::nullopt;
    auto second = value_users(g, *u);
    if (!second) return std::nullopt;
    for (ir::Node* s : *second) {
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  }
  return out;
}

/// Tries to connect call `a` directly to the next call; true when it did.
Result<bool> try_connect(ir::Graph& g, ir::Node& a) {
  auto a_users = value_users(g, a);
  if (!a_users || a_users->size() != 1 || !is_tree_flatten_spec(*a_users->front())) return false;
  ir::Node& f = *a_users->front();
  auto f_next = getitem_users(g, f);
  if (!f_next || f_next->size() != 1 || !is_tree_unflatten(*f_next->front())) return false;
  ir::Node& u = *f_next->front();

  // U's leaves must be getitem(F, i), in order, one per output of A.
  std::vector<const ir::Argument*> leaves;
  for (const auto& na : u.inputs()) {
    if (na.name == "leaf") leaves.push_back(&na.arg);
  }
  const ir::GraphArgument* body = call_module_body(a);
  if (!body || leaves.size() != body->graph->outputs().size()) return false;
  const std::string f_out = f.single_output() ? *f.single_output() : std::string();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const std::string* name = leaves[i]->value_name();
    const ir::Node* p = name ? g.producer(*name) : nullptr;
    if (!p || !is_getitem(*p)) return false;
    const std::string* container = getitem_container(*p);
    auto key = getitem_key(*p);
    if (!container || *container != f_out || !key || !key->index || *key->index != static_cast<int64_t>(i)) {
      return false;
    }
  }

  // U's args/kwargs children feed exactly one call_module B, whose flat inputs are U's leaves.
  auto u_children = getitem_users(g, u);
  if (!u_children) return false;
  std::vector<ir::Node*> consumers;
  for (ir::Node* c : *u_children) {
    if (!is_getitem(*c)) return false;
    auto cu = value_users(g, *c);
    if (!cu) return false;
    for (ir::Node* x : *cu) {
      if (std::find(consumers.begin(), consumers.end(), x) == consumers.end()) consumers.push_back(x);
    }
  }
  if (consumers.size() != 1 || !is_call_module(*consumers.front())) return false;
  ir::Node& b = *consumers.front();
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<ir::Argument> b_flat, call_flat_inputs(g, b, nullptr));
  if (b_flat.size() != leaves.size()) return false;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!(b_flat[i] == *leaves[i])) return false;
  }

  std::vector<ir::NamedArgument> ins;
  for (const auto& na : b.inputs()) {
    if (na.name == "module") {
      ins.push_back(na);
      ins.push_back(ir::positional("args", ir::arg_custom_obj(*a.single_output(), std::string(kModuleOutputClass))));
    } else if (na.name != "args" && na.name != "kwargs") {
      ins.push_back(na);
    }
  }
  b.set_inputs(std::move(ins));
  return true;
}

}  // namespace

Result<size_t> erase_dead_swap_nodes(ir::Graph& g, bool keep_calls) {
  size_t erased = 0;
  bool again = true;
  while (again) {
    again = false;
    std::vector<ir::Node*> nodes = g.node_snapshot();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      ir::Node* n = *it;
      if (!is_module_swap_node(*n) || (keep_calls && is_call_module(*n))) continue;
      bool used = false;
      for (std::string_view name : n->output_names()) used |= g.use_count(name) > 0;
      if (used) continue;
      PTEFORGE_TRY(g.erase(*n));
      ++erased;
      again = true;
    }
  }
  return erased;
}

Result<size_t> remove_pytree_pairs(ir::Graph& g) {
  size_t removed = 0;
  for (ir::Node* a : call_module_nodes(g)) {
    // Module bodies (nested outlined modules) first.
    if (ir::GraphArgument* body = call_module_body(*a)) {
      PTEFORGE_ASSIGN_OR_RETURN(size_t inner, remove_pytree_pairs(*body->graph));
      removed += inner;
    }
  }
  size_t here = 0;
  for (ir::Node* a : call_module_nodes(g)) {
    PTEFORGE_ASSIGN_OR_RETURN(bool done, try_connect(g, *a));
    if (done) ++here;
  }
  if (here) PTEFORGE_TRY(erase_dead_swap_nodes(g, /*keep_calls=*/true));
  return removed + here;
}

}  // namespace pteforge::passes::module_swap
