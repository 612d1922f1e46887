// PayloadConfig reader and writer (see payload_config.h).
#include "serde/payload_config.h"

#include "serde/import_context.h"
#include "serde/py_json_writer.h"
#include "serde/write_schema.h"

namespace pteforge::serde {
namespace {

using detail::ImportContext;
using detail::optional;
using detail::read_struct;
using detail::required;

Result<PayloadConfig> read_config(ImportContext& ctx) {
  JsonCursor root = ctx.root();
  static constexpr std::array<std::string_view, 1> kKeys = {"config"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, root, "PayloadConfig", kKeys));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor config, required(root, s[0], "config", "PayloadConfig"));
  PTEFORGE_TRY(config.expect_object());
  PayloadConfig out;
  for (const auto& m : config.value().GetObject()) {
    std::string fqn(m.name.GetString(), m.name.GetStringLength());
    JsonCursor e = config.with(m.value);
    static constexpr std::array<std::string_view, 4> kMetaKeys = {"path_name", "is_param", "use_pickle",
                                                                  "tensor_meta"};
    PTEFORGE_ASSIGN_OR_RETURN(auto ms, read_struct(ctx, e, "PayloadMeta", kMetaKeys));
    PayloadMeta meta;
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor path, required(e, ms[0], "path_name", "PayloadMeta"));
    PTEFORGE_ASSIGN_OR_RETURN(std::string_view p, path.as_string());
    meta.path_name = std::string(p);
    if (p.empty() || p.find('/') != std::string_view::npos || p.find('\\') != std::string_view::npos ||
        p == "." || p == "..") {
      return path.error(ErrorCode::INPUT_SCHEMA, "path_name \"" + meta.path_name + "\" is not a plain file name");
    }
    if (auto v = optional(e, ms[1])) {
      PTEFORGE_ASSIGN_OR_RETURN(meta.is_param, v->as_bool());
    }
    if (auto v = optional(e, ms[2])) {
      PTEFORGE_ASSIGN_OR_RETURN(meta.use_pickle, v->as_bool());
    }
    if (auto v = optional(e, ms[3])) {
      PTEFORGE_ASSIGN_OR_RETURN(ir::TensorMeta tm, detail::read_tensor_meta(ctx, *v));
      meta.tensor_meta = std::move(tm);
    }
    if (out.find(fqn)) {
      return config.error_at_key(fqn, ErrorCode::INPUT_SCHEMA, "duplicate key \"" + fqn + "\" in config");
    }
    out.set(std::move(fqn), std::move(meta));
  }
  return out;
}


}  // namespace

const PayloadMeta* PayloadConfig::find(std::string_view fqn) const {
  auto it = index_.find(std::string(fqn));
  return it == index_.end() ? nullptr : &entries[it->second].second;
}

void PayloadConfig::set(std::string fqn, PayloadMeta meta) {
  auto it = index_.find(fqn);
  if (it != index_.end()) {
    entries[it->second].second = std::move(meta);
    return;
  }
  index_.emplace(fqn, entries.size());
  entries.emplace_back(std::move(fqn), std::move(meta));
}

Result<PayloadConfig> parse_payload_config(std::string_view json, std::string entry_name) {
  auto add_entry = [&entry_name](Error e) {
    e.where.entry = entry_name;
    return e;
  };
  auto doc = JsonDocument::parse(std::string(json));
  if (!doc.ok()) return add_entry(std::move(doc).error());
  ImportOptions options;
  ImportContext ctx(**doc, options);
  auto config = read_config(ctx);
  if (!config.ok()) return add_entry(std::move(config).error());
  config->entry_name = entry_name;
  config->warnings = ctx.take_warnings();
  for (auto& w : config->warnings) w.where.entry = entry_name;
  return config;
}

Result<PayloadConfig> read_payload_config(Archive& archive, const Pt2Model& model, PayloadFolder folder,
                                          uint64_t max_bytes) {
  const std::optional<std::string>& entry =
      folder == PayloadFolder::kWeights ? model.weights_config_entry : model.constants_config_entry;
  if (!entry) {
    PayloadConfig none;
    none.missing_entry = expected_config_entry(model, folder);
    return none;
  }
  PTEFORGE_ASSIGN_OR_RETURN(std::string text, read_entry(archive, *entry, max_bytes));
  return parse_payload_config(text, *entry);
}

std::string write_payload_config(const PayloadConfig& config) {
  std::string out;
  PyJsonWriter w(out);
  w.begin_object();
  w.key("config");
  w.begin_object();
  for (const auto& [fqn, meta] : config.entries) {
    w.key(fqn);
    w.begin_object();
    w.key("path_name");
    w.string(meta.path_name);
    w.key("is_param");
    w.boolean(meta.is_param);
    w.key("use_pickle");
    w.boolean(meta.use_pickle);
    w.key("tensor_meta");
    if (meta.tensor_meta) {
      detail::write_tensor_meta(w, *meta.tensor_meta);
    } else {
      w.null();
    }
    w.end_object();
  }
  w.end_object();
  w.end_object();
  return out;
}

}  // namespace pteforge::serde
