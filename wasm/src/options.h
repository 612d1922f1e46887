// Options from JS, as JSON text parsed with serde::JsonCursor so every
// mistake names its place (engineering-notes D9: no probing of JS objects from
// C++). Errors are OPTION_INVALID with where.pointer into the options object
// (e.g. "/passes/2").
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "serde/json_cursor.h"
#include "support/error.h"

namespace pteforge::wasm {

/// `v` re-serialized as compact JSON text (an option value the core reads as
/// JSON: constantMethods, a swap's input description).
std::string compact_json(const rapidjson::Value& v);

/// A parsed options object and the members read so far, to reject unknown keys.
class OptionsReader {
 public:
  /// Parses `json`, which must be an object. Errors: OPTION_INVALID.
  static Result<OptionsReader> parse(std::string_view json);

  /// Member `key` as a string / bool / non-negative integer; `fallback` when absent.
  Result<std::string> get_string(std::string_view key, std::string fallback = {});
  Result<bool> get_bool(std::string_view key, bool fallback);
  Result<uint64_t> get_size(std::string_view key, uint64_t fallback);
  /// Member `key` as a list of strings; empty when absent.
  Result<std::vector<std::string>> get_strings(std::string_view key);
  /// The cursor of member `key` (marked as read), or nullopt.
  std::optional<serde::JsonCursor> take(std::string_view key);

  /// OPTION_INVALID for the first member not read by a getter ("unknown option").
  Status reject_unknown() const;

 private:
  explicit OptionsReader(std::unique_ptr<serde::JsonDocument> doc) : doc_(std::move(doc)) {}
  serde::JsonCursor root() const { return serde::JsonCursor(*doc_, doc_->root()); }
  Error invalid(const serde::JsonCursor& at, std::string message) const;
  std::unique_ptr<serde::JsonDocument> doc_;
  std::vector<std::string> read_;
};

}  // namespace pteforge::wasm
