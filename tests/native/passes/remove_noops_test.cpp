#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

TEST_CASE("remove_noops: identity to.dtype, eval dropout and full slices are bypassed and removed") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4, 6});
  auto t =
      b.call("aten.to.dtype", {arg_tensor(x), arg_dtype(ScalarType::Float)}, {ScalarType::Float, {4, 6}});
  auto d = b.call("aten.dropout.default", {arg_tensor(t), arg_float(0.2), arg_bool(false)},
                  {ScalarType::Float, {4, 6}});
  auto s = b.call("aten.slice_copy.Tensor",
                  {arg_tensor(d), arg_int(1), arg_int(0), arg_int(9223372036854775807LL)},
                  {ScalarType::Float, {4, 6}});
  auto r = b.call("aten.relu.default", {arg_tensor(s)}, {ScalarType::Float, {4, 6}});
  auto d2 = b.call("aten.dropout.default", {arg_tensor(r), arg_float(0.0), arg_bool(true)},
                   {ScalarType::Float, {4, 6}});
  b.output(d2);  // a removed node feeding the output: the output reads its input
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "remove_noops");
  REQUIRE(run.status.ok());
  CHECK(run.changed());
  CHECK(run.report.passes[0].stats.at("noops_removed") == 4);
  CHECK(print_exported_program(ep) ==
        "# input user_input %x\n"
        "# output user_output %relu\n"
        "graph(%x):\n"
        "  %relu = aten.relu.default(%x)\n"
        "  return (%relu)\n");
}

TEST_CASE("remove_noops: nodes that do something stay") {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {4, 6});
  auto t = b.call("aten.to.dtype", {arg_tensor(x), arg_dtype(ScalarType::Half)}, {ScalarType::Half, {4, 6}});
  auto c =
      b.call("aten.to.dtype", {arg_tensor(x), arg_dtype(ScalarType::Float), arg_bool(false), arg_bool(true)},
             {ScalarType::Float, {4, 6}});  // copy=True
  auto d = b.call("aten.dropout.default", {arg_tensor(c), arg_float(0.2), arg_bool(true)},
                  {ScalarType::Float, {4, 6}});
  auto s = b.call("aten.slice_copy.Tensor", {arg_tensor(d), arg_int(1), arg_int(0), arg_int(3)},
                  {ScalarType::Float, {4, 3}});
  b.output(t);
  b.output(s);
  ExportedProgram ep = b.build();
  const std::string before = print_exported_program(ep);
  auto run = run_pass(ep, "remove_noops");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_exported_program(ep) == before);
}

TEST_CASE("remove_noops: dequantize -> noop -> quantize with equal qparams collapses") {
  ProgramBuilder b;
  auto q = b.input("q", ScalarType::Char, {4});
  std::vector<Argument> qparams = {arg_float(0.5), arg_int(3), arg_int(-128), arg_int(127),
                                   arg_dtype(ScalarType::Char)};
  std::vector<Argument> dq_args{arg_tensor(q)};
  dq_args.insert(dq_args.end(), qparams.begin(), qparams.end());
  auto dq = b.call("quantized_decomposed.dequantize_per_tensor.default", dq_args, {ScalarType::Float, {4}},
                   {}, "dq");
  auto t = b.call("aten.to.dtype", {arg_tensor(dq), arg_dtype(ScalarType::Float)}, {ScalarType::Float, {4}});
  std::vector<Argument> q_args{arg_tensor(t)};
  q_args.insert(q_args.end(), qparams.begin(), qparams.end());
  auto rq =
      b.call("quantized_decomposed.quantize_per_tensor.default", q_args, {ScalarType::Char, {4}}, {}, "rq");
  b.output(rq);
  ExportedProgram ep = b.build();
  auto run = run_pass(ep, "remove_noops");
  REQUIRE(run.status.ok());
  CHECK(print_exported_program(ep) ==
        "# input user_input %q\n"
        "# output user_output %q\n"
        "graph(%q):\n"
        "  return (%q)\n");
}
