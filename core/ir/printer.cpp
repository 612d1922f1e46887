// IR text printer (see printer.h).
#include "ir/printer.h"

#include "ir/float_repr.h"
#include "ir/sym_expr.h"

namespace pteforge::ir {
namespace {

std::string py_str(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

template <typename T, typename F>
std::string list(const std::vector<T>& v, F&& f) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += f(v[i]);
  }
  out += ']';
  return out;
}

std::string sym_int_text(const SymInt& s) {
  if (s.is_concrete()) return std::to_string(s.value());
  return display_sym_expr(s.expr().expr_str);
}

std::string value_ref(const std::string& name) { return "%" + name; }

std::string bool_text(bool b) { return b ? "True" : "False"; }

void print_graph_into(const Graph& g, const PrintOptions& options, int indent, std::string& out);

std::string typed(const Graph& g, const std::string& name, const PrintOptions& options) {
  std::string s = value_ref(name);
  if (!options.types) return s;
  const Value* v = g.find_value(name);
  if (!v) return s;
  if (const TensorMeta* m = v->tensor_meta()) return s + ": " + format_tensor_type(*m);
  if (const SymInt* si = v->sym_int()) return s + ": SymInt(" + sym_int_text(*si) + ")";
  if (v->sym_bool()) return s + ": SymBool";
  if (v->sym_float()) return s + ": SymFloat";
  if (const CustomObjArgument* c = v->custom_obj()) return s + ": " + c->class_fqn;
  return s;
}

std::string output_text(const Graph& g, const Argument& a, const PrintOptions& options) {
  switch (a.tag()) {
    case ArgTag::Tensors:
      return list(a.get<ArgTag::Tensors>(), [&](const TensorArgument& t) { return typed(g, t.name, options); });
    case ArgTag::None: return "None";
    default: {
      const std::string* n = a.value_name();
      return n ? typed(g, *n, options) : print_argument(a);
    }
  }
}

}  // namespace

std::string format_tensor_type(const TensorMeta& m) {
  return std::string(scalar_type_name(m.dtype)) + list(m.sizes, sym_int_text);
}

std::string print_argument(const Argument& a) {
  switch (a.tag()) {
    case ArgTag::None: return "None";
    case ArgTag::Tensor: return value_ref(a.get<ArgTag::Tensor>().name);
    case ArgTag::Tensors:
      return list(a.get<ArgTag::Tensors>(), [](const TensorArgument& t) { return value_ref(t.name); });
    case ArgTag::Int: return std::to_string(a.get<ArgTag::Int>());
    case ArgTag::Ints: return list(a.get<ArgTag::Ints>(), [](int64_t v) { return std::to_string(v); });
    case ArgTag::Float: return python_float_repr(a.get<ArgTag::Float>());
    case ArgTag::Floats: return list(a.get<ArgTag::Floats>(), python_float_repr);
    case ArgTag::String: return py_str(a.get<ArgTag::String>());
    case ArgTag::Strings: return list(a.get<ArgTag::Strings>(), [](const std::string& s) { return py_str(s); });
    case ArgTag::SymInt: {
      const auto& s = a.get<ArgTag::SymInt>();
      return s.name ? value_ref(*s.name) : std::to_string(s.value);
    }
    case ArgTag::SymInts:
      return list(a.get<ArgTag::SymInts>(),
                  [](const SymIntArgument& s) { return s.name ? value_ref(*s.name) : std::to_string(s.value); });
    case ArgTag::ScalarType: return "torch." + std::string(scalar_type_name(a.get<ArgTag::ScalarType>()));
    case ArgTag::MemoryFormat: return std::string(memory_format_name(a.get<ArgTag::MemoryFormat>()));
    case ArgTag::Layout: return std::string(layout_name(a.get<ArgTag::Layout>()));
    case ArgTag::Device: {
      const Device& d = a.get<ArgTag::Device>();
      std::string out = "device(type=" + py_str(d.type);
      if (d.index) out += ", index=" + std::to_string(*d.index);
      return out + ")";
    }
    case ArgTag::Bool: return bool_text(a.get<ArgTag::Bool>());
    case ArgTag::Bools: {
      const auto& v = a.get<ArgTag::Bools>();
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        out += bool_text(v[i]);
      }
      return out + "]";
    }
    case ArgTag::SymBool: {
      const auto& s = a.get<ArgTag::SymBool>();
      return s.name ? value_ref(*s.name) : bool_text(s.value);
    }
    case ArgTag::SymBools:
      return list(a.get<ArgTag::SymBools>(),
                  [](const SymBoolArgument& s) { return s.name ? value_ref(*s.name) : bool_text(s.value); });
    case ArgTag::OptionalTensors:
      return list(a.get<ArgTag::OptionalTensors>(),
                  [](const OptionalTensorArgument& o) { return o.name ? value_ref(*o.name) : std::string("None"); });
    case ArgTag::Graph: return "@" + a.get<ArgTag::Graph>().name;
    case ArgTag::CustomObj: return value_ref(a.get<ArgTag::CustomObj>().name);
    case ArgTag::Operator: return std::string(a.get<ArgTag::Operator>().target.short_name());
    case ArgTag::SymFloat: {
      const auto& s = a.get<ArgTag::SymFloat>();
      return s.name ? value_ref(*s.name) : python_float_repr(s.value);
    }
    case ArgTag::SymFloats:
      return list(a.get<ArgTag::SymFloats>(),
                  [](const SymFloatArgument& s) { return s.name ? value_ref(*s.name) : python_float_repr(s.value); });
    case ArgTag::OptionalTensor: {
      const auto& o = a.get<ArgTag::OptionalTensor>();
      return o.name ? value_ref(*o.name) : std::string("None");
    }
    case ArgTag::Complex: {
      const auto& c = a.get<ArgTag::Complex>();
      return "complex(" + python_float_repr(c.real) + ", " + python_float_repr(c.imag) + ")";
    }
    case ArgTag::NestedTensors:
      return list(a.get<ArgTag::NestedTensors>(), [](const std::vector<TensorArgument>& l) {
        return list(l, [](const TensorArgument& t) { return value_ref(t.name); });
      });
    case ArgTag::IntLists:
      return list(a.get<ArgTag::IntLists>(), [](const std::vector<int64_t>& l) {
        return list(l, [](int64_t v) { return std::to_string(v); });
      });
    case ArgTag::StringToArgument: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : a.get<ArgTag::StringToArgument>().entries) {
        if (!first) out += ", ";
        first = false;
        out += py_str(k) + ": " + print_argument(v);
      }
      return out + "}";
    }
    case ArgTag::FloatLists:
      return list(a.get<ArgTag::FloatLists>(), [](const std::vector<double>& l) { return list(l, python_float_repr); });
  }
  return "?";
}

namespace {

void print_graph_into(const Graph& g, const PrintOptions& options, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  out += "graph(";
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    if (i) out += ", ";
    out += output_text(g, g.inputs()[i], options);
  }
  out += "):\n";
  for (const Node& n : g) {
    out += pad + "  ";
    if (!n.outputs().empty()) {
      for (size_t i = 0; i < n.outputs().size(); ++i) {
        if (i) out += ", ";
        out += output_text(g, n.outputs()[i], options);
      }
      out += " = ";
    }
    out += std::string(n.target().short_name()) + "(";
    bool first = true;
    for (const NamedArgument& na : n.inputs()) {
      if (!first) out += ", ";
      first = false;
      if (na.kind == ArgumentKind::Keyword && !na.name.empty()) out += na.name + "=";
      out += print_argument(na.arg);
    }
    out += ")";
    const std::string* single = n.single_output();
    if (!single || *single != n.name()) out += "  # " + n.name();
    out += "\n";
    for (const NamedArgument& na : n.inputs()) {
      if (const GraphArgument* ga = na.arg.get_if<ArgTag::Graph>()) {
        out += pad + "    @" + ga->name + " = ";
        print_graph_into(*ga->graph, options, indent + 4, out);
      }
    }
  }
  out += pad + "  return ";
  if (g.is_single_tensor_return() && g.outputs().size() == 1) {
    out += print_argument(g.outputs()[0]);
  } else {
    out += "(";
    for (size_t i = 0; i < g.outputs().size(); ++i) {
      if (i) out += ", ";
      out += print_argument(g.outputs()[i]);
    }
    out += ")";
  }
  out += "\n";
}

}  // namespace

std::string print_graph(const Graph& g, const PrintOptions& options) {
  std::string out;
  print_graph_into(g, options, 0, out);
  return out;
}

std::string print_exported_program(const ExportedProgram& ep, const PrintOptions& options) {
  std::string out;
  for (const InputSpec& s : ep.signature().input_specs) {
    out += "# input " + std::string(input_kind_name(s.kind)) + " ";
    if (s.kind == InputKind::ConstantInput) {
      out += s.constant_name + " = " + print_argument(s.arg);
    } else {
      out += print_argument(s.arg);
    }
    if (!s.target.empty()) out += " <- " + s.target;
    if (s.kind == InputKind::Buffer && !s.persistent) out += " (non-persistent)";
    out += "\n";
  }
  for (const OutputSpec& s : ep.signature().output_specs) {
    out += "# output " + std::string(output_kind_name(s.kind)) + " " + print_argument(s.arg);
    if (!s.target.empty()) out += " -> " + s.target;
    out += "\n";
  }
  out += print_graph(ep.graph(), options);
  return out;
}

}  // namespace pteforge::ir
