// Node: one call in a graph (schema §3.3 Node, §5).
//
// A node calls `target` with `inputs` (NamedArguments) and defines the values
// named by `outputs`. Nodes live in a Graph (graph.h), which owns them in a
// linked list: a Node& / Node* stays valid until the node is erased, and
// insertion anywhere is O(1). Setters that change which values a node uses or
// defines (set_inputs, set_input, set_outputs, ...) keep the graph's value
// table (users, producers) up to date; as in torch.fx, any change to a node's
// inputs moves it behind the other users of every value it reads. Metadata
// and origin are plain data.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/argument.h"
#include "ir/node_metadata.h"
#include "ir/node_pool.h"
#include "ir/target.h"

namespace pteforge::ir {

class Graph;
struct GraphData;

/// Where a node came from in the input document, for error messages.
struct NodeOrigin {
  /// JSON pointer of the Graph object the node was read from (shared by all its nodes).
  std::shared_ptr<const std::string> graph_pointer;
  /// Index in that graph's "nodes" array; -1 for nodes created by passes
  /// (which should copy the origin of the node they replace).
  int64_t index = -1;

  /// RFC 6901 pointer of the node, e.g. "/graph_module/graph/nodes/12"; "" when unknown.
  std::string pointer() const;
  bool known() const { return graph_pointer && index >= 0; }
};

/// Per-graph node number, assigned on insertion, never reused within the graph.
using NodeId = uint32_t;

class Node {
 public:
  Node() = default;
  Node(OpTarget target, std::vector<NamedArgument> inputs, std::vector<Argument> outputs, std::string name = {});
  /// Copies the content; the copy is detached (belongs to no graph).
  Node(const Node& o);
  /// Moves the content (only detached nodes may be moved).
  Node(Node&& o) noexcept;
  Node& operator=(const Node&) = delete;
  Node& operator=(Node&&) = delete;

  // ---- identity ----
  /// The FX node name (unique among the graph's nodes). For single-output nodes
  /// it equals the output value's name.
  const std::string& name() const { return name_; }
  void set_name(std::string name);
  NodeId id() const { return id_; }
  /// The graph that owns this node; nullptr when detached.
  Graph* graph() const;

  // ---- target ----
  const OpTarget& target() const { return target_; }
  void set_target(OpTarget t);

  // ---- inputs ----
  const std::vector<NamedArgument>& inputs() const { return inputs_; }
  /// The argument passed for schema argument `schema_name`, or nullptr when not passed.
  const Argument* input(std::string_view schema_name) const;
  /// Index in inputs() of schema argument `schema_name`, or -1.
  int input_index(std::string_view schema_name) const;
  void set_inputs(std::vector<NamedArgument> inputs);
  void set_input(size_t index, Argument arg);
  /// Replaces the argument named `schema_name`, or appends it (keyword) when absent.
  void set_input(std::string_view schema_name, Argument arg);
  void add_input(NamedArgument arg);
  void erase_input(size_t index);
  /// Removes and returns the inputs (their uses unregistered), leaving none:
  /// with set_inputs, a rewrite of the inputs without copying them.
  std::vector<NamedArgument> take_inputs();

  // ---- outputs ----
  /// The values this node defines (§5.3); as_none entries define nothing.
  const std::vector<Argument>& outputs() const { return outputs_; }
  void set_outputs(std::vector<Argument> outputs);
  /// Every value name defined by the outputs, flattened in order.
  std::vector<std::string_view> output_names() const;
  /// The name of the single value defined by a single-output node (as_tensor,
  /// as_sym_*), or nullptr.
  const std::string* single_output() const;

  // ---- plain data ----
  NodeMetadata& metadata() { return metadata_; }
  const NodeMetadata& metadata() const { return metadata_; }
  std::optional<bool>& is_hop_single_tensor_return() { return hop_single_; }
  const std::optional<bool>& is_hop_single_tensor_return() const { return hop_single_; }
  NodeOrigin& origin() { return origin_; }
  const NodeOrigin& origin() const { return origin_; }
  /// Copies origin and metadata from `other` (for nodes that replace `other`).
  void inherit_from(const Node& other);

  /// Structural equality: target, inputs, outputs, metadata, hop flag, name
  /// (not id, graph or origin).
  bool same_as(const Node& o) const;

 private:
  friend class Graph;
  friend struct GraphData;

  OpTarget target_;
  std::vector<NamedArgument> inputs_;
  std::vector<Argument> outputs_;
  NodeMetadata metadata_;
  std::optional<bool> hop_single_;
  std::string name_;
  NodeOrigin origin_;

  GraphData* owner_ = nullptr;
  NodeId id_ = 0;
  mutable uint64_t order_ = 0;
  std::list<Node, detail::PoolAllocator<Node>>::iterator self_;
};

}  // namespace pteforge::ir
