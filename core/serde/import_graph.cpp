// Importer: tensor metadata, symbolic values, arguments, nodes and graphs
// (torch-export-format.md §3.3–§3.5, §4, §5, §6).
#include <cstdint>
#include <unordered_map>

#include "ir/printer.h"
#include "ir/sym_expr.h"
#include "serde/import_context.h"
#include "serde/stream_graph.h"

namespace pteforge::serde::detail {
namespace {

/// Calls f(element cursor, index) for every element of an array; INPUT_SCHEMA when not an array.
template <typename F>
Status for_each_element(const JsonCursor& c, F&& f) {
  PTEFORGE_TRY(c.expect_array());
  rapidjson::SizeType i = 0;
  for (const auto& e : c.value().GetArray()) {
    PTEFORGE_TRY(f(c.with(e), static_cast<size_t>(i)));
    ++i;
  }
  return Status::Ok();
}

template <typename T, typename F>
Result<std::vector<T>> read_list(const JsonCursor& c, F&& read_one) {
  std::vector<T> out;
  PTEFORGE_TRY(c.expect_array());
  out.reserve(c.value().Size());
  for (const auto& e : c.value().GetArray()) {
    PTEFORGE_ASSIGN_OR_RETURN(T v, read_one(c.with(e)));
    out.push_back(std::move(v));
  }
  return out;
}

Result<int64_t> read_int(const JsonCursor& c) { return c.as_int(); }
Result<double> read_float(const JsonCursor& c) { return c.as_float(); }
Result<std::string> read_string(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(std::string_view s, c.as_string());
  return std::string(s);
}

Result<std::vector<bool>> read_bools(const JsonCursor& c) {
  std::vector<bool> out;
  PTEFORGE_TRY(for_each_element(c, [&](const JsonCursor& e, size_t) -> Status {
    PTEFORGE_ASSIGN_OR_RETURN(bool b, e.as_bool());
    out.push_back(b);
    return Status::Ok();
  }));
  return out;
}

Result<std::optional<ir::SymExprHint>> read_hint(const JsonCursor& c) {
  if (c.is_null()) return std::optional<ir::SymExprHint>();
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymExprHint"));
  if (u.tag == "as_int") {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t v, u.payload.as_int());
    return std::optional<ir::SymExprHint>(ir::SymExprHint::of_int(v));
  }
  if (u.tag == "as_bool") {
    PTEFORGE_ASSIGN_OR_RETURN(bool v, u.payload.as_bool());
    return std::optional<ir::SymExprHint>(ir::SymExprHint::of_bool(v));
  }
  if (u.tag == "as_float") {
    PTEFORGE_ASSIGN_OR_RETURN(double v, u.payload.as_float());
    return std::optional<ir::SymExprHint>(ir::SymExprHint::of_float(v));
  }
  return unknown_tag(c, u, "SymExprHint", "as_int, as_bool, as_float");
}

Result<std::shared_ptr<const ir::SymExpr>> read_sym_expr(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 2> kKeys = {"expr_str", "hint"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "SymExpr", kKeys));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor expr, required(c, s[0], "expr_str", "SymExpr"));
  PTEFORGE_ASSIGN_OR_RETURN(std::string_view text, expr.as_string());
  std::optional<ir::SymExprHint> hint;
  if (s[1]) {
    PTEFORGE_ASSIGN_OR_RETURN(hint, read_hint(c.with(*s[1])));
  }
  return ctx.sym_expr(text, hint);
}

Result<int64_t> read_enum(const JsonCursor& c, int max, std::string_view what) {
  PTEFORGE_ASSIGN_OR_RETURN(int64_t v, c.as_int());
  if (v < 0 || v > max) {
    return c.error(ErrorCode::INPUT_SCHEMA,
                   "unknown " + std::string(what) + " number " + std::to_string(v) + " (expected 0.." +
                       std::to_string(max) + ")");
  }
  return v;
}

/// Tag name → ArgTag, built once.
const std::unordered_map<std::string_view, ir::ArgTag>& arg_tags() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, ir::ArgTag>();
    for (size_t i = 0; i < ir::kNumArgTags; ++i) {
      auto t = static_cast<ir::ArgTag>(i);
      m->emplace(ir::arg_tag_name(t), t);
    }
    return m;
  }();
  return *map;
}

const std::string& arg_tag_list() {
  static const std::string* list = [] {
    auto* s = new std::string();
    for (size_t i = 0; i < ir::kNumArgTags; ++i) {
      if (i) *s += ", ";
      *s += ir::arg_tag_name(static_cast<ir::ArgTag>(i));
    }
    return s;
  }();
  return *list;
}

Result<ir::OptionalTensorArgument> read_optional_tensor(ImportContext& ctx, const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "OptionalTensorArgument"));
  if (u.tag == "as_none") return ir::OptionalTensorArgument{};
  if (u.tag == "as_tensor") {
    PTEFORGE_ASSIGN_OR_RETURN(std::string name, read_tensor_argument(ctx, u.payload));
    return ir::OptionalTensorArgument{std::move(name)};
  }
  return unknown_tag(c, u, "OptionalTensorArgument", "as_tensor, as_none");
}

Result<ir::SymIntArgument> read_sym_int_argument(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymIntArgument"));
  if (u.tag == "as_name") {
    PTEFORGE_ASSIGN_OR_RETURN(std::string name, read_string(u.payload));
    return ir::SymIntArgument{std::move(name), 0};
  }
  if (u.tag == "as_int") {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t v, u.payload.as_int());
    return ir::SymIntArgument{std::nullopt, v};
  }
  return unknown_tag(c, u, "SymIntArgument", "as_name, as_int");
}

Result<ir::SymFloatArgument> read_sym_float_argument(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymFloatArgument"));
  if (u.tag == "as_name") {
    PTEFORGE_ASSIGN_OR_RETURN(std::string name, read_string(u.payload));
    return ir::SymFloatArgument{std::move(name), 0.0};
  }
  if (u.tag == "as_float") {
    PTEFORGE_ASSIGN_OR_RETURN(double v, u.payload.as_float());
    return ir::SymFloatArgument{std::nullopt, v};
  }
  return unknown_tag(c, u, "SymFloatArgument", "as_name, as_float");
}

Result<ir::SymBoolArgument> read_sym_bool_argument(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymBoolArgument"));
  if (u.tag == "as_name") {
    PTEFORGE_ASSIGN_OR_RETURN(std::string name, read_string(u.payload));
    return ir::SymBoolArgument{std::move(name), false};
  }
  if (u.tag == "as_bool") {
    PTEFORGE_ASSIGN_OR_RETURN(bool v, u.payload.as_bool());
    return ir::SymBoolArgument{std::nullopt, v};
  }
  return unknown_tag(c, u, "SymBoolArgument", "as_name, as_bool");
}

Status nesting_check(ImportContext& ctx, const JsonCursor& c) {
  if (ctx.depth > kMaxNesting) {
    return c.error(ErrorCode::INPUT_SCHEMA,
                   "arguments and subgraphs nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }
  return Status::Ok();
}

struct DepthGuard {
  explicit DepthGuard(ImportContext& ctx) : ctx_(ctx) { ++ctx_.depth; }
  ~DepthGuard() { --ctx_.depth; }
  ImportContext& ctx_;
};

}  // namespace

Result<ir::ScalarType> read_dtype(const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(int64_t n, c.as_int());
  auto t = ir::scalar_type_from_export(n);
  if (!t) {
    return c.error(ErrorCode::INPUT_SCHEMA,
                   "unknown dtype number " + std::to_string(n) + " (torch.export ScalarType numbering, schema §3.1)");
  }
  return *t;
}

Result<ir::SymInt> read_sym_int(ImportContext& ctx, const JsonCursor& c) {
  // Fast path: {"as_int": n}.
  const auto& v = c.value();
  if (v.IsObject() && v.MemberCount() == 1) {
    const auto& m = *v.MemberBegin();
    if (m.name.GetStringLength() == 6 && std::string_view(m.name.GetString(), 6) == "as_int" && m.value.IsInt64()) {
      return ir::SymInt(m.value.GetInt64());
    }
  }
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymInt"));
  if (u.tag == "as_int") {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t n, u.payload.as_int());
    return ir::SymInt(n);
  }
  if (u.tag == "as_expr") {
    PTEFORGE_ASSIGN_OR_RETURN(auto e, read_sym_expr(ctx, u.payload));
    if (std::optional<int64_t> v = ir::integer_literal(e->expr_str))
      return ir::SymInt(*v);  // static, as torch loads it
    return ir::SymInt(std::move(e));
  }
  return unknown_tag(c, u, "SymInt", "as_int, as_expr");
}

Result<ir::SymFloat> read_sym_float(ImportContext& ctx, const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymFloat"));
  if (u.tag == "as_float") {
    PTEFORGE_ASSIGN_OR_RETURN(double f, u.payload.as_float());
    return ir::SymFloat(f);
  }
  if (u.tag == "as_expr") {
    PTEFORGE_ASSIGN_OR_RETURN(auto e, read_sym_expr(ctx, u.payload));
    return ir::SymFloat(std::move(e));
  }
  return unknown_tag(c, u, "SymFloat", "as_float, as_expr");
}

Result<ir::SymBool> read_sym_bool(ImportContext& ctx, const JsonCursor& c) {
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "SymBool"));
  if (u.tag == "as_bool") {
    PTEFORGE_ASSIGN_OR_RETURN(bool b, u.payload.as_bool());
    return ir::SymBool(b);
  }
  if (u.tag == "as_expr") {
    PTEFORGE_ASSIGN_OR_RETURN(auto e, read_sym_expr(ctx, u.payload));
    return ir::SymBool(std::move(e));
  }
  return unknown_tag(c, u, "SymBool", "as_bool, as_expr");
}

Result<ir::Device> read_device(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 2> kKeys = {"type", "index"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "Device", kKeys));
  ir::Device d;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor type, required(c, s[0], "type", "Device"));
  PTEFORGE_ASSIGN_OR_RETURN(d.type, read_string(type));
  if (auto index = optional(c, s[1])) {
    PTEFORGE_ASSIGN_OR_RETURN(d.index, index->as_int());
  }
  return d;
}

Result<ir::TensorMeta> read_tensor_meta(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 7> kKeys = {"dtype",   "sizes",          "requires_grad", "device",
                                                            "strides", "storage_offset", "layout"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "TensorMeta", kKeys));
  ir::TensorMeta m;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor dtype, required(c, s[0], "dtype", "TensorMeta"));
  PTEFORGE_ASSIGN_OR_RETURN(m.dtype, read_dtype(dtype));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor sizes, required(c, s[1], "sizes", "TensorMeta"));
  PTEFORGE_TRY(sizes.expect_array());
  m.sizes.reserve(sizes.value().Size());
  PTEFORGE_TRY(for_each_element(sizes, [&](const JsonCursor& e, size_t) -> Status {
    PTEFORGE_ASSIGN_OR_RETURN(ir::SymInt v, read_sym_int(ctx, e));
    if (v.is_concrete() && v.value() < 0) {
      return e.error(ErrorCode::INPUT_SCHEMA, "negative size " + std::to_string(v.value()));
    }
    m.sizes.push_back(std::move(v));
    return Status::Ok();
  }));
  if (auto rg = optional(c, s[2])) {
    PTEFORGE_ASSIGN_OR_RETURN(m.requires_grad, rg->as_bool());
  }
  if (auto dev = optional(c, s[3])) {
    PTEFORGE_ASSIGN_OR_RETURN(m.device, read_device(ctx, *dev));
  }
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor strides, required(c, s[4], "strides", "TensorMeta"));
  PTEFORGE_TRY(strides.expect_array());
  m.strides.reserve(strides.value().Size());
  PTEFORGE_TRY(for_each_element(strides, [&](const JsonCursor& e, size_t) -> Status {
    PTEFORGE_ASSIGN_OR_RETURN(ir::SymInt v, read_sym_int(ctx, e));
    m.strides.push_back(std::move(v));
    return Status::Ok();
  }));
  if (auto off = optional(c, s[5])) {
    PTEFORGE_ASSIGN_OR_RETURN(m.storage_offset, read_sym_int(ctx, *off));
  } else {
    m.storage_offset = ir::SymInt(int64_t{0});
  }
  if (auto layout = optional(c, s[6])) {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t l, read_enum(*layout, ir::kMaxLayout, "layout"));
    m.layout = static_cast<ir::Layout>(l);
  }
  if (m.layout == ir::Layout::Strided && m.strides.size() != m.sizes.size()) {
    return strides.error(ErrorCode::INPUT_SCHEMA, "strides has " + std::to_string(m.strides.size()) +
                                                      " entries but sizes has " + std::to_string(m.sizes.size()));
  }
  // PyTorch's sizes, numel and byte sizes are int64: a tensor past that cannot exist.
  if (m.is_static()) {
    const std::optional<uint64_t> bytes = m.nbytes();
    if (!bytes || *bytes > static_cast<uint64_t>(INT64_MAX)) {
      return sizes.error(ErrorCode::INPUT_SCHEMA,
                         "the tensor's size in bytes overflows a 64-bit integer (" + ir::format_tensor_type(m) + ")");
    }
  }
  return m;
}

Result<std::string> read_tensor_argument(ImportContext& ctx, const JsonCursor& c, std::string_view type) {
  const auto& v = c.value();
  if (v.IsObject() && v.MemberCount() == 1) {  // fast path: {"name": "x"}
    const auto& m = *v.MemberBegin();
    if (m.name.GetStringLength() == 4 && std::string_view(m.name.GetString(), 4) == "name" && m.value.IsString()) {
      return std::string(m.value.GetString(), m.value.GetStringLength());
    }
  }
  static constexpr std::array<std::string_view, 1> kKeys = {"name"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, type, kKeys));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor name, required(c, s[0], "name", type));
  return read_string(name);
}

Result<ir::CustomObjArgument> read_custom_obj(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 2> kKeys = {"name", "class_fqn"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "CustomObjArgument", kKeys));
  ir::CustomObjArgument out;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor name, required(c, s[0], "name", "CustomObjArgument"));
  PTEFORGE_ASSIGN_OR_RETURN(out.name, read_string(name));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor fqn, required(c, s[1], "class_fqn", "CustomObjArgument"));
  PTEFORGE_ASSIGN_OR_RETURN(out.class_fqn, read_string(fqn));
  return out;
}

Result<ir::Argument> read_argument(ImportContext& ctx, const JsonCursor& c, const PointerChain* path) {
  using ir::Argument;
  using ir::ArgTag;
  PTEFORGE_ASSIGN_OR_RETURN(UnionValue u, read_union(c, "Argument"));
  // Tensors are most arguments: no hashing for them.
  ArgTag tag = ArgTag::Tensor;
  if (u.tag != "as_tensor") {
    auto it = arg_tags().find(u.tag);
    if (it == arg_tags().end()) return unknown_tag(c, u, "Argument", arg_tag_list());
    tag = it->second;
  }
  const JsonCursor& p = u.payload;
  auto tensor_name = [&ctx](const JsonCursor& e) -> Result<ir::TensorArgument> {
    PTEFORGE_ASSIGN_OR_RETURN(std::string n, read_tensor_argument(ctx, e));
    return ir::TensorArgument{std::move(n)};
  };
  switch (tag) {
    case ArgTag::None: return Argument();  // payload is true (or [] in old files): ignored (§2.11)
    case ArgTag::Tensor: {
      PTEFORGE_ASSIGN_OR_RETURN(auto t, tensor_name(p));
      return Argument::make<ArgTag::Tensor>(std::move(t));
    }
    case ArgTag::Tensors: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<ir::TensorArgument>(p, tensor_name));
      return Argument::make<ArgTag::Tensors>(std::move(v));
    }
    case ArgTag::Int: {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t v, p.as_int());
      return Argument::make<ArgTag::Int>(v);
    }
    case ArgTag::Ints: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<int64_t>(p, read_int));
      return Argument::make<ArgTag::Ints>(std::move(v));
    }
    case ArgTag::Float: {
      PTEFORGE_ASSIGN_OR_RETURN(double v, p.as_float());
      return Argument::make<ArgTag::Float>(v);
    }
    case ArgTag::Floats: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<double>(p, read_float));
      return Argument::make<ArgTag::Floats>(std::move(v));
    }
    case ArgTag::String: {
      PTEFORGE_ASSIGN_OR_RETURN(std::string v, read_string(p));
      return Argument::make<ArgTag::String>(std::move(v));
    }
    case ArgTag::Strings: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<std::string>(p, read_string));
      return Argument::make<ArgTag::Strings>(std::move(v));
    }
    case ArgTag::SymInt: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_sym_int_argument(p));
      return Argument::make<ArgTag::SymInt>(std::move(v));
    }
    case ArgTag::SymInts: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<ir::SymIntArgument>(p, read_sym_int_argument));
      return Argument::make<ArgTag::SymInts>(std::move(v));
    }
    case ArgTag::ScalarType: {
      PTEFORGE_ASSIGN_OR_RETURN(ir::ScalarType t, read_dtype(p));
      return Argument::make<ArgTag::ScalarType>(t);
    }
    case ArgTag::MemoryFormat: {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t v, read_enum(p, ir::kMaxMemoryFormat, "memory format"));
      return Argument::make<ArgTag::MemoryFormat>(static_cast<ir::MemoryFormat>(v));
    }
    case ArgTag::Layout: {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t v, read_enum(p, ir::kMaxLayout, "layout"));
      return Argument::make<ArgTag::Layout>(static_cast<ir::Layout>(v));
    }
    case ArgTag::Device: {
      PTEFORGE_ASSIGN_OR_RETURN(ir::Device d, read_device(ctx, p));
      return Argument::make<ArgTag::Device>(std::move(d));
    }
    case ArgTag::Bool: {
      PTEFORGE_ASSIGN_OR_RETURN(bool v, p.as_bool());
      return Argument::make<ArgTag::Bool>(v);
    }
    case ArgTag::Bools: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_bools(p));
      return Argument::make<ArgTag::Bools>(std::move(v));
    }
    case ArgTag::SymBool: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_sym_bool_argument(p));
      return Argument::make<ArgTag::SymBool>(std::move(v));
    }
    case ArgTag::SymBools: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<ir::SymBoolArgument>(p, read_sym_bool_argument));
      return Argument::make<ArgTag::SymBools>(std::move(v));
    }
    case ArgTag::OptionalTensors: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<ir::OptionalTensorArgument>(
                                            p, [&ctx](const JsonCursor& e) { return read_optional_tensor(ctx, e); }));
      return Argument::make<ArgTag::OptionalTensors>(std::move(v));
    }
    case ArgTag::Graph: {
      static constexpr std::array<std::string_view, 2> kKeys = {"name", "graph"};
      PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, p, "GraphArgument", kKeys));
      ir::GraphArgument ga;
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor name, required(p, s[0], "name", "GraphArgument"));
      PTEFORGE_ASSIGN_OR_RETURN(ga.name, read_string(name));
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor graph, required(p, s[1], "graph", "GraphArgument"));
      DepthGuard guard(ctx);
      PTEFORGE_TRY(nesting_check(ctx, graph));
      std::string pointer;
      if (path) {
        PointerChain tag{path, nullptr, "as_graph"};
        PointerChain g{&tag, nullptr, "graph"};
        pointer = g.str();
      } else {
        pointer = graph.pointer();
      }
      PTEFORGE_ASSIGN_OR_RETURN(ir::Graph sub, read_graph(ctx, graph, std::make_shared<const std::string>(pointer)));
      ga.graph = ir::GraphBox(std::move(sub));
      return Argument::make<ArgTag::Graph>(std::move(ga));
    }
    case ArgTag::CustomObj: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_custom_obj(ctx, p));
      return Argument::make<ArgTag::CustomObj>(std::move(v));
    }
    case ArgTag::Operator: {
      PTEFORGE_ASSIGN_OR_RETURN(std::string_view v, p.as_string());
      return Argument::make<ArgTag::Operator>(ir::OperatorArgument{ir::OpTarget(v)});
    }
    case ArgTag::SymFloat: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_sym_float_argument(p));
      return Argument::make<ArgTag::SymFloat>(std::move(v));
    }
    case ArgTag::SymFloats: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<ir::SymFloatArgument>(p, read_sym_float_argument));
      return Argument::make<ArgTag::SymFloats>(std::move(v));
    }
    case ArgTag::OptionalTensor: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_optional_tensor(ctx, p));
      return Argument::make<ArgTag::OptionalTensor>(std::move(v));
    }
    case ArgTag::Complex: {
      static constexpr std::array<std::string_view, 2> kKeys = {"real", "imag"};
      PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, p, "ComplexValue", kKeys));
      ir::ComplexValue cv;
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor re, required(p, s[0], "real", "ComplexValue"));
      PTEFORGE_ASSIGN_OR_RETURN(cv.real, re.as_float());
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor im, required(p, s[1], "imag", "ComplexValue"));
      PTEFORGE_ASSIGN_OR_RETURN(cv.imag, im.as_float());
      return Argument::make<ArgTag::Complex>(cv);
    }
    case ArgTag::NestedTensors: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<std::vector<ir::TensorArgument>>(p, [&](const JsonCursor& e) {
                                  return read_list<ir::TensorArgument>(e, tensor_name);
                                }));
      return Argument::make<ArgTag::NestedTensors>(std::move(v));
    }
    case ArgTag::IntLists: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<std::vector<int64_t>>(
                                            p, [](const JsonCursor& e) { return read_list<int64_t>(e, read_int); }));
      return Argument::make<ArgTag::IntLists>(std::move(v));
    }
    case ArgTag::StringToArgument: {
      PTEFORGE_TRY(p.expect_object());
      DepthGuard guard(ctx);
      PTEFORGE_TRY(nesting_check(ctx, p));
      ir::StringToArgument sa;
      PointerChain tag{path, nullptr, "as_string_to_argument"};
      for (const auto& m : p.value().GetObject()) {
        std::string key(m.name.GetString(), m.name.GetStringLength());
        std::string escaped = escape_pointer_token(key);
        PointerChain entry{&tag, nullptr, escaped};
        PTEFORGE_ASSIGN_OR_RETURN(ir::Argument a, read_argument(ctx, p.with(m.value), path ? &entry : nullptr));
        sa.entries.emplace_back(std::move(key), std::move(a));
      }
      return Argument::make<ArgTag::StringToArgument>(std::move(sa));
    }
    case ArgTag::FloatLists: {
      PTEFORGE_ASSIGN_OR_RETURN(auto v, read_list<std::vector<double>>(
                                            p, [](const JsonCursor& e) { return read_list<double>(e, read_float); }));
      return Argument::make<ArgTag::FloatLists>(std::move(v));
    }
  }
  return unknown_tag(c, u, "Argument", arg_tag_list());
}

namespace {

Status read_metadata(ImportContext& ctx, const JsonCursor& c, ir::NodeMetadata& md, const std::string& node_name) {
  PTEFORGE_TRY(c.expect_object());
  for (const auto& m : c.value().GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (!m.value.IsString()) {
      return c.error_at_key(key, ErrorCode::INPUT_SCHEMA,
                            "node metadata values must be strings, found " + std::string(json_type_name(m.value)));
    }
    std::string_view text(m.value.GetString(), m.value.GetStringLength());
    bool parsed = true;
    if (key == "stack_trace") {
      md.stack_trace = ctx.stack_trace(text);
    } else if (key == "nn_module_stack") {
      md.nn_module_stack = ctx.module_stack(text);
      parsed = md.nn_module_stack != nullptr;
    } else if (key == "source_fn_stack") {
      md.source_fn_stack = ctx.source_fn_stack(text);
      parsed = md.source_fn_stack != nullptr;
    } else if (key == "torch_fn") {
      md.torch_fn = ctx.torch_fn(text);
      parsed = md.torch_fn != nullptr;
    } else {
      md.other.emplace_back(std::string(key), std::string(text));
    }
    if (!parsed) {
      md.other.emplace_back(std::string(key), std::string(text));
      ctx.warn(c.value(),
               "metadata \"" + std::string(key) + "\" of node " + single_quoted(node_name) +
                   " does not follow the documented encoding; kept verbatim",
               key);
    }
  }
  return Status::Ok();
}

Result<ir::NamedArgument> read_named_argument(ImportContext& ctx, const JsonCursor& c, const PointerChain* path) {
  static constexpr std::array<std::string_view, 3> kKeys = {"name", "arg", "kind"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "NamedArgument", kKeys));
  ir::NamedArgument na;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor name, required(c, s[0], "name", "NamedArgument"));
  PTEFORGE_ASSIGN_OR_RETURN(na.name, read_string(name));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor arg, required(c, s[1], "arg", "NamedArgument"));
  PointerChain arg_path{path, nullptr, "arg"};
  PTEFORGE_ASSIGN_OR_RETURN(na.arg, read_argument(ctx, arg, path ? &arg_path : nullptr));
  if (auto kind = optional(c, s[2])) {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t k, read_enum(*kind, 2, "argument kind"));
    na.kind = static_cast<ir::ArgumentKind>(k);
  }
  return na;
}

Result<ir::Node> read_node_body(ImportContext& ctx, const JsonCursor& c, const Slots<6>& s, const PointerChain& path,
                                std::string& name, bool& has_name) {
  // Keys: target, inputs, outputs, metadata, is_hop_single_tensor_return, name.
  ir::Node node;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor target, required(c, s[0], "target", "Node"));
  PTEFORGE_ASSIGN_OR_RETURN(std::string_view target_text, target.as_string());
  node.set_target(ir::OpTarget(target_text));

  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor inputs, required(c, s[1], "inputs", "Node"));
  PTEFORGE_TRY(inputs.expect_array());
  std::vector<ir::NamedArgument> ins;
  ins.reserve(inputs.value().Size());
  PointerChain inputs_path{&path, nullptr, "inputs"};
  PTEFORGE_TRY(for_each_element(inputs, [&](const JsonCursor& e, size_t k) -> Status {
    PointerChain p{&inputs_path, nullptr, {}, k};
    PTEFORGE_ASSIGN_OR_RETURN(ir::NamedArgument na, read_named_argument(ctx, e, &p));
    ins.push_back(std::move(na));
    return Status::Ok();
  }));
  node.set_inputs(std::move(ins));

  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor outputs, required(c, s[2], "outputs", "Node"));
  PTEFORGE_TRY(outputs.expect_array());
  std::vector<ir::Argument> outs;
  outs.reserve(outputs.value().Size());
  PTEFORGE_TRY(for_each_element(outputs, [&](const JsonCursor& e, size_t) -> Status {
    PTEFORGE_ASSIGN_OR_RETURN(ir::Argument a, read_argument(ctx, e, nullptr));
    outs.push_back(std::move(a));
    return Status::Ok();
  }));
  node.set_outputs(std::move(outs));

  if (auto md = optional(c, s[3])) PTEFORGE_TRY(read_metadata(ctx, *md, node.metadata(), name));
  if (auto hop = optional(c, s[4])) {
    PTEFORGE_ASSIGN_OR_RETURN(bool b, hop->as_bool());
    node.is_hop_single_tensor_return() = b;
  }
  if (!has_name) {
    // Files before schema 8.16 have no node name: use the single output's name (§11.2).
    if (const std::string* out = node.single_output()) {
      name = *out;
      has_name = true;
    }
  }
  node.set_name(name);
  return node;
}

}  // namespace

Result<ir::Graph> read_graph(ImportContext& ctx, const JsonCursor& c, std::shared_ptr<const std::string> pointer) {
  static constexpr std::array<std::string_view, 9> kKeys = {
      "inputs",         "outputs",         "nodes",
      "tensor_values",  "sym_int_values",  "sym_bool_values",
      "is_single_tensor_return", "custom_obj_values", "sym_float_values"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "Graph", kKeys));
  // The streamed nodes and tensor_values (stream_graph.h) stand in for the
  // document's, which are left empty there; used once, for the top-level graph.
  StreamedGraph* streamed = nullptr;
  if (ctx.streamed && !ctx.streamed->consumed && *pointer == "/graph_module/graph") {
    streamed = ctx.streamed;
    streamed->consumed = true;
  }
  const bool streamed_nodes = streamed && streamed->has_nodes;
  const bool streamed_tensors = streamed && streamed->has_tensor_values;
  // With streamed nodes, the graph they were placed in (not yet attached).
  ir::Graph g = streamed_nodes ? std::move(streamed->graph) : ir::Graph();
  g.set_json_pointer(pointer);

  size_t expected_values = 0;
  for (size_t t : {3u, 4u, 5u, 7u, 8u}) {
    if (s[t] && s[t]->IsObject()) expected_values += s[t]->MemberCount();
  }
  size_t expected_nodes = s[2] && s[2]->IsArray() ? s[2]->Size() : 0;
  if (streamed_nodes) expected_nodes = g.num_nodes();
  if (streamed_tensors) expected_values += streamed->tensor_values.size();
  g.reserve(expected_values + expected_nodes, expected_nodes);

  // Value tables (§4.1). Each name may appear in one table only.
  auto table_name = [](ir::ValueKind k) -> std::string_view {
    switch (k) {
      case ir::ValueKind::Tensor: return "tensor_values";
      case ir::ValueKind::SymInt: return "sym_int_values";
      case ir::ValueKind::SymBool: return "sym_bool_values";
      case ir::ValueKind::SymFloat: return "sym_float_values";
      default: return "custom_obj_values";
    }
  };
  // Sets the metadata of a value from table member `m`; duplicate and cross-table names are errors.
  auto set_from_table = [&](const JsonCursor& t, const rapidjson::Value::Member& m, std::string_view table,
                            auto&& read_one) -> Status {
    std::string_view name(m.name.GetString(), m.name.GetStringLength());
    PTEFORGE_ASSIGN_OR_RETURN(ir::ValueMeta meta, read_one(t.with(m.value)));
    auto position = static_cast<uint32_t>(&m - &*t.value().MemberBegin());
    if (const ir::Value* existing = g.set_meta_if_absent(name, std::move(meta), position)) {
      std::string_view first = table_name(existing->kind);
      if (first == table) {
        return t.error_at_key(name, ErrorCode::INPUT_SCHEMA, "duplicate key " + single_quoted(name) + " in " + std::string(table));
      }
      Location where;
      where.pointer = t.pointer() + "/" + escape_pointer_token(name);
      return make_error(ErrorCode::INVALID_GRAPH,
                        "value " + single_quoted(name) + " appears in both " + std::string(first) + " and " +
                            std::string(table),
                        where);
    }
    return Status::Ok();
  };
  auto read_table = [&](const rapidjson::Value* slot, std::string_view table, auto&& read_one) -> Status {
    if (!slot || slot->IsNull()) return Status::Ok();
    JsonCursor t = c.with(*slot);
    PTEFORGE_TRY(t.expect_object());
    for (const auto& m : t.value().GetObject()) PTEFORGE_TRY(set_from_table(t, m, table, read_one));
    return Status::Ok();
  };
  auto read_tensor = [&](const JsonCursor& e) -> Result<ir::ValueMeta> {
    PTEFORGE_ASSIGN_OR_RETURN(ir::TensorMeta m, read_tensor_meta(ctx, e));
    return ir::ValueMeta(std::move(m));
  };
  PTEFORGE_TRY(read_table(s[4], "sym_int_values", [&](const JsonCursor& e) -> Result<ir::ValueMeta> {
    PTEFORGE_ASSIGN_OR_RETURN(ir::SymInt v, read_sym_int(ctx, e));
    return ir::ValueMeta(std::move(v));
  }));
  PTEFORGE_TRY(read_table(s[5], "sym_bool_values", [&](const JsonCursor& e) -> Result<ir::ValueMeta> {
    PTEFORGE_ASSIGN_OR_RETURN(ir::SymBool v, read_sym_bool(ctx, e));
    return ir::ValueMeta(std::move(v));
  }));
  PTEFORGE_TRY(read_table(s[8], "sym_float_values", [&](const JsonCursor& e) -> Result<ir::ValueMeta> {
    PTEFORGE_ASSIGN_OR_RETURN(ir::SymFloat v, read_sym_float(ctx, e));
    return ir::ValueMeta(std::move(v));
  }));
  PTEFORGE_TRY(read_table(s[7], "custom_obj_values", [&](const JsonCursor& e) -> Result<ir::ValueMeta> {
    PTEFORGE_ASSIGN_OR_RETURN(ir::CustomObjArgument v, read_custom_obj(ctx, e));
    return ir::ValueMeta(std::move(v));
  }));

  // tensor_values is read alongside the definitions: the producer writes it in
  // definition order, so the entry for each newly defined tensor is normally
  // the next one. Entries met out of order are read at the end.
  std::optional<JsonCursor> tensors;
  if (s[3] && !s[3]->IsNull()) {
    tensors = c.with(*s[3]);
    PTEFORGE_TRY(tensors->expect_object());
  }
  // Entries by position: the document's members, or the streamed ones.
  size_t tv_next = 0;
  size_t tv_end = 0;
  if (streamed_tensors) {
    tv_end = streamed->tensor_values.size();
  } else if (tensors) {
    tv_end = tensors->value().MemberCount();
  }
  auto tv_name = [&](size_t i) -> std::string_view {
    if (streamed_tensors) return streamed->tensor_values[i].first;
    const auto& m = *(tensors->value().MemberBegin() + static_cast<rapidjson::SizeType>(i));
    return std::string_view(m.name.GetString(), m.name.GetStringLength());
  };
  auto tv_take = [&](size_t i) -> Status {
    if (!streamed_tensors) {
      return set_from_table(*tensors, *(tensors->value().MemberBegin() + static_cast<rapidjson::SizeType>(i)),
                            "tensor_values", read_tensor);
    }
    // A name met before (twice in tensor_values, or also in another table):
    // any error makes import_streaming fall back to the DOM reader, which
    // reports this one with its message and pointer; this one is never shown.
    auto& [name, meta] = streamed->tensor_values[i];
    if (g.set_meta_if_absent(name, ir::ValueMeta(std::move(meta)), static_cast<uint32_t>(i))) {
      return make_error(ErrorCode::INPUT_SCHEMA, "tensor_values: value " + single_quoted(name) + " is already defined");
    }
    return Status::Ok();
  };
  auto take_tensor_meta = [&](const std::vector<ir::Argument>& defs) -> Status {
    if (tv_end == 0) return Status::Ok();
    Status st = Status::Ok();
    for (const ir::Argument& a : defs) {
      ir::for_each_value_name(a, [&](const std::string& name, ir::ValueKind kind) {
        if (!st.ok() || kind != ir::ValueKind::Tensor || tv_next == tv_end) return;
        if (tv_name(tv_next) != name) return;
        st = tv_take(tv_next);
        ++tv_next;
      });
      PTEFORGE_TRY(st);
    }
    return Status::Ok();
  };

  // Inputs.
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor inputs, required(c, s[0], "inputs", "Graph"));
  std::vector<ir::Argument> ins;
  PTEFORGE_TRY(for_each_element(inputs, [&](const JsonCursor& e, size_t) -> Status {
    PTEFORGE_ASSIGN_OR_RETURN(ir::Argument a, read_argument(ctx, e, nullptr));
    ins.push_back(std::move(a));
    return Status::Ok();
  }));
  PTEFORGE_TRY(take_tensor_meta(ins));
  g.set_inputs(std::move(ins));

  // Nodes, in order.
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor nodes, required(c, s[2], "nodes", "Graph"));
  PointerChain nodes_path{nullptr, pointer.get(), "nodes"};
  std::vector<ir::Node*> unnamed;
  if (streamed_nodes) {
    // Attached in document order, as the loop below appends them.
    int64_t i = 0;
    for (ir::Node& node : g) {
      PTEFORGE_TRY(take_tensor_meta(node.outputs()));
      node.origin().graph_pointer = pointer;
      node.origin().index = i++;
      ir::GraphLoader::attach(g, node);
    }
  }
  PTEFORGE_TRY(for_each_element(nodes, [&](const JsonCursor& e, size_t i) -> Status {
    static constexpr std::array<std::string_view, 6> kNodeKeys = {
        "target", "inputs", "outputs", "metadata", "is_hop_single_tensor_return", "name"};
    PTEFORGE_ASSIGN_OR_RETURN(auto ns, read_struct(ctx, e, "Node", kNodeKeys));
    std::string name;
    bool has_name = false;
    if (auto n = optional(e, ns[5])) {
      PTEFORGE_ASSIGN_OR_RETURN(std::string_view v, n->as_string());
      name = std::string(v);
      has_name = true;
    }
    PointerChain path{&nodes_path, nullptr, {}, i};
    Result<ir::Node> node = read_node_body(ctx, e, ns, path, name, has_name);
    if (!node.ok()) {
      Error err = std::move(node).error();
      if (!err.where.node && has_name) err.where.node = name;
      return err;
    }
    PTEFORGE_TRY(take_tensor_meta(node->outputs()));
    node->origin().graph_pointer = pointer;
    node->origin().index = static_cast<int64_t>(i);
    ir::Node& added = g.append(std::move(node).value());
    if (!has_name) unnamed.push_back(&added);
    return Status::Ok();
  }));
  // Nodes without a name and without a single output get a fresh one (§11.2).
  for (ir::Node* n : unnamed) {
    std::string_view op = n->target().op().empty() ? std::string_view("node") : n->target().op();
    n->set_name(g.unique_name(op));
  }
  // tensor_values entries not met in definition order.
  for (; tv_next != tv_end; ++tv_next) PTEFORGE_TRY(tv_take(tv_next));

  // Outputs.
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor outputs, required(c, s[1], "outputs", "Graph"));
  std::vector<ir::Argument> outs;
  PTEFORGE_TRY(for_each_element(outputs, [&](const JsonCursor& e, size_t) -> Status {
    PTEFORGE_ASSIGN_OR_RETURN(ir::Argument a, read_argument(ctx, e, nullptr));
    outs.push_back(std::move(a));
    return Status::Ok();
  }));
  g.set_outputs(std::move(outs));

  if (auto single = optional(c, s[6])) {
    PTEFORGE_ASSIGN_OR_RETURN(bool b, single->as_bool());
    g.set_is_single_tensor_return(b);
  }
  return g;
}

}  // namespace pteforge::serde::detail
