// verify_shapes on small hand-built programs: what it refuses (with the exact
// message and node), what it skips, and that it changes nothing. Whole
// conversions of wrong programs are in tests/native/e2e/shape_errors_native.cpp.
#include <doctest/doctest.h>

#include <optional>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

TEST_CASE("verify_shapes: a consistent program passes unchanged and every call is counted") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.input("y", ScalarType::Float, {3});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Float, {2, 3}});
  auto r1 = b.call("aten.relu.default", {arg_tensor(a)}, {ScalarType::Float, {2, 3}});
  auto r2 = b.call("aten.relu.default", {arg_tensor(r1)}, {ScalarType::Float, {2, 3}});
  auto s = b.call("aten.sum.dim_IntList", {arg_tensor(r2), arg_ints({1}), arg_bool(true)}, {ScalarType::Float, {2, 1}});
  b.output(s);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK_FALSE(run.changed());
  CHECK(run.report.passes[0].stats.at("nodes_checked") == 4);
  CHECK(run.report.passes[0].stats.at("nodes_skipped") == 0);
  CHECK(print_exported_program(ep) == before);
}

TEST_CASE("verify_shapes: operands that do not broadcast are refused at their node") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.input("y", ScalarType::Float, {4});
  auto a = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(y)}, {ScalarType::Float, {2, 3}});
  b.output(a);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  const Error& e = run.status.error();
  CHECK(e.code == ErrorCode::INVALID_GRAPH);
  CHECK(e.message == "node \"add\": aten::add.Tensor: shapes [2, 3], [4] do not broadcast");
  CHECK(e.where.node == std::optional<std::string>("add"));
  CHECK(e.where.pass == std::optional<std::string>("verify_shapes"));
  REQUIRE(e.notes.size() == 1);
}

TEST_CASE("verify_shapes: a wrong node after an identical correct one is still refused") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r1 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto r2 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {2, 3}});
  auto r3 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {3, 2}});
  auto s = b.call("aten.add.Tensor", {arg_tensor(r1), arg_tensor(r2)}, {ScalarType::Float, {2, 3}});
  b.output(s);
  b.output(r3);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"relu_2\": declared as float32[3, 2], but aten::relu of its inputs gives float32[2, 3]");
  CHECK(run.status.error().where.node == std::optional<std::string>("relu_2"));
}

TEST_CASE("verify_shapes: each output of a multi-output call is compared, and named when wrong") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 2, 4, 4});
  auto outs = b.call_multi("aten.max_pool2d_with_indices.default",
                           {arg_tensor(x), arg_ints({2, 2}), arg_ints({2, 2})},
                           {{ScalarType::Float, {1, 2, 2, 2}}, {ScalarType::Float, {1, 2, 2, 2}}},
                           {"getitem", "getitem_1"});
  b.output(outs[0]);
  b.output(outs[1]);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"max_pool2d_with_indices\": output \"getitem_1\" declared as float32[1, 2, 2, 2], but "
        "aten::max_pool2d_with_indices of its inputs gives int64[1, 2, 2, 2]");
}

TEST_CASE("verify_shapes: ops without a shape rule, and other namespaces, are skipped, not refused") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  // logcumsumexp has no rule: even a wrong declared shape passes through.
  auto c = b.call("aten.logcumsumexp.default", {arg_tensor(x), arg_int(1)}, {ScalarType::Float, {7}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(run.report.passes[0].stats.at("nodes_checked") == 0);
  CHECK(run.report.passes[0].stats.at("nodes_skipped") == 1);
}

TEST_CASE("verify_shapes: a convolution bias of the wrong length is refused with PyTorch's wording") {
  ProgramBuilder b;
  auto w = b.parameter("p_w", "w", ScalarType::Float, {4, 3, 3, 3});
  auto bias = b.parameter("p_b", "b", ScalarType::Float, {5});
  auto x = b.input("x", ScalarType::Float, {1, 3, 8, 8});
  auto y = b.call("aten.convolution.default",
                  {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_ints({1, 1}), arg_ints({0, 0}),
                   arg_ints({1, 1}), arg_bool(false), arg_ints({0, 0}), arg_int(1)},
                  {ScalarType::Float, {1, 4, 6, 6}});
  b.output(y);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"convolution\": aten::convolution: given weight of size [4, 3, 3, 3], expected a 1-d bias of 4 "
        "elements, but got bias of size [5]");
}

TEST_CASE("verify_shapes: clamp's Scalar bounds take part in type promotion, as in PyTorch") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Long, {3});
  auto c = b.call("aten.clamp.default", {arg_tensor(x), arg_float(0.5)}, {ScalarType::Long, {3}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"clamp\": declared as int64[3], but aten::clamp of its inputs gives float32[3]");
}

TEST_CASE("verify_shapes: results on a device other than the CPU are not compared") {
  // On CUDA the eval-mode batch norm's saved statistics have one entry per
  // channel; the CPU rule gives empty ones.
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {1, 2, 3, 3});
  auto w = b.parameter("p_w", "w", ScalarType::Float, {2});
  auto bias = b.parameter("p_b", "b", ScalarType::Float, {2});
  auto mean = b.buffer("b_mean", "mean", ScalarType::Float, {2});
  auto var = b.buffer("b_var", "var", ScalarType::Float, {2});
  auto outs = b.call_multi("aten._native_batch_norm_legit_no_training.default",
                           {arg_tensor(x), arg_tensor(w), arg_tensor(bias), arg_tensor(mean), arg_tensor(var),
                            arg_float(0.1), arg_float(1e-5)},
                           {{ScalarType::Float, {1, 2, 3, 3}}, {ScalarType::Float, {2}}, {ScalarType::Float, {2}}},
                           {"getitem", "getitem_1", "getitem_2"});
  b.output(outs[0]);
  ExportedProgram ep = b.build();
  SUBCASE("on the CPU the per-channel statistics are refused") {
    auto run = run_pass(ep, "verify_shapes");
    REQUIRE_FALSE(run.status.ok());
    CHECK(run.status.error().message ==
          "node \"_native_batch_norm_legit_no_training\": output \"getitem_1\" declared as float32[2], but "
          "aten::_native_batch_norm_legit_no_training of its inputs gives float32[0]");
  }
  SUBCASE("on CUDA they are not compared") {
    for (const char* name : {"getitem", "getitem_1", "getitem_2"}) {
      TensorMeta m = *ep.graph().tensor_meta(name);
      m.device.type = "cuda";
      ep.graph().set_tensor_meta(name, m);
    }
    auto run = run_pass(ep, "verify_shapes");
    REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  }
}

namespace {

/// One call `target(args)` on inputs `ins` declared as `out`; the verify_shapes
/// error message, or "" when the program passes.
std::string check_one(const std::vector<std::pair<ScalarType, std::vector<int64_t>>>& ins, const std::string& target,
                      const std::vector<Argument>& extra, const pteforge::testing::Out& out,
                      std::vector<std::pair<std::string, Argument>> kwargs = {}) {
  ProgramBuilder b;
  std::vector<Argument> args;
  for (size_t i = 0; i < ins.size(); ++i) {
    args.push_back(arg_tensor(b.input("in" + std::to_string(i), ins[i].first, ins[i].second)));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = b.call(target, std::move(args), out, std::move(kwargs));
  b.output(r);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  return run.status.ok() ? std::string() : run.status.error().message;
}

}  // namespace

TEST_CASE("verify_shapes: PyTorch's dtype rules that differ by overload are followed") {
  using T = ScalarType;
  // pow's second operand is `exponent`: it broadcasts and promotes.
  CHECK(check_one({{T::Float, {1}}, {T::Float, {2, 1}}}, "aten.pow.Tensor_Tensor", {}, {T::Float, {2, 1}}) == "");
  CHECK(check_one({{T::Long, {3}}, {T::Float, {3}}}, "aten.pow.Tensor_Tensor", {}, {T::Float, {3}}) == "");
  // atan2 and true division give floats for integer operands; floor/trunc division keeps them.
  CHECK(check_one({{T::Long, {1}}, {T::Long, {1}}}, "aten.atan2.default", {}, {T::Float, {1}}) == "");
  CHECK(check_one({{T::Long, {1}}, {T::Long, {1}}}, "aten.div.Tensor_mode", {}, {T::Float, {1}},
                  {{"rounding_mode", arg_none()}}) == "");
  CHECK(check_one({{T::Long, {1}}, {T::Long, {1}}}, "aten.div.Tensor_mode", {}, {T::Long, {1}},
                  {{"rounding_mode", arg_string("floor")}}) == "");
  CHECK(check_one({{T::Long, {1}}}, "aten.div.Scalar_mode", {arg_int(2)}, {T::Long, {1}},
                  {{"rounding_mode", arg_string("trunc")}}) == "");
  // any keeps uint8.
  CHECK(check_one({{T::Byte, {1, 1}}}, "aten.any.dim", {arg_int(1)}, {T::Byte, {1}}) == "");
  // arange with an integer dtype truncates its bounds and step first.
  CHECK(check_one({}, "aten.arange.start_step", {arg_int(0), arg_float(5.5), arg_float(1.5)}, {T::Long, {5}},
                  {{"dtype", arg_dtype(T::Long)}}) == "");
  // Reducing dim 0 (or -1) of a 0-d tensor is allowed.
  CHECK(check_one({{T::Float, {}}}, "aten.sum.dim_IntList", {arg_ints({0})}, {T::Float, {}}) == "");
  CHECK(check_one({{T::Float, {}}}, "aten.amax.default", {arg_ints({-1})}, {T::Float, {}}) == "");
}

TEST_CASE("verify_shapes: calls PyTorch's kernels reject are refused with the reason") {
  using T = ScalarType;
  CHECK(check_one({{T::Float, {}}}, "aten.select.int", {arg_int(0), arg_int(0)}, {T::Float, {}}) ==
        "node \"select\": aten::select.int: self is a 0-d tensor; the operator needs a dimension to work on");
  CHECK(check_one({{T::Float, {2, 3}}}, "aten.select.int", {arg_int(1), arg_int(7)}, {T::Float, {2}}) ==
        "node \"select\": aten::select.int: index 7 is out of range for dimension 1 of size 3");
  CHECK(check_one({{T::Float, {4}}}, "aten.split_with_sizes.default", {arg_ints({1, 2})}, {T::Float, {1}}) ==
        "node \"split_with_sizes\": aten::split_with_sizes: split sizes [1, 2] add up to 3, not to the size 4 of "
        "dimension 0");
  CHECK(check_one({{T::Float, {2, 3}}}, "aten.permute.default", {arg_ints({0, 0})}, {T::Float, {2, 2}}) ==
        "node \"permute\": aten::permute: dim 0 appears more than once in the list of dims");
  CHECK(check_one({{T::Float, {2, 3}}, {T::Half, {3, 4}}}, "aten.mm.default", {}, {T::Float, {2, 4}}) ==
        "node \"mm\": aten::mm: expected mat1 and mat2 to have the same dtype, but got float32 and float16");
  CHECK(check_one({{T::Float, {4, 3}}, {T::Float, {2}}}, "aten.embedding.default", {}, {T::Float, {2, 3}}) ==
        "node \"embedding\": aten::embedding: indices must be an int64 or int32 tensor, but it is float32");
  CHECK(check_one({{T::Float, {2}}, {T::Float, {2}}, {T::Float, {2}}}, "aten.where.self", {}, {T::Float, {2}}) ==
        "node \"where\": aten::where.self: expected the condition to be a boolean tensor, but it is float32");
  CHECK(check_one({{T::Bool, {2}}, {T::Bool, {2}}}, "aten.sub.Tensor", {}, {T::Bool, {2}}) ==
        "node \"sub\": aten::sub.Tensor: subtraction with a bool operand is not supported (use logical_xor or "
        "logical_not)");
  CHECK(check_one({{T::Float, {2}}}, "aten.view.default", {arg_ints({-1, -1})}, {T::Float, {2, 1}}) ==
        "node \"view\": aten::view: only one dimension can be inferred (-1) in [-1, -1]");
  CHECK(check_one({{T::Float, {2}}}, "aten.expand.default", {arg_ints({-1, 2})}, {T::Float, {1, 2}}) ==
        "node \"expand\": aten::expand: -1 is not allowed in a new leading dimension ([-1, 2])");
  CHECK(check_one({{T::Float, {2}}}, "aten.constant_pad_nd.default",
                  {arg_ints({INT64_MAX, INT64_MAX})}, {T::Float, {2}}) ==
        "node \"constant_pad_nd\": aten::constant_pad_nd: padding dimension 0 of size 2 by (9223372036854775807, "
        "9223372036854775807) gives a size past int64");
  CHECK(check_one({}, "aten.arange.start_step", {arg_int(0), arg_int(10), arg_float(0.5)}, {T::Long, {20}},
                  {{"dtype", arg_dtype(T::Long)}}) ==
        "node \"arange\": aten::arange.start_step: step must be nonzero");
  CHECK(check_one({{T::Long, {2, 3}}}, "aten.mean.dim", {arg_ints({1})}, {T::Long, {2}}) ==
        "node \"mean\": aten::mean.dim: could not infer the output dtype: the input must be floating point or "
        "complex, or a dtype given, but it is int64");
  // String arguments with a fixed set of values (PyTorch's div and gelu checks).
  CHECK(check_one({{T::Float, {2}}, {T::Float, {2}}}, "aten.div.Tensor_mode", {}, {T::Float, {2}},
                  {{"rounding_mode", arg_string("bogus")}}) ==
        "node \"div\": aten::div.Tensor_mode: rounding_mode must be None, 'trunc' or 'floor', not 'bogus'");
  CHECK(check_one({{T::Float, {2}}, {T::Float, {2}}}, "aten.div.Tensor_mode", {}, {T::Float, {2}},
                  {{"rounding_mode", arg_string("floor")}}) == "");
  CHECK(check_one({{T::Float, {2}}}, "aten.gelu.default", {}, {T::Float, {2}},
                  {{"approximate", arg_string("fast")}}) ==
        "node \"gelu\": aten::gelu: approximate must be 'none' or 'tanh', not 'fast'");
  CHECK(check_one({{T::Float, {2}}}, "aten.gelu.default", {}, {T::Float, {2}},
                  {{"approximate", arg_string("tanh")}}) == "");
  // max/min-style reductions over nothing (zero_numel_check_dims, check_argmax_argmin).
  CHECK(check_one({{T::Float, {0, 5}}}, "aten.argmax.default", {}, {T::Long, {}}) ==
        "node \"argmax\": aten::argmax: expected a reduction dim to be given for an input with no elements");
  CHECK(check_one({{T::Float, {0, 5}}}, "aten.amax.default", {arg_ints({0})}, {T::Float, {5}}) ==
        "node \"amax\": aten::amax: expected reduction dim 0 to have non-zero size");
  CHECK(check_one({{T::Float, {0, 5}}}, "aten.amax.default", {arg_ints({1})}, {T::Float, {0}}) == "");
  CHECK(check_one({{T::Float, {4, 0}}}, "aten.max.dim", {arg_int(-1)}, {T::Float, {4}}) ==
        "node \"max\": aten::max.dim: expected reduction dim 1 to have non-zero size");
  // A 0-d tensor takes dim 0 or -1 only (maybe_wrap_dim counts it as one dim).
  CHECK(check_one({{T::Float, {}}}, "aten.squeeze.dim", {arg_int(5)}, {T::Float, {}}) ==
        "node \"squeeze\": aten::squeeze.dim: dimension 5 out of range for a 0-d tensor");
  CHECK(check_one({{T::Float, {}}}, "aten.squeeze.dim", {arg_int(-1)}, {T::Float, {}}) == "");
  // 0-d operands of linear / mv / dot (verify_shapes runs these when decompose is left out).
  CHECK(check_one({{T::Float, {}}, {T::Float, {3, 4}}}, "aten.linear.default", {}, {T::Float, {3}}) ==
        "node \"linear\": aten::linear: both arguments to linear need to be at least 1-d, and the weight at "
        "most "
        "2-d (got 0-d and 2-d)");
  CHECK(check_one({{T::Float, {}}, {T::Float, {4}}}, "aten.mv.default", {}, {T::Float, {3}}) ==
        "node \"mv\": aten::mv: a 2-d matrix and a 1-d vector expected, but got 0-d and 1-d");
  CHECK(check_one({{T::Float, {4}}, {T::Float, {}}}, "aten.dot.default", {}, {T::Float, {}}) ==
        "node \"dot\": aten::dot: 1-d tensors expected, but got 1-d and 0-d");
  CHECK(check_one({{T::Float, {3, 4}}, {T::Float, {4}}}, "aten.mv.default", {}, {T::Float, {3}}) == "");
}

TEST_CASE("verify_shapes: cat promotes over every tensor, the skipped legacy empty ones too") {
  ProgramBuilder b;
  auto e = b.input("e", ScalarType::Float, {0});
  auto i = b.input("i", ScalarType::Long, {1});
  auto c = b.call("aten.cat.default", {arg_tensors({e, i})}, {ScalarType::Float, {1}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  CHECK_MESSAGE(run.status.ok(), run.status.error().to_string());
}

TEST_CASE("decompose: a decomposed call whose declared output disagrees with its inputs is refused") {
  // verify_shapes runs after decompose and sees only the replacement calls, so
  // decompose compares what it replaces.
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.call("aten.silu.default", {arg_tensor(x)}, {ScalarType::Float, {7, 7}});
  b.output(y);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "decompose");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().code == ErrorCode::INVALID_GRAPH);
  CHECK(run.status.error().message ==
        "node \"silu\" (aten.silu.default): declared as float32[7, 7], but its inputs give float32[2, 3]");
  CHECK(run.status.error().where.node == std::optional<std::string>("silu"));
}

TEST_CASE("verify_shapes: bool operands of sub and neg, and floats in bitwise_not, are refused") {
  using T = ScalarType;
  CHECK(check_one({{T::Bool, {3}}}, "aten.sub.Tensor", {arg_int(1)}, {T::Long, {3}}) ==
        "node \"sub\": aten::sub.Tensor: subtraction with a bool operand is not supported (use logical_xor or "
        "logical_not)");
  CHECK(check_one({{T::Float, {3}}, {T::Bool, {3}}}, "aten.sub.Tensor", {}, {T::Float, {3}}) ==
        "node \"sub\": aten::sub.Tensor: subtraction with a bool operand is not supported (use logical_xor or "
        "logical_not)");
  CHECK(check_one({{T::Bool, {3}}}, "aten.neg.default", {}, {T::Bool, {3}}) ==
        "node \"neg\": aten::neg: negation of a bool tensor is not supported (use logical_not)");
  CHECK(check_one({{T::Float, {3}}}, "aten.bitwise_not.default", {}, {T::Float, {3}}) ==
        "node \"bitwise_not\": aten::bitwise_not: is not implemented for float32 tensors");
  CHECK(check_one({{T::Bool, {3}}}, "aten.bitwise_not.default", {}, {T::Bool, {3}}) == "");
}

TEST_CASE("decompose: narrow with a negative start counts from the end of the dimension") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto y = b.call("aten.narrow.default", {arg_tensor(x), arg_int(1), arg_int(-2), arg_int(2)},
                  {ScalarType::Float, {2, 2}});
  b.output(y);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "decompose");
  REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
  CHECK(print_graph(ep.graph()) ==
        "graph(%x):\n"
        "  %slice_1 = aten.slice.Tensor(%x, 1, 1, 3)\n"
        "  return (%slice_1)\n");
}

TEST_CASE("verify_shapes: copy's src must broadcast to self, and out-of-range dims name the operator") {
  using T = ScalarType;
  CHECK(check_one({{T::Float, {2, 3}}, {T::Float, {3}}}, "aten.copy.default", {}, {T::Float, {2, 3}}) == "");
  CHECK(check_one({{T::Float, {2, 3}}, {T::Float, {4}}}, "aten.copy.default", {}, {T::Float, {2, 3}}) ==
        "node \"copy\": aten::copy: src of size [4] cannot be broadcast to self's size [2, 3]");
  CHECK(check_one({{T::Float, {2, 3}}}, "aten._softmax.default", {arg_int(5), arg_bool(false)}, {T::Float, {2, 3}}) ==
        "node \"_softmax\": aten::_softmax: dimension 5 out of range for a 2-d tensor");
}

TEST_CASE("verify_shapes: masked_fill gives the broadcast of self and mask, and wants a 0-d value tensor") {
  using T = ScalarType;
  // at::masked_fill expands self to the broadcast of self and mask (expand_outplace).
  CHECK(check_one({{T::Float, {2, 3}}, {T::Bool, {4, 2, 3}}}, "aten.masked_fill.Scalar", {arg_float(0.0)},
                  {T::Float, {4, 2, 3}}) == "");
  CHECK(check_one({{T::Float, {2, 1}}, {T::Bool, {3}}}, "aten.masked_fill.Scalar", {arg_int(1)},
                  {T::Float, {2, 3}}) == "");
  CHECK(check_one({{T::Float, {2, 3}}, {T::Bool, {4, 2, 3}}}, "aten.masked_fill.Scalar", {arg_float(0.0)},
                  {T::Float, {2, 3}}) ==
        "node \"masked_fill\": declared as float32[2, 3], but aten::masked_fill.Scalar of its inputs gives "
        "float32[4, 2, 3]");
  CHECK(check_one({{T::Float, {2, 3}}, {T::Bool, {4}}}, "aten.masked_fill.Scalar", {arg_float(0.0)},
                  {T::Float, {2, 3}}) ==
        "node \"masked_fill\": aten::masked_fill.Scalar: shapes [2, 3], [4] do not broadcast");
  // The Tensor overload: value must be 0-d (it does not broadcast), and takes no part in the shape.
  CHECK(check_one({{T::Float, {3}}, {T::Bool, {2, 1}}, {T::Float, {}}}, "aten.masked_fill.Tensor", {},
                  {T::Float, {2, 3}}) == "");
  CHECK(check_one({{T::Float, {2, 3}}, {T::Bool, {2, 3}}, {T::Float, {1}}}, "aten.masked_fill.Tensor", {},
                  {T::Float, {2, 3}}) ==
        "node \"masked_fill\": aten::masked_fill.Tensor: only supports a 0-d value tensor, but value is "
        "of size [1]");
  // A mask must be bool (at::masked_fill_), in both overloads.
  CHECK(check_one({{T::Float, {2, 3}}, {T::Byte, {2, 3}}}, "aten.masked_fill.Scalar", {arg_float(0.0)},
                  {T::Float, {2, 3}}) ==
        "node \"masked_fill\": aten::masked_fill.Scalar: only supports boolean masks, but mask is uint8");
  CHECK(check_one({{T::Float, {2, 3}}, {T::Float, {2, 3}}, {T::Float, {}}}, "aten.masked_fill.Tensor", {},
                  {T::Float, {2, 3}}) ==
        "node \"masked_fill\": aten::masked_fill.Tensor: only supports boolean masks, but mask is float32");
}

namespace {

/// index_put(self, indices, values) on a float self; each index an int64 input
/// of the given sizes (a bool mask where `mask` says) or None. The
/// verify_shapes error message, or "" when the program passes.
std::string check_index_put(const std::vector<int64_t>& self,
                            const std::vector<std::optional<std::vector<int64_t>>>& idx,
                            const std::vector<int64_t>& values, bool mask = false,
                            ScalarType values_dtype = ScalarType::Float) {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, self);
  std::vector<OptionalTensorArgument> indices;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i]) {
      indices.push_back({std::nullopt});
      continue;
    }
    indices.push_back(
        {b.input("i" + std::to_string(i), mask ? ScalarType::Bool : ScalarType::Long, *idx[i])});
  }
  auto v = b.input("v", values_dtype, values);
  b.output(b.call("aten.index_put.default",
                  {arg_tensor(x), Argument::make<ArgTag::OptionalTensors>(indices), arg_tensor(v)},
                  {ScalarType::Float, self}));
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  return run.status.ok() ? std::string() : run.status.error().message;
}

}  // namespace

TEST_CASE("verify_shapes: index_put wants values that broadcast to the indexed part of self") {
  using Shape = std::vector<int64_t>;
  using Idx = std::vector<std::optional<Shape>>;
  // x[i] with i of size [3] on x [4, 5] is [3, 5]: values [3, 5], [5], [1] and [] broadcast to it.
  CHECK(check_index_put({4, 5}, Idx{Shape{3}}, {3, 5}) == "");
  CHECK(check_index_put({4, 5}, Idx{Shape{3}}, {5}) == "");
  CHECK(check_index_put({4, 5}, Idx{Shape{3}}, {1}) == "");
  CHECK(check_index_put({4, 5}, Idx{Shape{3}}, {}) == "");
  // make_index_put_iterator: values of another dtype are refused (no promotion).
  CHECK(check_index_put({4, 5}, Idx{Shape{3}}, {3, 5}, false, ScalarType::Long) ==
        "node \"index_put\": aten::index_put: values must have self's dtype float32, but they are int64");
  CHECK(
      check_index_put({4, 5}, Idx{Shape{3}}, {4, 5}) ==
      "node \"index_put\": aten::index_put: shape mismatch: values of size [4, 5] cannot be broadcast to the "
      "indexing result of size [3, 5]");
  // PyTorch's is_expandable_to: values may not have more dims than the indexing result.
  CHECK(check_index_put({4, 5}, Idx{Shape{3}}, {1, 3, 5}) ==
        "node \"index_put\": aten::index_put: shape mismatch: values of size [1, 3, 5] cannot be broadcast "
        "to the "
        "indexing result of size [3, 5]");
  // A None before the index keeps that dim: x[:, i] on [4, 5] with i [2, 3] is [4, 2, 3].
  CHECK(check_index_put({4, 5}, Idx{std::nullopt, Shape{2, 3}}, {4, 1, 3}) == "");
  CHECK(check_index_put({4, 5}, Idx{std::nullopt, Shape{2, 3}}, {2, 3, 4}) ==
        "node \"index_put\": aten::index_put: shape mismatch: values of size [2, 3, 4] cannot be broadcast "
        "to the "
        "indexing result of size [4, 2, 3]");
  // Indices apart (x[i, :, j]) put the broadcast index shape first: [5, 3].
  CHECK(check_index_put({2, 3, 4}, Idx{Shape{5}, std::nullopt, Shape{5}}, {5, 3}) == "");
  CHECK(
      check_index_put({2, 3, 4}, Idx{Shape{5}, std::nullopt, Shape{5}}, {3, 5}) ==
      "node \"index_put\": aten::index_put: shape mismatch: values of size [3, 5] cannot be broadcast to the "
      "indexing result of size [5, 3]");
  // The index rules themselves: shapes that do not broadcast, too many indices.
  CHECK(check_index_put({4, 5}, Idx{Shape{2}, Shape{3}}, {1}) ==
        "node \"index_put\": aten::index_put: shapes [2], [3] do not broadcast");
  CHECK(check_index_put({4}, Idx{Shape{1}, Shape{1}}, {1}) ==
        "node \"index_put\": aten::index_put: too many indices");
  // A boolean mask selects a data-dependent count of elements: not checked.
  CHECK(check_index_put({4, 5}, Idx{Shape{4, 5}}, {7}, /*mask=*/true) == "");
}

TEST_CASE("verify_shapes: a -1 next to a 0 in a view is ambiguous, as in PyTorch") {
  using T = ScalarType;
  CHECK(check_one({{T::Float, {2, 0, 4}}}, "aten.view.default", {arg_ints({2, 0, -1})}, {T::Float, {2, 0, 4}}) ==
        "node \"view\": aten::view: cannot view a tensor of 0 elements as [2, 0, -1]: the -1 could be any size");
  CHECK(check_one({{T::Float, {2, 3}}}, "aten.view.default", {arg_ints({4, -1})}, {T::Float, {4, 1}}) ==
        "node \"view\": aten::view: cannot infer the -1 size of [4, -1]");
}

TEST_CASE("verify_shapes: a CPU call is compared even after an identical call whose result is on another device") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {2, 3});
  auto r1 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {3, 2}});
  auto r2 = b.call("aten.relu.default", {arg_tensor(x)}, {ScalarType::Float, {3, 2}});
  b.output(r1);
  b.output(r2);
  ExportedProgram ep = b.build();
  TensorMeta m = *ep.graph().tensor_meta(r1);
  m.device.type = "cuda";
  ep.graph().set_tensor_meta(r1, m);
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().where.node == std::optional<std::string>(r2));
}

TEST_CASE("verify_shapes: slice_scatter and select_scatter want src exactly the size of the slice") {
  using T = ScalarType;
  // slice_scatter(self, src, dim, start, end, step): the slice of self [4, 6]
  // at dim 1, 0:6:2 is [4, 3].
  const std::vector<Argument> slice_args{arg_int(1), arg_int(0), arg_int(6), arg_int(2)};
  CHECK(check_one({{T::Float, {4, 6}}, {T::Float, {4, 3}}}, "aten.slice_scatter.default", slice_args,
                  {T::Float, {4, 6}}) == "");
  CHECK(check_one({{T::Float, {4, 6}}, {T::Float, {4, 6}}}, "aten.slice_scatter.default", slice_args,
                  {T::Float, {4, 6}}) ==
        "node \"slice_scatter\": aten::slice_scatter: src of size [4, 6] is not the size of the slice of self, [4, "
        "3]");
  // No broadcasting: PyTorch's and ExecuTorch's kernels both want the exact sizes.
  CHECK(check_one({{T::Float, {4, 6}}, {T::Float, {3}}}, "aten.slice_scatter.default", slice_args,
                  {T::Float, {4, 6}}) ==
        "node \"slice_scatter\": aten::slice_scatter: src of size [3] is not the size of the slice of self, [4, 3]");
  // The slice's own rules apply: bounds are clamped, a step of 0 is refused.
  CHECK(check_one({{T::Float, {4, 6}}, {T::Float, {2, 6}}}, "aten.slice_scatter.default",
                  {arg_int(0), arg_int(-2), arg_int(100), arg_int(1)}, {T::Float, {4, 6}}) == "");
  CHECK(check_one({{T::Float, {4, 6}}, {T::Float, {4, 3}}}, "aten.slice_scatter.default",
                  {arg_int(1), arg_int(0), arg_int(6), arg_int(0)}, {T::Float, {4, 6}}) ==
        "node \"slice_scatter\": aten::slice_scatter: slice step must be positive");

  // select_scatter(self, src, dim, index): src is self without dimension dim.
  CHECK(check_one({{T::Float, {4, 5, 6}}, {T::Float, {4, 6}}}, "aten.select_scatter.default",
                  {arg_int(1), arg_int(-5)}, {T::Float, {4, 5, 6}}) == "");
  CHECK(check_one({{T::Float, {4, 5, 6}}, {T::Float, {5, 6}}}, "aten.select_scatter.default",
                  {arg_int(1), arg_int(2)}, {T::Float, {4, 5, 6}}) ==
        "node \"select_scatter\": aten::select_scatter: src of size [5, 6] is not the size of the selected part of "
        "self, [4, 6]");
  CHECK(check_one({{T::Float, {4, 5, 6}}, {T::Float, {4, 6}}}, "aten.select_scatter.default",
                  {arg_int(1), arg_int(5)}, {T::Float, {4, 5, 6}}) ==
        "node \"select_scatter\": aten::select_scatter: index 5 is out of range for dimension 1 of size 5");
}

TEST_CASE("verify_shapes: constant slice bounds on a symbolic size are clamped at its trace-time value") {
  using T = ScalarType;
  // x: [s0, 4] with s0 = 8 when traced. slice(x, 0, start, end) with the
  // declared result `rows` (an expression, or a constant).
  auto check = [](int64_t start, int64_t end, SymInt rows) {
    ProgramBuilder b;
    auto x = b.input("x", T::Float, {2, 4});
    auto r = b.call("aten.slice.Tensor", {arg_tensor(x), arg_int(0), arg_int(start), arg_int(end)}, {T::Float, {2, 4}});
    b.output(r);
    ExportedProgram ep = b.build();
    const SymInt s0(SymExpr{"s0", SymExprHint::of_int(8)});
    TensorMeta mx = *ep.graph().tensor_meta(x);
    mx.sizes = {s0, SymInt(int64_t{4})};
    mx.strides = {SymInt(int64_t{4}), SymInt(int64_t{1})};
    ep.graph().set_tensor_meta(x, mx);
    TensorMeta mr = *ep.graph().tensor_meta(r);
    mr.sizes = {rows, SymInt(int64_t{4})};
    mr.strides = {SymInt(int64_t{4}), SymInt(int64_t{1})};
    ep.graph().set_tensor_meta(r, mr);
    auto run = run_pass(ep, "verify_shapes");
    return run.status.ok() ? std::string() : run.status.error().message;
  };
  const SymInt s0(SymExpr{"s0", SymExprHint::of_int(8)});
  const SymInt s0_minus_2(SymExpr{"s0 - 2", SymExprHint::of_int(6)});
  // An end past the size (100 > 8) is the size; so is an end equal to it.
  CHECK(check(0, 100, s0) == "");
  CHECK(check(0, 8, s0) == "");
  // A start below -size is 0: the whole dimension.
  CHECK(check(-100, 100, s0) == "");
  // Inside the range: the constants stay (and a wrong declaration is caught).
  CHECK(check(0, 3, SymInt(int64_t{3})) == "");
  CHECK(check(2, 100, s0_minus_2) == "");
  CHECK(check(0, 3, s0) == "node \"slice\": declared as float32[s0, 4], but aten::slice.Tensor of its inputs gives "
                           "float32[3, 4]");
}

TEST_CASE("verify_shapes: sym_size.int of a dimension the tensor does not have is refused") {
  for (int64_t dim : {1, -2, 2, -3}) {
    CAPTURE(dim);
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 3});
    b.program().graph().append(Node(OpTarget("torch.ops.aten.sym_size.int"),
                                    {positional("self", arg_tensor(x)), positional("dim", arg_int(dim))},
                                    {arg_sym_int("s")}, "s"));
    b.program().graph().set_sym_int("s", SymInt(int64_t{dim == -2 ? 2 : 3}));  // the size of that dim
    b.output(x);
    ExportedProgram ep = b.build();
    auto run = run_pass(ep, "verify_shapes");
    if (dim == 1 || dim == -2) {
      CHECK(run.status.ok());
      continue;
    }
    REQUIRE_FALSE(run.status.ok());
    CHECK(run.status.error().message == "node \"s\": aten::sym_size.int: dimension " + std::to_string(dim) +
                                            " out of range for a 2-d tensor");
    CHECK(run.status.error().where.node == std::optional<std::string>("s"));
  }
}

TEST_CASE("verify_shapes: SymInt results of size queries and symbolic arithmetic follow their inputs") {
  // x: [s0, 4] (s0 = 5 when traced); n = sym_size(x, dim); r = _operator.<op>(n, 4) declared as `declared`.
  const SymInt s0(SymExpr{"s0", SymExprHint::of_int(5)});
  auto check = [&s0](int64_t dim, const char* op, const SymInt& declared_n, const SymInt& declared) {
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 4});
    TensorMeta mx = *b.program().graph().tensor_meta(x);
    mx.sizes = {s0, SymInt(int64_t{4})};
    mx.strides = {SymInt(int64_t{4}), SymInt(int64_t{1})};
    b.program().graph().set_tensor_meta(x, mx);
    Graph& g = b.program().graph();
    g.append(Node(OpTarget("torch.ops.aten.sym_size.int"),
                  {positional("self", arg_tensor(x)), positional("dim", arg_int(dim))}, {arg_sym_int("n")},
                  "n"));
    g.set_sym_int("n", declared_n);
    g.append(Node(OpTarget(std::string("_operator.") + op),
                  {positional("a", arg_sym_int("n")), positional("b", arg_int(4))}, {arg_sym_int("r")}, "r"));
    g.set_sym_int("r", declared);
    b.output(x);
    ExportedProgram ep = b.build();
    auto run = run_pass(ep, "verify_shapes");
    return run.status.ok() ? std::string()
                           : run.status.error().message + " @" + run.status.error().where.node.value_or("");
  };
  const SymInt four_s0(SymExpr{"4*s0", SymExprHint::of_int(20)});
  const SymInt two_s0(SymExpr{"2*s0", SymExprHint::of_int(10)});
  const SymInt s0_plus_4(SymExpr{"s0 + 4", SymExprHint::of_int(9)});
  CHECK(check(0, "mul", s0, four_s0) == "");
  CHECK(check(0, "add", s0, s0_plus_4) == "");
  CHECK(check(1, "mul", SymInt(int64_t{4}), SymInt(int64_t{16})) == "");
  CHECK(check(1, "floordiv", SymInt(int64_t{4}), SymInt(int64_t{1})) == "");
  CHECK(check(1, "mod", SymInt(int64_t{4}), SymInt(int64_t{0})) == "");
  // A result the file gets wrong: tensors sized by it would be planned wrong.
  CHECK(check(0, "mul", s0, two_s0) ==
        "node \"r\": declared as 2*s0, but _operator.mul of its inputs gives 4*s0 @r");
  CHECK(check(1, "sub", SymInt(int64_t{4}), SymInt(int64_t{1})) ==
        "node \"r\": declared as 1, but _operator.sub of its inputs gives 0 @r");
  // sym_size of a static dimension declared symbolic (s0 is 5, the dim is 4).
  CHECK(check(1, "mul", s0, four_s0) ==
        "node \"n\": declared as s0, but aten.sym_size.int of its inputs gives 4 @n");
  // floordiv of a symbol is not computed: not compared.
  CHECK(check(0, "floordiv", s0, SymInt(int64_t{99})) == "");
}

TEST_CASE(
    "verify_shapes: indices are int64 and sized by the op (max.dim, topk, sort, argmax) and cumsum's dtype") {
  struct Case {
    const char* target;
    std::vector<Argument> args;
    std::vector<testing::Out> outs;
    const char* error;  // "" when the declared outputs are right
  };
  const testing::Out f23{ScalarType::Float, {2, 3}};
  const std::vector<Case> cases = {
      {"aten.max.dim", {arg_int(1)}, {{ScalarType::Float, {2}}, {ScalarType::Long, {2}}}, ""},
      {"aten.max.dim",
       {arg_int(1)},
       {{ScalarType::Float, {2}}, {ScalarType::Float, {2}}},
       "node \"max\": output \"o1\" declared as float32[2], but aten::max.dim of its inputs gives int64[2]"},
      {"aten.min.dim",
       {arg_int(0), arg_bool(true)},
       {{ScalarType::Float, {1, 3}}, {ScalarType::Long, {1, 3}}},
       ""},
      {"aten.topk.default", {arg_int(2)}, {{ScalarType::Float, {2, 2}}, {ScalarType::Long, {2, 2}}}, ""},
      {"aten.topk.default",
       {arg_int(2)},
       {{ScalarType::Float, {2, 2}}, {ScalarType::Long, {2, 9}}},
       "node \"topk\": output \"o1\" declared as int64[2, 9], but aten::topk of its inputs gives int64[2, "
       "2]"},
      {"aten.topk.default",
       {arg_int(4)},
       {{ScalarType::Float, {2, 4}}, {ScalarType::Long, {2, 4}}},
       "node \"topk\": aten::topk: k (4) is out of range for dimension -1 of size 3"},
      {"aten.sort.default", {arg_int(0)}, {f23, {ScalarType::Long, {2, 3}}}, ""},
      {"aten.cumsum.default", {arg_int(1)}, {f23}, ""},
      {"aten.argmax.default", {arg_int(1)}, {{ScalarType::Long, {2}}}, ""},
      {"aten.argmax.default",
       {},
       {{ScalarType::Float, {}}},
       "node \"argmax\": declared as float32[], but aten::argmax of its inputs gives int64[]"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.target));
    ProgramBuilder b;
    auto x = b.input("x", ScalarType::Float, {2, 3});
    std::vector<Argument> args = {arg_tensor(x)};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::vector<std::string> names;
    for (size_t i = 0; i < c.outs.size(); ++i) names.push_back("o" + std::to_string(i));
    if (c.outs.size() == 1) {
      names = {b.call(c.target, args, c.outs[0])};
    } else {
      b.call_multi(c.target, args, c.outs, names);
    }
    b.output(names[0]);
    ExportedProgram ep = b.build();
    auto run = run_pass(ep, "verify_shapes");
    if (std::string(c.error).empty()) {
      REQUIRE_MESSAGE(run.status.ok(), run.status.error().to_string());
      CHECK(run.report.passes[0].stats.at("nodes_checked") == 1);
    } else {
      REQUIRE_FALSE(run.status.ok());
      CHECK(run.status.error().message == c.error);
    }
  }
  // cumsum of an int tensor accumulates in int64 unless a dtype is given.
  ProgramBuilder b;
  auto i = b.input("i", ScalarType::Int, {4});
  auto c = b.call("aten.cumsum.default", {arg_tensor(i), arg_int(0)}, {ScalarType::Int, {4}});
  b.output(c);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  CHECK(run.status.error().message ==
        "node \"cumsum\": declared as int32[4], but aten::cumsum of its inputs gives int64[4]");
}

TEST_CASE("verify_shapes: a declared size naming another size symbol is refused, hint or none") {
  using T = ScalarType;
  // x: [s0, 4]; relu(x) declared with `rows`.
  auto check = [](SymInt s0, SymInt rows) {
    ProgramBuilder b;
    auto x = b.input("x", T::Float, {2, 4});
    auto r = b.call("aten.relu.default", {arg_tensor(x)}, {T::Float, {2, 4}});
    b.output(r);
    ExportedProgram ep = b.build();
    TensorMeta mx = *ep.graph().tensor_meta(x);
    mx.sizes = {s0, SymInt(int64_t{4})};
    mx.strides = {SymInt(int64_t{4}), SymInt(int64_t{1})};
    ep.graph().set_tensor_meta(x, mx);
    TensorMeta mr = mx;
    mr.sizes[0] = rows;
    ep.graph().set_tensor_meta(r, mr);
    auto run = run_pass(ep, "verify_shapes");
    return run.status.ok() ? std::string() : run.status.error().message;
  };
  auto sym = [](const char* text, std::optional<int64_t> hint) {
    SymExpr e{text, std::nullopt};
    if (hint) e.hint = SymExprHint::of_int(*hint);
    return SymInt(std::move(e));
  };
  const std::string refused =
      "node \"relu\": declared as float32[s1, 4], but aten::relu of its inputs gives "
      "float32[s0, 4]";
  CHECK(check(sym("s0", std::nullopt), sym("s1", std::nullopt)) == refused);
  CHECK(check(sym("s0", 8), sym("s1", 8)) == refused);
  CHECK(check(sym("s0", 8), sym("s0", 8)) == "");
  // The same polynomial spelled two ways is the same size.
  CHECK(check(sym("2*s0", 8), sym("s0 + s0", 8)) == "");
  // Plain symbols with other names are size symbols too.
  CHECK(check(sym("batch", 8), sym("seq", 8)) ==
        "node \"relu\": declared as float32[seq, 4], but aten::relu of its inputs gives float32[batch, 4]");
  // An opaque atom may hide an equality (FloorDiv, unbacked u0): compared by hint.
  CHECK(check(sym("u0", 8), sym("u1", 8)) == "");
  CHECK(check(sym("u0", 8), sym("u1", 9)) ==
        "node \"relu\": declared as float32[u1, 4], but aten::relu of its inputs "
        "gives float32[u0, 4]");
  // A size naming hundreds of symbols is cut to 80 characters in the message.
  std::string sum = "s0";
  for (int i = 1; i < 300; ++i) sum += " + s" + std::to_string(i);
  CHECK(check(sym("s0", std::nullopt), sym(sum.c_str(), std::nullopt)) ==
        "node \"relu\": declared as float32[s0 + s1 + s10 + s100 + s101 + s102 + s103 + s104 + s105 + s106 + "
        "s107 + "
        "s108 ..., 4], but aten::relu of its inputs gives float32[s0, 4]");
}

TEST_CASE(
    "verify_shapes: a broadcast error names long symbolic shapes in display form, cut to 240 characters") {
  using T = ScalarType;
  ProgramBuilder b;
  auto x = b.input("x", T::Float, {2, 2, 2, 2, 2, 2});
  auto y = b.input("y", T::Float, {3, 3, 3, 3, 3, 3});
  auto r = b.call("aten.add.Tensor", {arg_tensor(x), arg_tensor(y)}, {T::Float, {2, 2, 2, 2, 2, 2}});
  b.output(r);
  ExportedProgram ep = b.build();
  auto long_sum = [](int coef) {
    std::string e = "s0";
    for (int i = 1; i < 30; ++i) e += " + " + std::to_string(coef) + "*s" + std::to_string(i);
    return SymInt(SymExpr{e, std::nullopt});
  };
  for (const auto& [name, coef] : {std::pair<std::string, int>{x, 1}, {y, 2}}) {
    TensorMeta m = *ep.graph().tensor_meta(name);
    for (auto& s : m.sizes) s = long_sum(coef);
    ep.graph().set_tensor_meta(name, m);
  }
  auto run = run_pass(ep, "verify_shapes");
  REQUIRE_FALSE(run.status.ok());
  const std::string& msg = run.status.error().message;
  CHECK(msg.rfind("node \"add\": aten::add.Tensor: shapes [s0 + s1 + s10 + s11 + ", 0) == 0);
  CHECK(msg.find("1*s") == std::string::npos);
  CHECK(msg.size() <= 2 * 240 + 80);
  CHECK(msg.substr(msg.size() - 20) == "... do not broadcast");
}
