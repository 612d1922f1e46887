// End to end: programs using the ops the decompose pass rewrites after
// torch._refs / torch._decomp references (elu, softplus, pixel_shuffle, roll,
// var_mean, linalg_vector_norm, logit) convert to a .pte.
#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "pteforge/pteforge.h"
#include "serde/export_exported_program.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;

TEST_CASE("convert: elu, softplus, pixel_shuffle, roll, var_mean, linalg_vector_norm, logit end to end") {
  const ScalarType F = ScalarType::Float;
  ProgramBuilder b;
  auto x = b.input("x", F, {1, 8, 2, 3});
  auto e = b.call("aten.elu.default", {arg_tensor(x), arg_float(0.5)}, {F, {1, 8, 2, 3}});
  auto s = b.call("aten.softplus.default", {arg_tensor(e), arg_float(2.0)}, {F, {1, 8, 2, 3}});
  auto p = b.call("aten.pixel_shuffle.default", {arg_tensor(s), arg_int(2)}, {F, {1, 2, 4, 6}});
  auto r =
      b.call("aten.roll.default", {arg_tensor(p), arg_ints({1, -2}), arg_ints({2, 3})}, {F, {1, 2, 4, 6}});
  auto vm = b.call_multi("aten.var_mean.correction", {arg_tensor(r), arg_ints({3})},
                         {{F, {1, 2, 4, 1}}, {F, {1, 2, 4, 1}}}, {"v", "m"}, {{"keepdim", arg_bool(true)}});
  auto n = b.call("aten.linalg_vector_norm.default",
                  {arg_tensor(r), arg_int(2), arg_ints({3}), arg_bool(true)}, {F, {1, 2, 4, 1}});
  auto l = b.call("aten.logit.default", {arg_tensor(vm[0]), arg_float(1e-6)}, {F, {1, 2, 4, 1}});
  b.output(l);
  b.output(vm[1]);
  b.output(n);
  ExportedProgram ep = b.build();
  std::string json = serde::write_exported_program(ep);
  auto out = convert_bytes(json);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  CHECK(!out->pte.program.execution_plan.empty());
}
