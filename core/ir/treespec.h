// TreeSpec: the pytree structure of a module call's inputs and outputs
// (ModuleCallSignature.in_spec / out_spec, torch-export-format.md §8.2).
//
// The JSON carries it as text; serde/treespec_json.h parses and writes it
// (byte-identical to Python's json.dumps). The context of a node is kept as
// the JSON text of its value in that same canonical form ("null" for JSON
// null, "\"null\"" for the string "null" that tuples and lists carry).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pteforge::ir {

struct TreeSpecNode {
  std::optional<std::string> type;  ///< serialized type name ("builtins.tuple"); nullopt for a leaf
  std::string context = "null";     ///< canonical JSON text of the context value
  std::vector<TreeSpecNode> children;

  bool is_leaf() const { return !type.has_value(); }
  /// Number of leaves below (1 for a leaf).
  size_t num_leaves() const;
  bool operator==(const TreeSpecNode&) const = default;
};

struct TreeSpec {
  int64_t protocol = 1;  ///< pytree serialization protocol; only 1 exists
  TreeSpecNode root;

  size_t num_leaves() const { return root.num_leaves(); }
  bool operator==(const TreeSpec&) const = default;
};

/// A leaf node.
TreeSpecNode treespec_leaf();
/// A container node with context text `context` (e.g. "\"null\"" for tuples).
TreeSpecNode treespec_node(std::string type, std::string context, std::vector<TreeSpecNode> children);

}  // namespace pteforge::ir
