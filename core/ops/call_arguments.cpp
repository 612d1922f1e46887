// check_call_arguments: see call_arguments.h.
//
// Which argument kinds a type accepts follows what torch's serializer writes
// for a value the operator took at export time (serialize_input), and what
// the emitter converts (§3.6): Python ints are as_int whatever the
// parameter's type, so an int is accepted where a float or a Scalar is
// expected; a Python number may stand for a Tensor; ints and bools stand for
// each other; an empty list may carry any list tag; a single int may stand
// for an int list (`int[2] stride=1`, broadcast by torch). Types without
// values of their own (Generator, Storage, ...) accept anything, None
// included.
#include "ops/call_arguments.h"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "ir/verifier.h"
#include "ops/op_table.h"
#include "support/name_map.h"

namespace pteforge::ops {
namespace {

using ir::ArgTag;

template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};

/// The number of elements of a list argument (any list tag: as_ints,
/// as_tensors, as_int_lists, ...), nullopt for any other argument. The list
/// tags are the Argument alternatives held as a std::vector.
std::optional<size_t> list_length(const ir::Argument& a) {
  return std::visit(
      [](const auto& v) -> std::optional<size_t> {
        if constexpr (IsVector<std::decay_t<decltype(v)>>::value) {
          return v.size();
        } else {
          return std::nullopt;
        }
      },
      a.variant());
}

/// False for the types whose arguments the emitter never writes as values
/// (Generator, Dimname, Storage, Stream, QScheme, Any): they accept anything.
bool has_values(BaseType base) {
  switch (base) {
    case BaseType::Generator:
    case BaseType::Dimname:
    case BaseType::Storage:
    case BaseType::Stream:
    case BaseType::QScheme:
    case BaseType::Any:
      return false;
    default:
      return true;
  }
}

/// Whether a single (non-list) value of type `base` may be given as `t`.
bool scalar_accepts(BaseType base, ArgTag t) {
  switch (base) {
    case BaseType::Tensor:  // or a Python number, which torch wraps in a tensor (`x * 2.0` as mul.Tensor)
      return t == ArgTag::Tensor || t == ArgTag::OptionalTensor || t == ArgTag::Int || t == ArgTag::Float ||
             t == ArgTag::Bool || t == ArgTag::SymInt || t == ArgTag::SymFloat || t == ArgTag::SymBool ||
             t == ArgTag::Complex;
    case BaseType::Int:  // or a bool, which the emitter writes as an int (§3.6)
    case BaseType::SymInt:
    case BaseType::DeviceIndex:
      return t == ArgTag::Int || t == ArgTag::SymInt || t == ArgTag::Bool || t == ArgTag::SymBool;
    case BaseType::Float:
    case BaseType::SymFloat:
      return t == ArgTag::Float || t == ArgTag::SymFloat || t == ArgTag::Int || t == ArgTag::SymInt;
    case BaseType::Bool:  // or an int, which the emitter writes as a bool (§3.6)
    case BaseType::SymBool:
      return t == ArgTag::Bool || t == ArgTag::SymBool || t == ArgTag::Int || t == ArgTag::SymInt;
    case BaseType::Scalar:
      return t == ArgTag::Int || t == ArgTag::Float || t == ArgTag::Bool || t == ArgTag::SymInt ||
             t == ArgTag::SymFloat || t == ArgTag::SymBool || t == ArgTag::Complex;
    case BaseType::Str:
      return t == ArgTag::String;
    case BaseType::ScalarType:
      return t == ArgTag::ScalarType;
    case BaseType::MemoryFormat:
      return t == ArgTag::MemoryFormat;
    case BaseType::Layout:
      return t == ArgTag::Layout;
    case BaseType::Device:
      return t == ArgTag::Device || t == ArgTag::String;
    default:  // Generator, Dimname, Storage, Stream, QScheme, Any: not values the emitter writes
      return true;
  }
}

/// Whether a list of `base` elements may be given as `t`.
bool list_accepts(const Type& type, ArgTag t) {
  switch (type.base) {
    case BaseType::Tensor:
      return t == ArgTag::Tensors || t == ArgTag::OptionalTensors;
    case BaseType::Int:
    case BaseType::SymInt:
      return t == ArgTag::Ints || t == ArgTag::SymInts || t == ArgTag::Int || t == ArgTag::SymInt ||
             t == ArgTag::Bools;
    case BaseType::Float:
    case BaseType::SymFloat:
      return t == ArgTag::Floats || t == ArgTag::SymFloats || t == ArgTag::Ints || t == ArgTag::SymInts;
    case BaseType::Bool:
    case BaseType::SymBool:
      return t == ArgTag::Bools || t == ArgTag::SymBools || t == ArgTag::Ints;
    case BaseType::Scalar:
      return t == ArgTag::Ints || t == ArgTag::Floats || t == ArgTag::Bools || t == ArgTag::SymInts ||
             t == ArgTag::SymFloats || t == ArgTag::SymBools;
    case BaseType::Str:
      return t == ArgTag::Strings;
    default:
      return true;
  }
}

bool accepts(const Type& type, const ir::Argument& a) {
  const ArgTag t = a.tag();
  // None: for an optional argument only (torch writes an empty list with
  // its list tag); a tensor, number or list the operator needs cannot be None.
  if (t == ArgTag::None) return type.optional || !has_values(type.base);
  if (!type.is_list) return scalar_accepts(type.base, t);
  if (list_length(a) == size_t{0}) return true;  // an empty list, whatever its tag
  return list_accepts(type, t);
}

/// "a tensor (as_tensor)", "an int (as_int)": what the node gave.
std::string describe(const ir::Argument& a) {
  std::string_view kind;
  switch (a.tag()) {
    case ArgTag::None:
      kind = "None";
      break;
    case ArgTag::Tensor:
      kind = "a tensor";
      break;
    case ArgTag::OptionalTensor:
      kind = "an optional tensor";
      break;
    case ArgTag::Tensors:
      kind = "a tensor list";
      break;
    case ArgTag::OptionalTensors:
      kind = "a list of optional tensors";
      break;
    case ArgTag::Int:
      kind = "an int";
      break;
    case ArgTag::SymInt:
      kind = "a SymInt";
      break;
    case ArgTag::Float:
      kind = "a float";
      break;
    case ArgTag::SymFloat:
      kind = "a SymFloat";
      break;
    case ArgTag::Bool:
      kind = "a bool";
      break;
    case ArgTag::SymBool:
      kind = "a SymBool";
      break;
    case ArgTag::String:
      kind = "a string";
      break;
    case ArgTag::ScalarType:
      kind = "a dtype";
      break;
    case ArgTag::MemoryFormat:
      kind = "a memory format";
      break;
    case ArgTag::Layout:
      kind = "a layout";
      break;
    case ArgTag::Device:
      kind = "a device";
      break;
    case ArgTag::Graph:
      kind = "a graph";
      break;
    case ArgTag::Operator:
      kind = "an operator";
      break;
    default:
      kind = list_length(a) ? "a list" : "a value";
      break;
  }
  return std::string(kind) + " (" + std::string(ir::arg_tag_name(a.tag())) + ")";
}

class Checker {
 public:
  explicit Checker(bool edge_dialect) : edge_dialect_(edge_dialect) {}

  Status check_graph(const ir::Graph& graph) {
    for (const ir::Node& node : graph) {
      if (node.target().kind() == ir::TargetKind::Operator) {
        if (const OpSchema* schema = schema_of(node)) PTEFORGE_TRY(check_node(node, *schema));
      } else if (node.target().kind() == ir::TargetKind::Other) {
        if (const OpSchema* schema = schema_of(node)) return unprefixed(node, *schema);
      } else if (node.target().kind() == ir::TargetKind::PythonOperator) {
        PTEFORGE_TRY(check_scalar_call(node));
      }
      if (!graph.has_nested_graphs()) continue;
      for (const ir::NamedArgument& in : node.inputs()) {
        if (in.arg.is<ArgTag::Graph>()) PTEFORGE_TRY(check_graph(*in.arg.get<ArgTag::Graph>().graph));
      }
    }
    return Status::Ok();
  }

 private:
  /// The schema of the node's target; looked up once per interned target.
  const OpSchema* schema_of(const ir::Node& node) {
    const std::string_view text = node.target().str();
    auto [it, inserted] = schemas_.try_emplace(text.data(), nullptr);
    if (inserted) it.value() = op_table().find(text);
    return it->second;
  }

  Status check_node(const ir::Node& node, const OpSchema& schema) {
    const std::vector<ir::NamedArgument>& inputs = node.inputs();
    // Each given argument: named (torch names every operator argument, and
    // the emitter binds them by name), once, with a value its type accepts.
    std::optional<size_t> unknown;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::NamedArgument& in = inputs[i];
      if (in.name.empty()) {
        return fail(node, i,
                    "input " + std::to_string(i) + " of " + schema.full_name() +
                        " has no name (torch names every argument of an operator call)");
      }
      for (size_t j = 0; j < i; ++j) {
        if (inputs[j].name == in.name) {
          return fail(node, i,
                      "argument " + single_quoted(in.name) + " of " + schema.full_name() + " is given twice");
        }
      }
      const Argument* sa = schema.find_argument(in.name);
      if (!sa) {
        if (!unknown) unknown = i;
        continue;
      }
      if (sa->kwarg_only && in.kind && *in.kind == ir::ArgumentKind::Positional) {
        // torch's serializer marks these keyword; its loader would pass the
        // value positionally, which the call refuses.
        return fail(node, i,
                    "argument " + single_quoted(in.name) + " of " + schema.full_name() +
                        " is keyword-only, but the call passes it positionally (kind 1)");
      }
      if (!accepts(sa->type, in.arg)) {
        return fail(node, i,
                    "argument " + single_quoted(in.name) + " of " + schema.full_name() + " is " +
                        describe(in.arg) + ", but its type is " + sa->type.to_string(false));
      }
    }
    // Every argument without a default is given.
    for (const Argument& sa : schema.arguments) {
      if (sa.default_value || node.input(sa.name)) continue;
      return fail(node, inputs.size(),
                  "argument " + single_quoted(sa.name) + " of " + schema.full_name() +
                      " is missing, and it has no default (its schema: " + schema.to_string() + ")");
    }
    PTEFORGE_TRY(check_outputs(node, schema, edge_dialect_));
    // A name the schema lacks: a corrupt file, or an argument a newer
    // PyTorch added. (torch's own loader drops such names, but dropping a
    // value that is not the default would change what the call computes.)
    if (unknown) {
      Error e = fail(node, *unknown,
                     schema.full_name() + " has no argument " + single_quoted(inputs[*unknown].name) +
                         " (its schema: " + schema.to_string() + ")",
                     ErrorCode::UNSUPPORTED_OPERATOR);
      e.notes.push_back(
          "pteforge's operator schemas are PyTorch's of early 2025 (about 2.7); a program exported by a "
          "newer "
          "PyTorch may pass arguments added since");
      return e;
    }
    return Status::Ok();
  }

  /// The node's outputs against the schema's returns, as torch's serializer
  /// writes them: none for an op that returns nothing (one None from older
  /// files), else one per return; a Tensor return is a tensor (or None, an
  /// undefined tensor), a tensor list return a list of tensors, and any other
  /// return no tensor. Errors: INVALID_GRAPH at the node's "/outputs[/j]".
  static Status check_outputs(const ir::Node& node, const OpSchema& schema, bool edge_dialect) {
    const auto& outs = node.outputs();
    const auto& returns = schema.returns;
    if (returns.empty()) {
      if (outs.empty() || (outs.size() == 1 && outs[0].is_none())) return Status::Ok();
      // A lowered program's out variant that writes a tensor list and returns
      // nothing keeps the functional op's results (to_out_variant's form).
      if (edge_dialect && schema.is_out_variant() && outs.size() == 1 &&
          (outs[0].is<ArgTag::Tensors>() || outs[0].is<ArgTag::OptionalTensors>())) {
        // One result per tensor the out list writes.
        auto list_size = [](const ir::Argument& a) -> std::optional<size_t> {
          if (a.is<ArgTag::Tensors>()) return a.get<ArgTag::Tensors>().size();
          if (a.is<ArgTag::OptionalTensors>()) return a.get<ArgTag::OptionalTensors>().size();
          return std::nullopt;
        };
        const size_t results = *list_size(outs[0]);
        for (size_t k : schema.out_argument_indices()) {
          for (const ir::NamedArgument& in : node.inputs()) {
            if (in.name != schema.arguments[k].name) continue;
            const std::optional<size_t> written = list_size(in.arg);
            if (written && *written != results) {
              return fail_output(node, 0,
                                 schema.full_name() + " writes " + std::to_string(*written) +
                                     " tensors into '" + in.name + "', but the node keeps " +
                                     std::to_string(results) + " results (one per tensor written)");
            }
          }
        }
        return Status::Ok();
      }
      return fail_output(
          node, outs.size(),
          schema.full_name() + " returns nothing, but the node has " + counted(outs.size(), "output"));
    }
    if (outs.size() != returns.size()) {
      std::string types;
      for (const Return& r : returns) types += (types.empty() ? "" : ", ") + r.type.to_string(false);
      return fail_output(node, outs.size(),
                         schema.full_name() + " returns " + counted(returns.size(), "value") + " (" + types +
                             "), but the node has " + counted(outs.size(), "output"));
    }
    for (size_t j = 0; j < outs.size(); ++j) {
      const Type& t = returns[j].type;
      const ArgTag tag = outs[j].tag();
      bool ok = true;
      if (t.is_tensor()) {
        ok = tag == ArgTag::Tensor || tag == ArgTag::None;
      } else if (t.base == BaseType::Tensor && t.is_list) {
        ok = tag == ArgTag::Tensors || tag == ArgTag::OptionalTensors || tag == ArgTag::None;
      } else {
        ok = tag != ArgTag::Tensor && tag != ArgTag::Tensors && tag != ArgTag::OptionalTensors;
      }
      if (!ok) {
        return fail_output(node, j,
                           "output " + std::to_string(j) + " of " + schema.full_name() + " is " +
                               describe(outs[j]) + ", but the operator returns " + t.to_string(false) +
                               " there");
      }
    }
    return Status::Ok();
  }

  /// The error at output `j` of `node` (j == outputs().size(): the outputs as a whole).
  static Error fail_output(const ir::Node& node, size_t j, std::string message) {
    Location where = ir::node_location(node);
    if (where.pointer) {
      *where.pointer += "/outputs";
      if (j < node.outputs().size()) *where.pointer += "/" + std::to_string(j);
    }
    return make_error(ErrorCode::INVALID_GRAPH,
                      "node " + single_quoted(node.name()) + ": " + std::move(message), std::move(where));
  }

  /// The error for an operator named without "torch.ops." ("aten.mul.Tensor"):
  /// torch's deserializer keeps such a target as a plain string, which no
  /// call can run.
  static Error unprefixed(const ir::Node& node, const OpSchema& schema) {
    Location where = ir::node_location(node);
    if (where.pointer) *where.pointer += "/target";
    return make_error(ErrorCode::INVALID_GRAPH,
                      "node " + single_quoted(node.name()) + ": target " +
                          single_quoted(node.target().str()) +
                          " lacks the 'torch.ops.' prefix of an operator target (expected " +
                          single_quoted(schema.torch_name()) + ")",
                      std::move(where));
  }

  /// A Python operator call (_operator.mul, ...) is symbolic scalar
  /// arithmetic: torch.export writes one for SymInt, SymFloat and SymBool
  /// values, never with a tensor, which ExecuTorch's prim ops
  /// (executorch_prim::mul.Scalar) cannot take. INVALID_GRAPH at the input.
  static Status check_scalar_call(const ir::Node& node) {
    const std::vector<ir::NamedArgument>& inputs = node.inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      bool tensor = false;
      ir::for_each_value_name(inputs[i].arg, [&tensor](const std::string&, ir::ValueKind kind) {
        tensor = tensor || kind == ir::ValueKind::Tensor;
      });
      if (!tensor) continue;
      return fail(
          node, i,
          "input " + std::to_string(i) + " of " + std::string(node.target().str()) + " is " +
              describe(inputs[i].arg) +
              ", but a Python operator call is scalar arithmetic (torch.export writes one for SymInt, "
              "SymFloat and SymBool values)");
    }
    return Status::Ok();
  }

  /// The error at input `i` of `node` (i == inputs().size(): the inputs as a whole).
  static Error fail(const ir::Node& node, size_t i, std::string message,
                    ErrorCode code = ErrorCode::INVALID_GRAPH) {
    Location where = ir::node_location(node);
    if (where.pointer) {
      *where.pointer += "/inputs";
      if (i < node.inputs().size()) *where.pointer += "/" + std::to_string(i);
    }
    return make_error(code, "node " + single_quoted(node.name()) + ": " + std::move(message),
                      std::move(where));
  }

  PtrMap<const char, const OpSchema*> schemas_;

  bool edge_dialect_ = false;
};

}  // namespace

Status check_call_arguments(const ir::Graph& graph, bool edge_dialect) {
  Checker checker(edge_dialect);
  return checker.check_graph(graph);
}

}  // namespace pteforge::ops
