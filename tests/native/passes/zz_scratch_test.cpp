#include <doctest/doctest.h>
#include "et_test_util.h"
#include "ir/printer.h"
using namespace pteforge;
TEST_CASE("scratch") {
  const char* files[] = {"fixtures/programs/dynamic_batch/models/model.json","fixtures/corpus/dynamic_seq/json/models/model.json",
   "fixtures/programs/joint_training/models/model.json","fixtures/corpus/joint_linear_mse/json/models/model.json",
   "fixtures/corpus/buffer_running_sum/json/models/model.json","fixtures/programs/buffer_mutation/models/model.json",
   "fixtures/programs/multi_output/models/model.json","fixtures/programs/small_cnn/models/model.json"};
  for (const char* f : files) {
    ir::ExportedProgram ep = testing::load_program(f);
    testing::to_edge_lite(ep);
    auto run = testing::run_passes(ep, testing::to_executorch_passes());
    std::string out = std::string(f) + "\n" + ir::print_exported_program(ep) + "\n";
    if (!run.status.ok()) out += "ERROR " + run.status.error().to_string() + "\n";
    std::vector<std::string> names;
    for (auto& i : ep.graph().inputs()) for (auto& n : testing::tensor_names_of(i)) names.push_back(n);
    for (auto& nd : ep.graph()) for (auto& o : nd.outputs()) for (auto& n : testing::tensor_names_of(o)) names.push_back(n);
    for (auto& n : names) out += "  " + n + ": " + testing::describe(run.state, n) + "\n";
    out += "  sizes:";
    for (auto b : run.state.non_const_buffer_sizes) out += " " + std::to_string(b);
    for (auto& d : run.report.diagnostics) out += "\n  diag: " + d.message;
    MESSAGE(out);
  }
}
