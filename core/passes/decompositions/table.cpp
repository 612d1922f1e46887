// The decomposition table (see table.h).
#include "passes/decompositions/table.h"

#include <algorithm>

#include "ir/target.h"

namespace pteforge::passes::decomp {

const std::vector<Decomposition>& decompositions() {
  static const std::vector<Decomposition> table = [] {
    std::vector<Decomposition> t;
    add_linalg_decompositions(t);
    add_conv_decompositions(t);
    add_norm_decompositions(t);
    add_activation_decompositions(t);
    add_pooling_decompositions(t);
    add_shape_decompositions(t);
    add_creation_decompositions(t);
    add_attention_decompositions(t);
    add_pointwise_decompositions(t);
    add_indexing_decompositions(t);
    add_rnn_decompositions(t);
    add_loss_decompositions(t);
    add_alias_decompositions(t);
    std::sort(t.begin(), t.end(), [](const Decomposition& a, const Decomposition& b) { return a.target < b.target; });
    return t;
  }();
  return table;
}

const Decomposition* find_decomposition(std::string_view short_target) {
  const auto& t = decompositions();
  auto it = std::lower_bound(t.begin(), t.end(), short_target,
                             [](const Decomposition& d, std::string_view k) { return d.target < k; });
  if (it == t.end() || it->target != short_target) return nullptr;
  return &*it;
}

const Decomposition* find_decomposition(const ir::OpTarget& target) {
  thread_local ir::TargetMemo<const Decomposition*> rules;
  return rules.get(target, [&target] { return find_decomposition(target.short_name()); });
}

}  // namespace pteforge::passes::decomp
