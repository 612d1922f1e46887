// Inlining module calls (see inline.h).
#include "passes/module_swap/inline.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/legalize.h"
#include "passes/module_swap/partition.h"
#include "passes/module_swap/pytree_ir.h"
#include "passes/module_swap/pytree_pairs.h"
#include "passes/module_swap/resolve.h"
#include "passes/module_swap/value_util.h"

namespace pteforge::passes::module_swap {
namespace {

Error at(ErrorCode code, std::string message, const ir::Node& n) {
  Location where;
  where.node = n.name();
  if (n.origin().known()) where.pointer = n.origin().pointer();
  return make_error(code, std::move(message), where);
}

/// One output getitem of the call: getitem(tree_flatten_spec(call), index).
struct OutputUse {
  ir::Node* getitem = nullptr;
  size_t index = 0;
  std::string name;  ///< the getitem's value name
  std::string temp;  ///< its temporary name while the body is copied
};

class Inliner {
 public:
  explicit Inliner(ir::ExportedProgram& ep) : ep_(ep), g_(ep.graph()) {}

  Result<InlineTotals> run() {
    while (ir::Node* call = next_call()) PTEFORGE_TRY(inline_call(*call));
    PTEFORGE_ASSIGN_OR_RETURN(totals_.pytree_nodes_removed, erase_dead_swap_nodes(g_));
    for (const ir::Node& n : g_) {
      if (is_module_swap_node(n)) {
        return at(ErrorCode::INTERNAL, "node " + single_quoted(n.name()) + " (" + std::string(n.target().str()) +
                                           ") is still used after inlining every module call",
                  n);
      }
    }
    PTEFORGE_ASSIGN_OR_RETURN(totals_.reordered, legalize_graph(g_, LegalizeOrder::Stable));
    return totals_;
  }

 private:
  ir::Node* next_call() {
    for (ir::Node& n : g_) {
      if (is_call_module(n) && !done_.count(&n)) return &n;
    }
    return nullptr;
  }

  Result<ir::Argument> map_argument(const ir::Argument& a, const ir::Node& call) {
    ir::Argument out = a;
    Status st = Status::Ok();
    ir::for_each_value_name_mut(out, [&](std::string& n, ir::ValueKind) {
      auto it = map_.find(n);
      if (it != map_.end()) {
        n = it->second;
      } else if (st.ok()) {
        st = at(ErrorCode::INTERNAL, "the body of module call " + single_quoted(call.name()) + " uses " + single_quoted(n) +
                                         ", which it does not define",
                call);
      }
    });
    PTEFORGE_TRY(st);
    return out;
  }

  Status inline_call(ir::Node& call) {
    const ir::GraphArgument* body_arg = call_module_body(call);
    if (!body_arg) return at(ErrorCode::INTERNAL, "module call " + single_quoted(call.name()) + " has no body", call);
    const ir::Graph& body = *body_arg->graph;
    const std::string fqn = body_arg->name;
    map_.clear();
    reserved_.clear();

    // Inputs: flat leaves of the arguments, then captured values.
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<ir::Argument> flat, call_flat_inputs(g_, call, &inlined_));
    const size_t num_flat = call_module_num_flat_inputs(call);
    if (flat.size() != num_flat) {
      return at(ErrorCode::INTERNAL,
                "module call " + single_quoted(call.name()) + " passes " + std::to_string(flat.size()) +
                    " flat inputs but its body takes " + std::to_string(num_flat),
                call);
    }
    for (size_t i = 0; i < num_flat; ++i) {
      const std::string* bn = body.inputs()[i].value_name();
      if (!bn) continue;
      const std::string* on = flat[i].value_name();
      if (on) {
        map_[*bn] = *on;
      } else if (body.use_count(*bn) > 0) {
        return at(ErrorCode::MODULE_SWAP,
                  "input " + std::to_string(i) + " of module " + single_quoted(fqn) +
                      " has no value in the program (it was unused or None when exported), but the module "
                      "body uses it as " + single_quoted(*bn),
                  call);
      }
    }
    for (const auto& [bn, a] : call_module_captured(call)) {
      if (const std::string* on = a->value_name()) map_[bn] = *on;
    }

    // Output getitems: free their names for the body values they stand for.
    const std::string call_out = call.single_output() ? *call.single_output() : std::string();
    std::vector<OutputUse> uses;
    for (ir::Node* f : g_.users(call_out)) {
      if (is_call_module(*f)) continue;  // takes the whole result (remove_pytree_pairs)
      if (!is_tree_flatten_spec(*f)) {
        return at(ErrorCode::INTERNAL, "the result of module call " + single_quoted(call.name()) + " is used by node " +
                                           single_quoted(f->name()) + ", which is not a tree_flatten_spec",
                  *f);
      }
      const std::string f_out = f->single_output() ? *f->single_output() : std::string();
      for (ir::Node* gi : g_.users(f_out)) {
        auto key = getitem_key(*gi);
        if (!is_getitem(*gi) || !key || !key->index || *key->index < 0 ||
            static_cast<size_t>(*key->index) >= body.outputs().size() || !gi->single_output()) {
          return at(ErrorCode::INTERNAL, "node " + single_quoted(gi->name()) + " reads the flattened result of module call " +
                                             single_quoted(call.name()) + " but is not a getitem of one of its outputs",
                    *gi);
        }
        uses.push_back(OutputUse{gi, static_cast<size_t>(*key->index), *gi->single_output(), {}});
      }
    }
    std::unordered_set<std::string> body_defined;
    for (const ir::Node& n : body) {
      for (std::string_view o : n.output_names()) body_defined.emplace(o);
    }
    for (OutputUse& u : uses) {
      const ir::Argument& out = body.outputs()[u.index];
      const std::string* bn = out.value_name();
      if (!bn) {
        if (g_.use_count(u.name) > 0) {
          return at(ErrorCode::UNSUPPORTED_FEATURE,
                    "output " + std::to_string(u.index) + " of module " + single_quoted(fqn) + " is the constant " +
                        std::string(out.tag_name()) + "; a module output that is a constant is not supported yet",
                    call);
        }
        continue;
      }
      if (!body_defined.count(*bn) || seeded_.count(*bn)) continue;
      u.temp = fresh_name(g_, u.name + "_outlined", reserved_);
      reserved_.push_back(u.temp);
      PTEFORGE_TRY(rename_value(ep_, u.name, u.temp));
      seeded_[*bn] = u.name;
      reserved_.push_back(u.name);
    }
    // Outputs another module call takes whole (remove_pytree_pairs dropped
    // their getitems) take the names the module's call signature gives them,
    // when free, so module_call_graph still names them after a swap.
    if (const ir::ModuleCallSignature* sig = find_call_signature(ep_, fqn)) {
      for (size_t j = 0; j < body.outputs().size() && j < sig->outputs.size(); ++j) {
        const std::string* bn = body.outputs()[j].value_name();
        const std::string* sn = sig->outputs[j].value_name();
        if (!bn || !sn || !body_defined.count(*bn) || seeded_.count(*bn)) continue;
        const ir::Value* taken = g_.find_value(*sn);
        if ((taken && (taken->defined() || g_.use_count(*sn) > 0)) || g_.find_node(*sn) ||
            std::find(reserved_.begin(), reserved_.end(), *sn) != reserved_.end()) {
          continue;
        }
        seeded_[*bn] = *sn;
        reserved_.push_back(*sn);
      }
    }

    // Copy the body before the call. reserved_ holds the names the module
    // outputs take over plus the names picked for the node being copied
    // (names of inserted nodes are in the graph already).
    const size_t kept = reserved_.size();
    for (const ir::Node& n : body) {
      reserved_.resize(kept);
      ir::Node copy(n);
      std::vector<ir::NamedArgument> ins = copy.inputs();
      for (auto& na : ins) {
        PTEFORGE_ASSIGN_OR_RETURN(na.arg, map_argument(na.arg, call));
      }
      copy.set_inputs(std::move(ins));
      std::vector<ir::Argument> outs = copy.outputs();
      const std::string* single = n.single_output();
      std::string node_name;
      for (auto& o : outs) {
        ir::for_each_value_name_mut(o, [&](std::string& name, ir::ValueKind) {
          std::string fresh;
          auto s = seeded_.find(name);
          if (s != seeded_.end()) {
            fresh = s->second;
          } else {
            fresh = fresh_name(g_, name, reserved_);
            if (fresh != name) ++totals_.nodes_renamed;
          }
          reserved_.push_back(fresh);
          if (const ir::Value* v = body.find_value(name); v && v->has_meta()) g_.set_meta(fresh, v->meta);
          map_[name] = fresh;
          if (single && *single == name) node_name = fresh;
          name = fresh;
        });
      }
      copy.set_outputs(std::move(outs));
      if (!node_name.empty()) {
        // A node takes its output's name, unless another node has it (node
        // and value names may differ in the input: a node named 'tanh' may
        // define 'addmm'); the getitems it replaces go below.
        const ir::Node* holder = g_.find_node(node_name);
        const bool replaced = std::any_of(uses.begin(), uses.end(),
                                          [holder](const OutputUse& u) { return u.getitem == holder; });
        if (holder && !replaced) node_name = fresh_name(g_, node_name, reserved_);
      }
      if (node_name.empty()) node_name = fresh_name(g_, n.name(), reserved_);
      reserved_.push_back(node_name);
      copy.set_name(node_name);
      g_.insert_before(call, std::move(copy));
      ++totals_.nodes_inlined;
    }

    // Module outputs replace their getitems.
    std::vector<ir::Argument> mapped_outputs;
    for (const ir::Argument& out : body.outputs()) {
      if (out.value_name()) {
        PTEFORGE_ASSIGN_OR_RETURN(ir::Argument m, map_argument(out, call));
        mapped_outputs.push_back(std::move(m));
      } else {
        mapped_outputs.push_back(out);
      }
    }
    for (const OutputUse& u : uses) {
      const std::string& current = u.temp.empty() ? u.name : u.temp;
      if (const std::string* target = mapped_outputs[u.index].value_name()) {
        ep_.replace_all_uses(current, *target);
      }
      if (g_.use_count(current) == 0) PTEFORGE_TRY(g_.erase(*u.getitem));
    }
    inlined_[call_out] = std::move(mapped_outputs);
    done_.insert(&call);
    seeded_.clear();
    ++totals_.calls;
    return Status::Ok();
  }

  ir::ExportedProgram& ep_;
  ir::Graph& g_;
  InlineTotals totals_;
  InlinedCalls inlined_;
  std::unordered_set<const ir::Node*> done_;
  std::unordered_map<std::string, std::string> map_;     // body name -> graph name (current call)
  std::unordered_map<std::string, std::string> seeded_;  // body output -> name it takes over
  std::vector<std::string> reserved_;
};

}  // namespace

Result<InlineTotals> inline_modules(ir::ExportedProgram& ep) {
  Inliner inliner(ep);
  return inliner.run();
}

}  // namespace pteforge::passes::module_swap
