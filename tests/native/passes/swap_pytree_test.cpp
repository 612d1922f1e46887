// remove_pytree_pairs: where the flatten/unflatten pair between two module
// calls goes, and where it must stay (seed 004 _try_remove_connecting_pytrees).
#include <doctest/doctest.h>

#include "passes/swap_test_util.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::golden;
using pteforge::testing::Out;
using pteforge::testing::ProgramBuilder;

namespace {

enum class BCall {
  InOrder,        // b_mod(a, b)
  DeadModule,     // b_mod(a, b), and a third module c_mod whose result nothing uses
  Kwarg,          // b_mod(a, k=b)
  Swapped,        // b_mod(b, a)
  ExtraInput,     // b_mod(a, b, x)
  UsedElsewhere,  // b_mod(a, b), and a is also a graph output
  UnusedOutput,   // b_mod(a); a_mod's second output b is not used
};

/// x[2,3] -> a_mod: (relu(x), neg(x)) -> b_mod -> ...
ExportedProgram two_modules(BCall how) {
  ProgramBuilder pb;
  const Out t{ScalarType::Float, {2, 3}};
  auto x = pb.input("x", ScalarType::Float, {2, 3});
  auto a = pb.call("aten.relu.default", {arg_tensor(x)}, t);
  auto b = pb.call("aten.neg.default", {arg_tensor(x)}, t);
  std::vector<std::string> b_inputs;
  std::string result;
  switch (how) {
    case BCall::Swapped:
      b_inputs = {b, a};
      result = pb.call("aten.add.Tensor", {arg_tensor(b), arg_tensor(a)}, t);
      break;
    case BCall::UnusedOutput:
      b_inputs = {a};
      result = pb.call("aten.sigmoid.default", {arg_tensor(a)}, t);
      break;
    default:
      b_inputs = {a, b};
      result = pb.call("aten.add.Tensor", {arg_tensor(a), arg_tensor(b)}, t);
      break;
  }
  std::vector<std::string> b_nodes = {result};
  if (how == BCall::ExtraInput) {
    b_inputs.push_back(x);
    result = pb.call("aten.mul.Tensor", {arg_tensor(result), arg_tensor(x)}, t);
    b_nodes.push_back(result);
  }
  std::string dead;
  if (how == BCall::DeadModule) dead = pb.call("aten.sigmoid.default", {arg_tensor(x)}, t);
  pb.output(result);
  if (how == BCall::UsedElsewhere) pb.output(a);
  ExportedProgram ep = pb.build();
  if (!dead.empty()) {
    testing::set_stack(ep.graph(), dead, {"c_mod"});
    testing::preserve(ep, "c_mod", {x}, {dead}, testing::args_spec(1), testing::out_spec(1));
  }
  testing::set_stack(ep.graph(), a, {"a_mod"});
  testing::set_stack(ep.graph(), b, {"a_mod"});
  for (const auto& n : b_nodes) testing::set_stack(ep.graph(), n, {"b_mod"});
  testing::preserve(ep, "a_mod", {x}, {a, b}, testing::args_spec(1), testing::out_spec(2));
  if (how == BCall::Kwarg) {
    testing::preserve(ep, "b_mod", b_inputs, {b_nodes.back()}, testing::args_spec(1, {"k"}), testing::out_spec(1));
  } else {
    testing::preserve(ep, "b_mod", b_inputs, {b_nodes.back()}, testing::args_spec(b_inputs.size()),
                      testing::out_spec(1));
  }
  REQUIRE(verify_program(ep).ok());
  return ep;
}

/// outline the modules, remove pairs; returns pairs removed; checks the inline round trip.
int64_t pairs_removed(ExportedProgram& ep, std::vector<std::string> modules = {"a_mod", "b_mod"}) {
  const ExportedProgram original = ep;
  passes::PipelineOptions options;
  options.outline_modules = std::move(modules);
  passes::PassReport r = testing::run_passes(ep, {"outline_modules", "remove_pytree_pairs"}, options);
  ExportedProgram back = ep;
  testing::run_passes(back, {"inline_modules"});
  testing::expect_same_program(back, original);
  auto it = r.passes[1].stats.find("pairs_removed");
  return it == r.passes[1].stats.end() ? 0 : it->second;
}

}  // namespace

TEST_CASE("remove_pytree_pairs: two outputs passed on in order") {
  ExportedProgram ep = two_modules(BCall::InOrder);
  CHECK(pairs_removed(ep) == 1);
  CHECK(golden(ep.graph()) ==
        "graph(%x):\n"
        "  %tree_unflatten = pteforge.tree_unflatten(%x, spec=((*,), {}))\n"
        "  %getitem = _operator.getitem(%tree_unflatten, 0)\n"
        "  %getitem_1 = _operator.getitem(%getitem, 0)\n"
        "  %a_mod = pteforge.call_module(@a_mod, %getitem_1)\n"
        "    @a_mod = graph(%x):\n"
        "      %relu = aten.relu.default(%x)\n"
        "      %neg = aten.neg.default(%x)\n"
        "      return (%relu, %neg)\n"
        "  %b_mod = pteforge.call_module(@b_mod, %a_mod)\n"
        "    @b_mod = graph(%relu, %neg):\n"
        "      %add = aten.add.Tensor(%relu, %neg)\n"
        "      return (%add)\n"
        "  %tree_flatten_spec_1 = pteforge.tree_flatten_spec(%b_mod, spec=*)\n"
        "  %add = _operator.getitem(%tree_flatten_spec_1, 0)\n"
        "  return (%add)\n");
}

TEST_CASE("remove_pytree_pairs: the call of a module whose result nothing uses stays, to be swapped") {
  // Erasing it with the dead pytree nodes left replace_modules without the
  // module it was asked to swap (INTERNAL "no call_module for module").
  ExportedProgram ep = two_modules(BCall::DeadModule);
  CHECK(pairs_removed(ep, {"a_mod", "b_mod", "c_mod"}) == 1);
  const Node* c_call = ep.graph().find_node("c_mod");
  REQUIRE(c_call != nullptr);
  CHECK(passes::module_swap::is_call_module(*c_call));
  // Its result's flatten node went with the pair's (nothing used it).
  CHECK(golden(ep.graph()).find("pteforge.tree_flatten_spec(%c_mod") == std::string::npos);
}

TEST_CASE("remove_pytree_pairs: outputs passed on as positional and keyword arguments") {
  // The seed would keep the kwargs and pass them twice; with flat calling
  // semantics the next call simply takes the whole result.
  ExportedProgram ep = two_modules(BCall::Kwarg);
  passes::PipelineOptions options;
  options.outline_modules = {"a_mod", "b_mod"};
  ExportedProgram outlined = ep;
  testing::run_passes(outlined, {"outline_modules"}, options);
  const Node* b_call = outlined.graph().find_node("b_mod");
  REQUIRE(b_call != nullptr);
  CHECK(print_argument(b_call->inputs()[2].arg) == "{'k': %getitem_5}");
  CHECK(pairs_removed(ep) == 1);
  CHECK(print_argument(ep.graph().find_node("b_mod")->inputs()[1].arg) == "%a_mod");
  CHECK(ep.graph().find_node("b_mod")->inputs().size() == 2);  // module, args: no kwargs left
}

TEST_CASE("remove_pytree_pairs: must not apply") {
  SUBCASE("outputs passed in another order") {
    ExportedProgram ep = two_modules(BCall::Swapped);
    CHECK(pairs_removed(ep) == 0);
  }
  SUBCASE("the next module has another input") {
    ExportedProgram ep = two_modules(BCall::ExtraInput);
    CHECK(pairs_removed(ep) == 0);
  }
  SUBCASE("an output is also used elsewhere") {
    ExportedProgram ep = two_modules(BCall::UsedElsewhere);
    CHECK(pairs_removed(ep) == 0);
  }
  SUBCASE("an output of the first module is not used (the seed would connect them)") {
    ExportedProgram ep = two_modules(BCall::UnusedOutput);
    CHECK(pairs_removed(ep) == 0);
    // The flatten/unflatten pair stays, and so does the unused output's place.
    CHECK(golden(ep.graph()).find("%relu = _operator.getitem(%tree_flatten_spec, 0)") != std::string::npos);
    CHECK(golden(ep.graph()).find("_operator.getitem(%tree_flatten_spec, 1)") == std::string::npos);
  }
}

TEST_CASE("leaf_permutation: specs equal up to dict key order, leaves matched by key") {
  auto dict = [](const char* type, const std::vector<std::string>& keys, std::vector<TreeSpecNode> children) {
    return testing::dict_spec_node(keys, std::move(children), type);
  };
  const TreeSpecNode leaf = treespec_leaf();
  const TreeSpecNode pair = treespec_node("builtins.tuple", "null", {leaf, leaf});
  // {'a': (*, *), 'b': *} against {'b': *, 'a': (*, *)}: a's leaves are b's 1, 2; b's is b's 0.
  auto p = passes::module_swap::leaf_permutation(dict("builtins.dict", {"a", "b"}, {pair, leaf}),
                                                 dict("builtins.dict", {"b", "a"}, {leaf, pair}));
  REQUIRE(p.has_value());
  CHECK(*p == std::vector<size_t>{1, 2, 0});
  // The same spec: the identity. OrderedDicts are matched by key too.
  CHECK(*passes::module_swap::leaf_permutation(pair, pair) == std::vector<size_t>{0, 1});
  CHECK(*passes::module_swap::leaf_permutation(dict("collections.OrderedDict", {"x", "y"}, {leaf, leaf}),
                                               dict("collections.OrderedDict", {"y", "x"}, {leaf, leaf})) ==
        std::vector<size_t>{1, 0});
  // Differences other than the key order.
  CHECK_FALSE(passes::module_swap::leaf_permutation(dict("builtins.dict", {"a", "b"}, {leaf, leaf}),
                                                    dict("builtins.dict", {"a", "c"}, {leaf, leaf})));
  CHECK_FALSE(passes::module_swap::leaf_permutation(dict("builtins.dict", {"a", "b"}, {pair, leaf}),
                                                    dict("builtins.dict", {"b", "a"}, {pair, leaf})));
  CHECK_FALSE(
      passes::module_swap::leaf_permutation(pair, treespec_node("builtins.list", "null", {leaf, leaf})));
  CHECK_FALSE(passes::module_swap::leaf_permutation(dict("builtins.dict", {"a", "a"}, {leaf, leaf}),
                                                    dict("builtins.dict", {"a", "a"}, {leaf, leaf})));
}
