// Exact schemas of representative operators from the generated table, and the
// schema parser / default-value parser on their own.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <set>

#include "ops/op_table.h"

using namespace pteforge;
using namespace pteforge::ops;

namespace {

const OpSchema& get(std::string_view target) {
  const OpSchema* s = op_table().find(target);
  REQUIRE_MESSAGE(s != nullptr, target);
  return *s;
}

std::vector<int64_t> ints(const Argument& a) {
  REQUIRE(a.default_value.has_value());
  REQUIRE(a.default_value->kind == Value::Kind::IntList);
  return a.default_value->int_list;
}

}  // namespace

TEST_CASE("ops: the generated table parses completely") {
  const OpTable& t = op_table();
  Status st = t.verify();  // every line parses; C++ kinds equal the generator's
  REQUIRE_MESSAGE(st.ok(), st.error().to_string());
  // 2,637 native + 485 autogen out variants + functional twins + ExecuTorch ops.
  CHECK(t.size() == 3258);
  std::set<std::string> names;
  for (size_t i = 0; i < t.size(); ++i) {
    CHECK_FALSE(t.at(i).name.empty());
    names.insert(t.at(i).full_name());
    CHECK(t.find(t.at(i).full_name()) == &t.at(i));
  }
  CHECK(names.size() == t.size());
}

TEST_CASE("ops: every generated schema round-trips through to_string") {
  for (size_t i = 0; i < op_table().size(); ++i) {
    const OpSchema& s = op_table().at(i);
    auto again = parse_schema(s.to_string());
    REQUIRE_MESSAGE(again.ok(), s.to_string());
    CHECK(again->to_string() == s.to_string());
    CHECK(again->arguments == s.arguments);
  }
}

TEST_CASE("ops: add.Tensor has a keyword-only alpha=1") {
  const OpSchema& s = get("aten::add.Tensor");
  CHECK(s.to_string() == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(s.ns == "aten");
  CHECK(s.name == "add");
  CHECK(s.overload == "Tensor");
  REQUIRE(s.arguments.size() == 3);
  CHECK(s.num_positional() == 2);
  CHECK(s.arguments[0].type.base == BaseType::Tensor);
  CHECK_FALSE(s.arguments[0].kwarg_only);
  const Argument& alpha = s.arguments[2];
  CHECK(alpha.name == "alpha");
  CHECK(alpha.kwarg_only);
  CHECK(alpha.type.base == BaseType::Scalar);
  CHECK(alpha.default_text == "1");
  REQUIRE(alpha.default_value.has_value());
  CHECK(alpha.default_value->kind == Value::Kind::Int);
  CHECK(alpha.default_value->int_value == 1);
  REQUIRE(s.returns.size() == 1);
  CHECK(s.returns[0].type.to_string() == "Tensor");
  CHECK(s.kind() == SchemaKind::Functional);
  CHECK(s.is_functional());
  CHECK_FALSE(s.is_inplace());
  CHECK_FALSE(s.is_out_variant());
  CHECK(s.has_tag(Tag::Core));
  CHECK(s.has_tag(Tag::Pointwise));
  CHECK_FALSE(s.has_tag(Tag::ViewCopy));
  CHECK(s.torch_name() == "torch.ops.aten.add.Tensor");
}

TEST_CASE("ops: add.out and add_.Tensor kinds and annotations") {
  const OpSchema& out = get("aten::add.out");
  CHECK(out.to_string() ==
        "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  CHECK(out.is_out_variant());
  CHECK(out.out_argument_names() == std::vector<std::string>{"out"});
  CHECK(out.out_argument_indices() == std::vector<size_t>{3});
  const Argument& o = out.arguments[3];
  REQUIRE(o.type.alias.has_value());
  CHECK(o.type.alias->set == "a");
  CHECK(o.type.alias->is_write);
  CHECK_FALSE(o.type.alias->to_wildcard);
  CHECK(o.is_out());
  CHECK(out.returns[0].type.is_write());

  const OpSchema& inplace = get("aten::add_.Tensor");
  CHECK(inplace.is_inplace());
  CHECK(inplace.base_name() == "add");
  CHECK(inplace.arguments[0].type.is_write());
  CHECK_FALSE(inplace.arguments[0].is_out());
  CHECK(get("aten::__iand__.Scalar").is_inplace());
  CHECK(get("aten::__iand__.Scalar").base_name() == "__and__");
  CHECK(get("aten::__and__.Scalar").is_functional());
  CHECK(get("aten::_native_batch_norm_legit").is_mutable());
}

TEST_CASE("ops: addmm, convolution (Tensor? bias without default)") {
  CHECK(get("aten::addmm").to_string() ==
        "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor");
  const OpSchema& conv = get("torch.ops.aten.convolution.default");
  CHECK(conv.to_string() ==
        "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
        "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor");
  CHECK(conv.overload == "");
  const Argument& bias = conv.arguments[2];
  CHECK(bias.type.is_tensor());
  CHECK(bias.type.optional);
  CHECK_FALSE(bias.default_value.has_value());
  const Argument& stride = conv.arguments[3];
  CHECK(stride.type.base == BaseType::SymInt);
  CHECK(stride.type.is_list);
  CHECK(stride.type.list_size == 0);
  CHECK_FALSE(stride.type.optional);
  CHECK(conv.num_positional() == 9);
}

TEST_CASE("ops: native_layer_norm returns three tensors, its autogen out has out0..out2") {
  const OpSchema& s = get("aten.native_layer_norm.default");
  CHECK(s.returns.size() == 3);
  for (const Return& r : s.returns) {
    CHECK(r.type.to_string() == "Tensor");
    CHECK(r.name.empty());
  }
  const OpSchema* out = op_table().out_variant(s);
  REQUIRE(out != nullptr);
  CHECK(out->to_string() ==
        "aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, "
        "float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))");
  CHECK(out->out_argument_names() == std::vector<std::string>{"out0", "out1", "out2"});
  CHECK(op_table().source(*out) == "native_functions.yaml autogen (out variant)");
  CHECK(op_table().source(s) == "native_functions.yaml");
}

TEST_CASE("ops: max_pool2d_with_indices sized-list defaults and its two-out variant") {
  const OpSchema& s = get("aten::max_pool2d_with_indices");
  REQUIRE(s.arguments.size() == 6);
  const Argument& kernel = s.arguments[1];
  CHECK(kernel.type.base == BaseType::Int);
  CHECK(kernel.type.list_size == 2);
  CHECK_FALSE(kernel.default_value.has_value());
  CHECK(ints(s.arguments[2]).empty());  // stride=[]
  CHECK(s.arguments[2].default_text == "[]");
  CHECK(ints(s.arguments[3]) == std::vector<int64_t>{0, 0});  // padding=0, broadcast
  CHECK(ints(s.arguments[4]) == std::vector<int64_t>{1, 1});  // dilation=1
  REQUIRE(s.arguments[5].default_value.has_value());
  CHECK(s.arguments[5].default_value->kind == Value::Kind::Bool);
  CHECK(s.arguments[5].default_value->bool_value == false);

  const OpSchema* out = op_table().out_variant(s);
  REQUIRE(out != nullptr);
  CHECK(out->full_name() == "aten::max_pool2d_with_indices.out");
  CHECK(out->to_string() ==
        "aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
        "int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))");
  CHECK(out->out_argument_names() == std::vector<std::string>{"out", "indices"});
  CHECK(out->out_argument_indices() == std::vector<size_t>{6, 7});
}

TEST_CASE("ops: split_copy.Tensor_out has a Tensor(a!)[] out and returns nothing") {
  const OpSchema& s = get("aten::split_copy.Tensor");
  CHECK(s.to_string() == "aten::split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]");
  CHECK(s.has_tag(Tag::ViewCopy));
  CHECK(s.returns[0].type.is_tensor_list());
  const OpSchema* out = op_table().out_variant(s);
  REQUIRE(out != nullptr);
  CHECK(out->to_string() ==
        "aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()");
  CHECK(out->returns.empty());
  const Argument& o = out->arguments[3];
  CHECK(o.type.is_tensor_list());
  CHECK(o.type.is_write());
  CHECK(o.is_out());
  CHECK(o.type.to_string() == "Tensor(a!)[]");
  // The view op aliases into a list: `Tensor(a -> *) self`.
  const OpSchema& view = get("aten::split.Tensor");
  REQUIRE(view.arguments[0].type.alias.has_value());
  CHECK(view.arguments[0].type.alias->to_wildcard);
  CHECK(view.arguments[0].type.to_string() == "Tensor(a -> *)");
  CHECK(view.returns[0].type.to_string() == "Tensor(a)[]");
  CHECK(view.is_view());
  CHECK(op_table().out_variant(view) == nullptr);
  CHECK(op_table().copy_variant(view) == &s);
}

TEST_CASE("ops: _softmax, view_copy, permute_copy, sym_size.int") {
  CHECK(get("aten::_softmax").to_string() == "aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  CHECK(op_table().out_variant(get("aten::_softmax"))->full_name() == "aten::_softmax.out");
  CHECK(get("aten::view_copy").to_string() == "aten::view_copy(Tensor self, SymInt[] size) -> Tensor");
  CHECK(op_table().out_variant(get("aten::view_copy"))->to_string() ==
        "aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)");
  CHECK(get("aten::permute_copy").to_string() == "aten::permute_copy(Tensor self, int[] dims) -> Tensor");
  CHECK(op_table().out_variant(get("aten::permute_copy"))->to_string() ==
        "aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)");
  const OpSchema& sym = get("torch.ops.aten.sym_size.int");
  CHECK(sym.to_string() == "aten::sym_size.int(Tensor self, int dim) -> SymInt");
  CHECK(sym.returns[0].type.base == BaseType::SymInt);
  CHECK(op_table().out_variant(sym) == nullptr);
  CHECK(op_table().has_kernel(sym, KernelLibrary::Prim));
}

TEST_CASE("ops: dim_order_ops._to_dim_order_copy and its out variant drop TensorOptions") {
  const OpSchema& s = get("torch.ops.dim_order_ops._to_dim_order_copy.default");
  CHECK(s.to_string() ==
        "dim_order_ops::_to_dim_order_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None, bool non_blocking=False, int[]? dim_order=None) -> Tensor");
  CHECK(s.ns == "dim_order_ops");
  const Argument* dim_order = s.find_argument("dim_order");
  REQUIRE(dim_order != nullptr);
  CHECK(dim_order->type.base == BaseType::Int);
  CHECK(dim_order->type.is_list);
  CHECK(dim_order->type.optional);
  CHECK(dim_order->default_value->is_none());
  const OpSchema* out = op_table().out_variant(s);
  REQUIRE(out != nullptr);
  CHECK(out->to_string() ==
        "dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, "
        "Tensor(a!) out) -> Tensor(a!)");
  CHECK(op_table().is_portable(*out));
  CHECK(op_table().source(s) == "custom_op_schemas.md");
  CHECK(op_table().out_variant(get("dim_order_ops::_clone_dim_order"))->full_name() ==
        "dim_order_ops::_clone_dim_order.out");
  CHECK(op_table().out_variant(get("dim_order_ops._empty_dim_order.default"))->full_name() ==
        "dim_order_ops::_empty_dim_order.out");
}

TEST_CASE("ops: full_like has keyword-only dtype/memory_format defaulting to None") {
  const OpSchema& s = get("aten::full_like");
  CHECK(s.num_positional() == 2);
  for (std::string_view name : {"dtype", "layout", "device", "pin_memory", "memory_format"}) {
    const Argument* a = s.find_argument(name);
    REQUIRE(a != nullptr);
    CHECK(a->kwarg_only);
    CHECK(a->type.optional);
    REQUIRE(a->default_value.has_value());
    CHECK(a->default_value->is_none());
    CHECK(a->default_text == "None");
  }
  CHECK(s.find_argument("dtype")->type.base == BaseType::ScalarType);
  CHECK(s.find_argument("memory_format")->type.base == BaseType::MemoryFormat);
  const OpSchema* out = op_table().out_variant(s);
  REQUIRE(out != nullptr);
  CHECK(out->to_string() ==
        "aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None, Tensor(a!) out) "
        "-> Tensor(a!)");
}

TEST_CASE("ops: avg_pool2d defaults") {
  const OpSchema& s = get("aten::avg_pool2d");
  CHECK(s.to_string() ==
        "aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
        "bool count_include_pad=True, int? divisor_override=None) -> Tensor");
  CHECK(ints(s.arguments[2]).empty());
  CHECK(ints(s.arguments[3]) == std::vector<int64_t>{0, 0});
  CHECK(s.arguments[5].default_value->bool_value == true);
  CHECK(s.arguments[6].type.base == BaseType::Int);
  CHECK(s.arguments[6].type.optional);
  CHECK(s.arguments[6].default_value->is_none());
  CHECK(op_table().out_variant(s)->full_name() == "aten::avg_pool2d.out");
}

TEST_CASE("ops: clamp Scalar? defaults, clamp.Tensor Tensor? defaults") {
  const OpSchema& s = get("aten.clamp.default");
  CHECK(s.to_string() == "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor");
  CHECK(s.arguments[1].type.base == BaseType::Scalar);
  CHECK(s.arguments[1].type.optional);
  CHECK(s.arguments[1].default_value->is_none());
  CHECK(op_table().out_variant(s)->full_name() == "aten::clamp.out");
  const OpSchema& t = get("aten.clamp.Tensor");
  CHECK(t.arguments[2].type.to_string() == "Tensor?");
  CHECK(op_table().out_variant(t)->full_name() == "aten::clamp.Tensor_out");
}

TEST_CASE("ops: index.Tensor takes Tensor?[]") {
  const OpSchema& s = get("aten::index.Tensor");
  CHECK(s.to_string() == "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  const Type& t = s.arguments[1].type;
  CHECK(t.is_optional_tensor_list());
  CHECK(t.element_optional);
  CHECK_FALSE(t.optional);
  CHECK_FALSE(t.is_tensor_list());
  CHECK(s.has_tag(Tag::DynamicOutputShape));
  CHECK(op_table().out_variant(s)->full_name() == "aten::index.Tensor_out");
}

TEST_CASE("ops: default value kinds") {
  // float default written as an integer is a double; Scalar keeps int vs float.
  const OpSchema& pdist = get("aten::_pdist_forward");
  CHECK(pdist.find_argument("p")->default_value->kind == Value::Kind::Double);
  CHECK(pdist.find_argument("p")->default_value->double_value == 2.0);
  const OpSchema& lrelu = get("aten::leaky_relu");
  CHECK(lrelu.find_argument("negative_slope")->default_value->kind == Value::Kind::Double);
  CHECK(lrelu.find_argument("negative_slope")->default_value->double_value == 0.01);
  // ScalarType / MemoryFormat names, at::Reduction names, strings, int lists.
  const OpSchema& ctc = get("aten::ctc_loss.IntList");
  CHECK(ctc.find_argument("reduction")->default_value->kind == Value::Kind::Int);
  CHECK(ctc.find_argument("reduction")->default_value->int_value == 1);  // Mean
  const OpSchema& gelu = get("aten::gelu");
  CHECK(gelu.find_argument("approximate")->default_value->kind == Value::Kind::String);
  CHECK(gelu.find_argument("approximate")->default_value->string_value == "none");

  Type sized_list;
  sized_list.base = BaseType::SymInt;
  sized_list.is_list = true;
  sized_list.list_size = 3;
  auto v = parse_default_value(sized_list, "1");
  REQUIRE(v.ok());
  CHECK(v->int_list == std::vector<int64_t>{1, 1, 1});
  v = parse_default_value(sized_list, "[-2,-1]");
  REQUIRE(v.ok());
  CHECK(v->int_list == std::vector<int64_t>{-2, -1});

  Type st;
  st.base = BaseType::ScalarType;
  st.optional = true;
  v = parse_default_value(st, "long");
  REQUIRE(v.ok());
  CHECK(v->kind == Value::Kind::ScalarType);
  CHECK(v->int_value == 4);  // c10 Long

  Type mf;
  mf.base = BaseType::MemoryFormat;
  v = parse_default_value(mf, "contiguous_format");
  REQUIRE(v.ok());
  CHECK(v->kind == Value::Kind::MemoryFormat);
  CHECK(v->int_value == static_cast<int64_t>(MemoryFormat::Contiguous));
  v = parse_default_value(mf, "channels_last");
  CHECK(v->int_value == 2);

  Type f;
  f.base = BaseType::Float;
  v = parse_default_value(f, "inf");
  REQUIRE(v.ok());
  CHECK(v->double_value == std::numeric_limits<double>::infinity());
  v = parse_default_value(f, "-inf");
  CHECK(v->double_value == -std::numeric_limits<double>::infinity());
  v = parse_default_value(f, "1e-05");
  CHECK(v->double_value == 1e-05);

  Type str;
  str.base = BaseType::Str;
  v = parse_default_value(str, R"("\"'\\")");
  REQUIRE(v.ok());
  CHECK(v->string_value == "\"'\\");
  v = parse_default_value(str, "'linear'");
  CHECK(v->string_value == "linear");

  Type scalar;
  scalar.base = BaseType::Scalar;
  v = parse_default_value(scalar, "0.3333333333333333");
  CHECK(v->kind == Value::Kind::Double);
  v = parse_default_value(scalar, "-1");
  CHECK(v->kind == Value::Kind::Int);
  CHECK(v->int_value == -1);
}

TEST_CASE("ops: schema and default parse errors are INPUT_SCHEMA with a byte offset") {
  auto r = parse_schema("aten::foo(Tensor self, Bogus x) -> Tensor");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(r.error().where.byte_offset == 23u);
  r = parse_schema("foo(Tensor self) Tensor");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().where.byte_offset == 16u);
  r = parse_schema("foo(int[2] x=abc) -> Tensor");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(r.error().where.byte_offset == 13u);
  r = parse_schema("foo(Tensor(a x) -> Tensor");
  REQUIRE_FALSE(r.ok());
  r = parse_schema("");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().where.byte_offset == 0u);
  r = parse_schema("foo(int[0] x) -> ()");
  REQUIRE_FALSE(r.ok());

  Type unsized;
  unsized.base = BaseType::Int;
  unsized.is_list = true;
  auto v = parse_default_value(unsized, "0");
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().code == ErrorCode::INPUT_SCHEMA);
}

TEST_CASE("ops: parse_schema of a custom schema keeps namespaces, names and returns") {
  auto r = parse_schema("llama::fallback.out(Tensor input, *, Tensor(a!) output) -> Tensor(a!)");
  REQUIRE(r.ok());
  CHECK(r->ns == "llama");
  CHECK(r->out_argument_names() == std::vector<std::string>{"output"});
  r = parse_schema("topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
                   "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)");
  REQUIRE(r.ok());
  CHECK(r->ns == "aten");
  CHECK(r->returns[1].name == "indices");
  CHECK(r->to_string().substr(0, 18) == "aten::topk.values(");
  r = parse_schema("grid_sampler_2d_backward(Tensor grad_output) -> Tensor grid", "custom");
  REQUIRE(r.ok());
  CHECK(r->ns == "custom");
  CHECK(r->returns[0].name == "grid");
}
