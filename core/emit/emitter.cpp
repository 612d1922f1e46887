// The method emitter: placeholders, memory nodes, outputs and bookkeeping
// (see emitter.h). Kernel calls and argument encoding are in emitter_args.cpp.
#include "emit/emitter.h"

#include <tsl/robin_map.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "emit/emitter_constants.h"
#include "emit/emitter_impl.h"
#include "ir/verifier.h"
#include "passes/lowering_util.h"
#include "serde/treespec_json.h"
#include "support/huge_pages.h"

namespace pteforge::emit {
namespace detail {

bool emittable_dtype(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::QUInt2x4:
    case ir::ScalarType::Bits16:
    case ir::ScalarType::Float8_e5m2fnuz:
    case ir::ScalarType::Float8_e4m3fnuz:
    case ir::ScalarType::UInt64:
    case ir::ScalarType::Float8_e8m0fnu:
      return false;
    default:
      return true;
  }
}

MethodEmitter::MethodEmitter(const MethodInput& method, ProgramState& program, const EmitOptions& options)
    : method_(method),
      ep_(*method.program),
      graph_(method.program->graph()),
      state_(*method.state),
      program_(program),
      options_(options) {}

Error MethodEmitter::error(ErrorCode code, std::string message) const {
  Location where = node_ ? ir::node_location(*node_) : Location{};
  where.method = method_.name;
  return make_error(code, std::move(message), std::move(where));
}

Result<int32_t> MethodEmitter::add_value(KernelTypes v) {
  if (plan_.values.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return error(ErrorCode::EMIT_LIMIT, "method has more than 2^31 - 1 values");
  }
  plan_.values.push_back(EValue{std::move(v)});
  return static_cast<int32_t>(plan_.values.size() - 1);
}

Status MethodEmitter::add_instruction(Instruction ins, const ir::Node* from_node) {
  auto& instructions = plan_.chains.front().instructions;
  if (instructions.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return error(ErrorCode::EMIT_LIMIT, "method has more than 2^31 - 1 instructions");
  }
  const auto index = static_cast<int32_t>(instructions.size());
  instructions.push_back(std::move(ins));
  if (!from_node) {
    if (options_.emit_stacktrace && !untraced_) untraced_.emplace(static_cast<size_t>(index), node_);
    return Status::Ok();
  }
  // ExecuTorch records the node's original debug handle for each kernel call (§3.15).
  auto it = state_.debug_handles.find(from_node);
  if (it != state_.debug_handles.end()) debug_.debug_handles.emplace_back(index, it->second);
  if (options_.emit_stacktrace) {
    stacktrace_.push_back(stacktrace_to_frames(from_node->metadata().stack_trace_text()));
    if (stacktrace_.size() != instructions.size()) {
      // ExecuTorch asserts the same after every kernel call: instructions
      // without a frame list (et_view calls) break emit_stacktrace.
      std::string which = "an instruction";
      if (untraced_) {
        const Instruction& bare = instructions[untraced_->first];
        which = "instruction " + std::to_string(untraced_->first);
        if (const auto* call = std::get_if<KernelCall>(&bare.instr_args)) {
          const Operator& op = plan_.operators[static_cast<size_t>(call->op_index)];
          which += " (" + op.name + (op.overload.empty() ? "" : "." + op.overload) + ")";
        }
        if (untraced_->second) which += ", emitted for node '" + untraced_->second->name() + "',";
      }
      Error e =
          error(ErrorCode::UNSUPPORTED_FEATURE,
                "emit_stacktrace needs one stack trace per instruction, but " + which +
                    " has none: ExecuTorch's emitter, which checks this after each kernel call, fails the "
                    "same way on a view of a dynamic-shape tensor");
      if (untraced_ && untraced_->second) {  // located at the node of the instruction without a trace
        e.where = ir::node_location(*untraced_->second);
        e.where.method = method_.name;
      }
      return e;
    }
  }
  return Status::Ok();
}

int32_t MethodEmitter::operator_index(const std::string& name, const std::string& overload) {
  operator_key_.assign(name);
  operator_key_.push_back('\n');
  operator_key_ += overload;
  auto found = operator_cache_.find(operator_key_);
  if (found != operator_cache_.end()) return found->second;
  const auto index = static_cast<int32_t>(plan_.operators.size());
  operator_cache_.emplace(operator_key_, index);
  plan_.operators.push_back(Operator{name, overload});
  return index;
}

int32_t MethodEmitter::operator_index(const ops::OpSchema& schema) {
  auto found = schema_operators_.find(&schema);
  if (found != schema_operators_.end()) return found->second;
  const int32_t index = operator_index(schema.qualified_name(), schema.overload);
  schema_operators_.emplace(&schema, index);
  return index;
}

Result<passes::TensorSpec*> MethodEmitter::spec_of(const std::string& name) {
  passes::TensorSpec* spec = state_.specs.find(name);
  if (!spec) {
    return error(ErrorCode::PASS_PRECONDITION,
                 "tensor '" + name + "' has no TensorSpec: the emitter needs spec_prop (and the to_executorch passes)");
  }
  return spec;
}

Result<int32_t> MethodEmitter::lookup(const std::string& name, ir::ValueKind kind) {
  if (kind == ir::ValueKind::Tensor) {
    const passes::TensorSpec* spec = state_.specs.find(name);
    if (!spec) return spec_of(name).error();  // the missing-spec error
    auto it = spec_values_.find(spec);
    if (it != spec_values_.end()) return it->second;
    return error(ErrorCode::INTERNAL, "tensor '" + name + "' is used before the emitter created its value");
  }
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  return error(ErrorCode::INTERNAL, "value '" + name + "' is used before the emitter created it");
}

Result<Tensor> MethodEmitter::tensor_of(const passes::TensorSpec& spec) {
  // Also refused: dtypes the .pte schema's ScalarType lacks (complex, sub-byte
  // types), here at the node rather than later by the serializer.
  if (!emittable_dtype(spec.dtype) || !ir::representable_in_pte(spec.dtype)) {
    return error(ErrorCode::UNSUPPORTED_FEATURE, "tensors of dtype " + std::string(ir::scalar_type_name(spec.dtype)) +
                                                     " cannot be written to a .pte (ExecuTorch has no mapping)");
  }
  // ExecuTorch's runtime refuses tensors of more dimensions
  // (kTensorDimensionLimit; executorch-pipeline.md §8 rule 12).
  constexpr size_t kMaxRank = 16;
  if (spec.sizes.size() > kMaxRank) {
    return error(ErrorCode::EMIT_LIMIT, "a tensor of rank " + std::to_string(spec.sizes.size()) +
                                            ": ExecuTorch tensors have at most " + std::to_string(kMaxRank) +
                                            " dimensions");
  }
  Tensor t;
  t.scalar_type = spec.dtype;
  t.sizes.reserve(spec.sizes.size());
  for (int64_t s : spec.sizes) {
    if (s < 0) return error(ErrorCode::EMIT_LIMIT, "tensor size " + std::to_string(s) + " is negative");
    if (s > std::numeric_limits<int32_t>::max()) {
      return error(ErrorCode::EMIT_LIMIT, "tensor size " + std::to_string(s) + " does not fit the .pte's int32 sizes");
    }
    t.sizes.push_back(static_cast<int32_t>(s));
  }
  t.dim_order = spec.dim_order;
  t.requires_grad = spec.requires_grad;
  t.shape_dynamism = static_cast<TensorShapeDynamism>(static_cast<int8_t>(spec.dynamism));
  if (spec.planned()) t.allocation_info = AllocationDetails{*spec.mem_id, *spec.mem_offset};
  return t;
}

Result<int32_t> MethodEmitter::emit_spec(const passes::TensorSpec* spec) {
  auto it = spec_values_.find(spec);
  if (it != spec_values_.end()) return it->second;
  PTEFORGE_ASSIGN_OR_RETURN(Tensor t, tensor_of(*spec));
  if (spec->is_view()) {
    // ExecuTorch's view specs share const-ness and storage with their base,
    // so a view of a tensor with stored data hashes to the same entry (§3.7):
    // the base's data_buffer_idx (constant, or initial value when planned).
    auto d = spec_data_.find(&spec->storage());
    if (d != spec_data_.end()) t.data_buffer_idx = d->second;
  } else if (spec->is_const) {
    return error(ErrorCode::INTERNAL, "a constant tensor spec has no stored data (only placeholders carry constants)");
  }
  PTEFORGE_ASSIGN_OR_RETURN(int32_t v, add_value(std::move(t)));
  spec_values_.emplace(spec, v);
  return v;
}

Status MethodEmitter::emit_placeholders() {
  for (size_t i = 0; i < graph_.inputs().size(); ++i) PTEFORGE_TRY(emit_placeholder(i));
  return Status::Ok();
}

Status MethodEmitter::emit_placeholder(size_t index) {
  const ir::Argument& in = graph_.inputs()[index];
  if (!in.is_tensor()) {
    // Non-tensor inputs: SpecPropPass keeps a Python int, float or bool as
    // the placeholder's spec and makes anything else None (§1.3 B3), which
    // the emitter writes as Null: symbolic values, None and strings.
    int32_t v = 0;
    switch (in.tag()) {
      case ir::ArgTag::Int: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Int{in.get<ir::ArgTag::Int>()}));
        break;
      }
      case ir::ArgTag::Float: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Double{in.get<ir::ArgTag::Float>()}));
        break;
      }
      case ir::ArgTag::Bool: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Bool{in.get<ir::ArgTag::Bool>()}));
        break;
      }
      case ir::ArgTag::String:
      case ir::ArgTag::None:
      case ir::ArgTag::SymInt:
      case ir::ArgTag::SymFloat:
      case ir::ArgTag::SymBool: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Null{}));
        if (const std::string* name = in.value_name()) names_[*name] = v;
        // A literal SymInt input is a plain int; so is a named one whose
        // value is a concrete int (torch loads it as one, and SpecPropPass
        // keeps it).
        if (in.is<ir::ArgTag::SymInt>()) {
          const ir::SymIntArgument& s = in.get<ir::ArgTag::SymInt>();
          const ir::Value* value = s.is_name() ? graph_.find_value(*s.name) : nullptr;
          const ir::SymInt* meta = value ? value->sym_int() : nullptr;
          if (!s.is_name()) {
            plan_.values[static_cast<size_t>(v)].val = Int{s.value};
          } else if (meta && meta->is_concrete()) {
            plan_.values[static_cast<size_t>(v)].val = Int{meta->value()};
          }
        }
        break;
      }
      default:
        return error(ErrorCode::UNSUPPORTED_FEATURE, "graph input " + std::to_string(index) + " of kind " +
                                                         std::string(in.tag_name()) + " cannot be emitted");
    }
    plan_.inputs.push_back(v);
    return Status::Ok();
  }

  const std::string& name = in.tensor_name();
  PTEFORGE_ASSIGN_OR_RETURN(passes::TensorSpec * spec, spec_of(name));
  const ir::GraphSignature& sig = ep_.signature();
  const ir::InputSpec* ispec = nullptr;
  if (index < sig.input_specs.size() && sig.input_specs[index].name() == name) {
    ispec = &sig.input_specs[index];
  } else if (int k = sig.find_input(name); k >= 0) {
    ispec = &sig.input_specs[static_cast<size_t>(k)];
  }
  const ir::InputKind kind = ispec ? ispec->kind : ir::InputKind::UserInput;
  if (kind == ir::InputKind::CustomObj) {
    Location where;
    where.node = name;
    where.method = method_.name;
    return make_error(ErrorCode::UNSUPPORTED_FEATURE, "custom object input '" + name + "' cannot be emitted", where);
  }
  const bool state_input = kind == ir::InputKind::Parameter || kind == ir::InputKind::Buffer ||
                           kind == ir::InputKind::TensorConstant;
  bool mutated = false;
  if (kind == ir::InputKind::Buffer) {
    for (const ir::OutputSpec& o : sig.output_specs) {
      if (o.kind == ir::OutputKind::BufferMutation && o.target == ispec->target) mutated = true;
    }
  }
  // §3.4 steps 1, 4: a buffer is mutable when the program mutates it (or it
  // was planned as one); const = not (user input or mutable buffer), except
  // that initialized mutable buffers carry data too.
  const bool mutable_buffer = kind == ir::InputKind::Buffer && (mutated || spec->is_mutable_buffer || spec->planned());
  const bool is_const = state_input && (!mutable_buffer || options_.init_buffers);
  if (mutable_buffer && !spec->planned()) {
    Location where;
    where.node = name;
    where.method = method_.name;
    return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                      "mutable buffer '" + ispec->target +
                          "' is not memory planned; ExecuTorch requires mutable buffers to be planned "
                          "(run memory_planning)",
                      where);
  }

  Result<Tensor> made = tensor_of(*spec);
  if (!made.ok()) {  // placeholders are not nodes of the emitter's walk: name this one
    Error e = std::move(made).error();
    if (!e.where.node) e.where.node = name;
    return e;
  }
  Tensor t = std::move(made).value();
  if (is_const) {
    if (!constants_indexed_) {
      for (const ir::ConstantRef& c : ep_.state.tensors) constants_by_placeholder_.emplace(c.placeholder, &c);
      constants_indexed_ = true;
    }
    auto found = constants_by_placeholder_.find(name);
    const ir::ConstantRef* ref = found == constants_by_placeholder_.end() ? nullptr : found->second;
    if (!ref) {
      Location where;
      where.node = name;
      where.method = method_.name;
      return make_error(ErrorCode::WEIGHTS_MISSING,
                        std::string(ir::input_kind_name(kind)) + " '" + ispec->target + "' (placeholder '" + name +
                            "') has no bound data: the input carries no weights for it",
                        where);
    }
    // Payloads of the main input are named by archive entry; those of an
    // additional input (a swapped-in module's weights) by its label and the
    // entry relative to its archive root.
    auto source_of = [this](const ir::PayloadStorage& s) {
      return payload_source(s, method_.weights_prefix, method_.constants_prefix);
    };
    // A payload that cannot be read is located at this placeholder and method.
    auto located = [&](Error e) {
      if (!e.where.node) e.where.node = name;
      if (!e.where.method) e.where.method = method_.name;
      return e;
    };
    auto read = constant_bytes(*ref, ep_.state, source_of, program_.reader);
    if (!read.ok()) return located(std::move(read).error());
    ConstantBytes bytes = std::move(read).value();
    if (bytes.data.size() != spec->nbytes()) {
      Location where;
      where.node = name;
      where.method = method_.name;
      return make_error(ErrorCode::PAYLOAD_INVALID,
                        "constant '" + ref->fqn + "' has " + std::to_string(bytes.data.size()) +
                            " bytes but its spec needs " + std::to_string(spec->nbytes()),
                        where);
    }
    if (bytes.relaid_out) debug_.relaid_out_constants.push_back(ref->fqn);
    // The dim order is the real tensor's (§3.4 step 3).
    t.dim_order = std::move(bytes.dim_order);
    ConstantPool& pool = spec->planned() ? program_.mutable_data : program_.constants;
    auto added = pool.add(std::move(bytes.data));
    if (!added.ok()) return located(std::move(added).error());
    const uint32_t idx = *added;
    t.data_buffer_idx = idx;
    spec_data_[spec] = idx;
  }
  PTEFORGE_ASSIGN_OR_RETURN(int32_t v, add_value(std::move(t)));
  spec_values_[spec] = v;
  named_specs_.emplace_back(&name, spec);
  if (!state_input) plan_.inputs.push_back(v);
  return Status::Ok();
}

Status MethodEmitter::emit_alloc(const ir::Node& node) {
  std::vector<const std::string*> names;
  for (const ir::Argument& out : node.outputs()) {
    ir::for_each_value_name(out, [&](const std::string& name, ir::ValueKind kind) {
      if (kind == ir::ValueKind::Tensor) names.push_back(&name);
    });
  }
  for (const std::string* name : names) {
    PTEFORGE_ASSIGN_OR_RETURN(passes::TensorSpec * spec, spec_of(*name));
    PTEFORGE_TRY(emit_spec(spec));
    named_specs_.emplace_back(name, spec);
  }
  return Status::Ok();
}

Status MethodEmitter::emit_view(const ir::Node& node) {
  const std::string* out = node.single_output();
  if (!out || node.inputs().size() != 2) {
    return error(ErrorCode::INTERNAL, "memory.view must have a base, a size and one output");
  }
  PTEFORGE_ASSIGN_OR_RETURN(passes::TensorSpec * spec, spec_of(*out));
  named_specs_.emplace_back(out, spec);
  // "const with storage": the base carries stored data (views share const-ness with their base).
  const bool has_storage = spec_data_.count(&spec->storage()) > 0;
  if (spec->dynamism == passes::ShapeDynamism::Static && (spec->planned() || has_storage)) {
    // Elided view (§3.7): a value with the view's shape at its base's memory.
    PTEFORGE_TRY(emit_spec(spec));
    return Status::Ok();
  }
  static const ops::Type kTensor{};
  ops::Type int_list;
  int_list.base = ops::BaseType::Int;
  int_list.is_list = true;
  PTEFORGE_ASSIGN_OR_RETURN(int32_t self, emit_argument(node.inputs()[0].arg, &kTensor));
  PTEFORGE_ASSIGN_OR_RETURN(int32_t size, emit_argument(node.inputs()[1].arg, &int_list));
  PTEFORGE_ASSIGN_OR_RETURN(int32_t result, emit_spec(spec));
  // The emitter's own helper call: literal overload "default", no return slot.
  const int32_t op = operator_index("executorch_prim::et_view", "default");
  return add_instruction(Instruction{KernelCall{op, {self, size, result}}}, nullptr);
}

Status MethodEmitter::emit_node(const ir::Node& node) {
  if (passes::is_memory_alloc(node)) return emit_alloc(node);
  if (passes::is_memory_view(node)) return emit_view(node);
  if (node.target().is_higher_order()) {
    Error e = passes::higher_order_error(node);
    e.where.method = method_.name;
    return e;
  }
  switch (node.target().kind()) {
    case ir::TargetKind::Operator:
      return emit_kernel_call(node);
    default:
      return error(ErrorCode::UNSUPPORTED_FEATURE,
                   "call of " + std::string(node.target().str()) +
                       " cannot be emitted: only operator calls reach a .pte (symbolic arithmetic needs "
                       "edge_to_backend_ops)");
  }
}

Status MethodEmitter::emit_outputs(const std::vector<ir::Argument>& outputs) {
  for (const ir::Argument& out : outputs) {
    int32_t v = 0;
    switch (out.tag()) {
      case ir::ArgTag::Tensor: {
        PTEFORGE_ASSIGN_OR_RETURN(v, lookup(out.tensor_name(), ir::ValueKind::Tensor));
        break;
      }
      case ir::ArgTag::OptionalTensor: {
        const auto& o = out.get<ir::ArgTag::OptionalTensor>();
        if (o.name) {
          PTEFORGE_ASSIGN_OR_RETURN(v, lookup(*o.name, ir::ValueKind::Tensor));
        } else {
          PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Null{}));
        }
        break;
      }
      case ir::ArgTag::SymInt:
      case ir::ArgTag::SymFloat:
      case ir::ArgTag::SymBool:
        if (const std::string* name = out.value_name()) {
          PTEFORGE_ASSIGN_OR_RETURN(v, lookup(*name, ir::ValueKind::SymInt));
        } else if (out.is<ir::ArgTag::SymInt>()) {
          PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Int{out.get<ir::ArgTag::SymInt>().value}));
        } else if (out.is<ir::ArgTag::SymFloat>()) {
          PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Double{out.get<ir::ArgTag::SymFloat>().value}));
        } else {
          PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Bool{out.get<ir::ArgTag::SymBool>().value}));
        }
        break;
      case ir::ArgTag::Int: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Int{out.get<ir::ArgTag::Int>()}));
        break;
      }
      case ir::ArgTag::Float: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Double{out.get<ir::ArgTag::Float>()}));
        break;
      }
      case ir::ArgTag::Bool: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Bool{out.get<ir::ArgTag::Bool>()}));
        break;
      }
      case ir::ArgTag::None: {
        PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Null{}));
        break;
      }
      default:
        return error(ErrorCode::UNSUPPORTED_FEATURE,
                     "a method output of kind " + std::string(out.tag_name()) + " cannot be emitted (§3.9)");
    }
    plan_.outputs.push_back(v);
  }
  return Status::Ok();
}

void MethodEmitter::collect_plan_info() {
  // Graph values sharing each emitted, planned, non-view spec, in graph order.
  PtrMap<const passes::TensorSpec, size_t> slot;
  std::vector<PlannedTensorInfo> infos;
  for (const auto& [name, spec] : named_specs_) {
    if (spec->is_view() || !spec->planned()) continue;
    auto v = spec_values_.find(spec);
    if (v == spec_values_.end()) continue;
    auto [it, inserted] = slot.try_emplace(spec, infos.size());
    if (inserted) {
      PlannedTensorInfo info;
      info.value = v->second;
      info.mem_id = *spec->mem_id;
      info.offset = *spec->mem_offset;
      info.nbytes = spec->nbytes();
      info.lifetime_first = spec->lifetime_first;
      info.lifetime_last = spec->lifetime_last;
      infos.push_back(std::move(info));
    }
    auto& names = infos[it->second].names;
    if (std::find(names.begin(), names.end(), *name) == names.end()) names.push_back(*name);
  }
  std::sort(infos.begin(), infos.end(),
            [](const PlannedTensorInfo& a, const PlannedTensorInfo& b) { return a.value < b.value; });
  debug_.planned = std::move(infos);
}

Result<EmittedMethod> MethodEmitter::run(const std::vector<ir::Argument>& outputs) {
  plan_.name = method_.name;
  if (const ir::ModuleCallSignature* sig = ep_.root_call_signature()) {
    plan_.container_meta_type.encoded_inp_str = serde::format_treespec(sig->in_spec);
    plan_.container_meta_type.encoded_out_str = serde::format_treespec(sig->out_spec);
  }
  plan_.chains.emplace_back();
  // Room for the usual sizes up front (values ~1.5x the graph's value slots
  // on the synthetic programs, instructions ~0.4x its nodes): a vector grown
  // by doubling touches about twice its final size, and memory touched for
  // the first time is the dearest part of a conversion (plan_.values alone
  // is ~52 MB at 100k nodes). A program that needs more grows as before.
  const size_t slots = graph_.value_slots();
  const size_t nodes = graph_.num_nodes();
  plan_.values.reserve(slots + nodes);
  advise_huge_pages(plan_.values.data(), plan_.values.capacity() * sizeof(EValue));
  plan_.chains.front().instructions.reserve(nodes);
  spec_values_.reserve(slots);
  named_specs_.reserve(slots);
  PTEFORGE_TRY(emit_placeholders());
  for (const ir::Node& node : graph_) {
    node_ = &node;
    PTEFORGE_TRY(emit_node(node));
  }
  node_ = nullptr;
  PTEFORGE_TRY(emit_outputs(outputs));
  if (options_.emit_stacktrace && !stacktrace_.empty()) plan_.chains.front().stacktrace = std::move(stacktrace_);
  for (uint64_t s : state_.non_const_buffer_sizes) plan_.non_const_buffer_sizes.push_back(static_cast<int64_t>(s));
  // Without memory planning ExecuTorch has no sizes to write; the runtime
  // needs the vector, with the unused pool 0.
  if (plan_.non_const_buffer_sizes.empty()) plan_.non_const_buffer_sizes.push_back(0);
  collect_plan_info();
  return EmittedMethod{std::move(plan_), std::move(debug_)};
}

}  // namespace detail

std::vector<ir::Argument> user_outputs(const ir::ExportedProgram& ep) {
  // pytree.tree_flatten(output_node.args): containers expanded, None dropped.
  std::vector<ir::Argument> flat;
  for (const ir::Argument& out : ep.graph().outputs()) {
    switch (out.tag()) {
      case ir::ArgTag::None:
        break;
      case ir::ArgTag::Tensors:
        for (const auto& t : out.get<ir::ArgTag::Tensors>()) flat.push_back(ir::arg_tensor(t.name));
        break;
      case ir::ArgTag::OptionalTensors:
        for (const auto& t : out.get<ir::ArgTag::OptionalTensors>()) {
          if (t.name) flat.push_back(ir::arg_tensor(*t.name));
        }
        break;
      case ir::ArgTag::OptionalTensor:
        if (out.get<ir::ArgTag::OptionalTensor>().name) flat.push_back(ir::arg_tensor(*out.get<ir::ArgTag::OptionalTensor>().name));
        break;
      case ir::ArgTag::Ints:
        for (int64_t v : out.get<ir::ArgTag::Ints>()) flat.push_back(ir::arg_int(v));
        break;
      case ir::ArgTag::Floats:
        for (double v : out.get<ir::ArgTag::Floats>()) flat.push_back(ir::arg_float(v));
        break;
      case ir::ArgTag::Bools:
        for (bool v : out.get<ir::ArgTag::Bools>()) flat.push_back(ir::arg_bool(v));
        break;
      case ir::ArgTag::SymInts:
        for (const auto& v : out.get<ir::ArgTag::SymInts>()) flat.push_back(ir::Argument::make<ir::ArgTag::SymInt>(v));
        break;
      default:
        flat.push_back(out);
    }
  }
  // zip(outputs, output_specs): stops at the shorter; BUFFER_MUTATION pairs are dropped.
  const auto& specs = ep.signature().output_specs;
  std::vector<ir::Argument> user;
  for (size_t i = 0; i < flat.size() && i < specs.size(); ++i) {
    if (specs[i].kind != ir::OutputKind::BufferMutation) user.push_back(std::move(flat[i]));
  }
  return user;
}

FrameList stacktrace_to_frames(std::string_view text) {
  // Lines, each with whether a '\n' ends it (the last one may lack it).
  std::vector<std::pair<std::string_view, bool>> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    const bool terminated = end != std::string_view::npos;
    if (!terminated) end = text.size();
    lines.emplace_back(text.substr(start, end - start), terminated);
    if (!terminated) break;
    start = end + 1;
  }
  auto strip = [](std::string_view s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return std::string_view();
    size_t e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
  };
  // ExecuTorch's pattern, File "(.*?)", line (\d+), in (.*?)\n: found
  // anywhere in a line that a newline ends; the file name is the shortest
  // text that lets the rest match, the name everything up to the newline.
  auto parse = [](std::string_view line, bool terminated, Frame& f) {
    if (!terminated) return false;
    constexpr std::string_view kFile = "File \"";
    constexpr std::string_view kLine = "\", line ";
    constexpr std::string_view kIn = ", in ";
    for (size_t at = line.find(kFile); at != std::string_view::npos; at = line.find(kFile, at + 1)) {
      const size_t name_start = at + kFile.size();
      for (size_t q = line.find(kLine, name_start); q != std::string_view::npos;
           q = line.find(kLine, q + 1)) {
        size_t num = q + kLine.size(), digits_end = num;
        while (digits_end < line.size() && line[digits_end] >= '0' && line[digits_end] <= '9') ++digits_end;
        if (digits_end == num || line.substr(digits_end, kIn.size()) != kIn) continue;
        int64_t lineno = 0;
        for (size_t i = num; i < digits_end; ++i) {
          if (lineno > 100000000) return false;  // past the schema's int32 lineno
          lineno = lineno * 10 + (line[i] - '0');
        }
        f.filename = std::string(line.substr(name_start, q - name_start));
        f.lineno = static_cast<int32_t>(lineno);
        f.name = std::string(line.substr(digits_end + kIn.size()));
        return true;
      }
    }
    return false;
  };
  FrameList out;
  for (size_t i = 0; i < lines.size(); ++i) {
    Frame f;
    if (!parse(lines[i].first, lines[i].second, f)) continue;
    if (i + 1 < lines.size()) {
      Frame next;
      if (!parse(lines[i + 1].first, lines[i + 1].second, next))
        f.context = std::string(strip(lines[i + 1].first));
    }
    out.items.push_back(std::move(f));
  }
  return out;
}

Result<EmittedMethod> emit_method(const MethodInput& method, const std::vector<ir::Argument>& outputs,
                                  ProgramState& program, const EmitOptions& options) {
  if (!method.program || !method.state) {
    return make_error(ErrorCode::INTERNAL, "emit_method needs a program and its method state");
  }
  detail::MethodEmitter emitter(method, program, options);
  return emitter.run(outputs);
}

}  // namespace pteforge::emit
