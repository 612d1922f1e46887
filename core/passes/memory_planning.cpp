// memory_planning: places every planned tensor in the method's arena and
// records ExecutionPlan.non_const_buffer_sizes. Mirrors ExecuTorch's
// MemoryPlanningPass.run(graph, signature) with its defaults (greedy,
// alignment 16, alloc_graph_input/output and mutable buffers planned;
// executorch-pipeline.md §1.3 D, §6). Always the last graph pass.
//
// 1. Aliasing (§6.7, §4.3): an in-place op's result takes the spec of the
//    argument in its `(a!)` alias set; each memory.alloc value takes the spec
//    of the out-variant result it feeds (the same objects).
// 2. Node numbering (§6.1.2): ExecuTorch numbers the nodes of its FX graph:
//    placeholders 0..P-1, then every call node, then the output node N-1. Our
//    IR has no placeholder, getitem or output nodes, so they are counted
//    virtually: graph inputs are 0..P-1; after a node that defines several
//    values (torch.export's deserializer gives each a getitem node) come one
//    getitem slot per value still used (dead getitems were removed by to_edge's
//    DCE), plus one slot per nested list; memory.alloc nodes are single FX
//    nodes. The output is N-1.
// 3. Lifetimes (§6.1.2): at each index, the specs of the node itself and of
//    every node its arguments name; a memory.view node stands for its base's
//    spec; in-place nodes are skipped (as ExecuTorch's collect_specs_from_nodes
//    does), a getitem slot also names its multi-output node. lifetime =
//    [first, last] index, with placeholders starting at 0 and mutable-buffer
//    placeholders ending at N-1.
// 4. Planned specs in encounter order (§6.1.3): placeholders, non-out-variant
//    non-in-place nodes (allocs, views → base), getitem slots, the output;
//    without duplicates; skipping const specs (but a parameter with a gradient
//    is planned), DYNAMIC_UNBOUND specs, and graph inputs / outputs when
//    PipelineOptions::alloc_graph_input / alloc_graph_output is off (mutable
//    buffers are not graph inputs for that rule).
// 5. memplan::plan_memory with PipelineOptions::memory_planning (greedy |
//    naive | best_fit | best) and alignment; mem_id / mem_offset / mem_obj_id
//    are written back, view specs copy their base's placement and lifetime,
//    MethodState gets non_const_buffer_sizes ({0, 0} when nothing is planned),
//    live_bytes_lower_bound and the algorithm. With verify_each the plan is
//    checked (memplan::check_plan).
// Errors: PASS_PRECONDITION (no specs: spec_prop did not run), OPTION_INVALID
// (unknown algorithm), UNSUPPORTED_FEATURE (control-flow subgraphs), and the
// planner's and checker's errors.
//
// Example (arduino_add, §6.4): nodes 0 c, 1 x, 2 alloc, 3 add.out, 4 output;
// x [3] f32 lifetime [0,3], alloc [2,4] → alloc @0, x @16, sizes {0, 32}.
#include <tsl/robin_set.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/verifier.h"
#include "ops/op_table.h"
#include "passes/lowering_util.h"
#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"
#include "passes/memory_plan/stats.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"
#include "passes/tensor_spec.h"
#include "support/background_job.h"
#include "support/name_map.h"

namespace pteforge::passes {
namespace {

using SpecList = std::vector<TensorSpec*>;

/// One FX node of ExecuTorch's graph, as far as planning is concerned. Its
/// spec lists are ranges of two flat pools (one allocation each, not two per slot).
struct Slot {
  enum class Kind { Placeholder, Call, Getitem, Output } kind = Kind::Call;
  bool skip_collect = false;    ///< out-variant and in-place call nodes
  bool mutable_buffer = false;  ///< placeholder of a mutated buffer
  size_t own_begin = 0, own_end = 0;    ///< the node's own specs (get_node_tensor_specs), in SlotPools::own
  /// The specs alive at this slot, in SlotPools::life: own (unless in-place),
  /// and for getitem and output slots the specs of the nodes their args name
  /// (a call slot's argument references are added from each value's users).
  size_t life_begin = 0, life_end = 0;
};

struct SlotPools {
  SpecList own;
  SpecList life;
};

/// What planning asks about a call node, computed once per node (memoized
/// by NodeId): its own specs (a range of `pool`), whether it is in place and
/// whether it has getitems.
struct NodeFacts {
  bool known = false;
  bool inplace = false;
  bool getitems = false;
  size_t begin = 0, end = 0;
};

/// True when some argument of `node` names `value` as a tensor.
bool names_as_tensor(const ir::Node& node, const std::string& value) {
  bool found = false;
  for (const ir::NamedArgument& in : node.inputs()) {
    for_each_tensor_name(in.arg, [&](const std::string& n) { found = found || n == value; });
  }
  return found;
}

/// The node defines several values, so torch.export's deserializer gave it getitem nodes.
bool has_getitems(const ir::Node& node) {
  if (is_memory_alloc(node)) return false;
  const auto& outs = node.outputs();
  if (outs.size() > 1) return true;
  return outs.size() == 1 && !outs[0].is_tensor() && !outs[0].is_none() && has_tensor_name(outs[0]);
}

class MemoryPlanning final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"memory_planning", "assign arena offsets to every planned tensor", "to_executorch"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& graph = ep.graph();
    SpecTable& specs = ctx.state().specs;
    const PipelineOptions& options = ctx.options();

    PTEFORGE_ASSIGN_OR_RETURN(memplan::Algorithm algorithm, memplan::parse_algorithm(options.memory_planning));

    // Both checks walk the nodes only when they can fail (a walk of a
    // 100k-node graph is a visible share of this pass).
    if (graph.has_nested_graphs()) {
      for (const ir::Node& node : graph) {
        for (const ir::NamedArgument& in : node.inputs()) {
          if (in.arg.is<ir::ArgTag::Graph>()) {
            return ctx.error_at(ErrorCode::UNSUPPORTED_FEATURE,
                                "memory planning of control-flow subgraphs (" +
                                    std::string(node.target().str()) + ") is not supported yet",
                                node);
          }
        }
      }
    }
    if (specs.empty()) {
      bool any_tensor = false;
      for (const ir::Argument& in : graph.inputs()) any_tensor = any_tensor || has_tensor_name(in);
      for (const ir::Node& node : graph) {
        for (const ir::Argument& out : node.outputs()) any_tensor = any_tensor || has_tensor_name(out);
      }
      if (any_tensor) {
        return make_error(ErrorCode::PASS_PRECONDITION,
                          "memory_planning needs tensor specs: run spec_prop first");
      }
    }

    alias_specs(graph, specs);

    // ---- slots (ExecuTorch's FX nodes) ----
    std::vector<Slot> slots;
    slots.reserve(graph.inputs().size() + 2 * graph.num_nodes() + 1);  // calls, getitems, output
    SlotPools pools;
    auto spec_of = [&specs](const std::string& name) -> TensorSpec* { return specs.find(name); };
    // The spec of a value the slots reference, looked up once per value (by
    // slot id) rather than once per reference.
    std::vector<TensorSpec*> spec_memo(graph.value_slots(), nullptr);
    std::vector<uint8_t> spec_known(graph.value_slots(), 0);
    auto spec_of_value = [&](const ir::Value& v) -> TensorSpec* {
      const uint32_t id = v.id();
      if (!spec_known[id]) {
        spec_known[id] = 1;
        spec_memo[id] = specs.find(v.name);
      }
      return spec_memo[id];
    };
    // Appends the node's own specs (get_node_tensor_specs) to `out`.
    auto append_node_specs = [&](const ir::Node& node, SpecList& out) {
      if (is_memory_view(node)) {
        if (!node.inputs().empty() && node.inputs().front().arg.is_tensor()) {
          if (TensorSpec* s = spec_of(node.inputs().front().arg.tensor_name())) out.push_back(s);
        }
        return;
      }
      for (const ir::Argument& o : node.outputs()) {
        for_each_tensor_name(o, [&](const std::string& n) {
          if (TensorSpec* s = spec_of(n)) out.push_back(s);
        });
      }
    };
    std::vector<NodeFacts> facts(graph.node_id_bound());
    SpecList node_pool;  // NodeFacts ranges
    auto facts_of = [&](const ir::Node& node) -> const NodeFacts& {
      NodeFacts& f = facts[node.id()];
      if (!f.known) {
        f.known = true;
        f.inplace = is_inplace_node(node);
        f.getitems = has_getitems(node);
        f.begin = node_pool.size();
        append_node_specs(node, node_pool);
        f.end = node_pool.size();
      }
      return f;
    };
    auto append_range = [](SpecList& out, const SpecList& from, size_t begin, size_t end) {
      out.insert(out.end(), from.begin() + begin, from.begin() + end);
    };
    // The specs ExecuTorch sees for an argument naming value `v` (the node it names).
    auto append_value_ref_specs = [&](const ir::Value& v, SpecList& out) {
      if (!v.producer) {  // a placeholder
        if (TensorSpec* s = spec_of_value(v)) out.push_back(s);
        return;
      }
      const NodeFacts& p = facts_of(*v.producer);
      if (p.getitems) {  // a getitem node
        if (TensorSpec* s = spec_of_value(v)) out.push_back(s);
        return;
      }
      if (p.inplace) return;
      append_range(out, node_pool, p.begin, p.end);
    };
    auto append_ref_specs = [&](const std::string& value, SpecList& out) {
      if (const ir::Value* v = graph.find_value(value)) append_value_ref_specs(*v, out);
    };
    auto begin_slot = [&](Slot::Kind kind) {
      Slot s;
      s.kind = kind;
      s.own_begin = s.own_end = pools.own.size();
      s.life_begin = s.life_end = pools.life.size();
      return s;
    };
    auto end_slot = [&](Slot& s) {
      s.own_end = pools.own.size();
      s.life_end = pools.life.size();
      slots.push_back(s);
    };

    for (const ir::Argument& in : graph.inputs()) {
      Slot s = begin_slot(Slot::Kind::Placeholder);
      for_each_tensor_name(in, [&](const std::string& n) {
        if (TensorSpec* spec = spec_of(n)) {
          pools.own.push_back(spec);
          pools.life.push_back(spec);
          if (spec->is_mutable_buffer) s.mutable_buffer = true;
        }
      });
      end_slot(s);
    }
    SpecList elems;
    std::vector<const std::string*> names;
    // A call slot's references to other nodes' values are not listed in its
    // life range: they are added to the lifetimes value by value below, from
    // each value's users (no lookup by name per reference).
    std::vector<int64_t> call_slot(graph.node_id_bound(), -1);
    for (const ir::Node& node : graph) {
      const NodeFacts& f = facts_of(node);
      const size_t own_begin = f.begin, own_end = f.end;
      const bool inplace = f.inplace, getitems = f.getitems;
      Slot s = begin_slot(Slot::Kind::Call);
      s.skip_collect = inplace || is_out_variant_node(node);
      append_range(pools.own, node_pool, own_begin, own_end);
      if (!inplace) append_range(pools.life, node_pool, own_begin, own_end);
      call_slot[node.id()] = static_cast<int64_t>(slots.size());
      end_slot(s);
      if (!getitems) continue;
      // The node's own specs as its getitems see them (none for an in-place node).
      const size_t prod_begin = own_begin, prod_end = inplace ? own_begin : own_end;
      const auto& outs = node.outputs();
      const bool flat_list = outs.size() == 1;  // one list output: getitems on its elements
      for (const ir::Argument& o : outs) {
        names.clear();
        for_each_tensor_name(o, [&](const std::string& n) { names.push_back(&n); });
        if (names.empty()) continue;
        elems.clear();
        bool any_used = false;
        for (const std::string* n : names) {
          if (graph.use_count(*n) > 0) any_used = true;
          if (TensorSpec* sp = spec_of(*n)) elems.push_back(sp);
        }
        if (!any_used) continue;
        const bool nested = !flat_list && !o.is_tensor();
        if (nested) {  // getitem(node, i) yielding the list, then getitems of its elements
          Slot list = begin_slot(Slot::Kind::Getitem);
          pools.own.insert(pools.own.end(), elems.begin(), elems.end());
          pools.life.insert(pools.life.end(), elems.begin(), elems.end());
          append_range(pools.life, node_pool, prod_begin, prod_end);
          end_slot(list);
        }
        for (const std::string* n : names) {
          if (graph.use_count(*n) == 0) continue;
          Slot g = begin_slot(Slot::Kind::Getitem);
          if (TensorSpec* sp = spec_of(*n)) {
            pools.own.push_back(sp);
            pools.life.push_back(sp);
          }
          if (nested) {
            pools.life.insert(pools.life.end(), elems.begin(), elems.end());
          } else {
            append_range(pools.life, node_pool, prod_begin, prod_end);
          }
          end_slot(g);
        }
      }
    }
    {
      Slot out = begin_slot(Slot::Kind::Output);
      for (const ir::Argument& o : graph.outputs()) {
        for_each_tensor_name(o, [&](const std::string& n) {
          if (TensorSpec* sp = spec_of(n)) pools.own.push_back(&sp->storage());
          append_ref_specs(n, pools.life);
        });
      }
      pools.life.insert(pools.life.end(), pools.own.begin() + out.own_begin, pools.own.end());
      end_slot(out);
    }
    const int64_t last = static_cast<int64_t>(slots.size()) - 1;
    auto own_of = [&pools](const Slot& s) {
      return std::pair(pools.own.begin() + s.own_begin, pools.own.begin() + s.own_end);
    };

    // ---- lifetimes ----
    specs.for_each([](const std::string&, const TensorSpecPtr& s) {
      s->lifetime_first = -1;
      s->lifetime_last = -1;
      s->mem_offset.reset();
      s->mem_obj_id.reset();
    });
    for (int64_t i = 0; i <= last; ++i) {
      const Slot& s = slots[static_cast<size_t>(i)];
      const int64_t first = s.kind == Slot::Kind::Placeholder ? 0 : i;
      const int64_t end = (s.kind == Slot::Kind::Placeholder && s.mutable_buffer) ? last : i;
      for (size_t k = s.life_begin; k < s.life_end; ++k) {
        TensorSpec* spec = pools.life[k];
        spec->lifetime_first = spec->lifetime_first < 0 ? first : std::min(spec->lifetime_first, first);
        spec->lifetime_last = std::max(spec->lifetime_last, end);
      }
    }
    // A call node's arguments: each tensor a node's arguments name lives at
    // that node's slot (the specs of the node it names, as ExecuTorch's
    // lifetime walk sees them). Value::uses lists a node once per reference
    // of any kind; a value referenced as a tensor and as something else
    // (never in a valid graph) has its users' arguments read to tell them apart.
    SpecList refs;
    graph.for_each_value([&](const ir::Value& v) {
      if (v.uses.empty() || v.refs_as(ir::ValueKind::Tensor) == 0) return;
      refs.clear();
      append_value_ref_specs(v, refs);
      if (refs.empty()) return;
      const bool only_tensor_refs = v.refs_as(ir::ValueKind::Tensor) == v.refs();
      for (const ir::Node* user : v.uses) {
        if (!only_tensor_refs && !names_as_tensor(*user, v.name)) continue;
        const int64_t i = call_slot[user->id()];
        for (TensorSpec* spec : refs) {
          spec->lifetime_first = spec->lifetime_first < 0 ? i : std::min(spec->lifetime_first, i);
          spec->lifetime_last = std::max(spec->lifetime_last, i);
        }
      }
    });

    // ---- planned specs, in encounter order ----
    PtrSet<const TensorSpec> graph_inputs, graph_outputs;
    for (const Slot& s : slots) {
      auto [b, e] = own_of(s);
      if (s.kind == Slot::Kind::Placeholder && !s.mutable_buffer) graph_inputs.insert(b, e);
      if (s.kind == Slot::Kind::Output) graph_outputs.insert(b, e);
    }
    std::vector<TensorSpec*> planned;
    PtrSet<const TensorSpec> seen;
    for (const Slot& s : slots) {
      if (s.skip_collect) continue;
      for (size_t k = s.own_begin; k < s.own_end; ++k) {
        TensorSpec* spec = pools.own[k];
        if (spec->dynamism == ShapeDynamism::DynamicUnbound) continue;
        if (!options.alloc_graph_input && graph_inputs.count(spec)) continue;
        if (!options.alloc_graph_output && graph_outputs.count(spec)) continue;
        if (spec->is_const && !(s.kind == Slot::Kind::Placeholder && spec->weight_has_gradient)) continue;
        if (!seen.insert(spec).second) continue;
        planned.push_back(spec);
      }
    }

    // ---- plan ----
    std::vector<memplan::PlannedTensor> tensors;
    tensors.reserve(planned.size());
    for (size_t i = 0; i < planned.size(); ++i) {
      const TensorSpec& s = *planned[i];
      if (s.allocated_bytes(options.alignment) == UINT64_MAX) return too_large(graph, specs, s);
      memplan::PlannedTensor t;
      t.id = i;
      t.nbytes = s.nbytes();
      t.first_use = s.lifetime_first < 0 ? 0 : s.lifetime_first;
      t.last_use = std::max(t.first_use, s.lifetime_last);
      t.mem_id = s.mem_id.value_or(0);
      tensors.push_back(t);
    }
    memplan::PlanOptions plan_options;
    plan_options.algorithm = algorithm;
    plan_options.alignment = options.alignment;
    // The lower bound (a report figure) is computed on a second thread while
    // the plan is made: both only read `tensors`.
    Result<std::vector<uint64_t>> lower_bound = std::vector<uint64_t>{};
    BackgroundJob bound_job([&] { lower_bound = memplan::live_bytes_lower_bound(tensors, plan_options); });
    Result<memplan::MemoryPlan> made = memplan::plan_memory(tensors, plan_options);
    if (!made.ok()) {
      bound_job.wait();
      Error e = std::move(made).error();
      // An arena past 64 bits (dynamic sizes with huge bounds): name the tensors that fill it.
      if (e.message.rfind("memory pool size overflows", 0) == 0)
        e.notes.push_back(largest_note(specs, planned));
      return e;
    }
    memplan::MemoryPlan plan = std::move(made).value();
    if (options.verify_each) PTEFORGE_TRY(memplan::check_plan(tensors, plan, plan_options));
    bound_job.wait();
    if (!lower_bound.ok()) return std::move(lower_bound).error();
    std::vector<uint64_t> bound = std::move(lower_bound).value();

    for (size_t i = 0; i < planned.size(); ++i) {
      const memplan::Placement& p = plan.placements[i];
      planned[i]->mem_id = p.mem_id;
      planned[i]->mem_offset = p.offset;
      planned[i]->mem_obj_id = p.mem_obj_id;
    }
    specs.for_each([](const std::string&, const TensorSpecPtr& s) {
      if (!s->base) return;
      const TensorSpec& b = *s->base;
      s->mem_id = b.mem_id;
      s->mem_offset = b.mem_offset;
      s->mem_obj_id = b.mem_obj_id;
      s->lifetime_first = b.lifetime_first;
      s->lifetime_last = b.lifetime_last;
    });

    MethodState& state = ctx.state();
    state.non_const_buffer_sizes = plan.buffer_sizes;
    state.live_bytes_lower_bound = std::move(bound);
    state.planning_algorithm = std::string(memplan::algorithm_name(plan.algorithm));
    ctx.stat("planned_tensors", static_cast<int64_t>(planned.size()));
    uint64_t total = 0;
    for (uint64_t b : plan.buffer_sizes) total += b;
    ctx.stat("arena_bytes", static_cast<int64_t>(total));
    return true;
  }

 private:
  /// PASS_FAILED naming a value of spec `s`, whose size in bytes overflows
  /// 64 bits (e.g. a dynamic size whose upper bound is near 2^62).
  static Error too_large(const ir::Graph& graph, const SpecTable& specs, const TensorSpec& s) {
    std::string name;
    specs.for_each([&](const std::string& n, const TensorSpecPtr& p) {
      if (p.get() == &s && (name.empty() || n < name)) name = n;
    });
    std::string sizes;
    for (int64_t d : s.sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(d);
    Location where;
    if (const ir::Value* v = graph.find_value(name); v && v->producer) {
      where = ir::node_location(*v->producer);
    } else {
      where.node = name;
    }
    return make_error(ErrorCode::PASS_FAILED,
                      "tensor '" + name + "' cannot be planned: its size in bytes (sizes [" + sizes +
                          "], upper bounds for dynamic sizes), rounded up to the alignment, overflows 64 "
                          "bits; give its symbols "
                          "a smaller max",
                      where);
  }

  /// "largest planned tensors: 'a' (9223372036854775808 bytes), ..." (at
  /// most three, largest first), for an arena whose size overflows.
  static std::string largest_note(const SpecTable& specs, const std::vector<TensorSpec*>& planned) {
    std::vector<const TensorSpec*> order(planned.begin(), planned.end());
    std::stable_sort(order.begin(), order.end(),
                     [](const TensorSpec* a, const TensorSpec* b) { return a->nbytes() > b->nbytes(); });
    order.resize(std::min<size_t>(order.size(), 3));
    std::string note = "largest planned tensors:";
    for (size_t i = 0; i < order.size(); ++i) {
      std::string name;
      specs.for_each([&](const std::string& n, const TensorSpecPtr& p) {
        if (p.get() == order[i] && (name.empty() || n < name)) name = n;
      });
      note += (i ? ", '" : " '") + name + "' (" + std::to_string(order[i]->nbytes()) + " bytes)";
    }
    return note + "; give their symbols a smaller max";
  }

  /// Gives value `to` the spec of value `from` (when `from` has one). Most
  /// already share it (to_out_variant gave each alloc its result's spec), so
  /// that is checked first, without touching the reference counts.
  static void share_spec(SpecTable& specs, const std::string& from, const std::string& to) {
    TensorSpec* f = specs.find(from);
    if (!f || specs.find(to) == f) return;
    specs.set(to, specs.get(from));
  }

  /// In-place results take the spec of the tensor they write; memory.alloc
  /// values take the spec of the out-variant result they provide (§6.7, §4.3).
  static void alias_specs(const ir::Graph& graph, SpecTable& specs) {
    std::vector<const std::string*> results, allocs;  // reused for every node
    for (const ir::Node& node : graph) {
      const ops::OpSchema* schema = node_schema(node);
      if (!schema) continue;
      if (schema->is_inplace()) {
        const auto& outs = node.outputs();
        for (size_t r = 0; r < outs.size() && r < schema->returns.size(); ++r) {
          if (!outs[r].is_tensor()) continue;
          const auto& alias = schema->returns[r].type.alias;
          if (!alias || !alias->is_write) continue;
          for (const ops::Argument& a : schema->arguments) {
            if (!a.type.is_write() || a.type.alias->set != alias->set) continue;
            const ir::Argument* in = node.input(a.name);
            if (in && in->is_tensor()) share_spec(specs, in->tensor_name(), outs[r].tensor_name());
          }
        }
        continue;
      }
      if (!schema->is_out_variant()) continue;
      results.clear();
      for (const ir::Argument& o : node.outputs()) {
        for_each_tensor_name(o, [&](const std::string& n) { results.push_back(&n); });
      }
      size_t num_outs = 0;
      for (const ops::Argument& a : schema->arguments) num_outs += a.is_out() ? 1 : 0;
      size_t j = 0;
      for (const ops::Argument& out_arg : schema->arguments) {
        if (!out_arg.is_out()) continue;
        const ir::Argument* a = node.input(out_arg.name);
        if (!a || a->is_none()) continue;
        allocs.clear();
        for_each_tensor_name(*a, [&](const std::string& n) {
          const ir::Node* p = graph.producer(n);
          if (p && is_memory_alloc(*p)) allocs.push_back(&n);
        });
        if (num_outs == 1) {
          for (size_t k = 0; k < allocs.size() && k < results.size(); ++k)
            share_spec(specs, *results[k], *allocs[k]);
          break;
        }
        for (const std::string* alloc : allocs) {
          if (j < results.size()) share_spec(specs, *results[j], *alloc);
          ++j;
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Pass> make_memory_planning_pass() { return std::make_unique<MemoryPlanning>(); }

}  // namespace pteforge::passes
