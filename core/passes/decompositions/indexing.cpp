// Indexing: index_copy / index_add → index_put, index_fill → index_copy (KV-cache updates), _unsafe_index /
// _unsafe_index_put.
#include "passes/decompositions/builders.h"
#include "passes/decompositions/shape_infer.h"
#include "passes/decompositions/table.h"

namespace pteforge::passes::decomp {
namespace {

ir::Argument optional_tensors(const std::vector<std::optional<std::string>>& ts) {
  std::vector<ir::OptionalTensorArgument> v;
  for (const auto& t : ts) v.push_back(ir::OptionalTensorArgument{t});
  return ir::Argument::make<ir::ArgTag::OptionalTensors>(std::move(v));
}

/// aten.index_copy.default → torch._refs index_copy (_index_copy, inplace=False):
/// index_put(self, [None] * dim + [index], source) (a 0-d self is unsqueezed
/// first, and a 0-d index too: a scalar position, e.g. a KV-cache update
/// cache.index_copy_(1, pos, k), keeps its dim).
void index_copy_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  std::string index = rw.tensor("index");
  std::string source = rw.tensor("source");
  Meta m = rw.meta(x);
  Meta im = rw.meta(index);
  if (!rw.ok()) return;
  bool zero_dim = m.rank() == 0;
  int64_t d = zero_dim ? 0 : rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return;
  std::string base = zero_dim ? unsqueeze(rw, x, 0) : x;
  if (im.rank() == 0) index = unsqueeze(rw, index, 0);
  std::vector<std::optional<std::string>> idx(static_cast<size_t>(d), std::nullopt);
  idx.push_back(index);
  std::string out =
      rw.call("aten.index_put.default", {ir::arg_tensor(base), optional_tensors(idx), ir::arg_tensor(source)});
  if (zero_dim) out = squeeze_dims(rw, out, {0});
  rw.set_outputs({out});
}

/// aten.index_add.default → torch._decomp index_add (_index_add, inplace=False): an alpha
/// other than 1 scales source first (mul.Tensor(source, alpha); a float alpha for an integer
/// or bool self is refused as torch refuses it), then index_put(self, [None] * dim + [index],
/// source, accumulate=True) (a 0-d self is unsqueezed first and squeezed after; a 0-d index is
/// passed as is), then .contiguous(). Index of rank > 1 and a source size along dim other
/// than the index count are refused.
void index_add_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  std::string index = rw.tensor("index");
  std::string source = rw.tensor("source");
  Number alpha = rw.take(rw.args().number("alpha"));
  Meta m = rw.meta(x);
  Meta im = rw.meta(index);
  Meta sm = rw.meta(source);
  if (!rw.ok()) return;
  const bool zero_dim = m.rank() == 0;
  int64_t d = rw.take(normalize_dim(dim, zero_dim ? 1 : m.rank()));
  if (!rw.ok()) return;
  if (im.rank() > 1) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "index_add: Index should have dimension 1 or 0 (got " + std::to_string(im.rank()) + ")");
    return;
  }
  const SymPoly index_size = im.rank() == 1 ? im.sizes[0] : SymPoly(1);
  if (sm.rank() > 0 && static_cast<size_t>(d) >= sm.rank()) {
    rw.fail(ErrorCode::INVALID_GRAPH, "index_add: source has no dimension " + std::to_string(d));
    return;
  }
  const SymPoly source_size = sm.rank() > 0 ? sm.sizes[static_cast<size_t>(d)] : SymPoly(1);
  if (!(index_size == source_size)) {
    rw.fail(ErrorCode::INVALID_GRAPH, "index_add: Number of indices (" + rw.symbols().display(index_size) +
                                          ") should be equal to source.size(dim) (" +
                                          rw.symbols().display(source_size) + ")");
    return;
  }
  if (alpha.as_double() != 1.0) {
    if (alpha.is_float() && !ir::is_floating(m.dtype) && m.dtype != ir::ScalarType::Bool) {
      rw.fail(ErrorCode::INVALID_GRAPH,
              "index_add: alpha argument of type float cannot be safely cast to type int!");
      return;
    }
    source = rw.call("aten.mul.Tensor", {ir::arg_tensor(source), number_arg(alpha)});
  }
  std::string base = zero_dim ? unsqueeze(rw, x, 0) : x;
  std::vector<std::optional<std::string>> idx(static_cast<size_t>(d), std::nullopt);
  idx.push_back(index);
  std::string out = rw.call("aten.index_put.default", {ir::arg_tensor(base), optional_tensors(idx),
                                                       ir::arg_tensor(source), ir::arg_bool(true)});
  rw.set_outputs({zero_dim ? squeeze_dims(rw, out, {0}) : contiguous(rw, out)});
}

/// aten.index_fill.int_Scalar / int_Tensor → torch._refs index_fill (_index_fill,
/// inplace=False): a number value becomes scalar_tensor(value, dtype=self.dtype,
/// layout=strided, device); the 0-d value is expanded to self's sizes with index.numel()
/// along dim (expand.default) and index_copy(self, dim, index, value) follows (decomposed
/// in turn); a 0-d self is unsqueezed first and the result squeeze.dims [0] + clone.
/// Refused: an index of rank > 1 and a value tensor that is not 0-d (as torch refuses
/// them), a value tensor of another dtype than self (index_copy then refuses it), and a
/// non-contiguous self (the reference then restrides its result).
void index_fill_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  int64_t dim = rw.int_("dim");
  std::string index = rw.tensor("index");
  const ir::Argument* va = rw.args().find("value");
  Meta m = rw.meta(x);
  Meta im = rw.meta(index);
  if (!rw.ok()) return;
  if (!va) {
    rw.fail(ErrorCode::INVALID_GRAPH, "index_fill: missing value");
    return;
  }
  if (im.rank() > 1) {
    rw.fail(ErrorCode::INVALID_GRAPH,
            "index_fill: Index should have dimension 1 or 0 (got " + std::to_string(im.rank()) + ")");
    return;
  }
  const bool zero_dim = m.rank() == 0;
  int64_t d = rw.take(normalize_dim(dim, zero_dim ? 1 : m.rank()));
  if (!rw.ok()) return;
  if (va->is_tensor()) {
    Meta vm = rw.meta(va->tensor_name());
    if (!rw.ok()) return;
    if (vm.rank() != 0) {
      rw.fail(ErrorCode::INVALID_GRAPH,
              "index_fill: Only supports 0-dimensional value tensor. Got a tensor with " +
                  std::to_string(vm.rank()) + " dimensions.");
      return;
    }
    if (vm.dtype != m.dtype) {
      rw.unsupported("a value tensor of dtype " + std::string(ir::scalar_type_name(vm.dtype)) + " for a " +
                     std::string(ir::scalar_type_name(m.dtype)) +
                     " self (the decomposition's index_copy takes one dtype)");
      return;
    }
  }
  if (!zero_dim && !is_contiguous(m)) {
    rw.unsupported("a non-contiguous self (the reference restrides its result)");
    return;
  }
  std::string value = va->is_tensor() ? va->tensor_name() : scalar_tensor(rw, *va, m.dtype, m.device);
  std::string y = zero_dim ? unsqueeze(rw, x, 0) : x;
  std::vector<SymPoly> shape = zero_dim ? std::vector<SymPoly>{SymPoly(1)} : m.sizes;
  shape[static_cast<size_t>(d)] = im.rank() == 1 ? im.sizes[0] : SymPoly(1);
  value = expand(rw, value, shape);
  std::string out = rw.call("aten.index_copy.default", {ir::arg_tensor(y), ir::arg_int(dim),
                                                        ir::arg_tensor(index), ir::arg_tensor(value)});
  if (zero_dim) out = clone(rw, squeeze_dims(rw, out, {0}));
  rw.set_outputs({out});
}

/// aten.select_scatter.default → torch._refs select_scatter (Core ATen, but
/// core_aten_decompositions() lists it, so run_decompositions() rewrites it, including the
/// select_scatter functionalization writes for `x[i] = v` / `x.select(d, i).copy_(v)`):
/// with d = dim wrapped and n = self.size(d), mask = arange(n).view([1, .., -1, .., 1]) (-1 at d,
/// as the reference passes it) == index (+ n when negative); where(mask,
/// unsqueeze(src, d).expand(self's sizes), self). self [.., n, ..], src self without dim d →
/// self's shape. Refused: src of another dtype than self (the reference's where promotes, so its
/// result would not keep self's dtype), a symbolic index and a negative index on a symbolic size.
void select_scatter_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  std::string src = rw.tensor("src");
  int64_t dim = rw.int_("dim");
  SymPoly index = rw.sym("index");
  Meta m = rw.meta(x);
  Meta sm = rw.meta(src);
  if (!rw.ok()) return;
  if (m.rank() == 0) {
    rw.fail(ErrorCode::INVALID_GRAPH, "select_scatter: self must have at least one dimension");
    return;
  }
  const int64_t d = rw.take(normalize_dim(dim, m.rank()));
  if (!rw.ok()) return;
  if (sm.dtype != m.dtype) {
    rw.unsupported("src of dtype " + std::string(ir::scalar_type_name(sm.dtype)) + " for a " +
                   std::string(ir::scalar_type_name(m.dtype)) +
                   " self (the reference's where would promote the result's dtype)");
    return;
  }
  const SymPoly& n = m.sizes[static_cast<size_t>(d)];
  if (!index.is_constant()) {
    rw.unsupported("a symbolic index (the reference branches on its sign)");
    return;
  }
  if (index.value() < 0) {
    if (!n.is_constant()) {
      rw.unsupported("a negative index on a symbolic size");
      return;
    }
    index = SymPoly(index.value() + n.value());
  }
  std::vector<SymPoly> mask_shape(m.rank(), SymPoly(1));
  mask_shape[static_cast<size_t>(d)] = SymPoly(-1);
  std::string mask = view(rw, arange(rw, rw.size(n), m.device), mask_shape);
  mask = rw.call("aten.eq.Scalar", {ir::arg_tensor(mask), rw.size(index)});
  std::string v = expand(rw, unsqueeze(rw, src, d), m.sizes);
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.where.self", {ir::arg_tensor(mask), ir::arg_tensor(v), ir::arg_tensor(x)})});
}

/// aten._unsafe_index.Tensor → torch._decomp _unsafe_index: index.Tensor(self, indices).
void unsafe_index_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto idx = rw.opt_tensors("indices");
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.index.Tensor", {ir::arg_tensor(x), optional_tensors(idx)})});
}

/// aten._unsafe_index_put.default → torch._decomp _unsafe_index_put: index_put(self,
/// indices, values, accumulate).
void unsafe_index_put_rule(Rewriter& rw) {
  std::string x = rw.tensor("self");
  auto idx = rw.opt_tensors("indices");
  std::string values = rw.tensor("values");
  bool acc = rw.bool_("accumulate");
  if (!rw.ok()) return;
  rw.set_outputs({rw.call("aten.index_put.default",
                          {ir::arg_tensor(x), optional_tensors(idx), ir::arg_tensor(values), ir::arg_bool(acc)})});
}

}  // namespace

void add_indexing_decompositions(std::vector<Decomposition>& out) {
  out.push_back({"aten.index_copy.default", index_copy_rule, "torch._refs index_copy → index_put"});
  out.push_back(
      {"aten.index_add.default", index_add_rule, "torch._decomp index_add → index_put(accumulate=True)"});
  out.push_back({"aten.index_fill.int_Scalar", index_fill_rule, "torch._refs index_fill → index_copy"});
  out.push_back({"aten.index_fill.int_Tensor", index_fill_rule, "torch._refs index_fill → index_copy"});
  out.push_back(
      {"aten.select_scatter.default", select_scatter_rule, "torch._refs select_scatter → where", true});
  out.push_back({"aten._unsafe_index.Tensor", unsafe_index_rule, "torch._decomp _unsafe_index → index.Tensor"});
  out.push_back({"aten._unsafe_index_put.default", unsafe_index_put_rule, "torch._decomp _unsafe_index_put → index_put"});
}

}  // namespace pteforge::passes::decomp
