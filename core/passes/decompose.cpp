// decompose: rewrites a training-IR program (torch.export.export output,
// verifier "TRAINING") into Core ATen with the same results, shapes, dtypes
// and metadata, as ExecuTorch's to_edge does first with
// ep.run_decompositions() (default table minus EdgeCompileConfig.preserve_ops,
// then functionalization; executorch-pipeline.md §1.2 step 1).
//
// Preconditions: none beyond a verified IR (it is a no-op on Core ATen).
//
// What it does, node by node in execution order (nested subgraphs too):
//  * an operator outside the aten namespace (custom ops, quantized_decomposed,
//    higher-order ops, symbolic scalar arithmetic) is kept;
//  * an op listed in PipelineOptions::preserve_ops is kept (it must have an
//    out variant, else OPTION_INVALID before anything changes);
//  * an in-place op (add_, relu_, index_put_, copy_, ...) is functionalized:
//    it becomes its functional form, later uses of the mutated tensor read the
//    new value, a mutated view is scattered back into its base
//    (slice_scatter / select_scatter / inverse views), and a mutated buffer or
//    user input gets a BUFFER_MUTATION / USER_INPUT_MUTATION output, in input
//    order, before the user outputs — as torch's functionalization does;
//  * an op with a rule in the decomposition table (decompositions/table.h)
//    is replaced by the rule's Core ATen calls; the pass then visits the new
//    nodes, so rules may emit non-core ops that decompose further;
//  * a Core ATen op (tag `core` in native_functions.yaml) and the few
//    non-core ops Core ATen allows (sym_size.int, assertions) are kept;
//  * any other aten op is UNSUPPORTED_OPERATOR naming the node and the op,
//    with the advice to call ep.run_decompositions() before
//    torch.export.save, or to open an issue.
//  * afterwards, nodes whose results are unused and that have no side
//    effects are removed (eliminate_dead_code), as the re-trace drops them.
// Every created node inherits the origin and metadata of the node it
// replaces (Node::inherit_from): nn_module_stack, stack_trace and the
// debug-handle ancestry ExecuTorch derives from from_node.
//
// Before:  %linear = aten.linear.default(%x, %p_w, %p_b)      # x: f32[4, 16]
// After:   %permute = aten.permute.default(%p_w, [1, 0])
//          %addmm = aten.addmm.default(%p_b, %x, %permute)
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/decompositions/args.h"
#include "passes/decompositions/builders.h"
#include "passes/decompositions/rewriter.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

using decomp::Meta;
using decomp::Rewriter;

/// Non-core aten ops that Core ATen programs may still contain.
bool allowed_non_core(std::string_view short_name) {
  static constexpr std::string_view kAllowed[] = {
      "aten.sym_size.int",        "aten.sym_stride.int",          "aten.sym_numel.default",
      "aten.sym_storage_offset.default", "aten._assert_async.msg", "aten._assert_scalar.default",
      "aten.sym_constrain_range.default", "aten.sym_constrain_range_for_size.default",
      "aten._assert_tensor_metadata.default", "aten._local_scalar_dense.default",
  };
  for (std::string_view a : kAllowed) {
    if (a == short_name) return true;
  }
  // view_copy-tagged, which ExecuTorch's EXIR verifier accepts beside Core ATen: the trace
  // decomposition (at::native::diag) records it.
  return short_name == "aten.diagonal_copy.default";
}

/// View ops through which a mutation is written back to its base.
bool is_view_step(std::string_view short_name) {
  static constexpr std::string_view kViews[] = {
      "aten.slice.Tensor",    "aten.select.int",     "aten.view.default",  "aten._unsafe_view.default",
      "aten.permute.default", "aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
      "aten.squeeze.default", "aten.alias.default",  "aten.detach.default", "aten.transpose.int",
      "aten.t.default",       "aten.reshape.default", "aten.narrow.default", "aten.expand.default",
      "aten.as_strided.default", "aten.unfold.default", "aten.diagonal.default",
  };
  for (std::string_view v : kViews) {
    if (v == short_name) return true;
  }
  return false;
}

struct MutatedInput {
  size_t input_index = 0;
  ir::OutputKind kind = ir::OutputKind::BufferMutation;
  std::string target;
};

class Engine {
 public:
  Engine(ir::ExportedProgram& ep, PassContext& ctx) : ep_(ep), ctx_(ctx) {}

  Result<bool> run() {
    PTEFORGE_TRY(check_preserve_ops());
    symbols_.scan(ep_);
    PTEFORGE_TRY(run_graph(ep_.graph(), /*top_level=*/true));
    warn_unused_preserve_ops();
    if (!mutated_.empty()) order_mutation_outputs();
    bool was_training = false;
    for (auto& v : ep_.verifiers) {
      if (v == "TRAINING") {
        v = "ATEN";
        was_training = true;
      }
    }
    return changed_ || was_training;
  }

 private:
  Status check_preserve_ops() {
    for (const auto& name : ctx_.options().preserve_ops) {
      const ops::OpSchema* s = ops::op_table().find(name);
      Location where;
      where.pass = "decompose";
      if (!s) {
        return make_error(ErrorCode::OPTION_INVALID, "preserve_ops: \"" + name + "\" is not a known operator", where);
      }
      if (s->is_out_variant()) {
        // Name the functional op to preserve instead (the one this is the out variant of).
        std::string instead;
        const ops::OpTable& table = ops::op_table();
        for (size_t i = 0; i < table.size() && instead.empty(); ++i) {
          const ops::OpSchema& f = table.at(i);
          if (f.ns == s->ns && f.name == s->name && f.is_functional() && !f.is_out_variant() &&
              table.out_variant(f) == s) {
            instead = f.full_name();
          }
        }
        return make_error(ErrorCode::OPTION_INVALID,
                          "preserve_ops: " + s->full_name() +
                              " is an out variant; preserve the functional op" +
                              (instead.empty() ? std::string() : " (" + instead + ")") +
                              ", which to_out_variant turns into it",
                          where);
      }
      if (s->is_view() || !s->is_functional()) {
        return make_error(ErrorCode::OPTION_INVALID,
                          "preserve_ops: " + s->full_name() + " is a view or mutating op and cannot be preserved",
                          where);
      }
      if (!ops::op_table().out_variant(*s)) {
        return make_error(ErrorCode::OPTION_INVALID,
                          "preserve_ops: " + s->full_name() +
                              " has no out variant, so ExecuTorch could not run it undecomposed",
                          where);
      }
      if (preserved_.insert(s->torch_name()).second) preserved_order_.push_back(s);
    }
    return Status::Ok();
  }

  /// A preserved op that no node of this method calls (a program saved
  /// after run_decompositions() no longer has it) changes nothing: say so,
  /// once per op, in option order.
  void warn_unused_preserve_ops() {
    for (const ops::OpSchema* s : preserved_order_) {
      if (called_.count(s->torch_name())) continue;
      ctx_.warn("preserve_ops: " + s->full_name() +
                " is not called in this method, so there was nothing to preserve; if the program was saved "
                "after run_decompositions(), save it before that step instead (pteforge decomposes it itself)");
    }
  }

  Error error_at(ErrorCode code, std::string msg, const ir::Node& node, std::vector<std::string> notes = {}) {
    Error e = ctx_.error_at(code, std::move(msg), node);
    e.notes = std::move(notes);
    return e;
  }

  Error unsupported_op(const ir::Node& node) {
    std::string op(node.target().short_name());
    if (const ops::OpSchema* schema = target_schema(node.target()); schema && schema->is_out_variant()) {
      // torch.export writes functional calls; an out variant usually comes
      // from a program lowered for ExecuTorch whose verifiers were edited.
      return error_at(
          ErrorCode::UNSUPPORTED_OPERATOR,
          "node \"" + node.name() + "\" calls " + op +
              ", an out variant: the passes make out variants from functional calls (ExecuTorch's "
              "to_out_variant) and do not take them as input",
          node,
          {"convert the program torch.export.save wrote, not one already lowered (such as "
           "`convert --export-program` output)"});
    }
    std::vector<std::string> notes;
    // An op ExecuTorch's kernels run as they are: what its users list in
    // EdgeCompileConfig's _core_aten_ops_exception_list (pteforge: --preserve-ops).
    const ops::OpSchema* schema = target_schema(node.target());
    if (const ops::OpSchema* runs = schema ? ops::op_table().runtime_op(*schema) : nullptr) {
      notes.push_back("ExecuTorch's portable kernels run it (" + runs->full_name() + "): --preserve-ops " +
                      op + " keeps it, as EdgeCompileConfig's _core_aten_ops_exception_list would");
    }
    notes.push_back(
        "export with ep = ep.run_decompositions() before torch.export.save(ep, ...) "
        "(pteforge accepts the Core ATen program), or open an issue asking for a decomposition of " +
        op);
    return error_at(ErrorCode::UNSUPPORTED_OPERATOR,
                    "node \"" + node.name() + "\" calls " + op +
                        ", which is not in the Core ATen opset and has no decomposition in pteforge",
                    node, std::move(notes));
  }

  Status run_graph(ir::Graph& graph, bool top_level) {
    decomp::Env env(graph, symbols_);
    env.set_preserved(preserved_);
    decomp::SymValues sym_values;
    sym_values.scan(graph, symbols_);
    size_t budget = 200000 + graph.num_nodes() * 256;
    ir::Node* cur = graph.first_node();
    while (cur) {
      if (budget-- == 0) {
        return error_at(ErrorCode::INTERNAL, "decompose: rewrites do not terminate", *cur);
      }
      // Nested graphs (higher-order ops) are decomposed first, in their own namespace.
      for (size_t i = 0; i < cur->inputs().size(); ++i) {
        if (cur->inputs()[i].arg.is<ir::ArgTag::Graph>()) {
          ir::Argument arg = cur->inputs()[i].arg;
          ir::Graph& sub = *arg.get<ir::ArgTag::Graph>().graph;
          PTEFORGE_TRY(run_graph(sub, false));
          cur->set_input(i, std::move(arg));
        }
      }
      const ir::OpTarget& target = cur->target();
      if (target.kind() != ir::TargetKind::Operator || target.ns() != "aten") {
        cur = graph.next(*cur);
        continue;
      }
      if (!preserved_.empty()) {
        auto kept = preserved_.find(std::string(target.str()));
        if (kept != preserved_.end()) {
          called_.insert(*kept);
          cur = graph.next(*cur);
          continue;
        }
      }
      std::string_view short_name = target.short_name();
      const ops::OpSchema* schema = target_schema(target);
      const decomp::Decomposition* rule = decomp::find_decomposition(target);
      if (schema && (schema->is_inplace() || schema->is_mutable()) && !rule) {
        if (!top_level) {
          return error_at(ErrorCode::UNSUPPORTED_FEATURE,
                          "in-place op " + std::string(short_name) + " inside a control-flow subgraph", *cur);
        }
        PTEFORGE_ASSIGN_OR_RETURN(ir::Node * next, functionalize(graph, env, sym_values, *cur, *schema));
        changed_ = true;
        cur = next;
        continue;
      }
      if (!rule) {
        if ((schema && ops::is_core_aten(*schema)) || allowed_non_core(short_name)) {
          cur = graph.next(*cur);
          continue;
        }
        return unsupported_op(*cur);
      }
      PTEFORGE_ASSIGN_OR_RETURN(ir::Node * next, apply(graph, env, sym_values, *cur, schema, *rule, top_level));
      changed_ = true;
      cur = next;
    }
    return Status::Ok();
  }

  void replace(ir::Graph& graph, bool top_level, const std::string& from, const std::string& to) {
    if (top_level) {
      ep_.replace_all_uses(from, to);
    } else {
      graph.replace_all_uses(from, to);
    }
  }

  Result<ir::Node*> apply(ir::Graph& graph, decomp::Env& env, decomp::SymValues& sv, ir::Node& node,
                          const ops::OpSchema* schema, const decomp::Decomposition& rule, bool top_level) {
    Rewriter rw(env, sv, node, schema);
    rule.apply(rw);
    if (rw.ok() && !rw.outputs()) rw.fail(ErrorCode::INTERNAL, "decomposition produced no outputs");
    if (!rw.ok()) {
      Error e = *rw.error();
      Location here = ctx_.where_node(node);
      e.where.merge_missing(here);
      if (e.where.node != here.node) e.where.node = here.node;
      e.message = "node \"" + node.name() + "\" (" + std::string(node.target().short_name()) + "): " + e.message;
      return e;
    }
    std::vector<std::string_view> old_names = node.output_names();
    const std::vector<std::string>& repl = *rw.outputs();
    for (size_t i = 0; i < old_names.size(); ++i) {
      std::string old(old_names[i]);
      std::string to = i < repl.size() ? repl[i] : std::string();
      if (graph.use_count(old) == 0) continue;
      if (to.empty()) {
        return error_at(ErrorCode::INTERNAL,
                        "decomposition of " + std::string(node.target().short_name()) + " drops used output " + old,
                        node);
      }
      PTEFORGE_TRY(check_declared(graph, env, node, old, to));
      if (to != old) replace(graph, top_level, old, to);
    }
    ir::Node* next = rw.first_new() ? rw.first_new() : graph.next(node);
    PTEFORGE_TRY(graph.erase(node));
    ctx_.stat("decomposed." + std::string(rule.target));
    return next;
  }

  /// The replacement `to` of output `old` must have the dtype and sizes the
  /// program declared for `old` (decomp::same_dtype_and_sizes); otherwise the
  /// program's metadata is wrong for its own operator (INVALID_GRAPH at the
  /// node), as verify_shapes reports for calls that are not decomposed.
  /// Results on devices other than the CPU are not compared.
  Status check_declared(ir::Graph& graph, decomp::Env& env, const ir::Node& node, const std::string& old,
                        const std::string& to) {
    const ir::TensorMeta* tm = graph.tensor_meta(old);
    Result<Meta> inferred = env.meta(to);
    if (!tm || !inferred.ok()) return Status::Ok();
    auto mismatch = decomp::declared_mismatch(*tm, *inferred, symbols_);
    if (!mismatch) return Status::Ok();
    const std::string which = old != node.name() ? " output \"" + old + "\"" : "";
    return error_at(ErrorCode::INVALID_GRAPH,
                    "node \"" + node.name() + "\" (" + std::string(node.target().short_name()) + "):" + which +
                        " declared as " + mismatch->first + ", but its inputs give " + mismatch->second,
                    node);
  }

  // ---- functionalization ------------------------------------------------------------------------

  /// The functional overload of an in-place op: add_.Tensor → add.Tensor.
  const ops::OpSchema* functional_of(const ops::OpSchema& s) {
    // zero_ has no functional twin in the table; functionalization writes zero, which
    // torch._decomp turns into zeros_like (full_like 0).
    if (s.ns == "aten" && s.name == "zero_") return ops::op_table().find("aten", "zeros_like", "");
    return ops::op_table().find(s.ns, s.base_name(), s.overload);
  }

  /// Renames uses of `from` by nodes after `pos` (and graph outputs) to `to`.
  void rename_later_uses(ir::Graph& graph, const ir::Node& pos, const std::string& from, const std::string& to) {
    for (ir::Node* user : graph.users(from)) {
      if (user == &pos || !graph.is_before(pos, *user)) continue;
      for (size_t i = 0; i < user->inputs().size(); ++i) {
        ir::Argument arg = user->inputs()[i].arg;
        bool hit = false;
        ir::for_each_value_name_mut(arg, [&](std::string& n, ir::ValueKind) {
          if (n == from) {
            n = to;
            hit = true;
          }
        });
        if (hit) user->set_input(i, std::move(arg));
      }
    }
    const auto& outs = graph.outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::string* n = outs[i].value_name();
      if (n && *n == from) {
        ir::Argument a = outs[i];
        ir::for_each_value_name_mut(a, [&](std::string& s, ir::ValueKind) {
          if (s == from) s = to;
        });
        graph.set_output(i, a);
        auto& specs = ep_.signature().output_specs;
        if (i < specs.size()) {
          ir::for_each_value_name_mut(specs[i].arg, [&](std::string& s, ir::ValueKind) {
            if (s == from) s = to;
          });
        }
      }
    }
  }

  Result<ir::Node*> functionalize(ir::Graph& graph, decomp::Env& env, decomp::SymValues& sv, ir::Node& node,
                                  const ops::OpSchema& schema) {
    std::string_view short_name = node.target().short_name();
    // Metadata-only in-place views and no-ops.
    if (short_name == "aten.detach_.default" || short_name == "aten.requires_grad_.default") {
      std::vector<std::string_view> outs = node.output_names();
      const ir::Argument* self = node.input("self");
      if (self && self->is_tensor() && outs.size() == 1) {
        std::string out(outs[0]);
        replace(graph, true, out, self->tensor_name());
      }
      ir::Node* next = graph.next(node);
      PTEFORGE_TRY(graph.erase(node));
      return next;
    }
    if (!schema.is_inplace()) {
      return error_at(ErrorCode::UNSUPPORTED_FEATURE,
                      "node \"" + node.name() + "\" calls " + std::string(short_name) +
                          ", which mutates an argument but is not an in-place op with a functional form",
                      node);
    }
    if (schema.has_tag(ops::Tag::InplaceView)) {
      return error_at(ErrorCode::UNSUPPORTED_FEATURE,
                      "node \"" + node.name() + "\" calls " + std::string(short_name) +
                          " (an in-place change of a tensor's shape), which pteforge cannot functionalize",
                      node);
    }
    const ops::OpSchema* fn = functional_of(schema);
    if (!fn) {
      return error_at(ErrorCode::UNSUPPORTED_OPERATOR,
                      "node \"" + node.name() + "\" calls " + std::string(short_name) +
                          ", whose functional form is not a known operator",
                      node);
    }
    // The mutated argument: the first written (a!) argument.
    std::string self_arg;
    for (const auto& a : schema.arguments) {
      if (a.type.is_write()) {
        self_arg = a.name;
        break;
      }
    }
    const ir::Argument* self = node.input(self_arg);
    if (!self || !self->is_tensor()) {
      return error_at(ErrorCode::INVALID_GRAPH, "in-place op without a tensor in its mutated argument", node);
    }
    const std::string v = self->tensor_name();

    Rewriter rw(env, sv, node, &schema);
    Meta vm = rw.meta(v);
    if (!rw.ok()) return *rw.error();
    // The functional call with the same arguments.
    // Positional arguments take the functional schema's names (dropout_(self) → dropout(input)).
    std::vector<ir::NamedArgument> inputs = node.inputs();
    for (auto& in : inputs) {
      int idx = -1;
      for (size_t i = 0; i < schema.arguments.size(); ++i) {
        if (schema.arguments[i].name == in.name) idx = static_cast<int>(i);
      }
      if (idx >= 0 && static_cast<size_t>(idx) < fn->arguments.size() && !schema.arguments[idx].kwarg_only) {
        in.name = fn->arguments[idx].name;
      }
    }
    std::string f = decomp::fx_base_name(fn->torch_name().substr(std::string("torch.ops.").size()));
    std::string fname = graph.unique_name(f);
    ir::Node& fnode = graph.insert_before(node, ir::Node(ir::OpTarget(fn->torch_name()), inputs, {ir::arg_tensor(fname)},
                                                         fname));
    fnode.inherit_from(node);
    Meta fm = vm;
    fm.strides = decomp::is_dense(vm, symbols_) ? vm.strides : decomp::contiguous_strides(vm.sizes);
    fm.storage_offset = decomp::SymPoly(0);
    env.set_meta(fname, fm);

    // Walk from the mutated value to its root through view ops, scattering back.
    std::string new_child = fname;
    std::string child = v;
    std::vector<std::pair<std::string, std::string>> versions{{v, fname}};
    Rewriter scatter(env, sv, node, &schema);
    while (true) {
      ir::Node* prod = graph.producer(child);
      if (!prod || prod->target().kind() != ir::TargetKind::Operator ||
          !is_view_step(prod->target().short_name())) {
        break;
      }
      std::string_view vk = prod->target().short_name();
      const ops::OpSchema* vs = target_schema(prod->target());
      decomp::ArgView va(vs, prod->inputs(), env);
      auto base_r = va.tensor("self");
      if (!base_r.ok()) return error_at(ErrorCode::UNSUPPORTED_FEATURE, "in-place write through an unreadable view", node);
      std::string base = *base_r;
      std::string next_base;
      if (vk == "aten.slice.Tensor" || vk == "aten.narrow.default") {
        std::vector<ir::Argument> args{ir::arg_tensor(base), ir::arg_tensor(new_child)};
        if (vk == "aten.slice.Tensor") {
          args.push_back(va.find("dim") ? *va.find("dim") : ir::arg_int(0));
          args.push_back(va.find("start") ? *va.find("start") : ir::arg_none());
          args.push_back(va.find("end") ? *va.find("end") : ir::arg_none());
          args.push_back(va.find("step") ? *va.find("step") : ir::arg_int(1));
        } else {
          auto dim = va.int_("dim");
          auto start = va.sym("start");
          auto length = va.sym("length");
          if (!dim.ok() || !start.ok() || !length.ok()) {
            return error_at(ErrorCode::UNSUPPORTED_FEATURE, "in-place write through narrow with unreadable bounds", node);
          }
          args.push_back(ir::arg_int(*dim));
          args.push_back(scatter.size(*start));
          args.push_back(scatter.size(*start + *length));
        }
        next_base = scatter.call("aten.slice_scatter.default", std::move(args));
      } else if (vk == "aten.select.int") {
        const ir::Argument* dim = va.find("dim");
        const ir::Argument* index = va.find("index");
        if (!dim || !index) {
          return error_at(ErrorCode::INVALID_GRAPH, "select.int without dim/index arguments", *prod);
        }
        next_base = scatter.call("aten.select_scatter.default",
                                 {ir::arg_tensor(base), ir::arg_tensor(new_child), *dim, *index});
      } else if (vk == "aten.alias.default" || vk == "aten.detach.default") {
        next_base = new_child;
      } else if (vk == "aten.permute.default") {
        auto dims = va.ints("dims");
        if (!dims.ok()) return error_at(ErrorCode::UNSUPPORTED_FEATURE, "in-place write through permute", node);
        std::vector<int64_t> inv(dims->size());
        for (size_t i = 0; i < dims->size(); ++i) {
          int64_t d = (*dims)[i] < 0 ? (*dims)[i] + static_cast<int64_t>(dims->size()) : (*dims)[i];
          inv[d] = static_cast<int64_t>(i);
        }
        next_base = decomp::permute(scatter, new_child, inv);
      } else if (vk == "aten.transpose.int") {
        int64_t d0 = scatter.take(va.int_("dim0"));
        int64_t d1 = scatter.take(va.int_("dim1"));
        next_base = decomp::transpose(scatter, new_child, d0, d1);
      } else if (vk == "aten.t.default") {
        next_base = decomp::t(scatter, new_child);
      } else if (vk == "aten.view.default" || vk == "aten._unsafe_view.default" || vk == "aten.reshape.default" ||
                 vk == "aten.unsqueeze.default" || vk == "aten.squeeze.dim" || vk == "aten.squeeze.dims" ||
                 vk == "aten.squeeze.default") {
        Meta bm = scatter.meta(base);
        next_base = decomp::view(scatter, new_child, bm.sizes);
      } else {
        return error_at(ErrorCode::UNSUPPORTED_FEATURE,
                        "node \"" + node.name() + "\" writes in place through " + std::string(vk) +
                            ", which pteforge cannot functionalize",
                        node);
      }
      if (!scatter.ok()) {
        Error e = *scatter.error();
        e.where.merge_missing(ctx_.where_node(node));
        return e;
      }
      versions.emplace_back(base, next_base);
      new_child = next_base;
      child = base;
    }
    // Later readers see the new values.
    for (const auto& [old, now] : versions) {
      if (old != now) rename_later_uses(graph, node, old, now);
    }
    for (std::string_view out : node.output_names()) {
      std::string o(out);
      if (graph.use_count(o) > 0) replace(graph, true, o, fname);
    }
    // A mutated graph input becomes a mutation output.
    const std::string& root = child;
    const ir::Value* rv = graph.find_value(root);
    if (rv && rv->input_index >= 0) {
      PTEFORGE_TRY(record_mutation(graph, static_cast<size_t>(rv->input_index), new_child, node));
    }
    PTEFORGE_TRY(graph.erase(node));
    ctx_.stat("functionalized." + std::string(short_name));
    return &fnode;
  }

  Status record_mutation(ir::Graph& graph, size_t input_index, const std::string& value, const ir::Node& node) {
    const auto& specs = ep_.signature().input_specs;
    if (input_index >= specs.size()) return error_at(ErrorCode::INVALID_GRAPH, "input without a spec", node);
    const ir::InputSpec& in = specs[input_index];
    MutatedInput m;
    m.input_index = input_index;
    switch (in.kind) {
      case ir::InputKind::Buffer:
        m.kind = ir::OutputKind::BufferMutation;
        m.target = in.target;
        break;
      case ir::InputKind::UserInput:
        m.kind = ir::OutputKind::UserInputMutation;
        m.target = std::string(in.name());
        break;
      case ir::InputKind::Parameter:
        m.kind = ir::OutputKind::ParameterMutation;
        m.target = in.target;
        break;
      default:
        return error_at(ErrorCode::UNSUPPORTED_FEATURE,
                        "node \"" + node.name() + "\" mutates a " + std::string(ir::input_kind_name(in.kind)) +
                            " input, which cannot be written back",
                        node);
    }
    // Already recorded: the output now names the newest value.
    auto& out_specs = ep_.signature().output_specs;
    for (size_t i = 0; i < out_specs.size(); ++i) {
      if (out_specs[i].kind == m.kind && out_specs[i].target == m.target) {
        out_specs[i].arg = ir::arg_tensor(value);
        graph.set_output(i, ir::arg_tensor(value));
        return Status::Ok();
      }
    }
    ir::OutputSpec spec;
    spec.kind = m.kind;
    spec.arg = ir::arg_tensor(value);
    spec.target = m.target;
    out_specs.insert(out_specs.begin(), spec);
    std::vector<ir::Argument> outs = graph.outputs();
    outs.insert(outs.begin(), ir::arg_tensor(value));
    graph.set_outputs(std::move(outs));
    mutated_.push_back(m);
    return Status::Ok();
  }

  /// Mutation outputs added by this pass go first (after pre-existing ones), in input order.
  void order_mutation_outputs() {
    ir::Graph& graph = ep_.graph();
    auto& specs = ep_.signature().output_specs;
    std::vector<ir::Argument> outs = graph.outputs();
    std::vector<std::pair<size_t, std::pair<ir::OutputSpec, ir::Argument>>> ours;
    std::vector<ir::OutputSpec> rest_specs;
    std::vector<ir::Argument> rest_outs;
    for (size_t i = 0; i < specs.size(); ++i) {
      bool mine = false;
      for (const auto& m : mutated_) {
        if (specs[i].kind == m.kind && specs[i].target == m.target) {
          ours.push_back({m.input_index, {specs[i], outs[i]}});
          mine = true;
          break;
        }
      }
      if (!mine) {
        rest_specs.push_back(specs[i]);
        rest_outs.push_back(outs[i]);
      }
    }
    std::stable_sort(ours.begin(), ours.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    size_t lead = 0;
    while (lead < rest_specs.size() && (rest_specs[lead].kind == ir::OutputKind::BufferMutation ||
                                        rest_specs[lead].kind == ir::OutputKind::UserInputMutation ||
                                        rest_specs[lead].kind == ir::OutputKind::ParameterMutation ||
                                        rest_specs[lead].kind == ir::OutputKind::Token)) {
      ++lead;
    }
    std::vector<ir::OutputSpec> new_specs(rest_specs.begin(), rest_specs.begin() + lead);
    std::vector<ir::Argument> new_outs(rest_outs.begin(), rest_outs.begin() + lead);
    for (auto& o : ours) {
      new_specs.push_back(o.second.first);
      new_outs.push_back(o.second.second);
    }
    new_specs.insert(new_specs.end(), rest_specs.begin() + lead, rest_specs.end());
    new_outs.insert(new_outs.end(), rest_outs.begin() + lead, rest_outs.end());
    specs = std::move(new_specs);
    graph.set_outputs(std::move(new_outs));
  }

  ir::ExportedProgram& ep_;
  PassContext& ctx_;
  decomp::SymbolTable symbols_;
  std::set<std::string> preserved_;  // torch names ("torch.ops.aten.linear.default")
  std::vector<const ops::OpSchema*> preserved_order_;  // preserved_, in option order, each op once
  std::set<std::string> called_;     // the preserved ops some node calls
  std::vector<MutatedInput> mutated_;
  bool changed_ = false;
};

class Decompose final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"decompose",
                                "rewrite non-core ATen ops into Core ATen (PyTorch's default decompositions)",
                                "decompose"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    Engine engine(ep, ctx);
    PTEFORGE_ASSIGN_OR_RETURN(bool changed, engine.run());
    // run_decompositions re-traces the program, and the trace drops nodes
    // whose results nothing uses (aot_dispatch's graph.eliminate_dead_code):
    // so remove_unused_parameters, next in to_edge, sees parameters that only
    // dead nodes read as unused.
    PTEFORGE_ASSIGN_OR_RETURN(bool removed, run_dead_code_elimination(ep, ctx));
    return changed || removed;
  }
};

}  // namespace

std::unique_ptr<Pass> make_decompose_pass() { return std::make_unique<Decompose>(); }

}  // namespace pteforge::passes
