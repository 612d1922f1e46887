// Importer: graph signature and module call graph (torch-export-format.md
// §3.6, §3.7, §7, §8).
#include "serde/import_context.h"
#include "serde/treespec_json.h"

namespace pteforge::serde::detail {
namespace {

Result<ir::Argument> tensor_arg(ImportContext& ctx, const JsonCursor& c, std::string_view type) {
  PTEFORGE_ASSIGN_OR_RETURN(std::string name, read_tensor_argument(ctx, c, type));
  return ir::arg_tensor(std::move(name));
}

Result<std::string> string_field(const JsonCursor& obj, const rapidjson::Value* slot, std::string_view key,
                                 std::string_view type) {
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor c, required(obj, slot, key, type));
  PTEFORGE_ASSIGN_OR_RETURN(std::string_view s, c.as_string());
  return std::string(s);
}

Result<ir::Argument> read_constant_value(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "ConstantValue"));
  if (u.tag == "as_none") return ir::arg_none();
  if (u.tag == "as_int") {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t v, u.payload.as_int());
    return ir::arg_int(v);
  }
  if (u.tag == "as_float") {
    PTEFORGE_ASSIGN_OR_RETURN(double v, u.payload.as_float());
    return ir::arg_float(v);
  }
  if (u.tag == "as_string") {
    PTEFORGE_ASSIGN_OR_RETURN(std::string_view v, u.payload.as_string());
    return ir::arg_string(std::string(v));
  }
  if (u.tag == "as_bool") {
    PTEFORGE_ASSIGN_OR_RETURN(bool v, u.payload.as_bool());
    return ir::arg_bool(v);
  }
  return unknown_tag(c, u, "ConstantValue", "as_none, as_int, as_float, as_string, as_bool");
}

/// Reads {"arg": ..., "<target_key>": "..."} payloads.
template <size_t N>
Result<Slots<N>> payload(ImportContext& ctx, const JsonCursor& c, std::string_view type,
                         const std::array<std::string_view, N>& keys) {
  return read_struct(ctx, c, type, keys);
}

Result<ir::InputSpec> read_input_spec(ImportContext& ctx, const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "InputSpec"));
  const JsonCursor& p = u.payload;
  ir::InputSpec spec;
  if (u.tag == "user_input") {
    static constexpr std::array<std::string_view, 1> kKeys = {"arg"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, "UserInputSpec", kKeys));
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", "UserInputSpec"));
    spec.kind = ir::InputKind::UserInput;
    PTEFORGE_ASSIGN_OR_RETURN(spec.arg, read_argument(ctx, arg, nullptr));
    return spec;
  }
  struct StateKind {
    std::string_view type;
    ir::InputKind kind;
  };
  static constexpr StateKind kState[] = {
      {"InputToParameterSpec", ir::InputKind::Parameter},
      {"InputToBufferSpec", ir::InputKind::Buffer},
      {"InputToTensorConstantSpec", ir::InputKind::TensorConstant},
  };
  for (const StateKind& k : kState) {
    if (u.tag != ir::input_kind_name(k.kind)) continue;
    const std::string_view key = ir::input_target_field(k.kind);
    const std::array<std::string_view, 3> keys = {"arg", key, "persistent"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, k.type, keys));
    if (k.kind != ir::InputKind::Buffer && s[2]) {
      ctx.warn(p.value(), "unknown field \"persistent\" in " + std::string(k.type) + " ignored", "persistent");
    }
    spec.kind = k.kind;
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", k.type));
    PTEFORGE_ASSIGN_OR_RETURN(spec.arg, tensor_arg(ctx, arg, "TensorArgument"));
    PTEFORGE_ASSIGN_OR_RETURN(spec.target, string_field(p, s[1], key, k.type));
    if (k.kind == ir::InputKind::Buffer) {
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor persistent, required(p, s[2], "persistent", k.type));
      PTEFORGE_ASSIGN_OR_RETURN(spec.persistent, persistent.as_bool());
    }
    return spec;
  }
  if (u.tag == "custom_obj") {
    const std::string_view key = ir::input_target_field(ir::InputKind::CustomObj);
    const std::array<std::string_view, 2> keys = {"arg", key};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, "InputToCustomObjSpec", keys));
    spec.kind = ir::InputKind::CustomObj;
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", "InputToCustomObjSpec"));
    PTEFORGE_ASSIGN_OR_RETURN(ir::CustomObjArgument obj, read_custom_obj(ctx, arg));
    spec.arg = ir::Argument::make<ir::ArgTag::CustomObj>(std::move(obj));
    PTEFORGE_ASSIGN_OR_RETURN(spec.target, string_field(p, s[1], key, "InputToCustomObjSpec"));
    return spec;
  }
  if (u.tag == "constant_input") {
    static constexpr std::array<std::string_view, 2> kKeys = {"name", "value"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, "InputToConstantInputSpec", kKeys));
    spec.kind = ir::InputKind::ConstantInput;
    PTEFORGE_ASSIGN_OR_RETURN(spec.constant_name, string_field(p, s[0], "name", "InputToConstantInputSpec"));
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor value, required(p, s[1], "value", "InputToConstantInputSpec"));
    PTEFORGE_ASSIGN_OR_RETURN(spec.arg, read_constant_value(value));
    return spec;
  }
  if (u.tag == "token") {
    static constexpr std::array<std::string_view, 1> kKeys = {"arg"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, "InputTokenSpec", kKeys));
    spec.kind = ir::InputKind::Token;
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", "InputTokenSpec"));
    PTEFORGE_ASSIGN_OR_RETURN(spec.arg, tensor_arg(ctx, arg, "TokenArgument"));
    return spec;
  }
  return unknown_tag(c, u, "InputSpec",
                     "user_input, parameter, buffer, tensor_constant, custom_obj, constant_input, token");
}

Result<ir::OutputSpec> read_output_spec(ImportContext& ctx, const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "OutputSpec"));
  const JsonCursor& p = u.payload;
  ir::OutputSpec spec;
  if (u.tag == "user_output") {
    static constexpr std::array<std::string_view, 1> kKeys = {"arg"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, "UserOutputSpec", kKeys));
    spec.kind = ir::OutputKind::UserOutput;
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", "UserOutputSpec"));
    PTEFORGE_ASSIGN_OR_RETURN(spec.arg, read_argument(ctx, arg, nullptr));
    return spec;
  }
  struct TensorKind {
    std::string_view type;
    ir::OutputKind kind;
  };
  static constexpr TensorKind kKinds[] = {
      {"LossOutputSpec", ir::OutputKind::LossOutput},
      {"BufferMutationSpec", ir::OutputKind::BufferMutation},
      {"GradientToParameterSpec", ir::OutputKind::GradientToParameter},
      {"GradientToUserInputSpec", ir::OutputKind::GradientToUserInput},
      {"UserInputMutationSpec", ir::OutputKind::UserInputMutation},
      {"OutputTokenSpec", ir::OutputKind::Token},
      {"ParameterMutationSpec", ir::OutputKind::ParameterMutation},
  };
  for (const TensorKind& k : kKinds) {
    if (u.tag != ir::output_kind_name(k.kind)) continue;
    spec.kind = k.kind;
    std::string_view arg_type = k.kind == ir::OutputKind::Token ? "TokenArgument" : "TensorArgument";
    const std::string_view key = ir::output_target_field(k.kind);  // "" = no target field
    if (key.empty()) {
      static constexpr std::array<std::string_view, 1> kKeys = {"arg"};
      PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, k.type, kKeys));
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", k.type));
      PTEFORGE_ASSIGN_OR_RETURN(spec.arg, tensor_arg(ctx, arg, arg_type));
    } else {
      const std::array<std::string_view, 2> keys = {"arg", key};
      PTEFORGE_ASSIGN_OR_RETURN(auto s, payload(ctx, p, k.type, keys));
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(p, s[0], "arg", k.type));
      PTEFORGE_ASSIGN_OR_RETURN(spec.arg, tensor_arg(ctx, arg, arg_type));
      PTEFORGE_ASSIGN_OR_RETURN(spec.target, string_field(p, s[1], key, k.type));
    }
    return spec;
  }
  return unknown_tag(c, u, "OutputSpec",
                     "user_output, loss_output, buffer_mutation, gradient_to_parameter, gradient_to_user_input, "
                     "user_input_mutation, token, parameter_mutation");
}

template <typename T, typename F>
Result<std::vector<T>> read_array(const JsonCursor& c, F&& read_one) {
  PTEFORGE_TRY(c.expect_array());
  std::vector<T> out;
  out.reserve(c.value().Size());
  for (const auto& e : c.value().GetArray()) {
    PTEFORGE_ASSIGN_OR_RETURN(T v, read_one(c.with(e)));
    out.push_back(std::move(v));
  }
  return out;
}

Result<ir::TreeSpec> read_treespec(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(std::string_view text, c.as_string());
  auto spec = parse_treespec(text);
  if (!spec.ok()) return c.error(ErrorCode::INPUT_SCHEMA, spec.error().message);
  return std::move(spec).value();
}

Result<ir::ModuleCallSignature> read_call_signature(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 5> kKeys = {"inputs", "outputs", "in_spec", "out_spec",
                                                            "forward_arg_names"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "ModuleCallSignature", kKeys));
  ir::ModuleCallSignature sig;
  auto arg = [&ctx](const JsonCursor& e) { return read_argument(ctx, e, nullptr); };
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor inputs, required(c, s[0], "inputs", "ModuleCallSignature"));
  PTEFORGE_ASSIGN_OR_RETURN(sig.inputs, read_array<ir::Argument>(inputs, arg));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor outputs, required(c, s[1], "outputs", "ModuleCallSignature"));
  PTEFORGE_ASSIGN_OR_RETURN(sig.outputs, read_array<ir::Argument>(outputs, arg));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor in_spec, required(c, s[2], "in_spec", "ModuleCallSignature"));
  PTEFORGE_ASSIGN_OR_RETURN(sig.in_spec, read_treespec(in_spec));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor out_spec, required(c, s[3], "out_spec", "ModuleCallSignature"));
  PTEFORGE_ASSIGN_OR_RETURN(sig.out_spec, read_treespec(out_spec));
  if (auto names = optional(c, s[4])) {
    PTEFORGE_ASSIGN_OR_RETURN(auto v, read_array<std::string>(*names, [](const JsonCursor& e) -> Result<std::string> {
                                PTEFORGE_ASSIGN_OR_RETURN(std::string_view sv, e.as_string());
                                return std::string(sv);
                              }));
    sig.forward_arg_names = std::move(v);
  }
  return sig;
}

}  // namespace

Result<ir::GraphSignature> read_signature(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 2> kKeys = {"input_specs", "output_specs"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "GraphSignature", kKeys));
  ir::GraphSignature sig;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor ins, required(c, s[0], "input_specs", "GraphSignature"));
  PTEFORGE_ASSIGN_OR_RETURN(sig.input_specs, read_array<ir::InputSpec>(
                                                 ins, [&ctx](const JsonCursor& e) { return read_input_spec(ctx, e); }));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor outs, required(c, s[1], "output_specs", "GraphSignature"));
  PTEFORGE_ASSIGN_OR_RETURN(sig.output_specs, read_array<ir::OutputSpec>(
                                                  outs, [&ctx](const JsonCursor& e) { return read_output_spec(ctx, e); }));
  return sig;
}

Result<std::vector<ir::ModuleCallEntry>> read_module_call_graph(ImportContext& ctx, const JsonCursor& c) {
  return read_array<ir::ModuleCallEntry>(c, [&ctx](const JsonCursor& e) -> Result<ir::ModuleCallEntry> {
    static constexpr std::array<std::string_view, 2> kKeys = {"fqn", "signature"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, e, "ModuleCallEntry", kKeys));
    ir::ModuleCallEntry entry;
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor fqn, required(e, s[0], "fqn", "ModuleCallEntry"));
    PTEFORGE_ASSIGN_OR_RETURN(std::string_view f, fqn.as_string());
    entry.fqn = std::string(f);
    if (auto sig = optional(e, s[1])) {
      PTEFORGE_ASSIGN_OR_RETURN(ir::ModuleCallSignature cs, read_call_signature(ctx, *sig));
      entry.signature = std::move(cs);
    }
    return entry;
  });
}

}  // namespace pteforge::serde::detail
