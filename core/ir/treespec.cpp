// TreeSpec helpers (see treespec.h).
#include "ir/treespec.h"

namespace pteforge::ir {

size_t TreeSpecNode::num_leaves() const {
  if (is_leaf()) return 1;
  size_t n = 0;
  for (const auto& c : children) n += c.num_leaves();
  return n;
}

TreeSpecNode treespec_leaf() { return TreeSpecNode{}; }

TreeSpecNode treespec_node(std::string type, std::string context, std::vector<TreeSpecNode> children) {
  TreeSpecNode n;
  n.type = std::move(type);
  n.context = std::move(context);
  n.children = std::move(children);
  return n;
}

}  // namespace pteforge::ir
