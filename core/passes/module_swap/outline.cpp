// Outlining one module (see outline.h; IR forms in pytree_ir.h).
#include "passes/module_swap/outline.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "passes/legalize.h"
#include "passes/module_swap/partition.h"
#include "passes/module_swap/pytree_ir.h"
#include "passes/module_swap/value_util.h"
#include "serde/treespec_json.h"

namespace pteforge::passes::module_swap {
namespace {

Error at_node(ErrorCode code, std::string message, const ir::Node& n) {
  Location where;
  where.node = n.name();
  if (n.origin().known()) where.pointer = n.origin().pointer();
  return make_error(code, std::move(message), where);
}

/// The node's metadata with nn_module_stack cut just before the frame of `fqn`.
ir::NodeMetadata outer_metadata(const ir::Node* anchor, std::string_view fqn) {
  ir::NodeMetadata md;
  if (!anchor) return md;
  md = anchor->metadata();
  if (md.nn_module_stack) {
    ir::ModuleStack frames;
    for (const auto& f : *md.nn_module_stack) {
      if (f.path == fqn) break;
      frames.push_back(f);
    }
    md.nn_module_stack = std::make_shared<const ir::ModuleStack>(std::move(frames));
  }
  return md;
}

}  // namespace

Result<OutlineResult> outline_module(ir::ExportedProgram& ep, const std::string& fqn) {
  ir::Graph& g = ep.graph();
  const ir::ModuleCallSignature* found = find_call_signature(ep, fqn);
  if (!found) return make_error(ErrorCode::INTERNAL, "outline_module: no call signature for " + single_quoted(fqn));
  const ir::ModuleCallSignature sig = *found;
  OutlineResult result;

  std::vector<ir::Node*> nodes = module_nodes(g, fqn);
  std::unordered_set<const ir::Node*> part(nodes.begin(), nodes.end());

  // ---- values used outside that are not outputs: hoist or reject
  std::unordered_set<std::string> sig_out_names;
  for (const auto& a : sig.outputs) {
    if (const std::string* n = a.value_name()) sig_out_names.insert(*n);
  }
  // Symbolic-size nodes (only symbolic scalar results) that depend on nothing
  // computed inside except other such nodes: export shares them between
  // modules, so they may stay outside.
  auto symbolic_only = [&](const ir::Node& n) {
    bool any = false;
    for (std::string_view o : n.output_names()) {
      const ir::Value* v = g.find_value(o);
      ir::ValueKind k = v ? v->kind : ir::ValueKind::Unknown;
      if (k != ir::ValueKind::SymInt && k != ir::ValueKind::SymFloat && k != ir::ValueKind::SymBool) return false;
      any = true;
    }
    return any;
  };
  // The mutation kind when `name` is written back into a buffer or parameter
  // of the module itself (its state-dict name starts with "fqn.").
  auto own_state_write = [&](const std::string& name) -> std::optional<ir::OutputKind> {
    for (const ir::OutputSpec& spec : ep.signature().output_specs) {
      if ((spec.kind == ir::OutputKind::BufferMutation || spec.kind == ir::OutputKind::ParameterMutation) &&
          spec.name() == name && spec.target != fqn && is_same_or_submodule(spec.target, fqn)) {
        return spec.kind;
      }
    }
    return std::nullopt;
  };
  auto mutates_state = [&](const std::string& name, ir::OutputKind kind, const ir::Node& n) {
    return at_node(
        ErrorCode::UNSUPPORTED_FEATURE,
        "module " + single_quoted(fqn) + " mutates state: its value " + single_quoted(name) + " (node " +
            single_quoted(n.name()) + ") is written back as a " + std::string(ir::output_kind_name(kind)) +
            " output; outlining or swapping a module that mutates buffers or inputs is not supported yet",
        n);
  };
  std::unordered_set<const ir::Node*> independent;
  for (ir::Node* n : nodes) {
    if (!symbolic_only(*n)) continue;
    bool dep = false;
    for (const auto& na : n->inputs()) {
      ir::for_each_value_name(na.arg, [&](const std::string& name, ir::ValueKind) {
        const ir::Node* p = g.producer(name);
        if (p && part.count(p) && !independent.count(p)) dep = true;
      });
    }
    if (!dep) independent.insert(n);
  }
  std::unordered_set<const ir::Node*> hoist;
  std::vector<const ir::Node*> hoist_work;
  for (ir::Node* n : nodes) {
    for (std::string_view name_view : n->output_names()) {
      const std::string name(name_view);
      if (sig_out_names.count(name)) {
        // A module output that is also written back into the module's own
        // state: the module mutates its buffers (or parameters) and returns
        // the new value; a replacement's output would be written into them.
        if (std::optional<ir::OutputKind> k = own_state_write(name)) return mutates_state(name, *k, *n);
        continue;
      }
      const ir::Value* v = g.find_value(name);
      if (!v) continue;
      const ir::Node* outside_user = nullptr;
      for (const ir::Node* u : v->uses) {
        if (!part.count(u)) {
          outside_user = u;
          break;
        }
      }
      std::optional<ir::OutputKind> out_kind;
      if (v->output_uses > 0) {
        for (size_t j = 0; j < g.outputs().size() && !out_kind; ++j) {
          const std::string* on = g.outputs()[j].value_name();
          if (on && *on == name) {
            out_kind = j < ep.signature().output_specs.size() ? ep.signature().output_specs[j].kind
                                                             : ir::OutputKind::UserOutput;
          }
        }
      }
      if (!outside_user && !out_kind) continue;
      if (independent.count(n)) {
        if (hoist.insert(n).second) hoist_work.push_back(n);
        continue;
      }
      if (out_kind && ir::is_mutation(*out_kind)) return mutates_state(name, *out_kind, *n);
      std::string user = outside_user ? "node " + single_quoted(outside_user->name()) : std::string("the graph output");
      Error e = at_node(ErrorCode::MODULE_SWAP,
                        "value " + single_quoted(name) + " computed inside module " + single_quoted(fqn) +
                            " (by node " + single_quoted(n->name()) + ") is used outside it (by " + user +
                            ") but is not one of the module's outputs in its call signature",
                        *n);
      // A signature output naming a value the program lacks may be this one misnamed.
      for (size_t j = 0; j < sig.outputs.size(); ++j) {
        const std::string* out = sig.outputs[j].value_name();
        const ir::Value* ov = out ? g.find_value(*out) : nullptr;
        if (out && (!ov || !ov->defined())) {
          e.notes.push_back("the call signature lists output " + std::to_string(j) + " as " +
                            single_quoted(*out) + ", which the program does not define");
        }
      }
      return e;
    }
  }
  // Hoisted nodes take the (independent) producers they read with them.
  while (!hoist_work.empty()) {
    const ir::Node* n = hoist_work.back();
    hoist_work.pop_back();
    for (const auto& na : n->inputs()) {
      ir::for_each_value_name(na.arg, [&](const std::string& name, ir::ValueKind) {
        const ir::Node* p = g.producer(name);
        if (p && part.count(p) && hoist.insert(p).second) hoist_work.push_back(p);
      });
    }
  }
  if (!hoist.empty()) {
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [&](ir::Node* n) { return hoist.count(n) > 0; }),
                nodes.end());
    for (const ir::Node* n : hoist) part.erase(n);
    result.nodes_hoisted = hoist.size();
  }

  PTEFORGE_TRY(check_convex(g, part, fqn));

  // ---- body inputs: the flat inputs of the signature, then captured values
  std::unordered_set<std::string> defined_inside;
  for (ir::Node* n : nodes) {
    for (std::string_view o : n->output_names()) defined_inside.emplace(o);
  }
  std::vector<std::string> input_names;  // distinct value names among the signature inputs
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    const std::string* nm = sig.inputs[i].value_name();
    if (!nm) continue;
    const ir::Value* v = g.find_value(*nm);
    if (!v || !v->defined()) continue;
    if (defined_inside.count(*nm)) {
      return at_node(ErrorCode::MODULE_SWAP,
                     "input " + std::to_string(i) + " (" + single_quoted(*nm) + ") of module " + single_quoted(fqn) +
                         " is computed inside the module itself",
                     *v->producer);
    }
    if (std::find(input_names.begin(), input_names.end(), *nm) == input_names.end()) input_names.push_back(*nm);
  }
  std::vector<std::string> captured;
  auto capture = [&](const std::string& name) {
    if (defined_inside.count(name)) return;
    if (std::find(input_names.begin(), input_names.end(), name) != input_names.end()) return;
    if (std::find(captured.begin(), captured.end(), name) != captured.end()) return;
    const ir::Value* v = g.find_value(name);
    if (!v || !v->defined()) return;
    captured.push_back(name);
  };
  for (ir::Node* n : nodes) {
    for (const auto& na : n->inputs()) {
      ir::for_each_value_name(na.arg, [&](const std::string& name, ir::ValueKind) { capture(name); });
    }
  }
  for (const auto& a : sig.outputs) {
    if (const std::string* nm = a.value_name()) capture(*nm);
  }

  std::vector<ir::Argument> body_inputs;
  std::vector<ir::Argument> leaves;
  std::vector<std::pair<std::string, std::string>> body_meta;  // body name -> outer name of its metadata
  std::vector<std::string> seen;
  std::vector<std::string> reserved = input_names;
  reserved.insert(reserved.end(), captured.begin(), captured.end());
  reserved.insert(reserved.end(), defined_inside.begin(), defined_inside.end());
  ir::Graph body;
  for (const auto& a : sig.inputs) {
    const std::string* nm = a.value_name();
    if (!nm) {
      body_inputs.push_back(a);  // None or a constant
      leaves.push_back(a);
      continue;
    }
    const ir::Value* v = g.find_value(*nm);
    if (!v || !v->defined()) {  // unused input without a value: a None leaf (seed)
      body_inputs.push_back(ir::arg_none());
      leaves.push_back(ir::arg_none());
      continue;
    }
    leaves.push_back(a);
    if (std::find(seen.begin(), seen.end(), *nm) == seen.end()) {
      seen.push_back(*nm);
      body_inputs.push_back(a);
      body_meta.emplace_back(*nm, *nm);
    } else {  // the same value passed twice: a second, unused body input
      std::string dup = fresh_name(body, *nm, reserved);
      reserved.push_back(dup);
      body_inputs.push_back(renamed(a, dup));
      body_meta.emplace_back(dup, *nm);
    }
  }
  for (const auto& c : captured) {
    body_inputs.push_back(value_argument(g, c));
    body_meta.emplace_back(c, c);
  }
  for (ir::Node* n : nodes) {
    for (std::string_view o : n->output_names()) body_meta.emplace_back(std::string(o), std::string(o));
  }
  for (const auto& [bn, on] : body_meta) {
    if (const ir::Value* v = g.find_value(on); v && v->has_meta()) body.set_meta(bn, v->meta);
  }
  body.set_inputs(body_inputs);
  for (ir::Node* n : nodes) body.append(ir::Node(*n));
  std::vector<ir::Argument> body_outputs;
  for (const auto& a : sig.outputs) {
    const std::string* nm = a.value_name();
    const ir::Value* v = nm ? g.find_value(*nm) : nullptr;
    body_outputs.push_back(nm && (!v || !v->defined()) ? ir::arg_none() : a);
  }
  body.set_outputs(std::move(body_outputs));

  // ---- the outer nodes: unflatten, getitems, call_module, flatten, getitems
  ir::Node* anchor = nodes.empty() ? nullptr : nodes.front();
  const ir::NodeMetadata md = outer_metadata(anchor, fqn);
  auto insert = [&](ir::Node node) -> ir::Node& {
    node.metadata() = md;
    if (anchor) node.origin() = anchor->origin();
    return anchor ? g.insert_before(*anchor, std::move(node)) : g.append(std::move(node));
  };
  auto make_getitem = [&](const std::string& container, const std::string& container_class, ir::Argument key,
                          ir::Argument out) -> ir::Node& {
    std::vector<ir::NamedArgument> in;
    in.push_back(ir::positional("a", ir::arg_custom_obj(container, container_class)));
    in.push_back(ir::positional("b", std::move(key)));
    const std::string name = *out.value_name();
    return insert(ir::Node(ir::OpTarget(kGetitem), std::move(in), {std::move(out)}, name));
  };

  const ir::TreeSpecNode& in_root = sig.in_spec.root;
  std::vector<ir::NamedArgument> unflatten_in;
  for (const auto& l : leaves) unflatten_in.push_back(ir::positional("leaf", l));
  unflatten_in.push_back(ir::keyword("spec", ir::arg_string(serde::format_treespec(sig.in_spec))));
  const std::string unflatten_name = fresh_name(g, "tree_unflatten", reserved);
  const std::string tuple_class = in_root.type.value_or("builtins.tuple");
  insert(ir::Node(ir::OpTarget(kTreeUnflatten), std::move(unflatten_in),
                  {ir::arg_custom_obj(unflatten_name, tuple_class)}, unflatten_name));

  // One call argument per child of the args tuple / kwargs dict: a getitem
  // for values and containers, the literal itself for None and constants.
  auto child_argument = [&](const std::string& container, const std::string& container_class,
                            const ir::TreeSpecNode& parent, size_t child, ir::Argument key) -> ir::Argument {
    const ir::TreeSpecNode& c = parent.children[child];
    const size_t off = leaf_offset(parent, child);
    if (c.is_leaf()) {
      const ir::Argument& leaf = leaves[off];
      if (!leaf.value_name()) return leaf;
      const std::string name = fresh_name(g, "getitem", reserved);
      if (const ir::Value* v = g.find_value(*leaf.value_name()); v && v->has_meta()) g.set_meta(name, v->meta);
      make_getitem(container, container_class, std::move(key), renamed(leaf, name));
      return renamed(leaf, name);
    }
    const std::string name = fresh_name(g, "getitem", reserved);
    const std::string cls = *c.type;
    make_getitem(container, container_class, std::move(key), ir::arg_custom_obj(name, cls));
    return ir::arg_custom_obj(name, cls);
  };

  const ir::TreeSpecNode& args_spec = in_root.children[0];
  const ir::TreeSpecNode& kwargs_spec = in_root.children[1];
  std::vector<ir::Argument> call_args;
  if (!args_spec.children.empty()) {
    const std::string args_name = fresh_name(g, "getitem", reserved);
    make_getitem(unflatten_name, tuple_class, ir::arg_int(0), ir::arg_custom_obj(args_name, *args_spec.type));
    // Leaves of the args subtree start at offset 0 of the whole in_spec.
    for (size_t i = 0; i < args_spec.children.size(); ++i) {
      call_args.push_back(child_argument(args_name, *args_spec.type, args_spec, i, ir::arg_int(static_cast<int64_t>(i))));
    }
  }
  ir::StringToArgument call_kwargs;
  if (!kwargs_spec.children.empty()) {
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<std::string> keys, dict_keys(kwargs_spec));
    const std::string kwargs_name = fresh_name(g, "getitem", reserved);
    make_getitem(unflatten_name, tuple_class, ir::arg_int(1), ir::arg_custom_obj(kwargs_name, *kwargs_spec.type));
    const size_t base = args_spec.num_leaves();
    for (size_t i = 0; i < kwargs_spec.children.size(); ++i) {
      // child_argument computes offsets inside kwargs_spec; shift by the args leaves.
      const ir::TreeSpecNode& c = kwargs_spec.children[i];
      ir::Argument key = ir::arg_string(i < keys.size() ? keys[i] : std::to_string(i));
      if (c.is_leaf()) {
        const ir::Argument& leaf = leaves[base + leaf_offset(kwargs_spec, i)];
        if (!leaf.value_name()) {
          call_kwargs.entries.emplace_back(keys[i], leaf);
          continue;
        }
        const std::string name = fresh_name(g, "getitem", reserved);
        if (const ir::Value* v = g.find_value(*leaf.value_name()); v && v->has_meta()) g.set_meta(name, v->meta);
        make_getitem(kwargs_name, *kwargs_spec.type, std::move(key), renamed(leaf, name));
        call_kwargs.entries.emplace_back(keys[i], renamed(leaf, name));
      } else {
        const std::string name = fresh_name(g, "getitem", reserved);
        make_getitem(kwargs_name, *kwargs_spec.type, std::move(key), ir::arg_custom_obj(name, *c.type));
        call_kwargs.entries.emplace_back(keys[i], ir::arg_custom_obj(name, *c.type));
      }
    }
  }

  const std::string call_name = fresh_name(g, module_node_base(fqn), reserved);
  std::vector<ir::NamedArgument> call_in;
  ir::GraphArgument body_arg;
  body_arg.name = fqn;
  body_arg.graph = ir::GraphBox(std::move(body));
  call_in.push_back(ir::positional("module", ir::Argument::make<ir::ArgTag::Graph>(std::move(body_arg))));
  for (auto& a : call_args) call_in.push_back(ir::positional("args", std::move(a)));
  if (!call_kwargs.entries.empty()) {
    call_in.push_back(ir::keyword("kwargs", ir::Argument::make<ir::ArgTag::StringToArgument>(std::move(call_kwargs))));
  }
  if (!captured.empty()) {
    ir::StringToArgument cap;
    for (const auto& c : captured) cap.entries.emplace_back(c, value_argument(g, c));
    call_in.push_back(ir::keyword("captured", ir::Argument::make<ir::ArgTag::StringToArgument>(std::move(cap))));
  }
  insert(ir::Node(ir::OpTarget(kCallModule), std::move(call_in),
                  {ir::arg_custom_obj(call_name, std::string(kModuleOutputClass))}, call_name));

  const std::string flatten_name = fresh_name(g, "tree_flatten_spec", reserved);
  {
    std::vector<ir::NamedArgument> in;
    in.push_back(ir::positional("tree", ir::arg_custom_obj(call_name, std::string(kModuleOutputClass))));
    in.push_back(ir::keyword("spec", ir::arg_string(serde::format_treespec(sig.out_spec))));
    insert(ir::Node(ir::OpTarget(kTreeFlattenSpec), std::move(in), {ir::arg_custom_obj(flatten_name, "builtins.list")},
                    flatten_name));
  }

  // Output getitems under temporary names; outside uses move to them.
  std::vector<std::pair<std::string, std::string>> renames;  // temp -> original
  for (size_t j = 0; j < sig.outputs.size(); ++j) {
    const std::string* nm = sig.outputs[j].value_name();
    if (!nm || !defined_inside.count(*nm)) continue;
    bool done = false;
    for (const auto& r : renames) done |= r.second == *nm;
    if (done) continue;
    const ir::Value* v = g.find_value(*nm);
    bool used_outside = v->output_uses > 0;
    for (const ir::Node* u : v->uses) used_outside |= !part.count(u);
    if (!used_outside) continue;
    const std::string temp = fresh_name(g, "getitem", reserved);
    if (v->has_meta()) g.set_meta(temp, v->meta);
    make_getitem(flatten_name, "builtins.list", ir::arg_int(static_cast<int64_t>(j)), renamed(sig.outputs[j], temp));
    for (ir::Node* u : g.users(*nm)) {
      if (!part.count(u)) rename_uses(*u, *nm, temp);
    }
    rename_in_outputs(ep, *nm, temp);
    renames.emplace_back(temp, *nm);
  }

  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) PTEFORGE_TRY(g.erase(**it));

  for (const auto& [temp, orig] : renames) PTEFORGE_TRY(rename_value(ep, temp, orig));

  result.call_node = call_name;
  result.nodes_moved = nodes.size();
  result.captured = captured.size();
  return result;
}

}  // namespace pteforge::passes::module_swap

namespace pteforge::passes::module_swap {

Result<OutlineTotals> outline_modules(ir::ExportedProgram& ep, const std::vector<std::string>& fqns) {
  for (size_t i = 0; i < fqns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (fqns[i] == fqns[j]) {
        return make_error(ErrorCode::OPTION_INVALID, "module '" + fqns[i] + "' is requested more than once");
      }
    }
    PTEFORGE_TRY(check_outline_request(ep, fqns[i]));
  }
  OutlineTotals totals;
  for (const std::string& fqn : innermost_first(fqns)) {
    PTEFORGE_ASSIGN_OR_RETURN(OutlineResult r, outline_module(ep, fqn));
    ++totals.modules;
    totals.nodes_moved += r.nodes_moved;
    totals.nodes_hoisted += r.nodes_hoisted;
    totals.captured += r.captured;
  }
  PTEFORGE_ASSIGN_OR_RETURN(totals.reordered, legalize_graph(ep.graph(), LegalizeOrder::Stable));
  return totals;
}

}  // namespace pteforge::passes::module_swap
