// Helpers for the emitter tests: lowered methods built by hand (ProgramBuilder
// graphs with memory.* nodes, TensorSpecs and bound constants set by the
// test), emission, and short value descriptions.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/program_builder.h"
#include "emit/emit_program.h"
#include "emit/emitter.h"
#include "emit/pte_decode.h"
#include "passes/lowering_util.h"
#include "passes/tensor_spec.h"

namespace pteforge::testing {

/// Sets the spec of `name` (planned in pool 1 at `offset` when given).
inline passes::TensorSpecPtr set_spec(passes::MethodState& state, const std::string& name, ir::ScalarType dtype,
                                      std::vector<int64_t> sizes, std::optional<uint64_t> offset = std::nullopt) {
  auto s = std::make_shared<passes::TensorSpec>();
  s->dtype = dtype;
  s->sizes = sizes;
  s->strides = passes::contiguous_strides(sizes);
  s->dim_order = passes::dim_order_from_strides(s->strides);
  if (offset) {
    s->mem_id = 1;
    s->mem_offset = *offset;
  }
  state.specs.set(name, s);
  return s;
}

/// Makes `name` share the spec object of `other`.
inline void share_spec(passes::MethodState& state, const std::string& name, const std::string& other) {
  state.specs.set(name, state.specs.get(other));
}

/// Appends `%name = memory.alloc(sizes, dtype)` to the builder's graph.
inline std::string alloc(ProgramBuilder& b, const std::string& name, ir::ScalarType dtype, std::vector<int64_t> sizes) {
  std::vector<ir::NamedArgument> inputs = {ir::positional("size", ir::arg_ints(sizes)),
                                           ir::positional("dtype", ir::arg_dtype(dtype))};
  b.program().graph().append(ir::Node(passes::memory_alloc_target(), std::move(inputs), {ir::arg_tensor(name)}, name));
  b.program().graph().set_tensor_meta(name, make_meta(Out{dtype, std::move(sizes)}));
  return name;
}

/// Binds placeholder `placeholder` to inline bytes (as scalar_to_tensor does).
inline void bind_inline(ir::ExportedProgram& ep, const std::string& placeholder, const std::string& fqn,
                        ir::InputKind kind, ir::ScalarType dtype, std::vector<int64_t> sizes,
                        std::vector<uint8_t> bytes) {
  ir::ConstantRef ref;
  ref.fqn = fqn;
  ref.placeholder = placeholder;
  ref.kind = kind;
  ref.dtype = dtype;
  ref.sizes = sizes;
  ref.strides = ir::contiguous_strides(sizes);
  ref.byte_length = bytes.size();
  ref.inline_data = std::move(bytes);
  ep.state.tensors.push_back(std::move(ref));
}

/// Binds placeholder `placeholder` to a view of weights payload `path_name`.
inline void bind_payload(ir::ExportedProgram& ep, const std::string& placeholder, const std::string& fqn,
                         ir::InputKind kind, ir::ScalarType dtype, std::vector<int64_t> sizes,
                         std::vector<int64_t> strides, const std::string& path_name, uint64_t payload_size,
                         uint64_t byte_offset = 0) {
  uint32_t storage = 0;
  for (; storage < ep.state.storages.size(); ++storage) {
    if (ep.state.storages[storage].path_name == path_name) break;
  }
  if (storage == ep.state.storages.size()) {
    ep.state.storages.push_back(ir::PayloadStorage{ir::PayloadStore::Weights, path_name, payload_size, ""});
  }
  ir::ConstantRef ref;
  ref.fqn = fqn;
  ref.placeholder = placeholder;
  ref.kind = kind;
  ref.dtype = dtype;
  ref.sizes = sizes;
  ref.strides = strides;
  ref.storage = storage;
  ref.byte_offset = byte_offset;
  uint64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) last += static_cast<uint64_t>((sizes[i] - 1) * strides[i]);
  ref.byte_length = (last + 1) * ir::element_size(dtype);
  ep.state.tensors.push_back(std::move(ref));
}

inline std::vector<uint8_t> f32_bytes(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  size_t i = 0;
  for (float v : values) std::memcpy(out.data() + 4 * i++, &v, 4);
  return out;
}

/// One-line description of a value: "Int 1", "Tensor FLOAT [3] dim_order [0] mem 1@16 data 0", "IntList [2, 3]".
inline std::string describe_value(const emit::EValue& v) {
  auto ints = [](const auto& items) {
    std::string s = "[";
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + std::to_string(items[i]);
    return s + "]";
  };
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, emit::Null>) {
          return "Null";
        } else if constexpr (std::is_same_v<T, emit::Int>) {
          return "Int " + std::to_string(x.int_val);
        } else if constexpr (std::is_same_v<T, emit::Bool>) {
          return std::string("Bool ") + (x.bool_val ? "true" : "false");
        } else if constexpr (std::is_same_v<T, emit::Double>) {
          char buf[64];
          std::snprintf(buf, sizeof buf, "Double %g", x.double_val);
          return buf;
        } else if constexpr (std::is_same_v<T, emit::String>) {
          return "String " + x.string_val;
        } else if constexpr (std::is_same_v<T, emit::Tensor>) {
          std::string s = "Tensor " + emit::scalar_type_pte_name(x.scalar_type) + " " + ints(x.sizes) +
                          " dim_order " + ints(x.dim_order);
          if (x.allocation_info) {
            s += " mem " + std::to_string(x.allocation_info->memory_id) + "@" +
                 std::to_string(x.allocation_info->memory_offset);
          }
          s += " data " + std::to_string(x.data_buffer_idx);
          if (x.shape_dynamism != emit::TensorShapeDynamism::Static) s += " dynamic";
          return s;
        } else if constexpr (std::is_same_v<T, emit::IntList>) {
          return "IntList " + ints(x.items);
        } else if constexpr (std::is_same_v<T, emit::DoubleList>) {
          std::string s = "DoubleList [";
          for (size_t i = 0; i < x.items.size(); ++i) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%g", x.items[i]);
            s += (i ? ", " : "") + std::string(buf);
          }
          return s + "]";
        } else if constexpr (std::is_same_v<T, emit::BoolList>) {
          std::string s = "BoolList [";
          for (size_t i = 0; i < x.items.size(); ++i) s += (i ? ", " : "") + std::string(x.items[i] ? "true" : "false");
          return s + "]";
        } else if constexpr (std::is_same_v<T, emit::TensorList>) {
          return "TensorList " + ints(x.items);
        } else {
          return "OptionalTensorList " + ints(x.items);
        }
      },
      v.val);
}

/// Every value of a plan, one line each ("3: Int 1").
inline std::string describe_values(const emit::ExecutionPlan& plan) {
  std::string out;
  for (size_t i = 0; i < plan.values.size(); ++i) out += std::to_string(i) + ": " + describe_value(plan.values[i]) + "\n";
  return out;
}

/// Every instruction of a plan in the decoder's summary form, one per line.
inline std::string describe_instructions(const emit::ExecutionPlan& plan) {
  std::string out;
  for (const auto& ins : plan.chains.at(0).instructions) out += emit::format_instruction(plan, ins) + "\n";
  return out;
}

/// Emits one hand-lowered method named `name`.
inline Result<emit::EmittedMethod> emit_lowered(const ir::ExportedProgram& ep, const passes::MethodState& state,
                                                emit::ProgramState& program, const emit::EmitOptions& options = {},
                                                const std::string& name = "forward") {
  emit::MethodInput in;
  in.name = name;
  in.program = &ep;
  in.state = &state;
  return emit::emit_method(in, emit::user_outputs(ep), program, options);
}

}  // namespace pteforge::testing
