// Operator targets (Node.target, schema §5.1), interned.
//
// A program has few distinct targets but many nodes, so targets are interned
// in a process-wide table: an OpTarget is one pointer, compares by pointer,
// and exposes the parsed pieces of `torch.ops.<namespace>.<op>.<overload>`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pteforge::ir {

/// What kind of callee a target string names (§5.1).
enum class TargetKind : uint8_t {
  None,            ///< empty target
  Operator,        ///< torch.ops.<ns>.<op>.<overload> (ATen or custom op overload)
  HigherOrder,     ///< torch.ops.higher_order.<name>
  PythonOperator,  ///< _operator.<fn> (symbolic scalar arithmetic)
  Math,            ///< math.<fn>
  TorchFunction,   ///< torch.<fn> (torch.sym_int, torch.sym_max, ...)
  Extension,       ///< #<namespace>:<op> (registered serialization extension)
  Other,           ///< any other dotted Python callable
};

/// An interned operator target string with its parsed pieces.
class OpTarget {
 public:
  OpTarget();
  /// Interns `full` (e.g. "torch.ops.aten.add.Tensor"). Thread-safe.
  explicit OpTarget(std::string_view full);

  /// The full target string as in the JSON.
  std::string_view str() const;
  TargetKind kind() const;
  /// Operator namespace ("aten", "higher_order", "_operator", "math", "torch"); empty when none.
  std::string_view ns() const;
  /// Operator / function name ("add", "cond", "mul", "sym_max").
  std::string_view op() const;
  /// Overload name ("Tensor", "default"); empty for callables without overloads.
  std::string_view overload() const;
  /// The target without the "torch.ops." prefix ("aten.add.Tensor", "higher_order.cond");
  /// other targets unchanged.
  std::string_view short_name() const;
  bool empty() const;
  /// True when the target has a form torch.export writes (§5.1):
  /// torch.ops.<ns>.<op>[.<overload>], torch.ops.higher_order.<op>, the
  /// older torch.ops.<name> of namespace-less higher-order ops, a Python
  /// callable <module>.<name> (dotted identifiers), or #<ns>:<op>. False for
  /// the empty target and for text such as "!!!" or "torch.ops.aten.add.".
  bool well_formed() const;
  /// True for a higher-order op (delegate call, control flow, effects):
  /// torch.ops.higher_order.<op>, the older namespace-less torch.ops.<name>,
  /// and one written by its defining module's path,
  /// torch._higher_order_ops.<file>.<name> (a HOP whose Python object kept
  /// its own __module__).
  bool is_higher_order() const;

  /// True when the target is `name`, given either in full or in short form
  /// ("aten.add.Tensor" and "torch.ops.aten.add.Tensor" both match).
  bool is(std::string_view name) const;

  bool operator==(const OpTarget& o) const { return info_ == o.info_; }
  /// One address per distinct target text for the life of the process (the
  /// interned entry): a key for tables of facts about targets.
  const void* key() const { return info_; }

  struct Info;  ///< interned entry (implementation detail, defined in target.cpp)

 private:
  const Info* info_;
};

/// Remembers one fact per target: `get(target, compute)` calls compute()
/// the first time a target is asked for and returns that result afterwards
/// (the reference stays valid while the memo lives). compute() must not use
/// the same memo.
/// Keyed by OpTarget::key(), so a lookup hashes a pointer, not the text. Use
/// it for facts that depend only on the target text and on tables that never
/// change (the op table, the decomposition table); one per thread
/// (`thread_local`), as it does no locking. A program has few distinct
/// targets and many nodes, so this saves a text lookup per node.
template <typename T>
class TargetMemo {
 public:
  template <typename F>
  const T& get(const OpTarget& target, F&& compute) {
    if (auto it = facts_.find(target.key()); it != facts_.end()) return it->second;
    return facts_.emplace(target.key(), compute()).first->second;
  }

 private:
  std::unordered_map<const void*, T> facts_;
};

}  // namespace pteforge::ir
