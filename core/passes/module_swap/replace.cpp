// Replacing outlined modules (see replace.h).
#include "passes/module_swap/replace.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>

#include "ir/printer.h"
#include "passes/module_swap/partition.h"
#include "passes/module_swap/pytree_ir.h"
#include "passes/module_swap/sym_bind.h"
#include "passes/module_swap_api.h"

namespace pteforge::passes::module_swap {
namespace {

/// Positions of a replacement's user inputs, state inputs and user outputs.
struct RepIO {
  std::vector<size_t> user_inputs;
  std::vector<size_t> state_inputs;
  std::vector<size_t> user_outputs;
};

Error mismatch(std::string_view fqn, const std::string& what) {
  Error e = make_error(ErrorCode::MODULE_SWAP,
                       "the replacement for module " + single_quoted(fqn) + " does not match its call signature: " + what);
  return e;
}

Result<RepIO> classify(const ir::ExportedProgram& rep, std::string_view fqn) {
  RepIO io;
  const auto& ins = rep.signature().input_specs;
  for (size_t i = 0; i < ins.size(); ++i) {
    switch (ins[i].kind) {
      case ir::InputKind::UserInput:
      case ir::InputKind::ConstantInput: io.user_inputs.push_back(i); break;
      case ir::InputKind::Parameter:
      case ir::InputKind::Buffer:
      case ir::InputKind::TensorConstant: io.state_inputs.push_back(i); break;
      default:
        return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                          "the replacement for module " + single_quoted(fqn) + " has a " +
                              std::string(ir::input_kind_name(ins[i].kind)) + " input (" + single_quoted(ins[i].name()) +
                              "); replacements with custom objects or tokens are not supported yet");
    }
  }
  const auto& outs = rep.signature().output_specs;
  for (size_t j = 0; j < outs.size(); ++j) {
    if (outs[j].kind == ir::OutputKind::UserOutput || outs[j].kind == ir::OutputKind::LossOutput) {
      io.user_outputs.push_back(j);
    } else {
      return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                        "the replacement for module " + single_quoted(fqn) + " has a " +
                            std::string(ir::output_kind_name(outs[j].kind)) + " output (" +
                            ir::print_argument(outs[j].arg) +
                            "); replacements that mutate state or return gradients are not supported yet");
    }
  }
  return io;
}

std::string type_text(const ir::Graph& g, const ir::Argument& a) {
  const std::string* n = a.value_name();
  if (!n) return a.is_none() ? std::string("None") : "the constant " + ir::print_argument(a);
  const ir::Value* v = g.find_value(*n);
  if (v && v->tensor_meta()) return ir::format_tensor_type(*v->tensor_meta());
  return std::string(ir::value_kind_name(v ? v->kind : ir::ValueKind::Unknown));
}

bool same_size(const ir::SymInt& a, const ir::SymInt& b) {
  if (a.is_concrete() != b.is_concrete()) return false;
  if (a.is_concrete()) return a.value() == b.value();
  return ir::display_sym_expr(a.expr().expr_str) == ir::display_sym_expr(b.expr().expr_str);
}

const ir::Node* find_call(const ir::Graph& g, std::string_view fqn) {
  for (const ir::Node& n : g) {
    if (is_call_module(n) && call_module_fqn(n) == fqn) return &n;
  }
  return nullptr;
}

/// All checks; binds symbols into `bind`.
Status check(const ir::ExportedProgram& ep, const ir::Node& call, const ir::ExportedProgram& rep, RepIO& io,
             SymBinding& bind) {
  const std::string fqn(call_module_fqn(call));
  PTEFORGE_ASSIGN_OR_RETURN(io, classify(rep, fqn));
  const ir::ModuleCallSignature* sig = find_call_signature(ep, fqn);
  const ir::ModuleCallSignature* rsig = rep.root_call_signature();
  if (!sig) return make_error(ErrorCode::INTERNAL, "no call signature for outlined module " + single_quoted(fqn));
  if (!rsig) {
    return make_error(ErrorCode::MODULE_SWAP, "the replacement for module " + single_quoted(fqn) +
                                                  " has no root entry (fqn '') with a signature in its "
                                                  "module_call_graph, so its calling convention is unknown");
  }
  // Equal up to dict key order: torch calls the replacement with keyword
  // arguments by name and picks dict results by key (reorder_kwargs,
  // tree_flatten_spec), so the flat inputs and outputs are matched by place.
  const std::optional<std::vector<size_t>> in_perm = leaf_permutation(sig->in_spec.root, rsig->in_spec.root);
  if (!in_perm) {
    return mismatch(fqn, "in_spec differs: the module takes " + describe_treespec(sig->in_spec.root) +
                             " but the replacement takes " + describe_treespec(rsig->in_spec.root));
  }
  const std::optional<std::vector<size_t>> out_perm =
      leaf_permutation(sig->out_spec.root, rsig->out_spec.root);
  if (!out_perm) {
    return mismatch(fqn, "out_spec differs: the module returns " + describe_treespec(sig->out_spec.root) +
                             " but the replacement returns " + describe_treespec(rsig->out_spec.root));
  }
  // io lists the replacement's flat inputs/outputs in its own order; reorder
  // them to the module's (when the counts fit; the checks below say otherwise).
  auto reorder = [](std::vector<size_t>& flat, const std::vector<size_t>& perm) {
    if (flat.size() != perm.size()) return;
    std::vector<size_t> out;
    out.reserve(perm.size());
    for (size_t k : perm) out.push_back(flat[k]);
    flat = std::move(out);
  };
  reorder(io.user_inputs, *in_perm);
  reorder(io.user_outputs, *out_perm);
  const ir::Graph& body = *call_module_body(call)->graph;
  const ir::Graph& rg = rep.graph();
  const size_t n_in = call_module_num_flat_inputs(call);
  if (io.user_inputs.size() != n_in) {
    return mismatch(fqn, "the module takes " + counted(n_in, "flat input") + " but the replacement has " +
                             counted(io.user_inputs.size(), "user input"));
  }
  if (io.user_outputs.size() != body.outputs().size()) {
    return mismatch(fqn, "the module returns " + counted(body.outputs().size(), "flat output") +
                             " but the replacement has " + counted(io.user_outputs.size(), "user output"));
  }

  // Inputs: kinds, constants, dtypes; bind symbols.
  for (size_t i = 0; i < n_in; ++i) {
    const ir::Argument& old_in = body.inputs()[i];
    const ir::InputSpec& rspec = rep.signature().input_specs[io.user_inputs[i]];
    const ir::Argument& rep_in = rg.inputs()[io.user_inputs[i]];
    const std::string what = "input " + std::to_string(i) + " (" +
                             (old_in.value_name() ? single_quoted(*old_in.value_name()) : ir::print_argument(old_in)) + ")";
    if (!old_in.value_name()) {
      if (old_in.is_none()) {
        const std::string* rn = rep_in.value_name();
        if (rn && rg.use_count(*rn) > 0) {
          return make_error(ErrorCode::MODULE_SWAP,
                            "input " + std::to_string(i) + " of module " + single_quoted(fqn) +
                                " has no value in the program (it was unused or None when exported), but the "
                                "replacement uses it (" + single_quoted(*rn) + ")");
        }
        continue;
      }
      if (rspec.kind != ir::InputKind::ConstantInput || !(rspec.arg == old_in)) {
        return mismatch(fqn, what + ": the module receives " + type_text(body, old_in) +
                                 " but the replacement expects " + type_text(rg, rep_in));
      }
      continue;
    }
    if (rspec.kind == ir::InputKind::ConstantInput || !rep_in.value_name()) {
      return mismatch(fqn, what + ": the module receives " + type_text(body, old_in) +
                               " but the replacement expects " + type_text(rg, rep_in));
    }
    const ir::Value* ov = body.find_value(*old_in.value_name());
    const ir::Value* rv = rg.find_value(*rep_in.value_name());
    if (!ov || !rv || ov->kind != rv->kind) {
      return mismatch(fqn, what + ": the module receives " + type_text(body, old_in) +
                               " but the replacement expects " + type_text(rg, rep_in));
    }
    if (const ir::TensorMeta* om = ov->tensor_meta()) {
      const ir::TensorMeta* rm = rv->tensor_meta();
      if (!rm || om->dtype != rm->dtype || om->rank() != rm->rank()) {
        return mismatch(fqn, what + ": the module receives " + type_text(body, old_in) +
                                 " but the replacement expects " + type_text(rg, rep_in));
      }
      for (size_t d = 0; d < om->rank(); ++d) {
        if (auto why = bind.unify(rm->sizes[d], om->sizes[d])) {
          return mismatch(fqn, what + ": the module receives " + type_text(body, old_in) +
                                   " but the replacement expects " + type_text(rg, rep_in) + " (dimension " +
                                   std::to_string(d) + ": " + *why + ")");
        }
      }
    } else if (const ir::SymInt* os = ov->sym_int()) {
      if (const ir::SymInt* rs = rv->sym_int()) {
        if (auto why = bind.unify(*rs, *os)) return mismatch(fqn, what + ": " + *why);
      }
    }
  }
  if (auto why = bind.finish()) return mismatch(fqn, "an input's shape differs: " + *why);

  // Outputs: the module's must be computed inside it; dtypes and shapes must agree.
  PTEFORGE_TRY(check_outputs_computed(call));
  for (size_t j = 0; j < body.outputs().size(); ++j) {
    const ir::Argument& old_out = body.outputs()[j];
    const ir::Argument& rep_out = rg.outputs()[io.user_outputs[j]];
    const std::string* on = old_out.value_name();
    if (old_out.is_none()) continue;
    const std::string what = "output " + std::to_string(j) + (on ? " (" + single_quoted(*on) + ")" : std::string());
    if (!on || !rep_out.value_name()) {
      if (!(old_out == rep_out)) {
        return mismatch(fqn, what + ": the module returns " + type_text(body, old_out) +
                                 " but the replacement returns " + type_text(rg, rep_out));
      }
      continue;
    }
    const ir::Value* ov = body.find_value(*on);
    const ir::Value* rv = rg.find_value(*rep_out.value_name());
    if (!ov || !rv || ov->kind != rv->kind) {
      return mismatch(fqn, what + ": the module returns " + type_text(body, old_out) +
                               " but the replacement returns " + type_text(rg, rep_out));
    }
    if (const ir::TensorMeta* om = ov->tensor_meta()) {
      const ir::TensorMeta* rm0 = rv->tensor_meta();
      bool ok = rm0 && rm0->dtype == om->dtype && rm0->rank() == om->rank();
      std::string got = type_text(rg, rep_out);
      if (ok) {
        ir::TensorMeta rm = bind.apply(*rm0);
        got = ir::format_tensor_type(rm);
        for (size_t d = 0; d < om->rank() && ok; ++d) ok = same_size(rm.sizes[d], om->sizes[d]);
      }
      if (!ok) {
        return mismatch(fqn, what + ": the module returns " + type_text(body, old_out) +
                                 " but the replacement returns " + got);
      }
    }
  }

  // Weights: when the program's state is bound, the replacement's must be too.
  if (!ep.state.empty()) {
    for (size_t pos : io.state_inputs) {
      const ir::InputSpec& s = rep.signature().input_specs[pos];
      if (!rep.state.find(s.target)) {
        return make_error(ErrorCode::WEIGHTS_MISSING,
                          "the replacement for module " + single_quoted(fqn) + " has " +
                              std::string(ir::input_kind_name(s.kind)) + " " + single_quoted(s.target) +
                              " but its weights are not bound; load the replacement from its .pt2 archive");
      }
    }
  }
  return Status::Ok();
}

std::string state_prefix(ir::InputKind k) {
  switch (k) {
    case ir::InputKind::Parameter: return "p_";
    case ir::InputKind::Buffer: return "b_";
    default: return "c_";
  }
}

std::string sanitize(std::string_view fqn) {
  std::string out;
  for (char c : fqn) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

int kind_rank(ir::InputKind k) {
  switch (k) {
    case ir::InputKind::Parameter: return 0;
    case ir::InputKind::Buffer: return 1;
    case ir::InputKind::TensorConstant: return 2;
    case ir::InputKind::CustomObj: return 3;
    case ir::InputKind::Token: return 4;
    default: return 5;
  }
}

/// The nn_module_stack frames of the module itself: its ancestors and its own frame.
ir::ModuleStack module_frames(const ir::Graph& old_body, const ir::Node& call, std::string_view fqn,
                              const std::string& new_type) {
  ir::ModuleStack frames;
  for (const ir::Node& n : old_body) {
    const auto& st = n.metadata().nn_module_stack;
    if (!st) continue;
    for (const auto& f : *st) {
      frames.push_back(f);
      if (f.path == fqn) {
        if (!new_type.empty()) frames.back().type = new_type;
        return frames;
      }
    }
    frames.clear();
  }
  if (const auto& st = call.metadata().nn_module_stack) frames = *st;
  frames.push_back(ir::ModuleFrame{"L__self__" + std::string(fqn), std::string(fqn), new_type});
  return frames;
}

/// The class of the replacement's root module (root frame of its nodes), or "".
std::string root_type(const ir::ExportedProgram& rep) {
  for (const ir::Node& n : rep.graph()) {
    const auto& st = n.metadata().nn_module_stack;
    if (st && !st->empty() && st->front().path.empty()) return st->front().type;
  }
  return {};
}

void rewrite_node_metadata(ir::Graph& body, const ir::ModuleStack& frames, std::string_view fqn) {
  for (ir::Node& n : body) {
    n.origin() = ir::NodeOrigin{};
    const auto& st = n.metadata().nn_module_stack;
    ir::ModuleStack out = frames;
    if (st) {
      for (const auto& f : *st) {
        if (f.path.empty()) continue;
        out.push_back(ir::ModuleFrame{f.key, std::string(fqn) + "." + f.path, f.type});
      }
    }
    n.metadata().nn_module_stack = std::make_shared<const ir::ModuleStack>(std::move(out));
  }
}

struct NewState {
  ir::InputSpec spec;     ///< the program's new input spec
  std::string rep_name;   ///< the replacement's placeholder
  std::string rep_fqn;    ///< the replacement's state name
};

/// Where removed state was: for each kind, the index (in the spec list after
/// the removal) at which its first removed input stood.
using RemovedAt = std::map<ir::InputKind, size_t>;

/// Removes the state placeholders among `candidates` that nothing uses any
/// more: graph input, input spec, metadata and StateBinding entry.
RemovedAt remove_unused_state(ir::ExportedProgram& ep, const std::vector<std::string>& candidates, size_t& count) {
  ir::Graph& g = ep.graph();
  auto& specs = ep.signature().input_specs;
  // State the program writes back into (a buffer or parameter mutation
  // output) stays although nothing reads it any more: the write is kept.
  std::set<std::string> written;
  for (const ir::OutputSpec& o : ep.signature().output_specs) {
    if (o.kind == ir::OutputKind::BufferMutation || o.kind == ir::OutputKind::ParameterMutation) {
      written.insert(o.target);
    }
  }
  std::set<std::string> removed;
  for (const auto& name : candidates) {
    int idx = ep.signature().find_input(name);
    if (idx < 0 || !specs[static_cast<size_t>(idx)].is_state()) continue;
    if (written.count(specs[static_cast<size_t>(idx)].target)) continue;
    if (g.use_count(name) == 0) removed.insert(name);
  }
  RemovedAt at;
  if (removed.empty()) return at;
  std::vector<ir::InputSpec> kept_specs;
  std::vector<ir::Argument> kept_inputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (removed.count(std::string(specs[i].name()))) {
      at.emplace(specs[i].kind, kept_specs.size());
      continue;
    }
    kept_specs.push_back(specs[i]);
    kept_inputs.push_back(g.inputs()[i]);
  }
  specs = std::move(kept_specs);
  g.set_inputs(std::move(kept_inputs));
  for (const auto& name : removed) g.clear_meta(name);
  auto& refs = ep.state.tensors;
  refs.erase(std::remove_if(refs.begin(), refs.end(),
                            [&](const ir::ConstantRef& r) { return removed.count(r.placeholder) > 0; }),
             refs.end());
  count = removed.size();
  return at;
}

/// Adds the replacement's state: input specs and graph inputs where the
/// removed state of the same kind was (else after the last input of that kind
/// or an earlier kind), and StateBinding entries (storages labelled by
/// source); then orders the StateBinding like the signature and drops
/// storages nothing references.
void add_state(ir::ExportedProgram& ep, const std::vector<NewState>& added, const RemovedAt& removed_at,
               const ir::ExportedProgram& rep, std::string_view fqn) {
  ir::Graph& g = ep.graph();
  auto& specs = ep.signature().input_specs;
  std::vector<ir::InputSpec> out = specs;
  size_t shift = 0;  // inputs inserted so far before later anchors
  for (ir::InputKind k : {ir::InputKind::Parameter, ir::InputKind::Buffer, ir::InputKind::TensorConstant}) {
    std::vector<ir::InputSpec> mine;
    for (const auto& a : added) {
      if (a.spec.kind == k) mine.push_back(a.spec);
    }
    if (mine.empty()) continue;
    size_t pos = 0;
    auto r = removed_at.find(k);
    if (r != removed_at.end()) {
      pos = r->second + shift;
    } else {
      for (size_t i = 0; i < out.size(); ++i) {
        if (kind_rank(out[i].kind) <= kind_rank(k)) pos = i + 1;
      }
    }
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(pos), mine.begin(), mine.end());
    shift += mine.size();
  }
  std::vector<ir::Argument> inputs;
  for (const auto& s : out) {
    int idx = ep.signature().find_input(s.name());
    if (s.kind == ir::InputKind::ConstantInput) {
      inputs.push_back(s.arg);
    } else {
      inputs.push_back(idx >= 0 ? g.inputs()[static_cast<size_t>(idx)] : s.arg);
    }
  }
  specs = std::move(out);
  g.set_inputs(std::move(inputs));

  ir::StateBinding& st = ep.state;
  if (st.empty() && rep.state.empty()) return;
  std::vector<ir::ConstantRef> refs = st.tensors;
  for (const auto& a : added) {
    const ir::ConstantRef* r = rep.state.find(a.rep_fqn);
    if (!r) continue;
    ir::PayloadStorage storage = rep.state.storage_of(*r);
    if (storage.source.empty()) storage.source = "swap:" + std::string(fqn);
    size_t index = st.storages.size();
    for (size_t i = 0; i < st.storages.size(); ++i) {
      if (st.storages[i] == storage) index = i;
    }
    if (index == st.storages.size()) st.storages.push_back(storage);
    ir::ConstantRef copy = *r;
    copy.fqn = a.spec.target;
    copy.placeholder = std::string(a.spec.name());
    copy.storage = static_cast<uint32_t>(index);
    refs.push_back(std::move(copy));
  }
  std::vector<ir::ConstantRef> ordered;
  for (const auto& s : specs) {
    for (const auto& r : refs) {
      if (r.placeholder == s.name()) ordered.push_back(r);
    }
  }
  std::vector<int64_t> remap(st.storages.size(), -1);
  std::vector<ir::PayloadStorage> storages;
  for (auto& r : ordered) {
    if (remap[r.storage] < 0) {
      remap[r.storage] = static_cast<int64_t>(storages.size());
      storages.push_back(st.storages[r.storage]);
    }
    r.storage = static_cast<uint32_t>(remap[r.storage]);
  }
  st.storages = std::move(storages);
  st.tensors = std::move(ordered);
}

void update_module_call_graph(ir::ExportedProgram& ep, const ir::ExportedProgram& rep, std::string_view fqn) {
  auto& mcg = ep.graph_module.module_call_graph;
  const std::string prefix = std::string(fqn) + ".";
  std::vector<ir::ModuleCallEntry> out;
  for (const auto& e : mcg) {
    if (e.fqn.compare(0, prefix.size(), prefix) == 0) continue;
    out.push_back(e);
    if (e.fqn == fqn) {
      for (const auto& r : rep.graph_module.module_call_graph) {
        if (r.fqn.empty()) continue;
        ir::ModuleCallEntry n;
        n.fqn = prefix + r.fqn;
        out.push_back(std::move(n));
      }
    }
  }
  mcg = std::move(out);
}

}  // namespace

std::vector<SwapRequest> swaps_for_method(const std::vector<SwapRequest>& swaps, const std::string& method) {
  std::vector<SwapRequest> out;
  for (const auto& s : swaps) {
    if (s.method.empty() || s.method == method) out.push_back(s);
  }
  return out;
}

Status check_swap_requests(const std::vector<SwapRequest>& swaps) {
  for (size_t i = 0; i < swaps.size(); ++i) {
    if (!swaps[i].replacement) {
      return make_error(ErrorCode::OPTION_INVALID,
                        "the swap of module " + single_quoted(swaps[i].fqn) + " has no replacement program");
    }
    for (size_t j = 0; j < i; ++j) {
      if (swaps[i].fqn == swaps[j].fqn) {
        return make_error(ErrorCode::OPTION_INVALID, "module " + single_quoted(swaps[i].fqn) + " is swapped more than once");
      }
      const std::string& a = swaps[i].fqn;
      const std::string& b = swaps[j].fqn;
      if (is_same_or_submodule(a, b) || is_same_or_submodule(b, a)) {
        const std::string& inner = is_same_or_submodule(a, b) ? a : b;
        const std::string& outer = inner == a ? b : a;
        return make_error(ErrorCode::MODULE_SWAP, "swap requests overlap: module " + single_quoted(inner) +
                                                      " is inside module " + single_quoted(outer) +
                                                      ", whose replacement replaces it too");
      }
    }
  }
  return Status::Ok();
}

Status check_outputs_computed(const ir::Node& call) {
  const ir::GraphArgument* body_arg = call_module_body(call);
  if (!body_arg) return Status::Ok();
  const ir::Graph& body = *body_arg->graph;
  std::unordered_set<std::string_view> body_defined;
  for (const ir::Node& n : body) {
    for (std::string_view o : n.output_names()) body_defined.emplace(o);
  }
  for (size_t j = 0; j < body.outputs().size(); ++j) {
    const std::string* on = body.outputs()[j].value_name();
    if (body.outputs()[j].is_none() || !on || body_defined.count(*on)) continue;
    return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                      "output " + std::to_string(j) + " of module " + single_quoted(call_module_fqn(call)) +
                          " is " + single_quoted(*on) +
                          ", which the module does not compute (an input or a value from outside passed "
                          "through); its uses cannot be told apart from other uses of that value, so "
                          "swapping this module is not supported");
  }
  return Status::Ok();
}

Status check_replacement(const ir::ExportedProgram& ep, const ir::Node& call, const ir::ExportedProgram& replacement) {
  RepIO io;
  SymBinding bind(replacement, ep);
  return check(ep, call, replacement, io, bind);
}

namespace {

/// Swaps one module of `ep` for `req.replacement` (replace_modules' step), adding to `totals`.
Status replace_one(ir::ExportedProgram& ep, const SwapRequest& req, ReplaceTotals& totals) {
  ir::Graph& g = ep.graph();
  const ir::ExportedProgram& rep = *req.replacement;
  ir::Node* call = const_cast<ir::Node*>(find_call(g, req.fqn));
  if (!call) {
    return make_error(ErrorCode::PASS_PRECONDITION, "no call_module for module " + single_quoted(req.fqn) +
                                                        " (outline_modules must run before replace_modules)");
  }
  RepIO io;
  SymBinding bind(rep, ep);
  PTEFORGE_TRY(check(ep, *call, rep, io, bind));
  const std::string& fqn = req.fqn;

  // The new body: the replacement's graph, user inputs first, state after.
  ir::Graph body = rep.graph();
  if (!bind.empty()) {
    std::vector<std::pair<std::string, ir::ValueMeta>> metas;
    body.for_each_value([&](const ir::Value& v) {
      if (v.has_meta()) metas.emplace_back(v.name, bind.apply(v.meta));
    });
    for (auto& [n, m] : metas) body.set_meta(n, std::move(m));
  }
  rewrite_node_metadata(body, module_frames(*call_module_body(*call)->graph, *call, fqn, root_type(rep)),
                        fqn);
  std::vector<ir::Argument> body_inputs;
  for (size_t pos : io.user_inputs) body_inputs.push_back(rep.graph().inputs()[pos]);
  for (size_t pos : io.state_inputs) body_inputs.push_back(rep.graph().inputs()[pos]);
  body.set_inputs(std::move(body_inputs));
  std::vector<ir::Argument> body_outputs;
  for (size_t pos : io.user_outputs) body_outputs.push_back(rep.graph().outputs()[pos]);
  body.set_outputs(std::move(body_outputs));
  body.set_is_single_tensor_return(false);

  // The call gets the new body; the old module's state that nothing else reads goes.
  std::vector<std::string> old_captured;
  for (const auto& [bn, a] : call_module_captured(*call)) {
    if (const std::string* on = a->value_name()) old_captured.push_back(*on);
  }
  std::vector<ir::NamedArgument> ins;
  for (const auto& na : call->inputs()) {
    if (na.name == "module") {
      ir::GraphArgument ga;
      ga.name = fqn;
      ga.graph = ir::GraphBox(std::move(body));
      ins.push_back(ir::positional("module", ir::Argument::make<ir::ArgTag::Graph>(std::move(ga))));
    } else if (na.name != "captured") {
      ins.push_back(na);
    }
  }
  call->set_inputs(ins);
  size_t removed = 0;
  const RemovedAt removed_at = remove_unused_state(ep, old_captured, removed);
  totals.state_removed += removed;

  // The replacement's state joins the program under the module's prefix.
  std::vector<NewState> added;
  std::vector<std::string> reserved;
  ir::StringToArgument captured;
  for (size_t pos : io.state_inputs) {
    const ir::InputSpec& rs = rep.signature().input_specs[pos];
    NewState ns;
    ns.rep_name = std::string(rs.name());
    ns.rep_fqn = rs.target;
    ns.spec = rs;
    ns.spec.target = fqn + "." + rs.target;
    // State the old module shares with the rest of the program (a tied
    // weight) stays under its name: the replacement's must not take it.
    if (const int kept = ep.signature().find_state(ns.spec.target); kept >= 0) {
      Location where;
      where.node = std::string(ep.signature().input_specs[static_cast<size_t>(kept)].name());
      // Kept because it is read outside the module (a tied weight), or only
      // because the program writes a value back into it (remove_unused_state).
      const bool read = g.use_count(*where.node) > 0;
      return make_error(ErrorCode::MODULE_SWAP,
                        "the replacement's " + std::string(ir::input_kind_name(rs.kind)) + " " +
                            single_quoted(rs.target) + " would become " + single_quoted(ns.spec.target) +
                            ", a name the program keeps for state that " +
                            (read ? "is also used outside module " + single_quoted(fqn) + " (a tied weight)"
                                  : "it writes a value back into (a mutation output), although module " +
                                        single_quoted(fqn) + " was its only reader"),
                        std::move(where));
    }
    const std::string name = fresh_name(g, state_prefix(rs.kind) + sanitize(ns.spec.target), reserved);
    reserved.push_back(name);
    ns.spec.arg = ir::arg_tensor(name);
    if (const ir::Value* v = rep.graph().find_value(ns.rep_name); v && v->has_meta()) {
      g.set_meta(name, bind.apply(v->meta));
    }
    captured.entries.emplace_back(ns.rep_name, ir::arg_tensor(name));
    added.push_back(std::move(ns));
  }
  add_state(ep, added, removed_at, rep, fqn);
  totals.state_added += added.size();
  if (!captured.entries.empty()) {
    ins.push_back(
        ir::keyword("captured", ir::Argument::make<ir::ArgTag::StringToArgument>(std::move(captured))));
    call->set_inputs(std::move(ins));
  }
  update_module_call_graph(ep, rep, fqn);

  const std::vector<std::string> bound = bind.bound_symbols();
  totals.symbols_bound += bound.size();
  for (const auto& [sym, range] : rep.range_constraints) {
    if (std::find(bound.begin(), bound.end(), sym) != bound.end() || ep.range_for(sym)) continue;
    ep.range_constraints.emplace_back(sym, range);
  }
  ++totals.modules;
  return Status::Ok();
}

}  // namespace

Result<ReplaceTotals> replace_modules(ir::ExportedProgram& ep, const std::vector<SwapRequest>& swaps) {
  ReplaceTotals totals;
  PTEFORGE_TRY(check_swap_requests(swaps));
  for (const SwapRequest& req : swaps) {
    Status st = replace_one(ep, req, totals);
    if (!st.ok()) {
      Error e = std::move(st).error();
      if (!req.source.empty())
        e.notes.push_back("while swapping in " + replacement_name(req.fqn, req.source));
      return e;
    }
  }
  return totals;
}

}  // namespace pteforge::passes::module_swap
