// Building blocks shared by the decomposition rules: the Core ATen forms of
// the CompositeImplicitAutograd helpers PyTorch's decompositions call
// (reshape, t/transpose, contiguous, matmul, linear, ...). Each emits exactly
// the ops the corresponding PyTorch function traces to.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passes/decompositions/rewriter.h"

namespace pteforge::passes::decomp {

/// aten.view(x, sizes).
std::string view(Rewriter& rw, const std::string& x, const std::vector<SymPoly>& sizes);
/// at::reshape: view when the layout allows it, else clone(contiguous_format) + view
/// (_unsafe_view decomposes to view). A -1 in `sizes` is resolved first.
std::string reshape(Rewriter& rw, const std::string& x, std::vector<SymPoly> sizes);
/// aten.permute(x, dims).
std::string permute(Rewriter& rw, const std::string& x, const std::vector<int64_t>& dims);
/// transpose(x, d0, d1) → permute with d0 and d1 swapped (torch's transpose.int decomposition).
std::string transpose(Rewriter& rw, const std::string& x, int64_t d0, int64_t d1);
/// x.t(): permute(x, [1, 0]) for a 2-d tensor; x itself for rank < 2.
std::string t(Rewriter& rw, const std::string& x);
/// aten.expand(x, sizes).
std::string expand(Rewriter& rw, const std::string& x, const std::vector<SymPoly>& sizes);
std::string unsqueeze(Rewriter& rw, const std::string& x, int64_t dim);
/// aten.squeeze.dims(x, dims) (the form torch's squeeze decompositions produce).
std::string squeeze_dims(Rewriter& rw, const std::string& x, const std::vector<int64_t>& dims);
/// x.contiguous(): x itself when already contiguous, else clone(memory_format=contiguous_format).
std::string contiguous(Rewriter& rw, const std::string& x);
/// torch.arange(end[, dtype], device=device) as a decomposition's trace records it
/// (torch._decomp arange_default): arange.start_step(0, end, 1[, dtype=dtype],
/// layout=strided, device, pin_memory=False).
std::string arange(Rewriter& rw, ir::Argument end, const ir::Device& device,
                   std::optional<ir::ScalarType> dtype = std::nullopt);
/// torch.arange(start, end, device=device) (torch._decomp arange_start):
/// arange.start_step(start, end, 1, layout=strided, device, pin_memory=False); int64 for
/// integer bounds.
std::string arange(Rewriter& rw, ir::Argument start, ir::Argument end, const ir::Device& device);
/// _unsafe_index(x, [None] * dim + [idx] + [None] * (length - dim - 1)) as PyTorch's
/// decompositions call it, recorded as aten.index.Tensor (the _unsafe_index rule's form):
/// `length` entries, the 1-d int64 `idx` at `dim`.
std::string index_along(Rewriter& rw, const std::string& x, const std::string& idx, size_t dim,
                        size_t length);
/// _unsafe_index(x, [None, None] + idx) as the upsample decompositions call it on an
/// [N, C, spatial...] input, recorded as aten.index.Tensor: one int64 index per spatial dim.
std::string index_spatial(Rewriter& rw, const std::string& x, const std::vector<std::string>& idx);
/// torch.all(x, dim, keepdim) as torch._refs all traces it: logical_not(any(logical_not(x),
/// dim, keepdim)); torch.any records any.dim for an int dim, any.dims for None or a list
/// (trailing defaults dropped). bool result (the uint8 cast back is the caller's).
std::string all(Rewriter& rw, const std::string& x, ir::Argument dim, bool keepdim);
/// scalar_tensor(value, dtype=dtype, layout=strided, device=device): a number as a 0-d
/// tensor, as at::scalar_tensor with a tensor's options records it.
std::string scalar_tensor(Rewriter& rw, ir::Argument value, ir::ScalarType dtype, const ir::Device& device);
/// aten.clone(x) with an optional memory format.
std::string clone(Rewriter& rw, const std::string& x, std::optional<ir::MemoryFormat> mf = std::nullopt);
/// x.to(dtype): x itself when the dtype already matches, else _to_copy(x, dtype=...).
std::string to_dtype(Rewriter& rw, const std::string& x, ir::ScalarType dtype);

/// float16 or bfloat16: the dtypes torch's opmath computes in float32.
inline bool is_low_float(ir::ScalarType t) {
  return t == ir::ScalarType::Half || t == ir::ScalarType::BFloat16;
}

/// The dtype torch's opmath computes `t` in: float32 for float16/bfloat16, else `t`.
inline ir::ScalarType opmath_dtype(ir::ScalarType t) { return is_low_float(t) ? ir::ScalarType::Float : t; }

/// Refuses (UNSUPPORTED) a non-floating `dtype` of the rule's `what` ("input",
/// "operands"): the ATen kernels of these ops take floating-point tensors only.
/// Returns whether `dtype` is floating.
inline bool require_floating(Rewriter& rw, ir::ScalarType dtype, std::string_view what = "input") {
  if (ir::is_floating(dtype)) return true;
  rw.unsupported(std::string(what) + " of dtype " + std::string(ir::scalar_type_name(dtype)) +
                 " (the kernel takes floating-point tensors only)");
  return false;
}

/// complex32, complex64 or complex128.
inline bool is_complex_dtype(ir::ScalarType t) {
  return t == ir::ScalarType::ComplexHalf || t == ir::ScalarType::ComplexFloat ||
         t == ir::ScalarType::ComplexDouble;
}

/// Refuses (UNSUPPORTED: "a complex operand") when any of `dtypes` is complex, for
/// rules that follow a reference's real-valued branch only; false then.
inline bool require_real(Rewriter& rw, std::initializer_list<ir::ScalarType> dtypes) {
  for (ir::ScalarType t : dtypes) {
    if (is_complex_dtype(t)) {
      rw.unsupported("a complex operand");
      return false;
    }
  }
  return true;
}

/// The operand of a unary INT_TO_FLOAT reference (torch._refs'
/// elementwise_type_promotion_wrapper): `in` converted to the computation dtype
/// (opmath_dtype of the result), with `result` set to the dtype the op returns: the
/// input's when floating, else float32 (integer and bool inputs). A complex input is
/// refused (UNSUPPORTED, "" returned).
inline std::string int_to_float_operand(Rewriter& rw, const std::string& in, ir::ScalarType& result) {
  Meta m = rw.meta(in);
  if (!rw.ok()) return {};
  if (is_complex_dtype(m.dtype)) {
    rw.unsupported("a complex input");
    return {};
  }
  result = ir::is_floating(m.dtype) ? m.dtype : ir::ScalarType::Float;
  return to_dtype(rw, in, opmath_dtype(result));
}

/// torch's pw_cast_for_opmath for one dtype: inputs of a half/bfloat16 dtype
/// (the first up() sees) are computed in float32 (up() casts each input) and
/// the result is cast back (down()); other dtypes pass through.
struct OpMath {
  Rewriter& rw;
  ir::ScalarType orig = ir::ScalarType::Float;
  bool seen = false;
  std::string up(const std::string& x) {
    if (!seen) {
      orig = rw.meta(x).dtype;
      seen = true;
    }
    return is_low_float(orig) ? to_dtype(rw, x, ir::ScalarType::Float) : x;
  }
  std::string down(const std::string& y) { return is_low_float(orig) ? to_dtype(rw, y, orig) : y; }
};

/// at::matmul's CompositeImplicitAutograd implementation (_matmul_impl): dot, mv,
/// mm, folding into mm/mv, or expand + reshape + bmm, by input ranks.
std::string matmul(Rewriter& rw, const std::string& a, const std::string& b);
/// at::linear: addmm for 2-d input with bias, _flatten_nd_linear (view + addmm +
/// view) for contiguous N-d input with a 1-d bias, else matmul(x, w.t()) (+ add).
std::string linear(Rewriter& rw, const std::string& x, const std::string& w, const std::optional<std::string>& b);
/// torch._safe_softmax decomposition: _softmax, eq(-inf), all (logical_not, any,
/// logical_not), zeros_like (full_like 0), where.
std::string safe_softmax(Rewriter& rw, const std::string& x, int64_t dim);

/// torch._refs unbind: size(dim) slices (slice.Tensor(x, dim, i, i + 1)) then squeeze.dims [dim] each.
std::vector<std::string> unbind(Rewriter& rw, const std::string& x, int64_t dim);
/// torch._decomp split.Tensor: split_with_sizes with ceil(size / split_size) pieces, the last shorter.
std::vector<std::string> split(Rewriter& rw, const std::string& x, int64_t split_size, int64_t dim);
/// at::native::chunk → split.Tensor → split_with_sizes (ceil(size / chunks) per piece).
std::vector<std::string> chunk(Rewriter& rw, const std::string& x, int64_t chunks, int64_t dim);
/// torch._refs stack: cat + view for dim < rank, else unsqueeze each + cat.
std::string stack(Rewriter& rw, const std::vector<std::string>& ts, int64_t dim);
/// aten.cat(ts, dim).
std::string cat(Rewriter& rw, const std::vector<std::string>& ts, int64_t dim);

/// at::native::where with a Python number for `self` and/or `other` (`numbers`: their
/// values, self's first): scalar_tensor(value, dtype=result type, layout, device) and
/// where.self (pointwise.cpp).
std::string where_scalar(Rewriter& rw, const std::string& cond, const ir::Argument& self,
                         const ir::Argument& other, const std::vector<Number>& numbers);

/// torch._decomp log_sigmoid_forward (activation.cpp) on `x`: float16/bfloat16 computed in
/// float32, full([], 0) / minimum / abs / neg / exp / log1p / sub.Tensor; returns the output
/// and, when `with_buffer`, the CPU buffer exp(-abs(x)) (each cast back). A cuda/xpu input is
/// refused (UNSUPPORTED; the reference's buffer differs there).
std::pair<std::string, std::string> log_sigmoid_forward(Rewriter& rw, const std::string& x, bool with_buffer);

/// A Python-number argument.
ir::Argument number_arg(const Number& n);
/// full_like(x, value, pin_memory=False, memory_format=preserve_format): zeros_like/ones_like's core form.
std::string full_like(Rewriter& rw, const std::string& x, const ir::Argument& value,
                      std::optional<ir::ScalarType> dtype = std::nullopt);

}  // namespace pteforge::passes::decomp
