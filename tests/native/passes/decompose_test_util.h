// Helpers for the decompose pass tests: load a program JSON fixture, run the
// pass (alone or in a pipeline), and describe the result.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "ops/op_table.h"
#include "passes/pass_manager.h"
#include "serde/import_exported_program.h"

namespace pteforge::testing {

/// The float dtype, short for the rule tables of the decompose tests.
inline constexpr ir::ScalarType F = ir::ScalarType::Float;

inline std::string fixture_path(const std::string& rel) { return std::string(PTEFORGE_TEST_DATA_DIR) + "/" + rel; }

inline std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Imports tests/<rel> (a program JSON); fails the test on error.
inline ir::ExportedProgram load_program(const std::string& rel) {
  std::string json = read_whole_file(fixture_path(rel));
  REQUIRE_MESSAGE(!json.empty(), "missing fixture " << rel);
  auto r = serde::import_exported_program(json);
  if (!r.ok()) FAIL(r.error().to_string());
  return std::move(r->program);
}

/// Runs the named passes; returns the status, fills `report`.
inline Status run_passes(ir::ExportedProgram& ep, std::vector<std::string> names, passes::PassReport* report = nullptr,
                         std::vector<std::string> preserve_ops = {}) {
  passes::PipelineOptions options;
  options.passes = std::move(names);
  options.preserve_ops = std::move(preserve_ops);
  auto pm = passes::PassManager::create(options);
  if (!pm.ok()) return pm.error();
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport local;
  return pm->run(ep, state, report ? *report : local);
}

inline Status decompose(ir::ExportedProgram& ep, std::vector<std::string> preserve_ops = {}) {
  return run_passes(ep, {"decompose"}, nullptr, std::move(preserve_ops));
}

/// The targets (short form) of every operator node, in order.
inline std::vector<std::string> targets(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g) out.emplace_back(n.target().short_name());
  return out;
}

/// aten ops that are neither Core ATen nor allowed in it.
inline std::vector<std::string> non_core_ops(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g) {
    if (n.target().kind() != ir::TargetKind::Operator || n.target().ns() != "aten") continue;
    const ops::OpSchema* s = ops::op_table().find(n.target().str());
    std::string_view t = n.target().short_name();
    if (s && ops::is_core_aten(*s)) continue;
    if (t == "aten.sym_size.int") continue;
    out.emplace_back(t);
  }
  return out;
}

}  // namespace pteforge::testing

namespace pteforge::testing {

/// print_graph with value types (dtype and sizes of every value).
inline std::string typed(const ir::Graph& g) {
  ir::PrintOptions po;
  po.types = true;
  return ir::print_graph(g, po);
}

/// Runs decompose on `ep` and checks the typed graph text.
inline void expect_decomposed(ir::ExportedProgram& ep, const std::string& want) {
  Status st = decompose(ep);
  if (!st.ok()) FAIL(st.error().to_string());
  CHECK(typed(ep.graph()) == want);
  Status v = ir::verify_program(ep);
  if (!v.ok()) FAIL(v.error().to_string());
}

/// Runs decompose expecting it to fail at node `node` with `code` and a message containing `text`.
inline void expect_refused(ir::ExportedProgram& ep, ErrorCode code, const std::string& node,
                           const std::string& text) {
  Status st = decompose(ep);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == code);
  CHECK(st.error().where.node == std::optional<std::string>(node));
  CHECK_MESSAGE(st.error().message.find(text) != std::string::npos, st.error().message);
}

}  // namespace pteforge::testing
