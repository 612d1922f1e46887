// Shape and view ops: flatten, reshape and friends, contiguous, chunk/split/unbind,
// stack, movedim, narrow, detach.
#include <numeric>

#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

/// at::native::flatten(x, start, end): a 0-d input becomes reshape([1]); start == end is
/// the input itself; else reshape(sizes[:start] + [prod(start..end)] + sizes[end+1:]) (view
/// on a viewable layout, clone + view otherwise).
std::string flatten(Rewriter& rw, const std::string& x, int64_t start, int64_t end) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  if (m.rank() == 0) return reshape(rw, x, {SymPoly(1)});
  int64_t s = rw.take(normalize_dim(start, m.rank()));
  int64_t e = rw.take(normalize_dim(end, m.rank()));
  if (!rw.ok()) return {};
  if (s > e) {
    rw.fail(ErrorCode::INVALID_GRAPH, "flatten() has invalid args: start_dim cannot come after end_dim");
    return {};
  }
  if (s == e) return x;
  std::vector<SymPoly> shape(m.sizes.begin(), m.sizes.begin() + s);
  shape.push_back(product(std::vector<SymPoly>(m.sizes.begin() + s, m.sizes.begin() + e + 1)));
  shape.insert(shape.end(), m.sizes.begin() + e + 1, m.sizes.end());
  return reshape(rw, x, shape);
}

/// aten.flatten.using_ints → at::native::flatten (see flatten()).
void flatten_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t start = rw.int_("start_dim");
  int64_t end = rw.int_("end_dim");
  if (!rw.ok()) return;
  rw.set_outputs({flatten(rw, x, start, end)});
}

/// aten.reshape.default → at::native::reshape_symint: view when computeStride finds a
/// view, else clone(memory_format=contiguous_format) + _unsafe_view (→ view).
void reshape_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto shape = rw.syms("shape");
  if (!rw.ok()) return;
  rw.set_outputs({reshape(rw, x, shape)});
}

/// aten._reshape_alias.default / aten._unsafe_view.default → view(self, size)
/// (torch._decomp _reshape_alias / _unsafe_view).
void view_size_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto size = rw.syms("size");
  if (!rw.ok()) return;
  rw.set_outputs({view(rw, x, size)});
}

/// aten.view_as.default → self.view(other.sizes).
void view_as_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta o = rw.meta(rw.tensor("other"));
  if (!rw.ok()) return;
  rw.set_outputs({view(rw, x, o.sizes)});
}

/// aten.reshape_as.default → self.reshape(other.sizes).
void reshape_as_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta o = rw.meta(rw.tensor("other"));
  if (!rw.ok()) return;
  rw.set_outputs({reshape(rw, x, o.sizes)});
}

/// aten.expand_as.default → torch._decomp expand_as: self.expand(other.shape).
void expand_as_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta o = rw.meta(rw.tensor("other"));
  if (!rw.ok()) return;
  rw.set_outputs({expand(rw, x, o.sizes)});
}

/// aten.contiguous.default → at::native::contiguous: the input itself when already in
/// the requested memory format, else clone(memory_format=...).
void contiguous_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto mf = rw.memory_format("memory_format");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  ir::MemoryFormat f = mf.value_or(ir::MemoryFormat::ContiguousFormat);
  bool already = false;
  if (f == ir::MemoryFormat::ContiguousFormat || f == ir::MemoryFormat::PreserveFormat) {
    already = is_contiguous(m);
  } else if (is_dense(m, rw.symbols())) {
    auto order = dim_order(m, rw.symbols());
    already = (f == ir::MemoryFormat::ChannelsLast && order == std::vector<size_t>{0, 2, 3, 1}) ||
              (f == ir::MemoryFormat::ChannelsLast3d && order == std::vector<size_t>{0, 2, 3, 4, 1});
  }
  if (already) {
    rw.set_outputs({x});
    return;
  }
  rw.set_outputs({clone(rw, x, f)});
}

/// aten.unflatten.int → at::native unflatten: view with dim replaced by `sizes`
/// (a -1 inferred from the dimension's size).
void unflatten_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  auto sizes = rw.syms("sizes");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return;
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
    auto q = m.sizes[d].div_exact(known);
    if (!q) {
      rw.fail(ErrorCode::INVALID_GRAPH, "unflatten: cannot infer the -1 size");
      return;
    }
    sizes[infer_at] = *q;
  }
  std::vector<SymPoly> shape(m.sizes.begin(), m.sizes.begin() + d);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), m.sizes.begin() + d + 1, m.sizes.end());
  rw.set_outputs({view(rw, x, shape)});
}

/// aten.squeeze.default → torch._decomp squeeze_default: squeeze.dims(self, all dims).
void squeeze_all_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  std::vector<int64_t> dims(m.rank());
  std::iota(dims.begin(), dims.end(), 0);
  rw.set_outputs({squeeze_dims(rw, x, dims)});
}

/// aten.squeeze.dim → torch._decomp squeeze_default: squeeze.dims(self, [dim]) (dim as given).
/// squeeze.dim is Core ATen, but core_aten_decompositions() lists it, so run_decompositions()
/// rewrites x.squeeze(d) and ExecuTorch's .pte calls squeeze_copy.dims_out.
void squeeze_dim_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  rw.set_outputs({squeeze_dims(rw, x, {dim})});
}

void set_list_outputs(Rewriter& rw, const std::vector<std::string>& outs, const char* what) {
  if (!rw.ok()) return;
  if (outs.size() != rw.node().output_names().size()) {
    rw.fail(ErrorCode::INVALID_GRAPH, std::string(what) + " produces " + std::to_string(outs.size()) +
                                          " tensors but the node has " +
                                          std::to_string(rw.node().output_names().size()) + " outputs");
    return;
  }
  rw.set_outputs(outs);
}

/// aten.chunk.default / unsafe_chunk → at::native::chunk: split(ceil(size / chunks), dim)
/// → torch._decomp split.Tensor → split_with_sizes.
void chunk_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t chunks = rw.int_("chunks");
  int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  set_list_outputs(rw, chunk(rw, x, chunks, dim), "chunk");
}

/// aten.split.Tensor / unsafe_split.Tensor → torch._decomp split: split_with_sizes with
/// ceil(size / split_size) pieces, the last one shorter.
void split_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  SymPoly size = rw.sym("split_size");
  int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  if (!size.is_constant()) {
    rw.unsupported("symbolic split size");
    return;
  }
  set_list_outputs(rw, split(rw, x, size.value(), dim), "split");
}

/// aten.split.sizes / unsafe_split_with_sizes → split_with_sizes(self, sizes, dim).
void split_sizes_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string_view name = rw.args().find("split_size") ? "split_size" : "split_sizes";
  auto sizes = rw.syms(name);
  int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  auto outs = rw.call_list("aten.split_with_sizes.default", {ir::arg_tensor(x), rw.sizes(sizes), ir::arg_int(dim)});
  if (!rw.ok()) return;
  rw.set_outputs(outs);
}

/// aten.unbind.int → torch._refs unbind: tensor_split into size(dim) slices
/// (slice.Tensor(x, dim, i, i + 1)), then squeeze(dim) each (→ squeeze.dims [dim]).
void unbind_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  set_list_outputs(rw, unbind(rw, x, dim), "unbind");
}

/// aten.tensor_split.sections / tensor_split.indices → at::native::tensor_split
/// (TensorShape.cpp): slices of self along dim (slice.Tensor(self, dim, start, end)).
/// Sections n: the first size % n pieces one longer than size / n. Indices: [0, i0),
/// [i0, i1), ..., [ik, size). Refused: a 0-d self, n <= 0 (torch's checks), a symbolic
/// size along dim for sections.
void tensor_split_rule(Rewriter& rw) {
  const bool sections = rw.target() == "aten.tensor_split.sections";
  std::string x = rw.tensor("self");
  const int64_t dim = rw.int_("dim");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() == 0) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
    return;
  }
  const int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return;
  const SymPoly& size = m.sizes[static_cast<size_t>(d)];
  std::vector<std::string> pieces;
  auto slice = [&](const ir::Argument& start, const ir::Argument& end) {
    pieces.push_back(rw.call("aten.slice.Tensor", {ir::arg_tensor(x), ir::arg_int(d), start, end}));
  };
  if (sections) {
    const int64_t n = rw.int_("sections");
    if (!rw.ok()) return;
    if (n <= 0) {
      rw.fail(ErrorCode::INVALID_GRAPH, "number of sections must be larger than 0, got " + std::to_string(n));
      return;
    }
    if (!size.is_constant()) {
      rw.unsupported("sections of a symbolic size " + rw.symbols().display(size));
      return;
    }
    const int64_t total = size.value();
    int64_t start = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t len = total / n + (i < total % n ? 1 : 0);
      slice(ir::arg_int(start), ir::arg_int(start + len));
      start += len;
    }
  } else {
    std::vector<SymPoly> indices = rw.syms("indices");
    if (!rw.ok()) return;
    SymPoly start(0);
    for (const SymPoly& end : indices) {
      slice(rw.size(start), rw.size(end));
      start = end;
    }
    slice(rw.size(start), rw.size(size));
  }
  set_list_outputs(rw, pieces, "tensor_split");
}

/// aten.channel_shuffle.default → torch._refs channel_shuffle (recent form): input of rank
/// > 2, groups > 0 dividing C; reshape(x, [N, g, C / g, *rest]), transpose(1, 2) (a
/// permute), reshape back to x's shape (clone + view: the transposed layout does not
/// allow a view), contiguous (a no-op then). An input without elements is view(x, shape).
void channel_shuffle_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  const int64_t groups = rw.int_("groups");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() <= 2) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "channel_shuffle expects input with > 2 dims, but got input with sizes " +
                shape_text(m.sizes, rw.symbols()));
    return;
  }
  if (groups <= 0) {
    rw.fail(
        ErrorCode::INVALID_GRAPH,
        "Number of groups to divide channels in must be positive. Value of groups:" + std::to_string(groups));
    return;
  }
  const SymPoly& c = m.sizes[1];
  if (!c.is_constant()) {
    rw.unsupported("a symbolic channel count " + rw.symbols().display(c));
    return;
  }
  if (c.value() % groups != 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "Number of channels must be divisible by groups. Got " +
                                          std::to_string(c.value()) + " channels and " +
                                          std::to_string(groups) + " groups.");
    return;
  }
  if (m.numel().is_constant() && m.numel().value() == 0) {
    rw.set_outputs({view(rw, x, m.sizes)});
    return;
  }
  std::vector<SymPoly> split{m.sizes[0], SymPoly(groups), SymPoly(c.value() / groups)};
  split.insert(split.end(), m.sizes.begin() + 2, m.sizes.end());
  std::string r = reshape(rw, x, split);
  r = transpose(rw, r, 1, 2);
  r = reshape(rw, r, m.sizes);
  r = contiguous(rw, r);
  if (rw.ok()) rw.set_outputs({r});
}

/// aten.meshgrid.default / meshgrid.indexing → at::native::meshgrid: tensors of rank <= 1
/// (a 0-d one counts as one element) of one dtype; grid i is view(t_i, [1, ..., -1 at i,
/// ..., 1]) expanded to [numel(t_0), ..., numel(t_n-1)]; with indexing "xy" the first two
/// tensors swap places before and their grids after ("ij" when not given).
void meshgrid_rule(Rewriter& rw) {
  std::vector<std::string> ts = rw.tensors("tensors");
  std::string indexing = rw.target() == "aten.meshgrid.indexing" ? rw.str("indexing") : std::string("ij");
  if (!rw.ok()) return;
  if (ts.empty()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "meshgrid expects a non-empty TensorList");
    return;
  }
  if (indexing != "ij" && indexing != "xy") {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: " + indexing);
    return;
  }
  std::vector<Meta> metas;
  for (const std::string& t : ts) metas.push_back(rw.meta(t));
  if (!rw.ok()) return;
  for (size_t i = 0; i + 1 < metas.size(); ++i) {
    if (metas[i].dtype != metas[i + 1].dtype) {
      rw.fail(ErrorCode::INVALID_GRAPH, "meshgrid expects all tensors to have the same dtype");
      return;
    }
  }
  const bool swap = indexing == "xy" && ts.size() >= 2;
  if (swap) {
    std::swap(ts[0], ts[1]);
    std::swap(metas[0], metas[1]);
  }
  std::vector<SymPoly> shape;
  for (const Meta& m : metas) {
    if (m.rank() > 1) {
      rw.fail(ErrorCode::INVALID_GRAPH,
              "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a " +
                  std::to_string(m.rank()) + "-d tensor");
      return;
    }
    shape.push_back(m.numel());
  }
  std::vector<std::string> grids;
  std::vector<int64_t> view_shape(ts.size(), 1);
  for (size_t i = 0; i < ts.size(); ++i) {
    view_shape[i] = -1;
    std::string v = rw.call("aten.view.default", {ir::arg_tensor(ts[i]), ir::arg_ints(view_shape)});
    grids.push_back(expand(rw, v, shape));
    view_shape[i] = 1;
  }
  if (swap) std::swap(grids[0], grids[1]);
  set_list_outputs(rw, grids, "meshgrid");
}

/// aten.stack.default → torch._refs stack: for dim < rank, cat(tensors, dim) +
/// view(shape with len(tensors) inserted); for dim == rank, cat of unsqueeze(dim) each.
void stack_rule(Rewriter& rw) {
  auto ts = rw.tensors("tensors");
  int64_t dim = rw.int_("dim");
  if (!rw.ok()) return;
  rw.set_outputs({stack(rw, ts, dim)});
}

/// aten.movedim.int → at::native::movedim: permute moving `source` to `destination`
/// (a 0-d tensor: alias).
void movedim_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t src = rw.int_("source");
  int64_t dst = rw.int_("destination");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  int64_t s = rw.take(normalize_dim(src, m.rank()));
  int64_t d = rw.take(normalize_dim(dst, m.rank()));
  if (!rw.ok()) return;
  if (m.rank() == 0) {  // torch: a 0-d tensor moves nowhere, self.alias()
    rw.set_outputs({rw.call("aten.alias.default", {ir::arg_tensor(x)})});
    return;
  }
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < static_cast<int64_t>(m.rank()); ++i) {
    if (i != s) rest.push_back(i);
  }
  rest.insert(rest.begin() + d, s);
  rw.set_outputs({permute(rw, x, rest)});
}

/// aten.swapaxes.default / swapdims → transpose → permute.
void swapaxes_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  bool axes = rw.args().find("axis0") != nullptr;
  int64_t a = rw.int_(axes ? "axis0" : "dim0");
  int64_t b = rw.int_(axes ? "axis1" : "dim1");
  if (!rw.ok()) return;
  rw.set_outputs({transpose(rw, x, a, b)});
}

/// aten.narrow.default → torch._decomp narrow: slice.Tensor(self, dim, start, start + length),
/// a negative constant start counting from the end of the dimension (as narrow_symint does).
void narrow_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  SymPoly start = rw.sym("start");
  SymPoly length = rw.sym("length");
  if (!rw.ok()) return;
  if (start.is_constant() && start.value() < 0) {
    Meta m = rw.meta(x);
    auto d = normalize_dim(dim, m.rank());
    if (!d.ok() || m.rank() == 0) {
      rw.fail(ErrorCode::INVALID_GRAPH, "narrow: dimension " + std::to_string(dim) + " out of range");
      return;
    }
    start = m.sizes[*d] + start;
  }
  rw.set_outputs({rw.call("aten.slice.Tensor", {ir::arg_tensor(x), ir::arg_int(dim), rw.size(start),
                                                rw.size(start + length)})});
}

/// aten.detach.default / lift_fresh.default → torch._decomp nop_decomposition: alias(x).
void alias_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  rw.set_outputs({rw.call("aten.alias.default", {ir::arg_tensor(x)})});
}

/// aten.lift_fresh_copy.default (a tensor created in forward) → clone(x).
void lift_fresh_copy_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  rw.set_outputs({clone(rw, x)});
}

/// aten.pad.default → at::native::pad → _pad_enum: "constant" is constant_pad_nd(self,
/// pad, value or 0.0); "reflect" / "replicate" are reflection_pad{1,2,3}d /
/// replication_pad{1,2,3}d chosen by the pad length and input rank; "circular" is refused.
void pad_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto pad = rw.syms("pad");
  std::string mode = rw.args().find("mode") ? rw.str("mode") : std::string("constant");
  auto value = rw.opt_float("value");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (pad.size() % 2 != 0 || pad.size() / 2 > m.rank()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "pad: padding length must be even and at most twice the input rank");
    return;
  }
  if (mode == "constant") {
    rw.set_outputs({rw.call("aten.constant_pad_nd.default",
                            {ir::arg_tensor(x), rw.sizes(pad), ir::arg_float(value.value_or(0.0))})});
    return;
  }
  size_t n = pad.size() / 2;
  bool rank_ok = n >= 1 && n <= 3 && (m.rank() == n + 1 || m.rank() == n + 2);
  if ((mode != "reflect" && mode != "replicate") || !rank_ok) {
    rw.unsupported("padding mode '" + mode + "' with " + std::to_string(pad.size()) + " pad values on a " +
                   std::to_string(m.rank()) + "-d input");
    return;
  }
  std::string op = std::string("aten.") + (mode == "reflect" ? "reflection_pad" : "replication_pad") +
                   std::to_string(n) + "d.default";
  rw.set_outputs({rw.call(op, {ir::arg_tensor(x), rw.sizes(pad)})});
}

/// aten.reflection_pad{1,2,3}d / replication_pad{1,2,3}d → torch._decomp _reflection_pad /
/// _replication_pad (_reflection_or_replication_pad under pw_cast_for_opmath: float16 /
/// bfloat16 input in float32 and back). padding holds (left, right) pairs innermost dim first;
/// the padded dims are taken outermost first: with n the input size of the dim,
/// idx = arange(-left, n + right) (int64, as arange.start_step), then
/// reflect: n - 1 - |n - 1 - |idx|| (abs, rsub.Scalar, abs, rsub.Scalar: n - 1 is a Python int),
/// replicate: clamp(idx, 0, n - 1),
/// and result = _unsafe_index(result, [None, ..., idx]) (recorded as index.Tensor). The closing
/// contiguous(suggest_memory_format(result)) records nothing for a contiguous input.
/// x [N, C, H, W], padding [l, r, t, b] → [N, C, H + t + b, W + l + r]. Refused: a symbolic
/// size of a padded dim or a symbolic pad (the index bounds are computed from them) and a
/// non-contiguous input (its closing contiguous() could copy). torch's rank check is an error.
void reflection_or_replication_pad(Rewriter& rw, bool reflect) {
  std::string x = rw.tensor("self");
  auto padding = rw.syms("padding");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  const size_t dim = padding.size() / 2;
  if (m.rank() != dim + 1 && m.rank() != dim + 2) {
    // torch._check's message, which names reflection_pad for both families.
    rw.fail(ErrorCode::INVALID_GRAPH, "reflection_pad" + std::to_string(dim) + "d requires " +
                                          std::to_string(dim + 1) + "D or " + std::to_string(dim + 2) +
                                          "D input");
    return;
  }
  for (const SymPoly& p : padding) {
    if (!p.is_constant()) {
      rw.unsupported("a symbolic pad (the index bounds are computed from it)");
      return;
    }
  }
  const size_t nc_dim = m.rank() - dim;
  for (size_t i = 0; i < dim; ++i) {
    if (!m.sizes[nc_dim + i].is_constant()) {
      rw.unsupported("a symbolic size of a padded dimension (the index bounds are computed from it)");
      return;
    }
  }
  if (!is_contiguous(m)) {
    rw.unsupported("a non-contiguous input (the decomposition's closing contiguous() may copy it)");
    return;
  }
  OpMath om{rw};
  std::string result = om.up(x);
  for (size_t i = 0; i < dim; ++i) {
    const int64_t left = padding[2 * (dim - 1 - i)].value();
    const int64_t right = padding[2 * (dim - 1 - i) + 1].value();
    const int64_t n = m.sizes[nc_dim + i].value();
    std::string idx = arange(rw, ir::arg_int(-left), ir::arg_int(n + right), m.device);
    if (reflect) {
      std::string a = rw.call("aten.abs.default", {ir::arg_tensor(idx)});
      std::string d = rw.call("aten.rsub.Scalar", {ir::arg_tensor(a), ir::arg_int(n - 1)});
      std::string b = rw.call("aten.abs.default", {ir::arg_tensor(d)});
      idx = rw.call("aten.rsub.Scalar", {ir::arg_tensor(b), ir::arg_int(n - 1)});
    } else {
      idx = rw.call("aten.clamp.default", {ir::arg_tensor(idx), ir::arg_int(0), ir::arg_int(n - 1)});
    }
    result = index_along(rw, result, idx, nc_dim + i, m.rank());
  }
  if (!rw.ok()) return;
  rw.set_outputs({om.down(result)});
}
void reflection_pad_rule(Rewriter& rw) { reflection_or_replication_pad(rw, true); }
void replication_pad_rule(Rewriter& rw) { reflection_or_replication_pad(rw, false); }

/// aten.outer.default → at::native::outer: self.reshape([n, 1]) * vec2 (view + mul.Tensor).
void outer_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string v = rw.tensor("vec2");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (m.rank() != 1) {
    rw.fail(ErrorCode::INVALID_GRAPH, "outer: expects 1-d tensors");
    return;
  }
  std::string col = reshape(rw, x, {m.sizes[0], SymPoly(1)});
  rw.set_outputs({rw.call("aten.mul.Tensor", {ir::arg_tensor(col), ir::arg_tensor(v)})});
}

/// aten.repeat_interleave.self_int → at::native::repeat_interleave_symint: (flatten when
/// dim is None) unsqueeze(dim + 1), expand, clone(contiguous_format), flatten(dim, dim + 1).
void repeat_interleave_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  SymPoly repeats = rw.sym("repeats");
  auto dim = rw.opt_int("dim");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (!dim) {
    x = reshape(rw, x, {m.numel()});
    m = rw.meta(x);
  }
  int64_t d = dim ? rw.take(normalize_dim(*dim, m.rank())) : 0;
  if (!rw.ok()) return;
  std::string u = unsqueeze(rw, x, d + 1);
  std::vector<SymPoly> shape = m.sizes;
  shape.insert(shape.begin() + d + 1, repeats);
  std::string e = expand(rw, u, shape);
  std::string c = clone(rw, e, ir::MemoryFormat::ContiguousFormat);
  std::vector<SymPoly> flat = m.sizes;
  flat[d] = m.sizes[d] * repeats;
  rw.set_outputs({reshape(rw, c, flat)});
}

/// aten.pixel_shuffle.default → torch._decomp pixel_shuffle: view(*batch, C / r², r, r, H,
/// W), permute(batch dims, C, H, r, W, r), reshape(*batch, C / r², H * r, W * r) (clone +
/// view unless r == 1), clone(memory_format=suggest_memory_format(self)). Only contiguous
/// inputs are taken (their suggested format is always contiguous_format); other layouts,
/// whose suggested format may be channels_last, are refused.
/// The checks pixel_shuffle and pixel_unshuffle share: rank >= 3, a positive factor
/// whose square fits int64, a contiguous input. Records the error and returns false.
bool check_pixel_shuffle(Rewriter& rw, std::string_view op, std::string_view factor_name, const Meta& m,
                         int64_t r) {
  if (m.rank() < 3) {
    rw.fail(ErrorCode::INVALID_GRAPH, std::string(op) +
                                          " expects input to have at least 3 dimensions, but got " +
                                          std::to_string(m.rank()));
    return false;
  }
  if (r <= 0 || r > 3037000499) {  // r * r must fit in int64
    rw.fail(ErrorCode::INVALID_GRAPH, std::string(op) + " expects a positive " + std::string(factor_name) +
                                          " whose square fits int64, but got " + std::to_string(r));
    return false;
  }
  if (!is_contiguous(m)) {
    rw.unsupported("a non-contiguous input (only contiguous inputs are decomposed)");
    return false;
  }
  return true;
}

void pixel_shuffle_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t r = rw.int_("upscale_factor");
  Meta m = rw.meta(x);
  if (!rw.ok() || !check_pixel_shuffle(rw, "pixel_shuffle", "upscale_factor", m, r)) return;
  size_t n = m.rank() - 3;
  const SymPoly& c = m.sizes[n];
  const SymPoly& h = m.sizes[n + 1];
  const SymPoly& w = m.sizes[n + 2];
  std::optional<SymPoly> c_out = c.div_exact(r * r);
  if (!c_out) {
    std::string what = "its input's 'channel' dimension (" + rw.symbols().display(c) + ")";
    rw.fail(ErrorCode::INVALID_GRAPH, "pixel_shuffle expects " + what +
                                          " to be divisible by the square of upscale_factor (" +
                                          std::to_string(r * r) + ")");
    return;
  }
  std::vector<SymPoly> split(m.sizes.begin(), m.sizes.begin() + n);
  split.insert(split.end(), {*c_out, SymPoly(r), SymPoly(r), h, w});
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  int64_t b = static_cast<int64_t>(n);
  order.insert(order.end(), {b, b + 3, b + 1, b + 4, b + 2});
  std::vector<SymPoly> out(m.sizes.begin(), m.sizes.begin() + n);
  out.insert(out.end(), {*c_out, h * SymPoly(r), w * SymPoly(r)});
  std::string shuffled = reshape(rw, permute(rw, view(rw, x, split), order), out);
  rw.set_outputs({clone(rw, shuffled, ir::MemoryFormat::ContiguousFormat)});
}

/// aten.pixel_unshuffle.default → torch._decomp pixel_unshuffle: view(*batch, C, H / r, r,
/// W / r, r), permute(batch dims, C, r, r, H / r, W / r), reshape(*batch, C * r², H / r,
/// W / r) (clone + view where the layout needs it), clone(memory_format=contiguous_format).
/// As for pixel_shuffle only contiguous inputs are taken; H and W must be divisible by r
/// (torch's view fails otherwise).
void pixel_unshuffle_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t r = rw.int_("downscale_factor");
  Meta m = rw.meta(x);
  if (!rw.ok() || !check_pixel_shuffle(rw, "pixel_unshuffle", "downscale_factor", m, r)) return;
  size_t n = m.rank() - 3;
  const SymPoly& c = m.sizes[n];
  std::optional<SymPoly> h_out = m.sizes[n + 1].div_exact(r);
  std::optional<SymPoly> w_out = m.sizes[n + 2].div_exact(r);
  if (!h_out || !w_out) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "pixel_unshuffle expects height (" + rw.symbols().display(m.sizes[n + 1]) + ") and width (" +
                rw.symbols().display(m.sizes[n + 2]) + ") to be divisible by downscale_factor (" +
                std::to_string(r) + ")");
    return;
  }
  std::vector<SymPoly> split(m.sizes.begin(), m.sizes.begin() + n);
  split.insert(split.end(), {c, *h_out, SymPoly(r), *w_out, SymPoly(r)});
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  int64_t b = static_cast<int64_t>(n);
  order.insert(order.end(), {b, b + 2, b + 4, b + 1, b + 3});
  std::vector<SymPoly> out(m.sizes.begin(), m.sizes.begin() + n);
  out.insert(out.end(), {c * SymPoly(r * r), *h_out, *w_out});
  std::string unshuffled = reshape(rw, permute(rw, view(rw, x, split), order), out);
  rw.set_outputs({clone(rw, unshuffled, ir::MemoryFormat::ContiguousFormat)});
}

/// aten.rot90.default → torch._refs rot90: dims (two, distinct after wrapping) of an input
/// of rank >= 2; k mod 4 (Python's, non-negative) selects transpose(flip(a, [dims[1]]),
/// dims[0], dims[1]) (flip, then transpose.int's permute), flip(a, dims),
/// transpose(flip(a, [dims[0]]), dims[0], dims[1]), or clone(memory_format=contiguous_format).
void rot90_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t k = rw.int_("k");
  std::vector<int64_t> dims = rw.ints("dims");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  if (dims.size() != 2) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "expected total rotation dims == 2, but got dims = " + std::to_string(dims.size()));
    return;
  }
  if (m.rank() < 2) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "expected total dims >= 2, but got total dims = " + std::to_string(m.rank()));
    return;
  }
  const int64_t d0 = rw.take(normalize_dim(dims[0], m.rank()));
  const int64_t d1 = rw.take(normalize_dim(dims[1], m.rank()));
  if (!rw.ok()) return;
  if (d0 == d1) {
    rw.fail(ErrorCode::INVALID_GRAPH, "expected rotation dims to be different, but got dim0 = " +
                                          std::to_string(d0) + " and dim1 = " + std::to_string(d1));
    return;
  }
  auto flip = [&](const std::vector<int64_t>& ds) {
    return rw.call("aten.flip.default", {ir::arg_tensor(x), ir::arg_ints(ds)});
  };
  switch (((k % 4) + 4) % 4) {
    case 1:
      rw.set_outputs({transpose(rw, flip({d1}), d0, d1)});
      return;
    case 2:
      rw.set_outputs({flip({d0, d1})});
      return;
    case 3:
      rw.set_outputs({transpose(rw, flip({d0}), d0, d1)});
      return;
    default:
      rw.set_outputs({clone(rw, x, ir::MemoryFormat::ContiguousFormat)});
  }
}

/// torch._refs roll's one-dimension case: index_select(x, dim, fmod(start + arange(size),
/// size)) with start = (size - shift) mod size (arange.start_step, add.Tensor, fmod.Scalar,
/// index_select).
std::string roll_one(Rewriter& rw, const std::string& x, int64_t shift, int64_t dim) {
  Meta m = rw.meta(x);
  if (!rw.ok()) return {};
  const SymPoly& size = m.sizes[static_cast<size_t>(dim)];
  if (!size.is_constant()) {
    rw.unsupported("rolling a dimension of symbolic size " + rw.symbols().display(size));
    return {};
  }
  int64_t n = size.value();
  if (n <= 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "roll: an empty dimension in a non-empty tensor");
    return {};
  }
  int64_t start = ((n - shift % n) % n + n) % n;  // Python's (n - shift) % n, without overflow
  std::string idx = arange(rw, ir::arg_int(n), m.device);
  std::string shifted = rw.call("aten.add.Tensor", {ir::arg_tensor(idx), ir::arg_int(start)});
  std::string wrapped = rw.call("aten.fmod.Scalar", {ir::arg_tensor(shifted), ir::arg_int(n)});
  return rw.call("aten.index_select.default", {ir::arg_tensor(x), ir::arg_int(dim), ir::arg_tensor(wrapped)});
}

/// aten.roll.default → torch._refs roll: an empty input is cloned; no dims and one shift
/// rolls flatten(self) over dim 0 and views it back to self's shape; several (shift, dim)
/// pairs roll one dimension after the other (the reference's recursion); one pair is
/// roll_one(). Symbolic shifts and rolled dimensions of symbolic size are refused (the
/// start index is computed from concrete values); an input of symbolic numel is taken
/// as non-empty.
void roll_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::vector<SymPoly> shift_polys = rw.syms("shifts");
  std::vector<int64_t> dims = rw.ints("dims");
  Meta m = rw.meta(x);
  if (!rw.ok()) return;
  for (int64_t& d : dims) d = rw.take(normalize_dim(d, std::max<size_t>(m.rank(), 1)));
  if (!rw.ok()) return;
  SymPoly numel = m.numel();
  if (numel.is_constant() && numel.value() == 0) {
    rw.set_outputs({clone(rw, x)});
    return;
  }
  if (m.rank() == 0 && !dims.empty()) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "roll: dimension specified as " + std::to_string(dims[0]) + " but tensor has no dimensions");
    return;
  }
  std::vector<int64_t> shifts;
  for (const SymPoly& p : shift_polys) {
    if (!p.is_constant()) {
      rw.unsupported("a symbolic shift " + rw.symbols().display(p));
      return;
    }
    shifts.push_back(p.value());
  }
  if (shifts.empty()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "roll: `shifts` required");
    return;
  }
  if (dims.empty() && shifts.size() == 1) {
    std::string rolled = roll_one(rw, flatten(rw, x, 0, -1), shifts[0], 0);
    if (!rw.ok()) return;
    rw.set_outputs({view(rw, rolled, m.sizes)});
    return;
  }
  if (shifts.size() != dims.size()) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "roll: shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                ", dims: " + std::to_string(dims.size()));
    return;
  }
  for (size_t i = 0; i < dims.size() && rw.ok(); ++i) x = roll_one(rw, x, shifts[i], dims[i]);
  if (!rw.ok()) return;
  rw.set_outputs({x});
}

}  // namespace

void add_shape_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.flatten.using_ints", flatten_rule, "at::native::flatten (TensorShape.cpp) → reshape"});
  out.push_back(
      {"aten.pixel_shuffle.default", pixel_shuffle_rule, "torch._decomp.decompositions.pixel_shuffle"});
  out.push_back(
      {"aten.pixel_unshuffle.default", pixel_unshuffle_rule, "torch._decomp.decompositions.pixel_unshuffle"});
  out.push_back({"aten.rot90.default", rot90_rule, "torch._refs.rot90"});
  out.push_back({"aten.roll.default", roll_rule, "torch._refs.roll"});
  out.push_back({"aten.reshape.default", reshape_rule, "at::native::reshape_symint (TensorShape.cpp)"});
  out.push_back({"aten._reshape_alias.default", view_size_rule, "torch._decomp _reshape_alias → view"});
  out.push_back({"aten._unsafe_view.default", view_size_rule, "torch._decomp _unsafe_view → view"});
  out.push_back({"aten.view_as.default", view_as_rule, "at::native::view_as → view"});
  out.push_back({"aten.reshape_as.default", reshape_as_rule, "at::native::reshape_as → reshape"});
  out.push_back({"aten.expand_as.default", expand_as_rule, "torch._decomp expand_as → expand"});
  out.push_back({"aten.contiguous.default", contiguous_rule, "at::native::contiguous → clone when needed"});
  out.push_back({"aten.unflatten.int", unflatten_rule, "at::native::unflatten → view"});
  out.push_back({"aten.squeeze.default", squeeze_all_rule, "torch._decomp squeeze_default → squeeze.dims"});
  out.push_back({"aten.squeeze.dim", squeeze_dim_rule, "torch._decomp squeeze_default → squeeze.dims", true});
  out.push_back({"aten.chunk.default", chunk_rule, "at::native::chunk → split.Tensor → split_with_sizes"});
  out.push_back({"aten.unsafe_chunk.default", chunk_rule, "unsafe_chunk_py_impl → split_with_sizes"});
  out.push_back({"aten.split.Tensor", split_rule, "torch._decomp split → split_with_sizes"});
  out.push_back({"aten.unsafe_split.Tensor", split_rule, "torch._decomp unsafe_split → split_with_sizes"});
  out.push_back({"aten.split.sizes", split_sizes_rule, "at::native split.sizes → split_with_sizes"});
  out.push_back({"aten.unsafe_split_with_sizes.default", split_sizes_rule,
                 "torch._decomp unsafe_split_with_sizes → split_with_sizes"});
  out.push_back({"aten.unbind.int", unbind_rule, "torch._refs unbind (tensor_split + squeeze)"});
  out.push_back({"aten.stack.default", stack_rule, "torch._refs stack (cat + view / unsqueeze + cat)"});
  out.push_back(
      {"aten.tensor_split.sections", tensor_split_rule, "at::native::tensor_split_sections_symint"});
  out.push_back({"aten.tensor_split.indices", tensor_split_rule, "at::native::tensor_split_indices_symint"});
  out.push_back({"aten.channel_shuffle.default", channel_shuffle_rule, "torch._refs channel_shuffle"});
  out.push_back({"aten.meshgrid.default", meshgrid_rule, "at::native::meshgrid (TensorShape.cpp), \"ij\""});
  out.push_back({"aten.meshgrid.indexing", meshgrid_rule, "at::native::meshgrid (TensorShape.cpp)"});
  out.push_back({"aten.movedim.int", movedim_rule, "at::native::movedim → permute"});
  out.push_back({"aten.swapaxes.default", swapaxes_rule, "at::native::swapaxes → transpose → permute"});
  out.push_back({"aten.swapdims.default", swapaxes_rule, "at::native::swapdims → transpose → permute"});
  out.push_back({"aten.narrow.default", narrow_rule, "torch._decomp narrow → slice.Tensor"});
  out.push_back({"aten.detach.default", alias_rule, "torch._decomp nop_decomposition → alias"});
  out.push_back({"aten.lift_fresh.default", alias_rule, "torch._decomp nop_decomposition → alias"});
  out.push_back({"aten.lift_fresh_copy.default", lift_fresh_copy_rule, "lift_fresh_copy → clone"});
  out.push_back({"aten.pad.default", pad_rule, "at::native::pad / _pad_enum (PadNd.cpp)"});
  out.push_back({"aten.reflection_pad1d.default", reflection_pad_rule,
                 "torch._decomp _reflection_pad → _unsafe_index", true});
  out.push_back({"aten.reflection_pad2d.default", reflection_pad_rule,
                 "torch._decomp _reflection_pad → _unsafe_index", true});
  out.push_back({"aten.reflection_pad3d.default", reflection_pad_rule,
                 "torch._decomp _reflection_pad → _unsafe_index", true});
  out.push_back({"aten.replication_pad1d.default", replication_pad_rule,
                 "torch._decomp _replication_pad → _unsafe_index"});  // not core-tagged
  out.push_back({"aten.replication_pad2d.default", replication_pad_rule,
                 "torch._decomp _replication_pad → _unsafe_index", true});
  out.push_back({"aten.replication_pad3d.default", replication_pad_rule,
                 "torch._decomp _replication_pad → _unsafe_index", true});
  out.push_back({"aten.outer.default", outer_rule, "at::native::outer → view + mul.Tensor"});
  out.push_back({"aten.repeat_interleave.self_int", repeat_interleave_rule,
                 "at::native::repeat_interleave_symint (unsqueeze, expand, clone, flatten)"});
}

}  // namespace pteforge::passes::decomp
