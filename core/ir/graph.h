// Graph: inputs, nodes in execution order, outputs, and the value table
// (schema §3.3 Graph, §4).
//
// Values are named (torch.export is name-based). The graph keeps one Value per
// name that is defined, used, or has metadata: its kind and metadata (the
// JSON tables tensor_values / sym_int_values / ... ), the node that defines
// it (or the graph input position), and its users. The table is kept up to
// date by every Graph and Node mutator, so passes can ask `producer(name)`,
// `users(name)` and `tensor_meta(name)` with one hash lookup.
//
// Nested graphs (higher-order-op bodies, as_graph) are separate Graph objects
// with their own namespace.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ir/argument.h"
#include "ir/node.h"
#include "ir/tensor_meta.h"
#include "support/error.h"

namespace pteforge::ir {

/// Metadata of a value: which JSON table it lives in, and the entry.
using ValueMeta = std::variant<std::monostate, TensorMeta, SymInt, SymFloat, SymBool, CustomObjArgument>;

/// One named value of a graph. Read-only for passes; change it through Graph.
struct Value {
  std::string name;
  /// Kind from the metadata table, or from how the value is referenced when it has none.
  ValueKind kind = ValueKind::Unknown;
  ValueMeta meta;
  /// The defining node; nullptr for graph inputs and undefined names.
  Node* producer = nullptr;
  /// Position in Graph::inputs() when defined by a graph input, else -1.
  int32_t input_index = -1;
  /// Number of definitions (graph inputs + node outputs); exactly 1 in a valid graph.
  uint32_t def_count = 0;
  /// One entry per reference from a node's inputs (a node using it twice appears twice).
  std::vector<Node*> uses;
  /// Number of references from the graph outputs.
  uint32_t output_uses = 0;

  bool defined() const { return def_count > 0; }
  bool has_meta() const { return meta.index() != 0; }
  /// Slot number in the graph's value table (stable while the value lives).
  uint32_t id() const { return id_; }
  /// Position in its metadata table (tensor_values, ...): the writer's order.
  uint32_t table_order() const { return table_order_; }
  /// Number of references (definitions, uses, graph outputs) that treat it as kind `k`.
  uint32_t refs_as(ValueKind k) const { return ref_kinds_[static_cast<size_t>(k)]; }
  /// Number of references of every kind (definitions, uses, graph outputs).
  uint32_t refs() const {
    uint32_t n = 0;
    for (uint32_t r : ref_kinds_) n += r;
    return n;
  }
  const TensorMeta* tensor_meta() const { return std::get_if<TensorMeta>(&meta); }
  const SymInt* sym_int() const { return std::get_if<SymInt>(&meta); }
  const SymFloat* sym_float() const { return std::get_if<SymFloat>(&meta); }
  const SymBool* sym_bool() const { return std::get_if<SymBool>(&meta); }
  const CustomObjArgument* custom_obj() const { return std::get_if<CustomObjArgument>(&meta); }

 private:
  friend class Graph;
  friend struct GraphData;
  bool live_ = true;
  uint32_t id_ = 0;
  uint32_t table_order_ = 0;
  std::array<uint32_t, kValueKindCount> ref_kinds_{};
};

class Graph {
 public:
  /// Nodes in a list whose storage the graph pools (node_pool.h).
  using NodeList = std::list<Node, detail::PoolAllocator<Node>>;

  Graph();
  /// Deep copy (nodes, values, nested graphs); node ids are kept.
  Graph(const Graph& o);
  Graph(Graph&& o) noexcept;
  Graph& operator=(const Graph& o);
  Graph& operator=(Graph&& o) noexcept;
  ~Graph();

  // ---- inputs / outputs (§4.2, §4.3) ----
  const std::vector<Argument>& inputs() const;
  void set_inputs(std::vector<Argument> inputs);
  void insert_input(size_t pos, Argument arg);
  void erase_input(size_t pos);
  const std::vector<Argument>& outputs() const;
  void set_outputs(std::vector<Argument> outputs);
  void set_output(size_t index, Argument arg);
  void add_output(Argument arg);
  bool is_single_tensor_return() const;
  void set_is_single_tensor_return(bool v);

  // ---- nodes ----
  /// Nodes in execution order. Iterating while erasing the current node is
  /// fine when the iterator is advanced first; or iterate node_snapshot().
  NodeList::iterator begin();
  NodeList::iterator end();
  NodeList::const_iterator begin() const;
  NodeList::const_iterator end() const;
  size_t num_nodes() const;
  bool empty() const;
  /// True when some node has a graph-valued input (a higher-order op's body);
  /// kept up to date by every mutator, so it costs no scan.
  bool has_nested_graphs() const;
  /// One past the largest NodeId given out so far: every node's id() is
  /// below it, so passes can index per-node tables by id.
  NodeId node_id_bound() const;
  /// A number naming the graph's current structure: it changes whenever a
  /// node is added, erased, moved or renamed, a node's inputs, outputs or
  /// target change, or the graph's inputs or outputs change (not when value
  /// metadata changes). Unique across all graphs of the process, so a pass can
  /// remember a result for one state of a graph (eliminate_dead_code skips a
  /// graph it already found free of dead code).
  uint64_t revision() const;
  /// Pointers to every node in order (safe to iterate while mutating). A copy
  /// of the last snapshot while no node was inserted, moved or erased since.
  std::vector<Node*> node_snapshot();
  Node* first_node();
  Node* last_node();
  const Node* first_node() const;
  const Node* last_node() const;
  /// Next / previous node in order, or nullptr.
  Node* next(const Node& n);
  Node* prev(const Node& n);

  /// Appends a detached node; returns the inserted node.
  Node& append(Node node);
  Node& insert_before(Node& pos, Node node);
  Node& insert_after(Node& pos, Node node);
  /// Moves an existing node to just before `pos` (O(1)).
  void move_before(Node& node, Node& pos);
  void move_after(Node& node, Node& pos);
  /// Removes a node. INVALID_GRAPH (where.node) when a value it defines still
  /// has users or is a graph output; then nothing changes. Its values and
  /// their metadata are removed.
  Status erase(Node& node);
  /// The node named `name`, or nullptr.
  Node* find_node(std::string_view name);
  const Node* find_node(std::string_view name) const;
  /// True when `a` comes before `b` in execution order (both in this graph). Amortised O(1).
  bool is_before(const Node& a, const Node& b) const;
  /// A number that increases along execution order (changes when nodes are inserted).
  uint64_t position(const Node& n) const;

  // ---- values ----
  const Value* find_value(std::string_view name) const;
  /// The defining node of `name`; nullptr for graph inputs and unknown names.
  Node* producer(std::string_view name) const;
  /// Distinct nodes that use `name`, in first-use order (graph outputs not included).
  std::vector<Node*> users(std::string_view name) const;
  /// References to `name` from nodes plus graph outputs.
  size_t use_count(std::string_view name) const;
  const TensorMeta* tensor_meta(std::string_view name) const;
  /// Sets (or replaces) the metadata of `name`; the kind follows the metadata.
  void set_tensor_meta(std::string_view name, TensorMeta meta);
  void set_sym_int(std::string_view name, SymInt value);
  void set_sym_float(std::string_view name, SymFloat value);
  void set_sym_bool(std::string_view name, SymBool value);
  void set_custom_obj(std::string_view name, CustomObjArgument value);
  void set_meta(std::string_view name, ValueMeta meta);
  /// Sets the metadata of `name` unless it already has some; returns the
  /// existing value in that case (and changes nothing), nullptr otherwise.
  /// `table_order` places it in its table (the importer passes the position
  /// in the JSON table); by default it goes after every value set before.
  const Value* set_meta_if_absent(std::string_view name, ValueMeta meta,
                                  std::optional<uint32_t> table_order = std::nullopt);
  /// The values whose metadata is of `kind`, in table order (what the writer emits).
  std::vector<const Value*> table(ValueKind kind) const;
  /// Drops the metadata of `name` (the value stays while defined or used).
  void clear_meta(std::string_view name);
  /// Rewrites every reference to value `from` (node inputs and graph outputs)
  /// to `to`; returns the number of references rewritten. Definitions are not
  /// touched. Use ExportedProgram::replace_all_uses to also update the signature.
  size_t replace_all_uses(std::string_view from, std::string_view to);
  /// Calls f(const Value&) for every value in table order.
  template <typename F>
  void for_each_value(F&& f) const {
    const size_t n = value_slots();
    for (size_t i = 0; i < n; ++i) {
      const Value& v = value_slot(i);
      if (v.live_) f(v);
    }
  }
  /// Number of value slots (live and erased); Value::id() < value_slots().
  size_t value_slots() const;
  /// Value by slot (may be erased: check via for_each_value instead).
  const Value& value_slot(size_t id) const;
  /// Pre-sizes the tables for about `values` values and `nodes` nodes (import speed).
  void reserve(size_t values, size_t nodes);
  /// A name not used by any node or value: `base` itself, else base_1, base_2, ...
  std::string unique_name(std::string_view base) const;

  // ---- origin ----
  /// JSON pointer of this Graph object in the input (e.g. "/graph_module/graph"); may be null.
  const std::shared_ptr<const std::string>& json_pointer() const;
  void set_json_pointer(std::shared_ptr<const std::string> p);

  /// Structural equality: inputs, outputs, flag, nodes (Node::same_as) in order,
  /// and the metadata tables in order. Ids, origins and pointers are ignored.
  bool operator==(const Graph& o) const;

 private:
  friend class Node;
  friend struct GraphData;
  friend class GraphLoader;
  std::unique_ptr<GraphData> d_;  // heap-allocated so that moving a Graph is O(1)
};

/// Bulk loading, for importers only: nodes are built in place at the end of
/// the graph's node list while still detached (their setters do not touch the
/// value table), then attached one by one in list order, each exactly as
/// Graph::append would have added it (id, execution order, value table).
/// This saves building each node elsewhere and moving it in. Until every
/// placed node is attached the graph must not be used otherwise (only
/// destroyed or moved).
class GraphLoader {
 public:
  /// A new empty, unattached node at the end of `g`'s node list.
  static Node& place(Graph& g);
  /// Attaches `n`, a node from place() whose predecessors are all attached.
  static void attach(Graph& g, Node& n);
};

}  // namespace pteforge::ir
