// Operator table facts: lookup spellings, out variants, `_copy` twins,
// kernel-library membership, core tags, nearest-op suggestions.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "ops/op_table.h"

using namespace pteforge;
using namespace pteforge::ops;

namespace {

std::string full(const OpSchema* s) { return s ? s->full_name() : std::string("<null>"); }

std::string out_of(std::string_view target) {
  const OpSchema* s = op_table().find(target);
  REQUIRE_MESSAGE(s != nullptr, target);
  return full(op_table().out_variant(*s));
}

}  // namespace

TEST_CASE("ops: parse_op_target normalizes every spelling") {
  struct Case {
    std::string_view text;
    OperatorName want;
  };
  const Case cases[] = {
      {"torch.ops.aten.add.Tensor", {"aten", "add", "Tensor"}},
      {"aten.add.Tensor", {"aten", "add", "Tensor"}},
      {"aten::add.Tensor", {"aten", "add", "Tensor"}},
      {"aten::add", {"aten", "add", ""}},
      {"aten.relu", {"aten", "relu", ""}},
      {"aten::relu.default", {"aten", "relu", ""}},
      {"torch.ops.aten.relu.default", {"aten", "relu", ""}},
      {"torch.ops.dim_order_ops._to_dim_order_copy.default", {"dim_order_ops", "_to_dim_order_copy", ""}},
      {"executorch_prim::et_view.default", {"executorch_prim", "et_view", ""}},
      {"executorch_prim::add.Scalar", {"executorch_prim", "add", "Scalar"}},
      {"_operator.getitem", {"_operator", "getitem", ""}},
  };
  for (const Case& c : cases) {
    auto r = parse_op_target(c.text);
    REQUIRE_MESSAGE(r.ok(), c.text);
    CHECK_MESSAGE(*r == c.want, c.text);
  }
  for (std::string_view bad : {"", "add", "<built-in function getitem>", "aten..add", "aten.add.Tensor.x",
                               "aten::add.", "aten::", "torch.ops.aten", "1aten.add"}) {
    auto r = parse_op_target(bad);
    REQUIRE_FALSE_MESSAGE(r.ok(), bad);
    CHECK(r.error().code == ErrorCode::UNSUPPORTED_OPERATOR);
  }
  CHECK(OperatorName{"aten", "add", "Tensor"}.to_string() == "aten::add.Tensor");
  CHECK(OperatorName{"aten", "relu", ""}.to_string() == "aten::relu");
}

TEST_CASE("ops: lookup forms all reach the same schema") {
  const OpTable& t = op_table();
  const OpSchema* add = t.find("aten", "add", "Tensor");
  REQUIRE(add != nullptr);
  for (std::string_view s : {"torch.ops.aten.add.Tensor", "aten::add.Tensor", "aten.add.Tensor"}) {
    CHECK_MESSAGE(t.find(s) == add, s);
  }
  const OpSchema* relu = t.find("aten::relu");
  REQUIRE(relu != nullptr);
  CHECK(relu->overload == "");
  CHECK(t.find("torch.ops.aten.relu.default") == relu);
  CHECK(t.find("aten.relu") == relu);
  CHECK(t.find("aten", "relu", "default") == relu);
  CHECK(t.find("aten::add") == nullptr);  // add has no default overload
  CHECK(t.find("aten::nonexistent_op.Tensor") == nullptr);
  CHECK(t.find("not an op") == nullptr);

  const OpSchema* d = t.find("torch.ops.dim_order_ops._to_dim_order_copy.default");
  REQUIRE(d != nullptr);
  CHECK(d->ns == "dim_order_ops");
  const OpSchema* view = t.find("executorch_prim::et_view.default");
  REQUIRE(view != nullptr);
  CHECK(view->to_string() == "executorch_prim::et_view(Tensor(a) self, int[] size) -> Tensor(a)");
  CHECK(t.has_kernel(*view, KernelLibrary::Prim));
  const OpSchema* prim_add = t.find("torch.ops.executorch_prim.add.Scalar");
  REQUIRE(prim_add != nullptr);
  CHECK(prim_add->to_string() == "executorch_prim::add.Scalar(Scalar a, Scalar b) -> Scalar");
  CHECK(t.kernels(*prim_add) == kernel_set(KernelLibrary::Prim));
  CHECK(t.find("executorch_prim::et_copy_index.tensor") != nullptr);
  CHECK(t.find("quantized_decomposed::quantize_per_tensor.tensor") != nullptr);
  CHECK(t.find("et_copy::_h2d_copy") != nullptr);
  CHECK(t.find("llama::custom_sdpa") != nullptr);

  // A schema parsed elsewhere maps onto the table entry by name.
  auto parsed = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  REQUIRE(parsed.ok());
  CHECK(t.out_variant(*parsed) == t.find("aten::add.out"));
}

TEST_CASE("ops: lookup of an unknown op is UNSUPPORTED_OPERATOR with the nearest supported ops") {
  auto r = op_table().lookup("torch.ops.aten.add.default");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::UNSUPPORTED_OPERATOR);
  CHECK(r.error().message == "unknown operator aten::add (from \"torch.ops.aten.add.default\")");
  REQUIRE(r.error().notes.size() == 1);
  CHECK(r.error().notes[0] == "nearest supported: aten::add.Tensor, aten::add.Scalar");

  auto ok = op_table().lookup("aten.mul.Tensor");
  REQUIRE(ok.ok());
  CHECK((*ok)->full_name() == "aten::mul.Tensor");

  auto bad = op_table().lookup("<built-in function getitem>");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::UNSUPPORTED_OPERATOR);
}

TEST_CASE("ops: nearest supported ops") {
  const OpTable& t = op_table();
  // Same base name, other overloads (in-place marker ignored).
  std::vector<const OpSchema*> n = t.nearest_supported("aten::add_.Tensor");
  REQUIRE(n.size() == 2);
  CHECK(n[0]->full_name() == "aten::add.Tensor");
  CHECK(n[1]->full_name() == "aten::add.Scalar");
  // Misspelled name: edit distance.
  n = t.nearest_supported("aten.sofmax.int");
  REQUIRE_FALSE(n.empty());
  CHECK(n[0]->full_name() == "aten::_softmax");
  n = t.nearest_supported("aten::convolutoin");
  REQUIRE_FALSE(n.empty());
  CHECK(n[0]->full_name() == "aten::convolution");
  CHECK(t.nearest_supported("aten::qqqqqqqqqqqqqqqqqqqqqqqqqqq").empty());
  n = t.nearest_supported("aten::add_.Tensor", 1);
  CHECK(n.size() == 1);
}

TEST_CASE("ops: out variants follow the signature rule, not the name") {
  CHECK(out_of("aten::add.Tensor") == "aten::add.out");
  CHECK(out_of("aten::add.Scalar") == "aten::add.Scalar_out");  // autogen
  CHECK(out_of("aten::add_.Tensor") == "aten::add.out");         // in-place
  CHECK(out_of("aten::mul.Tensor") == "aten::mul.out");
  CHECK(out_of("aten::div.Tensor_mode") == "aten::div.out_mode");
  CHECK(out_of("aten::mean") == "aten::mean.dtype_out");
  CHECK(out_of("aten::mean.dim") == "aten::mean.out");
  CHECK(out_of("aten::sum.dim_IntList") == "aten::sum.IntList_out");
  CHECK(out_of("aten::max") == "aten::max.unary_out");
  CHECK(out_of("aten::max.dim") == "aten::max.dim_max");
  CHECK(out_of("aten::all") == "aten::all.all_out");
  CHECK(out_of("aten::topk") == "aten::topk.values");
  CHECK(out_of("aten::empty.memory_format") == "aten::empty.out");
  CHECK(out_of("aten::arange.start_step") == "aten::arange.start_out");
  CHECK(out_of("aten::_to_copy") == "aten::_to_copy.out");
  CHECK(out_of("aten::convolution") == "aten::convolution.out");
  CHECK(out_of("aten::select_copy.int") == "aten::select_copy.int_out");
  CHECK(out_of("aten::alias_copy") == "aten::alias_copy.out");
  CHECK(out_of("aten::_native_batch_norm_legit") == "aten::_native_batch_norm_legit.out");
  CHECK(out_of("aten::__lshift__.Scalar") == "aten::__lshift__.Scalar_out");
  CHECK(out_of("aten::__ilshift__.Scalar") == "aten::__lshift__.Scalar_out");
  CHECK(out_of("quantized_decomposed::quantize_per_tensor.tensor") ==
        "quantized_decomposed::quantize_per_tensor.Tensor_out");
  CHECK(out_of("quantized_decomposed::dequantize_per_tensor") == "quantized_decomposed::dequantize_per_tensor.out");
  CHECK(out_of("quantized_decomposed::embedding_4bit.dtype") == "quantized_decomposed::embedding_4bit.dtype_out");
  CHECK(out_of("aten::allclose.Tensor") == "aten::allclose.out");  // ExecuTorch's custom pair
  CHECK(out_of("aten::allclose") == "<null>");                     // native allclose returns bool
  CHECK(out_of("llama::custom_sdpa") == "llama::custom_sdpa.out");
  CHECK(out_of("et_copy::_d2h_copy") == "et_copy::_d2h_copy.out");
  // Views have no out variant; out variants have none either.
  CHECK(out_of("aten::view") == "<null>");
  CHECK(out_of("aten::add.out") == "<null>");
  CHECK(out_of("aten::sym_size.int") == "<null>");

  const OpSchema* topk = op_table().out_variant(*op_table().find("aten::topk"));
  CHECK(topk->out_argument_names() == std::vector<std::string>{"values", "indices"});
  const OpSchema* maxdim = op_table().out_variant(*op_table().find("aten::max.dim"));
  CHECK(maxdim->out_argument_names() == std::vector<std::string>{"max", "max_values"});
}

TEST_CASE("ops: functional twins of in-place-only ops come from autogen") {
  const OpSchema* zero = op_table().find("aten::zero");
  REQUIRE(zero != nullptr);
  CHECK(zero->to_string() == "aten::zero(Tensor self) -> Tensor");
  CHECK(out_of("aten::zero") == "aten::zero.out");
}

TEST_CASE("ops: the table's schemas know their kind, and a changed copy works it out again") {
  const OpTable& t = op_table();
  const OpSchema* add = t.find("aten::add.Tensor");
  const OpSchema* add_ = t.find("aten::add_.Tensor");
  const OpSchema* add_out = t.find("aten::add.out");
  REQUIRE(add);
  REQUIRE(add_);
  REQUIRE(add_out);
  CHECK(add->kind() == SchemaKind::Functional);
  CHECK(add_->kind() == SchemaKind::Inplace);
  CHECK(add_out->kind() == SchemaKind::Out);
  // Every schema's kind, asked twice, is the kind its text gives.
  for (size_t i = 0; i < t.size(); ++i) {
    const OpSchema& s = t.at(i);
    Result<OpSchema> reparsed = parse_schema(s.to_string());
    REQUIRE(reparsed.ok());
    CHECK(s.kind() == reparsed->kind());
    CHECK(s.kind() == s.kind());
  }
  // A copy is changed freely: it does not keep the table's answer.
  OpSchema copy = *add;
  CHECK(copy.kind() == SchemaKind::Functional);
  copy.name = "add_";
  CHECK(copy.kind() == SchemaKind::Inplace);
  OpSchema assigned;
  assigned = *add_out;
  assigned.arguments.pop_back();  // the out argument
  CHECK(assigned.kind() == SchemaKind::Functional);
}

TEST_CASE("ops: _copy twins of view ops") {
  const OpTable& t = op_table();
  struct Case {
    std::string_view view, copy;
  };
  const Case cases[] = {
      {"aten::view", "aten::view_copy"},
      {"aten::permute", "aten::permute_copy"},
      {"aten::alias", "aten::alias_copy"},
      {"aten::t", "aten::t_copy"},
      {"aten::select.int", "aten::select_copy.int"},
      {"aten::slice.Tensor", "aten::slice_copy.Tensor"},
      {"aten::expand", "aten::expand_copy"},
      {"aten::squeeze.dims", "aten::squeeze_copy.dims"},
      {"aten::unsqueeze", "aten::unsqueeze_copy"},
      {"aten::transpose.int", "aten::transpose_copy.int"},
      {"aten::detach", "aten::detach_copy"},
      {"aten::unbind.int", "aten::unbind_copy.int"},
  };
  for (const Case& c : cases) {
    const OpSchema* v = t.find(c.view);
    REQUIRE_MESSAGE(v != nullptr, c.view);
    CHECK_MESSAGE(v->is_view(), c.view);
    CHECK_MESSAGE(full(t.copy_variant(*v)) == c.copy, c.view);
  }
  CHECK(t.copy_variant(*t.find("aten::view_copy")) == nullptr);
  CHECK(t.copy_variant(*t.find("aten::add.Tensor")) == nullptr);
  CHECK(t.copy_variant(*t.find("aten::reshape")) == nullptr);  // composite: decomposed instead
  CHECK_FALSE(t.find("aten::add.Tensor")->is_view());
  // Through the twin, a view op runs as the twin's out variant.
  CHECK(full(t.runtime_op(*t.find("aten::permute"))) == "aten::permute_copy.out");
}

TEST_CASE("ops: portable / optimized / quantized / prim membership") {
  const OpTable& t = op_table();
  auto portable = [&](std::string_view s) {
    const OpSchema* op = t.find(s);
    REQUIRE_MESSAGE(op != nullptr, s);
    return t.is_portable(*op);
  };
  CHECK(portable("aten::add.out"));
  CHECK(portable("aten::add.Scalar_out"));
  CHECK(portable("aten::split_copy.Tensor_out"));
  CHECK(portable("aten::copy_"));
  CHECK(portable("aten::index_put_"));
  CHECK(portable("aten::allclose.out"));
  CHECK(portable("dim_order_ops::_clone_dim_order.out"));
  CHECK(portable("et_copy::_h2d_copy.out"));
  CHECK_FALSE(portable("aten::add.Tensor"));  // functional: the kernel is add.out
  CHECK_FALSE(portable("aten::cumprod.out"));
  CHECK_FALSE(portable("aten::linalg_svd.U"));
  CHECK_FALSE(portable("quantized_decomposed::quantize_per_tensor.out"));

  const OpSchema* linear_out = t.find("aten::linear.out");
  REQUIRE(linear_out != nullptr);
  CHECK(t.is_optimized(*linear_out));
  CHECK_FALSE(t.is_portable(*linear_out));
  CHECK(t.kernels(*t.find("aten::add.out")) ==
        (kernel_set(KernelLibrary::Portable) | kernel_set(KernelLibrary::Optimized)));
  CHECK(t.has_kernel(*t.find("quantized_decomposed::quantize_per_tensor.out"), KernelLibrary::Quantized));
  CHECK(t.has_kernel(*t.find("aten::_local_scalar_dense"), KernelLibrary::Prim));
  CHECK(t.has_kernel(*t.find("aten::sym_numel"), KernelLibrary::Prim));
  CHECK(t.has_kernel(*t.find("executorch_prim::floordiv.int"), KernelLibrary::Prim));

  size_t n_portable = 0, n_optimized = 0, n_quantized = 0, n_prim = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const OpSchema& s = t.at(i);
    n_portable += t.has_kernel(s, KernelLibrary::Portable);
    n_optimized += t.has_kernel(s, KernelLibrary::Optimized);
    n_quantized += t.has_kernel(s, KernelLibrary::Quantized);
    n_prim += t.has_kernel(s, KernelLibrary::Prim);
  }
  // 209 functions.yaml entries (et_copy_ops.yaml repeats two) + 2 custom_ops.yaml.
  CHECK(n_portable == 211);
  CHECK(n_optimized == 23);
  CHECK(n_quantized == 19);
  CHECK(n_prim == 28);

  // runtime_op: what runs for a graph op with the default (portable + prim) runtime.
  CHECK(full(t.runtime_op(*t.find("aten::add.Tensor"))) == "aten::add.out");
  CHECK(full(t.runtime_op(*t.find("aten::sym_size.int"))) == "aten::sym_size.int");
  CHECK(full(t.runtime_op(*t.find("aten::copy_"))) == "aten::copy_");
  CHECK(t.runtime_op(*t.find("aten::add_.Tensor")) == nullptr);  // in-place: not converted
  CHECK(t.runtime_op(*t.find("aten::linear")) == nullptr);
  CHECK(full(t.runtime_op(*t.find("aten::linear"), kernel_set(KernelLibrary::Optimized))) == "aten::linear.out");
  CHECK(t.is_supported(*t.find("dim_order_ops::_to_dim_order_copy")));
  CHECK_FALSE(t.is_supported(*t.find("aten::cumprod")));
}

TEST_CASE("ops: core ATen tags") {
  const OpTable& t = op_table();
  CHECK(is_core_aten(*t.find("aten::addmm")));
  CHECK(is_core_aten(*t.find("aten::convolution")));
  CHECK(is_core_aten(*t.find("aten::_softmax")));
  CHECK(is_core_aten(*t.find("aten::view")));
  CHECK(is_core_aten(*t.find("aten::permute")));
  CHECK_FALSE(is_core_aten(*t.find("aten::linear")));
  CHECK_FALSE(is_core_aten(*t.find("aten::softmax.int")));
  CHECK_FALSE(is_core_aten(*t.find("aten::view_copy")));
  CHECK_FALSE(is_core_aten(*t.find("aten::add.out")));
  CHECK(t.find("aten::view")->has_tag(Tag::Core));
  CHECK(t.find("aten::view_copy")->has_tag(Tag::ViewCopy));
  CHECK(t.find("aten::squeeze_")->has_tag(Tag::InplaceView));
  CHECK(t.find("aten::bernoulli")->has_tag(Tag::NondeterministicSeeded));
  CHECK(tag_name(Tag::Core) == "core");
  CHECK(tag_from_name("pointwise") == Tag::Pointwise);
  CHECK_FALSE(tag_from_name("nope").has_value());
  CHECK(kTagCount == 17);
  size_t core = 0;
  for (size_t i = 0; i < t.size(); ++i) core += is_core_aten(t.at(i));
  CHECK(core == 190);  // `tags:` lines naming core in native_functions.yaml
}

// Every `- op:` / `- func:` entry of ExecuTorch's portable functions.yaml
// (read here independently of the generator) names a schema in the table.
TEST_CASE("ops: every portable kernel resolves to a schema") {
  std::ifstream in(std::string(PTEFORGE_SOURCE_DIR) + "/core/ops/data/portable_functions.yaml");
  REQUIRE(in.good());
  std::string line;
  size_t entries = 0;
  std::set<const OpSchema*> seen;
  while (std::getline(in, line)) {
    std::string name;
    if (line.rfind("- op: ", 0) == 0) {
      name = line.substr(6);
    } else if (line.rfind("- func: ", 0) == 0) {
      std::string schema = line.substr(8);
      name = schema.substr(0, schema.find('('));
    } else {
      continue;
    }
    ++entries;
    if (name.find("::") == std::string::npos) name = "aten::" + name;
    const OpSchema* s = op_table().find(name);
    REQUIRE_MESSAGE(s != nullptr, name);
    CHECK_MESSAGE(op_table().is_portable(*s), name);
    bool out_or_inplace = s->is_out_variant() || s->is_inplace();
    CHECK_MESSAGE(out_or_inplace, name);
    seen.insert(s);
  }
  CHECK(entries == 209);
  CHECK(seen.size() == 209);
}
