// Internal to the emitter (emitter.cpp, emitter_args.cpp): the per-method
// emission state and its steps. Not a public header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "emit/emitter.h"
#include "ops/op_schema.h"
#include "passes/tensor_spec.h"
#include "support/name_map.h"

namespace pteforge::emit::detail {

class MethodEmitter {
 public:
  MethodEmitter(const MethodInput& method, ProgramState& program, const EmitOptions& options);
  Result<EmittedMethod> run(const std::vector<ir::Argument>& outputs);

 private:
  // ---- values ----
  /// Appends a value; EMIT_LIMIT past 2^31 - 1 values.
  Result<int32_t> add_value(KernelTypes v);
  /// Appends an instruction (and its debug handle / stack trace for node kernel calls).
  Status add_instruction(Instruction ins, const ir::Node* from_node);
  /// The Tensor value of `spec`, creating it (§5.5) the first time.
  Result<int32_t> emit_spec(const passes::TensorSpec* spec);
  /// The spec of tensor value `name`; PASS_PRECONDITION when it has none.
  Result<passes::TensorSpec*> spec_of(const std::string& name);
  /// The value of an already emitted graph value (tensor by spec, others by name).
  Result<int32_t> lookup(const std::string& name, ir::ValueKind kind);
  /// Index of operator (name, overload) in this method's table, added on first use.
  int32_t operator_index(const std::string& name, const std::string& overload);
  /// operator_index of a schema's qualified name and overload, remembered per schema.
  int32_t operator_index(const ops::OpSchema& schema);
  /// Builds the serialized Tensor of a spec, without data (allocation_info when planned).
  Result<Tensor> tensor_of(const passes::TensorSpec& spec);

  // ---- steps ----
  Status emit_placeholders();
  Status emit_placeholder(size_t index);
  Status emit_node(const ir::Node& node);
  Status emit_alloc(const ir::Node& node);
  Status emit_view(const ir::Node& node);
  Status emit_kernel_call(const ir::Node& node);
  Status emit_outputs(const std::vector<ir::Argument>& outputs);
  void collect_plan_info();

  // ---- arguments (emitter_args.cpp) ----
  /// The value index for one argument given for schema type `type` (nullptr =
  /// unknown); new values for literals (§3.6).
  Result<int32_t> emit_argument(const ir::Argument& arg, const ops::Type* type);
  /// A schema default value (§3.5 step 3).
  Result<int32_t> emit_default(const ops::Value& v, const ops::Type& type);
  /// A boxed IntList: one new Int value per literal, existing values for names.
  Result<int32_t> emit_int_list(const std::vector<std::optional<std::string>>& names,
                                const std::vector<int64_t>& ints);
  /// The "empty tensor" for None given to a non-optional Tensor argument.
  Result<int32_t> emit_empty_tensor();

  Error error(ErrorCode code, std::string message) const;

  const MethodInput& method_;
  const ir::ExportedProgram& ep_;
  const ir::Graph& graph_;
  const passes::MethodState& state_;
  ProgramState& program_;
  const EmitOptions& options_;

  ExecutionPlan plan_;
  MethodDebugInfo debug_;
  std::vector<FrameList> stacktrace_;
  /// With emit_stacktrace: the first instruction emitted without a node's
  /// stack trace (an et_view), and the node it came from, for the error.
  std::optional<std::pair<size_t, const ir::Node*>> untraced_;
  /// Spec object → its Tensor value (ExecuTorch's spec-to-value cache).
  /// (Open addressing, as every table below that is looked up per argument.)
  PtrMap<const passes::TensorSpec, int32_t> spec_values_;
  /// Spec with stored data (constants; initial values of planned tensors) →
  /// data_buffer_idx; views of it reuse the entry.
  PtrMap<const passes::TensorSpec, uint32_t> spec_data_;
  /// Non-tensor graph values (SymInt results, symbolic placeholders) → value.
  NameMap<int32_t, std::string> names_;
  /// "name\noverload" → index in plan_.operators; operator_key_ is the
  /// reused buffer the key is built in.
  NameMap<int32_t, std::string> operator_cache_;
  std::string operator_key_;
  /// Schema → index in plan_.operators (operator_index by schema: its name
  /// is built once per operator, not once per call).
  PtrMap<const ops::OpSchema, int32_t> schema_operators_;
  /// Placeholder name → its bound constant (ep.state), built on first use.
  std::unordered_map<std::string_view, const ir::ConstantRef*> constants_by_placeholder_;
  bool constants_indexed_ = false;
  /// Every tensor value name with its spec, in graph order (for collect_plan_info).
  std::vector<std::pair<const std::string*, const passes::TensorSpec*>> named_specs_;
  /// The node being emitted (error locations); nullptr outside nodes.
  const ir::Node* node_ = nullptr;
};

/// ExecuTorch's scalar_type_enum: the dtypes its emitter can write (§5.4).
bool emittable_dtype(ir::ScalarType t);

}  // namespace pteforge::emit::detail
