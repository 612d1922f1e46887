// Layout helpers every pass calls per tensor: dim_order_from_strides (§5.2),
// is_contiguous_layout and with_contiguous_strides (passes/edge_utils.h).
#include <doctest/doctest.h>

#include <vector>

#include "passes/edge_utils.h"
#include "passes/tensor_spec.h"

using namespace pteforge;
using namespace pteforge::ir;

namespace {

using Order = std::vector<uint8_t>;

TensorMeta meta(std::vector<SymInt> sizes, std::vector<SymInt> strides, SymInt offset = SymInt(int64_t{0})) {
  TensorMeta m;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storage_offset = std::move(offset);
  return m;
}

SymInt sym(const char* name, std::optional<int64_t> hint) {
  SymExpr e;
  e.expr_str = name;
  if (hint) e.hint = SymExprHint::of_int(*hint);
  return SymInt(std::move(e));
}

}  // namespace

TEST_CASE("dim_order_from_strides: largest stride first, ties keep dimension order") {
  CHECK(passes::dim_order_from_strides({}) == Order{});
  CHECK(passes::dim_order_from_strides({1}) == Order{0});
  CHECK(passes::dim_order_from_strides({12, 4, 1}) == Order{0, 1, 2});
  // Channels last (NHWC strides of a [2, 3, 4, 5] tensor).
  CHECK(passes::dim_order_from_strides({60, 1, 15, 3}) == Order{0, 2, 3, 1});
  // Size-1 dims give equal strides: the earlier dimension stays first.
  CHECK(passes::dim_order_from_strides({4, 4, 1, 1}) == Order{0, 1, 2, 3});
  CHECK(passes::dim_order_from_strides({1, 4, 4, 1}) == Order{1, 2, 0, 3});
  // Transposed: strides ascending.
  CHECK(passes::dim_order_from_strides({1, 2, 6}) == Order{2, 1, 0});
}

TEST_CASE("is_contiguous_layout: hints decide, unknown without them") {
  using passes::edge::is_contiguous_layout;
  CHECK(is_contiguous_layout(meta({2, 3}, {3, 1})) == true);
  CHECK(is_contiguous_layout(meta({2, 3}, {1, 2})) == false);
  // Size-1 dims may have any stride; a 0-size tensor is contiguous.
  CHECK(is_contiguous_layout(meta({2, 1, 3}, {3, 99, 1})) == true);
  CHECK(is_contiguous_layout(meta({0, 3}, {1, 7})) == true);
  CHECK(is_contiguous_layout(meta({}, {})) == true);
  // Symbolic with hints counts as its hints; without a hint: unknown.
  CHECK(is_contiguous_layout(meta({sym("s0", 4), 3}, {3, 1})) == true);
  CHECK(is_contiguous_layout(meta({sym("u0", std::nullopt), 3}, {3, 1})) == std::nullopt);
  CHECK(is_contiguous_layout(meta({2, 3}, {sym("u1", std::nullopt), 1})) == std::nullopt);
  // Strides of another rank: unknown.
  CHECK(is_contiguous_layout(meta({2, 3}, {1})) == std::nullopt);
}

TEST_CASE("with_contiguous_strides: keeps contiguous metadata, rewrites the rest") {
  using passes::edge::with_contiguous_strides;
  const TensorMeta same = with_contiguous_strides(meta({2, 3}, {3, 1}));
  CHECK(same.strides == std::vector<SymInt>{3, 1});
  // A 0-size dim counts as 1 in the expected strides.
  CHECK(with_contiguous_strides(meta({2, 0}, {1, 1})).strides == std::vector<SymInt>{1, 1});
  const TensorMeta t = with_contiguous_strides(meta({2, 3}, {1, 2}));
  CHECK(t.strides == std::vector<SymInt>{3, 1});
  // A storage offset makes it non-contiguous: the offset becomes 0.
  const TensorMeta off = with_contiguous_strides(meta({2, 3}, {3, 1}, SymInt(int64_t{5})));
  CHECK(off.storage_offset == SymInt(int64_t{0}));
  CHECK(off.strides == std::vector<SymInt>{3, 1});
  // Missing strides (another rank): contiguous strides of the sizes.
  CHECK(with_contiguous_strides(meta({4, 5}, {})).strides == std::vector<SymInt>{5, 1});
  // A size without a hint: strides follow the sizes symbolically (not kept as they were).
  const TensorMeta s = with_contiguous_strides(meta({sym("u0", std::nullopt), 3}, {3, 1}));
  REQUIRE(s.strides.size() == 2);
  CHECK(s.strides[1] == SymInt(int64_t{1}));
}

TEST_CASE("TensorSpec sizes: numel, nbytes and allocated_bytes saturate instead of wrapping") {
  passes::TensorSpec s;
  s.dtype = ScalarType::Float;
  s.sizes = {2, 3};
  CHECK(s.numel() == 6);
  CHECK(s.nbytes() == 24);
  CHECK(s.allocated_bytes(16) == 32);
  s.sizes = {0, -1};
  CHECK(s.numel() == 0);
  // 2^62 elements fit in 64 bits, their 2^64 bytes do not; 2^93 elements do not either.
  s.sizes = {int64_t{1} << 31, int64_t{1} << 31};
  CHECK(s.numel() == uint64_t{1} << 62);
  CHECK(s.nbytes() == UINT64_MAX);
  CHECK(s.allocated_bytes(16) == UINT64_MAX);
  s.sizes = {INT64_MAX, INT64_MAX, 4};
  CHECK(s.numel() == UINT64_MAX);
  CHECK(s.nbytes() == UINT64_MAX);
  s.sizes = {INT64_MAX, 0};
  CHECK(s.numel() == 0);
  // (2^32 - 1)(2^32 + 1) bytes is exactly UINT64_MAX: rounding it up to the
  // alignment would carry past 64 bits, so it saturates as well.
  s.dtype = ScalarType::Byte;
  s.sizes = {4294967295, 4294967297};
  CHECK(s.nbytes() == UINT64_MAX);
  CHECK(s.allocated_bytes(16) == UINT64_MAX);
  s.sizes = {4294967295, 4294967295};
  CHECK(s.allocated_bytes(16) == 18446744065119617040ull);
}

TEST_CASE("spec_from_meta: dense layouts only, sparse and mkldnn tensors are UNSUPPORTED_FEATURE") {
  TensorMeta m = make_tensor_meta(ScalarType::Float, {2, 3});
  for (Layout dense : {Layout::Strided, Layout::Unknown}) {
    m.layout = dense;
    CHECK(passes::spec_from_meta(m).ok());
  }
  m.layout = Layout::SparseCoo;
  auto sparse = passes::spec_from_meta(m);
  REQUIRE_FALSE(sparse.ok());
  CHECK(sparse.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(sparse.error().message == "a tensor of layout torch.sparse_coo; ExecuTorch tensors are dense (torch.strided)");
  m.layout = Layout::Mkldnn;
  CHECK(passes::spec_from_meta(m).error().code == ErrorCode::UNSUPPORTED_FEATURE);
}
