// Program summary (see summary.h).
#include "serde/summary.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"
#include "ir/sym_expr.h"
#include "support/text_table.h"

namespace pteforge::serde {
namespace {

DimSummary dim_of(const ir::SymInt& s) {
  DimSummary d;
  if (s.is_concrete()) {
    d.value = s.value();
  } else {
    d.expr = ir::display_sym_expr(s.expr().expr_str);
  }
  return d;
}

void describe_value(const ir::Graph& g, const ir::Argument& a, IoSummary& out) {
  const std::string* name = a.value_name();
  if (name) out.name = *name;
  if (a.is_tensor()) {
    if (const ir::TensorMeta* m = g.tensor_meta(*name)) {
      out.dtype = std::string(ir::scalar_type_name(m->dtype));
      std::vector<DimSummary> shape;
      for (const auto& s : m->sizes) shape.push_back(dim_of(s));
      out.shape = std::move(shape);
    } else {
      out.type = "tensor";
    }
    return;
  }
  switch (a.tag()) {
    case ir::ArgTag::SymInt: out.type = name ? "SymInt" : "constant " + ir::print_argument(a); break;
    case ir::ArgTag::SymFloat: out.type = name ? "SymFloat" : "constant " + ir::print_argument(a); break;
    case ir::ArgTag::SymBool: out.type = name ? "SymBool" : "constant " + ir::print_argument(a); break;
    case ir::ArgTag::CustomObj: out.type = a.get<ir::ArgTag::CustomObj>().class_fqn; break;
    default: out.type = "constant " + ir::print_argument(a); break;
  }
}

/// Symbols in first-seen order (`seen`: the same names, for constant-time membership).
void collect_symbols(const IoSummary& io, std::vector<std::string>& order,
                     std::unordered_set<std::string>& seen, const ir::Graph& g) {
  if (!io.shape) return;
  const ir::TensorMeta* m = g.tensor_meta(io.name);
  if (!m) return;
  for (const auto& s : m->sizes) {
    if (s.is_concrete()) continue;
    auto parsed = ir::parse_sym_expr(s.expr().expr_str);
    if (!parsed.ok()) continue;
    for (const auto& sym : ir::free_symbols(*parsed)) {
      if (seen.insert(sym).second) order.push_back(sym);
    }
  }
}

void count_ops(const ir::Graph& g, std::map<std::string, size_t>& counts, size_t& nested, bool top) {
  for (const ir::Node& n : g) {
    ++counts[std::string(n.target().short_name())];
    if (!top) ++nested;
    for (const auto& na : n.inputs()) {
      if (const auto* ga = na.arg.get_if<ir::ArgTag::Graph>()) count_ops(*ga->graph, counts, nested, false);
    }
  }
}

void add_state(StateSummary& s, bool known, uint64_t bytes) {
  ++s.count;
  if (known) {
    s.bytes += bytes;
  } else {
    s.bytes_known = false;
  }
}

struct ModuleInfo {
  std::string type;
  std::string parent;
  bool has_parent = false;
  size_t nodes = 0;
  std::vector<std::string> children;
};

void module_tree(const ir::Graph& g, std::vector<ModuleSummary>& out) {
  std::unordered_map<std::string, ModuleInfo> info;
  std::vector<std::string> roots;
  std::vector<std::string> order;
  for (const ir::Node& n : g) {
    const auto& stack = n.metadata().nn_module_stack;
    if (!stack) continue;
    std::vector<const std::string*> seen;
    for (size_t i = 0; i < stack->size(); ++i) {
      const ir::ModuleFrame& f = (*stack)[i];
      auto [it, inserted] = info.emplace(f.path, ModuleInfo{});
      if (inserted) {
        it->second.type = f.type;
        if (i == 0) {
          roots.push_back(f.path);
        } else {
          it->second.parent = (*stack)[i - 1].path;
          it->second.has_parent = true;
          info[(*stack)[i - 1].path].children.push_back(f.path);
        }
      }
      if (std::find_if(seen.begin(), seen.end(), [&](const std::string* p) { return *p == f.path; }) == seen.end()) {
        ++it->second.nodes;
        seen.push_back(&f.path);
      }
    }
  }
  // Pre-order walk, iterative (module nesting comes from the input).
  std::vector<std::pair<std::string, size_t>> stack;
  for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.emplace_back(*r, 0);
  std::unordered_map<std::string, bool> visited;
  while (!stack.empty()) {
    auto [path, depth] = stack.back();
    stack.pop_back();
    if (visited[path]) continue;
    visited[path] = true;
    const ModuleInfo& m = info[path];
    out.push_back(ModuleSummary{path, m.type, depth, m.nodes});
    for (auto c = m.children.rbegin(); c != m.children.rend(); ++c) stack.emplace_back(*c, depth + 1);
  }
}

std::string dim_text(const DimSummary& d) { return d.value ? std::to_string(*d.value) : d.expr; }

std::string io_type(const IoSummary& io) {
  if (!io.dtype) return io.type;
  std::string out = *io.dtype + "[";
  for (size_t i = 0; i < io.shape->size(); ++i) {
    if (i) out += ", ";
    out += dim_text((*io.shape)[i]);
  }
  return out + "]";
}

std::string bound_text(const std::optional<int64_t>& v, const char* inf) { return v ? std::to_string(*v) : inf; }

std::string state_text(const StateSummary& s) {
  std::string out = std::to_string(s.count);
  if (s.count == 0) return out;
  out += s.bytes_known ? " (" + std::to_string(s.bytes) + " bytes)" : " (bytes unknown: symbolic sizes)";
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

}  // namespace

MethodSummary summarize_method(const std::string& name, const ir::ExportedProgram& ep,
                               std::vector<ImportWarning> warnings) {
  MethodSummary s;
  s.name = name;
  s.schema_version = ep.schema_version;
  s.torch_version = ep.torch_version;
  s.verifiers = ep.verifiers;
  s.warnings = std::move(warnings);
  const ir::Graph& g = ep.graph();
  if (const ir::ModuleCallSignature* root = ep.root_call_signature()) {
    if (root->forward_arg_names) s.forward_arg_names = *root->forward_arg_names;
  }

  const auto& in_specs = ep.signature().input_specs;
  for (size_t i = 0; i < in_specs.size(); ++i) {
    const ir::InputSpec& spec = in_specs[i];
    IoSummary io;
    io.kind = std::string(ir::input_kind_name(spec.kind));
    io.target = spec.target;
    if (spec.kind == ir::InputKind::ConstantInput) {
      io.name = spec.constant_name;
      io.type = "constant " + ir::print_argument(spec.arg);
    } else {
      describe_value(g, i < g.inputs().size() ? g.inputs()[i] : spec.arg, io);
    }
    s.inputs.push_back(std::move(io));

    // State counts and bytes.
    const ir::TensorMeta* meta = g.tensor_meta(spec.name());
    bool known = false;
    uint64_t bytes = 0;
    if (const ir::ConstantRef* ref = ep.state.find_placeholder(spec.name())) {
      known = true;
      bytes = ref->nbytes();
      s.bytes_from_payloads = true;
    } else if (meta && meta->nbytes()) {
      known = true;
      bytes = *meta->nbytes();
    }
    switch (spec.kind) {
      case ir::InputKind::Parameter: add_state(s.parameters, known, bytes); break;
      case ir::InputKind::Buffer: add_state(s.buffers, known, bytes); break;
      case ir::InputKind::TensorConstant: add_state(s.constants, known, bytes); break;
      case ir::InputKind::CustomObj: ++s.custom_objects; break;
      default: break;
    }
  }
  const auto& out_specs = ep.signature().output_specs;
  for (size_t j = 0; j < out_specs.size(); ++j) {
    IoSummary io;
    io.kind = std::string(ir::output_kind_name(out_specs[j].kind));
    io.target = out_specs[j].target;
    describe_value(g, j < g.outputs().size() ? g.outputs()[j] : out_specs[j].arg, io);
    s.outputs.push_back(std::move(io));
  }

  // Symbols: those in input/output shapes first (in order), then the other constrained ones.
  std::vector<std::string> order;
  std::unordered_set<std::string> seen;
  for (const auto& io : s.inputs) collect_symbols(io, order, seen, g);
  for (const auto& io : s.outputs) collect_symbols(io, order, seen, g);
  for (const auto& [sym, range] : ep.range_constraints) {
    if (seen.insert(sym).second) order.push_back(sym);
  }
  const ir::RangeIndex ranges(ep);
  for (const auto& sym : order) {
    SymbolSummary ss;
    ss.name = sym;
    if (const ir::RangeConstraint* r = ranges.find(sym)) {
      ss.min = r->lower();
      ss.max = r->upper();
    }
    s.symbols.push_back(std::move(ss));
  }

  s.node_count = g.num_nodes();
  std::map<std::string, size_t> counts;
  count_ops(g, counts, s.subgraph_node_count, true);
  for (const auto& [target, n] : counts) s.ops.push_back(OpCount{target, n});
  std::stable_sort(s.ops.begin(), s.ops.end(), [](const OpCount& a, const OpCount& b) { return a.count > b.count; });

  module_tree(g, s.modules);

  for (const auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn.empty() || !e.signature) continue;
    CallSignatureSummary c;
    c.fqn = e.fqn;
    for (const auto& a : e.signature->inputs) c.inputs.push_back(ir::print_argument(a));
    for (const auto& a : e.signature->outputs) c.outputs.push_back(ir::print_argument(a));
    s.preserved_calls.push_back(std::move(c));
  }
  return s;
}

ProgramSummary summarize_program(const ir::Program& program,
                                 const std::vector<std::pair<std::string, std::vector<ImportWarning>>>& warnings) {
  ProgramSummary out;
  for (const auto& [name, ep] : program.methods) {
    std::vector<ImportWarning> w;
    for (const auto& [method, list] : warnings) {
      if (method == name) w = list;
    }
    out.methods.push_back(summarize_method(name, ep, std::move(w)));
  }
  return out;
}

std::string summary_to_text(const ProgramSummary& summary) {
  std::string out;
  for (const MethodSummary& m : summary.methods) {
    if (!out.empty()) out += "\n";
    out += "method " + m.name + "\n";
    out += "  schema " + std::to_string(m.schema_version.major) + "." + std::to_string(m.schema_version.minor) +
           ", torch " + m.torch_version + ", verifiers [" + join(m.verifiers, ", ") + "]\n";
    if (!m.forward_arg_names.empty()) out += "  forward(" + join(m.forward_arg_names, ", ") + ")\n";

    out += "  inputs (" + std::to_string(m.inputs.size()) + "):\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& io : m.inputs) rows.push_back({io.name, io.kind, io.target, io_type(io)});
    out += text_table(rows, "    ");
    out += "  outputs (" + std::to_string(m.outputs.size()) + "):\n";
    rows.clear();
    for (const auto& io : m.outputs) rows.push_back({io.name, io.kind, io.target, io_type(io)});
    out += text_table(rows, "    ");

    if (!m.symbols.empty()) {
      out += "  symbols:\n";
      rows.clear();
      for (const auto& sym : m.symbols) {
        rows.push_back({sym.name, "[" + bound_text(sym.min, "-inf") + ", " + bound_text(sym.max, "inf") + "]"});
      }
      out += text_table(rows, "    ");
    }

    out += "  nodes (" + std::to_string(m.node_count);
    if (m.subgraph_node_count) out += ", +" + std::to_string(m.subgraph_node_count) + " in subgraphs";
    out += "):\n";
    rows.clear();
    for (const auto& op : m.ops) rows.push_back({op.target, std::to_string(op.count)});
    out += text_table(rows, "    ");

    out += "  state" + std::string(m.bytes_from_payloads ? " (bytes from payloads)" : "") + ":\n";
    rows = {{"parameters", state_text(m.parameters)},
            {"buffers", state_text(m.buffers)},
            {"constants", state_text(m.constants)}};
    if (m.custom_objects) rows.push_back({"custom objects", std::to_string(m.custom_objects)});
    out += text_table(rows, "    ");

    if (!m.modules.empty()) {
      out += "  modules:\n";
      rows.clear();
      for (const auto& mod : m.modules) {
        std::string indent(mod.depth * 2, ' ');
        rows.push_back({indent + (mod.path.empty() ? "(root)" : mod.path), mod.type,
                        std::to_string(mod.nodes) + (mod.nodes == 1 ? " node" : " nodes")});
      }
      out += text_table(rows, "    ");
    }
    if (!m.preserved_calls.empty()) {
      out += "  preserved call signatures:\n";
      rows.clear();
      for (const auto& c : m.preserved_calls) {
        rows.push_back({c.fqn, "(" + join(c.inputs, ", ") + ") -> (" + join(c.outputs, ", ") + ")"});
      }
      out += text_table(rows, "    ");
    }
    if (!m.warnings.empty()) {
      out += "  warnings:\n";
      for (const auto& w : m.warnings) {
        out += "    " + w.message;
        if (!w.where.empty()) out += " (" + w.where.to_string() + ")";
        out += "\n";
      }
    }
  }
  return out;
}

namespace {

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void str(JsonWriter& w, const char* key, const std::string& v) {
  w.Key(key);
  w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

void io_json(JsonWriter& w, const IoSummary& io) {
  w.StartObject();
  str(w, "name", io.name);
  str(w, "kind", io.kind);
  if (!io.target.empty()) str(w, "target", io.target);
  if (io.dtype) {
    str(w, "dtype", *io.dtype);
    w.Key("shape");
    w.StartArray();
    for (const auto& d : *io.shape) {
      if (d.value) {
        w.Int64(*d.value);
      } else {
        w.String(d.expr.c_str(), static_cast<rapidjson::SizeType>(d.expr.size()));
      }
    }
    w.EndArray();
  } else {
    str(w, "type", io.type);
  }
  w.EndObject();
}

void state_json(JsonWriter& w, const char* key, const StateSummary& s) {
  w.Key(key);
  w.StartObject();
  w.Key("count");
  w.Uint64(s.count);
  w.Key("bytes");
  if (s.bytes_known) {
    w.Uint64(s.bytes);
  } else {
    w.Null();
  }
  w.EndObject();
}

void opt_int(JsonWriter& w, const std::optional<int64_t>& v) {
  if (v) {
    w.Int64(*v);
  } else {
    w.Null();
  }
}

void location_json(JsonWriter& w, const Location& where) {
  w.StartObject();
  if (where.pointer) str(w, "pointer", *where.pointer);
  if (where.node) str(w, "node", *where.node);
  if (where.entry) str(w, "entry", *where.entry);
  if (where.byte_offset) {
    w.Key("byte_offset");
    w.Uint64(*where.byte_offset);
  }
  if (where.method) str(w, "method", *where.method);
  if (where.source) str(w, "source", *where.source);
  if (where.pass) str(w, "pass", *where.pass);
  w.EndObject();
}

}  // namespace

std::string summary_to_json(const ProgramSummary& summary) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("methods");
  w.StartArray();
  for (const MethodSummary& m : summary.methods) {
    w.StartObject();
    str(w, "name", m.name);
    str(w, "schema_version", std::to_string(m.schema_version.major) + "." + std::to_string(m.schema_version.minor));
    str(w, "torch_version", m.torch_version);
    w.Key("verifiers");
    w.StartArray();
    for (const auto& v : m.verifiers) w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
    w.EndArray();
    w.Key("forward_arg_names");
    w.StartArray();
    for (const auto& v : m.forward_arg_names) w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
    w.EndArray();
    w.Key("inputs");
    w.StartArray();
    for (const auto& io : m.inputs) io_json(w, io);
    w.EndArray();
    w.Key("outputs");
    w.StartArray();
    for (const auto& io : m.outputs) io_json(w, io);
    w.EndArray();
    w.Key("symbols");
    w.StartArray();
    for (const auto& sym : m.symbols) {
      w.StartObject();
      str(w, "name", sym.name);
      w.Key("min");
      opt_int(w, sym.min);
      w.Key("max");
      opt_int(w, sym.max);
      w.EndObject();
    }
    w.EndArray();
    w.Key("node_count");
    w.Uint64(m.node_count);
    w.Key("subgraph_node_count");
    w.Uint64(m.subgraph_node_count);
    w.Key("ops");
    w.StartArray();
    for (const auto& op : m.ops) {
      w.StartObject();
      str(w, "target", op.target);
      w.Key("count");
      w.Uint64(op.count);
      w.EndObject();
    }
    w.EndArray();
    w.Key("state");
    w.StartObject();
    state_json(w, "parameters", m.parameters);
    state_json(w, "buffers", m.buffers);
    state_json(w, "constants", m.constants);
    w.Key("custom_objects");
    w.Uint64(m.custom_objects);
    w.Key("bytes_from_payloads");
    w.Bool(m.bytes_from_payloads);
    w.EndObject();
    w.Key("modules");
    w.StartArray();
    for (const auto& mod : m.modules) {
      w.StartObject();
      str(w, "path", mod.path);
      str(w, "type", mod.type);
      w.Key("depth");
      w.Uint64(mod.depth);
      w.Key("nodes");
      w.Uint64(mod.nodes);
      w.EndObject();
    }
    w.EndArray();
    w.Key("preserved_calls");
    w.StartArray();
    for (const auto& c : m.preserved_calls) {
      w.StartObject();
      str(w, "fqn", c.fqn);
      w.Key("inputs");
      w.StartArray();
      for (const auto& v : c.inputs) w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
      w.EndArray();
      w.Key("outputs");
      w.StartArray();
      for (const auto& v : c.outputs) w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.Key("warnings");
    w.StartArray();
    for (const auto& warn : m.warnings) {
      w.StartObject();
      str(w, "message", warn.message);
      w.Key("where");
      location_json(w, warn.where);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace pteforge::serde
