// Importer entry point: the ExportedProgram document (torch-export-format.md
// §3.2, §9.3, §11). See import_exported_program.h for the contract.
#include "serde/import_exported_program.h"

#include <algorithm>
#include <cmath>

#include "ir/verifier.h"
#include "ops/call_arguments.h"
#include "serde/import_context.h"
#include "serde/stream_graph.h"
#include "support/background_job.h"
#include "support/utf8.h"

namespace pteforge::serde {
namespace {

using detail::ImportContext;
using detail::optional;
using detail::read_struct;
using detail::required;

Status check_schema_version(ImportContext& ctx, const JsonCursor& root, const rapidjson::Value* slot,
                            ir::SchemaVersion& out) {
  if (!slot) {
    if (ctx.options().assumed_schema_version) {
      out = *ctx.options().assumed_schema_version;
    } else {
      out = ir::SchemaVersion{8, 0};
      ctx.warn(root.value(), "the program has no schema_version; reading it as schema 8.x");
    }
  } else {
    JsonCursor c = root.with(*slot);
    static constexpr std::array<std::string_view, 2> kKeys = {"major", "minor"};
    PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "SchemaVersion", kKeys));
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor major, required(c, s[0], "major", "SchemaVersion"));
    PTEFORGE_ASSIGN_OR_RETURN(out.major, major.as_int());
    PTEFORGE_ASSIGN_OR_RETURN(JsonCursor minor, required(c, s[1], "minor", "SchemaVersion"));
    PTEFORGE_ASSIGN_OR_RETURN(out.minor, minor.as_int());
    if (out.major == 9) {
      ctx.warn(*slot, "schema 9." + std::to_string(out.minor) +
                          " is experimental; reading it with the schema 8.x rules");
      return Status::Ok();
    }
    if (out.major == 0 && out.minor == 0) {
      ctx.warn(*slot, "schema_version 0.0 (unversioned); reading it as schema 8.x");
      return Status::Ok();
    }
    if (out.major != 8) {
      return major.error(ErrorCode::UNSUPPORTED_SCHEMA_VERSION,
                         "schema version " + std::to_string(out.major) + "." + std::to_string(out.minor) +
                             " is not supported (pteforge reads schema 8.x, and 9.x with a warning)");
    }
    return Status::Ok();
  }
  if (out.major != 8 && out.major != 9) {
    return make_error(ErrorCode::UNSUPPORTED_SCHEMA_VERSION,
                      "schema version " + std::to_string(out.major) + "." + std::to_string(out.minor) +
                          " is not supported (pteforge reads schema 8.x, and 9.x with a warning)");
  }
  return Status::Ok();
}

/// A range bound: integer, null, "Infinity"/"-Infinity" (older files), or a
/// non-finite number (very old files) → nullopt = unbounded (§9.3).
Result<std::optional<int64_t>> read_bound(const JsonCursor& c, bool upper) {
  const rapidjson::Value& v = c.value();
  if (v.IsNull()) return std::optional<int64_t>();
  // An infinity on its own side means unbounded; on the other side the range
  // is empty, which torch's ValueRanges refuses ("Invalid ranges").
  auto infinite = [&c, upper](double d) -> Result<std::optional<int64_t>> {
    if ((d > 0) == upper) return std::optional<int64_t>();
    return c.error(
        ErrorCode::INPUT_SCHEMA,
        std::string(upper ? "max_val is -Infinity" : "min_val is Infinity") + ": the range is empty");
  };
  if (v.IsString()) {
    PTEFORGE_ASSIGN_OR_RETURN(double d, c.as_float());
    if (std::isinf(d)) return infinite(d);
    return c.error(ErrorCode::INPUT_SCHEMA, "expected an integer bound, null or \"Infinity\"");
  }
  if (v.IsDouble() && std::isinf(v.GetDouble())) return infinite(v.GetDouble());
  PTEFORGE_ASSIGN_OR_RETURN(int64_t n, c.as_int());
  return std::optional<int64_t>(n);
}

Result<ir::GraphModule> read_graph_module(ImportContext& ctx, const JsonCursor& c) {
  static constexpr std::array<std::string_view, 5> kKeys = {"graph", "signature", "module_call_graph", "metadata",
                                                            "treespec_namedtuple_fields"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, c, "GraphModule", kKeys));
  ir::GraphModule gm;
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor graph, required(c, s[0], "graph", "GraphModule"));
  PTEFORGE_ASSIGN_OR_RETURN(gm.graph,
                            detail::read_graph(ctx, graph, std::make_shared<const std::string>("/graph_module/graph")));
  PTEFORGE_ASSIGN_OR_RETURN(JsonCursor sig, required(c, s[1], "signature", "GraphModule"));
  PTEFORGE_ASSIGN_OR_RETURN(gm.signature, detail::read_signature(ctx, sig));
  if (auto mcg = optional(c, s[2])) {
    PTEFORGE_ASSIGN_OR_RETURN(gm.module_call_graph, detail::read_module_call_graph(ctx, *mcg));
  }
  if (auto md = optional(c, s[3])) {
    PTEFORGE_TRY(md->expect_object());
    for (const auto& m : md->value().GetObject()) {
      JsonCursor v = md->with(m.value);
      PTEFORGE_ASSIGN_OR_RETURN(std::string_view text, v.as_string());
      gm.metadata.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), std::string(text));
    }
  }
  if (auto nt = optional(c, s[4])) {
    PTEFORGE_TRY(nt->expect_object());
    for (const auto& m : nt->value().GetObject()) {
      JsonCursor def = nt->with(m.value);
      static constexpr std::array<std::string_view, 1> kDefKeys = {"field_names"};
      PTEFORGE_ASSIGN_OR_RETURN(auto ds, read_struct(ctx, def, "NamedTupleDef", kDefKeys));
      PTEFORGE_ASSIGN_OR_RETURN(JsonCursor names, required(def, ds[0], "field_names", "NamedTupleDef"));
      PTEFORGE_TRY(names.expect_array());
      std::vector<std::string> fields;
      for (const auto& f : names.value().GetArray()) {
        PTEFORGE_ASSIGN_OR_RETURN(std::string_view fs, names.with(f).as_string());
        fields.emplace_back(fs);
      }
      gm.treespec_namedtuple_fields.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                                                 std::move(fields));
    }
  }
  return gm;
}

Result<std::vector<std::string>> read_strings(const JsonCursor& c) {
  PTEFORGE_TRY(c.expect_array());
  std::vector<std::string> out;
  for (const auto& e : c.value().GetArray()) {
    PTEFORGE_ASSIGN_OR_RETURN(std::string_view s, c.with(e).as_string());
    out.emplace_back(s);
  }
  return out;
}

/// A note for a document that holds programs by method name instead of one
/// program ({"forward": {"graph_module": ...}, ...}, as `convert
/// --export-program` writes it), or nullptr.
const char* methods_map_note(const rapidjson::Value& root) {
  if (!root.IsObject() || root.MemberCount() == 0) return nullptr;
  for (rapidjson::SizeType i = 0; i < root.MemberCount(); ++i) {
    const rapidjson::Value& v = (root.MemberBegin() + i)->value;
    if (!v.IsObject() || !v.HasMember("graph_module")) return nullptr;
  }
  return "this document maps method names to programs (what convert --export-program writes); give one "
         "program, the value of one of its keys, as its own JSON file";
}

Result<ir::ExportedProgram> read_program(ImportContext& ctx) {
  JsonCursor root = ctx.root();
  static constexpr std::array<std::string_view, 7> kKeys = {"graph_module", "opset_version", "range_constraints",
                                                            "schema_version", "verifiers", "torch_version",
                                                            "guards_code"};
  PTEFORGE_ASSIGN_OR_RETURN(auto s, read_struct(ctx, root, "ExportedProgram", kKeys));
  ir::ExportedProgram ep;
  // The version decides how to read everything else: check it first.
  PTEFORGE_TRY(check_schema_version(ctx, root, s[3], ep.schema_version));
  auto gm = required(root, s[0], "graph_module", "ExportedProgram");
  if (!gm.ok()) {
    Error e = std::move(gm).error();
    if (const char* note = methods_map_note(root.value())) e.notes.emplace_back(note);
    return e;
  }
  PTEFORGE_ASSIGN_OR_RETURN(ep.graph_module, read_graph_module(ctx, *gm));
  if (auto ops = optional(root, s[1])) {
    PTEFORGE_TRY(ops->expect_object());
    for (const auto& m : ops->value().GetObject()) {
      PTEFORGE_ASSIGN_OR_RETURN(int64_t v, ops->with(m.value).as_int());
      ep.opset_version.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), v);
    }
  }
  if (auto rc = optional(root, s[2])) {
    PTEFORGE_TRY(rc->expect_object());
    for (const auto& m : rc->value().GetObject()) {
      JsonCursor r = rc->with(m.value);
      static constexpr std::array<std::string_view, 2> kRangeKeys = {"min_val", "max_val"};
      PTEFORGE_ASSIGN_OR_RETURN(auto rs, read_struct(ctx, r, "RangeConstraint", kRangeKeys));
      ir::RangeConstraint range;
      if (rs[0]) {
        PTEFORGE_ASSIGN_OR_RETURN(range.min_val, read_bound(r.with(*rs[0]), /*upper=*/false));
      }
      if (rs[1]) {
        PTEFORGE_ASSIGN_OR_RETURN(range.max_val, read_bound(r.with(*rs[1]), /*upper=*/true));
      }
      if (range.min_val && range.max_val && *range.min_val > *range.max_val) {
        return r.error(ErrorCode::INPUT_SCHEMA, "range of '" + std::string(m.name.GetString(), m.name.GetStringLength()) +
                                                    "' is empty: min_val " + std::to_string(*range.min_val) +
                                                    " is above max_val " + std::to_string(*range.max_val));
      }
      ep.range_constraints.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), range);
    }
  }
  if (auto v = optional(root, s[4])) {
    PTEFORGE_ASSIGN_OR_RETURN(ep.verifiers, read_strings(*v));
  }
  if (auto tv = optional(root, s[5])) {
    PTEFORGE_ASSIGN_OR_RETURN(std::string_view t, tv->as_string());
    ep.torch_version = std::string(t);
  }
  if (auto gc = optional(root, s[6])) {
    PTEFORGE_ASSIGN_OR_RETURN(ep.guards_code, read_strings(*gc));
  }
  return ep;
}

}  // namespace

namespace {
Result<ImportResult> import_document(ImportContext& ctx, const ImportOptions& options) {
  Result<ir::ExportedProgram> read = read_program(ctx);
  if (!read.ok()) return ctx.with_warning_notes(std::move(read).error());
  ir::ExportedProgram ep = std::move(read).value();
  if (options.verify) {
    Status st = ir::verify_program(ep);
    if (st.ok()) st = ir::verify_signature_targets(ep);
    if (st.ok() && options.check_calls) st = ops::check_call_arguments(ep.graph(), ep.is_edge_dialect());
    if (!st.ok()) return ctx.with_warning_notes(std::move(st).error());
  }
  ImportResult result;
  result.program = std::move(ep);
  result.warnings = ctx.take_warnings();
  return result;
}

/// SAX events per batch for a text of `bytes`: > 0 when it is read on two
/// threads (ImportOptions::two_threads_min_bytes), 0 on one.
size_t two_thread_batch_events(size_t bytes, const ImportOptions& options) {
  return bytes >= options.two_threads_min_bytes ? std::max<size_t>(options.two_threads_batch_events, 1) : 0;
}

/// The streaming fast path (stream_graph.h); nullopt when it gives up or
/// the program has an error, which the DOM reader then reports. `json` is
/// parsed in place when `in_place` (then consumed: `consumed` is set), else a
/// copy is.
std::optional<ImportResult> import_streaming(std::string& json, bool in_place, const ImportOptions& options,
                                             detail::IdleWork& idle, bool& consumed) {
  if (find_invalid_utf8(json)) return std::nullopt;  // JsonDocument::parse says where
  JsonDocument doc;
  ImportContext ctx(doc, options);
  detail::StreamedGraph streamed;
  const size_t batch = two_thread_batch_events(json.size(), options);
  consumed = in_place;
  const bool parsed = in_place
                          ? detail::stream_program_in_place(std::move(json), ctx, doc, streamed, batch, &idle)
                          : detail::stream_program(json, ctx, doc, streamed, batch, &idle);
  if (!parsed) return std::nullopt;
  ctx.streamed = &streamed;
  Result<ImportResult> result = import_document(ctx, options);
  if (!result.ok() || !streamed.consumed) return std::nullopt;
  result->streamed = true;
  return std::move(result).value();
}

Result<ImportResult> import_dom(std::string json, const ImportOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(std::unique_ptr<JsonDocument> doc, JsonDocument::parse(std::move(json)));
  ImportContext ctx(*doc, options);
  return import_document(ctx, options);
}

/// The import proper: the fast path (parsing `json` in place when `reread`
/// can supply it again), else the DOM reader.
Result<ImportResult> import_any(std::string json, const ImportOptions& options, const TextReread* reread,
                                detail::IdleWork& idle) {
  if (options.streaming) {
    const bool in_place = reread != nullptr && *reread;
    bool consumed = false;
    if (std::optional<ImportResult> fast = import_streaming(json, in_place, options, idle, consumed)) {
      return std::move(*fast);
    }
    if (consumed) {  // the text is gone: read it again for the DOM reader
      PTEFORGE_ASSIGN_OR_RETURN(std::string again, (*reread)());
      return import_dom(std::move(again), options);
    }
  }
  return import_dom(std::move(json), options);
}

/// import_any with options.beside scheduled as ImportOptions documents.
Result<ImportResult> import_with_beside(std::string json, const ImportOptions& options,
                                        const TextReread* reread) {
  detail::IdleWork idle;
  if (!options.beside) return import_any(std::move(json), options, reread, idle);
  const bool two_threads = options.streaming && two_thread_batch_events(json.size(), options) > 0;
  if (two_threads) {
    idle.work = &options.beside;
    Result<ImportResult> result = import_any(std::move(json), options, reread, idle);
    if (!idle.ran) options.beside();  // the read never waited (or gave up first)
    return result;
  }
  BackgroundJob job(options.beside);
  Result<ImportResult> result = import_any(std::move(json), options, reread, idle);
  job.wait();
  return result;
}
}  // namespace

Result<ImportResult> import_exported_program(std::string json, const ImportOptions& options) {
  return import_with_beside(std::move(json), options, nullptr);
}

Result<ImportResult> import_exported_program(std::string json, const ImportOptions& options,
                                             const TextReread& reread) {
  return import_with_beside(std::move(json), options, &reread);
}

}  // namespace pteforge::serde
