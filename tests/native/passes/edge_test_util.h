// Helpers for the to_edge pass tests: run named passes on a program, and load
// fixture programs (program JSON + bound state) from tests/fixtures.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"
#include "serde/import_exported_program.h"
#include "serde/payload_config.h"
#include "serde/state_binding.h"

namespace pteforge::testing {

/// The to_edge group in pipeline order (design.md step 4, with step 1 first).
inline const std::vector<std::string>& to_edge_passes() {
  static const std::vector<std::string> names = {"remove_tensor_metadata_asserts",
                                                 "remove_unused_parameters",
                                                 "replace_view_ops_with_copy",
                                                 "normalize_sym_size",
                                                 "scalar_to_tensor",
                                                 "sym_to_tensor",
                                                 "remove_noops",
                                                 "prune_empty_tensors",
                                                 "remove_redundant_to_copy",
                                                 "remove_mixed_type_operators",
                                                 "memory_format_to_dim_order",
                                                 "lift_constant_tensors",
                                                 "contiguous_constants",
                                                 "eliminate_dead_code",
                                                 "generate_debug_handles"};
  return names;
}

/// What running passes produced.
struct PassRun {
  Status status;
  passes::MethodState state;
  passes::PassReport report;
  /// changed flag of the last pass run.
  bool changed() const { return !report.passes.empty() && report.passes.back().changed; }
};

/// Runs `names` (verifying after each pass) on `ep`.
inline PassRun run_passes(ir::ExportedProgram& ep, const std::vector<std::string>& names) {
  PassRun r;
  r.state.method = "forward";
  passes::PipelineOptions options;
  options.passes = names;
  options.verify_each = true;
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  r.status = pm->run(ep, r.state, r.report);
  return r;
}

/// Gives value `name` these strides, keeping the rest of its tensor metadata.
inline void set_strides(ir::ExportedProgram& ep, const std::string& name, std::vector<int64_t> strides) {
  ir::TensorMeta m = *ep.graph().tensor_meta(name);
  m.strides.clear();
  for (int64_t s : strides) m.strides.emplace_back(s);
  ep.graph().set_tensor_meta(name, m);
}

/// The concrete strides of value `name` (which must have tensor metadata).
inline std::vector<int64_t> strides_of(const ir::ExportedProgram& ep, const std::string& name) {
  const ir::TensorMeta* m = ep.graph().tensor_meta(name);
  REQUIRE(m != nullptr);
  return *m->concrete_strides();
}

inline PassRun run_pass(ir::ExportedProgram& ep, const std::string& name) { return run_passes(ep, {name}); }

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Loads `<root>/models/<model>.json` and binds its state from the payload
/// configs under `<root>/data/` (root relative to tests/).
inline ir::ExportedProgram load_fixture(const std::string& root_rel, const std::string& model = "model") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(PTEFORGE_TEST_DATA_DIR) / root_rel;
  auto imported = serde::import_exported_program(read_text(root / "models" / (model + ".json")));
  if (!imported.ok()) FAIL(imported.error().to_string());
  ir::ExportedProgram ep = std::move(imported->program);
  auto config = [&](const char* store, const char* suffix) {
    fs::path p = root / "data" / store / (model + suffix);
    serde::PayloadConfig empty;
    if (!fs::exists(p)) return empty;
    auto c = serde::parse_payload_config(read_text(p), p.string());
    if (!c.ok()) FAIL(c.error().to_string());
    return std::move(c).value();
  };
  serde::PayloadConfig weights = config("weights", "_weights_config.json");
  serde::PayloadConfig constants = config("constants", "_constants_config.json");
  auto size = [&](const std::string& path_name, bool is_constant) -> std::optional<uint64_t> {
    fs::path p = root / "data" / (is_constant ? "constants" : "weights") / path_name;
    if (!fs::exists(p)) return std::nullopt;
    return static_cast<uint64_t>(fs::file_size(p));
  };
  auto bound = serde::bind_state(ep, weights, constants, size);
  if (!bound.ok()) FAIL(bound.error().to_string());
  ep.state = std::move(bound).value();
  return ep;
}

}  // namespace pteforge::testing
