// Resolving pytree values to their leaves (see resolve.h).
#include "passes/module_swap/resolve.h"

#include "passes/module_swap/pytree_ir.h"

namespace pteforge::passes::module_swap {
namespace {

constexpr int kMaxDepth = 512;

Result<Tree> resolve(const ir::Graph& g, const ir::Argument& a, const InlinedCalls* calls, int depth) {
  Tree leaf{ir::treespec_leaf(), {a}};
  const std::string* name = a.value_name();
  if (!name) return leaf;
  const ir::Node* p = g.producer(*name);
  if (!p) return leaf;
  if (depth > kMaxDepth) {
    return make_error(ErrorCode::INTERNAL, "pytree packing nested deeper than " + std::to_string(kMaxDepth));
  }
  if (is_tree_unflatten(*p)) {
    PTEFORGE_ASSIGN_OR_RETURN(ir::TreeSpec spec, node_spec(*p));
    Tree t;
    t.spec = std::move(spec.root);
    for (const auto& na : p->inputs()) {
      if (na.name == "leaf") t.leaves.push_back(na.arg);
    }
    if (t.leaves.size() != t.spec.num_leaves()) {
      return make_error(ErrorCode::INTERNAL, "tree_unflatten '" + p->name() + "' has " +
                                                 std::to_string(t.leaves.size()) + " leaves but its spec has " +
                                                 std::to_string(t.spec.num_leaves()));
    }
    return t;
  }
  if (is_tree_flatten_spec(*p)) {
    if (p->inputs().empty()) return make_error(ErrorCode::INTERNAL, "tree_flatten_spec '" + p->name() + "' has no input");
    PTEFORGE_ASSIGN_OR_RETURN(Tree inner, resolve(g, p->inputs()[0].arg, calls, depth + 1));
    inner.spec = flat_list_spec(inner.leaves.size());
    return inner;
  }
  if (is_call_module(*p)) {
    const InlinedCalls::const_iterator it = calls ? calls->find(*name) : InlinedCalls::const_iterator();
    if (!calls || it == calls->end()) {
      return make_error(ErrorCode::INTERNAL, "the result of module call '" + p->name() + "' is needed before it was inlined");
    }
    return Tree{flat_list_spec(it->second.size()), it->second};
  }
  if (is_getitem(*p)) {
    auto key = getitem_key(*p);
    if (!key || p->inputs().empty()) return make_error(ErrorCode::INTERNAL, "malformed getitem '" + p->name() + "'");
    PTEFORGE_ASSIGN_OR_RETURN(Tree container, resolve(g, p->inputs()[0].arg, calls, depth + 1));
    auto pos = child_position(container.spec, *key);
    if (!pos) {
      return make_error(ErrorCode::INTERNAL, "getitem '" + p->name() + "' selects a child its container " +
                                                 describe_treespec(container.spec) + " does not have");
    }
    size_t off = leaf_offset(container.spec, *pos);
    Tree t;
    t.spec = container.spec.children[*pos];
    size_t n = t.spec.num_leaves();
    t.leaves.assign(container.leaves.begin() + static_cast<std::ptrdiff_t>(off),
                    container.leaves.begin() + static_cast<std::ptrdiff_t>(off + n));
    return t;
  }
  return leaf;
}

}  // namespace

ir::TreeSpecNode flat_list_spec(size_t n) {
  return ir::treespec_node("builtins.list", "null", std::vector<ir::TreeSpecNode>(n, ir::treespec_leaf()));
}

Result<Tree> resolve_tree(const ir::Graph& g, const ir::Argument& a, const InlinedCalls* calls) {
  return resolve(g, a, calls, 0);
}

Result<std::vector<ir::Argument>> call_flat_inputs(const ir::Graph& g, const ir::Node& call, const InlinedCalls* calls) {
  std::vector<ir::Argument> flat;
  for (const ir::Argument* a : call_module_args(call)) {
    PTEFORGE_ASSIGN_OR_RETURN(Tree t, resolve_tree(g, *a, calls));
    flat.insert(flat.end(), t.leaves.begin(), t.leaves.end());
  }
  for (const auto& [key, a] : call_module_kwargs(call)) {
    PTEFORGE_ASSIGN_OR_RETURN(Tree t, resolve_tree(g, *a, calls));
    flat.insert(flat.end(), t.leaves.begin(), t.leaves.end());
  }
  return flat;
}

}  // namespace pteforge::passes::module_swap
