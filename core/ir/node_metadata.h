// Node metadata (Node.metadata, §6), parsed into structure.
//
// The four keys torch.export writes for every node are parsed:
// `stack_trace` (text), `nn_module_stack` (key/path/type triples, §6.1),
// `source_fn_stack` (name/target pairs), `torch_fn` (name/target). Keys this
// reader does not model (`custom`, `from_node`, future keys) and values that
// do not follow the documented encoding are kept verbatim in `other`, so a
// write reproduces them. Parsed values are immutable and shared: nodes from
// the same source line share one object (cheap copies when passes clone
// metadata).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pteforge::ir {

/// One nn_module_stack entry: an opaque invocation key, the module path
/// relative to the root ("" for the root, "block.linear"), and its class.
struct ModuleFrame {
  std::string key;
  std::string path;
  std::string type;
  bool operator==(const ModuleFrame&) const = default;
};
using ModuleStack = std::vector<ModuleFrame>;

/// One source_fn_stack entry: a user-level callable name and its target.
struct SourceFnFrame {
  std::string name;
  std::string target;
  bool operator==(const SourceFnFrame&) const = default;
};
using SourceFnStack = std::vector<SourceFnFrame>;

/// torch_fn: "<fn name>_<counter>;<callee type>.<fn name>".
struct TorchFn {
  std::string name;
  std::string target;
  bool operator==(const TorchFn&) const = default;
};

/// Metadata of one node. Null pointers mean "key absent".
struct NodeMetadata {
  std::shared_ptr<const std::string> stack_trace;
  std::shared_ptr<const ModuleStack> nn_module_stack;  ///< outermost first
  std::shared_ptr<const SourceFnStack> source_fn_stack;
  std::shared_ptr<const TorchFn> torch_fn;
  /// Keys not modelled above (or not in the documented encoding), verbatim, input order.
  std::vector<std::pair<std::string, std::string>> other;

  bool operator==(const NodeMetadata& o) const;
  bool empty() const { return !stack_trace && !nn_module_stack && !source_fn_stack && !torch_fn && other.empty(); }

  /// The stack trace text, or "" when absent.
  std::string_view stack_trace_text() const { return stack_trace ? std::string_view(*stack_trace) : std::string_view(); }
  /// The first frame of the stack trace as "path:line in function" ("" when absent).
  std::string source() const;
  /// The innermost module path of nn_module_stack ("" when absent or at the root).
  std::string_view module_path() const;
  /// Value of an unmodelled key, or nullptr.
  const std::string* find_other(std::string_view key) const;
};

/// Parses nn_module_stack text (§6.1): entries split on ';', fields on commas
/// at bracket depth 0, exactly 3 fields each. nullopt when malformed.
std::optional<ModuleStack> parse_nn_module_stack(std::string_view text);
/// Inverse of parse_nn_module_stack (byte-identical for parsed input).
std::string format_nn_module_stack(const ModuleStack& stack);
/// Parses source_fn_stack text: entries split on ';', each "<name>,<target>" split
/// at its first comma. nullopt when malformed.
std::optional<SourceFnStack> parse_source_fn_stack(std::string_view text);
std::string format_source_fn_stack(const SourceFnStack& stack);
/// Parses torch_fn text "<name>;<target>" (exactly one ';'). nullopt when malformed.
std::optional<TorchFn> parse_torch_fn(std::string_view text);
std::string format_torch_fn(const TorchFn& fn);
/// First frame of a Python-style stack trace as "path:line in function"; the
/// first non-empty line (trimmed) when the text is not in traceback form.
std::string stack_trace_first_frame(std::string_view text);

}  // namespace pteforge::ir
