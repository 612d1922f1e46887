// scalar_to_tensor: a Python int, float or bool passed to an operator argument
// whose schema type is exactly `Tensor` becomes a 0-d tensor constant.
//
// Mirrors ExecuTorch's ScalarToTensorPass (executorch-pipeline.md §1.2 step
// 6.4): the value becomes `torch.tensor(value)`, so the dtype follows default
// type inference: float → float32, int → int64, bool → bool. ExecuTorch keeps
// the tensor as a get_attr node until lift_constant_tensor_pass (§1.2 step 9)
// lifts it. Our IR has no get_attr, so the constant is created directly as a
// graph input with a CONSTANT_TENSOR input spec named `_tensor_constant<k>`,
// placed before the first user input, whose bytes live in the state binding
// (ConstantRef::inline_data). lift_constant_tensors later turns every such
// pass-created constant (a tensor-constant spec bound to inline bytes) into
// the persistent buffer `_lifted_tensor_constant<N>`.
//
// Only the top-level graph can hold such constants; a scalar passed to a
// Tensor argument inside a nested graph is UNSUPPORTED_FEATURE (naming the
// node). `Tensor?` and `Tensor[]` arguments are left alone, as in ExecuTorch.
// Preconditions: Core ATen graph.
//
// Before:  graph(%x): %add = aten.add.Tensor(%x, 1.0)
// After:   graph(%_tensor_constant0, %x): %add = aten.add.Tensor(%x, %_tensor_constant0)
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

/// True for the schema type `Tensor` (not optional, not a list).
bool is_plain_tensor(const ops::Type& t) {
  return t.base == ops::BaseType::Tensor && !t.is_list && !t.optional;
}

/// Little-endian bytes of `v` (an integral or floating type).
template <typename T>
std::vector<uint8_t> le_bytes(T v) {
  std::vector<uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  std::reverse(out.begin(), out.end());
#endif
  return out;
}

/// dtype and bytes of torch.tensor(value) for a scalar argument.
struct ScalarConstant {
  ir::ScalarType dtype;
  std::vector<uint8_t> bytes;
};

/// The Python number `a` stands for: a float, int or bool literal, or the
/// literal form of a symbolic one (as_sym_int {as_int}, ...), which torch's
/// deserializer reads as the plain number (deserialize_sym_argument).
std::optional<std::variant<double, int64_t, bool>> python_number(const ir::Argument& a) {
  if (const auto* f = a.get_if<ir::ArgTag::Float>()) return *f;
  if (const auto* i = a.get_if<ir::ArgTag::Int>()) return *i;
  if (const auto* b = a.get_if<ir::ArgTag::Bool>()) return *b;
  if (const auto* sf = a.get_if<ir::ArgTag::SymFloat>(); sf && !sf->is_name()) return sf->value;
  if (const auto* si = a.get_if<ir::ArgTag::SymInt>(); si && !si->is_name()) return si->value;
  if (const auto* sb = a.get_if<ir::ArgTag::SymBool>(); sb && !sb->is_name()) return sb->value;
  return std::nullopt;
}

/// The constant torch.tensor(value) makes for the Python number `a` stands
/// for (float32, int64 or bool, as ScalarToTensorPass); nullopt when `a` is
/// not a Python number.
std::optional<ScalarConstant> scalar_constant(const ir::Argument& a) {
  const auto number = python_number(a);
  if (!number) return std::nullopt;
  if (const auto* f = std::get_if<double>(&*number)) {
    return ScalarConstant{ir::ScalarType::Float, le_bytes(static_cast<float>(*f))};
  }
  if (const auto* i = std::get_if<int64_t>(&*number))
    return ScalarConstant{ir::ScalarType::Long, le_bytes(*i)};
  const bool b = std::get<bool>(*number);
  return ScalarConstant{ir::ScalarType::Bool, std::vector<uint8_t>{static_cast<uint8_t>(b ? 1 : 0)}};
}

/// True when scalar_constant(a) has a value (without building its bytes).
bool is_scalar_constant(const ir::Argument& a) { return python_number(a).has_value(); }

/// Positions (in node.inputs()) of scalars passed to plain Tensor arguments, in schema order.
std::vector<size_t> scalar_tensor_args(const ir::Node& node) {
  std::vector<size_t> out;
  const ops::OpSchema* op = node_schema(node);
  if (!op) return out;
  for (const auto& arg : op->arguments) {
    if (!is_plain_tensor(arg.type)) continue;
    int idx = node.input_index(arg.name);
    if (idx < 0) continue;
    if (is_scalar_constant(node.inputs()[static_cast<size_t>(idx)].arg)) out.push_back(static_cast<size_t>(idx));
  }
  return out;
}

class ScalarToTensor final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"scalar_to_tensor",
                                "turn Python scalars passed to Tensor arguments into 0-d tensor constants",
                                "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    ir::Graph& top = ep.graph();
    auto graphs = edge::graphs_bfs(top);
    for (size_t g = 1; g < graphs.size(); ++g) {
      for (const ir::Node& node : *graphs[g]) {
        if (!scalar_tensor_args(node).empty()) {
          return ctx.error_at(ErrorCode::UNSUPPORTED_FEATURE,
                              "a Python scalar passed to a Tensor argument of " +
                                  std::string(node.target().short_name()) +
                                  " inside a nested graph cannot become a tensor constant",
                              node);
        }
      }
    }
    if (ep.signature().input_specs.size() != top.inputs().size()) {
      return make_error(ErrorCode::PASS_PRECONDITION,
                        "the signature and the graph disagree on the number of inputs");
    }
    int64_t created = 0;
    int64_t counter = 0;
    // State names in use (signature targets and bound tensors), kept up to
    // date as constants are added: one lookup per candidate name instead of
    // a scan of every input and binding (quadratic in the constants made).
    // Built at the first constant: most programs need none.
    std::unordered_set<std::string> state_names;
    bool have_state_names = false;
    // New constants go right before the first user input (or first of all
    // when there is none); each one moves the user inputs one place on.
    std::optional<size_t> first_user = edge::first_user_input_index(ep);
    for (ir::Node& node : top) {
      for (size_t idx : scalar_tensor_args(node)) {
        if (!have_state_names) {
          have_state_names = true;
          for (const ir::InputSpec& s : ep.signature().input_specs) {
            if (s.is_state() || s.kind == ir::InputKind::CustomObj) state_names.insert(s.target);
          }
          for (const ir::ConstantRef& t : ep.state.tensors) state_names.insert(t.fqn);
        }
        const ir::NamedArgument& in = node.inputs()[idx];
        ScalarConstant c = *scalar_constant(in.arg);
        std::string name = next_name(ep, state_names, counter);
        add_constant_input(ep, name, c, first_user.value_or(0));
        if (first_user) ++*first_user;
        state_names.insert(name);
        node.set_input(idx, ir::arg_tensor(name));
        ++created;
      }
    }
    if (created) {
      edge::sort_state_by_signature(ep);
      ctx.stat("constants_created", created);
    }
    return created > 0;
  }

 private:
  /// The first `_tensor_constant<k>` (k >= counter) unused as a value or state name.
  static std::string next_name(const ir::ExportedProgram& ep, const std::unordered_set<std::string>& state_names,
                               int64_t& counter) {
    for (;; ++counter) {
      std::string name = "_tensor_constant" + std::to_string(counter);
      if (ep.graph().unique_name(name) != name) continue;
      if (state_names.count(name) != 0) continue;
      ++counter;
      return name;
    }
  }

  /// Adds placeholder `name` at input position `pos` with its signature entry and inline binding.
  static void add_constant_input(ir::ExportedProgram& ep, const std::string& name, const ScalarConstant& c,
                                 size_t pos) {
    ep.graph().insert_input(pos, ir::arg_tensor(name));
    ep.graph().set_tensor_meta(name, edge::scalar_meta(c.dtype));
    ir::InputSpec spec;
    spec.kind = ir::InputKind::TensorConstant;
    spec.arg = ir::arg_tensor(name);
    spec.target = name;
    auto& specs = ep.signature().input_specs;
    specs.insert(specs.begin() + static_cast<std::ptrdiff_t>(pos), std::move(spec));

    ir::ConstantRef ref;
    ref.fqn = name;
    ref.placeholder = name;
    ref.kind = ir::InputKind::TensorConstant;
    ref.dtype = c.dtype;
    ref.byte_length = c.bytes.size();
    ref.inline_data = c.bytes;
    ep.state.tensors.push_back(std::move(ref));
  }
};

}  // namespace

std::unique_ptr<Pass> make_scalar_to_tensor_pass() { return std::make_unique<ScalarToTensor>(); }

}  // namespace pteforge::passes
