// Shared building blocks (see builders.h). Sources: ATen's
// CompositeImplicitAutograd kernels (aten/src/ATen/native/LinearAlgebra.cpp
// _matmul_impl / should_fold, Linear.cpp linear / _flatten_nd_linear,
// TensorShape.cpp reshape) and torch/_decomp/decompositions.py (t,
// transpose.int, _safe_softmax, zeros_like).
#include "passes/decompositions/builders.h"

#include <limits>
#include <numeric>

#include "passes/decompositions/shape_infer.h"

namespace pteforge::passes::decomp {
namespace {

/// Most tensors one unbind/split may produce (bounds the work a malformed input can cause).
constexpr int64_t kMaxPieces = 1 << 16;


/// mT of a >=2-d meta (sizes and strides of the last two dims swapped).
Meta mT(const Meta& m) {
  Meta r = m;
  size_t n = m.rank();
  std::swap(r.sizes[n - 1], r.sizes[n - 2]);
  std::swap(r.strides[n - 1], r.strides[n - 2]);
  return r;
}

/// at::native should_fold (LinearAlgebra.cpp).
bool should_fold(const Meta& a, const Meta& b) {
  bool t1_larger = a.rank() >= b.rank();
  size_t dim_t1 = t1_larger ? a.rank() : b.rank();
  size_t dim_t2 = t1_larger ? b.rank() : a.rank();
  if (!(dim_t1 >= 3 && dim_t2 <= 2)) return false;
  bool t2_requires_grad = t1_larger ? b.requires_grad : a.requires_grad;
  if (t2_requires_grad) return true;
  if (a.rank() == 2) return false;
  Meta t1 = t1_larger ? a : mT(b);
  SymPoly numel = t1.numel();
  if (numel.is_constant() && numel.value() == 0) return true;
  for (size_t i = 0; i + 2 < dim_t1; ++i) {
    if (t1.strides[i] != t1.strides[i + 1] * t1.sizes[i + 1]) return false;
  }
  return true;
}

}  // namespace

ir::Argument number_arg(const Number& n) {
  switch (n.kind) {
    case Number::Kind::Bool: return ir::arg_bool(n.i != 0);
    case Number::Kind::Int: return ir::arg_int(n.i);
    case Number::Kind::Float: return ir::arg_float(n.d);
  }
  return ir::arg_none();
}

std::string view(Rewriter& rw, const std::string& x, const std::vector<SymPoly>& sizes) {
  return rw.call("aten.view.default", {ir::arg_tensor(x), rw.sizes(sizes)});
}

std::string reshape(Rewriter& rw, const std::string& x, std::vector<SymPoly> sizes) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  SymPoly known(1);
  int infer_at = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].is_constant() && sizes[i].value() == -1) {
      infer_at = static_cast<int>(i);
    } else {
      known = known * sizes[i];
    }
  }
  if (infer_at >= 0) {
    auto q = m.numel().div_exact(known);
    if (!q) {
      rw.fail(ErrorCode::INVALID_GRAPH, std::string(rw.target()) + ": cannot infer the -1 in a reshape");
      return {};
    }
    sizes[infer_at] = *q;
  }
  if (view_strides(m.sizes, m.strides, sizes, rw.symbols())) return view(rw, x, sizes);
  std::string c = clone(rw, x, ir::MemoryFormat::ContiguousFormat);
  return view(rw, c, sizes);
}

std::string permute(Rewriter& rw, const std::string& x, const std::vector<int64_t>& dims) {
  return rw.call("aten.permute.default", {ir::arg_tensor(x), ir::arg_ints(dims)});
}

std::string transpose(Rewriter& rw, const std::string& x, int64_t d0, int64_t d1) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (m.rank() == 0) return x;
  int64_t a = rw.take(normalize_dim(d0, m.rank()));
  int64_t b = rw.take(normalize_dim(d1, m.rank()));
  std::vector<int64_t> dims(m.rank());
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[a], dims[b]);
  return permute(rw, x, dims);
}

std::string t(Rewriter& rw, const std::string& x) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (m.rank() < 2) return x;
  return transpose(rw, x, 0, 1);
}

std::string expand(Rewriter& rw, const std::string& x, const std::vector<SymPoly>& sizes) {
  return rw.call("aten.expand.default", {ir::arg_tensor(x), rw.sizes(sizes)});
}

std::string unsqueeze(Rewriter& rw, const std::string& x, int64_t dim) {
  return rw.call("aten.unsqueeze.default", {ir::arg_tensor(x), ir::arg_int(dim)});
}

std::string squeeze_dims(Rewriter& rw, const std::string& x, const std::vector<int64_t>& dims) {
  return rw.call("aten.squeeze.dims", {ir::arg_tensor(x), ir::arg_ints(dims)});
}

namespace {
std::string arange_start_step(Rewriter& rw, ir::Argument start, ir::Argument end, const ir::Device& device,
                              std::optional<ir::ScalarType> dtype) {
  KwArgs kw;
  if (dtype) kw.emplace_back("dtype", ir::arg_dtype(*dtype));
  kw.emplace_back("layout", ir::arg_layout(ir::Layout::Strided));
  kw.emplace_back("device", ir::arg_device(device));
  kw.emplace_back("pin_memory", ir::arg_bool(false));
  return rw.call("aten.arange.start_step", {std::move(start), std::move(end), ir::arg_int(1)}, std::move(kw));
}
}  // namespace

std::string arange(Rewriter& rw, ir::Argument end, const ir::Device& device,
                   std::optional<ir::ScalarType> dtype) {
  return arange_start_step(rw, ir::arg_int(0), std::move(end), device, dtype);
}

std::string arange(Rewriter& rw, ir::Argument start, ir::Argument end, const ir::Device& device) {
  return arange_start_step(rw, std::move(start), std::move(end), device, std::nullopt);
}

std::string scalar_tensor(Rewriter& rw, ir::Argument value, ir::ScalarType dtype, const ir::Device& device) {
  return rw.call("aten.scalar_tensor.default", {std::move(value)},
                 {{"dtype", ir::arg_dtype(dtype)},
                  {"layout", ir::arg_layout(ir::Layout::Strided)},
                  {"device", ir::arg_device(device)}});
}

std::string clone(Rewriter& rw, const std::string& x, std::optional<ir::MemoryFormat> mf) {
  KwArgs kw;
  if (mf) kw.emplace_back("memory_format", ir::arg_memory_format(*mf));
  return rw.call("aten.clone.default", {ir::arg_tensor(x)}, std::move(kw));
}

std::string contiguous(Rewriter& rw, const std::string& x) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (is_contiguous(m)) return x;
  return clone(rw, x, ir::MemoryFormat::ContiguousFormat);
}

std::string to_dtype(Rewriter& rw, const std::string& x, ir::ScalarType dtype) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (m.dtype == dtype) return x;
  return rw.call("aten._to_copy.default", {ir::arg_tensor(x)}, {{"dtype", ir::arg_dtype(dtype)}});
}

std::string full_like(Rewriter& rw, const std::string& x, const ir::Argument& value,
                      std::optional<ir::ScalarType> dtype) {
  KwArgs kw;
  if (dtype) kw.emplace_back("dtype", ir::arg_dtype(*dtype));
  kw.emplace_back("pin_memory", ir::arg_bool(false));
  kw.emplace_back("memory_format", ir::arg_memory_format(ir::MemoryFormat::PreserveFormat));
  return rw.call("aten.full_like.default", {ir::arg_tensor(x), value}, std::move(kw));
}

std::string matmul(Rewriter& rw, const std::string& a, const std::string& b) {
  Meta A = rw.meta(a);
  Meta B = rw.meta(b);
  if (!rw.ok()) return {};
  size_t d1 = A.rank(), d2 = B.rank();
  if (d1 == 0 || d2 == 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "matmul: both arguments need at least 1 dimension");
    return {};
  }
  if (rw.preserved("aten.matmul.default")) {
    return rw.call("aten.matmul.default", {ir::arg_tensor(a), ir::arg_tensor(b)});
  }
  if (d1 == 1 && d2 == 1) return rw.call("aten.dot.default", {ir::arg_tensor(a), ir::arg_tensor(b)});
  if (d1 == 2 && d2 == 1) return rw.call("aten.mv.default", {ir::arg_tensor(a), ir::arg_tensor(b)});
  if (d1 == 1 && d2 == 2) {
    std::string u = unsqueeze(rw, a, 0);
    std::string mm = rw.call("aten.mm.default", {ir::arg_tensor(u), ir::arg_tensor(b)});
    return squeeze_dims(rw, mm, {0});
  }
  if (d1 == 2 && d2 == 2) return rw.call("aten.mm.default", {ir::arg_tensor(a), ir::arg_tensor(b)});
  if (should_fold(A, B)) {
    bool transposed = d2 > d1;
    std::string t1 = transposed ? transpose(rw, b, -2, -1) : a;
    std::string t2 = !transposed ? b : (d1 == 2 ? t(rw, a) : a);
    Meta M1 = rw.meta(t1);
    Meta M2 = rw.meta(t2);
    if (!rw.ok()) return {};
    std::vector<SymPoly> out_shape(M1.sizes.begin(), M1.sizes.end() - 1);
    SymPoly folded = product(out_shape);
    bool t2_matrix = M2.rank() == 2;
    if (t2_matrix) out_shape.push_back(M2.sizes[1]);
    std::string t1_folded = reshape(rw, t1, {folded, M1.sizes.back()});
    if (t2_matrix) {
      std::string mm = rw.call("aten.mm.default", {ir::arg_tensor(t1_folded), ir::arg_tensor(t2)});
      std::string out = view(rw, mm, out_shape);
      if (transposed) return contiguous(rw, transpose(rw, out, -2, -1));
      return out;
    }
    std::string mv = rw.call("aten.mv.default", {ir::arg_tensor(t1_folded), ir::arg_tensor(t2)});
    return view(rw, mv, out_shape);
  }
  // Batched: broadcast the batch dimensions, fold them into one, bmm.
  SymPoly n = d1 > 1 ? A.sizes[d1 - 2] : SymPoly(1);
  SymPoly m1 = A.sizes[d1 - 1];
  std::vector<SymPoly> batch1(A.sizes.begin(), A.sizes.begin() + (d1 > 2 ? d1 - 2 : 0));
  SymPoly m2 = d2 > 1 ? B.sizes[d2 - 2] : B.sizes[0];
  SymPoly p = d2 > 1 ? B.sizes[d2 - 1] : SymPoly(1);
  std::vector<SymPoly> batch2(B.sizes.begin(), B.sizes.begin() + (d2 > 2 ? d2 - 2 : 0));
  std::vector<SymPoly> out_shape = rw.take(broadcast_shapes({batch1, batch2}, &rw.symbols()));
  if (!rw.ok()) return {};
  std::vector<SymPoly> e1 = out_shape;
  e1.push_back(n);
  e1.push_back(m1);
  std::vector<SymPoly> e2 = out_shape;
  e2.push_back(m2);
  e2.push_back(p);
  SymPoly ebp = product(out_shape);
  std::string x1 = reshape(rw, expand(rw, a, e1), {ebp, n, m1});
  bool vector_rhs = d2 == 1;
  std::string x2 = vector_rhs ? reshape(rw, expand(rw, unsqueeze(rw, b, -1), e2), {ebp, m2, p})
                              : reshape(rw, expand(rw, b, e2), {ebp, m2, p});
  if (d1 > 1) out_shape.push_back(n);
  if (d2 > 1) out_shape.push_back(p);
  std::string bmm = rw.call("aten.bmm.default", {ir::arg_tensor(x1), ir::arg_tensor(x2)});
  if (vector_rhs) bmm = squeeze_dims(rw, bmm, {-1});
  return view(rw, bmm, out_shape);
}

std::string linear(Rewriter& rw, const std::string& x, const std::string& w, const std::optional<std::string>& b) {
  Meta X = rw.meta(x);
  Meta W = rw.meta(w);
  if (!rw.ok()) return {};
  if (X.rank() == 0 || W.rank() == 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "linear: both arguments to linear need at least 1 dimension");
    return {};
  }
  if (rw.preserved("aten.linear.default")) {
    return rw.call("aten.linear.default", {ir::arg_tensor(x), ir::arg_tensor(w), b ? ir::arg_tensor(*b) : ir::arg_none()});
  }
  if (X.rank() == 2 && b) {
    std::string wt = t(rw, w);
    return rw.call("aten.addmm.default", {ir::arg_tensor(*b), ir::arg_tensor(x), ir::arg_tensor(wt)});
  }
  if (b) {
    Meta B = rw.meta(*b);
    bool contig = is_contiguous(X);
    if (contig && (X.rank() == 3 || B.rank() == 1)) {
      // _flatten_nd_linear: reshape to 2-d, addmm, view back.
      std::vector<SymPoly> lead(X.sizes.begin(), X.sizes.end() - 1);
      std::string flat = reshape(rw, x, {product(lead), X.sizes.back()});
      std::string wt = t(rw, w);
      std::string mm = rw.call("aten.addmm.default", {ir::arg_tensor(*b), ir::arg_tensor(flat), ir::arg_tensor(wt)});
      Meta R = rw.meta(mm);
      if (!rw.ok()) return {};
      lead.push_back(R.sizes[1]);
      return view(rw, mm, lead);
    }
  }
  std::string wt = t(rw, w);
  std::string out = matmul(rw, x, wt);
  if (b) out = rw.call("aten.add.Tensor", {ir::arg_tensor(out), ir::arg_tensor(*b)});
  return out;
}

std::vector<std::string> unbind(Rewriter& rw, const std::string& x, int64_t dim) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return {};
  if (!m.sizes[d].is_constant()) {
    rw.unsupported("unbind over a dimension of symbolic size " + rw.symbols().display(m.sizes[d]));
    return {};
  }
  int64_t n = m.sizes[d].value();
  if (n > kMaxPieces) {
    rw.unsupported("unbind into " + std::to_string(n) + " tensors (more than " + std::to_string(kMaxPieces) + ")");
    return {};
  }
  std::vector<std::string> slices;
  for (int64_t i = 0; i < n; ++i) {
    slices.push_back(
        rw.call("aten.slice.Tensor", {ir::arg_tensor(x), ir::arg_int(d), ir::arg_int(i), ir::arg_int(i + 1)}));
  }
  std::vector<std::string> outs;
  for (const auto& s : slices) outs.push_back(squeeze_dims(rw, s, {d}));
  return outs;
}

std::vector<std::string> split(Rewriter& rw, const std::string& x, int64_t split_size, int64_t dim) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return {};
  if (!m.sizes[d].is_constant()) {
    rw.unsupported("splitting a dimension of symbolic size " + rw.symbols().display(m.sizes[d]));
    return {};
  }
  if (split_size <= 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "split size must be positive");
    return {};
  }
  int64_t n = m.sizes[d].value();
  int64_t pieces = n / split_size + (n % split_size != 0 ? 1 : 0);
  if (pieces == 0) pieces = 1;
  if (pieces > kMaxPieces) {
    rw.unsupported("split into " + std::to_string(pieces) + " tensors (more than " + std::to_string(kMaxPieces) + ")");
    return {};
  }
  std::vector<int64_t> sizes(static_cast<size_t>(pieces), split_size);
  sizes.back() = split_size - (split_size * pieces - n);
  return rw.call_list("aten.split_with_sizes.default", {ir::arg_tensor(x), ir::arg_ints(sizes), ir::arg_int(dim)});
}

std::vector<std::string> chunk(Rewriter& rw, const std::string& x, int64_t chunks, int64_t dim) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (chunks <= 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "chunk expects `chunks` to be greater than 0");
    return {};
  }
  int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return {};
  if (!m.sizes[d].is_constant()) {
    rw.unsupported("chunking a dimension of symbolic size " + rw.symbols().display(m.sizes[d]));
    return {};
  }
  int64_t n = m.sizes[d].value();
  if (n < 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "negative dimension size");
    return {};
  }
  if (n == 0) {
    // at::native::chunk: a zero-size dim gives `chunks` empty pieces
    // (split_with_sizes of zeros; split would give one).
    if (chunks > kMaxPieces) {
      rw.unsupported("chunk into " + std::to_string(chunks) + " tensors (more than " +
                     std::to_string(kMaxPieces) + ")");
      return {};
    }
    return rw.call_list(
        "aten.split_with_sizes.default",
        {ir::arg_tensor(x), ir::arg_ints(std::vector<int64_t>(static_cast<size_t>(chunks), 0)),
         ir::arg_int(dim)});
  }
  return split(rw, x, n / chunks + (n % chunks != 0 ? 1 : 0), dim);
}

std::string cat(Rewriter& rw, const std::vector<std::string>& ts, int64_t dim) {
  return rw.call("aten.cat.default", {ir::arg_tensors(ts), ir::arg_int(dim)});
}

std::string stack(Rewriter& rw, const std::vector<std::string>& ts, int64_t dim) {
  if (ts.empty()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "stack expects a non-empty TensorList");
    return {};
  }
  Meta m = rw.meta(ts[0]);
  if (!rw.ok()) return {};
  int64_t wrapped = rw.take(normalize_dim(dim, m.rank() + 1));
  if (!rw.ok()) return {};
  if (wrapped < static_cast<int64_t>(m.rank())) {
    std::string c = cat(rw, ts, wrapped);
    std::vector<SymPoly> shape = m.sizes;
    shape.insert(shape.begin() + wrapped, SymPoly(static_cast<int64_t>(ts.size())));
    return view(rw, c, shape);
  }
  std::vector<std::string> us;
  for (const auto& t : ts) us.push_back(unsqueeze(rw, t, wrapped));
  return cat(rw, us, dim);
}

std::string index_along(Rewriter& rw, const std::string& x, const std::string& idx, size_t dim,
                        size_t length) {
  std::vector<ir::OptionalTensorArgument> indices(length, ir::OptionalTensorArgument{std::nullopt});
  indices[dim] = ir::OptionalTensorArgument{idx};
  return rw.call("aten.index.Tensor",
                 {ir::arg_tensor(x), ir::Argument::make<ir::ArgTag::OptionalTensors>(std::move(indices))});
}

std::string index_spatial(Rewriter& rw, const std::string& x, const std::vector<std::string>& idx) {
  std::vector<ir::OptionalTensorArgument> indices(2, ir::OptionalTensorArgument{std::nullopt});
  for (const std::string& i : idx) indices.push_back(ir::OptionalTensorArgument{i});
  return rw.call("aten.index.Tensor",
                 {ir::arg_tensor(x), ir::Argument::make<ir::ArgTag::OptionalTensors>(std::move(indices))});
}

std::string all(Rewriter& rw, const std::string& x, ir::Argument dim, bool keepdim) {
  const bool int_dim = dim.get_if<ir::ArgTag::Int>() != nullptr;
  std::string inv = rw.call("aten.logical_not.default", {ir::arg_tensor(x)});
  std::string any = rw.call(int_dim ? "aten.any.dim" : "aten.any.dims",
                            {ir::arg_tensor(inv), std::move(dim), ir::arg_bool(keepdim)});
  return rw.call("aten.logical_not.default", {ir::arg_tensor(any)});
}

std::string safe_softmax(Rewriter& rw, const std::string& x, int64_t dim) {
  std::string out = rw.call("aten._softmax.default", {ir::arg_tensor(x), ir::arg_int(dim), ir::arg_bool(false)});
  std::string masked = rw.call("aten.eq.Scalar", {ir::arg_tensor(x), ir::arg_float(-std::numeric_limits<double>::infinity())});
  std::string rows = all(rw, masked, ir::arg_int(dim), true);
  std::string zeros = full_like(rw, out, ir::arg_int(0));
  return rw.call("aten.where.self", {ir::arg_tensor(rows), ir::arg_tensor(zeros), ir::arg_tensor(out)});
}

}  // namespace pteforge::passes::decomp
