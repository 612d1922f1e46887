// Node metadata encodings (§6, §6.1), targets, floats and arguments.
#include <doctest/doctest.h>

#include <cmath>

#include "ir/argument.h"
#include "ir/float_repr.h"
#include "ir/node_metadata.h"
#include "ir/target.h"

using namespace pteforge::ir;

TEST_CASE("metadata: nn_module_stack splits on semicolons and on commas outside brackets") {
  std::string text =
      "L__self__,,__main__.Model;L__self___block,block,__main__.Block;"
      "L__self___0,getattr(L['self'].layers, '0'),torch.nn.modules.linear.Linear";
  auto stack = parse_nn_module_stack(text);
  REQUIRE(stack.has_value());
  REQUIRE(stack->size() == 3);
  CHECK((*stack)[0] == ModuleFrame{"L__self__", "", "__main__.Model"});
  CHECK((*stack)[1] == ModuleFrame{"L__self___block", "block", "__main__.Block"});
  CHECK((*stack)[2].path == "getattr(L['self'].layers, '0')");
  CHECK((*stack)[2].type == "torch.nn.modules.linear.Linear");
  CHECK(format_nn_module_stack(*stack) == text);
  CHECK_FALSE(parse_nn_module_stack("a,b").has_value());
  CHECK_FALSE(parse_nn_module_stack("a,b,c,d").has_value());
  CHECK_FALSE(parse_nn_module_stack("").has_value());
}

TEST_CASE("metadata: source_fn_stack, torch_fn and the first stack frame") {
  auto s = parse_source_fn_stack("linear,torch.nn.modules.linear.Linear;relu,function.relu");
  REQUIRE(s.has_value());
  CHECK(s->size() == 2);
  CHECK((*s)[1] == SourceFnFrame{"relu", "function.relu"});
  CHECK(format_source_fn_stack(*s) == "linear,torch.nn.modules.linear.Linear;relu,function.relu");
  CHECK_FALSE(parse_source_fn_stack("no_comma").has_value());
  auto t = parse_torch_fn("linear_1;builtin_function_or_method.linear");
  REQUIRE(t.has_value());
  CHECK(t->name == "linear_1");
  CHECK(t->target == "builtin_function_or_method.linear");
  CHECK_FALSE(parse_torch_fn("a;b;c").has_value());
  CHECK_FALSE(parse_torch_fn("ab").has_value());
  CHECK(stack_trace_first_frame("  File \"/home/u/m.py\", line 13, in forward\n    return x\n") ==
        "/home/u/m.py:13 in forward");
  CHECK(stack_trace_first_frame("\n  something else  \n") == "something else");
  CHECK(stack_trace_first_frame("") == "");
  NodeMetadata md;
  md.nn_module_stack = std::make_shared<const ModuleStack>(ModuleStack{{"k", "", "M"}, {"k2", "block.lin", "L"}});
  CHECK(md.module_path() == "block.lin");
  md.other.emplace_back("custom", "{\"a\": 1}");
  CHECK(*md.find_other("custom") == "{\"a\": 1}");
  CHECK(md.find_other("from_node") == nullptr);
}

TEST_CASE("target: kinds and pieces of target strings") {
  OpTarget add("torch.ops.aten.add.Tensor");
  CHECK(add.kind() == TargetKind::Operator);
  CHECK(add.ns() == "aten");
  CHECK(add.op() == "add");
  CHECK(add.overload() == "Tensor");
  CHECK(add.short_name() == "aten.add.Tensor");
  CHECK(add == OpTarget("torch.ops.aten.add.Tensor"));
  CHECK_FALSE(add == OpTarget("torch.ops.aten.add.Scalar"));
  CHECK(add.is("aten.add.Tensor"));
  CHECK(add.is("torch.ops.aten.add.Tensor"));
  OpTarget cond("torch.ops.higher_order.cond");
  CHECK(cond.kind() == TargetKind::HigherOrder);
  CHECK(cond.op() == "cond");
  CHECK(OpTarget("_operator.mul").kind() == TargetKind::PythonOperator);
  CHECK(OpTarget("_operator.mul").op() == "mul");
  CHECK(OpTarget("math.trunc").kind() == TargetKind::Math);
  CHECK(OpTarget("torch.sym_max").kind() == TargetKind::TorchFunction);
  OpTarget ext("#mylib:fancy");
  CHECK(ext.kind() == TargetKind::Extension);
  CHECK(ext.ns() == "mylib");
  CHECK(ext.op() == "fancy");
  CHECK(OpTarget().empty());
  CHECK(OpTarget("torch.ops.mylib.my_op.default").ns() == "mylib");
}

TEST_CASE("target: well_formed accepts the forms torch.export writes, nothing else") {
  for (const char* ok : {"torch.ops.aten.add.Tensor", "torch.ops.aten.add", "torch.ops.mylib.my_op.default",
                         "torch.ops.higher_order.cond", "_operator.getitem", "math.trunc", "torch.sym_max",
                         "torch.nn.functional.relu", "memory.alloc", "#mylib:fancy", "modèle.f",
                         "torch.ops.executorch_call_delegate"}) {
    const std::string text = ok;
    CAPTURE(text);
    CHECK(OpTarget(text).well_formed());
  }
  for (const char* bad : {"", "!!!", "relu", "torch.ops.", "torch.ops.aten.", "torch.ops.higher_order.",
                          "torch.ops.aten.add.", "torch.ops.aten..Tensor", "torch.ops.aten.add.Ten sor",
                          "_operator.", ".getitem", "9lib.f", "a..b", "#mylib:", "#:op"}) {
    const std::string text = bad;
    CAPTURE(text);
    CHECK_FALSE(OpTarget(text).well_formed());
  }
}

TEST_CASE("target: is_higher_order in each form a higher-order op is written") {
  for (const char* hop : {"torch.ops.higher_order.cond", "torch.ops.executorch_call_delegate",
                          "torch._higher_order_ops.with_effects.with_effects"}) {
    const std::string text = hop;
    CAPTURE(text);
    CHECK(OpTarget(text).is_higher_order());
  }
  for (const char* other :
       {"torch.ops.aten.add.Tensor", "torch.ops.aten.add", "_operator.getitem", "torch.sym_max",
        "torch._higher_order_opsX.a.b", "torch._higher_order_ops", "memory.alloc", "#mylib:fancy", ""}) {
    const std::string text = other;
    CAPTURE(text);
    CHECK_FALSE(OpTarget(text).is_higher_order());
  }
}

TEST_CASE("target: TargetMemo computes a fact once per interned target") {
  TargetMemo<int> memo;
  int calls = 0;
  auto length = [&calls](const OpTarget& t) {
    ++calls;
    return static_cast<int>(t.str().size());
  };
  const OpTarget add("torch.ops.aten.add.Tensor");
  CHECK(memo.get(add, [&] { return length(add); }) == 25);
  // The same text interned again is the same key: no second computation.
  const OpTarget again(std::string("torch.ops.aten.") + "add.Tensor");
  CHECK(again.key() == add.key());
  CHECK(memo.get(again, [&] { return length(again); }) == 25);
  CHECK(calls == 1);
  const OpTarget relu("torch.ops.aten.relu.default");
  CHECK(relu.key() != add.key());
  const int& first = memo.get(relu, [&] { return length(relu); });
  CHECK(first == 27);
  CHECK(calls == 2);
  // Many more targets (the table rehashes): the first reference still reads its fact.
  for (int i = 0; i < 200; ++i) {
    const OpTarget t("torch.ops.mylib.op" + std::to_string(i) + ".default");
    CHECK(memo.get(t, [&] { return length(t); }) == static_cast<int>(t.str().size()));
  }
  CHECK(first == 27);
  CHECK(calls == 202);
}

TEST_CASE("float_repr: Python repr of floats") {
  CHECK(python_float_repr(0.2) == "0.2");
  CHECK(python_float_repr(1e-05) == "1e-05");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(1.0) == "1.0");
  CHECK(python_float_repr(-0.0) == "-0.0");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(1e15) == "1000000000000000.0");
  CHECK(python_float_repr(123.456) == "123.456");
  CHECK(python_float_repr(1.5e300) == "1.5e+300");
  CHECK(python_float_repr(5e-324) == "5e-324");
  CHECK(python_float_repr(0.1 + 0.2) == "0.30000000000000004");
  CHECK(python_float_repr(1.0 / 3.0) == "0.3333333333333333");
  CHECK(python_float_repr(2.0 / 3.0) == "0.6666666666666666");
  CHECK(python_float_repr(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(python_float_repr(9007199254740993.0) == "9007199254740992.0");
  CHECK(python_float_repr(1e22) == "1e+22");
  CHECK(python_float_repr(HUGE_VAL) == "inf");
  CHECK(python_float_repr(std::nan("")) == "nan");
}

TEST_CASE("argument: tags, factories and value-name visitors") {
  CHECK(arg_tag_name(ArgTag::OptionalTensors) == "as_optional_tensors");
  CHECK(arg_tag_from_name("as_float_lists") == ArgTag::FloatLists);
  CHECK_FALSE(arg_tag_from_name("as_whatever").has_value());
  Argument a = Argument::make<ArgTag::OptionalTensors>(
      std::vector<OptionalTensorArgument>{{"i0"}, {std::nullopt}, {"i2"}});
  std::vector<std::string> seen;
  for_each_value_name(a, [&](const std::string& n, ValueKind k) {
    CHECK(k == ValueKind::Tensor);
    seen.push_back(n);
  });
  CHECK(seen == std::vector<std::string>{"i0", "i2"});
  CHECK(argument_name_pointer(a, "i2") == "/as_optional_tensors/2/as_tensor/name");
  Argument d = Argument::make<ArgTag::StringToArgument>(StringToArgument{{{"a/b", arg_sym_int("s")}}});
  CHECK(argument_name_pointer(d, "s") == "/as_string_to_argument/a~1b/as_sym_int/as_name");
  Argument f = arg_float(std::nan(""));
  CHECK(f == arg_float(std::nan("")));
  CHECK_FALSE(f == arg_float(1.0));
  CHECK_FALSE(arg_int(1) == arg_bool(true));
  CHECK(*arg_sym_int("s0").value_name() == "s0");
  CHECK(arg_ints({1}).value_name() == nullptr);
}
