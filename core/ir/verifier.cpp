// IR verifier (see verifier.h).
#include "ir/verifier.h"

#include <map>
#include <optional>
#include <span>
#include <unordered_set>

#include "ir/printer.h"

namespace pteforge::ir {
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

class GraphVerifier {
 public:
  GraphVerifier(const Graph& g, const VerifyOptions& options)
      : g_(g), options_(options), defined_(g.value_slots(), 0) {
    if (g.json_pointer()) base_ = *g.json_pointer();
  }

  Status run() {
    for (size_t i = 0; i < g_.inputs().size(); ++i) {
      const Argument& a = g_.inputs()[i];
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        st = define(name, kind, nullptr, [&] {
          return pointer(base_ + "/inputs/" + std::to_string(i) + argument_name_pointer(a, name));
        });
      });
      PTEFORGE_TRY(st);
    }
    for (const Node& n : g_) PTEFORGE_TRY(check_node(n));
    for (size_t j = 0; j < g_.outputs().size(); ++j) {
      const Argument& a = g_.outputs()[j];
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        const Value* v = g_.find_value(name);
        auto ptr = [&] { return pointer(base_ + "/outputs/" + std::to_string(j) + argument_name_pointer(a, name)); };
        if (v && defined_[v->id()]) {
          st = check_kind(*v, kind, nullptr, ptr);
          return;
        }
        Location where;
        where.pointer = ptr();
        st = make_error(ErrorCode::INVALID_GRAPH,
                        "graph output " + std::to_string(j) + " names " + single_quoted(name) + ", which is not defined",
                        where);
      });
      PTEFORGE_TRY(st);
    }
    return check_metadata();
  }

 private:
  std::optional<std::string> pointer(std::string p) const {
    if (!g_.json_pointer()) return std::nullopt;
    return p;
  }

  static Location at(const Node* node, std::optional<std::string> ptr) {
    Location where;
    if (node) where = node_location(*node);
    where.pointer = std::move(ptr);
    return where;
  }

  Location at_node(const Node& n, const std::string& suffix) const {
    Location where = node_location(n);
    if (where.pointer) *where.pointer += suffix;
    return where;
  }

  template <typename Ptr>
  Status define(const std::string& name, ValueKind kind, const Node* node, Ptr&& ptr) {
    const Value* v = g_.find_value(name);
    if (!v) {  // every defined name is in the table; only a corrupted table gets here
      return make_error(ErrorCode::INTERNAL, "value " + single_quoted(name) + " is missing from the value table",
                        at(node, ptr()));
    }
    if (defined_[v->id()]) {
      return make_error(ErrorCode::INVALID_GRAPH, "value " + single_quoted(name) + " is defined more than once",
                        at(node, ptr()));
    }
    defined_[v->id()] = 1;
    if (v->has_meta() && v->kind != kind && kind != ValueKind::Unknown) {
      return make_error(ErrorCode::INVALID_GRAPH,
                        "value " + single_quoted(name) + " is defined as a " + std::string(value_kind_name(kind)) +
                            " but its metadata says " + std::string(value_kind_name(v->kind)),
                        at(node, ptr()));
    }
    if (kind == ValueKind::Tensor && options_.require_tensor_meta && !v->tensor_meta()) {
      return make_error(ErrorCode::INVALID_GRAPH,
                        "tensor value " + single_quoted(name) + " has no metadata (no tensor_values entry)", at(node, ptr()));
    }
    return Status::Ok();
  }

  template <typename Ptr>
  Status check_kind(const Value& v, ValueKind used_as, const Node* node, Ptr&& ptr) const {
    if (v.kind == ValueKind::Unknown || used_as == ValueKind::Unknown || v.kind == used_as) return Status::Ok();
    return make_error(ErrorCode::INVALID_GRAPH,
                      "value " + single_quoted(v.name) + " is a " + std::string(value_kind_name(v.kind)) +
                          " but is used as a " + std::string(value_kind_name(used_as)),
                      at(node, ptr()));
  }

  Status check_node(const Node& n) {
    if (n.name().empty()) {
      return make_error(ErrorCode::INVALID_GRAPH, "node calling " + std::string(n.target().str()) + " has no name",
                        at_node(n, ""));
    }
    if (!node_names_.emplace(n.name()).second) {
      return make_error(ErrorCode::INVALID_GRAPH, "node name " + single_quoted(n.name()) + " is used by more than one node",
                        at_node(n, "/name"));
    }
    if (n.target().empty()) {
      return make_error(ErrorCode::INVALID_GRAPH, "node " + single_quoted(n.name()) + " has no target", at_node(n, "/target"));
    }
    if (!n.target().well_formed()) {
      return make_error(
          ErrorCode::INVALID_GRAPH,
          "node " + single_quoted(n.name()) + ": target " + single_quoted(n.target().str()) +
              " is not a callable torch.export writes (expected torch.ops.<namespace>.<op>.<overload>, "
              "torch.ops.higher_order.<op>, a Python function <module>.<name>, or #<namespace>:<op>)",
          at_node(n, "/target"));
    }
    for (size_t k = 0; k < n.inputs().size(); ++k) {
      const Argument& a = n.inputs()[k].arg;
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        auto ptr = [&] {
          return at_node(n, "/inputs/" + std::to_string(k) + "/arg" + argument_name_pointer(a, name)).pointer;
        };
        const Value* v = g_.find_value(name);
        if (v && defined_[v->id()]) {
          st = check_kind(*v, kind, &n, ptr);
          return;
        }
        std::string message;
        if (v && v->producer) {
          message = "node " + single_quoted(n.name()) + " uses " + single_quoted(name) + " before its definition by node " +
                    single_quoted(v->producer->name());
        } else if (v && v->has_meta()) {
          message = "node " + single_quoted(n.name()) + " uses " + single_quoted(name) +
                    ", which has metadata but is defined by no graph input or node";
        } else {
          message = "node " + single_quoted(n.name()) + " uses " + single_quoted(name) +
                    ", which is not defined anywhere (dangling name)";
        }
        st = make_error(ErrorCode::INVALID_GRAPH, std::move(message), at(&n, ptr()));
      });
      PTEFORGE_TRY(st);
      PTEFORGE_TRY(check_subgraphs(a));
    }
    for (size_t j = 0; j < n.outputs().size(); ++j) {
      const Argument& a = n.outputs()[j];
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        st = define(name, kind, &n, [&] {
          return at_node(n, "/outputs/" + std::to_string(j) + argument_name_pointer(a, name)).pointer;
        });
      });
      PTEFORGE_TRY(st);
    }
    return Status::Ok();
  }

  Status check_subgraphs(const Argument& a) {
    if (const GraphArgument* ga = a.get_if<ArgTag::Graph>()) return verify_graph(*ga->graph, options_);
    if (const StringToArgument* sa = a.get_if<ArgTag::StringToArgument>()) {
      for (const auto& entry : sa->entries) PTEFORGE_TRY(check_subgraphs(entry.second));
    }
    return Status::Ok();
  }

  Status check_metadata() {
    Status st = Status::Ok();
    g_.for_each_value([&](const Value& v) {
      if (!st.ok()) return;
      const TensorMeta* m = v.tensor_meta();
      if (!m) return;
      auto ptr = [&] { return base_ + "/tensor_values/" + escape_token(v.name); };
      if (scalar_type_name(m->dtype) == "unknown") {
        Location where;
        where.pointer = pointer(ptr() + "/dtype");
        st = make_error(ErrorCode::INVALID_GRAPH,
                        "tensor value " + single_quoted(v.name) + " has an unknown dtype (" +
                            std::to_string(static_cast<int>(m->dtype)) + ")",
                        where);
        return;
      }
      for (size_t i = 0; i < m->sizes.size(); ++i) {
        if (m->sizes[i].is_concrete() && m->sizes[i].value() < 0) {
          Location where;
          where.pointer = pointer(ptr() + "/sizes/" + std::to_string(i));
          st = make_error(ErrorCode::INVALID_GRAPH,
                          "tensor value " + single_quoted(v.name) + " has a negative size " +
                              std::to_string(m->sizes[i].value()),
                          where);
          return;
        }
      }
    });
    return st;
  }

  const Graph& g_;
  const VerifyOptions& options_;
  std::string base_;
  std::vector<uint8_t> defined_;  // by Value::id()
  std::unordered_set<std::string_view> node_names_;
};

/// The same invariants as GraphVerifier, checked from the value table without
/// per-reference lookups: true when the graph is valid. When it says no, the
/// document-order walk above finds and describes the first problem.
bool fast_check(const Graph& g, const VerifyOptions& options) {
  // Nodes: names, targets, subgraphs.
  std::unordered_set<std::string_view> special_names;  // nodes not named after their single output
  for (const Node& n : g) {
    if (n.name().empty() || !n.target().well_formed()) return false;
    const std::string* single = n.single_output();
    if (!single || *single != n.name()) {
      if (!special_names.emplace(n.name()).second) return false;
      // A node named after its single output defines a value of that name.
      const Value* v = g.find_value(n.name());
      if (v && v->producer && v->producer != &n && v->producer->name() == n.name()) return false;
    }
    for (const NamedArgument& na : n.inputs()) {
      if (na.arg.tag() == ArgTag::Graph || na.arg.tag() == ArgTag::StringToArgument) {
        bool ok = true;
        std::vector<const Argument*> stack = {&na.arg};
        while (!stack.empty() && ok) {
          const Argument* a = stack.back();
          stack.pop_back();
          if (const GraphArgument* ga = a->get_if<ArgTag::Graph>()) ok = fast_check(*ga->graph, options);
          if (const StringToArgument* sa = a->get_if<ArgTag::StringToArgument>()) {
            for (const auto& e : sa->entries) stack.push_back(&e.second);
          }
        }
        if (!ok) return false;
      }
    }
  }
  // Values: defined once, before every use, referenced with one kind, with valid metadata.
  bool ok = true;
  g.for_each_value([&](const Value& v) {
    if (!ok) return;
    if (v.def_count > 1) ok = false;
    if (v.def_count == 0 && (!v.uses.empty() || v.output_uses > 0)) ok = false;
    if (v.producer) {
      for (const Node* u : v.uses) {
        if (!g.is_before(*v.producer, *u)) ok = false;
      }
    }
    // Kinds: metadata kind (or the first kind seen) must be the only one referenced.
    for (size_t k = 1; k < kValueKindCount; ++k) {
      auto kind = static_cast<ValueKind>(k);
      if (kind != v.kind && v.refs_as(kind) > 0) ok = false;
    }
    if (options.require_tensor_meta && v.def_count > 0 && v.refs_as(ValueKind::Tensor) > 0 && !v.tensor_meta()) {
      ok = false;
    }
    if (const TensorMeta* m = v.tensor_meta()) {
      if (scalar_type_name(m->dtype) == "unknown") ok = false;
      for (const auto& s : m->sizes) {
        if (s.is_concrete() && s.value() < 0) ok = false;
      }
    }
  });
  return ok;
}

/// False when `src` provably does not broadcast to `dst`'s shape (PyTorch's
/// expand rule: at most dst's rank, each trailing size equal or 1); symbolic
/// sizes that differ are given the benefit of the doubt.
bool may_broadcast_to(const TensorMeta& src, const TensorMeta& dst) {
  if (src.sizes.size() > dst.sizes.size()) return false;
  const size_t lead = dst.sizes.size() - src.sizes.size();
  for (size_t i = 0; i < src.sizes.size(); ++i) {
    const SymInt& a = src.sizes[i];
    const SymInt& b = dst.sizes[lead + i];
    if (a.is_concrete() && b.is_concrete() && a.value() != b.value() && a.value() != 1) return false;
  }
  return true;
}

/// False when `a` and `b` provably differ in shape (rank, or two concrete
/// sizes); symbolic sizes that differ are given the benefit of the doubt.
bool may_have_same_sizes(const TensorMeta& a, const TensorMeta& b) {
  if (a.sizes.size() != b.sizes.size()) return false;
  for (size_t i = 0; i < a.sizes.size(); ++i) {
    const SymInt& x = a.sizes[i];
    const SymInt& y = b.sizes[i];
    if (x.is_concrete() && y.is_concrete() && x.value() != y.value()) return false;
  }
  return true;
}

Status signature_error(const std::string& ptr, std::string message) {
  Location where;
  where.pointer = ptr;
  return make_error(ErrorCode::INVALID_GRAPH, std::move(message), where);
}

}  // namespace

Location node_location(const Node& node) {
  Location where;
  if (!node.name().empty()) where.node = node.name();
  if (node.origin().known()) where.pointer = node.origin().pointer();
  std::string source = node.metadata().source();
  if (!source.empty()) where.source = std::move(source);
  return where;
}

Status verify_graph(const Graph& graph, const VerifyOptions& options) {
  if (fast_check(graph, options)) return Status::Ok();
  GraphVerifier v(graph, options);
  Status st = v.run();
  if (st.ok()) {
    return make_error(ErrorCode::INTERNAL,
                      "the verifier's two checks disagree about this graph: please report this with the input");
  }
  return st;
}

Status verify_graph_detailed(const Graph& graph, const VerifyOptions& options) {
  GraphVerifier v(graph, options);
  return v.run();
}

Status verify_program(const ExportedProgram& ep, const VerifyOptions& options) {
  PTEFORGE_TRY(verify_graph(ep.graph(), options));
  const Graph& g = ep.graph();
  const auto& ins = ep.signature().input_specs;
  const auto& outs = ep.signature().output_specs;
  const std::string sig = "/graph_module/signature";
  if (ins.size() != g.inputs().size()) {
    return signature_error(sig + "/input_specs", "the signature has " + std::to_string(ins.size()) +
                                                     " input specs but the graph has " +
                                                     std::to_string(g.inputs().size()) + " inputs");
  }
  if (outs.size() != g.outputs().size()) {
    return signature_error(sig + "/output_specs", "the signature has " + std::to_string(outs.size()) +
                                                      " output specs but the graph has " +
                                                      std::to_string(g.outputs().size()) + " outputs");
  }
  for (size_t i = 0; i < ins.size(); ++i) {
    const InputSpec& s = ins[i];
    const Argument& in = g.inputs()[i];
    std::string ptr = sig + "/input_specs/" + std::to_string(i);
    bool ok = true;
    if (s.kind == InputKind::ConstantInput) {
      ok = in == s.arg;
    } else {
      const std::string* n = in.value_name();
      ok = n && *n == s.name();
      if (ok && (s.is_state() || s.kind == InputKind::Token)) ok = in.is_tensor();
    }
    if (!ok) {
      return signature_error(ptr, "input spec " + std::to_string(i) + " (" + std::string(input_kind_name(s.kind)) +
                                      " " + single_quoted(s.name()) + ") does not match graph input " +
                                      std::to_string(i) + " (" + print_argument(in) + ")");
    }
  }
  for (size_t j = 0; j < outs.size(); ++j) {
    const OutputSpec& s = outs[j];
    const Argument& out = g.outputs()[j];
    bool ok = s.kind == OutputKind::UserOutput ? out == s.arg
                                               : (out.is_tensor() && out.tensor_name() == s.name());
    if (!ok) {
      return signature_error(sig + "/output_specs/" + std::to_string(j),
                             "output spec " + std::to_string(j) + " (" + std::string(output_kind_name(s.kind)) + " " +
                                 print_argument(s.arg) + ") does not match graph output " + std::to_string(j) + " (" +
                                 print_argument(out) + ")");
    }
  }
  return Status::Ok();
}

namespace {

/// The input kind an output spec's target must name, or nullopt when its
/// target is not checked.
std::optional<InputKind> output_target_names(OutputKind k) {
  switch (k) {
    case OutputKind::BufferMutation:
      return InputKind::Buffer;
    case OutputKind::GradientToParameter:
    case OutputKind::ParameterMutation:
      return InputKind::Parameter;
    // Not GradientToUserInput: torch's joint export (joint_loss_index) writes
    // aot_export's name of the input there, which need not be the placeholder's.
    case OutputKind::UserInputMutation:
      return InputKind::UserInput;
    default:
      return std::nullopt;
  }
}

std::string_view kind_noun(InputKind k) {
  switch (k) {
    case InputKind::Parameter:
      return "parameter";
    case InputKind::Buffer:
      return "buffer";
    case InputKind::TensorConstant:
      return "tensor constant";
    case InputKind::CustomObj:
      return "custom object";
    case InputKind::UserInput:
      return "user input";
    default:
      return "input";
  }
}

}  // namespace

Status verify_signature_targets(const ExportedProgram& ep) {
  const auto& ins = ep.signature().input_specs;
  const auto& outs = ep.signature().output_specs;
  const std::string sig = "/graph_module/signature";
  // target (state FQN, or a user input's placeholder name) -> input spec index
  std::map<std::string, size_t, std::less<>> state, user;
  for (size_t i = 0; i < ins.size(); ++i) {
    const InputSpec& s = ins[i];
    if (s.kind == InputKind::UserInput) {
      if (!s.name().empty()) user.emplace(std::string(s.name()), i);
      continue;
    }
    const std::string_view field = input_target_field(s.kind);
    if (field.empty()) continue;
    auto [it, inserted] = state.emplace(s.target, i);
    if (!inserted) {
      const InputSpec& first = ins[it->second];
      return signature_error(sig + "/input_specs/" + std::to_string(i) + "/" +
                                 std::string(input_kind_name(s.kind)) + "/" + std::string(field),
                             "input spec " + std::to_string(i) + " binds " + std::string(kind_noun(s.kind)) +
                                 " " + single_quoted(s.target) + ", which input spec " +
                                 std::to_string(it->second) + " (" + std::string(kind_noun(first.kind)) +
                                 " " + single_quoted(first.name()) +
                                 ") already binds: each parameter, buffer and constant is one graph input");
    }
  }
  std::map<std::pair<OutputKind, std::string>, size_t> seen;
  for (size_t j = 0; j < outs.size(); ++j) {
    const OutputSpec& s = outs[j];
    const std::optional<InputKind> names = output_target_names(s.kind);
    if (!names) continue;
    const std::string ptr = sig + "/output_specs/" + std::to_string(j) + "/" +
                            std::string(output_kind_name(s.kind)) + "/" +
                            std::string(output_target_field(s.kind));
    const std::string what =
        "output spec " + std::to_string(j) + " (" + std::string(output_kind_name(s.kind)) + ")";
    const std::string noun(kind_noun(*names));
    if (*names == InputKind::UserInput) {
      if (!user.count(s.target)) {
        return signature_error(ptr, what + " names user input " + single_quoted(s.target) +
                                        ", but no user input of the graph has that name");
      }
    } else {
      auto it = state.find(s.target);
      if (it == state.end()) {
        return signature_error(ptr, what + " names " + noun + " " + single_quoted(s.target) +
                                        ", but the program has no " + noun +
                                        " of that name among its inputs");
      }
      const InputSpec& bound = ins[it->second];
      if (bound.kind != *names) {
        return signature_error(ptr, what + " names " + single_quoted(s.target) + ", which input spec " +
                                        std::to_string(it->second) + " binds as a " +
                                        std::string(kind_noun(bound.kind)) + ", not a " + noun);
      }
    }
    // A buffer or user-input mutation's value must broadcast to its target
    // (aten.copy_'s rule): the write-back copy_ ExecuTorch inserts for it is
    // re-traced, and fails, otherwise.
    const std::string target_value =
        *names == InputKind::UserInput ? s.target : std::string(ins[state.find(s.target)->second].name());
    const bool written_back = s.kind == OutputKind::BufferMutation || s.kind == OutputKind::UserInputMutation;
    const TensorMeta* dst = written_back ? ep.graph().tensor_meta(target_value) : nullptr;
    const TensorMeta* src = s.arg.is_tensor() ? ep.graph().tensor_meta(s.arg.tensor_name()) : nullptr;
    if (src && dst && !may_broadcast_to(*src, *dst)) {
      return signature_error(sig + "/output_specs/" + std::to_string(j),
                             what + " writes " + single_quoted(s.arg.tensor_name()) + " " +
                                 format_tensor_type(*src) + " into " + noun + " " + single_quoted(s.target) +
                                 " " + format_tensor_type(*dst) + ": the value must broadcast to the " +
                                 noun + "'s shape (the write-back copy_ would fail)");
    }
    auto [it, inserted] = seen.emplace(std::pair(s.kind, s.target), j);
    if (!inserted) {
      return signature_error(ptr, what + " names " + noun + " " + single_quoted(s.target) +
                                      ", which output spec " + std::to_string(it->second) +
                                      " already names: one " + std::string(output_kind_name(s.kind)) +
                                      " output per " + noun);
    }
    // A gradient has the dtype and shape of what it is the gradient of
    // (autograd's validate_outputs makes it so): the training runtime pairs
    // each gradient with its parameter, and an optimizer step on a mismatched
    // pair fails or corrupts the weights.
    const bool gradient =
        s.kind == OutputKind::GradientToParameter || s.kind == OutputKind::GradientToUserInput;
    const TensorMeta* of = gradient ? ep.graph().tensor_meta(target_value) : nullptr;
    if (src && of && (src->dtype != of->dtype || !may_have_same_sizes(*src, *of))) {
      return signature_error(sig + "/output_specs/" + std::to_string(j),
                             what + " gives " + single_quoted(s.arg.tensor_name()) + " " +
                                 format_tensor_type(*src) + " as the gradient of " + noun + " " +
                                 single_quoted(s.target) + " " + format_tensor_type(*of) +
                                 ": a gradient has the dtype and shape of its " + noun);
    }
  }
  return verify_output_order(ep);
}

Status verify_output_order(const ExportedProgram& ep) {
  std::span<const OutputSpec> outs = ep.signature().output_specs;
  auto is_user = [](OutputKind k) { return k == OutputKind::UserOutput || k == OutputKind::LossOutput; };
  if (ep.is_edge_dialect()) {
    // ExecuTorch's weights_to_outputs appends each trained parameter, as a
    // token output, after the gradients (executorch-pipeline.md §3.14): in a
    // lowered program those come last, outside torch's order.
    auto is_parameter = [&ep](std::string_view name) {
      for (const InputSpec& in : ep.signature().input_specs) {
        if (in.kind == InputKind::Parameter && in.name() == name) return true;
      }
      return false;
    };
    while (!outs.empty() && outs.back().kind == OutputKind::Token) {
      const size_t j = outs.size() - 1;
      if (!is_parameter(outs.back().name())) {
        return signature_error("/graph_module/signature/output_specs/" + std::to_string(j),
                               "output spec " + std::to_string(j) + " (token " +
                                   print_argument(outs.back().arg) +
                                   ") ends a lowered program's outputs, where only the parameters "
                                   "weights_to_outputs appends may come, but it names no parameter input");
      }
      outs = outs.first(j);
    }
  }
  size_t tokens = 0, mutations = 0, users = 0;
  for (const OutputSpec& s : outs) {
    tokens += s.kind == OutputKind::Token ? 1 : 0;
    mutations += is_mutation(s.kind) ? 1 : 0;
    users += is_user(s.kind) ? 1 : 0;
  }
  // torch's _verify_exported_program_signature: after the tokens come exactly
  // the mutations, then exactly the user outputs.
  for (size_t j = tokens; j < tokens + mutations + users && j < outs.size(); ++j) {
    const bool in_mutations = j < tokens + mutations;
    if (in_mutations ? is_mutation(outs[j].kind) : is_user(outs[j].kind)) continue;
    return signature_error(
        "/graph_module/signature/output_specs/" + std::to_string(j),
        "output spec " + std::to_string(j) + " (" + std::string(output_kind_name(outs[j].kind)) + " " +
            print_argument(outs[j].arg) + ") is out of order: with " + std::to_string(tokens) +
            " token output(s), " + std::to_string(mutations) + " mutation(s) and " + std::to_string(users) +
            " user output(s), output " + std::to_string(j) + " must be " +
            (in_mutations ? "a buffer, parameter or user-input mutation" : "a user output or the loss") +
            ". torch.export lists the outputs as tokens, mutations, user outputs, then gradients, and its "
            "verifier refuses any other order");
  }
  return Status::Ok();
}

}  // namespace pteforge::ir
