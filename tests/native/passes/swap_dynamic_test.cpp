// Module swap with symbolic shapes: shared sym_size nodes stay outside a
// module, and a replacement's symbols are bound to the program's sizes.
#include <doctest/doctest.h>

#include "passes/module_swap/sym_bind.h"
#include "passes/swap_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::golden;

namespace {

SymInt sym(const std::string& expr, int64_t hint) {
  SymExpr e;
  e.expr_str = expr;
  e.hint = SymExprHint::of_int(hint);
  return SymInt(std::move(e));
}

TensorMeta meta2(SymInt d0, int64_t d1) {
  TensorMeta m;
  m.dtype = ScalarType::Float;
  m.sizes = {std::move(d0), SymInt(d1)};
  m.strides = {SymInt(d1), SymInt(1)};
  m.storage_offset = SymInt(0);
  return m;
}

Node op(const std::string& target, std::vector<NamedArgument> in, Argument out) {
  std::string name = *out.value_name();
  return Node(OpTarget("torch.ops." + target), std::move(in), {std::move(out)}, name);
}

/// x[d0, 8] -> module m: s = sym_size(x, 0); view(sigmoid(x), [s, 8]); outside: neg(...) and s * 2.
/// `d0` is the size of x's first dimension (symbolic "s0" in [2, 32] or a number).
ExportedProgram dynamic_program(SymInt d0) {
  ExportedProgram ep;
  Graph& g = ep.graph();
  g.set_tensor_meta("x", meta2(d0, 8));
  g.set_inputs({arg_tensor("x")});
  InputSpec in;
  in.kind = InputKind::UserInput;
  in.arg = arg_tensor("x");
  ep.signature().input_specs.push_back(in);
  const bool dynamic = d0.is_symbolic();
  if (dynamic) {
    ep.range_constraints.emplace_back("s0", RangeConstraint{2, 32});
    g.set_sym_int("sym_size_int", d0);
    g.append(op("aten.sym_size.int", {positional("self", arg_tensor("x")), positional("dim", arg_int(0))},
                arg_sym_int("sym_size_int")));
  }
  g.set_tensor_meta("sigmoid", meta2(d0, 8));
  g.append(op("aten.sigmoid.default", {positional("self", arg_tensor("x"))}, arg_tensor("sigmoid")));
  std::vector<SymIntArgument> size = {dynamic ? SymIntArgument{std::string("sym_size_int"), 0}
                                              : SymIntArgument{std::nullopt, d0.value()},
                                      SymIntArgument{std::nullopt, 8}};
  g.set_tensor_meta("view", meta2(d0, 8));
  g.append(op("aten.view.default",
              {positional("self", arg_tensor("sigmoid")), positional("size", Argument::make<ArgTag::SymInts>(size))},
              arg_tensor("view")));
  g.set_tensor_meta("neg", meta2(d0, 8));
  g.append(op("aten.neg.default", {positional("self", arg_tensor("view"))}, arg_tensor("neg")));
  std::vector<Argument> outs = {arg_tensor("neg")};
  if (dynamic) {
    g.set_sym_int("mul", sym("2*s0", 8));
    g.append(Node(OpTarget("_operator.mul"), {positional("a", arg_sym_int("sym_size_int")), positional("b", arg_int(2))},
                  {arg_sym_int("mul")}, "mul"));
    outs.push_back(arg_sym_int("mul"));
  }
  g.set_outputs(outs);
  for (const auto& o : outs) {
    OutputSpec s;
    s.kind = OutputKind::UserOutput;
    s.arg = o;
    ep.signature().output_specs.push_back(s);
  }
  ep.graph_module.module_call_graph.push_back(ModuleCallEntry{"", std::nullopt});
  for (const char* n : {"sym_size_int", "sigmoid", "view"}) {
    if (g.find_node(n)) testing::set_stack(g, n, {"m"});
  }
  testing::preserve(ep, "m", {"x"}, {"view"}, testing::args_spec(1), testing::out_spec(1));
  REQUIRE(verify_program(ep).ok());
  return ep;
}

/// y[s77, 8] (s77 in [lo, hi]) -> relu -> view(.., [sym_size(y, 0), 8]); or a static y[n, 8].
ExportedProgram dynamic_replacement(int64_t lo, int64_t hi, std::optional<int64_t> static_rows = std::nullopt) {
  ExportedProgram ep;
  Graph& g = ep.graph();
  SymInt d0 = static_rows ? SymInt(*static_rows) : sym("Symbol('s77', integer=True, positive=True)", 5);
  g.set_tensor_meta("y", meta2(d0, 8));
  g.set_inputs({arg_tensor("y")});
  InputSpec in;
  in.kind = InputKind::UserInput;
  in.arg = arg_tensor("y");
  ep.signature().input_specs.push_back(in);
  if (!static_rows) ep.range_constraints.emplace_back("s77", RangeConstraint{lo, hi});
  g.set_sym_int("sym_size_int_1", d0);
  g.append(op("aten.sym_size.int", {positional("self", arg_tensor("y")), positional("dim", arg_int(0))},
              arg_sym_int("sym_size_int_1")));
  g.set_tensor_meta("relu", meta2(d0, 8));
  g.append(op("aten.relu.default", {positional("self", arg_tensor("y"))}, arg_tensor("relu")));
  g.set_tensor_meta("view_1", meta2(d0, 8));
  std::vector<SymIntArgument> size = {SymIntArgument{std::string("sym_size_int_1"), 0}, SymIntArgument{std::nullopt, 8}};
  g.append(op("aten.view.default",
              {positional("self", arg_tensor("relu")), positional("size", Argument::make<ArgTag::SymInts>(size))},
              arg_tensor("view_1")));
  g.set_outputs({arg_tensor("view_1")});
  OutputSpec s;
  s.kind = OutputKind::UserOutput;
  s.arg = arg_tensor("view_1");
  ep.signature().output_specs.push_back(s);
  ep.graph_module.module_call_graph.push_back(ModuleCallEntry{"", std::nullopt});
  testing::set_root_signature(ep, testing::args_spec(1), testing::out_spec(1));
  REQUIRE(verify_program(ep).ok());
  return ep;
}

}  // namespace

TEST_CASE("outline_modules: a sym_size shared with the outside stays outside the module") {
  const ExportedProgram original = dynamic_program(sym("s0", 4));
  ExportedProgram ep = original;
  passes::PipelineOptions options;
  options.outline_modules = {"m"};
  passes::PassReport report = testing::run_passes(ep, {"outline_modules"}, options);
  CHECK(report.passes[0].stats.at("nodes_hoisted") == 1);
  PrintOptions types;
  types.types = true;
  CHECK(print_graph(ep.graph(), types).find(
            "  %sym_size_int: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
            "  %tree_unflatten = pteforge.tree_unflatten(%x, spec='") != std::string::npos);
  CHECK(golden(ep.graph()) ==
        "graph(%x):\n"
        "  %sym_size_int = aten.sym_size.int(%x, 0)\n"
        "  %tree_unflatten = pteforge.tree_unflatten(%x, spec=((*,), {}))\n"
        "  %getitem = _operator.getitem(%tree_unflatten, 0)\n"
        "  %getitem_1 = _operator.getitem(%getitem, 0)\n"
        "  %m = pteforge.call_module(@m, %getitem_1, captured={'sym_size_int': %sym_size_int})\n"
        "    @m = graph(%x, %sym_size_int):\n"
        "      %sigmoid = aten.sigmoid.default(%x)\n"
        "      %view = aten.view.default(%sigmoid, [%sym_size_int, 8])\n"
        "      return (%view)\n"
        "  %tree_flatten_spec = pteforge.tree_flatten_spec(%m, spec=*)\n"
        "  %view = _operator.getitem(%tree_flatten_spec, 0)\n"
        "  %neg = aten.neg.default(%view)\n"
        "  %mul = _operator.mul(%sym_size_int, 2)\n"
        "  return (%neg, %mul)\n");
  testing::run_passes(ep, {"inline_modules"});
  testing::expect_same_program(ep, original);
}

TEST_CASE("swap_modules: a dynamic replacement's symbols are bound to the program's sizes") {
  PrintOptions types;
  types.types = true;
  SUBCASE("symbolic program size: s77 becomes s0") {
    ExportedProgram ep = dynamic_program(sym("s0", 4));
    passes::PipelineOptions options;
    options.swaps = {{"m", testing::share(dynamic_replacement(2, 64))}};
    passes::PassReport report = testing::run_passes(ep, {"swap_modules"}, options);
    CHECK(report.passes[0].stats.at("replace_modules.symbols_bound") == 1);
    CHECK(print_graph(ep.graph(), types) ==
          "graph(%x: float32[s0, 8]):\n"
          "  %sym_size_int: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
          "  %mul: SymInt(2*s0) = _operator.mul(%sym_size_int, 2)\n"  // legalize puts _operator ops first
          "  %sym_size_int_1: SymInt(s0) = aten.sym_size.int(%x, 0)\n"
          "  %relu: float32[s0, 8] = aten.relu.default(%x)\n"
          "  %view: float32[s0, 8] = aten.view.default(%relu, [%sym_size_int_1, 8])\n"
          "  %neg: float32[s0, 8] = aten.neg.default(%view)\n"
          "  return (%neg, %mul)\n");
    // The bound symbol's range is not carried over; the hint follows the program's.
    CHECK(ep.range_constraints.size() == 1);
    CHECK(ep.graph().find_value("sym_size_int_1")->sym_int()->hint() == 4);
  }
  SUBCASE("static program size: s77 becomes 4 and sizes turn concrete") {
    ExportedProgram ep = dynamic_program(SymInt(4));
    REQUIRE(passes::swap(ep, {{"m", testing::share(dynamic_replacement(2, 64))}}).ok());
    CHECK(print_graph(ep.graph(), types) ==
          "graph(%x: float32[4, 8]):\n"
          "  %sym_size_int_1: SymInt(4) = aten.sym_size.int(%x, 0)\n"
          "  %relu: float32[4, 8] = aten.relu.default(%x)\n"
          "  %view: float32[4, 8] = aten.view.default(%relu, [%sym_size_int_1, 8])\n"
          "  %neg: float32[4, 8] = aten.neg.default(%view)\n"
          "  return (%neg)\n");
    CHECK(ep.range_constraints.empty());
  }
}

TEST_CASE("swap errors: incompatible symbolic shapes") {
  struct Case {
    SymInt program_rows;
    int64_t lo, hi;
    std::optional<int64_t> static_rows;
    const char* why;
  };
  const Case cases[] = {
      {sym("s0", 4), 2, 16, std::nullopt,
       "the program's size s0 ranges over [2, 32], wider than the range [2, 16] of the replacement's symbol "
       "s77"},
      {SymInt(100), 2, 64, std::nullopt,
       "size 100 is outside the range [2, 64] of the replacement's symbol s77"},
      // An expression of the program's symbols: its range (s0 in [2, 32]) is checked as well.
      {sym("8*s0", 32), 300, 1024, std::nullopt,
       "the program's size 8*s0 ranges over [16, 256], not within the range [300, 1024] of the replacement's "
       "symbol s77"},
      {sym("8*s0", 32), 2, 100, std::nullopt,
       "the program's size 8*s0 ranges over [16, 256], not within the range [2, 100] of the replacement's "
       "symbol "
       "s77"},
      {sym("s0", 4), 0, 0, int64_t{4},
       "the program's size s0 is dynamic but the replacement was exported with the static size 4"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.why);
    ExportedProgram ep = dynamic_program(c.program_rows);
    ExportedProgram rep = dynamic_replacement(c.lo, c.hi, c.static_rows);
    Status st = passes::swap(ep, {{"m", testing::share(rep)}});
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == ErrorCode::MODULE_SWAP);
    CHECK(st.error().message.find(std::string("(dimension 0: ") + c.why + ")") != std::string::npos);
  }
}

TEST_CASE("SymBinding: expressions are compared once their symbols are bound") {
  ExportedProgram rep = dynamic_replacement(2, 64);
  ExportedProgram prog = dynamic_program(sym("s0", 4));
  passes::module_swap::SymBinding b(rep, prog);
  CHECK_FALSE(b.unify(sym("2*s77", 10), sym("2*s0", 8)));  // deferred
  CHECK_FALSE(b.unify(sym("s77", 5), sym("s0", 4)));
  CHECK_FALSE(b.finish());
  CHECK(b.bound_symbols() == std::vector<std::string>{"s77"});
  CHECK(b.apply(sym("s77 + 1", 6)).expr().expr_str == "s0 + 1");
  CHECK(b.apply(sym("s77 + 1", 6)).hint() == 5);
  CHECK(b.apply(SymInt(7)).value() == 7);
  auto again = b.unify(sym("s77", 5), sym("s1", 4));
  REQUIRE(again);
  CHECK(*again == "the replacement's symbol s77 would stand for both s0 and s1");

  passes::module_swap::SymBinding c(rep, prog);
  CHECK_FALSE(c.unify(sym("3*s77", 15), sym("2*s0", 8)));
  CHECK_FALSE(c.unify(sym("s77", 5), sym("s0", 4)));
  auto why = c.finish();
  REQUIRE(why);
  CHECK(*why == "size 2*s0 in the program but 3*s77 (= 3*s0) in the replacement");

  passes::module_swap::SymBinding d(rep, dynamic_program(SymInt(4)));
  CHECK_FALSE(d.unify(sym("s77", 5), SymInt(4)));
  CHECK(d.apply(sym("2*s77 - 1", 9)).is_concrete());
  CHECK(d.apply(sym("2*s77 - 1", 9)).value() == 7);
}
