// Decomposition rules for pixel_unshuffle, rot90, index_add, nan_to_num, frac, deg2rad, rad2deg,
// xlogy and the mse/l1/smooth_l1/huber losses:
// the exact node list after the pass (typed printer form), the float16 opmath
// forms, and the refused cases.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/program_builder.h"
#include "decompose_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::expect_decomposed;
using pteforge::testing::expect_refused;
using pteforge::testing::F;
using pteforge::testing::ProgramBuilder;

namespace {

constexpr ScalarType kH = ScalarType::Half;

const std::string kTailScalarF32 = "dtype=torch.float32, layout=torch.strided, device=device(type='cpu'))\n";

}  // namespace

// ---- pixel_unshuffle -----------------------------------------------------------------------------

TEST_CASE("decompose pixel_unshuffle -> view, permute, clone + view (reshape), clone(contiguous_format)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4, 6});
  auto y = b.input("y", kH, {2, 2, 2});
  b.output(b.call("aten.pixel_unshuffle.default", {arg_tensor(x), arg_int(2)}, {F, {2, 12, 2, 3}}));
  // Factor 1: the permuted tensor is viewable, reshape is a view; float16 is not cast.
  b.output(b.call("aten.pixel_unshuffle.default", {arg_tensor(y), arg_int(1)}, {kH, {2, 2, 2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3, 4, 6], %y: float16[2, 2, 2]):\n"
      "  %view: float32[2, 3, 2, 2, 3, 2] = aten.view.default(%x, [2, 3, 2, 2, 3, 2])\n"
      "  %permute: float32[2, 3, 2, 2, 2, 3] = aten.permute.default(%view, [0, 1, 3, 5, 2, 4])\n"
      "  %clone: float32[2, 3, 2, 2, 2, 3] = aten.clone.default(%permute, "
      "memory_format=torch.contiguous_format)\n"
      "  %view_1: float32[2, 12, 2, 3] = aten.view.default(%clone, [2, 12, 2, 3])\n"
      "  %clone_1: float32[2, 12, 2, 3] = aten.clone.default(%view_1, "
      "memory_format=torch.contiguous_format)\n"
      "  %view_2: float16[2, 2, 1, 2, 1] = aten.view.default(%y, [2, 2, 1, 2, 1])\n"
      "  %permute_1: float16[2, 1, 1, 2, 2] = aten.permute.default(%view_2, [0, 2, 4, 1, 3])\n"
      "  %view_3: float16[2, 2, 2] = aten.view.default(%permute_1, [2, 2, 2])\n"
      "  %clone_2: float16[2, 2, 2] = aten.clone.default(%view_3, memory_format=torch.contiguous_format)\n"
      "  return (%clone_1, %clone_2)\n");
}

TEST_CASE("decompose pixel_unshuffle: indivisible height or width, rank, factor and layout are refused") {
  auto refused = [](std::vector<int64_t> sizes, int64_t r, std::vector<int64_t> out, ErrorCode code,
                    const std::string& text, bool transposed = false) {
    ProgramBuilder b;
    auto x = b.input("x", F, sizes);
    std::string in = x;
    if (transposed) {
      in = b.call("aten.transpose.int", {arg_tensor(x), arg_int(1), arg_int(2)},
                  {F, {sizes[0], sizes[2], sizes[1]}});
    }
    b.output(b.call("aten.pixel_unshuffle.default", {arg_tensor(in), arg_int(r)}, {F, out}));
    ExportedProgram ep = b.build();
    expect_refused(ep, code, "pixel_unshuffle", text);
  };
  SUBCASE("height not divisible") {
    refused({1, 3, 4}, 2, {4, 1, 2}, ErrorCode::INVALID_GRAPH, "divisible by downscale_factor (2)");
  }
  SUBCASE("width not divisible") {
    refused({1, 4, 5}, 2, {4, 2, 2}, ErrorCode::INVALID_GRAPH, "divisible by downscale_factor (2)");
  }
  SUBCASE("rank 2") { refused({4, 4}, 2, {4, 4}, ErrorCode::INVALID_GRAPH, "at least 3 dimensions"); }
  SUBCASE("non-positive factor") {
    refused({1, 2, 2}, 0, {1, 2, 2}, ErrorCode::INVALID_GRAPH, "positive downscale_factor");
  }
  SUBCASE("non-contiguous input") {
    refused({1, 2, 4}, 2, {4, 2, 1}, ErrorCode::UNSUPPORTED_FEATURE, "non-contiguous", true);
  }
}

// ---- rot90 ---------------------------------------------------------------------------------------

TEST_CASE("decompose rot90 -> flip + transpose (permute), flip of both dims, clone, by k mod 4") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3, 4});
  b.output(b.call("aten.rot90.default", {arg_tensor(x)}, {F, {3, 2, 4}}));
  b.output(b.call("aten.rot90.default", {arg_tensor(x), arg_int(2), arg_ints({-1, 0})}, {F, {2, 3, 4}}));
  b.output(b.call("aten.rot90.default", {arg_tensor(x), arg_int(-1), arg_ints({1, 2})}, {F, {2, 4, 3}}));
  b.output(b.call("aten.rot90.default", {arg_tensor(x), arg_int(4)}, {F, {2, 3, 4}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[2, 3, 4]):\n"
      "  %flip: float32[2, 3, 4] = aten.flip.default(%x, [1])\n"
      "  %permute: float32[3, 2, 4] = aten.permute.default(%flip, [1, 0, 2])\n"
      "  %flip_1: float32[2, 3, 4] = aten.flip.default(%x, [2, 0])\n"
      "  %flip_2: float32[2, 3, 4] = aten.flip.default(%x, [1])\n"
      "  %permute_1: float32[2, 4, 3] = aten.permute.default(%flip_2, [0, 2, 1])\n"
      "  %clone: float32[2, 3, 4] = aten.clone.default(%x, memory_format=torch.contiguous_format)\n"
      "  return (%permute, %flip_1, %permute_1, %clone)\n");
}

TEST_CASE("decompose rot90: dims count, rank, equal dims and out-of-range dims are refused") {
  auto refused = [](std::vector<int64_t> sizes, std::vector<int64_t> dims, const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", F, sizes);
    b.output(b.call("aten.rot90.default", {arg_tensor(x), arg_int(1), arg_ints(dims)}, {F, sizes}));
    ExportedProgram ep = b.build();
    Status st = pteforge::testing::decompose(ep);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().where.node == std::optional<std::string>("rot90"));
    CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
  };
  refused({2, 2}, {0}, "expected total rotation dims == 2");
  refused({2}, {0, 1}, "expected total dims >= 2");
  refused({2, 2}, {1, -1}, "expected rotation dims to be different");
  refused({2, 2}, {0, 2}, "out of range");
}

// ---- index_add -----------------------------------------------------------------------------------

TEST_CASE("decompose index_add -> index_put(accumulate=True), alpha scales source first") {
  ProgramBuilder b;
  auto x = b.input("x", F, {4, 3});
  auto i = b.input("i", ScalarType::Long, {2});
  auto s = b.input("s", F, {4, 2});
  auto z = b.input("z", F, {});
  auto j = b.input("j", ScalarType::Long, {});
  b.output(b.call("aten.index_add.default", {arg_tensor(x), arg_int(1), arg_tensor(i), arg_tensor(s)},
                  {F, {4, 3}}));
  b.output(b.call("aten.index_add.default", {arg_tensor(x), arg_int(-1), arg_tensor(i), arg_tensor(s)},
                  {F, {4, 3}}, {{"alpha", arg_float(0.5)}}));
  // 0-d self: unsqueezed, then squeezed; a 0-d index is passed as is.
  b.output(
      b.call("aten.index_add.default", {arg_tensor(z), arg_int(0), arg_tensor(j), arg_tensor(z)}, {F, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[4, 3], %i: int64[2], %s: float32[4, 2], %z: float32[], %j: int64[]):\n"
                    "  %index_put: float32[4, 3] = aten.index_put.default(%x, [None, %i], %s, True)\n"
                    "  %mul: float32[4, 2] = aten.mul.Tensor(%s, 0.5)\n"
                    "  %index_put_1: float32[4, 3] = aten.index_put.default(%x, [None, %i], %mul, True)\n"
                    "  %unsqueeze: float32[1] = aten.unsqueeze.default(%z, 0)\n"
                    "  %index_put_2: float32[1] = aten.index_put.default(%unsqueeze, [%j], %z, True)\n"
                    "  %squeeze: float32[] = aten.squeeze.dims(%index_put_2, [0])\n"
                    "  return (%index_put, %index_put_1, %squeeze)\n");
}

TEST_CASE("decompose index_add: index rank, count mismatch and a float alpha for int64 are refused") {
  auto refused = [](std::vector<int64_t> isz, std::vector<int64_t> ssz, ScalarType t, ir::Argument alpha,
                    const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", t, {4, 3});
    auto i = b.input("i", ScalarType::Long, isz);
    auto s = b.input("s", t, ssz);
    b.output(b.call("aten.index_add.default", {arg_tensor(x), arg_int(0), arg_tensor(i), arg_tensor(s)},
                    {t, {4, 3}}, {{"alpha", alpha}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "index_add", text);
  };
  refused({2, 1}, {2, 3}, F, arg_int(1), "Index should have dimension 1 or 0");
  refused({3}, {2, 3}, F, arg_int(1), "Number of indices (3) should be equal to source.size(dim) (2)");
  refused({2}, {2, 3}, ScalarType::Long, arg_float(0.5), "cannot be safely cast");
}

// ---- nan_to_num ----------------------------------------------------------------------------------

TEST_CASE(
    "decompose nan_to_num -> isnan, eq(-inf), eq(inf), where with numbers (scalar_tensor + where.self)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  b.output(b.call("aten.nan_to_num.default", {arg_tensor(x)}, {F, {3}}));
  b.output(b.call("aten.nan_to_num.default",
                  {arg_tensor(x), arg_float(1.5), arg_float(100.0), arg_float(-100.0)}, {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(
      ep,
      "graph(%x: float32[3]):\n"
      "  %isnan: bool[3] = aten.isnan.default(%x)\n"
      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0.0, " +
          kTailScalarF32 +
          "  %where: float32[3] = aten.where.self(%isnan, %scalar_tensor, %x)\n"
          "  %eq: bool[3] = aten.eq.Scalar(%x, -inf)\n"
          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(-3.4028234663852886e+38, " +
          kTailScalarF32 +
          "  %where_1: float32[3] = aten.where.self(%eq, %scalar_tensor_1, %where)\n"
          "  %eq_1: bool[3] = aten.eq.Scalar(%x, inf)\n"
          "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(3.4028234663852886e+38, " +
          kTailScalarF32 +
          "  %where_2: float32[3] = aten.where.self(%eq_1, %scalar_tensor_2, %where_1)\n"
          "  %isnan_1: bool[3] = aten.isnan.default(%x)\n"
          "  %scalar_tensor_3: float32[] = aten.scalar_tensor.default(1.5, " +
          kTailScalarF32 +
          "  %where_3: float32[3] = aten.where.self(%isnan_1, %scalar_tensor_3, %x)\n"
          "  %eq_2: bool[3] = aten.eq.Scalar(%x, -inf)\n"
          "  %scalar_tensor_4: float32[] = aten.scalar_tensor.default(-100.0, " +
          kTailScalarF32 +
          "  %where_4: float32[3] = aten.where.self(%eq_2, %scalar_tensor_4, %where_3)\n"
          "  %eq_3: bool[3] = aten.eq.Scalar(%x, inf)\n"
          "  %scalar_tensor_5: float32[] = aten.scalar_tensor.default(100.0, " +
          kTailScalarF32 +
          "  %where_5: float32[3] = aten.where.self(%eq_3, %scalar_tensor_5, %where_4)\n"
          "  return (%where_2, %where_5)\n");
}

TEST_CASE("decompose nan_to_num: float16 takes its finfo max uncast, integers are cloned, complex refused") {
  SUBCASE("float16 and int64") {
    ProgramBuilder b;
    auto h = b.input("h", kH, {2});
    auto i = b.input("i", ScalarType::Long, {2});
    b.output(b.call("aten.nan_to_num.default", {arg_tensor(h), arg_none(), arg_float(7.0)}, {kH, {2}}));
    b.output(b.call("aten.nan_to_num.default", {arg_tensor(i)}, {ScalarType::Long, {2}}));
    ExportedProgram ep = b.build();
    const std::string f16 = "dtype=torch.float16, layout=torch.strided, device=device(type='cpu'))\n";
    expect_decomposed(ep,
                      "graph(%h: float16[2], %i: int64[2]):\n"
                      "  %isnan: bool[2] = aten.isnan.default(%h)\n"
                      "  %scalar_tensor: float16[] = aten.scalar_tensor.default(0.0, " +
                          f16 +
                          "  %where: float16[2] = aten.where.self(%isnan, %scalar_tensor, %h)\n"
                          "  %eq: bool[2] = aten.eq.Scalar(%h, -inf)\n"
                          "  %scalar_tensor_1: float16[] = aten.scalar_tensor.default(-65504.0, " +
                          f16 +
                          "  %where_1: float16[2] = aten.where.self(%eq, %scalar_tensor_1, %where)\n"
                          "  %eq_1: bool[2] = aten.eq.Scalar(%h, inf)\n"
                          "  %scalar_tensor_2: float16[] = aten.scalar_tensor.default(7.0, " +
                          f16 +
                          "  %where_2: float16[2] = aten.where.self(%eq_1, %scalar_tensor_2, %where_1)\n"
                          "  %clone: int64[2] = aten.clone.default(%i)\n"
                          "  return (%where_2, %clone)\n");
  }
  SUBCASE("complex") {
    ProgramBuilder b;
    auto c = b.input("c", ScalarType::ComplexFloat, {2});
    b.output(b.call("aten.nan_to_num.default", {arg_tensor(c)}, {ScalarType::ComplexFloat, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "nan_to_num", "complex");
  }
}

// ---- frac, deg2rad, rad2deg ----------------------------------------------------------------------

TEST_CASE("decompose frac -> abs, floor, sign, mul, sub (float16 computes in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", kH, {2});
  b.output(b.call("aten.frac.default", {arg_tensor(x)}, {F, {3}}));
  b.output(b.call("aten.frac.default", {arg_tensor(h)}, {kH, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[2]):\n"
                    "  %abs_1: float32[3] = aten.abs.default(%x)\n"
                    "  %floor: float32[3] = aten.floor.default(%abs_1)\n"
                    "  %sign: float32[3] = aten.sign.default(%x)\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%floor, %sign)\n"
                    "  %sub: float32[3] = aten.sub.Tensor(%x, %mul)\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %abs_2: float32[2] = aten.abs.default(%_to_copy)\n"
                    "  %floor_1: float32[2] = aten.floor.default(%abs_2)\n"
                    "  %sign_1: float32[2] = aten.sign.default(%_to_copy)\n"
                    "  %mul_1: float32[2] = aten.mul.Tensor(%floor_1, %sign_1)\n"
                    "  %sub_1: float32[2] = aten.sub.Tensor(%_to_copy, %mul_1)\n"
                    "  %_to_copy_1: float16[2] = aten._to_copy.default(%sub_1, dtype=torch.float16)\n"
                    "  return (%sub, %_to_copy_1)\n");
}

TEST_CASE("decompose frac: an integer input is refused") {
  ProgramBuilder b;
  auto i = b.input("i", ScalarType::Long, {2});
  b.output(b.call("aten.frac.default", {arg_tensor(i)}, {ScalarType::Long, {2}}));
  ExportedProgram ep = b.build();
  expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "frac", "floating-point tensors only");
}

TEST_CASE("decompose deg2rad and rad2deg -> mul.Tensor by the float factor (float16 and int64 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto h = b.input("h", kH, {2});
  auto i = b.input("i", ScalarType::Long, {2});
  b.output(b.call("aten.deg2rad.default", {arg_tensor(x)}, {F, {3}}));
  b.output(b.call("aten.rad2deg.default", {arg_tensor(h)}, {kH, {2}}));
  b.output(b.call("aten.deg2rad.default", {arg_tensor(i)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %h: float16[2], %i: int64[2]):\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%x, 0.017453292519943295)\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %mul_1: float32[2] = aten.mul.Tensor(%_to_copy, 57.29577951308232)\n"
                    "  %_to_copy_1: float16[2] = aten._to_copy.default(%mul_1, dtype=torch.float16)\n"
                    "  %_to_copy_2: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                    "  %mul_2: float32[2] = aten.mul.Tensor(%_to_copy_2, 0.017453292519943295)\n"
                    "  return (%mul, %_to_copy_1, %mul_2)\n");
}

TEST_CASE("decompose deg2rad and rad2deg: complex inputs are refused") {
  for (const char* op : {"aten.deg2rad.default", "aten.rad2deg.default"}) {
    ProgramBuilder b;
    auto c = b.input("c", ScalarType::ComplexFloat, {2});
    b.output(b.call(op, {arg_tensor(c)}, {ScalarType::ComplexFloat, {2}}));
    ExportedProgram ep = b.build();
    std::string name = std::string(op).substr(5, 7);
    expect_refused(ep, ErrorCode::INVALID_GRAPH, name, "is not supported for complex tensors");
  }
}

// ---- xlogy ---------------------------------------------------------------------------------------

TEST_CASE("decompose xlogy.Tensor -> eq, log, mul, where(0), isnan, where(nan) (float16 in float32)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.input("y", F, {3});
  auto h = b.input("h", kH, {2});
  auto i = b.input("i", ScalarType::Long, {2});
  b.output(b.call("aten.xlogy.Tensor", {arg_tensor(x), arg_tensor(y)}, {F, {3}}));
  // float16 with int64: the result is float16, computed in float32.
  b.output(b.call("aten.xlogy.Tensor", {arg_tensor(h), arg_tensor(i)}, {kH, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %y: float32[3], %h: float16[2], %i: int64[2]):\n"
                    "  %eq: bool[3] = aten.eq.Scalar(%x, 0)\n"
                    "  %log: float32[3] = aten.log.default(%y)\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%x, %log)\n"
                    "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, " +
                        kTailScalarF32 +
                        "  %where: float32[3] = aten.where.self(%eq, %scalar_tensor, %mul)\n"
                        "  %isnan: bool[3] = aten.isnan.default(%y)\n"
                        "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(nan, " +
                        kTailScalarF32 +
                        "  %where_1: float32[3] = aten.where.self(%isnan, %scalar_tensor_1, %where)\n"
                        "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                        "  %_to_copy_1: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                        "  %eq_1: bool[2] = aten.eq.Scalar(%_to_copy, 0)\n"
                        "  %log_1: float32[2] = aten.log.default(%_to_copy_1)\n"
                        "  %mul_1: float32[2] = aten.mul.Tensor(%_to_copy, %log_1)\n"
                        "  %scalar_tensor_2: float32[] = aten.scalar_tensor.default(0, " +
                        kTailScalarF32 +
                        "  %where_2: float32[2] = aten.where.self(%eq_1, %scalar_tensor_2, %mul_1)\n"
                        "  %isnan_1: bool[2] = aten.isnan.default(%_to_copy_1)\n"
                        "  %scalar_tensor_3: float32[] = aten.scalar_tensor.default(nan, " +
                        kTailScalarF32 +
                        "  %where_3: float32[2] = aten.where.self(%isnan_1, %scalar_tensor_3, %where_2)\n"
                        "  %_to_copy_2: float16[2] = aten._to_copy.default(%where_3, dtype=torch.float16)\n"
                        "  return (%where_1, %_to_copy_2)\n");
}

TEST_CASE("decompose xlogy.Tensor: int64 operands compute in float32, complex is refused") {
  SUBCASE("int64") {
    ProgramBuilder b;
    auto i = b.input("i", ScalarType::Long, {2});
    b.output(b.call("aten.xlogy.Tensor", {arg_tensor(i), arg_tensor(i)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_decomposed(ep,
                      "graph(%i: int64[2]):\n"
                      "  %_to_copy: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                      "  %_to_copy_1: float32[2] = aten._to_copy.default(%i, dtype=torch.float32)\n"
                      "  %eq: bool[2] = aten.eq.Scalar(%_to_copy, 0)\n"
                      "  %log: float32[2] = aten.log.default(%_to_copy_1)\n"
                      "  %mul: float32[2] = aten.mul.Tensor(%_to_copy, %log)\n"
                      "  %scalar_tensor: float32[] = aten.scalar_tensor.default(0, " +
                          kTailScalarF32 +
                          "  %where: float32[2] = aten.where.self(%eq, %scalar_tensor, %mul)\n"
                          "  %isnan: bool[2] = aten.isnan.default(%_to_copy_1)\n"
                          "  %scalar_tensor_1: float32[] = aten.scalar_tensor.default(nan, " +
                          kTailScalarF32 +
                          "  %where_1: float32[2] = aten.where.self(%isnan, %scalar_tensor_1, %where)\n"
                          "  return (%where_1)\n");
  }
  SUBCASE("complex") {
    ProgramBuilder b;
    auto c = b.input("c", ScalarType::ComplexFloat, {2});
    b.output(b.call("aten.xlogy.Tensor", {arg_tensor(c), arg_tensor(c)}, {ScalarType::ComplexFloat, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "xlogy", "complex");
  }
}

// ---- mse_loss ------------------------------------------------------------------------------------

TEST_CASE("decompose mse_loss -> sub, pow 2, mean / sum (sum.dim_IntList) / none") {
  ProgramBuilder b;
  auto x = b.input("x", F, {2, 3});
  auto y = b.input("y", F, {2, 3});
  b.output(b.call("aten.mse_loss.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
  b.output(b.call("aten.mse_loss.default", {arg_tensor(x), arg_tensor(y), arg_int(2)}, {F, {}}));
  b.output(b.call("aten.mse_loss.default", {arg_tensor(x), arg_tensor(y), arg_int(0)}, {F, {2, 3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[2, 3], %y: float32[2, 3]):\n"
                    "  %sub: float32[2, 3] = aten.sub.Tensor(%x, %y)\n"
                    "  %pow_1: float32[2, 3] = aten.pow.Tensor_Scalar(%sub, 2)\n"
                    "  %mean: float32[] = aten.mean.default(%pow_1)\n"
                    "  %sub_1: float32[2, 3] = aten.sub.Tensor(%x, %y)\n"
                    "  %pow_2: float32[2, 3] = aten.pow.Tensor_Scalar(%sub_1, 2)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%pow_2, [])\n"
                    "  %sub_2: float32[2, 3] = aten.sub.Tensor(%x, %y)\n"
                    "  %pow_3: float32[2, 3] = aten.pow.Tensor_Scalar(%sub_2, 2)\n"
                    "  return (%mean, %sum_1, %pow_3)\n");
}

TEST_CASE("decompose mse_loss: float16 with float16 computes in float32, mixed dtypes promote") {
  ProgramBuilder b;
  auto h = b.input("h", kH, {2});
  auto g = b.input("g", kH, {2});
  auto x = b.input("x", F, {2});
  b.output(b.call("aten.mse_loss.default", {arg_tensor(h), arg_tensor(g)}, {kH, {}}));
  b.output(b.call("aten.mse_loss.default", {arg_tensor(h), arg_tensor(x), arg_int(0)}, {F, {2}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%h: float16[2], %g: float16[2], %x: float32[2]):\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[2] = aten._to_copy.default(%g, dtype=torch.float32)\n"
                    "  %sub: float32[2] = aten.sub.Tensor(%_to_copy, %_to_copy_1)\n"
                    "  %pow_1: float32[2] = aten.pow.Tensor_Scalar(%sub, 2)\n"
                    "  %mean: float32[] = aten.mean.default(%pow_1)\n"
                    "  %_to_copy_2: float16[] = aten._to_copy.default(%mean, dtype=torch.float16)\n"
                    "  %_to_copy_3: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %sub_1: float32[2] = aten.sub.Tensor(%_to_copy_3, %x)\n"
                    "  %pow_2: float32[2] = aten.pow.Tensor_Scalar(%sub_1, 2)\n"
                    "  return (%_to_copy_2, %pow_2)\n");
}

TEST_CASE("decompose mse_loss: a bad reduction and integer operands are refused") {
  SUBCASE("reduction 3") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    b.output(b.call("aten.mse_loss.default", {arg_tensor(x), arg_tensor(x), arg_int(3)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "mse_loss", "not a valid value for reduction");
  }
  SUBCASE("int64") {
    ProgramBuilder b;
    auto i = b.input("i", ScalarType::Long, {2});
    b.output(b.call("aten.mse_loss.default", {arg_tensor(i), arg_tensor(i)}, {ScalarType::Long, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "mse_loss", "floating-point tensors only");
  }
}

// ---- l1_loss -------------------------------------------------------------------------------------

TEST_CASE("decompose l1_loss -> sub, abs, mean / sum / none with no opmath cast (C++ composite)") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.input("y", F, {3});
  auto h = b.input("h", kH, {2});
  auto g = b.input("g", kH, {2});
  b.output(b.call("aten.l1_loss.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
  b.output(b.call("aten.l1_loss.default", {arg_tensor(x), arg_tensor(y), arg_int(0)}, {F, {3}}));
  b.output(b.call("aten.l1_loss.default", {arg_tensor(h), arg_tensor(g), arg_int(2)}, {kH, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %y: float32[3], %h: float16[2], %g: float16[2]):\n"
                    "  %sub: float32[3] = aten.sub.Tensor(%x, %y)\n"
                    "  %abs_1: float32[3] = aten.abs.default(%sub)\n"
                    "  %mean: float32[] = aten.mean.default(%abs_1)\n"
                    "  %sub_1: float32[3] = aten.sub.Tensor(%x, %y)\n"
                    "  %abs_2: float32[3] = aten.abs.default(%sub_1)\n"
                    "  %sub_2: float16[2] = aten.sub.Tensor(%h, %g)\n"
                    "  %abs_3: float16[2] = aten.abs.default(%sub_2)\n"
                    "  %sum_1: float16[] = aten.sum.dim_IntList(%abs_3, [])\n"
                    "  return (%mean, %abs_2, %sum_1)\n");
}

TEST_CASE("decompose l1_loss: a bad reduction and complex operands are refused") {
  SUBCASE("reduction -1") {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    b.output(b.call("aten.l1_loss.default", {arg_tensor(x), arg_tensor(x), arg_int(-1)}, {F, {2}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, "l1_loss", "not a valid value for reduction");
  }
  SUBCASE("complex") {
    ProgramBuilder b;
    auto c = b.input("c", ScalarType::ComplexFloat, {2});
    b.output(b.call("aten.l1_loss.default", {arg_tensor(c), arg_tensor(c)}, {F, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::UNSUPPORTED_FEATURE, "l1_loss", "complex");
  }
}

// ---- smooth_l1_loss, huber_loss ------------------------------------------------------------------

TEST_CASE("decompose smooth_l1_loss -> sub, abs, lt, pow, mul, div, sub, where, mean") {
  ProgramBuilder b;
  auto x = b.input("x", F, {3});
  auto y = b.input("y", F, {3});
  b.output(b.call("aten.smooth_l1_loss.default", {arg_tensor(x), arg_tensor(y)}, {F, {}}));
  b.output(b.call("aten.smooth_l1_loss.default", {arg_tensor(x), arg_tensor(y), arg_int(0), arg_float(0.5)},
                  {F, {3}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%x: float32[3], %y: float32[3]):\n"
                    "  %sub: float32[3] = aten.sub.Tensor(%x, %y)\n"
                    "  %abs_1: float32[3] = aten.abs.default(%sub)\n"
                    "  %lt: bool[3] = aten.lt.Scalar(%abs_1, 1.0)\n"
                    "  %pow_1: float32[3] = aten.pow.Tensor_Scalar(%abs_1, 2)\n"
                    "  %mul: float32[3] = aten.mul.Tensor(%pow_1, 0.5)\n"
                    "  %div: float32[3] = aten.div.Tensor(%mul, 1.0)\n"
                    "  %sub_1: float32[3] = aten.sub.Tensor(%abs_1, 0.5)\n"
                    "  %where: float32[3] = aten.where.self(%lt, %div, %sub_1)\n"
                    "  %mean: float32[] = aten.mean.default(%where)\n"
                    "  %sub_2: float32[3] = aten.sub.Tensor(%x, %y)\n"
                    "  %abs_2: float32[3] = aten.abs.default(%sub_2)\n"
                    "  %lt_1: bool[3] = aten.lt.Scalar(%abs_2, 0.5)\n"
                    "  %pow_2: float32[3] = aten.pow.Tensor_Scalar(%abs_2, 2)\n"
                    "  %mul_1: float32[3] = aten.mul.Tensor(%pow_2, 0.5)\n"
                    "  %div_1: float32[3] = aten.div.Tensor(%mul_1, 0.5)\n"
                    "  %sub_3: float32[3] = aten.sub.Tensor(%abs_2, 0.25)\n"
                    "  %where_1: float32[3] = aten.where.self(%lt_1, %div_1, %sub_3)\n"
                    "  return (%mean, %where_1)\n");
}

TEST_CASE("decompose huber_loss -> sub, abs, lt, mul, mul, sub, mul, where, sum (float16 in float32)") {
  ProgramBuilder b;
  auto h = b.input("h", kH, {2});
  auto g = b.input("g", kH, {2});
  b.output(b.call("aten.huber_loss.default", {arg_tensor(h), arg_tensor(g), arg_int(2), arg_float(2.0)},
                  {kH, {}}));
  ExportedProgram ep = b.build();
  expect_decomposed(ep,
                    "graph(%h: float16[2], %g: float16[2]):\n"
                    "  %_to_copy: float32[2] = aten._to_copy.default(%h, dtype=torch.float32)\n"
                    "  %_to_copy_1: float32[2] = aten._to_copy.default(%g, dtype=torch.float32)\n"
                    "  %sub: float32[2] = aten.sub.Tensor(%_to_copy, %_to_copy_1)\n"
                    "  %abs_1: float32[2] = aten.abs.default(%sub)\n"
                    "  %lt: bool[2] = aten.lt.Scalar(%abs_1, 2.0)\n"
                    "  %mul: float32[2] = aten.mul.Tensor(%abs_1, 0.5)\n"
                    "  %mul_1: float32[2] = aten.mul.Tensor(%mul, %abs_1)\n"
                    "  %sub_1: float32[2] = aten.sub.Tensor(%abs_1, 1.0)\n"
                    "  %mul_2: float32[2] = aten.mul.Tensor(%sub_1, 2.0)\n"
                    "  %where: float32[2] = aten.where.self(%lt, %mul_1, %mul_2)\n"
                    "  %sum_1: float32[] = aten.sum.dim_IntList(%where, [])\n"
                    "  %_to_copy_2: float16[] = aten._to_copy.default(%sum_1, dtype=torch.float16)\n"
                    "  return (%_to_copy_2)\n");
}

TEST_CASE("decompose smooth_l1_loss and huber_loss: negative beta, non-positive delta are refused") {
  auto refused = [](const char* op, double v, const std::string& node, const std::string& text) {
    ProgramBuilder b;
    auto x = b.input("x", F, {2});
    b.output(b.call(op, {arg_tensor(x), arg_tensor(x), arg_int(1), arg_float(v)}, {F, {}}));
    ExportedProgram ep = b.build();
    expect_refused(ep, ErrorCode::INVALID_GRAPH, node, text);
  };
  refused("aten.smooth_l1_loss.default", -1.0, "smooth_l1_loss", "negative values for beta");
  refused("aten.huber_loss.default", 0.0, "huber_loss", "non-positive values for delta");
  refused("aten.huber_loss.default", -2.0, "huber_loss", "non-positive values for delta");
}
