// Test helpers for the to_executorch passes (namespace testing::et, apart from
// the to_edge helpers of edge_test_util.h): loading fixtures, running a list
// of passes, a stand-in for the to_edge group, and a one-line spec summary.
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/graph.h"
#include "ops/op_table.h"
#include "passes/pass_manager.h"
#include "passes/tensor_spec.h"
#include "serde/import_exported_program.h"

namespace pteforge::testing::et {

inline std::string test_data(const std::string& rel) { return std::string(PTEFORGE_TEST_DATA_DIR) + "/" + rel; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Imports tests/<rel> (a program JSON); fails the test when it does not import.
inline ir::ExportedProgram load_program(const std::string& rel) {
  std::string json = slurp(test_data(rel));
  REQUIRE_MESSAGE(!json.empty(), "missing " << rel);
  auto r = serde::import_exported_program(json);
  if (!r.ok()) FAIL(rel << ": " << r.error().to_string());
  return std::move(r).value().program;
}

/// The to_executorch group of the default pipeline, in order (design.md).
inline std::vector<std::string> to_executorch_passes() {
  return {"weights_to_outputs", "insert_write_back_for_buffers", "legalize_portable_dim_order", "spec_prop",
          "edge_to_backend_ops", "remove_graph_asserts", "remove_view_copy", "sym_shape_eval",
          "to_out_variant", "memory_planning"};
}

struct PassRun {
  Status status;
  passes::MethodState state;
  passes::PassReport report;
};

/// Runs `names` on `ep` (verify_each on) and returns the status, state and report.
inline PassRun run_passes(ir::ExportedProgram& ep, std::vector<std::string> names,
                          passes::PipelineOptions options = {}) {
  options.passes = std::move(names);
  options.verify_each = true;
  PassRun run;
  run.state.method = "forward";
  auto pm = passes::PassManager::create(options);
  REQUIRE_MESSAGE(pm.ok(), pm.error().to_string());
  run.status = pm->run(ep, run.state, run.report);
  return run;
}

/// Runs `names` on `ep` with the state of an earlier run (specs edited by a
/// test, say); returns the status.
inline Status run_on_state(ir::ExportedProgram& ep, passes::MethodState& state,
                           std::vector<std::string> names) {
  passes::PipelineOptions options;
  options.passes = std::move(names);
  auto pm = passes::PassManager::create(options);
  REQUIRE_MESSAGE(pm.ok(), pm.error().to_string());
  passes::PassReport report;
  return pm->run(ep, state, report);
}

/// Stand-in for the to_edge group until it lands: view ops become their
/// `_copy` twins (ReplaceViewOpsWithViewCopyOpsPass); the twin's result is
/// contiguous, as a re-trace would record.
inline void to_edge_lite(ir::ExportedProgram& ep) {
  for (ir::Node& node : ep.graph()) {
    if (node.target().kind() != ir::TargetKind::Operator) continue;
    const ops::OpSchema* s = ops::op_table().find(node.target().str());
    if (!s || !s->is_view()) continue;
    const ops::OpSchema* copy = ops::op_table().copy_variant(*s);
    if (!copy) continue;
    node.set_target(ir::OpTarget(copy->torch_name()));
  }
}

inline std::string join_ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// "float32[3] dim_order=[0] static mem=1@16 life=[0,3]" (const / mutable /
/// grad / view flags appended when set; "unplanned" when not planned).
inline std::string describe(const passes::TensorSpec& s) {
  std::string out = std::string(ir::scalar_type_name(s.dtype)) + join_ints(s.sizes) + " dim_order=";
  std::vector<int64_t> order(s.dim_order.begin(), s.dim_order.end());
  out += join_ints(order);
  out += s.dynamism == passes::ShapeDynamism::Static ? " static" : " dynamic_bound";
  if (s.planned()) {
    out += " mem=" + std::to_string(*s.mem_id) + "@" + std::to_string(*s.mem_offset);
  } else {
    out += " unplanned";
  }
  if (s.lifetime_first >= 0) {
    out += " life=[" + std::to_string(s.lifetime_first) + "," + std::to_string(s.lifetime_last) + "]";
  }
  if (s.is_const) out += " const";
  if (s.is_mutable_buffer) out += " mutable";
  if (s.weight_has_gradient) out += " grad";
  if (s.is_view()) out += " view";
  return out;
}

/// describe() of value `name`'s spec, or "<no spec>".
inline std::string describe(const passes::MethodState& state, const std::string& name) {
  passes::TensorSpecPtr s = state.specs.get(name);
  return s ? describe(*s) : std::string("<no spec>");
}

}  // namespace pteforge::testing::et

namespace pteforge::testing::et {
inline std::vector<std::string> tensor_names_of(const ir::Argument& a) {
  std::vector<std::string> names;
  ir::for_each_value_name(a, [&](const std::string& n, ir::ValueKind k) {
    if (k == ir::ValueKind::Tensor) names.push_back(n);
  });
  return names;
}
}  // namespace pteforge::testing::et
