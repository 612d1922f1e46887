// Output metadata of emitted Core ATen calls (see shape_infer.h). The rules
// follow PyTorch's meta functions / TensorIterator for the ops listed in
// infer_meta; anything else is refused rather than guessed.
#include "passes/decompositions/shape_infer.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <algorithm>
#include <numeric>
#include <string>

#include "support/checked_math.h"

namespace pteforge::passes::decomp {
namespace {

Error shape_error(const ops::OpSchema& op, const std::string& what) {
  return make_error(ErrorCode::INVALID_GRAPH, op.full_name() + ": " + what);
}

/// A call this file cannot give a shape for (symbolic or data-dependent
/// sizes), as opposed to a call whose arguments are wrong (shape_error).
Error limitation(const ops::OpSchema& op, const std::string& what) {
  return make_error(ErrorCode::UNSUPPORTED_FEATURE, op.full_name() + ": " + what);
}

}  // namespace

std::string shape_text(const std::vector<SymPoly>& sizes, const SymbolTable* st) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += st ? st->display(sizes[i]) : clipped(sizes[i].key());
  }
  // Each size is cut to 80 characters; the whole list to 240 (a rank-6
  // shape of long sums must not make a kilobyte message).
  return clipped(out + "]", 240);
}
std::string shape_text(const std::vector<SymPoly>& sizes, const SymbolTable& st) { return shape_text(sizes, &st); }

std::optional<std::string> nll_loss2d_operand_error(const Meta& self, const Meta& target,
                                                    const std::optional<Meta>& weight,
                                                    const SymbolTable& symbols) {
  if (target.rank() != 3) {
    return "only batches of spatial targets supported (3D tensors) but got targets of dimension: " +
           std::to_string(target.rank());
  }
  if (self.rank() != 4) {
    return "only batches of spatial inputs supported (4D tensors), but got input of dimension: " +
           std::to_string(self.rank());
  }
  if (weight && !(weight->numel() == self.sizes[1])) {
    return std::string("weight tensor should be defined either for all or no classes");
  }
  if (!(self.sizes[0] == target.sizes[0] && self.sizes[2] == target.sizes[1] &&
        self.sizes[3] == target.sizes[2])) {
    return "size mismatch (got input: " + shape_text(self.sizes, symbols) +
           " , target: " + shape_text(target.sizes, symbols);
  }
  return std::nullopt;
}

namespace {

/// PyTorch's "cannot be applied to a 0-dim tensor" for ops that index a dimension.
Status require_dims(const ops::OpSchema& op, const Meta& m, const char* what = "self") {
  if (m.rank() > 0) return Status::Ok();
  return shape_error(op, std::string(what) + " is a 0-d tensor; the operator needs a dimension to work on");
}

/// PyTorch's "dim X appears multiple times in the list of dims" (permute, reductions).
Status require_distinct(const ops::OpSchema& op, const std::vector<int64_t>& normalized) {
  for (size_t i = 0; i < normalized.size(); ++i) {
    for (size_t j = i + 1; j < normalized.size(); ++j) {
      if (normalized[i] == normalized[j]) {
        return shape_error(op, "dim " + std::to_string(normalized[i]) + " appears more than once in the list of dims");
      }
    }
  }
  return Status::Ok();
}

/// Index tensors must hold integers (embedding, index_select, index).
Status require_index_dtype(const ops::OpSchema& op, const Meta& m, const char* what) {
  if (m.dtype == ir::ScalarType::Long || m.dtype == ir::ScalarType::Int) return Status::Ok();
  return shape_error(op, std::string(what) + " must be an int64 or int32 tensor, but it is " +
                             std::string(ir::scalar_type_name(m.dtype)));
}

/// Matrix products and convolutions need operands of one dtype.
Status require_same_dtype(const ops::OpSchema& op, const Meta& a, const Meta& b, const char* an, const char* bn) {
  if (a.dtype == b.dtype) return Status::Ok();
  return shape_error(op, "expected " + std::string(an) + " and " + bn + " to have the same dtype, but got " +
                             std::string(ir::scalar_type_name(a.dtype)) + " and " +
                             std::string(ir::scalar_type_name(b.dtype)));
}

/// Norm parameters (`names`, each optional) hold one value per channel:
/// 1-d with `channels` elements (compared when both are concrete).
Status require_per_channel(const ops::OpSchema& op, const ArgView& a, std::initializer_list<const char*> names,
                           const SymPoly& channels, const SymbolTable& st) {
  for (const char* per_channel : names) {
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> t, a.opt_meta(per_channel));
    if (t && (t->rank() != 1 || (t->sizes[0].is_constant() && channels.is_constant() &&
                                 t->sizes[0].value() != channels.value()))) {
      return shape_error(op, std::string(per_channel) + " of size " + shape_text(t->sizes, st) + " should have " +
                                 st.display(channels) + " elements, one per channel");
    }
  }
  return Status::Ok();
}

/// The largest stride, padding, dilation or kernel size the spatial rules
/// accept, so that their 128-bit arithmetic cannot overflow.
constexpr int64_t kMaxWindowParam = int64_t{1} << 30;

/// Checks one convolution/pooling parameter: `lo <= v <= 2^30`.
Status check_param(const ops::OpSchema& op, const char* what, int64_t v, int64_t lo) {
  if (v >= lo && v <= kMaxWindowParam) return Status::Ok();
  std::string range = lo == 0 ? "non-negative" : "positive";
  return shape_error(op, std::string(what) + " " + std::to_string(v) + " is out of range (it must be " + range +
                             " and at most 2^30)");
}

bool is_int_type(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::Byte:
    case ir::ScalarType::Char:
    case ir::ScalarType::Short:
    case ir::ScalarType::Int:
    case ir::ScalarType::Long:
    case ir::ScalarType::UInt16:
    case ir::ScalarType::UInt32:
    case ir::ScalarType::UInt64: return true;
    default: return false;
  }
}

bool is_complex_type(ir::ScalarType t) {
  return t == ir::ScalarType::ComplexHalf || t == ir::ScalarType::ComplexFloat || t == ir::ScalarType::ComplexDouble;
}

int category(ir::ScalarType t) {
  if (t == ir::ScalarType::Bool) return 0;
  if (is_int_type(t)) return 1;
  if (is_complex_type(t)) return 3;
  return 2;
}

int float_rank(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::Half:
    case ir::ScalarType::BFloat16: return 1;
    case ir::ScalarType::Float: return 2;
    case ir::ScalarType::Double: return 3;
    default: return 0;
  }
}

int int_rank(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::Byte:
    case ir::ScalarType::Char: return 1;
    case ir::ScalarType::Short: return 2;
    case ir::ScalarType::Int: return 3;
    case ir::ScalarType::Long: return 4;
    default: return 4;
  }
}

/// c10::promoteTypes for the types models use.
ir::ScalarType promote2(ir::ScalarType a, ir::ScalarType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) {
    if (ca > cb) return a;
    return b;
  }
  if (ca == 1) {
    if ((a == ir::ScalarType::Byte && b == ir::ScalarType::Char) ||
        (a == ir::ScalarType::Char && b == ir::ScalarType::Byte)) {
      return ir::ScalarType::Short;
    }
    return int_rank(a) >= int_rank(b) ? a : b;
  }
  if (ca == 2) {
    if (float_rank(a) == 1 && float_rank(b) == 1) return ir::ScalarType::Float;
    return float_rank(a) >= float_rank(b) ? a : b;
  }
  return a;
}

std::optional<ir::ScalarType> combine_categories(std::optional<ir::ScalarType> higher,
                                                 std::optional<ir::ScalarType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_complex_type(*higher)) return higher;
  if (category(*higher) == 2) return higher;
  if (*higher == ir::ScalarType::Bool || category(*lower) == 2 || is_complex_type(*lower)) {
    return promote2(*higher, *lower);
  }
  return higher;
}

bool hint_less(const SymPoly& a, const SymPoly& b, const SymbolTable& st) {
  if (a == b) return false;
  auto ha = st.hint(a), hb = st.hint(b);
  if (ha && hb) return *ha < *hb;
  return a.key() < b.key();
}

bool is_one(const SymPoly& p) { return p.is_constant() && p.value() == 1; }
bool is_zero(const SymPoly& p) { return p.is_constant() && p.value() == 0; }

/// Strides of an elementwise result of shape `shape` with inputs `ins` (TensorIterator
/// keeps the layout of the first full-shape input when it is dense and not contiguous).
std::vector<SymPoly> pointwise_strides(const std::vector<const Meta*>& ins, const std::vector<SymPoly>& shape,
                                       const SymbolTable& st) {
  for (const Meta* m : ins) {
    if (m->sizes != shape) continue;
    if (is_contiguous(*m)) return contiguous_strides(shape);
    if (is_dense(*m, st)) return strides_for_order(shape, dim_order(*m, st));
    return contiguous_strides(shape);
  }
  return contiguous_strides(shape);
}

/// Strides a "preserve_format" copy of `m` gets (clone, _to_copy, full_like).
std::vector<SymPoly> preserve_strides(const Meta& m, const SymbolTable& st) {
  if (is_contiguous(m)) return contiguous_strides(m.sizes);
  if (is_dense(m, st)) return strides_for_order(m.sizes, dim_order(m, st));
  return contiguous_strides(m.sizes);
}

Meta result(ir::ScalarType dtype, std::vector<SymPoly> sizes, std::vector<SymPoly> strides, bool requires_grad) {
  Meta m;
  m.dtype = dtype;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.requires_grad = requires_grad && ir::is_floating(dtype);
  return m;
}

bool any_grad(const std::vector<const Meta*>& ins) {
  for (const Meta* m : ins) {
    if (m->requires_grad) return true;
  }
  return false;
}

/// A spatial output length computed in 128 bits (sizes are int64 and the
/// stride/padding/dilation arguments are bounded by 2^30 before this, so the
/// arithmetic itself cannot overflow) as an int64; a shape error when it is
/// below 1 (PyTorch: "output size is too small") or past int64.
Result<int64_t> spatial_size(const ops::OpSchema& op, __int128 v, int64_t n) {
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
  if (v >= 1 && v <= kMax) return static_cast<int64_t>(v);
  if (v > kMax) {
    return shape_error(op, "calculated output size for input size " + std::to_string(n) + " is past int64");
  }
  const std::string shown = v < kMin ? "below -2^63" : std::to_string(static_cast<int64_t>(v));
  return shape_error(op, "calculated output size " + shown + " for input size " + std::to_string(n) +
                             " is too small (it must be at least 1)");
}

/// The padded input n + 2p must hold one window of extent d(k-1) + 1
/// (PyTorch's convolution check: "kernel size can't be greater than actual
/// input size").
Status window_fits(const ops::OpSchema& op, __int128 n, int64_t k, int64_t p, int64_t d) {
  const __int128 extent = static_cast<__int128>(d) * (static_cast<__int128>(k) - 1) + 1;
  if (n + 2 * static_cast<__int128>(p) >= extent) return Status::Ok();
  return shape_error(op, "the window (kernel size " + std::to_string(k) + ", dilation " + std::to_string(d) +
                             ") is larger than the padded input size " + std::to_string(static_cast<int64_t>(n)) +
                             " + 2*" + std::to_string(p));
}

/// Convolution output length (n + 2p - d(k-1) - 1) / s + 1 (s >= 1).
Result<SymPoly> conv_out(const ops::OpSchema& op, const SymPoly& n, int64_t k, int64_t s, int64_t p, int64_t d) {
  const __int128 reach = static_cast<__int128>(d) * (static_cast<__int128>(k) - 1) + 1;
  if (n.is_constant()) {
    PTEFORGE_TRY(window_fits(op, n.value(), k, p, d));
    const __int128 num = static_cast<__int128>(n.value()) + 2 * static_cast<__int128>(p) - reach;
    PTEFORGE_ASSIGN_OR_RETURN(int64_t out, spatial_size(op, num / s + 1, n.value()));
    return SymPoly(out);
  }
  // (n + 2p - d(k-1) - 1) / s + 1 with s == 1 stays a polynomial.
  const __int128 shift = 2 * static_cast<__int128>(p) - reach + 1;
  if (shift < std::numeric_limits<int64_t>::min() || shift > std::numeric_limits<int64_t>::max()) {
    return shape_error(op, "kernel extent past int64");
  }
  return n + SymPoly(static_cast<int64_t>(shift));
}

/// Pooling output length, as PyTorch's pooling_output_shape: floor or ceil
/// mode, and in ceil mode a last window that would start in the right padding
/// is dropped.
Result<int64_t> pool_out(const ops::OpSchema& op, int64_t n, int64_t k, int64_t s, int64_t p, int64_t d,
                         bool ceil_mode) {
  const __int128 num = static_cast<__int128>(n) + 2 * static_cast<__int128>(p) -
                       static_cast<__int128>(d) * (static_cast<__int128>(k) - 1) - 1 + (ceil_mode ? s - 1 : 0);
  const __int128 floor_div = num >= 0 ? num / s : -((-num + s - 1) / s);  // rounds down, as PyTorch's div_rtn
  __int128 out = floor_div + 1;
  if (ceil_mode && (out - 1) * s >= static_cast<__int128>(n) + p) --out;
  return spatial_size(op, out, n);
}

/// Transposed-convolution output length (n - 1)s - 2p + d(k-1) + output_padding + 1.
Result<int64_t> conv_transpose_out(const ops::OpSchema& op, int64_t n, int64_t k, int64_t s, int64_t p, int64_t d,
                                   int64_t out_pad) {
  if (out_pad < 0) return shape_error(op, "output_padding must be non-negative");
  // PyTorch: "output padding must be smaller than either stride or dilation".
  if (out_pad >= std::max(s, d)) {
    return shape_error(op, "output_padding " + std::to_string(out_pad) + " must be smaller than the stride (" +
                               std::to_string(s) + ") or the dilation (" + std::to_string(d) + ")");
  }
  const __int128 v = (static_cast<__int128>(n) - 1) * s - 2 * static_cast<__int128>(p) +
                     static_cast<__int128>(d) * (static_cast<__int128>(k) - 1) + out_pad + 1;
  return spatial_size(op, v, n);
}

std::vector<int64_t> expand_param(const std::vector<int64_t>& v, size_t n) {
  if (v.size() == 1 && n > 1) return std::vector<int64_t>(n, v[0]);
  return v;
}

}  // namespace

namespace {

/// Whether every atom of `p` is a plain symbol other than an unbacked one:
/// an identifier (export's backed size symbols are s0, s1, ...; hand-written
/// programs may name them batch, seq_len) not of the form u<digits> or
/// zuf<digits> (data-dependent sizes, whose equalities export may leave
/// to runtime asserts). Opaque atoms (FloorDiv(...), Max(...)) are not.
bool plain_symbols_only(const SymPoly& p) {
  auto digits_after = [](const std::string& a, size_t n) {
    if (a.size() <= n) return false;
    for (size_t i = n; i < a.size(); ++i) {
      if (a[i] < '0' || a[i] > '9') return false;
    }
    return true;
  };
  for (const auto& [mono, coef] : p.terms()) {
    for (const auto& a : mono) {
      if (a.empty() || (a[0] >= '0' && a[0] <= '9')) return false;
      for (char c : a) {
        const bool ident =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!ident) return false;
      }
      if ((a[0] == 'u' && digits_after(a, 1)) || (a.rfind("zuf", 0) == 0 && digits_after(a, 3))) return false;
    }
  }
  return true;
}

}  // namespace

bool same_sizes(const std::vector<SymPoly>& x, const std::vector<SymPoly>& y, const SymbolTable& st) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const SymPoly &a = x[i], &b = y[i];
    if (a == b) continue;
    if (a.is_constant() && b.is_constant()) return false;
    auto ha = st.hint(a), hb = st.hint(b);
    if (ha && hb && *ha != *hb) return false;
    // Two different polynomials over plain size symbols alone are different
    // sizes whatever the hints say: export replaces symbols it proves equal
    // (s1 == s0, s0 == 2*s1) throughout the program, so only opaque atoms
    // (FloorDiv, Max, ...) and unbacked symbols (u0) can hide an equality.
    if (plain_symbols_only(a) && plain_symbols_only(b)) return false;
  }
  return true;
}

bool same_dtype_and_sizes(const Meta& declared, const Meta& inferred, const SymbolTable& st) {
  return declared.dtype == inferred.dtype && same_sizes(declared.sizes, inferred.sizes, st);
}

std::string describe_meta(const Meta& m, const SymbolTable& st) {
  return std::string(ir::scalar_type_name(m.dtype)) + shape_text(m.sizes, st);
}

std::optional<std::pair<std::string, std::string>> declared_mismatch(const ir::TensorMeta& declared,
                                                                     const Meta& inferred, SymbolTable& st) {
  // The rules follow the CPU kernels (batch norm's eval statistics are empty
  // there, for one); results on other devices are not compared.
  if (declared.device.type != "cpu") return std::nullopt;
  Result<Meta> decl = st.to_meta(declared);
  if (!decl.ok()) return std::nullopt;  // an expression we cannot read: nothing to compare
  if (same_dtype_and_sizes(*decl, inferred, st)) return std::nullopt;
  return std::make_pair(describe_meta(*decl, st), describe_meta(inferred, st));
}

bool is_contiguous(const Meta& m) {
  SymPoly expected(1);
  for (size_t i = m.sizes.size(); i-- > 0;) {
    if (is_one(m.sizes[i])) continue;
    if (m.strides[i] != expected) return false;
    expected = expected * m.sizes[i];
  }
  return true;
}

std::vector<size_t> dim_order(const Meta& m, const SymbolTable& st) {
  std::vector<size_t> order(m.rank());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return hint_less(m.strides[b], m.strides[a], st);
  });
  return order;
}

bool is_dense(const Meta& m, const SymbolTable& st) {
  std::vector<size_t> order = dim_order(m, st);
  SymPoly expected(1);
  for (size_t k = order.size(); k-- > 0;) {
    size_t d = order[k];
    if (is_one(m.sizes[d])) continue;
    if (m.strides[d] != expected) return false;
    expected = expected * m.sizes[d];
  }
  return true;
}

Result<int64_t> normalize_dim(int64_t dim, size_t rank) {
  int64_t r = static_cast<int64_t>(rank == 0 ? 1 : rank);
  if (dim < -r || dim >= r) {
    return make_error(ErrorCode::INVALID_GRAPH,
                      "dimension " + std::to_string(dim) + " out of range for a " + std::to_string(rank) + "-d tensor");
  }
  return dim < 0 ? dim + r : dim;
}

namespace {

/// The sizes of a reduction over `dims` of `s` (PyTorch's reduction shape):
/// the reduced dimensions dropped, or kept as 1 with `keepdim`; no dims (an
/// empty list, or nullopt) reduce every dimension. Errors: INVALID_GRAPH for
/// a dim out of range or one given twice (require_distinct).
Result<std::vector<SymPoly>> reduce_sizes(const ops::OpSchema& op, const Meta& s,
                                          const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  std::vector<bool> reduced(s.rank(), !dims || dims->empty());
  std::vector<int64_t> seen;
  if (dims) {
    for (int64_t d : *dims) {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t nd, normalize_dim(d, s.rank()));
      if (!reduced.empty()) reduced[nd] = true;  // a 0-d tensor accepts dim 0 or -1
      seen.push_back(nd);
    }
  }
  PTEFORGE_TRY(require_distinct(op, seen));
  std::vector<SymPoly> sizes;
  for (size_t i = 0; i < s.rank(); ++i) {
    if (!reduced[i]) {
      sizes.push_back(s.sizes[i]);
    } else if (keepdim) {
      sizes.emplace_back(1);
    }
  }
  return sizes;
}

/// PyTorch's refusal of a max/min-style reduction with nothing to reduce
/// (zero_numel_check_dims, check_argmax_argmin): with no dims, an input of no
/// elements; else a reduced dim of size 0. Symbolic sizes are not checked.
Status check_nonempty_reduction(const ops::OpSchema& op, const Meta& s,
                                const std::optional<std::vector<int64_t>>& dims) {
  if (s.rank() == 0) return Status::Ok();  // one element
  if (!dims || dims->empty()) {
    for (const SymPoly& d : s.sizes) {
      if (is_zero(d))
        return shape_error(op, "expected a reduction dim to be given for an input with no elements");
    }
    return Status::Ok();
  }
  for (int64_t d : *dims) {
    PTEFORGE_ASSIGN_OR_RETURN(int64_t nd, normalize_dim(d, s.rank()));
    if (is_zero(s.sizes[static_cast<size_t>(nd)])) {
      return shape_error(op, "expected reduction dim " + std::to_string(nd) + " to have non-zero size");
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<NodeOutputMeta> pair_outputs(const ir::Node& node, size_t num_metas) {
  std::vector<NodeOutputMeta> out;
  const auto& outputs = node.outputs();
  if (outputs.size() == 1 && outputs[0].is<ir::ArgTag::Tensors>()) {
    const auto& list = outputs[0].get<ir::ArgTag::Tensors>();
    if (list.size() != num_metas) return {};
    for (size_t i = 0; i < list.size(); ++i) out.push_back({list[i].name, i});
    return out;
  }
  if (outputs.size() != num_metas) return {};
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].is_tensor()) out.push_back({outputs[i].tensor_name(), i});
  }
  return out;
}

Result<std::vector<SymPoly>> broadcast_shapes(const std::vector<std::vector<SymPoly>>& shapes,
                                              const SymbolTable* symbols) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<SymPoly> out(rank, SymPoly(1));
  for (size_t i = 0; i < rank; ++i) {
    for (const auto& s : shapes) {
      if (i + s.size() < rank) continue;
      const SymPoly& d = s[i + s.size() - rank];
      if (is_one(d)) continue;
      if (is_one(out[i])) {
        out[i] = d;
      } else if (out[i] != d) {
        std::string msg = "shapes";
        for (size_t k = 0; k < shapes.size(); ++k) msg += (k ? ", " : " ") + shape_text(shapes[k], symbols);
        return make_error(ErrorCode::INVALID_GRAPH, msg + " do not broadcast");
      }
    }
  }
  return out;
}

ir::ScalarType promote_types(const std::vector<const Meta*>& tensors, const std::vector<Number>& numbers) {
  std::optional<ir::ScalarType> dim, zero, wrapped;
  for (const Meta* m : tensors) {
    auto& slot = m->rank() > 0 ? dim : zero;
    slot = slot ? promote2(*slot, m->dtype) : m->dtype;
  }
  for (const Number& n : numbers) {
    ir::ScalarType t = n.kind == Number::Kind::Bool  ? ir::ScalarType::Bool
                       : n.kind == Number::Kind::Int ? ir::ScalarType::Long
                                                     : ir::ScalarType::Float;
    wrapped = wrapped ? promote2(*wrapped, t) : t;
  }
  auto r = combine_categories(dim, combine_categories(zero, wrapped));
  return r.value_or(ir::ScalarType::Float);
}

std::optional<std::vector<SymPoly>> view_strides(const std::vector<SymPoly>& sizes, const std::vector<SymPoly>& strides,
                                                 const std::vector<SymPoly>& new_sizes, const SymbolTable& st) {
  if (sizes.empty()) return contiguous_strides(new_sizes);
  SymPoly numel = product(sizes);
  if (numel.is_constant() && numel.value() == 0) {
    if (sizes == new_sizes) return strides;
    return contiguous_strides(new_sizes);
  }
  std::vector<SymPoly> out(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  SymPoly chunk_base = strides.back();
  SymPoly tensor_numel(1), view_numel(1);
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel = tensor_numel * sizes[d];
    if (d == 0 || (!is_one(sizes[d - 1]) && strides[d - 1] != tensor_numel * chunk_base)) {
      // view_numel < tensor_numel by the hints; without them, inequality (the
      // partial product only grows, so one that passes the chunk never matches).
      auto below = [&] {
        auto hv = st.hint(view_numel), ht = st.hint(tensor_numel);
        if (hv && ht) return *hv < *ht;
        return view_numel != tensor_numel;
      };
      while (view_d >= 0 && (below() || is_one(new_sizes[view_d]))) {
        out[view_d] = view_numel * chunk_base;
        view_numel = view_numel * new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base = strides[d - 1];
        tensor_numel = SymPoly(1);
        view_numel = SymPoly(1);
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

namespace {
Result<std::vector<Meta>> infer_meta_impl(const ops::OpSchema& op, const ArgView& a, const SymbolTable& st);
}  // namespace

Result<std::vector<Meta>> infer_meta(const ops::OpSchema& op, const ArgView& args, const SymbolTable& symbols) {
  Result<std::vector<Meta>> r = infer_meta_impl(op, args, symbols);
  if (r.ok()) return r;
  // Shared helpers (normalize_dim, ...) do not know the operator: name it.
  Error e = std::move(r).error();
  const std::string prefix = op.full_name() + ": ";
  if (e.message.rfind(prefix, 0) != 0 && e.message.rfind("argument \"", 0) != 0) e.message = prefix + e.message;
  return e;
}

namespace {

/// aten::slice.Tensor of `s` with the call's dim, start, end and step
/// arguments (slice and slice_scatter): the bounds clamped to the dimension
/// as PyTorch does, the length ceil((end - start) / step).
/// Errors: INVALID_GRAPH for a 0-d self, a bad dim or a step below 1;
/// UNSUPPORTED_FEATURE for symbolic bounds it cannot clamp.
Result<Meta> slice_meta(const ops::OpSchema& op, const ArgView& a, const Meta& s, const SymbolTable& st) {
  PTEFORGE_TRY(require_dims(op, s));
  PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
  PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, s.rank()));
  PTEFORGE_ASSIGN_OR_RETURN(std::optional<SymPoly> start, a.opt_sym("start"));
  PTEFORGE_ASSIGN_OR_RETURN(std::optional<SymPoly> end, a.opt_sym("end"));
  PTEFORGE_ASSIGN_OR_RETURN(int64_t step, a.int_("step"));
  if (step <= 0) return shape_error(op, "slice step must be positive");
  const SymPoly& n = s.sizes[d];
  SymPoly b = start.value_or(SymPoly(0));
  SymPoly e = end.value_or(n);
  auto clamp = [&](SymPoly v) -> std::optional<SymPoly> {
    if (v.is_constant() && n.is_constant()) {
      int64_t x = v.value(), len = n.value();
      if (x < 0) x += len;
      x = std::max<int64_t>(0, std::min(x, len));
      return SymPoly(x);
    }
    if (v.is_constant() && v.value() >= std::numeric_limits<int64_t>::max() / 4) return n;
    if (v.is_constant()) {
      // A constant bound on a symbolic size is compared with the size's
      // trace-time value (its symbols' hints), as PyTorch's kernel does when
      // export traces it: from the end on it is the size, below -size 0.
      if (std::optional<int64_t> h = st.hint(n)) {
        if (v.value() < 0) return saturating_add(*h, v.value()) < 0 ? SymPoly(0) : n + v;
        return v.value() >= *h ? n : v;
      }
    }
    if (v.is_constant() && v.value() < 0) return n + v;
    return v;
  };
  auto cb = clamp(b), ce = clamp(e);
  if (!cb || !ce) return limitation(op, "unsupported symbolic slice bounds");
  SymPoly len = *ce - *cb;
  if (len.is_constant()) {
    int64_t l = std::max<int64_t>(0, len.value());
    len = SymPoly(l == 0 ? 0 : (l - 1) / step + 1);  // ceil(l / step) without l + step overflowing
  } else if (step != 1) {
    return limitation(op, "symbolic slice with step != 1");
  }
  Meta m = s;
  m.sizes[d] = len;
  m.strides[d] = s.strides[d] * SymPoly(step);
  m.storage_offset = s.storage_offset + *cb * s.strides[d];
  return m;
}

/// aten::select.int of `s` with the call's dim and index arguments (select
/// and select_scatter): dimension dim removed. Errors: INVALID_GRAPH for a
/// 0-d self, a bad dim, or an index outside [-n, n) of a dimension of n
/// (when both are constants).
Result<Meta> select_meta(const ops::OpSchema& op, const ArgView& a, const Meta& s) {
  PTEFORGE_TRY(require_dims(op, s));
  PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
  PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, s.rank()));
  PTEFORGE_ASSIGN_OR_RETURN(SymPoly index, a.sym("index"));
  if (index.is_constant() && s.sizes[d].is_constant()) {
    const int64_t n = s.sizes[d].value(), i = index.value();
    if (i < -n || i >= n) {
      return shape_error(op, "index " + std::to_string(i) + " is out of range for dimension " + std::to_string(d) +
                                 " of size " + std::to_string(n));
    }
  }
  if (index.is_constant() && index.value() < 0) index = s.sizes[d] + index;
  Meta m = s;
  m.storage_offset = s.storage_offset + index * s.strides[d];
  m.sizes.erase(m.sizes.begin() + d);
  m.strides.erase(m.strides.begin() + d);
  return m;
}

/// The sizes of self[indices] (index.Tensor's result, and the part of self
/// index_put writes), as PyTorch's make_info lays them out: the broadcast
/// shape of the index tensors replaces the indexed dims when those are
/// adjacent, and goes in front otherwise. nullopt when an index is a boolean
/// mask (the count it selects depends on the data).
/// Errors: INVALID_GRAPH for an index that is not an integer tensor, more
/// indices than self has dims, or index shapes that do not broadcast.
Result<std::optional<std::vector<SymPoly>>> indexed_sizes(const ops::OpSchema& op, const ArgView& a,
                                                          const Meta& s) {
  PTEFORGE_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> idx, a.opt_tensors("indices"));
  std::vector<std::vector<SymPoly>> shapes;
  int first = -1, last = -1;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i]) continue;
    PTEFORGE_ASSIGN_OR_RETURN(Meta im, a.env_meta(*idx[i]));
    if (im.dtype == ir::ScalarType::Bool || im.dtype == ir::ScalarType::Byte) {
      return std::optional<std::vector<SymPoly>>();
    }
    PTEFORGE_TRY(require_index_dtype(op, im, "each index"));
    shapes.push_back(im.sizes);
    if (first < 0) first = static_cast<int>(i);
    last = static_cast<int>(i);
  }
  if (idx.size() > s.rank()) return shape_error(op, "too many indices");
  auto bshape_or = broadcast_shapes(shapes);
  if (!bshape_or.ok()) return shape_error(op, bshape_or.error().message);
  std::vector<SymPoly> bshape = std::move(bshape_or).value();
  bool adjacent = true;
  for (int i = first; i >= 0 && i <= last; ++i) adjacent = adjacent && idx[i].has_value();
  std::vector<SymPoly> sizes;
  if (first < 0) {
    sizes = s.sizes;
  } else if (adjacent) {
    sizes.assign(s.sizes.begin(), s.sizes.begin() + first);
    sizes.insert(sizes.end(), bshape.begin(), bshape.end());
    sizes.insert(sizes.end(), s.sizes.begin() + last + 1, s.sizes.end());
  } else {
    sizes = bshape;
    for (size_t i = 0; i < s.rank(); ++i) {
      if (i >= idx.size() || !idx[i]) sizes.push_back(s.sizes[i]);
    }
  }
  return std::optional<std::vector<SymPoly>>(std::move(sizes));
}

Result<std::vector<Meta>> infer_meta_impl(const ops::OpSchema& op, const ArgView& a, const SymbolTable& st) {
  const std::string& name = op.name;
  const std::string& ov = op.overload;
  auto one = [](Meta m) { return std::vector<Meta>{std::move(m)}; };

  // ---- size queries: no tensor result, but the dimension must exist ---------------------------
  if ((name == "sym_size" || name == "sym_stride") && ov == "int") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    if (s.rank() == 0) {
      return make_error(ErrorCode::INVALID_GRAPH, "dimension " + std::to_string(dim) + " of a 0-d tensor");
    }
    PTEFORGE_TRY(normalize_dim(dim, s.rank()));
    return std::vector<Meta>{};
  }

  // ---- views -------------------------------------------------------------------------------
  if (name == "view" || name == "_unsafe_view") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> size, a.syms("size"));
    SymPoly known(1);
    int infer_at = -1;
    for (size_t i = 0; i < size.size(); ++i) {
      if (size[i].is_constant() && size[i].value() < -1) {
        return shape_error(op, "invalid size " + std::to_string(size[i].value()) + " in " + shape_text(size, st));
      }
      if (size[i].is_constant() && size[i].value() == -1) {
        if (infer_at >= 0) return shape_error(op, "only one dimension can be inferred (-1) in " + shape_text(size, st));
        infer_at = static_cast<int>(i);
      } else {
        known = known * size[i];
      }
    }
    if (infer_at >= 0) {
      if (known.is_constant() && known.value() == 0) {
        return shape_error(op, "cannot view a tensor of " + st.display(s.numel()) + " elements as " +
                                   shape_text(size, st) + ": the -1 could be any size");
      }
      auto q = s.numel().div_exact(known);
      if (!q) return shape_error(op, "cannot infer the -1 size of " + shape_text(size, st));
      size[infer_at] = *q;
    }
    if (product(size) != s.numel()) {
      return shape_error(op, "a view of " + shape_text(s.sizes, st) + " (" + st.display(s.numel()) + " elements) as " +
                                 shape_text(size, st) + " (" + st.display(product(size)) +
                                 " elements) changes the number of elements");
    }
    auto strides = view_strides(s.sizes, s.strides, size, st);
    if (!strides) {
      if (name == "view") return shape_error(op, "view of a layout that needs a copy");
      strides = contiguous_strides(size);
    }
    Meta m = s;
    m.sizes = size;
    m.strides = *strides;
    return one(m);
  }
  if (name == "permute") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, a.ints("dims"));
    if (dims.size() != s.rank()) return shape_error(op, "dims must name every dimension");
    Meta m = s;
    std::vector<int64_t> seen;
    for (size_t i = 0; i < dims.size(); ++i) {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dims[i], s.rank()));
      seen.push_back(d);
      m.sizes[i] = s.sizes[d];
      m.strides[i] = s.strides[d];
    }
    PTEFORGE_TRY(require_distinct(op, seen));
    return one(m);
  }
  if (name == "expand") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> size, a.syms("size"));
    if (size.size() < s.rank()) return shape_error(op, "expand to fewer dimensions");
    size_t lead = size.size() - s.rank();
    for (size_t i = 0; i < size.size(); ++i) {
      if (!size[i].is_constant()) continue;
      const int64_t v = size[i].value();
      if (v == -1 && i < lead) {
        return shape_error(op, "-1 is not allowed in a new leading dimension (" + shape_text(size, st) + ")");
      }
      if (v < -1) return shape_error(op, "invalid size " + std::to_string(v) + " in " + shape_text(size, st));
    }
    Meta m = s;
    m.sizes = size;
    m.strides.assign(size.size(), SymPoly(0));
    for (size_t i = lead; i < size.size(); ++i) {
      const SymPoly& old = s.sizes[i - lead];
      if ((size[i].is_constant() && size[i].value() == -1) || size[i] == old) {
        m.sizes[i] = old;
        m.strides[i] = s.strides[i - lead];
      } else if (!is_one(old)) {
        return shape_error(op, "cannot expand a dimension of size " + st.display(old));
      }
    }
    return one(m);
  }
  if (name == "repeat") {  // a contiguous copy: each (left-padded) size times its repeat count
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> repeats, a.syms("repeats"));
    if (repeats.size() < s.rank()) {
      return shape_error(
          op, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    }
    std::vector<SymPoly> sizes(repeats.size(), SymPoly(1));
    const size_t lead = repeats.size() - s.rank();
    for (size_t i = 0; i < repeats.size(); ++i)
      sizes[i] = i < lead ? repeats[i] : s.sizes[i - lead] * repeats[i];
    // ATen's repeat makes its result with at::empty(target sizes), which refuses a negative one.
    for (const SymPoly& d : sizes) {
      if (d.is_constant() && d.value() < 0) {
        return shape_error(op, "Trying to create tensor with negative dimension " +
                                   std::to_string(d.value()) + ": " + shape_text(sizes, st));
      }
    }
    return one(result(s.dtype, sizes, contiguous_strides(sizes), s.requires_grad));
  }
  if (name == "unsqueeze") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, s.rank() + 1));
    Meta m = s;
    SymPoly stride = static_cast<size_t>(d) >= s.rank() ? SymPoly(1) : s.strides[d] * s.sizes[d];
    m.sizes.insert(m.sizes.begin() + d, SymPoly(1));
    m.strides.insert(m.strides.begin() + d, stride);
    return one(m);
  }
  if (name == "squeeze") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    std::vector<int64_t> dims;
    if (ov == "dims") {
      PTEFORGE_ASSIGN_OR_RETURN(dims, a.ints("dim"));
    } else if (ov == "dim") {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t d, a.int_("dim"));
      dims.push_back(d);
    } else {
      for (size_t i = 0; i < s.rank(); ++i) dims.push_back(static_cast<int64_t>(i));
    }
    std::vector<bool> drop(s.rank(), false);
    for (int64_t d : dims) {
      // A 0-d tensor takes dim 0 or -1 (maybe_wrap_dim counts it as one dim).
      PTEFORGE_ASSIGN_OR_RETURN(int64_t nd, normalize_dim(d, s.rank()));
      if (s.rank() > 0 && is_one(s.sizes[nd])) drop[nd] = true;
    }
    Meta m = s;
    m.sizes.clear();
    m.strides.clear();
    for (size_t i = 0; i < s.rank(); ++i) {
      if (drop[i]) continue;
      m.sizes.push_back(s.sizes[i]);
      m.strides.push_back(s.strides[i]);
    }
    return one(m);
  }
  if (name == "slice" && ov == "Tensor") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta m, slice_meta(op, a, s, st));
    return one(m);
  }
  if (name == "select" && ov == "int") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta m, select_meta(op, a, s));
    return one(m);
  }
  if (name == "alias") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    return one(s);
  }
  if (name == "split_with_sizes") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_TRY(require_dims(op, s));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> parts, a.syms("split_sizes"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, s.rank()));
    SymPoly total(0);
    for (const auto& p : parts) {
      if (p.is_constant() && p.value() < 0) {
        return shape_error(op, "split size " + std::to_string(p.value()) + " is negative");
      }
      total = total + p;
    }
    if (total.is_constant() && s.sizes[d].is_constant() && total.value() != s.sizes[d].value()) {
      return shape_error(op, "split sizes " + shape_text(parts, st) + " add up to " + st.display(total) +
                                 ", not to the size " + st.display(s.sizes[d]) + " of dimension " + std::to_string(d));
    }
    std::vector<Meta> out;
    SymPoly offset = s.storage_offset;
    for (const auto& p : parts) {
      Meta m = s;
      m.sizes[d] = p;
      m.storage_offset = offset;
      offset = offset + p * s.strides[d];
      out.push_back(m);
    }
    return out;
  }

  // ---- creation ----------------------------------------------------------------------------
  if (name == "full") {
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> size, a.syms("size"));
    PTEFORGE_ASSIGN_OR_RETURN(Number fill, a.number("fill_value"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    ir::ScalarType t = dt ? *dt : promote_types({}, {fill});
    return one(result(t, size, contiguous_strides(size), false));
  }
  if (name == "new_full") {  // self's dtype unless one is given
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> size, a.syms("size"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    return one(result(dt.value_or(s.dtype), size, contiguous_strides(size), false));
  }
  if (name == "full_like") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::MemoryFormat> mf, a.memory_format("memory_format"));
    auto strides = (mf && *mf == ir::MemoryFormat::ContiguousFormat) ? contiguous_strides(s.sizes)
                                                                     : preserve_strides(s, st);
    return one(result(dt.value_or(s.dtype), s.sizes, strides, false));
  }
  if (name == "scalar_tensor") {
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    return one(result(dt.value_or(ir::ScalarType::Float), {}, {}, false));
  }
  if (name == "arange" && ov == "start_step") {
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    auto start_p = a.sym("start");
    auto end_p = a.sym("end");
    auto step_p = a.sym("step");
    if (start_p.ok() && end_p.ok() && step_p.ok() && step_p->is_constant() && step_p->value() == 1 &&
        !(start_p->is_constant() && end_p->is_constant())) {
      // Symbolic bounds with step 1: length end - start, integer result.
      SymPoly len = *end_p - *start_p;
      return one(result(dt.value_or(ir::ScalarType::Long), {len}, {SymPoly(1)}, false));
    }
    PTEFORGE_ASSIGN_OR_RETURN(Number start, a.number("start"));
    PTEFORGE_ASSIGN_OR_RETURN(Number end, a.number("end"));
    PTEFORGE_ASSIGN_OR_RETURN(Number step, a.number("step"));
    bool any_float = start.is_float() || end.is_float() || step.is_float();
    ir::ScalarType t = dt ? *dt : (any_float ? ir::ScalarType::Float : ir::ScalarType::Long);
    double xstart = start.as_double(), xend = end.as_double(), xstep = step.as_double();
    if (is_int_type(t)) {
      // torch._refs.arange: for an integer dtype the bounds and the step are
      // truncated first (so arange(0, 5.5, 1.5, dtype=int64) has 5 elements);
      // a bound past int64 does not convert.
      for (double v : {xstart, xend, xstep}) {
        if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18)) {
          return shape_error(op, "a bound or step is past the range of int64");
        }
      }
      xstart = std::trunc(xstart);
      xend = std::trunc(xend);
      xstep = std::trunc(xstep);
    }
    if (xstep == 0.0) return shape_error(op, "step must be nonzero");
    const double len = (xend - xstart) / xstep;
    if (!(len > -1e15 && len < 1e15)) return shape_error(op, "invalid arange bounds");
    if (len < 0) return shape_error(op, "the upper bound and the lower bound are inconsistent with the step sign");
    int64_t n = static_cast<int64_t>(len);
    if (static_cast<double>(n) < len) ++n;
    return one(result(t, {SymPoly(n)}, {SymPoly(1)}, false));
  }
  if (name == "ones" || name == "zeros") {
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> size, a.syms("size"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    return one(result(dt.value_or(ir::ScalarType::Float), size, contiguous_strides(size), false));
  }
  if (name == "tril" || name == "triu") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    return one(result(s.dtype, s.sizes, contiguous_strides(s.sizes), s.requires_grad));
  }
  if (name == "index" && ov == "Tensor") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<std::vector<SymPoly>> sizes, indexed_sizes(op, a, s));
    if (!sizes) return limitation(op, "boolean mask indexing has a data-dependent shape");
    return one(result(s.dtype, *sizes, contiguous_strides(*sizes), s.requires_grad));
  }

  // ---- elementwise ---------------------------------------------------------------------------
  static const char* const kFloatUnary[] = {"sigmoid", "tanh", "exp",   "log",   "sqrt",  "rsqrt",     "sin",
                                            "cos",     "erf",  "gelu",  "expm1", "log1p", "exp2",      "acos",
                                            "asin",    "atan", "acosh", "asinh", "atanh", "reciprocal"};
  static const char* const kSameUnary[] = {"relu",        "neg",  "abs",   "hardtanh", "clamp", "leaky_relu",
                                           "elu",         "sign", "floor", "ceil",     "round", "trunc",
                                           "bitwise_not", "fill", "clone", "flip",     "roll",  "softplus"};
  static const char* const kBoolUnary[] = {"logical_not", "isnan", "isinf"};
  auto in_list = [&](const char* const* list, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (name == list[i]) return true;
    }
    return false;
  };
  bool float_unary = in_list(kFloatUnary, std::size(kFloatUnary));
  bool same_unary = in_list(kSameUnary, std::size(kSameUnary));
  bool bool_unary = in_list(kBoolUnary, std::size(kBoolUnary));
  if ((float_unary || same_unary || bool_unary) && !(name == "clamp" && ov == "Tensor")) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    ir::ScalarType t = s.dtype;
    if (float_unary && (is_int_type(t) || t == ir::ScalarType::Bool)) t = ir::ScalarType::Float;
    if (bool_unary) t = ir::ScalarType::Bool;
    if (name == "bitwise_not" && !is_int_type(t) && t != ir::ScalarType::Bool) {
      return shape_error(op, "is not implemented for " + std::string(ir::scalar_type_name(t)) + " tensors");
    }
    if (name == "gelu") {  // PyTorch's get_gelutype: "none" or "tanh"
      PTEFORGE_ASSIGN_OR_RETURN(std::string approximate, a.str("approximate"));
      if (approximate != "none" && approximate != "tanh") {
        return shape_error(op, "approximate must be 'none' or 'tanh', not " + single_quoted(approximate));
      }
    }
    if (name == "neg" && t == ir::ScalarType::Bool) {
      return shape_error(op, "negation of a bool tensor is not supported (use logical_not)");
    }
    if (name == "clamp" && !ir::is_floating(t)) {
      // PyTorch's clamp meta: Scalar bounds take part in type promotion (an int
      // tensor clamped to 0.5 becomes float).
      std::vector<Number> bounds;
      for (const char* slot : {"min", "max"}) {
        if (a.is_none(slot)) continue;
        PTEFORGE_ASSIGN_OR_RETURN(Number n, a.number(slot));
        bounds.push_back(n);
      }
      t = promote_types({&s}, bounds);
    }
    std::vector<SymPoly> strides = pointwise_strides({&s}, s.sizes, st);
    if (name == "clone") {
      PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::MemoryFormat> mf, a.memory_format("memory_format"));
      strides = (mf && *mf == ir::MemoryFormat::ContiguousFormat) ? contiguous_strides(s.sizes)
                                                                  : preserve_strides(s, st);
    }
    return one(result(t, s.sizes, strides, s.requires_grad));
  }
  if (name == "_prelu_kernel") {  // empty_like(self); weight (same dtype) broadcasts over self
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta w, a.meta("weight"));
    if (w.dtype != s.dtype) return shape_error(op, "self and weight must have the same dtype");
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> shape, broadcast_shapes({s.sizes, w.sizes}, &st));
    if (!same_sizes(shape, s.sizes, st)) return shape_error(op, "weight does not broadcast over self");
    return one(result(s.dtype, s.sizes, preserve_strides(s, st), s.requires_grad));
  }
  if (name == "native_dropout") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("input"));
    auto strides = preserve_strides(s, st);
    return std::vector<Meta>{result(s.dtype, s.sizes, strides, s.requires_grad),
                             result(ir::ScalarType::Bool, s.sizes, strides, false)};
  }
  static const char* const kBinary[] = {"add",     "sub",         "mul",        "div",         "pow",
                                        "maximum", "minimum",     "remainder",  "fmod",        "atan2",
                                        "xlogy",   "bitwise_and", "bitwise_or", "bitwise_xor", "rsub"};
  static const char* const kCompare[] = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                                         "logical_xor"};
  bool binary = in_list(kBinary, std::size(kBinary));
  bool compare = in_list(kCompare, std::size(kCompare));
  if (binary || compare || name == "where" || (name == "clamp" && ov == "Tensor") || name == "masked_fill") {
    std::vector<const char*> slots;
    if (name == "where") {
      slots = {"condition", "self", "other"};
    } else if (name == "clamp") {
      slots = {"self", "min", "max"};
    } else if (name == "masked_fill") {
      slots = {"self", "mask", "value"};
    } else if (name == "pow") {
      slots = {"self", "exponent"};
    } else {
      slots = {"self", "other"};
    }
    std::vector<Meta> metas;
    std::vector<Number> numbers;
    std::vector<std::vector<SymPoly>> shapes;
    metas.reserve(slots.size());
    for (const char* slot : slots) {
      const ir::Argument* arg = a.find(slot);
      if (!arg || arg->is_none()) continue;
      if (arg->is_tensor() || arg->is<ir::ArgTag::OptionalTensor>()) {
        PTEFORGE_ASSIGN_OR_RETURN(Meta m, a.meta(slot));
        metas.push_back(std::move(m));
      } else {
        PTEFORGE_ASSIGN_OR_RETURN(Number n, a.number(slot));
        numbers.push_back(n);
      }
    }
    if (name == "masked_fill" && metas.size() >= 2 && metas[1].dtype != ir::ScalarType::Bool) {
      // at::masked_fill_'s check ("only supports boolean masks").
      return shape_error(op, "only supports boolean masks, but mask is " +
                                 std::string(ir::scalar_type_name(metas[1].dtype)));
    }
    if (name == "masked_fill" && metas.size() == 3 && metas[2].rank() != 0) {
      return shape_error(
          op, "only supports a 0-d value tensor, but value is of size " + shape_text(metas[2].sizes, st));
    }
    std::vector<const Meta*> ptrs;
    for (size_t i = 0; i < metas.size(); ++i) {
      ptrs.push_back(&metas[i]);
      // masked_fill's result is self expanded to the broadcast of self and
      // mask (at::masked_fill's expand_outplace); its value is 0-d (above).
      if (name != "masked_fill" || i < 2) shapes.push_back(metas[i].sizes);
    }
    auto shape_or = broadcast_shapes(shapes, &st);
    if (!shape_or.ok()) return shape_error(op, shape_or.error().message);
    std::vector<SymPoly> shape = std::move(shape_or).value();
    ir::ScalarType t;
    if (name == "where") {
      std::vector<const Meta*> vals(ptrs.begin() + 1, ptrs.end());
      t = promote_types(vals, numbers);
    } else if (name == "masked_fill") {
      t = metas[0].dtype;
    } else {
      t = promote_types(ptrs, numbers);
    }
    if (name == "where" && metas[0].dtype != ir::ScalarType::Bool && metas[0].dtype != ir::ScalarType::Byte) {
      return shape_error(op, "expected the condition to be a boolean tensor, but it is " +
                                 std::string(ir::scalar_type_name(metas[0].dtype)));
    }
    if (name == "sub" || name == "rsub") {
      // PyTorch's sub_check: a bool on either side is refused.
      bool any_bool = false;
      for (const Meta& m : metas) any_bool = any_bool || m.dtype == ir::ScalarType::Bool;
      for (const Number& n : numbers) any_bool = any_bool || n.kind == Number::Kind::Bool;
      if (any_bool) {
        return shape_error(op, "subtraction with a bool operand is not supported (use logical_xor or logical_not)");
      }
    }
    if (name.rfind("bitwise_", 0) == 0 && !is_int_type(t) && t != ir::ScalarType::Bool) {
      return shape_error(op, "is not implemented for " + std::string(ir::scalar_type_name(t)) + " operands");
    }
    if ((name == "add" || name == "sub" || name == "rsub") && a.passed("alpha") && !a.is_none("alpha")) {
      // PyTorch's alpha_check on the result dtype.
      PTEFORGE_ASSIGN_OR_RETURN(Number alpha, a.number("alpha"));
      if (alpha.kind == Number::Kind::Bool && t != ir::ScalarType::Bool) {
        return shape_error(op, "Boolean alpha only supported for Boolean results.");
      }
      if ((is_int_type(t) || t == ir::ScalarType::Bool) && alpha.is_float()) {
        return shape_error(op,
                           "For integral input tensors, argument alpha must not be a floating point number.");
      }
    }
    if (compare) t = ir::ScalarType::Bool;
    // True division (div without a rounding mode, or with rounding_mode=None),
    // atan2 and xlogy (emitted by kl_div) compute in floating point: integer
    // operands give the default float.
    bool float_result = name == "atan2" || name == "xlogy";
    if (name == "div") {
      const ir::Argument* mode = a.find("rounding_mode");
      float_result = !mode || mode->is_none();
      if (!float_result) {  // PyTorch's div: None, 'trunc' or 'floor'
        PTEFORGE_ASSIGN_OR_RETURN(std::string rounding, a.str("rounding_mode"));
        if (rounding != "trunc" && rounding != "floor") {
          return shape_error(
              op, "rounding_mode must be None, 'trunc' or 'floor', not " + single_quoted(rounding));
        }
      }
    }
    if (float_result && (is_int_type(t) || t == ir::ScalarType::Bool)) t = ir::ScalarType::Float;
    if (name == "pow" && ov == "Tensor_Scalar" && is_int_type(t) && !numbers.empty() && numbers[0].is_float()) {
      t = ir::ScalarType::Float;
    }
    // at::masked_fill clones the expanded self with a contiguous layout.
    std::vector<SymPoly> strides =
        name == "masked_fill" ? contiguous_strides(shape) : pointwise_strides(ptrs, shape, st);
    return one(result(t, shape, strides, any_grad(ptrs)));
  }
  if (name == "copy") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta src, a.meta("src"));
    // copy_ broadcasts src to self's shape.
    auto expanded = broadcast_shapes({src.sizes, s.sizes}, &st);
    if (src.rank() > s.rank() || !expanded.ok() || *expanded != s.sizes) {
      return shape_error(op, "src of size " + shape_text(src.sizes, st) + " cannot be broadcast to self's size " +
                                 shape_text(s.sizes, st));
    }
    return one(result(s.dtype, s.sizes, preserve_strides(s, st), s.requires_grad || src.requires_grad));
  }
  if (name == "_to_copy") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::MemoryFormat> mf, a.memory_format("memory_format"));
    auto strides = (mf && *mf == ir::MemoryFormat::ContiguousFormat) ? contiguous_strides(s.sizes)
                                                                     : preserve_strides(s, st);
    return one(result(dt.value_or(s.dtype), s.sizes, strides, s.requires_grad));
  }

  // ---- reductions ----------------------------------------------------------------------------
  if ((name == "var" || name == "std") && ov == "correction") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    if (!ir::is_floating(s.dtype) && !is_complex_type(s.dtype)) {
      return shape_error(op, "needs a floating-point input, but it is " + std::string(ir::scalar_type_name(s.dtype)));
    }
    // The variance of complex values is real.
    const ir::ScalarType var_t = s.dtype == ir::ScalarType::ComplexHalf     ? ir::ScalarType::Half
                                 : s.dtype == ir::ScalarType::ComplexFloat  ? ir::ScalarType::Float
                                 : s.dtype == ir::ScalarType::ComplexDouble ? ir::ScalarType::Double
                                                                             : s.dtype;
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, a.opt_ints("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(bool keepdim, a.bool_("keepdim"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> sizes, reduce_sizes(op, s, dims, keepdim));
    return one(result(var_t, sizes, contiguous_strides(sizes), s.requires_grad));
  }
  // mean.default / sum.default reduce every dimension to a 0-d result.
  if ((name == "mean" || name == "sum") &&
      (ov == "dim" || ov == "dim_IntList" || ov == "default" || ov.empty())) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    std::vector<SymPoly> sizes;
    if (ov == "dim" || ov == "dim_IntList") {
      PTEFORGE_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, a.opt_ints("dim"));
      PTEFORGE_ASSIGN_OR_RETURN(bool keepdim, a.bool_("keepdim"));
      PTEFORGE_ASSIGN_OR_RETURN(sizes, reduce_sizes(op, s, dims, keepdim));
    }
    ir::ScalarType t = dt.value_or(s.dtype);
    if (name == "sum" && !dt && (is_int_type(t) || t == ir::ScalarType::Bool)) t = ir::ScalarType::Long;
    if (name == "mean" && !ir::is_floating(t) && !is_complex_type(t)) {
      return shape_error(op, "could not infer the output dtype: the input must be floating point or complex, or a "
                             "dtype given, but it is " + std::string(ir::scalar_type_name(t)));
    }
    return one(result(t, sizes, contiguous_strides(sizes), s.requires_grad));
  }
  if (name == "any" && ov == "dims") {
    // any.dims: the listed dims (None or [] → every dim) reduced; uint8 stays uint8, else bool.
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, a.opt_ints("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(bool keepdim, a.bool_("keepdim"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> sizes, reduce_sizes(op, s, dims, keepdim));
    const ir::ScalarType t = s.dtype == ir::ScalarType::Byte ? ir::ScalarType::Byte : ir::ScalarType::Bool;
    return one(result(t, sizes, contiguous_strides(sizes), false));
  }
  if ((name == "any" && ov == "dim") || ((name == "amax" || name == "amin") && (ov == "default" || ov.empty()))) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    std::vector<int64_t> dims;
    if (name == "any") {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t d, a.int_("dim"));
      dims.push_back(d);
    } else {
      PTEFORGE_ASSIGN_OR_RETURN(dims, a.ints("dim"));
    }
    PTEFORGE_ASSIGN_OR_RETURN(bool keepdim, a.bool_("keepdim"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> sizes, reduce_sizes(op, s, dims, keepdim));
    if (name != "any") PTEFORGE_TRY(check_nonempty_reduction(op, s, dims));
    // any keeps uint8 (PyTorch's get_result_or_bytebool_dtype); every other input gives bool.
    ir::ScalarType t = name != "any" ? s.dtype : s.dtype == ir::ScalarType::Byte ? ir::ScalarType::Byte : ir::ScalarType::Bool;
    return one(result(t, sizes, contiguous_strides(sizes), s.requires_grad));
  }

  // Values with their indices (Long): along one dimension, reduced (max.dim,
  // min.dim), cut to k (topk) or kept (sort); argmax / argmin give the indices only.
  if (((name == "max" || name == "min") && ov == "dim") ||
      ((name == "argmax" || name == "argmin") && (ov.empty() || ov == "default"))) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    std::optional<int64_t> dim;
    if (name == "max" || name == "min") {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t d, a.int_("dim"));
      dim = d;
    } else {
      PTEFORGE_ASSIGN_OR_RETURN(dim, a.opt_int("dim"));
    }
    PTEFORGE_ASSIGN_OR_RETURN(bool keepdim, a.bool_("keepdim"));
    // No dim (argmax / argmin): over every dimension.
    const std::optional<std::vector<int64_t>> dims =
        dim ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{*dim}) : std::nullopt;
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> sizes, reduce_sizes(op, s, dims, keepdim));
    PTEFORGE_TRY(check_nonempty_reduction(op, s, dims));
    Meta indices = result(ir::ScalarType::Long, sizes, contiguous_strides(sizes), false);
    if (name == "argmax" || name == "argmin") return one(std::move(indices));
    return std::vector<Meta>{result(s.dtype, sizes, contiguous_strides(sizes), s.requires_grad),
                             std::move(indices)};
  }
  if ((name == "topk" && (ov.empty() || ov == "default")) ||
      (name == "sort" && (ov.empty() || ov == "default" || ov == "stable"))) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t nd, normalize_dim(dim, s.rank()));
    std::vector<SymPoly> sizes = s.sizes;
    if (name == "topk") {
      PTEFORGE_ASSIGN_OR_RETURN(SymPoly k, a.sym("k"));
      const SymPoly size = s.rank() == 0 ? SymPoly(1) : s.sizes[static_cast<size_t>(nd)];
      if (k.is_constant() && size.is_constant() && (k.constant() < 0 || k.constant() > size.constant())) {
        return shape_error(op, "k (" + std::to_string(k.constant()) + ") is out of range for dimension " +
                                   std::to_string(dim) + " of size " + std::to_string(size.constant()));
      }
      if (s.rank() > 0) sizes[static_cast<size_t>(nd)] = k;
    }
    return std::vector<Meta>{result(s.dtype, sizes, contiguous_strides(sizes), s.requires_grad),
                             result(ir::ScalarType::Long, sizes, contiguous_strides(sizes), false)};
  }
  if ((name == "cumsum" || name == "cumprod") && (ov.empty() || ov == "default")) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_TRY(normalize_dim(dim, s.rank()));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<ir::ScalarType> dt, a.dtype("dtype"));
    // Integral and bool inputs accumulate in Long unless a dtype is given.
    ir::ScalarType t = dt.value_or(s.dtype);
    if (!dt && (is_int_type(t) || t == ir::ScalarType::Bool)) t = ir::ScalarType::Long;
    return one(result(t, s.sizes, contiguous_strides(s.sizes), s.requires_grad));
  }

  // ---- linear algebra ------------------------------------------------------------------------
  if (name == "mm" || name == "addmm") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta m1, a.meta(name == "mm" ? "self" : "mat1"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta m2, a.meta("mat2"));
    if (m1.rank() != 2 || m2.rank() != 2 || m1.sizes[1] != m2.sizes[0]) {
      return shape_error(op, "mat1 and mat2 shapes cannot be multiplied (" + shape_text(m1.sizes, st) + " and " +
                                 shape_text(m2.sizes, st) + ")");
    }
    PTEFORGE_TRY(require_same_dtype(op, m1, m2, "mat1", "mat2"));
    std::vector<SymPoly> sizes{m1.sizes[0], m2.sizes[1]};
    std::vector<const Meta*> ins{&m1, &m2};
    Meta bias;
    if (name == "addmm") {
      PTEFORGE_ASSIGN_OR_RETURN(bias, a.meta("self"));
      PTEFORGE_TRY(require_same_dtype(op, bias, m1, "self", "mat1"));
      auto expanded = broadcast_shapes({bias.sizes, sizes}, &st);
      if (bias.rank() > 2 || !expanded.ok() || *expanded != sizes) {
        return shape_error(op, "self of size " + shape_text(bias.sizes, st) + " cannot be expanded to the result size " +
                                   shape_text(sizes, st));
      }
      ins.push_back(&bias);
    }
    return one(result(m1.dtype, sizes, contiguous_strides(sizes), any_grad(ins)));
  }
  if (name == "linear") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("input"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta w, a.meta("weight"));
    if (x.rank() == 0 || w.rank() == 0 || w.rank() > 2) {  // at::native::linear's checks
      return shape_error(
          op, "both arguments to linear need to be at least 1-d, and the weight at most 2-d (got " +
                  std::to_string(x.rank()) + "-d and " + std::to_string(w.rank()) + "-d)");
    }
    std::vector<SymPoly> sizes(x.sizes.begin(), x.sizes.end() - 1);
    if (w.rank() == 2) sizes.push_back(w.sizes[0]);
    return one(result(x.dtype, sizes, contiguous_strides(sizes), x.requires_grad || w.requires_grad));
  }
  if (name == "matmul") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta y, a.meta("other"));
    if (x.rank() == 0 || y.rank() == 0) return shape_error(op, "0-d operand");
    std::vector<SymPoly> bx(x.sizes.begin(), x.sizes.end() - std::min<size_t>(2, x.rank()));
    std::vector<SymPoly> by(y.sizes.begin(), y.sizes.end() - std::min<size_t>(2, y.rank()));
    auto sizes_or = broadcast_shapes({bx, by}, &st);
    if (!sizes_or.ok()) return shape_error(op, sizes_or.error().message);
    std::vector<SymPoly> sizes = std::move(sizes_or).value();
    if (x.rank() > 1) sizes.push_back(x.sizes[x.rank() - 2]);
    if (y.rank() > 1) sizes.push_back(y.sizes.back());
    return one(result(x.dtype, sizes, contiguous_strides(sizes), x.requires_grad || y.requires_grad));
  }
  if (name == "dot" || name == "mv") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta y, a.meta(name == "dot" ? "tensor" : "vec"));
    if (name == "dot" ? x.rank() != 1 || y.rank() != 1 : x.rank() != 2 || y.rank() != 1) {
      return shape_error(op, name == "dot" ? "1-d tensors expected, but got " + std::to_string(x.rank()) +
                                                 "-d and " + std::to_string(y.rank()) + "-d"
                                           : "a 2-d matrix and a 1-d vector expected, but got " +
                                                 std::to_string(x.rank()) + "-d and " +
                                                 std::to_string(y.rank()) + "-d");
    }
    std::vector<SymPoly> sizes;
    if (name == "mv") sizes.push_back(x.sizes[0]);
    return one(result(x.dtype, sizes, contiguous_strides(sizes), x.requires_grad || y.requires_grad));
  }
  if (name == "bmm") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta y, a.meta("mat2"));
    if (x.rank() != 3 || y.rank() != 3 || x.sizes[0] != y.sizes[0] || x.sizes[2] != y.sizes[1]) {
      return shape_error(op, "batch shapes " + shape_text(x.sizes, st) + " and " + shape_text(y.sizes, st) +
                                 " cannot be multiplied");
    }
    PTEFORGE_TRY(require_same_dtype(op, x, y, "self", "mat2"));
    std::vector<SymPoly> sizes{x.sizes[0], x.sizes[1], y.sizes[2]};
    return one(result(x.dtype, sizes, contiguous_strides(sizes), x.requires_grad || y.requires_grad));
  }

  // ---- convolution, pooling ------------------------------------------------------------------
  if (name == "convolution") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("input"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta w, a.meta("weight"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> b, a.opt_meta("bias"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> stride, a.ints("stride"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> padding, a.ints("padding"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, a.ints("dilation"));
    PTEFORGE_ASSIGN_OR_RETURN(bool transposed, a.bool_("transposed"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, a.ints("output_padding"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t groups, a.int_("groups"));
    if (x.rank() < 3 || w.rank() != x.rank()) {
      return shape_error(op, "expected a " + std::to_string(w.rank()) + "-d input for the " +
                                 std::to_string(w.rank()) + "-d weight of size " + shape_text(w.sizes, st) +
                                 ", but got input of size " + shape_text(x.sizes, st));
    }
    size_t nsp = x.rank() - 2;
    stride = expand_param(stride, nsp);
    padding = expand_param(padding, nsp);
    dilation = expand_param(dilation, nsp);
    out_pad = expand_param(out_pad, nsp);
    if (stride.size() != nsp || padding.size() != nsp || dilation.size() != nsp) {
      return shape_error(op, "stride/padding/dilation do not match the spatial rank");
    }
    for (size_t i = 0; i < nsp; ++i) {
      PTEFORGE_TRY(check_param(op, "stride", stride[i], 1));
      PTEFORGE_TRY(check_param(op, "padding", padding[i], 0));
      PTEFORGE_TRY(check_param(op, "dilation", dilation[i], 1));
    }
    if (groups <= 0) return shape_error(op, "groups " + std::to_string(groups) + " must be positive");
    PTEFORGE_TRY(require_same_dtype(op, x, w, "input", "weight"));
    if (b) PTEFORGE_TRY(require_same_dtype(op, x, *b, "input", "bias"));
    // PyTorch's check_shape_forward: channel counts of input, weight and bias (checked when concrete).
    const SymPoly& w_out = w.sizes[0];
    if (w_out.is_constant() && (w_out.value() < groups || w_out.value() % groups != 0)) {
      return shape_error(op, "given groups=" + std::to_string(groups) + ", the weight of size " +
                                 shape_text(w.sizes, st) + " must have a multiple of " + std::to_string(groups) +
                                 " at dimension 0");
    }
    const SymPoly& x_ch = x.sizes[1];
    const SymPoly w_ch = transposed ? w.sizes[0] : w.sizes[1] * SymPoly(groups);
    if (x_ch.is_constant() && w_ch.is_constant() && x_ch.value() != w_ch.value()) {
      return shape_error(op, "given groups=" + std::to_string(groups) + ", weight of size " + shape_text(w.sizes, st) +
                                 ", expected input of size " + shape_text(x.sizes, st) + " to have " +
                                 st.display(w_ch) + " channels, but it has " + st.display(x_ch));
    }
    if (b) {
      const SymPoly out_ch = transposed ? w.sizes[1] * SymPoly(groups) : w.sizes[0];
      if (b->rank() != 1 || (b->sizes[0].is_constant() && out_ch.is_constant() &&
                             b->sizes[0].value() != out_ch.value())) {
        return shape_error(op, "given weight of size " + shape_text(w.sizes, st) + ", expected a 1-d bias of " +
                                   st.display(out_ch) + " elements, but got bias of size " +
                                   shape_text(b->sizes, st));
      }
    }
    std::vector<SymPoly> sizes{x.sizes[0]};
    if (transposed) {
      sizes.push_back(w.sizes[1] * SymPoly(groups));
    } else {
      sizes.push_back(w.sizes[0]);
    }
    for (size_t i = 0; i < nsp; ++i) {
      const SymPoly& n = x.sizes[2 + i];
      if (!w.sizes[2 + i].is_constant()) return limitation(op, "symbolic kernel size");
      int64_t k = w.sizes[2 + i].value();
      if (transposed) {
        int64_t op_i = out_pad.size() > i ? out_pad[i] : 0;
        if (!n.is_constant()) return limitation(op, "symbolic transposed-convolution input size");
        PTEFORGE_ASSIGN_OR_RETURN(int64_t len,
                                  conv_transpose_out(op, n.value(), k, stride[i], padding[i], dilation[i], op_i));
        sizes.emplace_back(len);
      } else {
        if (!n.is_constant() && stride[i] != 1) return limitation(op, "symbolic spatial size with stride > 1");
        PTEFORGE_ASSIGN_OR_RETURN(SymPoly len, conv_out(op, n, k, stride[i], padding[i], dilation[i]));
        sizes.push_back(std::move(len));
      }
    }
    std::vector<const Meta*> ins{&x, &w};
    if (b) ins.push_back(&*b);
    // Channels-last input (or weight) gives a channels-last result (suggest_memory_format).
    std::vector<SymPoly> strides = contiguous_strides(sizes);
    if (!is_contiguous(x) && is_dense(x, st) && x.rank() >= 4) {
      Meta probe = x;
      probe.sizes = sizes;
      strides = strides_for_order(sizes, dim_order(x, st));
    }
    return one(result(x.dtype, sizes, strides, any_grad(ins)));
  }
  if (name == "max_pool2d_with_indices" || name == "avg_pool2d" || name == "max_pool3d_with_indices") {
    // max_pool3d_with_indices: the same rule over 3 spatial dims (4-d or 5-d input).
    const bool three = name == "max_pool3d_with_indices";
    const size_t nsp = three ? 3 : 2;
    const bool with_indices = name != "avg_pool2d";
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> k, a.ints("kernel_size"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> s, a.ints("stride"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<int64_t> p, a.ints("padding"));
    std::vector<int64_t> d(nsp, 1);
    if (with_indices) {
      PTEFORGE_ASSIGN_OR_RETURN(d, a.ints("dilation"));
    }
    PTEFORGE_ASSIGN_OR_RETURN(bool ceil_mode, a.bool_("ceil_mode"));
    k = expand_param(k, nsp);
    s = s.empty() ? k : expand_param(s, nsp);
    p = expand_param(p, nsp);
    d = expand_param(d, nsp);
    if (x.rank() < nsp + 1 || x.rank() > nsp + 2 || k.size() != nsp || s.size() != nsp || p.size() != nsp ||
        d.size() != nsp) {
      return shape_error(op, three ? "expects a 4-d or 5-d input and 3-element parameters"
                                   : "expects a 3-d or 4-d input and 2-element parameters");
    }
    for (size_t i = 0; i < nsp; ++i) {
      PTEFORGE_TRY(check_param(op, "kernel size", k[i], 1));
      PTEFORGE_TRY(check_param(op, "stride", s[i], 1));
      PTEFORGE_TRY(check_param(op, "padding", p[i], 0));
      PTEFORGE_TRY(check_param(op, "dilation", d[i], 1));
      // PyTorch's pool2d_shape_check: the padding is at most half the kernel size.
      if (p[i] > k[i] / 2) {
        return shape_error(op, "padding " + std::to_string(p[i]) + " is more than half the kernel size " +
                                   std::to_string(k[i]));
      }
    }
    std::vector<SymPoly> sizes(x.sizes.begin(), x.sizes.end() - static_cast<std::ptrdiff_t>(nsp));
    for (size_t i = 0; i < nsp; ++i) {
      const SymPoly& n = x.sizes[x.rank() - nsp + i];
      if (!n.is_constant()) return limitation(op, "symbolic spatial size");
      PTEFORGE_ASSIGN_OR_RETURN(int64_t len, pool_out(op, n.value(), k[i], s[i], p[i], d[i], ceil_mode));
      sizes.emplace_back(len);
    }
    auto strides = pointwise_strides({&x}, x.sizes, st);
    Meta shaped = x;
    shaped.sizes = sizes;
    shaped.strides = contiguous_strides(sizes);
    if (!is_contiguous(x) && is_dense(x, st)) shaped.strides = strides_for_order(sizes, dim_order(x, st));
    std::vector<Meta> out{result(x.dtype, sizes, shaped.strides, x.requires_grad)};
    if (with_indices) out.push_back(result(ir::ScalarType::Long, sizes, shaped.strides, false));
    return out;
  }
  if (name == "_adaptive_avg_pool2d") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> osz, a.syms("output_size"));
    if (x.rank() < 3 || osz.size() != 2) return shape_error(op, "expects a 3-d or 4-d input and 2 output sizes");
    std::vector<SymPoly> sizes(x.sizes.begin(), x.sizes.end() - 2);
    sizes.insert(sizes.end(), osz.begin(), osz.end());
    std::vector<SymPoly> strides = contiguous_strides(sizes);
    if (!is_contiguous(x) && is_dense(x, st)) strides = strides_for_order(sizes, dim_order(x, st));
    return one(result(x.dtype, sizes, strides, x.requires_grad));
  }
  if (name == "constant_pad_nd" || name.rfind("reflection_pad", 0) == 0 || name.rfind("replication_pad", 0) == 0) {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> pad, a.syms(name == "constant_pad_nd" ? "pad" : "padding"));
    if (pad.size() % 2 != 0 || pad.size() / 2 > x.rank()) return shape_error(op, "bad padding length");
    std::vector<SymPoly> sizes = x.sizes;
    const bool reflection = name.rfind("reflection_pad", 0) == 0;
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      size_t d = x.rank() - 1 - i;
      const SymPoly &lo = pad[2 * i], &hi = pad[2 * i + 1];
      if (sizes[d].is_constant() && lo.is_constant() && hi.is_constant()) {
        const __int128 n = sizes[d].value(), padded = n + lo.value() + hi.value();
        if (padded < 0 || padded > std::numeric_limits<int64_t>::max()) {
          return shape_error(op, "padding dimension " + std::to_string(d) + " of size " + std::to_string(sizes[d].value()) +
                                     " by (" + std::to_string(lo.value()) + ", " + std::to_string(hi.value()) + ") gives " +
                                     (padded < 0 ? std::string("a negative size") : std::string("a size past int64")));
        }
        if (reflection && (lo.value() >= sizes[d].value() || hi.value() >= sizes[d].value())) {
          return shape_error(op, "reflection padding (" + std::to_string(lo.value()) + ", " + std::to_string(hi.value()) +
                                     ") must be smaller than the size " + std::to_string(sizes[d].value()) +
                                     " of dimension " + std::to_string(d));
        }
      }
      sizes[d] = sizes[d] + lo + hi;
    }
    return one(result(x.dtype, sizes, contiguous_strides(sizes), x.requires_grad));
  }

  // ---- normalization, softmax ----------------------------------------------------------------
  if (name == "_native_batch_norm_legit_no_training") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("input"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> w, a.opt_meta("weight"));
    if (x.rank() < 2) return shape_error(op, "expects at least a 2-d input");
    // Channels are dimension 1.
    PTEFORGE_TRY(require_per_channel(op, a, {"weight", "bias", "running_mean", "running_var"}, x.sizes[1], st));
    bool grad = x.requires_grad || (w && w->requires_grad);
    // On CPU the saved mean / invstd of the eval kernel are empty [0] tensors.
    return std::vector<Meta>{result(x.dtype, x.sizes, preserve_strides(x, st), grad),
                             result(x.dtype, {SymPoly(0)}, {SymPoly(1)}, false),
                             result(x.dtype, {SymPoly(0)}, {SymPoly(1)}, false)};
  }
  if (name == "_native_batch_norm_legit") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("input"));
    PTEFORGE_ASSIGN_OR_RETURN(bool training, a.bool_("training"));
    if (x.rank() < 2) return shape_error(op, "expects at least a 2-d input");
    // Training computes per-channel statistics; eval on CPU returns empty [0] tensors.
    std::vector<SymPoly> stat{training ? x.sizes[1] : SymPoly(0)};
    return std::vector<Meta>{result(x.dtype, x.sizes, preserve_strides(x, st), x.requires_grad),
                             result(x.dtype, stat, {SymPoly(1)}, false), result(x.dtype, stat, {SymPoly(1)}, false)};
  }
  if (name == "log_sigmoid_forward") {
    // Emitted by log_sigmoid (then decomposed): (output, buffer), both self's shape on CPU.
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    return std::vector<Meta>{result(s.dtype, s.sizes, contiguous_strides(s.sizes), s.requires_grad),
                             result(s.dtype, s.sizes, contiguous_strides(s.sizes), false)};
  }
  if (name == "nll_loss_forward") {
    // Emitted by nll_loss / nll_loss_nd / cross_entropy_loss (then decomposed itself):
    // (output, total_weight), both of self's dtype; the output is [N] for reduction none
    // of a 2-d self, else 0-d (the nll_loss_forward rule checks the operands).
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t reduction, a.int_("reduction"));
    std::vector<SymPoly> out;
    if (reduction == 0 && s.rank() == 2) out.push_back(s.sizes[0]);
    return std::vector<Meta>{result(s.dtype, out, contiguous_strides(out), s.requires_grad),
                             result(s.dtype, {}, {}, false)};
  }
  if (name == "nll_loss2d_forward") {
    // Emitted by nll_loss2d / nll_loss_nd / cross_entropy_loss (then decomposed itself):
    // (output, total_weight) of self's dtype; the output is [N, H, W] for reduction none of
    // self [N, C, H, W], else 0-d. The operands are checked as ATen's kernels check them
    // (nll_loss2d_operand_error).
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta t, a.meta("target"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> w, a.opt_meta("weight"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t reduction, a.int_("reduction"));
    if (std::optional<std::string> bad = nll_loss2d_operand_error(s, t, w, st)) return shape_error(op, *bad);
    std::vector<SymPoly> out;
    if (reduction == 0) out = {s.sizes[0], s.sizes[2], s.sizes[3]};
    return std::vector<Meta>{result(s.dtype, out, contiguous_strides(out), s.requires_grad),
                             result(s.dtype, {}, {}, false)};
  }
  if (name == "native_layer_norm") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("input"));
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<SymPoly> ns, a.syms("normalized_shape"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> w, a.opt_meta("weight"));
    if (ns.size() > x.rank()) return shape_error(op, "normalized_shape longer than the input rank");
    size_t axis = x.rank() - ns.size();
    for (size_t i = 0; i < ns.size(); ++i) {
      if (x.sizes[axis + i] != ns[i]) return shape_error(op, "normalized_shape does not match the input");
    }
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> bias, a.opt_meta("bias"));
    for (const std::optional<Meta>* affine : {&w, &bias}) {
      if (*affine && (*affine)->sizes != ns) {
        return shape_error(op, std::string(affine == &w ? "weight" : "bias") + " of size " +
                                   shape_text((*affine)->sizes, st) + " does not match normalized_shape " +
                                   shape_text(ns, st));
      }
    }
    std::vector<SymPoly> stat(x.sizes.begin(), x.sizes.begin() + axis);
    stat.resize(x.rank(), SymPoly(1));
    bool grad = x.requires_grad || (w && w->requires_grad);
    return std::vector<Meta>{result(x.dtype, x.sizes, contiguous_strides(x.sizes), grad),
                             result(x.dtype, stat, contiguous_strides(stat), false),
                             result(x.dtype, stat, contiguous_strides(stat), false)};
  }
  if (name == "_weight_norm_interface") {
    // (v's shape, the norm: size 1 except at dim; float32 for a bfloat16 g, else g's dtype).
    PTEFORGE_ASSIGN_OR_RETURN(Meta v, a.meta("v"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta g, a.meta("g"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    if (v.rank() != g.rank()) return shape_error(op, "v and g must have the same number of dimensions");
    std::vector<SymPoly> ns(v.rank(), SymPoly(1));
    if (dim >= 0 && dim < static_cast<int64_t>(v.rank()))
      ns[static_cast<size_t>(dim)] = v.sizes[static_cast<size_t>(dim)];
    const ir::ScalarType nt = g.dtype == ir::ScalarType::BFloat16 ? ir::ScalarType::Float : g.dtype;
    return std::vector<Meta>{
        result(v.dtype, v.sizes, contiguous_strides(v.sizes), v.requires_grad || g.requires_grad),
        result(nt, ns, contiguous_strides(ns), false)};
  }
  if (name == "native_group_norm") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta x, a.meta("input"));
    PTEFORGE_ASSIGN_OR_RETURN(SymPoly n, a.sym("N"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t g, a.int_("group"));
    PTEFORGE_ASSIGN_OR_RETURN(std::optional<Meta> w, a.opt_meta("weight"));
    PTEFORGE_ASSIGN_OR_RETURN(SymPoly c, a.sym("C"));
    if (g <= 0) return shape_error(op, "group " + std::to_string(g) + " must be positive");
    if (c.is_constant() && c.value() % g != 0) {
      return shape_error(op, "expected the number of channels " + std::to_string(c.value()) +
                                 " to be divisible by the number of groups " + std::to_string(g));
    }
    PTEFORGE_TRY(require_per_channel(op, a, {"weight", "bias"}, c, st));
    std::vector<SymPoly> stat{n, SymPoly(g)};
    bool grad = x.requires_grad || (w && w->requires_grad);
    return std::vector<Meta>{result(x.dtype, x.sizes, preserve_strides(x, st), grad),
                             result(x.dtype, stat, contiguous_strides(stat), false),
                             result(x.dtype, stat, contiguous_strides(stat), false)};
  }
  if (name == "_softmax" || name == "_log_softmax") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_TRY(normalize_dim(dim, s.rank()));
    PTEFORGE_ASSIGN_OR_RETURN(bool half_to_float, a.bool_("half_to_float"));
    ir::ScalarType t = half_to_float ? ir::ScalarType::Float : s.dtype;
    return one(result(t, s.sizes, pointwise_strides({&s}, s.sizes, st), s.requires_grad));
  }

  // ---- joining, indexing ---------------------------------------------------------------------
  if (name == "cat") {
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<Meta> metas, a.metas("tensors"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    if (metas.empty()) return shape_error(op, "expected a non-empty list of tensors");
    std::vector<const Meta*> all, used;
    for (size_t i = 0; i < metas.size(); ++i) {
      const Meta& m = metas[i];
      if (m.rank() == 0) {
        return shape_error(op, "zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
      }
      all.push_back(&m);
      // Legacy rule: 1-d empty tensors are skipped (but still take part in type promotion).
      if (m.rank() == 1 && m.sizes[0].is_constant() && m.sizes[0].value() == 0) continue;
      used.push_back(&m);
    }
    const ir::ScalarType cat_dtype = promote_types(all, {});
    if (used.empty()) return one(result(cat_dtype, {SymPoly(0)}, {SymPoly(1)}, false));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, used[0]->rank()));
    std::vector<SymPoly> sizes = used[0]->sizes;
    sizes[d] = SymPoly(0);
    for (const Meta* m : used) {
      if (m->rank() != sizes.size()) return shape_error(op, "tensors must have the same rank");
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (static_cast<int64_t>(i) != d && m->sizes[i] != sizes[i]) return shape_error(op, "sizes must match except in the cat dimension");
      }
      sizes[d] = sizes[d] + m->sizes[d];
    }
    std::vector<SymPoly> strides = contiguous_strides(sizes);
    bool same_order = true;
    std::vector<size_t> order = dim_order(*used[0], st);
    for (const Meta* m : used) {
      if (!is_dense(*m, st) || dim_order(*m, st) != order) same_order = false;
    }
    if (same_order && !is_contiguous(*used[0])) strides = strides_for_order(sizes, order);
    return one(result(cat_dtype, sizes, strides, any_grad(used)));
  }
  if (name == "index_put" || name == "slice_scatter" || name == "select_scatter") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    std::string other = name == "index_put" ? "values" : "src";
    PTEFORGE_ASSIGN_OR_RETURN(Meta v, a.meta(other));
    // src must be exactly the slice (or the selected part) of self: PyTorch's
    // kernels check it (torch.export traces them) and so do ExecuTorch's
    // slice_scatter / select_scatter kernels, which never broadcast src.
    // Sizes are compared as declared metadata is (same_sizes).
    if (name == "slice_scatter") {
      PTEFORGE_ASSIGN_OR_RETURN(Meta slice, slice_meta(op, a, s, st));
      if (!same_sizes(v.sizes, slice.sizes, st)) {
        return shape_error(op, "src of size " + shape_text(v.sizes, st) +
                                   " is not the size of the slice of self, " + shape_text(slice.sizes, st));
      }
    } else if (name == "select_scatter") {
      PTEFORGE_ASSIGN_OR_RETURN(Meta plane, select_meta(op, a, s));
      if (!same_sizes(v.sizes, plane.sizes, st)) {
        return shape_error(op, "src of size " + shape_text(v.sizes, st) +
                                   " is not the size of the selected part of self, " + shape_text(plane.sizes, st));
      }
    } else if (name == "index_put") {
      // values must broadcast to self[indices], PyTorch's "shape mismatch"
      // check in index_put_ (make_index_put_iterator, is_expandable_to).
      // A boolean mask index selects a data-dependent count: not checked.
      PTEFORGE_ASSIGN_OR_RETURN(std::optional<std::vector<SymPoly>> target, indexed_sizes(op, a, s));
      if (target) {
        auto expanded = broadcast_shapes({v.sizes, *target}, &st);
        if (v.rank() > target->size() || !expanded.ok() || *expanded != *target) {
          return shape_error(op, "shape mismatch: values of size " + shape_text(v.sizes, st) +
                                     " cannot be broadcast to the indexing result of size " +
                                     shape_text(*target, st));
        }
        // make_index_put_iterator's second check (a bool mask may go to masked_fill_ instead).
        if (v.dtype != s.dtype) {
          return shape_error(op, "values must have self's dtype " +
                                     std::string(ir::scalar_type_name(s.dtype)) + ", but they are " +
                                     std::string(ir::scalar_type_name(v.dtype)));
        }
      }
    }
    return one(result(s.dtype, s.sizes, preserve_strides(s, st), s.requires_grad || v.requires_grad));
  }
  if (name == "gather") {
    // Emitted by nll_loss_forward: index's sizes in self's dtype.
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta idx, a.meta("index"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, s.rank()));
    (void)d;
    // torch's gather (and ExecuTorch's kernel) take int64 indices only.
    if (idx.dtype != ir::ScalarType::Long) {
      return shape_error(op, "gather(): Expected dtype int64 for index, but it is " +
                                 std::string(ir::scalar_type_name(idx.dtype)));
    }
    if (idx.rank() != s.rank() && !(s.rank() == 0 && idx.rank() <= 1)) {
      return shape_error(
          op, "index must have as many dimensions as self, but it is " + shape_text(idx.sizes, st));
    }
    return one(result(s.dtype, idx.sizes, contiguous_strides(idx.sizes), s.requires_grad));
  }
  if (name == "diagonal_copy") {
    // Emitted by trace (at::native::diag): the dims other than dim1 and dim2, then the
    // diagonal's length. Symbolic sizes only where the length is known (offset 0, equal sizes).
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t offset, a.int_("offset"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim1, a.int_("dim1"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim2, a.int_("dim2"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d1, normalize_dim(dim1, s.rank()));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d2, normalize_dim(dim2, s.rank()));
    if (s.rank() < 2 || d1 == d2)
      return shape_error(op, "diagonal dimensions cannot be identical or missing");
    const SymPoly& n1 = s.sizes[static_cast<size_t>(d1)];
    const SymPoly& n2 = s.sizes[static_cast<size_t>(d2)];
    SymPoly length(0);
    if (n1.is_constant() && n2.is_constant()) {
      int64_t rows = n1.value() - (offset < 0 ? -offset : 0);
      int64_t cols = n2.value() - (offset > 0 ? offset : 0);
      length = SymPoly(std::max<int64_t>(0, std::min(rows, cols)));
    } else if (offset == 0 && n1 == n2) {
      length = n1;
    } else {
      return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                        op.full_name() + ": the diagonal of symbolic sizes " + shape_text(s.sizes, st));
    }
    std::vector<SymPoly> sizes;
    for (size_t i = 0; i < s.rank(); ++i) {
      if (static_cast<int64_t>(i) != d1 && static_cast<int64_t>(i) != d2) sizes.push_back(s.sizes[i]);
    }
    sizes.push_back(length);
    return one(result(s.dtype, sizes, contiguous_strides(sizes), s.requires_grad));
  }
  if (name == "index_copy") {
    // Emitted by index_fill and decomposed in turn into index_put: self's metadata, as
    // index_put gives it.
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta src, a.meta("source"));
    return one(result(s.dtype, s.sizes, preserve_strides(s, st), s.requires_grad || src.requires_grad));
  }
  if (name == "index_select") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta s, a.meta("self"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t dim, a.int_("dim"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta idx, a.meta("index"));
    PTEFORGE_ASSIGN_OR_RETURN(int64_t d, normalize_dim(dim, s.rank()));
    PTEFORGE_TRY(require_index_dtype(op, idx, "index"));
    if (idx.rank() > 1) return shape_error(op, "index must be 0-d or 1-d, but it is " + shape_text(idx.sizes, st));
    std::vector<SymPoly> sizes = s.sizes;
    if (!sizes.empty()) sizes[d] = idx.numel();
    return one(result(s.dtype, sizes, contiguous_strides(sizes), s.requires_grad));
  }
  if (name == "embedding") {
    PTEFORGE_ASSIGN_OR_RETURN(Meta w, a.meta("weight"));
    PTEFORGE_ASSIGN_OR_RETURN(Meta idx, a.meta("indices"));
    if (w.rank() != 2) return shape_error(op, "weight must be 2-d");
    PTEFORGE_TRY(require_index_dtype(op, idx, "indices"));
    std::vector<SymPoly> sizes = idx.sizes;
    sizes.push_back(w.sizes[1]);
    return one(result(w.dtype, sizes, contiguous_strides(sizes), w.requires_grad));
  }
  return make_error(ErrorCode::UNSUPPORTED_OPERATOR,
                    "internal: no shape rule for " + op.full_name() + " (decompositions may not emit it)");
}

}  // namespace

}  // namespace pteforge::passes::decomp
