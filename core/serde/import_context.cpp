// Importer context and generic helpers (see import_context.h).
#include "serde/import_context.h"

#include <algorithm>

namespace pteforge::serde::detail {

std::string PointerChain::str() const {
  std::string out = parent ? parent->str() : (base ? *base : std::string());
  out += '/';
  if (index != static_cast<size_t>(-1)) {
    out += std::to_string(index);
  } else {
    out += token;
  }
  return out;
}

void ImportContext::warn(const rapidjson::Value& at, std::string message, std::string_view key) {
  if (pending_.size() >= options_.max_warnings) {
    ++suppressed_;
    return;
  }
  pending_.push_back(PendingWarning{&at, std::string(key), std::move(message)});
}

void ImportContext::warn_repeated(const rapidjson::Value& at, std::string_view type, std::string_view key) {
  std::string message =
      "field \"" + std::string(key) + "\" is repeated in " + std::string(type) + ": the last value is used";
  if (repeated_.size() < 3) repeated_.push_back(PendingWarning{&at, std::string(key), message});
  warn(at, std::move(message), key);
}

Error ImportContext::with_warning_notes(Error err) const {
  if (!repeated_.empty()) {
    std::vector<std::string> pointers = pointers_of(repeated_);
    for (size_t i = 0; i < repeated_.size(); ++i) {
      err.notes.push_back(repeated_[i].message + " (at " + pointers[i] + ")");
    }
  }
  std::vector<PendingWarning> others;  // the first ones only: their pointers cost a document search
  size_t uncounted = suppressed_;
  for (const PendingWarning& w : pending_) {
    // A repeated field with a note of its own above is not listed again.
    auto same = [&w](const PendingWarning& r) { return r.at == w.at && r.key == w.key; };
    if (std::any_of(repeated_.begin(), repeated_.end(), same)) continue;
    if (others.size() <= kMaxEarlierWarningNotes) {  // one past the limit, so the count is right
      others.push_back(w);
    } else {
      ++uncounted;
    }
  }
  std::vector<std::string> pointers = pointers_of(others);
  std::vector<Diagnostic> warnings;
  for (size_t i = 0; i < others.size(); ++i) {
    Location where;
    where.pointer = pointers[i];
    warnings.push_back(Diagnostic{"warning", others[i].message, std::move(where)});
  }
  add_earlier_warning_notes(err, warnings, uncounted);
  return err;
}

std::vector<std::string> ImportContext::pointers_of(const std::vector<PendingWarning>& warnings) const {
  std::vector<const rapidjson::Value*> targets;
  targets.reserve(warnings.size());
  for (const auto& w : warnings) targets.push_back(w.at);
  std::vector<std::string> pointers = doc_.pointers_of(targets);
  for (size_t i = 0; i < warnings.size(); ++i) {
    if (warnings[i].key.empty()) continue;
    pointers[i] += '/';
    pointers[i] += escape_pointer_token(warnings[i].key);
  }
  return pointers;
}

std::vector<ImportWarning> ImportContext::take_warnings() {
  std::vector<std::string> pointers = pointers_of(pending_);
  std::vector<ImportWarning> out;
  out.reserve(pending_.size() + 1);
  for (size_t i = 0; i < pending_.size(); ++i) {
    ImportWarning w;
    w.message = std::move(pending_[i].message);
    w.where.pointer = std::move(pointers[i]);
    out.push_back(std::move(w));
  }
  if (suppressed_ > 0) {
    ImportWarning w;
    w.message = std::to_string(suppressed_) + " more warnings not shown";
    out.push_back(std::move(w));
  }
  pending_.clear();
  suppressed_ = 0;
  return out;
}

namespace {
template <typename T, typename Map, typename Make>
std::shared_ptr<const T> cached(Map& map, std::string_view text, Make&& make) {
  auto it = map.find(text);
  if (it != map.end()) return it->second;
  std::shared_ptr<const T> value = make();
  map.emplace(text, value);
  return value;
}
}  // namespace

std::shared_ptr<const std::string> ImportContext::stack_trace(std::string_view text) {
  return cached<std::string>(stack_traces_, text, [&] { return std::make_shared<const std::string>(text); });
}

std::shared_ptr<const ir::ModuleStack> ImportContext::module_stack(std::string_view text) {
  return cached<ir::ModuleStack>(module_stacks_, text, [&]() -> std::shared_ptr<const ir::ModuleStack> {
    auto parsed = ir::parse_nn_module_stack(text);
    if (!parsed) return nullptr;
    return std::make_shared<const ir::ModuleStack>(std::move(*parsed));
  });
}

std::shared_ptr<const ir::SourceFnStack> ImportContext::source_fn_stack(std::string_view text) {
  return cached<ir::SourceFnStack>(source_fns_, text, [&]() -> std::shared_ptr<const ir::SourceFnStack> {
    auto parsed = ir::parse_source_fn_stack(text);
    if (!parsed) return nullptr;
    return std::make_shared<const ir::SourceFnStack>(std::move(*parsed));
  });
}

std::shared_ptr<const ir::TorchFn> ImportContext::torch_fn(std::string_view text) {
  return cached<ir::TorchFn>(torch_fns_, text, [&]() -> std::shared_ptr<const ir::TorchFn> {
    auto parsed = ir::parse_torch_fn(text);
    if (!parsed) return nullptr;
    return std::make_shared<const ir::TorchFn>(std::move(*parsed));
  });
}

std::shared_ptr<const ir::SymExpr> ImportContext::sym_expr(std::string_view expr_str,
                                                           const std::optional<ir::SymExprHint>& hint) {
  auto it = sym_exprs_.find(expr_str);
  if (it != sym_exprs_.end() && it->second->hint == hint) return it->second;
  auto e = std::make_shared<const ir::SymExpr>(ir::SymExpr{std::string(expr_str), hint});
  if (it == sym_exprs_.end()) sym_exprs_.emplace(expr_str, e);
  return e;
}

Result<JsonCursor> required(const JsonCursor& obj, const rapidjson::Value* slot, std::string_view key,
                            std::string_view type) {
  if (!slot) {
    return obj.error_at_key(key, ErrorCode::INPUT_SCHEMA,
                            "missing required field \"" + std::string(key) + "\" of " + std::string(type));
  }
  return obj.with(*slot);
}

std::optional<JsonCursor> optional(const JsonCursor& obj, const rapidjson::Value* slot) {
  if (!slot || slot->IsNull()) return std::nullopt;
  return obj.with(*slot);
}

Result<UnionValue> read_union(const JsonCursor& c, std::string_view type) {
  if (!c.is_object()) {
    return c.error(ErrorCode::INPUT_SCHEMA, "expected " + with_article(type) + " union (an object with one key), found " +
                                                std::string(json_type_name(c.value())));
  }
  if (c.value().MemberCount() != 1) {
    return c.error(ErrorCode::INPUT_SCHEMA, "expected exactly one key in " + with_article(type) + " union, found " +
                                                std::to_string(c.value().MemberCount()));
  }
  const auto& m = *c.value().MemberBegin();
  return UnionValue{std::string_view(m.name.GetString(), m.name.GetStringLength()), c.with(m.value)};
}

Error unknown_tag(const JsonCursor& c, const UnionValue& u, std::string_view type, std::string_view valid) {
  return c.error_at_key(u.tag, ErrorCode::UNKNOWN_UNION_TAG,
                        "unknown " + std::string(type) + " tag \"" + std::string(u.tag) + "\" (expected one of " +
                            std::string(valid) + ")");
}

}  // namespace pteforge::serde::detail
