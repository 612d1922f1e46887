// PassManager and PassContext (see pass_manager.h, pass.h).
#include "passes/pass_manager.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>

#include "ir/verifier.h"
#include "passes/decompositions/table.h"
#include "passes/pass_registry.h"

namespace pteforge::passes {

// ---- PassContext ----

void PassContext::warn(std::string message, Location where) {
  if (!where.method) where.method = state_.method;
  if (!where.pass && !pass_name_.empty()) where.pass = pass_name_;
  diagnostics_.push_back(Diagnostic{"warning", std::move(message), std::move(where)});
}

Location PassContext::where_node(const ir::Node& node) const {
  Location where = ir::node_location(node);
  where.method = state_.method;
  if (!pass_name_.empty()) where.pass = pass_name_;
  return where;
}

Error PassContext::error_at(ErrorCode code, std::string message, const ir::Node& node) const {
  return make_error(code, std::move(message), where_node(node));
}

std::map<std::string, int64_t> PassContext::take_stats() {
  std::map<std::string, int64_t> out;
  out.swap(stats_);
  return out;
}

// ---- PassManager ----

Status check_pass_order(const std::vector<std::string>& names, size_t* at) {
  const std::vector<std::string> pipeline = default_pipeline();
  // The swap steps stand in swap_modules' place, in the order swap_modules runs them.
  constexpr auto& kSwapSteps = kSwapModuleSteps;
  constexpr size_t kSub = std::size(kSwapSteps) + 1;
  auto rank = [&pipeline](const std::string& name) -> std::optional<size_t> {
    std::string_view base = name;
    size_t sub = 0;
    for (size_t k = 0; k < std::size(kSwapSteps); ++k) {
      if (name == kSwapSteps[k]) {
        base = "swap_modules";
        sub = k + 1;
      }
    }
    for (size_t i = 0; i < pipeline.size(); ++i) {
      if (pipeline[i] == base) return i * kSub + sub;
    }
    return std::nullopt;  // legalize and remove_pytree_pairs (graph clean-ups) go anywhere
  };
  std::optional<size_t> last;  // the rank of the latest ranked pass so far
  std::string last_name;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const std::optional<size_t> r = rank(name);
    if (!r) continue;
    if (last && *r < *last) {
      if (at) *at = i;
      return make_error(ErrorCode::OPTION_INVALID,
                        "--passes lists " + name + " after " + last_name + ", but " + name +
                            " runs before it in the default pipeline: a pass list may leave passes out or "
                            "repeat one right after itself, not reorder them (each pass relies on what the "
                            "earlier ones made, e.g. memory_planning is always last)");
    }
    last = r;
    last_name = name;
  }
  return Status::Ok();
}

Status check_pass_list(const std::vector<std::string>& names, size_t* at) {
  for (size_t i = 0; i < names.size(); ++i) {
    const RegisteredPass* reg = find_pass(names[i]);
    if (reg && reg->factory) continue;
    Result<std::unique_ptr<Pass>> pass =
        create_pass(names[i]);  // the UNKNOWN_PASS / UNSUPPORTED_FEATURE error
    if (!pass.ok()) {
      if (at) *at = i;
      return std::move(pass).error();
    }
  }
  return check_pass_order(names, at);
}

Result<PassManager> PassManager::create(const PipelineOptions& options) {
  PassManager pm(options);
  const bool explicit_list = !options.passes.empty();
  if (explicit_list) PTEFORGE_TRY(check_pass_list(options.passes));
  for (const auto& name : explicit_list ? options.passes : default_pipeline()) {
    const RegisteredPass* reg = find_pass(name);
    if (!reg) PTEFORGE_TRY(create_pass(name));  // a default-pipeline name always resolves
    pm.entries_.push_back(Entry{name, reg->factory});
  }
  return pm;
}

void PassManager::note_missing_decompose(const ir::ExportedProgram& ep, Error& e) const {
  for (const Entry& entry : entries_) {
    if (entry.name == "decompose") return;
  }
  std::vector<std::string> ops;  // distinct, in graph order
  size_t calls = 0;
  for (const ir::Node& node : ep.graph()) {
    const std::string_view op = node.target().short_name();
    if (!decomp::find_decomposition(op)) continue;
    ++calls;
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.emplace_back(op);
  }
  if (ops.empty()) return;
  std::string list;
  for (size_t i = 0; i < ops.size() && i < 3; ++i) list += (i ? ", " : "") + ops[i];
  if (ops.size() > 3) list += ", ...";
  e.notes.push_back("decompose is not in --passes, and " + std::to_string(calls) +
                    (calls == 1 ? " node calls an op" : " nodes call ops") + " it rewrites into Core ATen (" +
                    list + "), which the later passes expect");
}

std::vector<std::string> PassManager::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

Status verify_after_pass(const ir::ExportedProgram& ep, std::string_view pass_name) {
  Status st = ir::verify_program(ep);
  if (st.ok()) return st;
  Error e = std::move(st).error();
  e.message = "after pass " + std::string(pass_name) + ": " + e.message;
  e.code = ErrorCode::INTERNAL;
  if (!e.where.pass) e.where.pass = std::string(pass_name);
  e.notes.push_back("the IR verifier failed after this pass: this is a bug in pteforge, please report it");
  return e;
}

Status PassManager::run(ir::ExportedProgram& ep, MethodState& state, PassReport& report) const {
  PassContext ctx(options_, state);
  Status result;
  bool lowered = false;  // a to_edge or to_executorch pass ran
  for (const auto& entry : entries_) {
    PassRecord rec;
    rec.name = entry.name;
    rec.method = state.method;
    rec.nodes_before = ep.graph().num_nodes();
    if (!entry.factory) {
      rec.skipped = true;
      rec.nodes_after = rec.nodes_before;
      ctx.set_pass_name(entry.name);
      ctx.warn("pass " + entry.name + " is not implemented yet; skipped");
      report.passes.push_back(std::move(rec));
      continue;
    }
    std::unique_ptr<Pass> pass = entry.factory();
    const std::string_view group = pass->info().group;
    lowered = lowered || group == "to_edge" || group == "to_executorch";
    ctx.set_pass_name(entry.name);
    auto start = std::chrono::steady_clock::now();
    Result<bool> changed = pass->run(ep, ctx);
    auto stop = std::chrono::steady_clock::now();
    rec.ms = std::chrono::duration<double, std::milli>(stop - start).count();
    rec.nodes_after = ep.graph().num_nodes();
    rec.stats = ctx.take_stats();
    if (!changed.ok()) {
      Error e = std::move(changed).error();
      if (e.code == ErrorCode::UNSUPPORTED_OPERATOR) note_missing_decompose(ep, e);
      if (!e.where.pass) e.where.pass = entry.name;
      if (!e.where.method) e.where.method = state.method;
      report.passes.push_back(std::move(rec));
      result = std::move(e);
      break;
    }
    rec.changed = changed.value();
    report.passes.push_back(std::move(rec));
    if (options_.verify_each) {
      Status st = verify_after_pass(ep, entry.name);
      if (!st.ok()) {
        Error e = std::move(st).error();
        if (!e.where.method) e.where.method = state.method;
        result = std::move(e);
        break;
      }
    }
  }
  for (auto& d : ctx.diagnostics()) report.diagnostics.push_back(std::move(d));
  // After a to_edge or to_executorch pass the program is in ExecuTorch's
  // edge dialect, as to_edge marks its programs: --export-program writes it
  // so, and convert refuses it as input (already lowered).
  if (result.ok() && lowered) ep.verifiers = {std::string(ir::kEdgeDialect)};
  return result;
}

namespace {

void write_location(rapidjson::Writer<rapidjson::StringBuffer>& w, const Location& where) {
  w.StartObject();
  auto str = [&w](const char* key, const std::optional<std::string>& v) {
    if (v) {
      w.Key(key);
      w.String(*v);
    }
  };
  str("pointer", where.pointer);
  str("node", where.node);
  str("entry", where.entry);
  if (where.byte_offset) {
    w.Key("byte_offset");
    w.Uint64(*where.byte_offset);
  }
  str("method", where.method);
  str("source", where.source);
  str("pass", where.pass);
  w.EndObject();
}

}  // namespace

std::string PassReport::to_json(bool with_times) const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("passes");
  w.StartArray();
  for (const auto& p : passes) {
    w.StartObject();
    w.Key("name");
    w.String(p.name);
    w.Key("method");
    w.String(p.method);
    w.Key("ms");
    w.Double(with_times ? p.ms : 0.0);
    w.Key("changed");
    w.Bool(p.changed);
    w.Key("skipped");
    w.Bool(p.skipped);
    w.Key("nodes_before");
    w.Uint64(p.nodes_before);
    w.Key("nodes_after");
    w.Uint64(p.nodes_after);
    w.Key("stats");
    w.StartObject();
    for (const auto& [k, v] : p.stats) {
      w.Key(k.c_str());
      w.Int64(v);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("diagnostics");
  w.StartArray();
  for (const auto& d : diagnostics) {
    w.StartObject();
    w.Key("severity");
    w.String(d.severity);
    w.Key("message");
    w.String(d.message);
    w.Key("where");
    write_location(w, d.where);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace pteforge::passes
