// ProgramBuilder: builds small ExportedPrograms in C++ for pass and emitter
// tests (test-only). Positional arguments are named from the operator
// schema (ops table), as the importer names them, so a built graph looks
// like an imported one.
//
//   ProgramBuilder b;
//   auto w = b.parameter("p_w", "w", ScalarType::Float, {4, 8});
//   auto x = b.input("x", ScalarType::Float, {2, 8});
//   auto t = b.call("aten.permute.default", {arg_tensor(w), arg_ints({1, 0})}, {ScalarType::Float, {8, 4}});
//   auto y = b.call("aten.mm.default", {arg_tensor(x), arg_tensor(t)}, {ScalarType::Float, {2, 4}});
//   b.output(y);
//   ir::ExportedProgram ep = b.build();
//   CHECK(ir::print_graph(ep.graph()) == "...");
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ir/exported_program.h"
#include "ir/verifier.h"
#include "ops/op_table.h"

namespace pteforge::testing {

/// Result type of a call: dtype and concrete sizes (contiguous strides).
struct Out {
  ir::ScalarType dtype = ir::ScalarType::Float;
  std::vector<int64_t> sizes;
};

inline ir::TensorMeta make_meta(const Out& o) {
  ir::TensorMeta m;
  m.dtype = o.dtype;
  int64_t stride = 1;
  m.sizes.resize(o.sizes.size());
  m.strides.resize(o.sizes.size());
  for (size_t i = o.sizes.size(); i-- > 0;) {
    m.sizes[i] = o.sizes[i];
    m.strides[i] = stride;
    stride *= o.sizes[i] > 0 ? o.sizes[i] : 1;
  }
  m.storage_offset = 0;
  return m;
}

class ProgramBuilder {
 public:
  std::string parameter(const std::string& name, const std::string& fqn, ir::ScalarType dtype,
                        std::vector<int64_t> sizes) {
    return placeholder(name, ir::InputKind::Parameter, fqn, Out{dtype, std::move(sizes)});
  }
  std::string buffer(const std::string& name, const std::string& fqn, ir::ScalarType dtype,
                     std::vector<int64_t> sizes, bool persistent = true) {
    std::string n = placeholder(name, ir::InputKind::Buffer, fqn, Out{dtype, std::move(sizes)});
    ep_.signature().input_specs.back().persistent = persistent;
    return n;
  }
  std::string constant(const std::string& name, const std::string& fqn, ir::ScalarType dtype,
                       std::vector<int64_t> sizes) {
    return placeholder(name, ir::InputKind::TensorConstant, fqn, Out{dtype, std::move(sizes)});
  }
  std::string input(const std::string& name, ir::ScalarType dtype, std::vector<int64_t> sizes) {
    return placeholder(name, ir::InputKind::UserInput, "", Out{dtype, std::move(sizes)});
  }

  /// Appends a call of `target` with positional `args` and keyword `kwargs`
  /// defining one tensor named `name` (default: derived from the op name).
  std::string call(const std::string& target, std::vector<ir::Argument> args, const Out& out,
                   std::vector<std::pair<std::string, ir::Argument>> kwargs = {}, std::string name = {}) {
    if (name.empty()) name = fresh_name(target);
    add_node(target, std::move(args), std::move(kwargs), {ir::arg_tensor(name)}, name);
    ep_.graph().set_tensor_meta(name, make_meta(out));
    return name;
  }

  /// A call defining several tensors (multi-output op); returns their names.
  std::vector<std::string> call_multi(const std::string& target, std::vector<ir::Argument> args,
                                      const std::vector<Out>& outs, const std::vector<std::string>& names,
                                      std::vector<std::pair<std::string, ir::Argument>> kwargs = {}) {
    REQUIRE(outs.size() == names.size());
    std::vector<ir::Argument> outputs;
    for (const auto& n : names) outputs.push_back(ir::arg_tensor(n));
    std::string node_name = fresh_name(target);
    add_node(target, std::move(args), std::move(kwargs), std::move(outputs), node_name);
    for (size_t i = 0; i < names.size(); ++i) ep_.graph().set_tensor_meta(names[i], make_meta(outs[i]));
    return names;
  }

  /// Adds a graph output with its signature spec.
  void output(const std::string& name, ir::OutputKind kind = ir::OutputKind::UserOutput,
              const std::string& target = {}) {
    ep_.graph().add_output(ir::arg_tensor(name));
    ir::OutputSpec spec;
    spec.kind = kind;
    spec.arg = ir::arg_tensor(name);
    spec.target = target;
    ep_.signature().output_specs.push_back(std::move(spec));
  }

  ir::ExportedProgram& program() { return ep_; }

  /// The program; fails the test when it does not verify.
  ir::ExportedProgram build() {
    ep_.verifiers = {"ATEN"};
    ir::ModuleCallEntry root;
    root.fqn = "";
    ep_.graph_module.module_call_graph = {root};
    Status st = ir::verify_program(ep_);
    if (!st.ok()) FAIL(st.error().to_string());
    return std::move(ep_);
  }

 private:
  std::string placeholder(const std::string& name, ir::InputKind kind, const std::string& fqn, const Out& out) {
    ir::Graph& g = ep_.graph();
    g.insert_input(g.inputs().size(), ir::arg_tensor(name));
    g.set_tensor_meta(name, make_meta(out));
    ir::InputSpec spec;
    spec.kind = kind;
    spec.arg = ir::arg_tensor(name);
    spec.target = fqn;
    ep_.signature().input_specs.push_back(std::move(spec));
    return name;
  }

  std::string fresh_name(const std::string& target) {
    auto parts = ops::split_op_target(target);
    std::string base = parts ? std::string(parts->name) : std::string("node");
    return ep_.graph().unique_name(base);
  }

  void add_node(const std::string& target, std::vector<ir::Argument> args,
                std::vector<std::pair<std::string, ir::Argument>> kwargs, std::vector<ir::Argument> outputs,
                const std::string& name) {
    const ops::OpSchema* schema = ops::op_table().find(target);
    std::vector<ir::NamedArgument> inputs;
    for (size_t i = 0; i < args.size(); ++i) {
      std::string arg_name;
      if (schema && i < schema->arguments.size()) arg_name = schema->arguments[i].name;
      inputs.push_back(ir::NamedArgument{arg_name, std::move(args[i]), ir::ArgumentKind::Positional});
    }
    for (auto& [k, v] : kwargs) inputs.push_back(ir::NamedArgument{k, std::move(v), ir::ArgumentKind::Keyword});
    std::string full = target.rfind("torch.ops.", 0) == 0 ? target : "torch.ops." + target;
    ep_.graph().append(ir::Node(ir::OpTarget(full), std::move(inputs), std::move(outputs), name));
  }

  ir::ExportedProgram ep_;
};

}  // namespace pteforge::testing
