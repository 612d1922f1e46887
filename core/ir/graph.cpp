// Graph and Node mutators, and the value table they maintain (see graph.h).
#include "ir/graph.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <charconv>

#include "support/chunked_vector.h"
#include "support/name_map.h"

namespace pteforge::ir {
namespace {

constexpr uint64_t kOrderGap = uint64_t{1} << 20;

template <typename F>
void for_each_output_name(const std::vector<Argument>& outputs, F&& f) {
  for (const Argument& a : outputs) for_each_value_name(a, f);
}

template <typename F>
void for_each_input_name(const std::vector<NamedArgument>& inputs, F&& f) {
  for (const NamedArgument& a : inputs) for_each_value_name(a.arg, f);
}

ValueKind kind_of(const ValueMeta& m) {
  switch (m.index()) {
    case 1: return ValueKind::Tensor;
    case 2: return ValueKind::SymInt;
    case 3: return ValueKind::SymFloat;
    case 4: return ValueKind::SymBool;
    case 5: return ValueKind::CustomObj;
    default: return ValueKind::Unknown;
  }
}

/// A process-wide fresh revision number (Graph::revision).
uint64_t fresh_revision() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace

// ---------------------------------------------------------------- NodeOrigin

std::string NodeOrigin::pointer() const {
  if (!known()) return {};
  return *graph_pointer + "/nodes/" + std::to_string(index);
}

// ---------------------------------------------------------------- GraphBox

GraphBox::GraphBox() : g_(std::make_unique<Graph>()) {}
GraphBox::GraphBox(Graph graph) : g_(std::make_unique<Graph>(std::move(graph))) {}
GraphBox::GraphBox(const GraphBox& o) : g_(std::make_unique<Graph>(*o.g_)) {}
GraphBox::GraphBox(GraphBox&& o) noexcept : g_(std::move(o.g_)) {}
GraphBox& GraphBox::operator=(const GraphBox& o) {
  if (this != &o) g_ = std::make_unique<Graph>(*o.g_);
  return *this;
}
GraphBox& GraphBox::operator=(GraphBox&& o) noexcept {
  g_ = std::move(o.g_);
  return *this;
}
GraphBox::~GraphBox() = default;
bool GraphBox::operator==(const GraphBox& o) const {
  if (!g_ || !o.g_) return g_ == o.g_;
  return *g_ == *o.g_;
}

// ---------------------------------------------------------------- GraphData

/// The graph's state, on the heap so that moving a Graph never touches its nodes.
struct GraphData {
  Graph* owner = nullptr;
  detail::BlockPool node_pool;  // before `nodes`: destroyed after it
  Graph::NodeList nodes{Graph::NodeList::allocator_type(&node_pool)};
  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  bool single_tensor_return = false;
  ChunkedVector<Value> values;  // stable addresses, chunks doubling from 8 values
  NameMap<Value*> value_index;
  NameMap<Node*> node_index;  // built on first use
  bool node_index_built = false;
  size_t node_index_reserve = 0;
  NodeId next_id = 1;
  uint32_t next_table_order = 0;
  bool order_dirty = false;
  /// node_snapshot()'s last result while no node was placed, inserted, moved
  /// or erased since (most passes change no node order, and the next pass's
  /// snapshot then copies this instead of walking the list).
  std::vector<Node*> snapshot;
  bool snapshot_valid = false;
  /// Graph-valued inputs (nested graphs) of the attached nodes.
  size_t graph_args = 0;
  std::shared_ptr<const std::string> json_pointer;
  /// unique_name() cache: stem → i such that stem_1 .. stem_(i-1) are all
  /// taken (a lower bound of the next free suffix). Lowered when a name of the
  /// form stem_k is freed, so unique_name's result does not change; it only
  /// avoids rescanning from 1, which made n calls cost O(n^2).
  NameMap<size_t, std::string> name_hints;
  /// Graph::revision(): `revision` names the structure as it was when
  /// `changed` was last cleared; a mutator only sets `changed` (the fresh
  /// number is drawn when revision() is next asked for).
  mutable uint64_t revision = fresh_revision();
  mutable bool changed = false;

  void name_freed(std::string_view name) {
    if (name_hints.empty()) return;
    size_t us = name.rfind('_');
    if (us == std::string_view::npos || us + 1 >= name.size() || name.size() - us > 19) return;
    size_t k = 0;
    for (size_t i = us + 1; i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') return;
      k = k * 10 + static_cast<size_t>(name[i] - '0');
    }
    auto it = name_hints.find(name.substr(0, us));
    if (it != name_hints.end() && k < it->second) it.value() = k;
  }

  Value* lookup(std::string_view name) const {
    auto it = value_index.find(name);
    return it == value_index.end() ? nullptr : it->second;
  }

  Value& get_or_create(std::string_view name, ValueKind kind) {
    if (Value* v = lookup(name)) {
      if (v->kind == ValueKind::Unknown) v->kind = kind;
      return *v;
    }
    return create(name, kind);
  }

  /// A new value named `name`, which no value has.
  Value& create(std::string_view name, ValueKind kind) {
    Value& v = values.emplace_back();
    v.id_ = static_cast<uint32_t>(values.size() - 1);
    v.name = std::string(name);
    v.kind = kind;
    value_index.emplace(std::string_view(v.name), &v);
    return v;
  }

  void maybe_collect(Value& v, bool drop_meta) {
    if (v.def_count > 0 || !v.uses.empty() || v.output_uses > 0) return;
    if (v.has_meta() && !drop_meta) return;
    value_index.erase(std::string_view(v.name));
    name_freed(v.name);
    v.live_ = false;
    v.meta = std::monostate();
    v.uses.clear();
    v.uses.shrink_to_fit();
    // Reclaim trailing dead slots (the common case when a pass undoes its last step).
    while (!values.empty() && !values.back().live_) values.pop_back();
  }

  void set_meta(std::string_view name, ValueMeta meta, std::optional<uint32_t> order = std::nullopt) {
    ValueKind k = kind_of(meta);
    set_meta(get_or_create(name, k), std::move(meta), order);
  }

  void set_meta(Value& v, ValueMeta meta, std::optional<uint32_t> order) {
    ValueKind k = kind_of(meta);
    if (order) {
      v.table_order_ = *order;
      next_table_order = std::max(next_table_order, *order + 1);
    } else if (!v.has_meta() || kind_of(v.meta) != k) {
      v.table_order_ = next_table_order++;
    }
    v.meta = std::move(meta);
    if (k != ValueKind::Unknown) v.kind = k;
  }

  static void count_ref(Value& v, ValueKind k, int delta) {
    v.ref_kinds_[static_cast<size_t>(k)] += static_cast<uint32_t>(delta);
  }

  void ensure_node_index() {
    if (node_index_built) return;
    node_index.reserve(std::max(node_index_reserve, nodes.size()));
    for (Node& n : nodes) {
      if (!n.name_.empty()) node_index.emplace(std::string_view(n.name_), &n);
    }
    node_index_built = true;
  }

  void register_uses(Node& node) {
    changed = true;
    for (const NamedArgument& in : node.inputs_) graph_args += in.arg.is<ArgTag::Graph>() ? 1 : 0;
    for_each_input_name(node.inputs_, [&](const std::string& name, ValueKind kind) {
      Value& v = get_or_create(name, kind);
      v.uses.push_back(&node);
      count_ref(v, kind, 1);
    });
  }

  void unregister_uses(Node& node) {
    changed = true;
    for (const NamedArgument& in : node.inputs_) graph_args -= in.arg.is<ArgTag::Graph>() ? 1 : 0;
    for_each_input_name(node.inputs_, [&](const std::string& name, ValueKind kind) {
      Value* v = lookup(name);
      if (!v) return;
      auto it = std::find(v->uses.begin(), v->uses.end(), &node);
      if (it != v->uses.end()) v->uses.erase(it);
      count_ref(*v, kind, -1);
      maybe_collect(*v, false);
    });
  }

  void register_defs(Node& node) {
    changed = true;
    for_each_output_name(node.outputs_, [&](const std::string& name, ValueKind kind) {
      Value& v = get_or_create(name, kind);
      ++v.def_count;
      count_ref(v, kind, 1);
      if (!v.producer && v.input_index < 0) v.producer = &node;
    });
  }

  void unregister_defs(Node& node, bool drop_meta) {
    changed = true;
    for_each_output_name(node.outputs_, [&](const std::string& name, ValueKind kind) {
      Value* v = lookup(name);
      if (!v) return;
      if (v->def_count > 0) --v->def_count;
      count_ref(*v, kind, -1);
      if (v->producer == &node) v->producer = nullptr;
      maybe_collect(*v, drop_meta);
    });
  }

  void register_inputs() {
    changed = true;
    for (size_t i = 0; i < inputs.size(); ++i) {
      for_each_value_name(inputs[i], [&](const std::string& name, ValueKind kind) {
        Value& v = get_or_create(name, kind);
        ++v.def_count;
        count_ref(v, kind, 1);
        if (v.input_index < 0) v.input_index = static_cast<int32_t>(i);
      });
    }
  }

  void unregister_inputs() {
    changed = true;
    for (const Argument& a : inputs) {
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        Value* v = lookup(name);
        if (!v) return;
        if (v->def_count > 0) --v->def_count;
        count_ref(*v, kind, -1);
        v->input_index = -1;
      });
    }
  }

  void register_outputs() {
    changed = true;
    for (const Argument& a : outputs) {
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        Value& v = get_or_create(name, kind);
        ++v.output_uses;
        count_ref(v, kind, 1);
      });
    }
  }

  void unregister_outputs() {
    changed = true;
    for (const Argument& a : outputs) {
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (Value* v = lookup(name)) {
          if (v->output_uses > 0) --v->output_uses;
          count_ref(*v, kind, -1);
        }
      });
    }
  }

  void collect_names(const std::vector<Argument>& args) {
    for (const Argument& a : args) {
      for_each_value_name(a, [&](const std::string& name, ValueKind) {
        if (Value* v = lookup(name)) maybe_collect(*v, false);
      });
    }
  }

  /// `last`: number `node` as the last node even when unattached nodes
  /// (GraphLoader) follow it.
  void assign_order(Node& node, bool last = false) {
    auto it = node.self_;
    uint64_t lo = it == nodes.begin() ? 0 : std::prev(it)->order_;
    auto nx = std::next(it);
    if (last || nx == nodes.end()) {
      node.order_ = lo + kOrderGap;
      if (node.order_ < lo) order_dirty = true;  // wrapped around
      return;
    }
    uint64_t hi = nx->order_;
    if (hi > lo + 1) {
      node.order_ = lo + (hi - lo) / 2;
    } else {
      order_dirty = true;
    }
  }

  void renumber() {
    uint64_t o = 0;
    for (const Node& n : nodes) {
      o += kOrderGap;
      n.order_ = o;
    }
    order_dirty = false;
  }

  /// A new detached node at the end of the list (GraphLoader::place).
  Node& place() {
    changed = true;
    snapshot_valid = false;
    auto it = nodes.emplace(nodes.end());
    it->self_ = it;
    return *it;
  }
  /// Attaches a node from place() (GraphLoader::attach).
  void attach_placed(Node& node) {
    // Preconditions (GraphLoader): placed by place(), not attached yet, every node before it attached.
    assert(node.owner_ == nullptr);
    assert(node.self_ == nodes.begin() || std::prev(node.self_)->owner_ == this);
    attach(node, node.self_, /*last=*/true);
  }

  /// `last`: every node after `node` is unattached (GraphLoader), so it is
  /// numbered as the last one.
  void attach(Node& node, Graph::NodeList::iterator it, bool last = false) {
    node.owner_ = this;
    node.self_ = it;
    node.id_ = next_id++;
    assign_order(node, last);
    if (node_index_built && !node.name_.empty()) node_index.emplace(std::string_view(node.name_), &node);
    register_uses(node);
    register_defs(node);
  }

  void rename_node(Node& node, std::string name) {
    changed = true;
    name_freed(node.name_);
    if (node_index_built) {
      auto idx = node_index.find(std::string_view(node.name_));
      if (idx != node_index.end() && idx->second == &node) node_index.erase(idx);
    }
    node.name_ = std::move(name);
    if (node_index_built && !node.name_.empty()) node_index.emplace(std::string_view(node.name_), &node);
  }
};

// ---------------------------------------------------------------- Node

Node::Node(OpTarget target, std::vector<NamedArgument> inputs, std::vector<Argument> outputs, std::string name)
    : target_(target), inputs_(std::move(inputs)), outputs_(std::move(outputs)), name_(std::move(name)) {}

Node::Node(const Node& o)
    : target_(o.target_),
      inputs_(o.inputs_),
      outputs_(o.outputs_),
      metadata_(o.metadata_),
      hop_single_(o.hop_single_),
      name_(o.name_),
      origin_(o.origin_) {}

Node::Node(Node&& o) noexcept
    : target_(o.target_),
      inputs_(std::move(o.inputs_)),
      outputs_(std::move(o.outputs_)),
      metadata_(std::move(o.metadata_)),
      hop_single_(o.hop_single_),
      name_(std::move(o.name_)),
      origin_(std::move(o.origin_)) {}

void Node::set_target(OpTarget t) {
  target_ = t;
  if (owner_) owner_->changed = true;
}

void Node::set_name(std::string name) {
  if (owner_) {
    owner_->rename_node(*this, std::move(name));
  } else {
    name_ = std::move(name);
  }
}

const Argument* Node::input(std::string_view schema_name) const {
  for (const auto& a : inputs_) {
    if (a.name == schema_name) return &a.arg;
  }
  return nullptr;
}

int Node::input_index(std::string_view schema_name) const {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].name == schema_name) return static_cast<int>(i);
  }
  return -1;
}

void Node::set_inputs(std::vector<NamedArgument> inputs) {
  if (owner_) owner_->unregister_uses(*this);
  inputs_ = std::move(inputs);
  if (owner_) owner_->register_uses(*this);
}

// Every input mutator re-registers all of the node's uses, as torch.fx does
// when a node's args change: the node moves behind the other users of each
// value it reads (passes that order nodes by their users, e.g. legalize,
// see what ExecuTorch's graph would hold).
void Node::set_input(size_t index, Argument arg) {
  if (owner_) owner_->unregister_uses(*this);
  inputs_.at(index).arg = std::move(arg);
  if (owner_) owner_->register_uses(*this);
}

void Node::set_input(std::string_view schema_name, Argument arg) {
  int i = input_index(schema_name);
  if (i >= 0) {
    set_input(static_cast<size_t>(i), std::move(arg));
  } else {
    add_input(NamedArgument{std::string(schema_name), std::move(arg), ArgumentKind::Keyword});
  }
}

void Node::add_input(NamedArgument arg) {
  if (owner_) owner_->unregister_uses(*this);
  inputs_.push_back(std::move(arg));
  if (owner_) owner_->register_uses(*this);
}

void Node::erase_input(size_t index) {
  if (owner_) owner_->unregister_uses(*this);
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(index));
  if (owner_) owner_->register_uses(*this);
}

std::vector<NamedArgument> Node::take_inputs() {
  if (owner_) owner_->unregister_uses(*this);
  std::vector<NamedArgument> out = std::move(inputs_);
  inputs_.clear();
  return out;
}

void Node::set_outputs(std::vector<Argument> outputs) {
  if (owner_) owner_->unregister_defs(*this, /*drop_meta=*/false);
  outputs_ = std::move(outputs);
  if (owner_) owner_->register_defs(*this);
}

std::vector<std::string_view> Node::output_names() const {
  std::vector<std::string_view> out;
  for_each_output_name(outputs_, [&out](const std::string& n, ValueKind) { out.push_back(n); });
  return out;
}

const std::string* Node::single_output() const {
  if (outputs_.size() != 1) return nullptr;
  const Argument& a = outputs_[0];
  switch (a.tag()) {
    case ArgTag::Tensor:
    case ArgTag::SymInt:
    case ArgTag::SymFloat:
    case ArgTag::SymBool:
    case ArgTag::CustomObj: return a.value_name();
    default: return nullptr;
  }
}

void Node::inherit_from(const Node& other) {
  origin_ = other.origin_;
  metadata_ = other.metadata_;
}

bool Node::same_as(const Node& o) const {
  return target_ == o.target_ && inputs_ == o.inputs_ && outputs_ == o.outputs_ && metadata_ == o.metadata_ &&
         hop_single_ == o.hop_single_ && name_ == o.name_;
}

Graph* Node::graph() const { return owner_ ? owner_->owner : nullptr; }

// ---------------------------------------------------------------- Graph: construction

Graph::Graph() : d_(std::make_unique<GraphData>()) { d_->owner = this; }

Graph::~Graph() = default;

Graph::Graph(const Graph& o) : Graph() {
  const GraphData& src = *o.d_;
  d_->single_tensor_return = src.single_tensor_return;
  d_->json_pointer = src.json_pointer;
  reserve(src.value_index.size(), src.nodes.size());
  // Metadata first, keeping each value's place in its table.
  src.values.for_each([&](const Value& v) {
    if (v.live_ && v.has_meta()) d_->set_meta(v.name, v.meta, v.table_order_);
  });
  set_inputs(src.inputs);
  for (const Node& n : src.nodes) {
    Node& copy = append(Node(n));
    copy.id_ = n.id_;
  }
  d_->next_id = src.next_id;
  set_outputs(src.outputs);
}

Graph::Graph(Graph&& o) noexcept : d_(std::move(o.d_)) {
  d_->owner = this;
  o.d_ = std::make_unique<GraphData>();
  o.d_->owner = &o;
}

Graph& Graph::operator=(const Graph& o) {
  if (this != &o) {
    Graph copy(o);
    d_ = std::move(copy.d_);  // `copy` is left without data and only destroyed
    d_->owner = this;
  }
  return *this;
}

Graph& Graph::operator=(Graph&& o) noexcept {
  if (this == &o) return *this;
  std::swap(d_, o.d_);
  d_->owner = this;
  o.d_->owner = &o;
  return *this;
}

void Graph::reserve(size_t values, size_t nodes) {
  d_->value_index.reserve(values);
  d_->node_index_reserve = nodes;
}

size_t Graph::value_slots() const { return d_->values.size(); }
const Value& Graph::value_slot(size_t id) const { return d_->values[id]; }

const std::shared_ptr<const std::string>& Graph::json_pointer() const { return d_->json_pointer; }
void Graph::set_json_pointer(std::shared_ptr<const std::string> p) { d_->json_pointer = std::move(p); }

// ---------------------------------------------------------------- Graph: values

const Value* Graph::find_value(std::string_view name) const { return d_->lookup(name); }

Node* Graph::producer(std::string_view name) const {
  const Value* v = d_->lookup(name);
  return v ? v->producer : nullptr;
}

std::vector<Node*> Graph::users(std::string_view name) const {
  std::vector<Node*> out;
  const Value* v = d_->lookup(name);
  if (!v) return out;
  for (Node* n : v->uses) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

size_t Graph::use_count(std::string_view name) const {
  const Value* v = d_->lookup(name);
  return v ? v->uses.size() + v->output_uses : 0;
}

const TensorMeta* Graph::tensor_meta(std::string_view name) const {
  const Value* v = d_->lookup(name);
  return v ? v->tensor_meta() : nullptr;
}

void Graph::set_meta(std::string_view name, ValueMeta meta) { d_->set_meta(name, std::move(meta)); }

const Value* Graph::set_meta_if_absent(std::string_view name, ValueMeta meta, std::optional<uint32_t> table_order) {
  // One lookup: the importer calls this for every tensor, before its definition.
  Value* v = d_->lookup(name);
  if (v && v->has_meta()) return v;
  if (!v) v = &d_->create(name, kind_of(meta));
  d_->set_meta(*v, std::move(meta), table_order);
  return nullptr;
}

std::vector<const Value*> Graph::table(ValueKind kind) const {
  std::vector<const Value*> out;
  for_each_value([&](const Value& v) {
    if (v.has_meta() && v.kind == kind && kind_of(v.meta) == kind) out.push_back(&v);
  });
  std::stable_sort(out.begin(), out.end(),
                   [](const Value* a, const Value* b) { return a->table_order() < b->table_order(); });
  return out;
}
void Graph::set_tensor_meta(std::string_view name, TensorMeta meta) { d_->set_meta(name, std::move(meta)); }
void Graph::set_sym_int(std::string_view name, SymInt value) { d_->set_meta(name, std::move(value)); }
void Graph::set_sym_float(std::string_view name, SymFloat value) { d_->set_meta(name, std::move(value)); }
void Graph::set_sym_bool(std::string_view name, SymBool value) { d_->set_meta(name, std::move(value)); }
void Graph::set_custom_obj(std::string_view name, CustomObjArgument value) { d_->set_meta(name, std::move(value)); }

void Graph::clear_meta(std::string_view name) {
  if (Value* v = d_->lookup(name)) {
    v->meta = std::monostate();
    d_->maybe_collect(*v, true);
  }
}

size_t Graph::replace_all_uses(std::string_view from, std::string_view to) {
  if (from == to) return 0;
  Value* src = d_->lookup(from);
  if (!src) return 0;
  const std::string from_name = src->name;  // `from` may view into the value being rewritten
  const std::string to_name(to);
  size_t count = 0;
  std::vector<Node*> user_nodes = users(from_name);
  for (Node* n : user_nodes) {
    d_->unregister_uses(*n);
    for (NamedArgument& na : n->inputs_) {
      for_each_value_name_mut(na.arg, [&](std::string& name, ValueKind) {
        if (name == from_name) {
          name = to_name;
          ++count;
        }
      });
    }
    d_->register_uses(*n);
  }
  bool outputs_changed = false;
  for (const Argument& a : d_->outputs) {
    for_each_value_name(a, [&](const std::string& name, ValueKind) { outputs_changed |= name == from_name; });
  }
  if (outputs_changed) {
    std::vector<Argument> outs = d_->outputs;
    for (Argument& a : outs) {
      for_each_value_name_mut(a, [&](std::string& name, ValueKind) {
        if (name == from_name) {
          name = to_name;
          ++count;
        }
      });
    }
    set_outputs(std::move(outs));
  }
  return count;
}

std::string Graph::unique_name(std::string_view base) const {
  d_->ensure_node_index();
  auto taken = [this](std::string_view n) { return d_->lookup(n) != nullptr || d_->node_index.count(n) > 0; };
  if (!base.empty() && !taken(base)) return std::string(base);
  const std::string_view stem = base.empty() ? std::string_view("v") : base;
  auto hint = d_->name_hints.find(stem);
  if (hint == d_->name_hints.end()) hint = d_->name_hints.emplace(std::string(stem), 0).first;
  std::string candidate;
  candidate.reserve(stem.size() + 8);
  for (size_t i = std::max<size_t>(hint->second, 1);; ++i) {
    candidate.assign(stem);
    candidate += '_';
    char digits[24];
    candidate.append(digits, std::to_chars(digits, digits + sizeof digits, i).ptr);
    if (!taken(candidate)) {
      hint.value() = i;  // stem_1 .. stem_(i-1) are taken
      return candidate;
    }
  }
}

// ---------------------------------------------------------------- Graph: inputs/outputs

const std::vector<Argument>& Graph::inputs() const { return d_->inputs; }
const std::vector<Argument>& Graph::outputs() const { return d_->outputs; }
bool Graph::is_single_tensor_return() const { return d_->single_tensor_return; }
void Graph::set_is_single_tensor_return(bool v) { d_->single_tensor_return = v; }

void Graph::set_inputs(std::vector<Argument> inputs) {
  d_->unregister_inputs();
  std::vector<Argument> old = std::move(d_->inputs);
  d_->inputs = std::move(inputs);
  d_->register_inputs();
  d_->collect_names(old);  // names only the old inputs defined may now be garbage
}

// insert_input / erase_input update the value table incrementally (only the
// inputs after `pos` move), so passes that add or remove one placeholder at a
// time near the end of a long input list stay linear.
void Graph::insert_input(size_t pos, Argument arg) {
  d_->changed = true;
  auto& inputs = d_->inputs;
  pos = std::min(pos, inputs.size());
  // Later inputs move up by one; walk backwards so a value defined twice moves once.
  for (size_t i = inputs.size(); i-- > pos;) {
    for_each_value_name(inputs[i], [&](const std::string& name, ValueKind) {
      Value* v = d_->lookup(name);
      if (v && v->input_index == static_cast<int32_t>(i)) v->input_index = static_cast<int32_t>(i + 1);
    });
  }
  inputs.insert(inputs.begin() + static_cast<std::ptrdiff_t>(pos), std::move(arg));
  for_each_value_name(inputs[pos], [&](const std::string& name, ValueKind kind) {
    Value& v = d_->get_or_create(name, kind);
    ++v.def_count;
    GraphData::count_ref(v, kind, 1);
    if (v.input_index < 0 || v.input_index > static_cast<int32_t>(pos)) v.input_index = static_cast<int32_t>(pos);
  });
}

void Graph::erase_input(size_t pos) {
  d_->changed = true;
  auto& inputs = d_->inputs;
  if (pos >= inputs.size()) return;
  Argument removed = std::move(inputs[pos]);
  inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(pos));
  for (size_t i = pos; i < inputs.size(); ++i) {
    for_each_value_name(inputs[i], [&](const std::string& name, ValueKind) {
      Value* v = d_->lookup(name);
      if (v && v->input_index == static_cast<int32_t>(i + 1)) v->input_index = static_cast<int32_t>(i);
    });
  }
  for_each_value_name(removed, [&](const std::string& name, ValueKind kind) {
    Value* v = d_->lookup(name);
    if (!v) return;
    if (v->def_count > 0) --v->def_count;
    GraphData::count_ref(*v, kind, -1);
    if (v->input_index == static_cast<int32_t>(pos)) {
      v->input_index = -1;
      // Defined again by a later input (an invalid but representable graph)?
      for (size_t i = 0; i < inputs.size() && v->input_index < 0 && v->def_count > 0; ++i) {
        for_each_value_name(inputs[i], [&](const std::string& n, ValueKind) {
          if (n == name && v->input_index < 0) v->input_index = static_cast<int32_t>(i);
        });
      }
    }
    d_->maybe_collect(*v, false);
  });
}

void Graph::set_outputs(std::vector<Argument> outputs) {
  d_->unregister_outputs();
  std::vector<Argument> old = std::move(d_->outputs);
  d_->outputs = std::move(outputs);
  d_->register_outputs();
  d_->collect_names(old);
}

void Graph::set_output(size_t index, Argument arg) {
  std::vector<Argument> out = d_->outputs;
  out.at(index) = std::move(arg);
  set_outputs(std::move(out));
}

void Graph::add_output(Argument arg) {
  std::vector<Argument> out = d_->outputs;
  out.push_back(std::move(arg));
  set_outputs(std::move(out));
}

// ---------------------------------------------------------------- Graph: nodes

Graph::NodeList::iterator Graph::begin() { return d_->nodes.begin(); }
Graph::NodeList::iterator Graph::end() { return d_->nodes.end(); }
Graph::NodeList::const_iterator Graph::begin() const { return d_->nodes.begin(); }
Graph::NodeList::const_iterator Graph::end() const { return d_->nodes.end(); }
size_t Graph::num_nodes() const { return d_->nodes.size(); }
bool Graph::empty() const { return d_->nodes.empty(); }
bool Graph::has_nested_graphs() const { return d_->graph_args > 0; }
NodeId Graph::node_id_bound() const { return d_->next_id; }
uint64_t Graph::revision() const {
  if (d_->changed) {
    d_->revision = fresh_revision();
    d_->changed = false;
  }
  return d_->revision;
}
Node* Graph::first_node() { return d_->nodes.empty() ? nullptr : &d_->nodes.front(); }
Node* Graph::last_node() { return d_->nodes.empty() ? nullptr : &d_->nodes.back(); }
const Node* Graph::first_node() const { return d_->nodes.empty() ? nullptr : &d_->nodes.front(); }
const Node* Graph::last_node() const { return d_->nodes.empty() ? nullptr : &d_->nodes.back(); }

std::vector<Node*> Graph::node_snapshot() {
  if (!d_->snapshot_valid) {
    d_->snapshot.clear();
    d_->snapshot.reserve(d_->nodes.size());
    for (Node& n : d_->nodes) d_->snapshot.push_back(&n);
    d_->snapshot_valid = true;
  }
  return d_->snapshot;
}

Node* Graph::next(const Node& n) {
  auto it = std::next(n.self_);
  return it == d_->nodes.end() ? nullptr : &*it;
}

Node* Graph::prev(const Node& n) {
  if (n.self_ == d_->nodes.begin()) return nullptr;
  return &*std::prev(n.self_);
}

bool Graph::is_before(const Node& a, const Node& b) const {
  if (d_->order_dirty) d_->renumber();
  return a.order_ < b.order_;
}

uint64_t Graph::position(const Node& n) const {
  if (d_->order_dirty) d_->renumber();
  return n.order_;
}

Node& Graph::append(Node node) {
  d_->snapshot_valid = false;
  auto it = d_->nodes.emplace(d_->nodes.end(), std::move(node));
  d_->attach(*it, it);
  return *it;
}

Node& GraphLoader::place(Graph& g) { return g.d_->place(); }

void GraphLoader::attach(Graph& g, Node& n) { g.d_->attach_placed(n); }

Node& Graph::insert_before(Node& pos, Node node) {
  d_->snapshot_valid = false;
  auto it = d_->nodes.emplace(pos.self_, std::move(node));
  d_->attach(*it, it);
  return *it;
}

Node& Graph::insert_after(Node& pos, Node node) {
  d_->snapshot_valid = false;
  auto it = d_->nodes.emplace(std::next(pos.self_), std::move(node));
  d_->attach(*it, it);
  return *it;
}

void Graph::move_before(Node& node, Node& pos) {
  if (&node == &pos) return;
  d_->changed = true;
  d_->snapshot_valid = false;
  d_->nodes.splice(pos.self_, d_->nodes, node.self_);
  d_->assign_order(node);
}

void Graph::move_after(Node& node, Node& pos) {
  if (&node == &pos) return;
  d_->changed = true;
  d_->snapshot_valid = false;
  d_->nodes.splice(std::next(pos.self_), d_->nodes, node.self_);
  d_->assign_order(node);
}

Status Graph::erase(Node& node) {
  std::string message;
  for_each_output_name(node.outputs_, [&](const std::string& name, ValueKind) {
    const Value* v = d_->lookup(name);
    if (!message.empty() || !v || v->producer != &node) return;
    if (!v->uses.empty()) {
      message = "cannot erase node '" + node.name_ + "': its value '" + name + "' is still used by node '" +
                v->uses.front()->name_ + "'";
    } else if (v->output_uses > 0) {
      message = "cannot erase node '" + node.name_ + "': its value '" + name + "' is a graph output";
    }
  });
  if (!message.empty()) {
    Location where;
    where.node = node.name_;
    return make_error(ErrorCode::INVALID_GRAPH, std::move(message), where);
  }
  d_->unregister_uses(node);
  d_->unregister_defs(node, /*drop_meta=*/true);
  if (d_->node_index_built) {
    auto idx = d_->node_index.find(std::string_view(node.name_));
    if (idx != d_->node_index.end() && idx->second == &node) d_->node_index.erase(idx);
  }
  d_->name_freed(node.name_);
  d_->snapshot_valid = false;
  d_->nodes.erase(node.self_);
  return Status::Ok();
}

Node* Graph::find_node(std::string_view name) {
  d_->ensure_node_index();
  auto it = d_->node_index.find(name);
  return it == d_->node_index.end() ? nullptr : it->second;
}

const Node* Graph::find_node(std::string_view name) const {
  d_->ensure_node_index();
  auto it = d_->node_index.find(name);
  return it == d_->node_index.end() ? nullptr : it->second;
}

// ---------------------------------------------------------------- Graph: equality

bool Graph::operator==(const Graph& o) const {
  if (d_->inputs != o.d_->inputs || d_->outputs != o.d_->outputs ||
      d_->single_tensor_return != o.d_->single_tensor_return) {
    return false;
  }
  if (d_->nodes.size() != o.d_->nodes.size()) return false;
  for (auto a = d_->nodes.begin(), b = o.d_->nodes.begin(); a != d_->nodes.end(); ++a, ++b) {
    if (!a->same_as(*b)) return false;
  }
  // Metadata tables, each in table order.
  for (ValueKind k : {ValueKind::Tensor, ValueKind::SymInt, ValueKind::SymFloat, ValueKind::SymBool,
                      ValueKind::CustomObj}) {
    auto mine = table(k);
    auto theirs = o.table(k);
    if (mine.size() != theirs.size()) return false;
    for (size_t i = 0; i < mine.size(); ++i) {
      if (mine[i]->name != theirs[i]->name || !(mine[i]->meta == theirs[i]->meta)) return false;
    }
  }
  return true;
}

}  // namespace pteforge::ir
