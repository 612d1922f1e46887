#include "passes/memory_plan/prepare.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace pteforge::memplan::detail {

Error plan_error(std::string message) {
  Location where;
  where.pass = "memory_planning";
  return make_error(ErrorCode::PASS_FAILED, std::move(message), where);
}

Result<uint64_t> round_up(uint64_t value, uint64_t alignment) {
  const uint64_t rem = value % alignment;
  if (rem == 0) return value;
  const uint64_t pad = alignment - rem;
  if (value > UINT64_MAX - pad) {
    return plan_error("size " + std::to_string(value) + " rounded up to alignment " +
                      std::to_string(alignment) + " overflows 64 bits");
  }
  return value + pad;
}

Result<uint64_t> add_bytes(uint64_t a, uint64_t b, const char* what) {
  if (a > UINT64_MAX - b) {
    return plan_error(std::string(what) + " overflows 64 bits (" + std::to_string(a) + " + " +
                      std::to_string(b) + ")");
  }
  return a + b;
}

std::string describe_tensor(const std::vector<PlannedTensor>& tensors, size_t index) {
  return "tensor #" + std::to_string(index) + " (id " + std::to_string(tensors[index].id) + ")";
}

namespace {

Error option_error(std::string message) {
  Location where;
  where.pass = "memory_planning";
  return make_error(ErrorCode::OPTION_INVALID, std::move(message), where);
}

// Follows alias_of links from `start`; fills root[] for every tensor on the way.
// state: 0 = not seen, 1 = on the current chain, 2 = resolved. `chain` is
// scratch space, reused between calls (one allocation, not one per tensor).
Status resolve_root(const std::vector<PlannedTensor>& tensors, size_t start,
                    std::vector<uint8_t>& state, std::vector<size_t>& root, std::vector<size_t>& chain) {
  chain.clear();
  size_t cur = start;
  while (state[cur] == 0) {
    state[cur] = 1;
    chain.push_back(cur);
    if (!tensors[cur].alias_of) {
      root[cur] = cur;
      state[cur] = 2;
      break;
    }
    const size_t next = *tensors[cur].alias_of;
    if (next >= tensors.size()) {
      return plan_error(describe_tensor(tensors, cur) + ": alias_of " + std::to_string(next) +
                        " is out of range (there are " + std::to_string(tensors.size()) +
                        " tensors)");
    }
    cur = next;
  }
  if (state[cur] == 1) {
    return plan_error(describe_tensor(tensors, start) +
                      ": circular alias chain (inplace_base) through " + describe_tensor(tensors, cur));
  }
  const size_t r = root[cur];
  for (size_t i : chain) {
    root[i] = r;
    state[i] = 2;
  }
  return Status::Ok();
}

}  // namespace

Result<Prepared> prepare(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  if (options.alignment == 0) return option_error("memory planning alignment must be > 0, got 0");
  if (options.sort_alignment == 0) {
    return option_error("memory planning sort_alignment must be > 0, got 0");
  }
  if (options.reserved.size() > static_cast<size_t>(kMaxMemId) + 1) {
    return option_error("reserved lists " + std::to_string(options.reserved.size()) +
                        " pools; at most " + std::to_string(kMaxMemId + 1) + " are supported");
  }
  const size_t n = tensors.size();
  Prepared p;
  p.aligned.resize(n);
  p.root.resize(n);
  p.pool.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const PlannedTensor& t = tensors[i];
    if (t.first_use < 0 || t.first_use > t.last_use) {
      return plan_error(describe_tensor(tensors, i) + ": lifetime [" + std::to_string(t.first_use) +
                        ", " + std::to_string(t.last_use) +
                        "] is not a valid node range (expected 0 <= first_use <= last_use)");
    }
    if (t.mem_id > kMaxMemId) {
      return plan_error(describe_tensor(tensors, i) + ": mem_id " + std::to_string(t.mem_id) +
                        " is above the supported maximum " + std::to_string(kMaxMemId));
    }
    PTEFORGE_ASSIGN_OR_RETURN(p.aligned[i], round_up(t.nbytes, options.alignment));
  }
  std::vector<uint8_t> state(n, 0);
  std::vector<size_t> chain;
  for (size_t i = 0; i < n; ++i) {
    if (state[i] == 0) PTEFORGE_TRY(resolve_root(tensors, i, state, p.root, chain));
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t root_id = tensors[p.root[i]].mem_id;
    p.pool[i] = root_id == 0 ? kDefaultMemId : root_id;
    if (tensors[i].mem_id != 0 && tensors[i].mem_id != p.pool[i]) {
      return plan_error(describe_tensor(tensors, i) + ": preset mem_id " +
                        std::to_string(tensors[i].mem_id) + " differs from mem_id " +
                        std::to_string(p.pool[i]) + " of the tensor it aliases, " +
                        describe_tensor(tensors, p.root[i]));
    }
  }
  return p;
}

Result<std::vector<size_t>> greedy_order(const std::vector<PlannedTensor>& tensors, const PlanOptions& options) {
  const size_t n = tensors.size();
  std::vector<uint64_t> key(n);
  for (size_t i = 0; i < n; ++i) {
    PTEFORGE_ASSIGN_OR_RETURN(key[i], round_up(tensors[i].nbytes, options.sort_alignment));
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
  std::reverse(order.begin(), order.end());
  return order;
}

Error greedy_misfit_error(const std::vector<PlannedTensor>& tensors, size_t t, uint64_t size, uint64_t object_size,
                          const PlanOptions& options) {
  return plan_error(describe_tensor(tensors, t) + " (" + std::to_string(size) + " bytes) does not fit the " +
                    std::to_string(object_size) +
                    "-byte shared object it was matched with: the greedy order by sort_alignment " +
                    std::to_string(options.sort_alignment) + " is not an order by alignment " +
                    std::to_string(options.alignment));
}

}  // namespace pteforge::memplan::detail
