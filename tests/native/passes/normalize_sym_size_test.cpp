#include <doctest/doctest.h>

#include "common/program_builder.h"
#include "edge_test_util.h"
#include "ir/printer.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::run_pass;

namespace {

/// x[s0, 4] with a sym_size-like node of `target` defining SymInt %n.
ExportedProgram with_sym_node(const std::string& target, std::vector<NamedArgument> inputs) {
  ProgramBuilder b;
  auto x = b.input("x", ScalarType::Float, {3, 4});
  b.output(x);
  ExportedProgram ep = b.build();
  ep.graph().append(Node(OpTarget(target), std::move(inputs), {arg_sym_int("n")}, "n"));
  ep.graph().set_sym_int("n", SymInt(int64_t{3}));
  return ep;
}

}  // namespace

TEST_CASE("normalize_sym_size: packets get their concrete overloads") {
  struct Case {
    const char* packet;
    const char* expected;
    bool with_dim;
  };
  for (const Case& c : {Case{"torch.ops.aten.sym_size", "aten.sym_size.int", true},
                        Case{"torch.ops.aten.sym_stride", "aten.sym_stride.int", true},
                        Case{"torch.ops.aten.sym_numel", "aten.sym_numel.default", false}}) {
    CAPTURE(c.packet);
    std::vector<NamedArgument> in{positional("self", arg_tensor("x"))};
    if (c.with_dim) in.push_back(positional("dim", arg_int(0)));
    ExportedProgram ep = with_sym_node(c.packet, in);
    auto run = run_pass(ep, "normalize_sym_size");
    REQUIRE(run.status.ok());
    CHECK(run.changed());
    CHECK(print_graph(ep.graph()) == "graph(%x):\n  %n = " + std::string(c.expected) + "(%x" +
                                         (c.with_dim ? ", 0" : "") + ")\n  return (%x)\n");
  }
}

TEST_CASE("normalize_sym_size: concrete overloads are left alone") {
  ExportedProgram ep = with_sym_node("torch.ops.aten.sym_size.int",
                                     {positional("self", arg_tensor("x")), positional("dim", arg_int(1))});
  const std::string before = print_graph(ep.graph());
  auto run = run_pass(ep, "normalize_sym_size");
  REQUIRE(run.status.ok());
  CHECK_FALSE(run.changed());
  CHECK(print_graph(ep.graph()) == before);
}
