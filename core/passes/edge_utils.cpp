// Helpers shared by the to_edge passes (see edge_utils.h).
#include "passes/edge_utils.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

#include "ir/sym_expr.h"
#include "support/checked_math.h"

namespace pteforge::passes::edge {

std::vector<ir::Graph*> graphs_bfs(ir::Graph& graph) {
  std::vector<ir::Graph*> out;
  std::deque<ir::Graph*> queue{&graph};
  while (!queue.empty()) {
    ir::Graph* g = queue.front();
    queue.pop_front();
    out.push_back(g);
    if (!g->has_nested_graphs()) continue;  // no node to scan for bodies
    for (ir::Node& node : *g) {
      for (const ir::NamedArgument& in : node.inputs()) {
        if (const auto* sub = in.arg.get_if<ir::ArgTag::Graph>()) {
          // The box owns the nested graph; the pointer stays valid while the node lives.
          queue.push_back(const_cast<ir::Graph*>(sub->graph.get()));
        }
      }
    }
  }
  return out;
}

namespace {

/// Parsed form of a symbolic size for building products; the expression text
/// itself when it does not parse (kept as an opaque symbol).
ir::SymNode factor_node(const ir::SymInt& s) {
  auto parsed = ir::parse_sym_expr(s.expr().expr_str);
  if (parsed.ok()) return std::move(parsed).value();
  ir::SymNode n;
  n.op = ir::SymNode::Op::Symbol;
  n.name = s.expr().expr_str;
  return n;
}

/// The SymInt coefficient * product(symbols), as an expression when any symbol.
ir::SymInt make_product(int64_t coefficient, const std::vector<const ir::SymInt*>& symbols) {
  if (symbols.empty()) return ir::SymInt(coefficient);
  ir::SymNode mul;
  mul.op = ir::SymNode::Op::Mul;
  if (coefficient != 1) {
    ir::SymNode c;
    c.op = ir::SymNode::Op::Integer;
    c.num = coefficient;
    mul.args.push_back(c);
  }
  std::optional<int64_t> hint = coefficient;
  for (const ir::SymInt* s : symbols) {
    mul.args.push_back(factor_node(*s));
    auto h = s->hint();
    if (hint && h) {
      hint = *hint * *h;
    } else {
      hint.reset();
    }
  }
  ir::SymExpr expr;
  expr.expr_str = mul.args.size() == 1 ? ir::format_sym_expr(mul.args[0]) : ir::format_sym_expr(mul);
  if (hint) expr.hint = ir::SymExprHint::of_int(*hint);
  return ir::SymInt(std::move(expr));
}

/// Hints of every entry, or nullopt when one is missing.
std::optional<std::vector<int64_t>> hints(const std::vector<ir::SymInt>& v) {
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (const auto& s : v) {
    auto h = s.hint();
    if (!h) return std::nullopt;
    out.push_back(*h);
  }
  return out;
}

}  // namespace

std::vector<ir::SymInt> contiguous_sym_strides(const std::vector<ir::SymInt>& sizes) {
  std::vector<ir::SymInt> strides(sizes.size());
  int64_t coefficient = 1;
  std::vector<const ir::SymInt*> symbols;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = make_product(coefficient, symbols);
    if (sizes[i].is_concrete()) {
      if (__builtin_mul_overflow(coefficient, std::max<int64_t>(sizes[i].value(), 1), &coefficient)) {
        coefficient = INT64_MAX;  // saturate, no UB
      }
    } else {
      symbols.insert(symbols.begin(), &sizes[i]);
    }
  }
  return strides;
}

namespace {

/// True when every size and stride of `meta` has a hint and the same count,
/// without building the hint vectors (these checks run for every node).
bool all_hinted(const ir::TensorMeta& meta) {
  if (meta.sizes.size() != meta.strides.size()) return false;
  for (size_t d = 0; d < meta.sizes.size(); ++d) {
    if (!meta.sizes[d].hint() || !meta.strides[d].hint()) return false;
  }
  return true;
}

}  // namespace

ir::TensorMeta with_contiguous_strides(ir::TensorMeta meta) {
  // Already contiguous: hinted strides equal ir::contiguous_strides of the
  // hinted sizes, at storage offset 0.
  auto offset_hint = meta.storage_offset.hint();
  bool contiguous = offset_hint && *offset_hint == 0 && all_hinted(meta);
  int64_t expected = 1;
  for (size_t d = meta.sizes.size(); contiguous && d-- > 0;) {
    const int64_t size = *meta.sizes[d].hint();
    contiguous = *meta.strides[d].hint() == expected;
    expected = saturating_mul(expected, size > 0 ? size : 1);
  }
  if (contiguous) return meta;
  meta.strides = contiguous_sym_strides(meta.sizes);
  meta.storage_offset = ir::SymInt(int64_t{0});
  return meta;
}

std::optional<bool> is_contiguous_layout(const ir::TensorMeta& meta) {
  if (!all_hinted(meta)) return std::nullopt;
  for (const ir::SymInt& s : meta.sizes) {
    if (*s.hint() == 0) return true;
  }
  int64_t expected = 1;
  for (size_t d = meta.sizes.size(); d-- > 0;) {
    const int64_t size = *meta.sizes[d].hint();
    if (size == 1) continue;
    if (*meta.strides[d].hint() != expected) return false;
    expected = saturating_mul(expected, size);
  }
  return true;
}

std::optional<bool> is_channels_last_layout(const ir::TensorMeta& meta) {
  if (meta.rank() != 4) return false;
  auto sizes = hints(meta.sizes);
  auto strides = hints(meta.strides);
  if (!sizes || !strides || strides->size() != 4) return std::nullopt;
  int64_t expected = 1;
  for (size_t d : {size_t{1}, size_t{3}, size_t{2}, size_t{0}}) {
    if ((*sizes)[d] == 1) continue;
    if ((*strides)[d] != expected) return false;
    expected = saturating_mul(expected, (*sizes)[d]);
  }
  return true;
}

std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  if (sizes.size() != 4) return ir::contiguous_strides(sizes);
  int64_t expected = 1;
  for (size_t d : {size_t{1}, size_t{3}, size_t{2}, size_t{0}}) {
    strides[d] = expected;
    expected = saturating_mul(expected, std::max<int64_t>(sizes[d], 1));
  }
  return strides;
}

std::optional<std::vector<int64_t>> torch_dim_order(const ir::TensorMeta& meta) {
  const size_t n = meta.rank();
  std::vector<int64_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int64_t>(i);
  if (n <= 1) return order;
  auto contiguous = is_contiguous_layout(meta);
  auto channels_last = is_channels_last_layout(meta);
  if (!contiguous || !channels_last) return std::nullopt;
  if (*contiguous && !*channels_last) return order;
  if (*channels_last && !*contiguous) {
    std::vector<int64_t> cl{0};
    for (size_t i = 2; i < n; ++i) cl.push_back(static_cast<int64_t>(i));
    cl.push_back(1);
    return cl;
  }
  auto sizes = hints(meta.sizes);
  auto strides = hints(meta.strides);
  if (!sizes || !strides) return std::nullopt;
  // Ambiguous or arbitrary strides: insertion sort of the reversed identity
  // permutation, innermost first; a > 0 comparison moves a dim inwards.
  auto compare = [&](int64_t a, int64_t b) {
    int64_t sa = (*strides)[static_cast<size_t>(a)], sb = (*strides)[static_cast<size_t>(b)];
    if (sa == 0 || sb == 0) return 0;
    if (sa < sb) return -1;
    if (sa > sb) return 1;
    if ((*sizes)[static_cast<size_t>(a)] > (*sizes)[static_cast<size_t>(b)]) return 1;
    return 0;
  };
  std::vector<int64_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int64_t>(n - 1 - i);
  for (size_t i = 1; i < n; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      int c = compare(perm[dim0], perm[dim1]);
      if (c > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::reverse(perm.begin(), perm.end());
  return perm;
}

ir::TensorMeta scalar_meta(ir::ScalarType dtype) { return ir::make_tensor_meta(dtype, {}); }

ir::Node make_call(std::string_view target, std::vector<ir::NamedArgument> inputs, const std::string& name) {
  std::string full =
      target.substr(0, 10) == "torch.ops." ? std::string(target) : "torch.ops." + std::string(target);
  return ir::Node(ir::OpTarget(full), std::move(inputs), {ir::arg_tensor(name)}, name);
}

std::optional<size_t> first_user_input_index(const ir::ExportedProgram& ep) {
  const auto& specs = ep.signature().input_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind == ir::InputKind::UserInput) return i;
  }
  return std::nullopt;
}

void sort_state_by_signature(ir::ExportedProgram& ep) {
  const auto& specs = ep.signature().input_specs;
  std::unordered_map<std::string_view, size_t> position;
  position.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) position.emplace(specs[i].name(), i);
  // One lookup per binding (not per comparison), then a stable sort of the keys.
  std::vector<ir::ConstantRef>& tensors = ep.state.tensors;
  std::vector<std::pair<size_t, size_t>> keyed(tensors.size());  // (position, current index)
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto it = position.find(tensors[i].placeholder);
    keyed[i] = {it == position.end() ? specs.size() : it->second, i};
  }
  if (std::is_sorted(keyed.begin(), keyed.end())) return;
  std::sort(keyed.begin(), keyed.end());  // ties keep their order: the index is the second key
  std::vector<ir::ConstantRef> sorted;
  sorted.reserve(tensors.size());
  for (const auto& [pos, i] : keyed) sorted.push_back(std::move(tensors[i]));
  tensors = std::move(sorted);
}

}  // namespace pteforge::passes::edge
