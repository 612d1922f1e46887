// Small hand-built programs for IR tests.
#pragma once

#include <string>
#include <vector>

#include "ir/exported_program.h"

namespace pteforge::test {

inline ir::Node call(const std::string& target, std::vector<ir::NamedArgument> inputs, const std::string& out) {
  return ir::Node(ir::OpTarget(target), std::move(inputs), {ir::arg_tensor(out)}, out);
}

/// graph(%x: float32[2, 3], %w: float32[3, 3]):
///   %mm = aten.mm.default(%x, %w)
///   %relu = aten.relu.default(%mm)
///   %add = aten.add.Tensor(%relu, %x)
///   return (%add)
inline ir::Graph make_chain() {
  using namespace ir;
  Graph g;
  g.set_tensor_meta("x", make_tensor_meta(ScalarType::Float, {2, 3}));
  g.set_tensor_meta("w", make_tensor_meta(ScalarType::Float, {3, 3}));
  g.set_inputs({arg_tensor("x"), arg_tensor("w")});
  g.append(call("torch.ops.aten.mm.default", {positional("self", arg_tensor("x")), positional("mat2", arg_tensor("w"))},
                "mm"));
  g.set_tensor_meta("mm", make_tensor_meta(ScalarType::Float, {2, 3}));
  g.append(call("torch.ops.aten.relu.default", {positional("self", arg_tensor("mm"))}, "relu"));
  g.set_tensor_meta("relu", make_tensor_meta(ScalarType::Float, {2, 3}));
  g.append(call("torch.ops.aten.add.Tensor", {positional("self", arg_tensor("relu")), positional("other", arg_tensor("x"))},
                "add"));
  g.set_tensor_meta("add", make_tensor_meta(ScalarType::Float, {2, 3}));
  g.set_outputs({arg_tensor("add")});
  return g;
}

/// make_chain() as a program: w is the parameter "lin.weight", x the user input.
inline ir::ExportedProgram make_program() {
  using namespace ir;
  ExportedProgram ep;
  ep.graph_module.graph = make_chain();
  InputSpec x;
  x.kind = InputKind::UserInput;
  x.arg = arg_tensor("x");
  InputSpec w;
  w.kind = InputKind::Parameter;
  w.arg = arg_tensor("w");
  w.target = "lin.weight";
  ep.signature().input_specs = {x, w};
  OutputSpec out;
  out.kind = OutputKind::UserOutput;
  out.arg = arg_tensor("add");
  ep.signature().output_specs = {out};
  ep.verifiers = {"ATEN"};
  ep.torch_version = "2.11.0";
  ep.opset_version = {{"aten", 10}};
  return ep;
}

}  // namespace pteforge::test
