// Program JSON writer (see export_exported_program.h).
#include "serde/export_exported_program.h"

#include <functional>

#include "serde/py_json_writer.h"
#include "serde/treespec_json.h"
#include "serde/write_schema.h"

namespace pteforge::serde {
namespace {

using ir::ArgTag;

class Writer {
 public:
  explicit Writer(std::string& out) : w_(out) {}

  void program(const ir::ExportedProgram& ep) {
    w_.begin_object();
    w_.key("graph_module");
    graph_module(ep.graph_module);
    w_.key("opset_version");
    w_.begin_object();
    for (const auto& [ns, v] : ep.opset_version) {
      w_.key(ns);
      w_.int64(v);
    }
    w_.end_object();
    w_.key("range_constraints");
    w_.begin_object();
    for (const auto& [sym, r] : ep.range_constraints) {
      w_.key(sym);
      w_.begin_object();
      w_.key("min_val");
      opt_int(r.min_val);
      w_.key("max_val");
      opt_int(r.max_val);
      w_.end_object();
    }
    w_.end_object();
    w_.key("schema_version");
    w_.begin_object();
    w_.key("major");
    w_.int64(ep.schema_version.major);
    w_.key("minor");
    w_.int64(ep.schema_version.minor);
    w_.end_object();
    w_.key("verifiers");
    strings(ep.verifiers);
    w_.key("torch_version");
    w_.string(ep.torch_version);
    w_.key("guards_code");
    strings(ep.guards_code);
    w_.end_object();
  }

 private:
  void opt_int(const std::optional<int64_t>& v) {
    if (v) {
      w_.int64(*v);
    } else {
      w_.null();
    }
  }

  void strings(const std::vector<std::string>& v) {
    w_.begin_array();
    for (const auto& s : v) w_.string(s);
    w_.end_array();
  }

  void name_object(const std::string& name) {
    w_.begin_object();
    w_.key("name");
    w_.string(name);
    w_.end_object();
  }

  void graph_module(const ir::GraphModule& gm) {
    w_.begin_object();
    w_.key("graph");
    graph(gm.graph);
    w_.key("signature");
    signature(gm.signature);
    w_.key("module_call_graph");
    w_.begin_array();
    for (const auto& e : gm.module_call_graph) call_entry(e);
    w_.end_array();
    w_.key("metadata");
    w_.begin_object();
    for (const auto& [k, v] : gm.metadata) {
      w_.key(k);
      w_.string(v);
    }
    w_.end_object();
    w_.key("treespec_namedtuple_fields");
    w_.begin_object();
    for (const auto& [k, fields] : gm.treespec_namedtuple_fields) {
      w_.key(k);
      w_.begin_object();
      w_.key("field_names");
      strings(fields);
      w_.end_object();
    }
    w_.end_object();
    w_.end_object();
  }

  void graph(const ir::Graph& g) {
    w_.begin_object();
    w_.key("inputs");
    arguments(g.inputs());
    w_.key("outputs");
    arguments(g.outputs());
    w_.key("nodes");
    w_.begin_array();
    for (const ir::Node& n : g) node(n);
    w_.end_array();
    table(g, "tensor_values", [this](const ir::Value& v) { tensor_meta(*v.tensor_meta()); });
    table(g, "sym_int_values", [this](const ir::Value& v) { sym_int(*v.sym_int()); });
    table(g, "sym_bool_values",
          [this](const ir::Value& v) { sym_value(*v.sym_bool(), "as_bool", [this](bool b) { w_.boolean(b); }); });
    w_.key("is_single_tensor_return");
    w_.boolean(g.is_single_tensor_return());
    table(g, "custom_obj_values", [this](const ir::Value& v) { custom_obj(*v.custom_obj()); });
    table(g, "sym_float_values",
          [this](const ir::Value& v) { sym_value(*v.sym_float(), "as_float", [this](double d) { w_.float64(d); }); });
    w_.end_object();
  }

  /// Writes `key: {name: meta, ...}` for the values whose metadata belongs to table `key`, in table order.
  template <typename F>
  void table(const ir::Graph& g, const char* key, F&& write_one) {
    w_.key(key);
    w_.begin_object();
    for (const ir::Value* v : g.table(kind_of_table(key))) {
      w_.key(v->name);
      write_one(*v);
    }
    w_.end_object();
  }

  static ir::ValueKind kind_of_table(std::string_view table) {
    if (table == "tensor_values") return ir::ValueKind::Tensor;
    if (table == "sym_int_values") return ir::ValueKind::SymInt;
    if (table == "sym_bool_values") return ir::ValueKind::SymBool;
    if (table == "sym_float_values") return ir::ValueKind::SymFloat;
    return ir::ValueKind::CustomObj;
  }

  void node(const ir::Node& n) {
    w_.begin_object();
    w_.key("target");
    w_.string(n.target().str());
    w_.key("inputs");
    w_.begin_array();
    for (const auto& na : n.inputs()) {
      w_.begin_object();
      w_.key("name");
      w_.string(na.name);
      w_.key("arg");
      argument(na.arg);
      w_.key("kind");
      if (na.kind) {
        w_.int64(static_cast<int64_t>(*na.kind));
      } else {
        w_.null();
      }
      w_.end_object();
    }
    w_.end_array();
    w_.key("outputs");
    arguments(n.outputs());
    w_.key("metadata");
    metadata(n.metadata());
    w_.key("is_hop_single_tensor_return");
    if (n.is_hop_single_tensor_return()) {
      w_.boolean(*n.is_hop_single_tensor_return());
    } else {
      w_.null();
    }
    w_.key("name");
    w_.string(n.name());
    w_.end_object();
  }

  void metadata(const ir::NodeMetadata& md) {
    w_.begin_object();
    if (md.stack_trace) {
      w_.key("stack_trace");
      w_.string(*md.stack_trace);
    }
    if (md.nn_module_stack) {
      w_.key("nn_module_stack");
      w_.string(ir::format_nn_module_stack(*md.nn_module_stack));
    }
    if (md.source_fn_stack) {
      w_.key("source_fn_stack");
      w_.string(ir::format_source_fn_stack(*md.source_fn_stack));
    }
    if (md.torch_fn) {
      w_.key("torch_fn");
      w_.string(ir::format_torch_fn(*md.torch_fn));
    }
    for (const auto& [k, v] : md.other) {
      w_.key(k);
      w_.string(v);
    }
    w_.end_object();
  }

  void tensor_meta(const ir::TensorMeta& m) { detail::write_tensor_meta(w_, m); }
  void device(const ir::Device& d) { detail::write_device(w_, d); }
  void sym_int(const ir::SymInt& s) { detail::write_sym_int(w_, s); }

  template <typename S, typename F>
  void sym_value(const S& s, const char* tag, F&& write_concrete) {
    if (s.is_symbolic()) {
      detail::write_sym_expr(w_, s.expr());
      return;
    }
    w_.begin_object();
    w_.key(tag);
    write_concrete(s.value());
    w_.end_object();
  }

  void custom_obj(const ir::CustomObjArgument& c) {
    w_.begin_object();
    w_.key("name");
    w_.string(c.name);
    w_.key("class_fqn");
    w_.string(c.class_fqn);
    w_.end_object();
  }

  void arguments(const std::vector<ir::Argument>& args) {
    w_.begin_array();
    for (const auto& a : args) argument(a);
    w_.end_array();
  }

  template <typename T, typename F>
  void list(const std::vector<T>& v, F&& f) {
    w_.begin_array();
    for (const auto& e : v) f(e);
    w_.end_array();
  }

  template <typename T>
  void named_union(const T& s, const char* literal_tag, std::function<void()> literal) {
    w_.begin_object();
    if (s.name) {
      w_.key("as_name");
      w_.string(*s.name);
    } else {
      w_.key(literal_tag);
      literal();
    }
    w_.end_object();
  }

  void optional_tensor(const ir::OptionalTensorArgument& o) {
    w_.begin_object();
    if (o.name) {
      w_.key("as_tensor");
      name_object(*o.name);
    } else {
      w_.key("as_none");
      w_.boolean(true);
    }
    w_.end_object();
  }

  void argument(const ir::Argument& a) {
    w_.begin_object();
    w_.key(a.tag_name());
    switch (a.tag()) {
      case ArgTag::None: w_.boolean(true); break;
      case ArgTag::Tensor: name_object(a.get<ArgTag::Tensor>().name); break;
      case ArgTag::Tensors: list(a.get<ArgTag::Tensors>(), [this](const ir::TensorArgument& t) { name_object(t.name); }); break;
      case ArgTag::Int: w_.int64(a.get<ArgTag::Int>()); break;
      case ArgTag::Ints: list(a.get<ArgTag::Ints>(), [this](int64_t v) { w_.int64(v); }); break;
      case ArgTag::Float: w_.float64(a.get<ArgTag::Float>()); break;
      case ArgTag::Floats: list(a.get<ArgTag::Floats>(), [this](double v) { w_.float64(v); }); break;
      case ArgTag::String: w_.string(a.get<ArgTag::String>()); break;
      case ArgTag::Strings: list(a.get<ArgTag::Strings>(), [this](const std::string& s) { w_.string(s); }); break;
      case ArgTag::SymInt: {
        const auto& s = a.get<ArgTag::SymInt>();
        named_union(s, "as_int", [&] { w_.int64(s.value); });
        break;
      }
      case ArgTag::SymInts:
        list(a.get<ArgTag::SymInts>(),
             [this](const ir::SymIntArgument& s) { named_union(s, "as_int", [&] { w_.int64(s.value); }); });
        break;
      case ArgTag::ScalarType: w_.int64(ir::scalar_type_to_export(a.get<ArgTag::ScalarType>()).value_or(0)); break;
      case ArgTag::MemoryFormat: w_.int64(static_cast<int64_t>(a.get<ArgTag::MemoryFormat>())); break;
      case ArgTag::Layout: w_.int64(static_cast<int64_t>(a.get<ArgTag::Layout>())); break;
      case ArgTag::Device: device(a.get<ArgTag::Device>()); break;
      case ArgTag::Bool: w_.boolean(a.get<ArgTag::Bool>()); break;
      case ArgTag::Bools: {
        w_.begin_array();
        for (bool b : a.get<ArgTag::Bools>()) w_.boolean(b);
        w_.end_array();
        break;
      }
      case ArgTag::SymBool: {
        const auto& s = a.get<ArgTag::SymBool>();
        named_union(s, "as_bool", [&] { w_.boolean(s.value); });
        break;
      }
      case ArgTag::SymBools:
        list(a.get<ArgTag::SymBools>(),
             [this](const ir::SymBoolArgument& s) { named_union(s, "as_bool", [&] { w_.boolean(s.value); }); });
        break;
      case ArgTag::OptionalTensors:
        list(a.get<ArgTag::OptionalTensors>(), [this](const ir::OptionalTensorArgument& o) { optional_tensor(o); });
        break;
      case ArgTag::Graph: {
        const auto& g = a.get<ArgTag::Graph>();
        w_.begin_object();
        w_.key("name");
        w_.string(g.name);
        w_.key("graph");
        graph(*g.graph);
        w_.end_object();
        break;
      }
      case ArgTag::CustomObj: custom_obj(a.get<ArgTag::CustomObj>()); break;
      case ArgTag::Operator: w_.string(a.get<ArgTag::Operator>().target.str()); break;
      case ArgTag::SymFloat: {
        const auto& s = a.get<ArgTag::SymFloat>();
        named_union(s, "as_float", [&] { w_.float64(s.value); });
        break;
      }
      case ArgTag::SymFloats:
        list(a.get<ArgTag::SymFloats>(),
             [this](const ir::SymFloatArgument& s) { named_union(s, "as_float", [&] { w_.float64(s.value); }); });
        break;
      case ArgTag::OptionalTensor: optional_tensor(a.get<ArgTag::OptionalTensor>()); break;
      case ArgTag::Complex: {
        const auto& c = a.get<ArgTag::Complex>();
        w_.begin_object();
        w_.key("real");
        w_.float64(c.real);
        w_.key("imag");
        w_.float64(c.imag);
        w_.end_object();
        break;
      }
      case ArgTag::NestedTensors:
        list(a.get<ArgTag::NestedTensors>(), [this](const std::vector<ir::TensorArgument>& l) {
          list(l, [this](const ir::TensorArgument& t) { name_object(t.name); });
        });
        break;
      case ArgTag::IntLists:
        list(a.get<ArgTag::IntLists>(),
             [this](const std::vector<int64_t>& l) { list(l, [this](int64_t v) { w_.int64(v); }); });
        break;
      case ArgTag::StringToArgument: {
        w_.begin_object();
        for (const auto& [k, v] : a.get<ArgTag::StringToArgument>().entries) {
          w_.key(k);
          argument(v);
        }
        w_.end_object();
        break;
      }
      case ArgTag::FloatLists:
        list(a.get<ArgTag::FloatLists>(),
             [this](const std::vector<double>& l) { list(l, [this](double v) { w_.float64(v); }); });
        break;
    }
    w_.end_object();
  }

  void signature(const ir::GraphSignature& sig) {
    w_.begin_object();
    w_.key("input_specs");
    w_.begin_array();
    for (const auto& s : sig.input_specs) input_spec(s);
    w_.end_array();
    w_.key("output_specs");
    w_.begin_array();
    for (const auto& s : sig.output_specs) output_spec(s);
    w_.end_array();
    w_.end_object();
  }

  void tensor_arg(const ir::Argument& a) {
    const std::string* n = a.value_name();
    name_object(n ? *n : std::string());
  }

  void input_spec(const ir::InputSpec& s) {
    w_.begin_object();
    w_.key(ir::input_kind_name(s.kind));
    w_.begin_object();
    switch (s.kind) {
      case ir::InputKind::UserInput:
        w_.key("arg");
        argument(s.arg);
        break;
      case ir::InputKind::Parameter:
        w_.key("arg");
        tensor_arg(s.arg);
        w_.key(ir::input_target_field(s.kind));
        w_.string(s.target);
        break;
      case ir::InputKind::Buffer:
        w_.key("arg");
        tensor_arg(s.arg);
        w_.key(ir::input_target_field(s.kind));
        w_.string(s.target);
        w_.key("persistent");
        w_.boolean(s.persistent);
        break;
      case ir::InputKind::TensorConstant:
        w_.key("arg");
        tensor_arg(s.arg);
        w_.key(ir::input_target_field(s.kind));
        w_.string(s.target);
        break;
      case ir::InputKind::CustomObj:
        w_.key("arg");
        if (const auto* c = s.arg.get_if<ArgTag::CustomObj>()) {
          custom_obj(*c);
        } else {
          custom_obj(ir::CustomObjArgument{});
        }
        w_.key(ir::input_target_field(s.kind));
        w_.string(s.target);
        break;
      case ir::InputKind::ConstantInput:
        w_.key("name");
        w_.string(s.constant_name);
        w_.key("value");
        argument(s.arg);  // ConstantValue shares the Argument tags it uses
        break;
      case ir::InputKind::Token:
        w_.key("arg");
        tensor_arg(s.arg);
        break;
    }
    w_.end_object();
    w_.end_object();
  }

  void output_spec(const ir::OutputSpec& s) {
    w_.begin_object();
    w_.key(ir::output_kind_name(s.kind));
    w_.begin_object();
    w_.key("arg");
    if (s.kind == ir::OutputKind::UserOutput) {
      argument(s.arg);
    } else {
      tensor_arg(s.arg);
    }
    const std::string_view target_field = ir::output_target_field(s.kind);
    if (!target_field.empty()) {
      w_.key(target_field);
      w_.string(s.target);
    }
    w_.end_object();
    w_.end_object();
  }

  void call_entry(const ir::ModuleCallEntry& e) {
    w_.begin_object();
    w_.key("fqn");
    w_.string(e.fqn);
    w_.key("signature");
    if (!e.signature) {
      w_.null();
    } else {
      const ir::ModuleCallSignature& s = *e.signature;
      w_.begin_object();
      w_.key("inputs");
      arguments(s.inputs);
      w_.key("outputs");
      arguments(s.outputs);
      w_.key("in_spec");
      w_.string(format_treespec(s.in_spec));
      w_.key("out_spec");
      w_.string(format_treespec(s.out_spec));
      w_.key("forward_arg_names");
      if (s.forward_arg_names) {
        strings(*s.forward_arg_names);
      } else {
        w_.null();
      }
      w_.end_object();
    }
    w_.end_object();
  }

  PyJsonWriter w_;
};

}  // namespace

std::string write_exported_program(const ir::ExportedProgram& ep) {
  std::string out;
  Writer(out).program(ep);
  return out;
}

}  // namespace pteforge::serde
