// IR verifier (see verifier.h).
#include "ir/verifier.h"

#include <unordered_map>
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

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

class GraphVerifier {
 public:
  GraphVerifier(const Graph& g, const VerifyOptions& options) : g_(g), options_(options) {
    if (g.json_pointer()) base_ = *g.json_pointer();
  }

  Status run() {
    // First definer of every node-defined name, to tell "used too early" from "never defined".
    for (const Node& n : g_) {
      for (std::string_view name : n.output_names()) later_.emplace(name, &n);
    }
    for (size_t i = 0; i < g_.inputs().size(); ++i) {
      const Argument& a = g_.inputs()[i];
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        st = define(name, kind, nullptr, pointer(base_ + "/inputs/" + std::to_string(i) + argument_name_pointer(a, name)));
      });
      PTEFORGE_TRY(st);
    }
    for (const Node& n : g_) PTEFORGE_TRY(check_node(n));
    for (size_t j = 0; j < g_.outputs().size(); ++j) {
      const Argument& a = g_.outputs()[j];
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok() || defined_.count(name)) {
          if (st.ok()) st = check_kind(name, kind, nullptr, base_ + "/outputs/" + std::to_string(j));
          return;
        }
        Location where;
        where.pointer = pointer(base_ + "/outputs/" + std::to_string(j) + argument_name_pointer(a, name));
        st = make_error(ErrorCode::INVALID_GRAPH,
                        "graph output " + std::to_string(j) + " names " + quoted(name) + ", which is not defined",
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

  Location at_node(const Node& n, const std::string& suffix) const {
    Location where = node_location(n);
    if (where.pointer) *where.pointer += suffix;
    return where;
  }

  Status define(const std::string& name, ValueKind kind, const Node* node, std::optional<std::string> ptr) {
    if (!defined_.emplace(name).second) {
      Location where;
      if (node) where = node_location(*node);
      where.pointer = std::move(ptr);
      return make_error(ErrorCode::INVALID_GRAPH, "value " + quoted(name) + " is defined more than once", where);
    }
    const Value* v = g_.find_value(name);
    if (v && v->has_meta() && v->kind != kind && kind != ValueKind::Unknown) {
      Location where;
      if (node) where = node_location(*node);
      where.pointer = std::move(ptr);
      return make_error(ErrorCode::INVALID_GRAPH,
                        "value " + quoted(name) + " is defined as a " + std::string(value_kind_name(kind)) +
                            " but its metadata says " + std::string(value_kind_name(v->kind)),
                        where);
    }
    if (kind == ValueKind::Tensor && options_.require_tensor_meta && (!v || !v->tensor_meta())) {
      Location where;
      if (node) where = node_location(*node);
      where.pointer = std::move(ptr);
      return make_error(ErrorCode::INVALID_GRAPH,
                        "tensor value " + quoted(name) + " has no metadata (no tensor_values entry)", where);
    }
    return Status::Ok();
  }

  Status check_kind(const std::string& name, ValueKind used_as, const Node* node, const std::string& ptr) {
    const Value* v = g_.find_value(name);
    if (!v || v->kind == ValueKind::Unknown || used_as == ValueKind::Unknown || v->kind == used_as) {
      return Status::Ok();
    }
    Location where;
    if (node) where = node_location(*node);
    where.pointer = pointer(ptr);
    return make_error(ErrorCode::INVALID_GRAPH,
                      "value " + quoted(name) + " is a " + std::string(value_kind_name(v->kind)) +
                          " but is used as a " + std::string(value_kind_name(used_as)),
                      where);
  }

  Status check_node(const Node& n) {
    if (n.name().empty()) {
      return make_error(ErrorCode::INVALID_GRAPH, "node calling " + std::string(n.target().str()) + " has no name",
                        at_node(n, ""));
    }
    if (!node_names_.emplace(n.name()).second) {
      return make_error(ErrorCode::INVALID_GRAPH, "node name " + quoted(n.name()) + " is used by more than one node",
                        at_node(n, "/name"));
    }
    if (n.target().empty()) {
      return make_error(ErrorCode::INVALID_GRAPH, "node " + quoted(n.name()) + " has no target", at_node(n, "/target"));
    }
    for (size_t k = 0; k < n.inputs().size(); ++k) {
      const Argument& a = n.inputs()[k].arg;
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        std::string suffix = "/inputs/" + std::to_string(k) + "/arg" + argument_name_pointer(a, name);
        if (defined_.count(name)) {
          const Location loc = at_node(n, suffix);
          st = check_kind(name, kind, &n, loc.pointer ? *loc.pointer : std::string());
          if (!st.ok() && !loc.pointer) {
            Error e = std::move(st).error();
            e.where.pointer.reset();
            st = std::move(e);
          }
          return;
        }
        auto later = later_.find(name);
        std::string message;
        if (later != later_.end()) {
          message = "node " + quoted(n.name()) + " uses " + quoted(name) + " before its definition by node " +
                    quoted(later->second->name());
        } else if (const Value* v = g_.find_value(name); v && v->has_meta()) {
          message = "node " + quoted(n.name()) + " uses " + quoted(name) +
                    ", which has metadata but is defined by no graph input or node";
        } else {
          message = "node " + quoted(n.name()) + " uses " + quoted(name) +
                    ", which is not defined anywhere (dangling name)";
        }
        st = make_error(ErrorCode::INVALID_GRAPH, std::move(message), at_node(n, suffix));
      });
      PTEFORGE_TRY(st);
      if (const GraphArgument* ga = a.get_if<ArgTag::Graph>()) {
        PTEFORGE_TRY(verify_graph(*ga->graph, options_));
      }
      if (const StringToArgument* sa = a.get_if<ArgTag::StringToArgument>()) {
        for (const auto& entry : sa->entries) {
          if (const GraphArgument* ga2 = entry.second.get_if<ArgTag::Graph>()) {
            PTEFORGE_TRY(verify_graph(*ga2->graph, options_));
          }
        }
      }
    }
    for (size_t j = 0; j < n.outputs().size(); ++j) {
      const Argument& a = n.outputs()[j];
      Status st = Status::Ok();
      for_each_value_name(a, [&](const std::string& name, ValueKind kind) {
        if (!st.ok()) return;
        Location loc = at_node(n, "/outputs/" + std::to_string(j) + argument_name_pointer(a, name));
        st = define(name, kind, &n, loc.pointer);
      });
      PTEFORGE_TRY(st);
    }
    return Status::Ok();
  }

  Status check_metadata() {
    Status st = Status::Ok();
    g_.for_each_value([&](const Value& v) {
      if (!st.ok()) return;
      const TensorMeta* m = v.tensor_meta();
      if (!m) return;
      std::string ptr = base_ + "/tensor_values/" + escape_token(v.name);
      if (scalar_type_name(m->dtype) == "unknown") {
        Location where;
        where.pointer = pointer(ptr + "/dtype");
        st = make_error(ErrorCode::INVALID_GRAPH,
                        "tensor value " + quoted(v.name) + " has an unknown dtype (" +
                            std::to_string(static_cast<int>(m->dtype)) + ")",
                        where);
        return;
      }
      for (size_t i = 0; i < m->sizes.size(); ++i) {
        if (m->sizes[i].is_concrete() && m->sizes[i].value() < 0) {
          Location where;
          where.pointer = pointer(ptr + "/sizes/" + std::to_string(i));
          st = make_error(ErrorCode::INVALID_GRAPH,
                          "tensor value " + quoted(v.name) + " has a negative size " +
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
  std::unordered_map<std::string_view, const Node*> later_;
  std::unordered_set<std::string> defined_;
  std::unordered_set<std::string_view> node_names_;
};

Status signature_error(const std::string& ptr, std::string message) {
  Location where;
  where.pointer = ptr;
  return make_error(ErrorCode::INVALID_GRAPH, std::move(message), where);
}

}  // namespace

Location node_location(const Node& node) {
  Location where;
  where.node = node.name();
  if (node.origin().known()) where.pointer = node.origin().pointer();
  std::string source = node.metadata().source();
  if (!source.empty()) where.source = std::move(source);
  return where;
}

Status verify_graph(const Graph& graph, const VerifyOptions& options) {
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
                                      " " + quoted(s.name()) + ") does not match graph input " +
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

}  // namespace pteforge::ir
