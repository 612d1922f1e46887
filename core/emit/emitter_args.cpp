// Kernel calls and argument encoding of the method emitter
// (executorch-pipeline.md §3.5, §3.6, §3.8).
#include <limits>

#include "emit/emitter_impl.h"
#include "ir/verifier.h"
#include "ops/op_table.h"
#include "passes/lowering_util.h"

namespace pteforge::emit::detail {
namespace {

/// ExecuTorch's "None": as_none, or an optional tensor holding None.
bool is_none_arg(const ir::Argument& a) {
  if (a.is_none()) return true;
  if (const auto* o = a.get_if<ir::ArgTag::OptionalTensor>()) return !o->name.has_value();
  return false;
}

/// A list argument's element base type from the schema, when known.
std::optional<ops::BaseType> list_element(const ops::Type* type) {
  if (!type || !type->is_list) return std::nullopt;
  return type->base;
}

bool is_int_like(ops::BaseType b) { return b == ops::BaseType::Int || b == ops::BaseType::SymInt; }

}  // namespace

Result<int32_t> MethodEmitter::emit_empty_tensor() {
  // §3.5 step 3: None for a non-optional Tensor argument.
  Tensor t;
  t.scalar_type = ir::ScalarType::Byte;
  t.sizes = {0};
  t.dim_order = {0};
  return add_value(std::move(t));
}

Result<int32_t> MethodEmitter::emit_int_list(const std::vector<std::optional<std::string>>& names,
                                             const std::vector<int64_t>& ints) {
  // Boxed (§3.6): a new Int per literal, in list order, then the list of indices.
  IntList list;
  list.items.reserve(ints.size());
  for (size_t i = 0; i < ints.size(); ++i) {
    if (i < names.size() && names[i]) {
      PTEFORGE_ASSIGN_OR_RETURN(int32_t v, lookup(*names[i], ir::ValueKind::SymInt));
      list.items.push_back(v);
    } else {
      PTEFORGE_ASSIGN_OR_RETURN(int32_t v, add_value(Int{ints[i]}));
      list.items.push_back(v);
    }
  }
  return add_value(std::move(list));
}

Result<int32_t> MethodEmitter::emit_argument(const ir::Argument& a, const ops::Type* type) {
  const std::optional<ops::BaseType> elem = list_element(type);
  switch (a.tag()) {
    case ir::ArgTag::None:
      return add_value(Null{});
    case ir::ArgTag::Tensor:
      return lookup(a.tensor_name(), ir::ValueKind::Tensor);
    case ir::ArgTag::OptionalTensor: {
      const auto& o = a.get<ir::ArgTag::OptionalTensor>();
      if (!o.name) return add_value(Null{});
      return lookup(*o.name, ir::ValueKind::Tensor);
    }
    case ir::ArgTag::Tensors: {
      std::vector<int32_t> items;
      for (const auto& t : a.get<ir::ArgTag::Tensors>()) {
        PTEFORGE_ASSIGN_OR_RETURN(int32_t v, lookup(t.name, ir::ValueKind::Tensor));
        items.push_back(v);
      }
      if (type && type->is_optional_tensor_list()) return add_value(OptionalTensorList{std::move(items)});
      return add_value(TensorList{std::move(items)});
    }
    case ir::ArgTag::OptionalTensors: {
      std::vector<int32_t> items;
      const bool plain = type && type->is_tensor_list();
      for (const auto& t : a.get<ir::ArgTag::OptionalTensors>()) {
        if (!t.name) {
          if (plain) return error(ErrorCode::UNSUPPORTED_FEATURE, "None inside a Tensor[] argument");
          items.push_back(-1);
          continue;
        }
        PTEFORGE_ASSIGN_OR_RETURN(int32_t v, lookup(*t.name, ir::ValueKind::Tensor));
        items.push_back(v);
      }
      if (plain) return add_value(TensorList{std::move(items)});
      return add_value(OptionalTensorList{std::move(items)});
    }
    case ir::ArgTag::Int:
      return add_value(Int{a.get<ir::ArgTag::Int>()});
    case ir::ArgTag::Float:
      return add_value(Double{a.get<ir::ArgTag::Float>()});
    case ir::ArgTag::Bool:
      return add_value(Bool{a.get<ir::ArgTag::Bool>()});
    case ir::ArgTag::String:
      return add_value(String{a.get<ir::ArgTag::String>()});
    case ir::ArgTag::Ints: {
      const auto& v = a.get<ir::ArgTag::Ints>();
      if (elem == ops::BaseType::Float) return add_value(DoubleList{std::vector<double>(v.begin(), v.end())});
      if (elem == ops::BaseType::Bool) {
        BoolList l;
        for (int64_t x : v) l.items.push_back(x != 0);
        return add_value(std::move(l));
      }
      return emit_int_list({}, v);
    }
    case ir::ArgTag::SymInts: {
      std::vector<std::optional<std::string>> names;
      std::vector<int64_t> ints;
      for (const auto& s : a.get<ir::ArgTag::SymInts>()) {
        names.push_back(s.name);
        ints.push_back(s.value);
      }
      return emit_int_list(names, ints);
    }
    case ir::ArgTag::Floats:
      return add_value(DoubleList{a.get<ir::ArgTag::Floats>()});
    case ir::ArgTag::Bools: {
      const auto& v = a.get<ir::ArgTag::Bools>();
      if (elem && is_int_like(*elem)) {
        // An int list holding Python bools is boxed, and bool is tested
        // before int, so each element is a Bool value (§3.6).
        IntList list;
        for (bool b : v) {
          PTEFORGE_ASSIGN_OR_RETURN(int32_t idx, add_value(Bool{b}));
          list.items.push_back(idx);
        }
        return add_value(std::move(list));
      }
      return add_value(BoolList{v});
    }
    case ir::ArgTag::SymInt: {
      const auto& s = a.get<ir::ArgTag::SymInt>();
      if (s.name) return lookup(*s.name, ir::ValueKind::SymInt);
      return add_value(Int{s.value});
    }
    case ir::ArgTag::SymFloat: {
      const auto& s = a.get<ir::ArgTag::SymFloat>();
      if (s.name) return lookup(*s.name, ir::ValueKind::SymFloat);
      return add_value(Double{s.value});
    }
    case ir::ArgTag::SymBool: {
      const auto& s = a.get<ir::ArgTag::SymBool>();
      if (s.name) return lookup(*s.name, ir::ValueKind::SymBool);
      return add_value(Bool{s.value});
    }
    case ir::ArgTag::SymFloats: {
      DoubleList l;
      for (const auto& s : a.get<ir::ArgTag::SymFloats>()) {
        if (s.name) return error(ErrorCode::UNSUPPORTED_FEATURE, "a float list holding symbolic values");
        l.items.push_back(s.value);
      }
      return add_value(std::move(l));
    }
    case ir::ArgTag::SymBools: {
      BoolList l;
      for (const auto& s : a.get<ir::ArgTag::SymBools>()) {
        if (s.name) return error(ErrorCode::UNSUPPORTED_FEATURE, "a bool list holding symbolic values");
        l.items.push_back(s.value);
      }
      return add_value(std::move(l));
    }
    case ir::ArgTag::ScalarType: {
      ir::ScalarType t = a.get<ir::ArgTag::ScalarType>();
      if (!emittable_dtype(t)) {
        return error(ErrorCode::UNSUPPORTED_FEATURE,
                     "dtype " + std::string(ir::scalar_type_name(t)) + " cannot be written to a .pte");
      }
      return add_value(Int{static_cast<int64_t>(t)});
    }
    case ir::ArgTag::MemoryFormat: {
      switch (a.get<ir::ArgTag::MemoryFormat>()) {
        case ir::MemoryFormat::ContiguousFormat:
          return add_value(Int{0});
        case ir::MemoryFormat::PreserveFormat:
          return add_value(Int{1});
        default:
          return error(ErrorCode::UNSUPPORTED_FEATURE,
                       "memory format " + std::string(ir::memory_format_name(a.get<ir::ArgTag::MemoryFormat>())) +
                           " cannot be emitted (ExecuTorch writes only contiguous_format and preserve_format; "
                           "memory_format_to_dim_order replaces the others)");
      }
    }
    case ir::ArgTag::Layout: {
      switch (a.get<ir::ArgTag::Layout>()) {
        case ir::Layout::Strided:
          return add_value(Int{0});
        case ir::Layout::SparseCoo:
          return add_value(Int{1});
        default:
          return error(ErrorCode::UNSUPPORTED_FEATURE,
                       "layout " + std::string(ir::layout_name(a.get<ir::ArgTag::Layout>())) + " cannot be emitted");
      }
    }
    case ir::ArgTag::Device:
      return error(ErrorCode::UNSUPPORTED_FEATURE,
                   "a torch.device argument cannot be emitted (ExecuTorch's emitter rejects devices)");
    default:
      return error(ErrorCode::UNSUPPORTED_FEATURE,
                   "an argument of kind " + std::string(a.tag_name()) + " cannot be emitted");
  }
}

Result<int32_t> MethodEmitter::emit_default(const ops::Value& v, const ops::Type& type) {
  using K = ops::Value::Kind;
  switch (v.kind) {
    case K::None:
      if (type.is_tensor() && !type.optional) return emit_empty_tensor();
      return add_value(Null{});
    case K::Bool:
      return add_value(Bool{v.bool_value});
    case K::Int:
      return add_value(Int{v.int_value});
    case K::Double:
      return add_value(Double{v.double_value});
    case K::String:
      return add_value(String{v.string_value});
    case K::IntList:
      return emit_int_list({}, v.int_list);
    case K::DoubleList:
      return add_value(DoubleList{v.double_list});
    case K::BoolList:
      return add_value(BoolList{v.bool_list});
    case K::ScalarType:
      return add_value(Int{v.int_value});
    case K::MemoryFormat:
      if (v.int_value == static_cast<int64_t>(ops::MemoryFormat::Contiguous) ||
          v.int_value == static_cast<int64_t>(ops::MemoryFormat::Preserve)) {
        return add_value(Int{v.int_value});
      }
      return error(ErrorCode::UNSUPPORTED_FEATURE, "a channels_last memory format default cannot be emitted");
    case K::Layout:
      if (v.int_value == static_cast<int64_t>(ops::Layout::Strided) ||
          v.int_value == static_cast<int64_t>(ops::Layout::SparseCoo)) {
        return add_value(Int{v.int_value});
      }
      return error(ErrorCode::UNSUPPORTED_FEATURE, "a layout default other than strided cannot be emitted");
    case K::Device:
      return error(ErrorCode::UNSUPPORTED_FEATURE, "a torch.device default cannot be emitted");
  }
  return error(ErrorCode::INTERNAL, "unknown default value kind");
}

Status MethodEmitter::emit_kernel_call(const ir::Node& node) {
  const ops::OpSchema* schema = passes::target_schema(node.target());
  if (!schema) {
    Result<const ops::OpSchema*> found = ops::op_table().lookup(node.target().str());
    if (!found.ok()) {
      Error e = std::move(found).error();
      Location where = ir::node_location(node);
      where.method = method_.name;
      e.where = where;
      return e;
    }
    schema = *found;
  }
  // Name and overload (§3.5 step 1): the overload `default` is written "".
  const int32_t op = operator_index(*schema);
  const bool symbolic = passes::is_symbolic_op(node.target());

  KernelCall call;
  call.op_index = op;
  call.args.reserve(schema->arguments.size() + 2);
  // Out arguments: the value, or the items of a Tensor(a!)[] list.
  struct OutArg {
    int32_t value = 0;
    bool is_list = false;
  };
  std::vector<OutArg> outs;
  for (const ops::Argument& sa : schema->arguments) {
    const ir::Argument* given = node.input(sa.name);
    int32_t v = 0;
    if (given && !is_none_arg(*given)) {
      PTEFORGE_ASSIGN_OR_RETURN(v, emit_argument(*given, &sa.type));
    } else if (!given && sa.default_value) {
      PTEFORGE_ASSIGN_OR_RETURN(v, emit_default(*sa.default_value, sa.type));
    } else if (sa.type.is_tensor() && !sa.type.optional) {
      PTEFORGE_ASSIGN_OR_RETURN(v, emit_empty_tensor());
    } else {
      PTEFORGE_ASSIGN_OR_RETURN(v, add_value(Null{}));
    }
    call.args.push_back(v);
    if (sa.is_out()) {
      const bool list = std::holds_alternative<TensorList>(plan_.values[static_cast<size_t>(v)].val);
      outs.push_back(OutArg{v, list});
    }
  }

  // Return slot(s) (§3.5 step 4).
  if (symbolic) {
    PTEFORGE_ASSIGN_OR_RETURN(int32_t ret, add_value(Int{0}));
    call.args.push_back(ret);
    for (const ir::Argument& out : node.outputs()) {
      if (const std::string* name = out.value_name()) names_[*name] = ret;
    }
  } else if (schema->is_out_variant()) {
    std::vector<int32_t> out_values;  // flattened, for the node's results
    for (const OutArg& o : outs) {
      if (o.is_list) {
        const auto& items = std::get<TensorList>(plan_.values[static_cast<size_t>(o.value)].val).items;
        out_values.insert(out_values.end(), items.begin(), items.end());
      } else {
        out_values.push_back(o.value);
      }
    }
    if (outs.size() == 1 && !outs[0].is_list) {
      call.args.push_back(outs[0].value);
    } else {
      // Several outs, or one Tensor(a!)[] out: a new TensorList (§3.5).
      PTEFORGE_ASSIGN_OR_RETURN(int32_t ret, add_value(TensorList{out_values}));
      call.args.push_back(ret);
    }
    // The node's results are its out tensors (normally the same spec objects already).
    size_t k = 0;
    for (const ir::Argument& out : node.outputs()) {
      ir::for_each_value_name(out, [&](const std::string& name, ir::ValueKind kind) {
        if (kind != ir::ValueKind::Tensor) return;
        passes::TensorSpec* spec = state_.specs.find(name);
        if (spec) {
          if (k < out_values.size()) spec_values_.try_emplace(spec, out_values[k]);
          named_specs_.emplace_back(&name, spec);
        }
        ++k;
      });
    }
  } else {
    // Any other op (in-place copy_, ops left functional): the Tensor value(s)
    // of the node's spec, reused when the spec object already has a value.
    std::vector<int32_t> results;
    bool list_return = false;
    for (const ir::Argument& out : node.outputs()) {
      if (out.is_none()) continue;
      if (!out.is_tensor()) list_return = true;
      std::vector<const std::string*> names;
      ir::for_each_value_name(out, [&](const std::string& name, ir::ValueKind kind) {
        if (kind == ir::ValueKind::Tensor) names.push_back(&name);
      });
      if (names.empty() && !out.is<ir::ArgTag::Tensors>()) {
        return error(ErrorCode::UNSUPPORTED_FEATURE, "operator " + schema->full_name() +
                                                         " returns a non-tensor value; only symbolic ops may");
      }
      for (const std::string* name : names) {
        PTEFORGE_ASSIGN_OR_RETURN(passes::TensorSpec * spec, spec_of(*name));
        PTEFORGE_ASSIGN_OR_RETURN(int32_t v, emit_spec(spec));
        named_specs_.emplace_back(name, spec);
        results.push_back(v);
      }
    }
    if (results.size() == 1 && !list_return) {
      call.args.push_back(results[0]);
    } else if (!results.empty() || list_return) {
      PTEFORGE_ASSIGN_OR_RETURN(int32_t ret, add_value(TensorList{std::move(results)}));
      call.args.push_back(ret);
    }
  }
  return add_instruction(Instruction{std::move(call)}, &node);
}

}  // namespace pteforge::emit::detail
