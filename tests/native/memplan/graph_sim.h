// Test helper: derives planned-tensor lifetimes the way ExecuTorch's memory
// planning does (executorch-pipeline.md §6.1.2) from a simulated node list.
// Tensors are collected in creation order, which the tests keep equal to the
// order of first mention in the graph (ExecuTorch's collection order).
#pragma once

#include <cstdint>
#include <vector>

#include "passes/memory_plan/memory_plan.h"

namespace memplan_test {

using pteforge::memplan::PlannedTensor;

class GraphSim {
 public:
  /// Registers a planned tensor; its lifetime is set by the nodes that mention it.
  size_t tensor(uint64_t id, uint64_t nbytes) {
    PlannedTensor t;
    t.id = id;
    t.nbytes = nbytes;
    t.first_use = -1;
    t.last_use = -1;
    tensors_.push_back(t);
    return tensors_.size() - 1;
  }
  /// Appends a node mentioning `uses` (its own spec and its arguments); returns its index.
  int64_t node(const std::vector<size_t>& uses) {
    const int64_t idx = next_++;
    for (size_t t : uses) mention(t, idx);
    return idx;
  }
  /// Appends a placeholder node for `t`: its lifetime starts at 0.
  int64_t placeholder(size_t t) {
    const int64_t idx = node({t});
    tensors_[t].first_use = 0;
    return idx;
  }
  /// Appends `count` nodes that mention no planned tensor (constants, getattr).
  void skip(int64_t count) { next_ += count; }
  /// An out-variant op: one alloc node per output, then the op node using inputs and outputs.
  std::vector<size_t> op(const std::vector<size_t>& inputs, const std::vector<std::pair<uint64_t, uint64_t>>& outs) {
    std::vector<size_t> created;
    for (const auto& [id, nbytes] : outs) {
      const size_t t = tensor(id, nbytes);
      node({t});
      created.push_back(t);
    }
    std::vector<size_t> uses = inputs;
    uses.insert(uses.end(), created.begin(), created.end());
    node(uses);
    return created;
  }
  int64_t node_count() const { return next_; }
  std::vector<PlannedTensor>& tensors() { return tensors_; }

 private:
  void mention(size_t t, int64_t idx) {
    PlannedTensor& s = tensors_[t];
    if (s.first_use < 0 || idx < s.first_use) s.first_use = idx;
    if (s.last_use < 0 || idx > s.last_use) s.last_use = idx;
  }

  std::vector<PlannedTensor> tensors_;
  int64_t next_ = 0;
};

}  // namespace memplan_test
