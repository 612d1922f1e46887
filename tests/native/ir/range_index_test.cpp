// RangeIndex: the same answers as ExportedProgram::range_for, in constant time.
#include <doctest/doctest.h>

#include <string>

#include "ir/exported_program.h"

using namespace pteforge::ir;

TEST_CASE("RangeIndex: finds each symbol's range, the first of a repeated name, and nothing for others") {
  ExportedProgram ep;
  ep.range_constraints.push_back({"s0", RangeConstraint{2, 32}});
  ep.range_constraints.push_back({"s1", RangeConstraint{1, std::nullopt}});
  ep.range_constraints.push_back({"s0", RangeConstraint{5, 6}});  // repeated: range_for keeps the first
  for (int i = 2; i < 5000; ++i)
    ep.range_constraints.push_back({"s" + std::to_string(i), RangeConstraint{i, 2 * i}});
  const RangeIndex index(ep);
  for (const std::string name : {"s0", "s1", "s2", "s4999", "s5000", "t0", ""}) {
    CAPTURE(name);
    CHECK(index.find(name) == ep.range_for(name));
  }
  REQUIRE(index.find("s0") != nullptr);
  CHECK(index.find("s0")->max_val == std::optional<int64_t>(32));
  CHECK(index.find("s4999")->min_val == std::optional<int64_t>(4999));
  CHECK(index.find("s5000") == nullptr);
}
