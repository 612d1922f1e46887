// Module partitions and outline preconditions (see partition.h).
#include "passes/module_swap/partition.h"

#include <algorithm>
#include <unordered_map>

#include "passes/module_swap/pytree_ir.h"

namespace pteforge::passes::module_swap {
namespace {

Error swap_error(std::string message) { return make_error(ErrorCode::MODULE_SWAP, std::move(message)); }

size_t depth_of(std::string_view fqn) {
  return fqn.empty() ? 0 : static_cast<size_t>(std::count(fqn.begin(), fqn.end(), '.')) + 1;
}

}  // namespace

bool module_known(const ir::ExportedProgram& ep, std::string_view fqn) {
  for (const auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn == fqn) return true;
  }
  for (const ir::Node& n : ep.graph()) {
    if (node_in_module(n, fqn)) return true;
  }
  return false;
}

bool node_in_module(const ir::Node& n, std::string_view fqn) {
  const auto& stack = n.metadata().nn_module_stack;
  if (!stack) return false;
  for (const auto& f : *stack) {
    if (f.path == fqn) return true;
  }
  return false;
}

std::vector<ir::Node*> module_nodes(ir::Graph& g, std::string_view fqn) {
  std::vector<ir::Node*> out;
  for (ir::Node& n : g) {
    if (node_in_module(n, fqn)) out.push_back(&n);
  }
  return out;
}

const ir::ModuleCallSignature* find_call_signature(const ir::ExportedProgram& ep, std::string_view fqn) {
  for (const auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn == fqn && e.signature) return &*e.signature;
  }
  return nullptr;
}

ir::ModuleCallSignature* find_call_signature(ir::ExportedProgram& ep, std::string_view fqn) {
  for (auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn == fqn && e.signature) return &*e.signature;
  }
  return nullptr;
}

std::vector<std::string> preserved_modules(const ir::ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const auto& e : ep.graph_module.module_call_graph) {
    if (!e.fqn.empty() && e.signature) out.push_back(e.fqn);
  }
  return out;
}

size_t module_call_count(const ir::ExportedProgram& ep, std::string_view fqn) {
  size_t repeats = 0;  // entries fqn@1, fqn@2, ...
  bool preserved = false;
  const std::string prefix = std::string(fqn) + "@";
  for (const auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn == fqn) {
      preserved |= e.signature.has_value();
    } else if (e.fqn.size() > prefix.size() && e.fqn.compare(0, prefix.size(), prefix) == 0 &&
               std::all_of(e.fqn.begin() + static_cast<std::ptrdiff_t>(prefix.size()), e.fqn.end(),
                           [](char c) { return c >= '0' && c <= '9'; })) {
      ++repeats;
    }
  }
  std::vector<std::string> keys;
  for (const ir::Node& n : ep.graph()) {
    const auto& stack = n.metadata().nn_module_stack;
    if (!stack) continue;
    for (const auto& f : *stack) {
      if (f.path == fqn && std::find(keys.begin(), keys.end(), f.key) == keys.end()) keys.push_back(f.key);
    }
  }
  const size_t called = (!keys.empty() || preserved || repeats > 0) ? repeats + 1 : 0;
  return std::max(called, keys.size());
}

Status check_outline_request(const ir::ExportedProgram& ep, std::string_view fqn) {
  if (fqn.empty()) {
    return swap_error("the root module cannot be outlined or swapped; convert the replacement program instead");
  }
  if (!module_known(ep, fqn)) {
    Error e = swap_error("there is no module " + single_quoted(fqn) + " in the program");
    std::vector<std::string> preserved = preserved_modules(ep);
    std::string list;
    for (const auto& p : preserved) list += (list.empty() ? "" : ", ") + single_quoted(p);
    e.notes.push_back(preserved.empty() ? "the program has no modules with a preserved call signature"
                                        : "modules with a preserved call signature: " + list);
    return e;
  }
  // A joint (training) graph: its gradients were traced through the module's
  // forward nodes, and a replacement would leave them computed for the old
  // module (or paired with the replacement's new parameters). torch's swap
  // works on the unlifted inference module, which has no gradient outputs.
  const auto& outs = ep.signature().output_specs;
  for (size_t j = 0; j < outs.size(); ++j) {
    if (outs[j].kind != ir::OutputKind::GradientToParameter &&
        outs[j].kind != ir::OutputKind::GradientToUserInput) {
      continue;
    }
    Error e =
        make_error(ErrorCode::UNSUPPORTED_FEATURE,
                   "module " + single_quoted(fqn) + " is in a joint (training) graph: output " +
                       std::to_string(j) + " is the " + std::string(ir::output_kind_name(outs[j].kind)) +
                       " for " + single_quoted(outs[j].target) +
                       ", traced through the modules as exported; outlining or swapping modules of a joint "
                       "graph is not supported");
    e.where.pointer = "/graph_module/signature/output_specs/" + std::to_string(j);
    e.notes.push_back(
        "swap the module in the inference program (torch.export.export, then torch.export._swap_modules), "
        "then make the joint graph from the swapped program");
    return e;
  }
  size_t calls = module_call_count(ep, fqn);
  if (calls > 1) {
    return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                      "module " + single_quoted(fqn) + " is called " + std::to_string(calls) +
                          " times; outlining or swapping a module that is called more than once is not "
                          "supported yet");
  }
  const ir::ModuleCallSignature* sig = find_call_signature(ep, fqn);
  if (!sig) {
    Error e = swap_error("module " + single_quoted(fqn) +
                         " has no preserved call signature in module_call_graph, so its calling convention "
                         "is unknown");
    e.notes.push_back("export with torch.export.export(..., preserve_module_call_signature=(\"" + std::string(fqn) +
                      "\",)) to make it swappable");
    return e;
  }
  const ir::TreeSpecNode& in = sig->in_spec.root;
  if (in.is_leaf() || *in.type != "builtins.tuple" || in.children.size() != 2 || in.children[0].is_leaf() ||
      *in.children[0].type != "builtins.tuple" || in.children[1].is_leaf() ||
      *in.children[1].type != "builtins.dict") {
    return swap_error("the in_spec of module " + single_quoted(fqn) + " is " + describe_treespec(in) +
                      "; expected ((args...), {kwargs...})");
  }
  if (Result<std::vector<std::string>> keys = dict_keys(in.children[1]); !keys.ok()) {
    Error e = swap_error("the in_spec of module " + single_quoted(fqn) + ": " + keys.error().message);
    for (size_t i = 0; i < ep.graph_module.module_call_graph.size(); ++i) {
      if (ep.graph_module.module_call_graph[i].fqn == fqn) {
        e.where.pointer = "/graph_module/module_call_graph/" + std::to_string(i) + "/signature/in_spec";
        break;
      }
    }
    return e;
  }
  if (sig->inputs.size() != sig->in_spec.num_leaves()) {
    return swap_error("the call signature of module " + single_quoted(fqn) + " lists " + std::to_string(sig->inputs.size()) +
                      " inputs but its in_spec " + describe_treespec(in) + " has " +
                      std::to_string(sig->in_spec.num_leaves()) + " leaves");
  }
  if (sig->outputs.size() != sig->out_spec.num_leaves()) {
    return swap_error("the call signature of module " + single_quoted(fqn) + " lists " +
                      std::to_string(sig->outputs.size()) + " outputs but its out_spec " +
                      describe_treespec(sig->out_spec.root) + " has " + std::to_string(sig->out_spec.num_leaves()) +
                      " leaves");
  }
  // A signature output the graph does not define is a module result nobody
  // uses (dead code elimination removed its node, or export never made it):
  // outline_module passes None for it, as torch's swap only reconnects the
  // results used outside the module.
  return Status::Ok();
}

Status check_convex(const ir::Graph& g, const std::unordered_set<const ir::Node*>& nodes, std::string_view fqn) {
  // A node outside the set is "tainted" when it depends on the set; a set node
  // that depends on a tainted node closes a cycle once the set is fused.
  std::unordered_map<const ir::Node*, const ir::Node*> tainted;  // tainted node -> set node it depends on
  for (const ir::Node& n : g) {
    const bool inside = nodes.count(&n) > 0;
    const ir::Node* via = nullptr;
    const ir::Node* source = nullptr;
    for (const auto& na : n.inputs()) {
      ir::for_each_value_name(na.arg, [&](const std::string& name, ir::ValueKind) {
        if (via || source) return;
        const ir::Node* p = g.producer(name);
        if (!p) return;
        auto t = tainted.find(p);
        if (inside && t != tainted.end()) {
          via = p;
        } else if (!inside && nodes.count(p)) {
          source = p;
        } else if (!inside && t != tainted.end()) {
          source = t->second;
        }
      });
    }
    if (inside && via) {
      Location where;
      where.node = n.name();
      return make_error(ErrorCode::MODULE_SWAP,
                        "the nodes of module " + single_quoted(fqn) +
                            " are not convex: node " + single_quoted(n.name()) + " of the module depends on node " +
                            single_quoted(via->name()) + ", which is outside the module but depends on its node " +
                            single_quoted(tainted[via]->name()) + "; fusing the module would create a cycle",
                        where);
    }
    if (!inside && source) tainted.emplace(&n, source);
  }
  return Status::Ok();
}

std::vector<std::string> innermost_first(std::vector<std::string> fqns) {
  std::stable_sort(fqns.begin(), fqns.end(),
                   [](const std::string& a, const std::string& b) { return depth_of(a) > depth_of(b); });
  return fqns;
}

bool is_same_or_submodule(std::string_view inner, std::string_view outer) {
  if (inner == outer) return true;
  if (outer.empty()) return true;
  return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '.';
}

}  // namespace pteforge::passes::module_swap
