// Shared state and helpers of the program JSON importer (internal to serde).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/argument.h"
#include "ir/exported_program.h"
#include "ir/node_metadata.h"
#include "ir/tensor_meta.h"
#include "serde/import_exported_program.h"
#include "serde/json_cursor.h"
#include "support/name_map.h"

namespace pteforge::serde::detail {

struct StreamedGraph;

/// Nesting limit for recursive structures (subgraphs, dict arguments).
inline constexpr int kMaxNesting = 64;

/// A lazily built JSON pointer: a chain of tokens kept on the stack, turned
/// into a string only when needed (nested graph origins).
struct PointerChain {
  const PointerChain* parent = nullptr;
  const std::string* base = nullptr;  ///< used when parent is null
  std::string_view token;             ///< already escaped
  size_t index = static_cast<size_t>(-1);  ///< numeric token instead of `token`
  std::string str() const;
};

class ImportContext {
 public:
  ImportContext(const JsonDocument& doc, const ImportOptions& options) : doc_(doc), options_(options) {}

  const JsonDocument& doc() const { return doc_; }
  const ImportOptions& options() const { return options_; }
  JsonCursor root() const { return JsonCursor(doc_, doc_.root()); }

  /// Records a warning at `at` (+ "/key" when key is given).
  void warn(const rapidjson::Value& at, std::string message, std::string_view key = {});
  /// The warnings with their pointers resolved (one document search).
  std::vector<ImportWarning> take_warnings();
  /// Records a struct field given twice in the object `at`: a warning (the
  /// last value is used, as Python's json module does) that is also kept as
  /// a note for any error the import then reports, since the ignored first
  /// value often explains it (e.g. an empty tensor_values after the real one).
  void warn_repeated(const rapidjson::Value& at, std::string_view type, std::string_view key);
  /// `err` with one note per repeated field recorded so far (at most 3, with
  /// pointers), then the other warnings recorded so far, as
  /// add_earlier_warning_notes writes them ("earlier warning: MESSAGE
  /// (pointer=P)"): a failed import returns no warnings.
  Error with_warning_notes(Error err) const;

  /// Shared copies of repeated metadata strings and parsed metadata; nullptr when malformed.
  std::shared_ptr<const std::string> stack_trace(std::string_view text);
  std::shared_ptr<const ir::ModuleStack> module_stack(std::string_view text);
  std::shared_ptr<const ir::SourceFnStack> source_fn_stack(std::string_view text);
  std::shared_ptr<const ir::TorchFn> torch_fn(std::string_view text);
  /// A shared SymExpr for (expr_str, hint).
  std::shared_ptr<const ir::SymExpr> sym_expr(std::string_view expr_str, const std::optional<ir::SymExprHint>& hint);

  int depth = 0;
  /// The top-level graph's nodes and tensor_values, already read by the
  /// streaming fast path (stream_graph.h); read_graph uses them for the graph
  /// at /graph_module/graph instead of the (empty) document members.
  StreamedGraph* streamed = nullptr;

 private:
  struct PendingWarning {
    const rapidjson::Value* at;
    std::string key;
    std::string message;
  };
  /// Each warning's pointer: its value's pointer, plus "/key" when it has a key (one document search).
  std::vector<std::string> pointers_of(const std::vector<PendingWarning>& warnings) const;

  const JsonDocument& doc_;
  const ImportOptions& options_;
  std::vector<PendingWarning> pending_;
  std::vector<PendingWarning> repeated_;  // for with_warning_notes, not capped by max_warnings
  size_t suppressed_ = 0;
  NameMap<std::shared_ptr<const std::string>> stack_traces_;
  NameMap<std::shared_ptr<const ir::ModuleStack>> module_stacks_;
  NameMap<std::shared_ptr<const ir::SourceFnStack>> source_fns_;
  NameMap<std::shared_ptr<const ir::TorchFn>> torch_fns_;
  NameMap<std::shared_ptr<const ir::SymExpr>> sym_exprs_;
};

/// Slots of a struct's known members (nullptr = absent).
template <size_t N>
using Slots = std::array<const rapidjson::Value*, N>;

/// Reads the members of a JSON object representing schema struct `type`:
/// known keys into slots (a repeated key: the last one wins, with a warning),
/// unknown keys reported as warnings.
/// INPUT_SCHEMA when `c` is not an object.
template <size_t N>
Result<Slots<N>> read_struct(ImportContext& ctx, const JsonCursor& c, std::string_view type,
                             const std::array<std::string_view, N>& keys) {
  if (!c.is_object()) {
    return c.error(ErrorCode::INPUT_SCHEMA,
                   "expected " + with_article(type) + " object, found " + std::string(json_type_name(c.value())));
  }
  Slots<N> slots{};
  // Members usually come in the schema's order: the search for each starts
  // at the key after the last one found, so most members cost one compare.
  size_t next = 0;
  for (const auto& m : c.value().GetObject()) {
    std::string_view k(m.name.GetString(), m.name.GetStringLength());
    size_t found = N;
    for (size_t step = 0; step < N; ++step) {
      const size_t i = next + step < N ? next + step : next + step - N;
      if (keys[i] == k) {
        found = i;
        break;
      }
    }
    if (found == N) {
      ctx.warn(c.value(), "unknown field \"" + std::string(k) + "\" in " + std::string(type) + " ignored", k);
      continue;
    }
    if (slots[found]) ctx.warn_repeated(c.value(), type, k);
    slots[found] = &m.value;
    next = found + 1 < N ? found + 1 : 0;
  }
  return slots;
}

/// The member in `slot`; INPUT_SCHEMA "missing required field" when absent.
Result<JsonCursor> required(const JsonCursor& obj, const rapidjson::Value* slot, std::string_view key,
                            std::string_view type);
/// The member in `slot`, or nullopt when absent or JSON null.
std::optional<JsonCursor> optional(const JsonCursor& obj, const rapidjson::Value* slot);

/// A single-key union object: its tag and payload. INPUT_SCHEMA when not an
/// object with exactly one member.
struct UnionValue {
  std::string_view tag;
  JsonCursor payload;
};
Result<UnionValue> read_union(const JsonCursor& c, std::string_view type);
/// UNKNOWN_UNION_TAG for `u` (pointer names the tag), listing the valid tags.
Error unknown_tag(const JsonCursor& c, const UnionValue& u, std::string_view type, std::string_view valid);

// Readers for schema types (import_graph.cpp).
Result<ir::TensorMeta> read_tensor_meta(ImportContext& ctx, const JsonCursor& c);
Result<ir::SymInt> read_sym_int(ImportContext& ctx, const JsonCursor& c);
Result<ir::SymFloat> read_sym_float(ImportContext& ctx, const JsonCursor& c);
Result<ir::SymBool> read_sym_bool(ImportContext& ctx, const JsonCursor& c);
Result<ir::Device> read_device(ImportContext& ctx, const JsonCursor& c);
Result<ir::ScalarType> read_dtype(const JsonCursor& c);
Result<std::string> read_tensor_argument(ImportContext& ctx, const JsonCursor& c, std::string_view type = "TensorArgument");
Result<ir::CustomObjArgument> read_custom_obj(ImportContext& ctx, const JsonCursor& c);
/// An Argument; `path` (may be null) is the pointer of `c`, used to name nested graphs cheaply.
Result<ir::Argument> read_argument(ImportContext& ctx, const JsonCursor& c, const PointerChain* path);
Result<ir::Graph> read_graph(ImportContext& ctx, const JsonCursor& c, std::shared_ptr<const std::string> pointer);

// Signature and module call graph (import_signature.cpp).
Result<ir::GraphSignature> read_signature(ImportContext& ctx, const JsonCursor& c);
Result<std::vector<ir::ModuleCallEntry>> read_module_call_graph(ImportContext& ctx, const JsonCursor& c);

}  // namespace pteforge::serde::detail
