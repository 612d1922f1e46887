#include <doctest/doctest.h>

#include <iostream>

#include "edge_test_util.h"
#include "ir/verifier.h"

using namespace pteforge;
using pteforge::testing::load_fixture;
using pteforge::testing::run_passes;
using pteforge::testing::to_edge_passes;

TEST_CASE("scratch") {
  for (const char* root : {"fixtures/corpus/linear_tanh/json", "fixtures/programs/ref_arduino_add",
                           "fixtures/corpus/layernorm_residual/json", "fixtures/corpus/dynamic_seq/json"}) {
    ir::ExportedProgram ep = load_fixture(root);
    auto r = run_passes(ep, to_edge_passes());
    CHECK(r.status.ok());
    if (!r.status.ok()) std::cout << r.status.error().to_string() << "\n";
    std::cout << root << "\n" << ir::print_exported_program(ep, {true}) << "\n" << r.report.to_json(false) << "\n";
  }
}
