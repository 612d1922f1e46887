// Graph and Node mutators, and the value table they maintain (see graph.h).
#include "ir/graph.h"

#include <algorithm>

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

void Node::set_name(std::string name) {
  if (graph_) {
    graph_->rename_node(*this, std::move(name));
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
  if (graph_) graph_->unregister_uses(*this);
  inputs_ = std::move(inputs);
  if (graph_) graph_->register_uses(*this);
}

void Node::set_input(size_t index, Argument arg) {
  if (graph_) graph_->unregister_uses(*this);
  inputs_.at(index).arg = std::move(arg);
  if (graph_) graph_->register_uses(*this);
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
  if (graph_) graph_->unregister_uses(*this);
  inputs_.push_back(std::move(arg));
  if (graph_) graph_->register_uses(*this);
}

void Node::erase_input(size_t index) {
  if (graph_) graph_->unregister_uses(*this);
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(index));
  if (graph_) graph_->register_uses(*this);
}

void Node::set_outputs(std::vector<Argument> outputs) {
  if (graph_) graph_->unregister_defs(*this, /*drop_meta=*/false);
  outputs_ = std::move(outputs);
  if (graph_) graph_->register_defs(*this);
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

// ---------------------------------------------------------------- Graph: copy/move

Graph::Graph(const Graph& o) { copy_from(o); }

Graph& Graph::operator=(const Graph& o) {
  if (this != &o) {
    Graph tmp(o);
    *this = std::move(tmp);
  }
  return *this;
}

Graph::Graph(Graph&& o) noexcept
    : nodes_(std::move(o.nodes_)),
      inputs_(std::move(o.inputs_)),
      outputs_(std::move(o.outputs_)),
      single_tensor_return_(o.single_tensor_return_),
      values_(std::move(o.values_)),
      value_index_(std::move(o.value_index_)),
      node_index_(std::move(o.node_index_)),
      name_hints_(std::move(o.name_hints_)),
      next_id_(o.next_id_),
      order_dirty_(o.order_dirty_),
      json_pointer_(std::move(o.json_pointer_)) {
  fix_back_pointers();
  o.nodes_.clear();
  o.values_.clear();
  o.value_index_.clear();
  o.node_index_.clear();
  o.name_hints_.clear();
}

Graph& Graph::operator=(Graph&& o) noexcept {
  if (this == &o) return *this;
  nodes_ = std::move(o.nodes_);
  inputs_ = std::move(o.inputs_);
  outputs_ = std::move(o.outputs_);
  single_tensor_return_ = o.single_tensor_return_;
  values_ = std::move(o.values_);
  value_index_ = std::move(o.value_index_);
  node_index_ = std::move(o.node_index_);
  name_hints_ = std::move(o.name_hints_);
  next_id_ = o.next_id_;
  order_dirty_ = o.order_dirty_;
  json_pointer_ = std::move(o.json_pointer_);
  fix_back_pointers();
  o.nodes_.clear();
  o.values_.clear();
  o.value_index_.clear();
  o.node_index_.clear();
  o.name_hints_.clear();
  return *this;
}

void Graph::fix_back_pointers() {
  for (Node& n : nodes_) n.graph_ = this;
}

void Graph::copy_from(const Graph& o) {
  single_tensor_return_ = o.single_tensor_return_;
  json_pointer_ = o.json_pointer_;
  // Metadata first, in table order, so the copy writes its tables in the same order.
  for (const Value& v : o.values_) {
    if (v.live_ && v.has_meta()) set_meta(v.name, v.meta);
  }
  set_inputs(o.inputs_);
  for (const Node& n : o.nodes_) {
    Node& copy = append(Node(n));
    copy.id_ = n.id_;
  }
  next_id_ = o.next_id_;
  set_outputs(o.outputs_);
}

// ---------------------------------------------------------------- Graph: value table

Value* Graph::lookup(std::string_view name) const {
  auto it = value_index_.find(name);
  return it == value_index_.end() ? nullptr : it->second;
}

Value& Graph::get_or_create(std::string_view name, ValueKind kind) {
  if (Value* v = lookup(name)) {
    if (v->kind == ValueKind::Unknown) v->kind = kind;
    return *v;
  }
  Value& v = values_.emplace_back();
  v.name = std::string(name);
  v.kind = kind;
  value_index_.emplace(std::string_view(v.name), &v);
  return v;
}

void Graph::maybe_collect(Value& v, bool drop_meta) {
  if (v.def_count > 0 || !v.uses.empty() || v.output_uses > 0) return;
  if (v.has_meta() && !drop_meta) return;
  value_index_.erase(std::string_view(v.name));
  name_freed(v.name);
  v.live_ = false;
  v.meta = std::monostate();
  v.uses.clear();
  v.uses.shrink_to_fit();
  // Reclaim trailing dead entries (the common case when a pass undoes its last step).
  while (!values_.empty() && !values_.back().live_) values_.pop_back();
}

const Value* Graph::find_value(std::string_view name) const { return lookup(name); }

Node* Graph::producer(std::string_view name) const {
  const Value* v = lookup(name);
  return v ? v->producer : nullptr;
}

std::vector<Node*> Graph::users(std::string_view name) const {
  std::vector<Node*> out;
  const Value* v = lookup(name);
  if (!v) return out;
  for (Node* n : v->uses) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

size_t Graph::use_count(std::string_view name) const {
  const Value* v = lookup(name);
  return v ? v->uses.size() + v->output_uses : 0;
}

const TensorMeta* Graph::tensor_meta(std::string_view name) const {
  const Value* v = lookup(name);
  return v ? v->tensor_meta() : nullptr;
}

void Graph::set_meta(std::string_view name, ValueMeta meta) {
  ValueKind k = kind_of(meta);
  Value& v = get_or_create(name, k);
  v.meta = std::move(meta);
  if (k != ValueKind::Unknown) v.kind = k;
}

void Graph::set_tensor_meta(std::string_view name, TensorMeta meta) { set_meta(name, std::move(meta)); }
void Graph::set_sym_int(std::string_view name, SymInt value) { set_meta(name, std::move(value)); }
void Graph::set_sym_float(std::string_view name, SymFloat value) { set_meta(name, std::move(value)); }
void Graph::set_sym_bool(std::string_view name, SymBool value) { set_meta(name, std::move(value)); }
void Graph::set_custom_obj(std::string_view name, CustomObjArgument value) { set_meta(name, std::move(value)); }

void Graph::clear_meta(std::string_view name) {
  if (Value* v = lookup(name)) {
    v->meta = std::monostate();
    maybe_collect(*v, true);
  }
}

size_t Graph::replace_all_uses(std::string_view from, std::string_view to) {
  if (from == to) return 0;
  Value* src = lookup(from);
  if (!src) return 0;
  const std::string from_name = src->name;  // `from` may view into the value being rewritten
  const std::string to_name(to);
  size_t count = 0;
  std::vector<Node*> users = this->users(from_name);
  for (Node* n : users) {
    unregister_uses(*n);
    for (NamedArgument& na : n->inputs_) {
      for_each_value_name_mut(na.arg, [&](std::string& name, ValueKind) {
        if (name == from_name) {
          name = to_name;
          ++count;
        }
      });
    }
    register_uses(*n);
  }
  bool outputs_changed = false;
  for (const Argument& a : outputs_) {
    for_each_value_name(a, [&](const std::string& name, ValueKind) { outputs_changed |= name == from_name; });
  }
  if (outputs_changed) {
    std::vector<Argument> outs = outputs_;
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
  auto taken = [this](std::string_view n) { return lookup(n) != nullptr || node_index_.count(n) > 0; };
  if (!base.empty() && !taken(base)) return std::string(base);
  std::string stem(base.empty() ? std::string_view("v") : base);
  size_t& hint = name_hints_[stem];
  for (size_t i = std::max<size_t>(hint, 1);; ++i) {
    std::string candidate = stem + "_" + std::to_string(i);
    if (!taken(candidate)) {
      hint = i;  // stem_1 .. stem_(i-1) are taken
      return candidate;
    }
  }
}

void Graph::name_freed(std::string_view name) {
  if (name_hints_.empty()) return;
  size_t us = name.rfind('_');
  if (us == std::string_view::npos || us + 1 >= name.size() || name.size() - us > 19) return;
  size_t k = 0;
  for (size_t i = us + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return;
    k = k * 10 + static_cast<size_t>(name[i] - '0');
  }
  auto it = name_hints_.find(std::string(name.substr(0, us)));
  if (it != name_hints_.end() && k < it->second) it->second = k;
}

// ---------------------------------------------------------------- Graph: registration

void Graph::register_uses(Node& node) {
  for_each_input_name(node.inputs_, [&](const std::string& name, ValueKind kind) {
    get_or_create(name, kind).uses.push_back(&node);
  });
}

void Graph::unregister_uses(Node& node) {
  for_each_input_name(node.inputs_, [&](const std::string& name, ValueKind) {
    Value* v = lookup(name);
    if (!v) return;
    auto it = std::find(v->uses.begin(), v->uses.end(), &node);
    if (it != v->uses.end()) v->uses.erase(it);
    maybe_collect(*v, false);
  });
}

void Graph::register_defs(Node& node) {
  for_each_output_name(node.outputs_, [&](const std::string& name, ValueKind kind) {
    Value& v = get_or_create(name, kind);
    ++v.def_count;
    if (!v.producer && v.input_index < 0) v.producer = &node;
  });
}

void Graph::unregister_defs(Node& node, bool drop_meta) {
  for_each_output_name(node.outputs_, [&](const std::string& name, ValueKind) {
    Value* v = lookup(name);
    if (!v) return;
    if (v->def_count > 0) --v->def_count;
    if (v->producer == &node) v->producer = nullptr;
    maybe_collect(*v, drop_meta);
  });
}

void Graph::register_inputs() {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    for_each_value_name(inputs_[i], [&](const std::string& name, ValueKind kind) {
      Value& v = get_or_create(name, kind);
      ++v.def_count;
      if (v.input_index < 0) v.input_index = static_cast<int32_t>(i);
    });
  }
}

void Graph::unregister_inputs() {
  for (const Argument& a : inputs_) {
    for_each_value_name(a, [&](const std::string& name, ValueKind) {
      Value* v = lookup(name);
      if (!v) return;
      if (v->def_count > 0) --v->def_count;
      v->input_index = -1;
    });
  }
}

void Graph::register_outputs() {
  for (const Argument& a : outputs_) {
    for_each_value_name(a, [&](const std::string& name, ValueKind kind) { ++get_or_create(name, kind).output_uses; });
  }
}

void Graph::unregister_outputs() {
  for (const Argument& a : outputs_) {
    for_each_value_name(a, [&](const std::string& name, ValueKind) {
      if (Value* v = lookup(name)) {
        if (v->output_uses > 0) --v->output_uses;
      }
    });
  }
}

void Graph::set_inputs(std::vector<Argument> inputs) {
  unregister_inputs();
  std::vector<Argument> old = std::move(inputs_);
  inputs_ = std::move(inputs);
  register_inputs();
  // Names that only the old inputs defined may now be garbage.
  for (const Argument& a : old) {
    for_each_value_name(a, [&](const std::string& name, ValueKind) {
      if (Value* v = lookup(name)) maybe_collect(*v, false);
    });
  }
}

// insert_input / erase_input update the value table incrementally (only the
// inputs after `pos` move), so passes that add or remove one placeholder at a
// time near the end of a long input list stay linear.
void Graph::insert_input(size_t pos, Argument arg) {
  pos = std::min(pos, inputs_.size());
  // Later inputs move up by one; walk backwards so a value defined twice moves once.
  for (size_t i = inputs_.size(); i-- > pos;) {
    for_each_value_name(inputs_[i], [&](const std::string& name, ValueKind) {
      Value* v = lookup(name);
      if (v && v->input_index == static_cast<int32_t>(i)) v->input_index = static_cast<int32_t>(i + 1);
    });
  }
  inputs_.insert(inputs_.begin() + static_cast<std::ptrdiff_t>(pos), std::move(arg));
  for_each_value_name(inputs_[pos], [&](const std::string& name, ValueKind kind) {
    Value& v = get_or_create(name, kind);
    ++v.def_count;
    if (v.input_index < 0 || v.input_index > static_cast<int32_t>(pos)) v.input_index = static_cast<int32_t>(pos);
  });
}

void Graph::erase_input(size_t pos) {
  if (pos >= inputs_.size()) return;
  Argument removed = std::move(inputs_[pos]);
  inputs_.erase(inputs_.begin() + static_cast<std::ptrdiff_t>(pos));
  for (size_t i = pos; i < inputs_.size(); ++i) {
    for_each_value_name(inputs_[i], [&](const std::string& name, ValueKind) {
      Value* v = lookup(name);
      if (v && v->input_index == static_cast<int32_t>(i + 1)) v->input_index = static_cast<int32_t>(i);
    });
  }
  for_each_value_name(removed, [&](const std::string& name, ValueKind) {
    Value* v = lookup(name);
    if (!v) return;
    if (v->def_count > 0) --v->def_count;
    if (v->input_index == static_cast<int32_t>(pos)) {
      v->input_index = -1;
      // Defined again by a later input (an invalid but representable graph)?
      for (size_t i = 0; i < inputs_.size() && v->input_index < 0 && v->def_count > 0; ++i) {
        for_each_value_name(inputs_[i], [&](const std::string& n, ValueKind) {
          if (n == name && v->input_index < 0) v->input_index = static_cast<int32_t>(i);
        });
      }
    }
    maybe_collect(*v, false);
  });
}

void Graph::set_outputs(std::vector<Argument> outputs) {
  unregister_outputs();
  std::vector<Argument> old = std::move(outputs_);
  outputs_ = std::move(outputs);
  register_outputs();
  for (const Argument& a : old) {
    for_each_value_name(a, [&](const std::string& name, ValueKind) {
      if (Value* v = lookup(name)) maybe_collect(*v, false);
    });
  }
}

void Graph::set_output(size_t index, Argument arg) {
  std::vector<Argument> out = outputs_;
  out.at(index) = std::move(arg);
  set_outputs(std::move(out));
}

void Graph::add_output(Argument arg) {
  std::vector<Argument> out = outputs_;
  out.push_back(std::move(arg));
  set_outputs(std::move(out));
}

// ---------------------------------------------------------------- Graph: nodes

std::vector<Node*> Graph::node_snapshot() {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (Node& n : nodes_) out.push_back(&n);
  return out;
}

Node* Graph::next(const Node& n) {
  auto it = std::next(n.self_);
  return it == nodes_.end() ? nullptr : &*it;
}

Node* Graph::prev(const Node& n) {
  if (n.self_ == nodes_.begin()) return nullptr;
  return &*std::prev(n.self_);
}

void Graph::assign_order(Node& node) {
  auto it = node.self_;
  uint64_t lo = it == nodes_.begin() ? 0 : std::prev(it)->order_;
  auto nx = std::next(it);
  if (nx == nodes_.end()) {
    node.order_ = lo + kOrderGap;
    if (node.order_ < lo) order_dirty_ = true;  // wrapped around
    return;
  }
  uint64_t hi = nx->order_;
  if (hi > lo + 1) {
    node.order_ = lo + (hi - lo) / 2;
  } else {
    order_dirty_ = true;
  }
}

void Graph::renumber() const {
  uint64_t o = 0;
  for (const Node& n : nodes_) {
    o += kOrderGap;
    n.order_ = o;
  }
  order_dirty_ = false;
}

bool Graph::is_before(const Node& a, const Node& b) const {
  if (order_dirty_) renumber();
  return a.order_ < b.order_;
}

void Graph::attach(Node& node, NodeList::iterator it) {
  node.graph_ = this;
  node.self_ = it;
  node.id_ = next_id_++;
  assign_order(node);
  if (!node.name_.empty()) node_index_.emplace(std::string_view(node.name_), &node);
  register_uses(node);
  register_defs(node);
}

Node& Graph::append(Node node) {
  auto it = nodes_.emplace(nodes_.end(), std::move(node));
  attach(*it, it);
  return *it;
}

Node& Graph::insert_before(Node& pos, Node node) {
  auto it = nodes_.emplace(pos.self_, std::move(node));
  attach(*it, it);
  return *it;
}

Node& Graph::insert_after(Node& pos, Node node) {
  auto it = nodes_.emplace(std::next(pos.self_), std::move(node));
  attach(*it, it);
  return *it;
}

void Graph::move_before(Node& node, Node& pos) {
  if (&node == &pos) return;
  nodes_.splice(pos.self_, nodes_, node.self_);
  assign_order(node);
}

void Graph::move_after(Node& node, Node& pos) {
  if (&node == &pos) return;
  nodes_.splice(std::next(pos.self_), nodes_, node.self_);
  assign_order(node);
}

Status Graph::erase(Node& node) {
  std::string message;
  for_each_output_name(node.outputs_, [&](const std::string& name, ValueKind) {
    const Value* v = lookup(name);
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
  unregister_uses(node);
  unregister_defs(node, /*drop_meta=*/true);
  auto idx = node_index_.find(std::string_view(node.name_));
  if (idx != node_index_.end() && idx->second == &node) {
    node_index_.erase(idx);
    name_freed(node.name_);
  }
  nodes_.erase(node.self_);
  return Status::Ok();
}

Node* Graph::find_node(std::string_view name) {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? nullptr : it->second;
}

const Node* Graph::find_node(std::string_view name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? nullptr : it->second;
}

void Graph::rename_node(Node& node, std::string name) {
  auto idx = node_index_.find(std::string_view(node.name_));
  if (idx != node_index_.end() && idx->second == &node) {
    node_index_.erase(idx);
    name_freed(node.name_);
  }
  node.name_ = std::move(name);
  if (!node.name_.empty()) node_index_.emplace(std::string_view(node.name_), &node);
}

// ---------------------------------------------------------------- Graph: equality

bool Graph::operator==(const Graph& o) const {
  if (inputs_ != o.inputs_ || outputs_ != o.outputs_ || single_tensor_return_ != o.single_tensor_return_) return false;
  if (nodes_.size() != o.nodes_.size()) return false;
  for (auto a = nodes_.begin(), b = o.nodes_.begin(); a != nodes_.end(); ++a, ++b) {
    if (!a->same_as(*b)) return false;
  }
  // Metadata tables, each in table order.
  auto collect = [](const Graph& g) {
    std::vector<const Value*> out;
    g.for_each_value([&out](const Value& v) {
      if (v.has_meta()) out.push_back(&v);
    });
    std::stable_sort(out.begin(), out.end(),
                     [](const Value* x, const Value* y) { return x->meta.index() < y->meta.index(); });
    return out;
  };
  auto mine = collect(*this);
  auto theirs = collect(o);
  if (mine.size() != theirs.size()) return false;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (mine[i]->name != theirs[i]->name || !(mine[i]->meta == theirs[i]->meta)) return false;
  }
  return true;
}

}  // namespace pteforge::ir
