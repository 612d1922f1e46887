// Program JSON round trips: read → write is byte-identical to the producer's
// file, and read → write → read gives an equal IR.
#include <doctest/doctest.h>

#include "ir/printer.h"
#include "serde/export_exported_program.h"
#include "serde/import_exported_program.h"
#include "test_files.h"

using namespace pteforge;

TEST_CASE("roundtrip: every corpus program is written back byte-identically and re-reads equal") {
  auto files = test::corpus_programs();
  REQUIRE(files.size() == 12);
  for (const auto& path : files) {
    CAPTURE(path);
    std::string json = test::read_file(path);
    auto first = serde::import_exported_program(json);
    REQUIRE_MESSAGE(first.ok(), first.error().to_string());
    CHECK(first->warnings.empty());
    std::string written = serde::write_exported_program(first->program);
    CHECK(written == json);
    auto second = serde::import_exported_program(written);
    REQUIRE_MESSAGE(second.ok(), second.error().to_string());
    CHECK(second->program == first->program);
    CHECK(ir::print_exported_program(second->program) == ir::print_exported_program(first->program));
  }
}
