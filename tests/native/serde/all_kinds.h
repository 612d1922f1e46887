// A hand-built program that uses every Argument kind, a higher-order op with
// a nested graph, symbolic values of every kind, every input/output spec
// kind, a preserved module call signature and graph-module metadata.
#pragma once

#include <cmath>

#include "ir/exported_program.h"

namespace pteforge::test {

inline ir::ExportedProgram all_kinds_program() {
  using namespace ir;
  ExportedProgram ep;
  Graph& g = ep.graph();
  SymExpr s0{"Symbol('s0', integer=True, positive=True)", SymExprHint::of_int(4)};
  TensorMeta x = make_tensor_meta(ScalarType::Float, {4, 3});
  x.sizes[0] = SymInt(s0);
  x.strides[0] = SymInt(int64_t{3});
  g.set_tensor_meta("x", x);
  g.set_tensor_meta("p_w", make_tensor_meta(ScalarType::BFloat16, {3}));
  g.set_tensor_meta("b_buf",
                    make_tensor_meta(ScalarType::Long, {4, 3}));  // wrap (float32[4, 3]) is written into it
  g.set_tensor_meta("c_table", make_tensor_meta(ScalarType::Bool, {2}));
  g.set_tensor_meta("token", make_tensor_meta(ScalarType::Float, {0}));
  g.set_custom_obj("obj", CustomObjArgument{"obj", "__torch__.torch.classes.mylib.Foo"});
  g.set_sym_int("n", SymInt(SymExpr{"Symbol('s0', integer=True, positive=True)", SymExprHint::of_int(4)}));
  g.set_inputs({arg_tensor("token"), arg_tensor("p_w"), arg_tensor("b_buf"), arg_tensor("c_table"),
                arg_custom_obj("obj", "__torch__.torch.classes.mylib.Foo"), arg_tensor("x"), arg_sym_int("n"),
                arg_float(2.5)});

  // A node using every literal kind.
  std::vector<NamedArgument> in = {
      positional("self", arg_tensor("x")),
      positional("none", arg_none()),
      positional("tensors", arg_tensors({"x", "p_w"})),
      positional("i", arg_int(-9223372036854775807LL - 1)),
      positional("ints", arg_ints({1, 9223372036854775807LL})),
      positional("f", arg_float(1e-05)),
      positional("fs", arg_floats({0.1, -0.0, HUGE_VAL, std::nan("")})),
      keyword("s", arg_string("tanh \"approx\" \xc3\xa9")),
      keyword("ss", Argument::make<ArgTag::Strings>(std::vector<std::string>{"a", ""})),
      keyword("si", Argument::make<ArgTag::SymInt>(SymIntArgument{std::nullopt, 7})),
      keyword("sis", Argument::make<ArgTag::SymInts>(std::vector<SymIntArgument>{{"n", 0}, {std::nullopt, 3}})),
      keyword("dtype", arg_dtype(ScalarType::Half)),
      keyword("memory_format", arg_memory_format(MemoryFormat::ChannelsLast)),
      keyword("layout", arg_layout(Layout::Strided)),
      keyword("device", arg_device(Device{"cuda", 1})),
      keyword("b", arg_bool(false)),
      keyword("bs", Argument::make<ArgTag::Bools>(std::vector<bool>{true, false})),
      keyword("sb", Argument::make<ArgTag::SymBool>(SymBoolArgument{"gt", false})),
      keyword("sbs", Argument::make<ArgTag::SymBools>(std::vector<SymBoolArgument>{{std::nullopt, true}, {"gt", false}})),
      keyword("opt", Argument::make<ArgTag::OptionalTensors>(std::vector<OptionalTensorArgument>{{"x"}, {std::nullopt}})),
      keyword("obj", arg_custom_obj("obj", "__torch__.torch.classes.mylib.Foo")),
      keyword("op", Argument::make<ArgTag::Operator>(OperatorArgument{OpTarget("torch.ops.aten.add.Tensor")})),
      keyword("sf", Argument::make<ArgTag::SymFloat>(SymFloatArgument{std::nullopt, 0.5})),
      keyword("sfs", Argument::make<ArgTag::SymFloats>(std::vector<SymFloatArgument>{{"half", 0.0}, {std::nullopt, 1.5}})),
      keyword("ot", Argument::make<ArgTag::OptionalTensor>(OptionalTensorArgument{std::nullopt})),
      keyword("c", Argument::make<ArgTag::Complex>(ComplexValue{1.0, -2.5})),
      keyword("nested", Argument::make<ArgTag::NestedTensors>(
                            std::vector<std::vector<TensorArgument>>{{{"x"}}, {{"p_w"}, {"x"}}, {}})),
      keyword("il", Argument::make<ArgTag::IntLists>(std::vector<std::vector<int64_t>>{{1, 2}, {}})),
      keyword("dict", Argument::make<ArgTag::StringToArgument>(
                          StringToArgument{{{"k/1", arg_tensor("x")}, {"k~2", arg_ints({})}}})),
      keyword("fl", Argument::make<ArgTag::FloatLists>(std::vector<std::vector<double>>{{0.25}, {}})),
  };
  // Symbolic scalars used above.
  Node gt(OpTarget("_operator.gt"), {positional("a", arg_sym_int("n")), positional("b", arg_int(2))},
          {arg_sym_bool("gt")}, "gt");
  g.append(std::move(gt));
  g.set_sym_bool("gt", SymBool(SymExpr{"StrictGreaterThan(Symbol('s0', integer=True, positive=True), Integer(2))",
                                       SymExprHint::of_bool(true)}));
  Node half(OpTarget("_operator.truediv"), {positional("a", arg_sym_int("n")), positional("b", arg_int(8))},
            {arg_sym_float("half")}, "half");
  g.append(std::move(half));
  g.set_sym_float("half", SymFloat(SymExpr{"IntTrueDiv(Symbol('s0', integer=True, positive=True), Integer(8))",
                                           SymExprHint::of_float(0.5)}));
  Node kitchen(OpTarget("torch.ops.mylib.kitchen_sink.default"), std::move(in),
               {arg_tensor("ks0"), arg_none(), arg_tensors({"ks2_0", "ks2_1"})}, "kitchen_sink");
  NodeMetadata md;
  md.stack_trace = std::make_shared<const std::string>("  File \"/m.py\", line 3, in forward\n    y = ks(x)\n");
  md.nn_module_stack = std::make_shared<const ModuleStack>(
      ModuleStack{{"L__self__", "", "__main__.M"}, {"L__self__blk", "blk", "__main__.Block"}});
  md.source_fn_stack = std::make_shared<const SourceFnStack>(SourceFnStack{{"ks", "mylib.ks"}});
  md.torch_fn = std::make_shared<const TorchFn>(TorchFn{"ks_1", "function.ks"});
  md.other = {{"custom", "{\"tag\": 1}"}, {"nn_module_stack_extra", "verbatim"}};
  kitchen.metadata() = md;
  g.append(std::move(kitchen));
  for (const char* n : {"ks0", "ks2_0", "ks2_1"}) g.set_tensor_meta(n, make_tensor_meta(ScalarType::Float, {4, 3}));

  // A higher-order op with a nested graph.
  Graph body;
  body.set_tensor_meta("a", make_tensor_meta(ScalarType::Float, {4, 3}));
  body.set_inputs({arg_tensor("a")});
  body.append(Node(OpTarget("torch.ops.aten.sin.default"), {positional("self", arg_tensor("a"))}, {arg_tensor("sin")}, "sin"));
  body.set_tensor_meta("sin", make_tensor_meta(ScalarType::Float, {4, 3}));
  body.set_outputs({arg_tensor("sin")});
  body.set_is_single_tensor_return(true);
  Node wrap(OpTarget("torch.ops.higher_order.wrap_with_set_grad_enabled"),
            {positional("", arg_bool(false)), positional("", Argument::make<ArgTag::Graph>(GraphArgument{"body_0", GraphBox(std::move(body))})),
             positional("", arg_tensor("ks0"))},
            {arg_tensor("wrap")}, "wrap");
  wrap.is_hop_single_tensor_return() = true;
  g.append(std::move(wrap));
  g.set_tensor_meta("wrap", make_tensor_meta(ScalarType::Float, {4, 3}));
  Node effect(OpTarget("torch.ops.higher_order.with_effects"),
              {positional("", arg_tensor("token")),
               positional("", Argument::make<ArgTag::Operator>(OperatorArgument{OpTarget("torch.ops.mylib.log.default")}))},
              {arg_tensor("token_1")}, "with_effects");
  effect.is_hop_single_tensor_return() = false;
  g.append(std::move(effect));
  g.set_tensor_meta("token_1", make_tensor_meta(ScalarType::Float, {0}));
  g.set_outputs({arg_tensor("token_1"), arg_tensor("wrap"), arg_tensor("ks2_0"), arg_tensor("ks2_1"),
                 arg_tensor("ks0"), arg_int(3), arg_none(), arg_sym_int("n")});

  auto in_spec = [](InputKind k, Argument a, std::string target = {}) {
    InputSpec s;
    s.kind = k;
    s.arg = std::move(a);
    s.target = std::move(target);
    return s;
  };
  InputSpec buffer = in_spec(InputKind::Buffer, arg_tensor("b_buf"), "buf");
  buffer.persistent = false;
  InputSpec constant = in_spec(InputKind::ConstantInput, arg_float(2.5));
  constant.constant_name = "scale";
  ep.signature().input_specs = {in_spec(InputKind::Token, arg_tensor("token")),
                                in_spec(InputKind::Parameter, arg_tensor("p_w"), "w"),
                                buffer,
                                in_spec(InputKind::TensorConstant, arg_tensor("c_table"), "table"),
                                in_spec(InputKind::CustomObj, arg_custom_obj("obj", "__torch__.torch.classes.mylib.Foo"), "foo"),
                                in_spec(InputKind::UserInput, arg_tensor("x")),
                                in_spec(InputKind::UserInput, arg_sym_int("n")),
                                constant};
  auto out_spec = [](OutputKind k, Argument a, std::string target = {}) {
    OutputSpec s;
    s.kind = k;
    s.arg = std::move(a);
    s.target = std::move(target);
    return s;
  };
  ep.signature().output_specs = {out_spec(OutputKind::Token, arg_tensor("token_1")),
                                 out_spec(OutputKind::BufferMutation, arg_tensor("wrap"), "buf"),
                                 out_spec(OutputKind::ParameterMutation, arg_tensor("ks2_0"), "w"),
                                 out_spec(OutputKind::UserInputMutation, arg_tensor("ks2_1"), "x"),
                                 out_spec(OutputKind::LossOutput, arg_tensor("ks0")),
                                 out_spec(OutputKind::UserOutput, arg_int(3)),
                                 out_spec(OutputKind::UserOutput, arg_none()),
                                 out_spec(OutputKind::UserOutput, arg_sym_int("n"))};

  ModuleCallSignature root;
  TreeSpecNode leaf = treespec_leaf();
  root.in_spec.root = treespec_node("builtins.tuple", "\"null\"",
                                    {treespec_node("builtins.tuple", "\"null\"", {leaf, leaf, leaf}),
                                     treespec_node("builtins.dict", "\"[]\"", {})});
  root.out_spec.root = treespec_node("collections.namedtuple", "\"__main__.Out\"", {leaf, leaf, leaf});
  root.forward_arg_names = std::vector<std::string>{"x", "n", "scale"};
  ModuleCallSignature blk;
  blk.inputs = {arg_tensor("x")};
  blk.outputs = {arg_tensor("ks0")};
  blk.in_spec.root = root.in_spec.root;
  blk.out_spec.root = leaf;
  ep.graph_module.module_call_graph = {ModuleCallEntry{"", root}, ModuleCallEntry{"blk", blk},
                                       ModuleCallEntry{"blk.inner", std::nullopt}};
  ep.graph_module.metadata = {{"custom", "{\"k\": \"v\"}"}};
  ep.graph_module.treespec_namedtuple_fields = {{"__main__.Out", {"a", "b", "c"}}};
  ep.opset_version = {{"aten", 10}, {"mylib", 1}};
  ep.range_constraints = {{"s0", RangeConstraint{2, std::nullopt}}, {"u0", RangeConstraint{0, 4611686018427387904LL}}};
  ep.schema_version = SchemaVersion{8, 20};
  ep.verifiers = {"ATEN"};
  ep.torch_version = "2.11.0";
  ep.guards_code = {"L['x'].size()[0] >= 2"};
  return ep;
}

}  // namespace pteforge::test
