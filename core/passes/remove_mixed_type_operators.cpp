// remove_mixed_type_operators: for `add.Tensor`, `sub.Tensor`, `mul.Tensor`,
// `div.Tensor`, `div.Tensor_mode` and `minimum.default`, every Tensor operand
// whose dtype differs from the promoted dtype gets an
// `aten._to_copy.default(x, dtype=<promoted>)` in front of the node, in the
// graph and in nested graphs.
//
// Mirrors ExecuTorch's RemoveMixedTypeOperators (executorch-pipeline.md §1.2
// step 6.9), which computes the dtype with torch's elementwise type promotion
// (torch._prims_common.elementwise_dtypes) over the positional operands:
//   1. the category is the highest of bool < int < float < complex over all
//      operands (Python numbers included);
//   2. the dtype is the highest dtype of that category among tensors with one
//      or more dimensions, else among 0-d tensors (scalar_to_tensor's
//      constants and SymInt/SymFloat/SymBool operands, which count as 0-d
//      int64/float32/bool), else the category default (int64, float32);
//   3. dtypes are ordered bool < {uint8, int8} < int16 < int32 < int64 <
//      {float16, bfloat16} < float32 < float64 < complex32 < complex64 <
//      complex128; two dtypes of one tier promote to the next tier;
//   4. `div.Tensor`, and `div.Tensor_mode` without a rounding mode, promote
//      integer and bool results to float32 (INT_TO_FLOAT).
// The casts take the consumer's origin and metadata. Dtypes outside the
// ordering (uint16/32/64, float8) are UNSUPPORTED_FEATURE naming the node.
// Preconditions: scalar_to_tensor ran (Tensor operands are tensors).
//
// Before:  %add = aten.add.Tensor(%x_i32, %y_f32)
// After:   %_to_copy = aten._to_copy.default(%x_i32, dtype=torch.float32)
//          %add = aten.add.Tensor(%_to_copy, %y_f32)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/edge_utils.h"
#include "passes/lowering_util.h"
#include "passes/pass.h"
#include "passes/pass_factories.h"

namespace pteforge::passes {
namespace {

using ir::ScalarType;

enum class Category : uint8_t { Bool = 0, Int = 1, Float = 2, Complex = 3 };

/// Promotion tier of a dtype (torch's ordered_datatypes); nullopt when not ordered.
std::optional<int> tier(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return 0;
    case ScalarType::Byte:
    case ScalarType::Char:
      return 1;
    case ScalarType::Short:
      return 2;
    case ScalarType::Int:
      return 3;
    case ScalarType::Long:
      return 4;
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 5;
    case ScalarType::Float:
      return 6;
    case ScalarType::Double:
      return 7;
    case ScalarType::ComplexHalf:
      return 8;
    case ScalarType::ComplexFloat:
      return 9;
    case ScalarType::ComplexDouble:
      return 10;
    default:
      return std::nullopt;
  }
}

/// First dtype of each tier.
constexpr ScalarType kTierHead[] = {
    ScalarType::Bool,        ScalarType::Byte,         ScalarType::Short,        ScalarType::Int,
    ScalarType::Long,        ScalarType::Half,         ScalarType::Float,        ScalarType::Double,
    ScalarType::ComplexHalf, ScalarType::ComplexFloat, ScalarType::ComplexDouble};

Category category(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return Category::Bool;
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:
      return Category::Complex;
    default:
      return ir::is_floating(t) ? Category::Float : Category::Int;
  }
}

/// torch get_higher_dtype; nullopt for dtypes outside the ordering.
std::optional<ScalarType> higher_dtype(std::optional<ScalarType> a, ScalarType b) {
  if (!a || *a == b) return b;
  auto ta = tier(*a), tb = tier(b);
  if (!ta || !tb) return std::nullopt;
  if (*ta == *tb) return *ta + 1 < 11 ? std::optional<ScalarType>(kTierHead[*ta + 1]) : std::nullopt;
  return *ta > *tb ? *a : b;
}

std::optional<ScalarType> complex_of(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
      return ScalarType::ComplexHalf;
    case ScalarType::BFloat16:
    case ScalarType::Float:
      return ScalarType::ComplexFloat;
    case ScalarType::Double:
      return ScalarType::ComplexDouble;
    default:
      return t;  // already complex
  }
}

/// One operand of the promotion: a tensor (dtype, rank) or a Python number (category only).
struct Operand {
  bool is_tensor = false;
  ScalarType dtype = ScalarType::Float;
  bool zero_dim = false;
  Category number_category = Category::Bool;
};

enum class Kind { Default, IntToFloat };

/// The promotion kind for the node's target; nullopt when it is not promoted.
std::optional<Kind> promotion_kind(const ir::Node& n) {
  std::string_view t = n.target().short_name();
  if (t == "aten.add.Tensor" || t == "aten.sub.Tensor" || t == "aten.mul.Tensor" ||
      t == "aten.minimum.default") {
    return Kind::Default;
  }
  if (t == "aten.div.Tensor") return Kind::IntToFloat;
  if (t == "aten.div.Tensor_mode") {
    const ir::Argument* mode = n.input("rounding_mode");
    return !mode || mode->is_none() ? Kind::IntToFloat : Kind::Default;
  }
  return std::nullopt;
}

/// torch elementwise_dtypes(...)[1] (the result dtype); nullopt on an unordered dtype.
std::optional<ScalarType> promote(const std::vector<Operand>& operands, Kind kind) {
  Category highest = Category::Bool;
  for (const Operand& o : operands) {
    Category c = o.is_tensor ? category(o.dtype) : o.number_category;
    if (c > highest) highest = c;
  }
  auto highest_of = [&](auto filter, bool as_complex) -> std::optional<std::optional<ScalarType>> {
    std::optional<ScalarType> zero_dim, dims;
    for (const Operand& o : operands) {
      if (!o.is_tensor || !filter(o.dtype)) continue;
      ScalarType d = o.dtype;
      if (as_complex) d = *complex_of(d);
      auto& slot = o.zero_dim ? zero_dim : dims;
      auto h = higher_dtype(slot, d);
      if (!h) return std::nullopt;
      slot = h;
    }
    return dims ? dims : zero_dim;
  };
  std::optional<ScalarType> result;
  switch (highest) {
    case Category::Bool:
      result = ScalarType::Bool;
      break;
    case Category::Int: {
      auto r = highest_of([](ScalarType d) { return category(d) == Category::Int; }, false);
      if (!r) return std::nullopt;
      result = r->value_or(ScalarType::Long);
      break;
    }
    case Category::Float: {
      auto r = highest_of([](ScalarType d) { return category(d) == Category::Float; }, false);
      if (!r) return std::nullopt;
      result = r->value_or(ScalarType::Float);
      break;
    }
    case Category::Complex: {
      auto r = highest_of(
          [](ScalarType d) { return category(d) == Category::Float || category(d) == Category::Complex; },
          true);
      if (!r) return std::nullopt;
      result = r->value_or(ScalarType::ComplexFloat);
      break;
    }
  }
  if (kind == Kind::IntToFloat &&
      (category(*result) == Category::Int || category(*result) == Category::Bool)) {
    result = ScalarType::Float;
  }
  return result;
}

class RemoveMixedTypeOperators final : public Pass {
 public:
  const PassInfo& info() const override {
    static const PassInfo kInfo{"remove_mixed_type_operators",
                                "insert dtype casts so binary ops see one promoted dtype", "to_edge"};
    return kInfo;
  }

  Result<bool> run(ir::ExportedProgram& ep, PassContext& ctx) override {
    int64_t inserted = 0;
    for (ir::Graph* graph : edge::graphs_bfs(ep.graph())) {
      for (ir::Node* node : graph->node_snapshot()) {
        auto kind = promotion_kind(*node);
        if (!kind) continue;
        const ops::OpSchema* op = target_schema(node->target());
        if (!op) continue;
        PTEFORGE_ASSIGN_OR_RETURN(auto operands, positional_operands(*graph, *node, *op, ctx));
        if (operands.size() <= 1) continue;
        auto promoted = promote(operands, *kind);
        if (!promoted) {
          return ctx.error_at(ErrorCode::UNSUPPORTED_FEATURE,
                              "cannot promote the operand dtypes of " +
                                  std::string(node->target().short_name()) +
                                  ": a dtype is outside torch's promotion order (uint16/32/64, float8)",
                              *node);
        }
        for (const auto& arg : op->arguments) {
          if (!arg.type.is_tensor() || arg.type.optional) continue;
          int idx = node->input_index(arg.name);
          if (idx < 0) continue;
          const ir::Argument& value = node->inputs()[static_cast<size_t>(idx)].arg;
          if (!value.is_tensor()) continue;
          const ir::TensorMeta* meta = graph->tensor_meta(value.tensor_name());
          if (!meta || meta->dtype == *promoted) continue;
          ir::TensorMeta cast_meta = *meta;
          cast_meta.dtype = *promoted;
          cast_meta.storage_offset = ir::SymInt(int64_t{0});
          std::string name = graph->unique_name("_to_copy");
          std::vector<ir::NamedArgument> inputs;
          inputs.push_back(ir::positional("self", value));
          inputs.push_back(ir::keyword("dtype", ir::arg_dtype(*promoted)));
          ir::Node& cast =
              graph->insert_before(*node, edge::make_call("aten._to_copy.default", std::move(inputs), name));
          cast.inherit_from(*node);
          graph->set_tensor_meta(name, cast_meta);
          node->set_input(static_cast<size_t>(idx), ir::arg_tensor(name));
          ++inserted;
        }
      }
    }
    if (inserted) ctx.stat("casts_inserted", inserted);
    return inserted > 0;
  }

 private:
  /// The operands that take part in promotion: the node's values for the
  /// schema's positional arguments (None skipped).
  static Result<std::vector<Operand>> positional_operands(const ir::Graph& g, const ir::Node& n,
                                                          const ops::OpSchema& op, const PassContext& ctx) {
    std::vector<Operand> out;
    for (const auto& arg : op.arguments) {
      if (arg.kwarg_only) break;
      const ir::Argument* a = n.input(arg.name);
      if (!a || a->is_none()) continue;
      Operand o;
      if (a->is_tensor()) {
        const ir::TensorMeta* m = g.tensor_meta(a->tensor_name());
        if (!m)
          return ctx.error_at(ErrorCode::PASS_PRECONDITION,
                              "operand %" + a->tensor_name() + " has no tensor metadata", n);
        o.is_tensor = true;
        o.dtype = m->dtype;
        o.zero_dim = m->rank() == 0;
      } else if (a->is<ir::ArgTag::SymInt>() && a->get<ir::ArgTag::SymInt>().is_name()) {
        o = Operand{true, ScalarType::Long, true, Category::Bool};
      } else if (a->is<ir::ArgTag::SymFloat>() && a->get<ir::ArgTag::SymFloat>().is_name()) {
        o = Operand{true, ScalarType::Float, true, Category::Bool};
      } else if (a->is<ir::ArgTag::SymBool>() && a->get<ir::ArgTag::SymBool>().is_name()) {
        o = Operand{true, ScalarType::Bool, true, Category::Bool};
      } else if (a->is<ir::ArgTag::Int>() || a->is<ir::ArgTag::SymInt>()) {
        o.number_category = Category::Int;
      } else if (a->is<ir::ArgTag::Float>() || a->is<ir::ArgTag::SymFloat>()) {
        o.number_category = Category::Float;
      } else if (a->is<ir::ArgTag::Bool>() || a->is<ir::ArgTag::SymBool>()) {
        o.number_category = Category::Bool;
      } else if (a->is<ir::ArgTag::Complex>()) {
        o.number_category = Category::Complex;
      } else {
        continue;
      }
      out.push_back(o);
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Pass> make_remove_mixed_type_operators_pass() {
  return std::make_unique<RemoveMixedTypeOperators>();
}

}  // namespace pteforge::passes
