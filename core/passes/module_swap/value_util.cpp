// Value-renaming helpers (see value_util.h).
#include "passes/module_swap/value_util.h"

#include <vector>

namespace pteforge::passes::module_swap {

ir::Argument renamed(const ir::Argument& a, const std::string& name) {
  ir::Argument out = a;
  ir::for_each_value_name_mut(out, [&](std::string& n, ir::ValueKind) { n = name; });
  return out;
}

ir::Argument value_argument(const ir::Graph& g, const std::string& name) {
  const ir::Value* v = g.find_value(name);
  switch (v ? v->kind : ir::ValueKind::Unknown) {
    case ir::ValueKind::SymInt: return ir::arg_sym_int(name);
    case ir::ValueKind::SymFloat: return ir::arg_sym_float(name);
    case ir::ValueKind::SymBool: return ir::arg_sym_bool(name);
    case ir::ValueKind::CustomObj: {
      const ir::CustomObjArgument* c = v->custom_obj();
      std::string cls = c ? c->class_fqn : std::string();
      if (cls.empty() && v->producer) {
        for (const auto& o : v->producer->outputs()) {
          if (const auto* co = o.get_if<ir::ArgTag::CustomObj>(); co && co->name == name) cls = co->class_fqn;
        }
      }
      return ir::arg_custom_obj(name, cls);
    }
    default: return ir::arg_tensor(name);
  }
}

void rename_uses(ir::Node& node, const std::string& from, const std::string& to) {
  std::vector<ir::NamedArgument> ins = node.inputs();
  bool changed = false;
  for (auto& na : ins) {
    ir::for_each_value_name_mut(na.arg, [&](std::string& n, ir::ValueKind) {
      if (n == from) {
        n = to;
        changed = true;
      }
    });
  }
  if (changed) node.set_inputs(std::move(ins));
}

void rename_in_outputs(ir::ExportedProgram& ep, const std::string& from, const std::string& to) {
  ir::Graph& g = ep.graph();
  std::vector<ir::Argument> outs = g.outputs();
  bool changed = false;
  for (auto& a : outs) {
    ir::for_each_value_name_mut(a, [&](std::string& n, ir::ValueKind) {
      if (n == from) {
        n = to;
        changed = true;
      }
    });
  }
  if (changed) g.set_outputs(std::move(outs));
  for (auto& s : ep.signature().output_specs) {
    ir::for_each_value_name_mut(s.arg, [&](std::string& n, ir::ValueKind) {
      if (n == from) n = to;
    });
  }
}

Status rename_value(ir::ExportedProgram& ep, const std::string& from, const std::string& to) {
  ir::Graph& g = ep.graph();
  ir::Node* node = g.producer(from);
  if (!node) return make_error(ErrorCode::INTERNAL, "rename_value: '" + from + "' is not defined by a node");
  if (const ir::Value* t = g.find_value(to); t && (t->defined() || !t->uses.empty() || t->output_uses)) {
    return make_error(ErrorCode::INTERNAL, "rename_value: '" + to + "' is already in use");
  }
  const ir::ValueMeta meta = g.find_value(from)->meta;
  std::vector<ir::Argument> outs = node->outputs();
  for (auto& a : outs) {
    ir::for_each_value_name_mut(a, [&](std::string& n, ir::ValueKind) {
      if (n == from) n = to;
    });
  }
  if (meta.index() != 0) g.set_meta(to, meta);
  node->set_outputs(std::move(outs));
  ep.replace_all_uses(from, to);
  g.clear_meta(from);
  if (node->name() == from && !g.find_node(to)) node->set_name(to);
  return Status::Ok();
}

}  // namespace pteforge::passes::module_swap
