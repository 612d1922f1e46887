// Helpers for the module swap tests: loading corpus/fixture programs with
// their weights, compact golden text, programs with module stacks and
// preserved call signatures, and a tiny float evaluator for numeric checks.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "common/program_builder.h"
#include "ir/printer.h"
#include "passes/module_swap/pytree_ir.h"
#include "passes/module_swap_api.h"
#include "passes/pass_manager.h"
#include "serde/archive_native.h"
#include "serde/treespec_json.h"

namespace pteforge::testing {

/// Fixture folders (under tests/) the module-swap tests share.
inline constexpr const char* kPreserved = "fixtures/corpus/modules_preserved/json";
inline constexpr const char* kNested = "fixtures/programs/nested_modules";
inline constexpr const char* kReplacement1 = "fixtures/corpus/modules_preserved_swap/replacement_1.pt2";

inline std::string test_path(const std::string& rel) { return std::string(PTEFORGE_TEST_DATA_DIR) + "/" + rel; }

/// A program loaded from an unpacked archive folder or .pt2 (relative to tests/), state bound.
struct Loaded {
  std::unique_ptr<serde::Archive> archive;
  serde::Pt2Layout layout;
  ir::ExportedProgram program;
};

inline Loaded load(const std::string& rel, const std::string& source = "") {
  auto in = serde::open_input(test_path(rel));
  if (!in.ok()) FAIL(in.error().to_string());
  Loaded l;
  l.archive = std::move(in->archive);
  l.layout = in->layout;
  auto ep = passes::load_program(*l.archive, l.layout, "", source);
  if (!ep.ok()) FAIL(ep.error().to_string());
  l.program = std::move(ep).value();
  return l;
}

/// print_graph with every spec='<treespec JSON>' shown as spec=<compact form>.
inline std::string golden(const ir::Graph& g) {
  std::string text = ir::print_graph(g);
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find("spec='", pos);
    if (at == std::string::npos) break;
    size_t start = at + 6;
    // The printer writes the spec as a Python string literal: undo its escapes.
    std::string spec_text;
    size_t end = start;
    for (; end < text.size() && text[end] != '\''; ++end) {
      if (text[end] == '\\' && end + 1 < text.size()) ++end;
      spec_text += text[end];
    }
    REQUIRE(end < text.size());
    auto spec = serde::parse_treespec(spec_text);
    REQUIRE_MESSAGE(spec.ok(), spec_text);
    out += text.substr(pos, at - pos) + "spec=" + passes::module_swap::describe_treespec(spec->root);
    pos = end + 1;
  }
  return out + text.substr(pos);
}

/// Checks that two programs are the same: graph (nodes with names, targets,
/// arguments and metadata, inputs, outputs), every value's metadata,
/// signature, module_call_graph and state. (Graph::operator== also compares
/// the order of the metadata tables, which outlining and inlining reshuffle.)
inline void expect_same_program(const ir::ExportedProgram& a, const ir::ExportedProgram& b) {
  CHECK(ir::print_graph(a.graph()) == ir::print_graph(b.graph()));
  CHECK(a.graph().inputs() == b.graph().inputs());
  CHECK(a.graph().outputs() == b.graph().outputs());
  REQUIRE(a.graph().num_nodes() == b.graph().num_nodes());
  auto ia = a.graph().begin();
  for (auto ib = b.graph().begin(); ib != b.graph().end(); ++ia, ++ib) CHECK_MESSAGE(ia->same_as(*ib), ia->name());
  size_t na = 0;
  size_t nb = 0;
  a.graph().for_each_value([&](const ir::Value&) { ++na; });
  b.graph().for_each_value([&](const ir::Value& v) {
    ++nb;
    const ir::Value* o = a.graph().find_value(v.name);
    REQUIRE_MESSAGE(o != nullptr, v.name);
    CHECK_MESSAGE(o->meta == v.meta, v.name);
  });
  CHECK(na == nb);
  CHECK(a.graph_module.signature == b.graph_module.signature);
  CHECK(a.graph_module.module_call_graph == b.graph_module.module_call_graph);
  CHECK(a.state == b.state);
  CHECK(a.range_constraints == b.range_constraints);
}

/// Runs an explicit pass list (verifying after each pass); fails the test on error.
inline passes::PassReport run_passes(ir::ExportedProgram& ep, const std::vector<std::string>& names,
                                     passes::PipelineOptions options = {}) {
  options.passes = names;
  options.verify_each = true;
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport report;
  Status st = pm->run(ep, state, report);
  if (!st.ok()) FAIL(st.error().to_string());
  return report;
}

/// The error of running `names` (the test fails when they succeed).
inline Error run_passes_error(ir::ExportedProgram& ep, const std::vector<std::string>& names,
                              passes::PipelineOptions options = {}) {
  options.passes = names;
  options.verify_each = true;
  auto pm = passes::PassManager::create(options);
  REQUIRE(pm.ok());
  passes::MethodState state;
  state.method = "forward";
  passes::PassReport report;
  Status st = pm->run(ep, state, report);
  REQUIRE_FALSE(st.ok());
  return st.error();
}

/// Sets nn_module_stack of `node` to the root plus `paths` (outermost first).
inline void set_stack(ir::Graph& g, const std::string& node, const std::vector<std::string>& paths) {
  ir::Node* n = g.find_node(node);
  REQUIRE(n != nullptr);
  ir::ModuleStack st;
  st.push_back(ir::ModuleFrame{"L__self__", "", "Root"});
  for (const auto& p : paths) st.push_back(ir::ModuleFrame{"L__self__" + p, p, "M_" + p});
  n->metadata().nn_module_stack = std::make_shared<const ir::ModuleStack>(std::move(st));
}

/// A dict spec node of `type` (builtins.dict, collections.OrderedDict) with
/// `keys` and `children` (leaves when empty); its context is the JSON text of
/// a string holding the JSON key list, as PyTorch writes it.
inline ir::TreeSpecNode dict_spec_node(const std::vector<std::string>& keys,
                                       std::vector<ir::TreeSpecNode> children = {},
                                       const std::string& type = "builtins.dict") {
  std::string ctx = "\"[";
  for (size_t i = 0; i < keys.size(); ++i) ctx += (i ? ", \\\"" : "\\\"") + keys[i] + "\\\"";
  ctx += "]\"";
  if (children.empty()) children.assign(keys.size(), ir::treespec_leaf());
  return ir::treespec_node(type, ctx, std::move(children));
}

/// in_spec of forward(*n_args leaves, **kwargs leaves).
inline ir::TreeSpec args_spec(size_t n_args, const std::vector<std::string>& kwargs = {}) {
  ir::TreeSpec s;
  s.root = ir::treespec_node("builtins.tuple", "null",
                             {ir::treespec_node("builtins.tuple", "null",
                                                std::vector<ir::TreeSpecNode>(n_args, ir::treespec_leaf())),
                              dict_spec_node(kwargs)});
  return s;
}

/// out_spec: a leaf for one output, else a tuple of leaves.
inline ir::TreeSpec out_spec(size_t n) {
  ir::TreeSpec s;
  if (n == 1) {
    s.root = ir::treespec_leaf();
  } else {
    s.root = ir::treespec_node("builtins.tuple", "null", std::vector<ir::TreeSpecNode>(n, ir::treespec_leaf()));
  }
  return s;
}

/// Adds a preserved call signature for `fqn` (tensor inputs/outputs by name).
inline void preserve(ir::ExportedProgram& ep, const std::string& fqn, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs, ir::TreeSpec in, ir::TreeSpec out) {
  ir::ModuleCallEntry e;
  e.fqn = fqn;
  ir::ModuleCallSignature sig;
  for (const auto& i : inputs) sig.inputs.push_back(i.empty() ? ir::arg_none() : ir::arg_tensor(i));
  for (const auto& o : outputs) sig.outputs.push_back(ir::arg_tensor(o));
  sig.in_spec = std::move(in);
  sig.out_spec = std::move(out);
  e.signature = std::move(sig);
  ep.graph_module.module_call_graph.push_back(std::move(e));
}

/// Sets the root signature (needed for replacements).
inline void set_root_signature(ir::ExportedProgram& ep, ir::TreeSpec in, ir::TreeSpec out) {
  for (auto& e : ep.graph_module.module_call_graph) {
    if (e.fqn.empty()) {
      ir::ModuleCallSignature sig;
      sig.in_spec = std::move(in);
      sig.out_spec = std::move(out);
      e.signature = std::move(sig);
    }
  }
}

inline std::shared_ptr<const ir::ExportedProgram> share(ir::ExportedProgram ep) {
  return std::make_shared<const ir::ExportedProgram>(std::move(ep));
}

// ---- a tiny float32 evaluator (row-major, contiguous) for the ops the swap fixtures use

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

inline int64_t numel(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

/// Reads a float32 state tensor through the StateBinding: `roots` maps a
/// storage source label to the folder of the unpacked archive it lives in.
inline Tensor read_state(const ir::ExportedProgram& ep, const std::string& placeholder,
                         const std::map<std::string, std::string>& roots) {
  const ir::ConstantRef* r = ep.state.find_placeholder(placeholder);
  REQUIRE_MESSAGE(r != nullptr, "no state bound for " << placeholder);
  REQUIRE(r->dtype == ir::ScalarType::Float);
  REQUIRE(r->is_contiguous());
  const ir::PayloadStorage& st = ep.state.storage_of(*r);
  auto root = roots.find(st.source);
  REQUIRE_MESSAGE(root != roots.end(), "no folder for source '" << st.source << "'");
  std::string path = test_path(root->second + "/" + st.entry());
  FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE_MESSAGE(f != nullptr, path);
  std::vector<float> buf(static_cast<size_t>(r->numel()));
  std::fseek(f, static_cast<long>(r->byte_offset), SEEK_SET);
  size_t got = std::fread(buf.data(), sizeof(float), buf.size(), f);
  std::fclose(f);
  REQUIRE(got == buf.size());
  Tensor t;
  t.shape = r->sizes;
  t.data.assign(buf.begin(), buf.end());
  return t;
}

inline double gelu(double x, bool tanh_approx) {
  if (tanh_approx) return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
}

/// Evaluates the (flat) graph of `ep` on user inputs; state comes from read_state.
inline std::vector<Tensor> evaluate(const ir::ExportedProgram& ep, const std::vector<Tensor>& user_inputs,
                                    const std::map<std::string, std::string>& roots) {
  std::map<std::string, Tensor> env;
  size_t next_user = 0;
  for (const auto& s : ep.signature().input_specs) {
    std::string name(s.name());
    if (s.is_state()) {
      env[name] = read_state(ep, name, roots);
    } else {
      REQUIRE(next_user < user_inputs.size());
      env[name] = user_inputs[next_user++];
    }
  }
  auto in = [&](const ir::Node& n, size_t i) -> const Tensor& {
    REQUIRE(i < n.inputs().size());
    const std::string* name = n.inputs()[i].arg.value_name();
    REQUIRE(name != nullptr);
    auto it = env.find(*name);
    REQUIRE_MESSAGE(it != env.end(), "no value " << *name);
    return it->second;
  };
  for (const ir::Node& n : ep.graph()) {
    std::string_view t = n.target().short_name();
    Tensor out;
    if (t == "aten.permute.default") {
      const Tensor& a = in(n, 0);
      REQUIRE(a.shape.size() == 2);
      out.shape = {a.shape[1], a.shape[0]};
      out.data.resize(a.data.size());
      for (int64_t i = 0; i < a.shape[0]; ++i)
        for (int64_t j = 0; j < a.shape[1]; ++j) out.data[j * a.shape[0] + i] = a.data[i * a.shape[1] + j];
    } else if (t == "aten.addmm.default") {
      const Tensor& b = in(n, 0);
      const Tensor& x = in(n, 1);
      const Tensor& w = in(n, 2);
      int64_t m = x.shape[0], k = x.shape[1], p = w.shape[1];
      REQUIRE(w.shape[0] == k);
      out.shape = {m, p};
      out.data.assign(static_cast<size_t>(m * p), 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < p; ++j) {
          double acc = b.data[static_cast<size_t>(b.data.size() == static_cast<size_t>(p) ? j : i * p + j)];
          for (int64_t q = 0; q < k; ++q) acc += x.data[i * k + q] * w.data[q * p + j];
          out.data[i * p + j] = acc;
        }
    } else if (t == "aten.relu.default" || t == "aten.sigmoid.default" || t == "aten.tanh.default" ||
               t == "aten.gelu.default") {
      const Tensor& a = in(n, 0);
      bool tanh_approx = false;
      if (const ir::Argument* ap = n.input("approximate")) tanh_approx = ap->get<ir::ArgTag::String>() == "tanh";
      out.shape = a.shape;
      for (double v : a.data) {
        if (t == "aten.relu.default") out.data.push_back(v > 0 ? v : 0);
        if (t == "aten.sigmoid.default") out.data.push_back(1 / (1 + std::exp(-v)));
        if (t == "aten.tanh.default") out.data.push_back(std::tanh(v));
        if (t == "aten.gelu.default") out.data.push_back(gelu(v, tanh_approx));
      }
    } else if (t == "aten.mul.Tensor" || t == "aten.add.Tensor") {
      const Tensor& a = in(n, 0);
      const Tensor& b = in(n, 1);
      REQUIRE(a.shape == b.shape);
      out.shape = a.shape;
      for (size_t i = 0; i < a.data.size(); ++i) {
        out.data.push_back(t == "aten.mul.Tensor" ? a.data[i] * b.data[i] : a.data[i] + b.data[i]);
      }
    } else {
      FAIL("evaluator: unsupported op " << t);
    }
    env[*n.single_output()] = std::move(out);
  }
  std::vector<Tensor> outs;
  for (const auto& o : ep.graph().outputs()) outs.push_back(env.at(*o.value_name()));
  return outs;
}

/// One run of an io.json file: input and expected output tensors.
struct IoRun {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

inline std::string read_text(const std::string& rel) {
  std::string path = test_path(rel);
  FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE_MESSAGE(f != nullptr, path);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

/// The runs under `key` ("runs", "replacement_runs", "reference_unswapped" per run) of an io.json.
inline std::vector<IoRun> read_runs(const std::string& rel, const char* key = "runs",
                                    const char* outputs_key = "outputs") {
  rapidjson::Document doc;
  std::string text = read_text(rel);
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  REQUIRE(doc.HasMember(key));
  auto tensor = [](const rapidjson::Value& v) {
    Tensor t;
    for (const auto& d : v["shape"].GetArray()) t.shape.push_back(d.GetInt64());
    for (const auto& e : v["values"].GetArray()) t.data.push_back(e.GetDouble());
    return t;
  };
  std::vector<IoRun> runs;
  for (const auto& r : doc[key].GetArray()) {
    IoRun run;
    for (const auto& i : r["inputs"].GetArray()) run.inputs.push_back(tensor(i));
    for (const auto& o : r[outputs_key].GetArray()) run.outputs.push_back(tensor(o));
    runs.push_back(std::move(run));
  }
  return runs;
}

/// Elementwise |got - expected| <= atol + rtol * |expected| (io.json rule).
inline void check_close(const Tensor& got, const Tensor& expected, double rtol = 1e-5, double atol = 1e-6) {
  REQUIRE(got.shape == expected.shape);
  REQUIRE(got.data.size() == expected.data.size());
  for (size_t i = 0; i < got.data.size(); ++i) {
    CHECK_MESSAGE(std::fabs(got.data[i] - expected.data[i]) <= atol + rtol * std::fabs(expected.data[i]),
                  "element " << i << ": " << got.data[i] << " vs " << expected.data[i]);
  }
}

/// True when some element differs by more than the tolerance.
inline bool differs(const Tensor& a, const Tensor& b, double tol = 1e-3) {
  if (a.shape != b.shape) return true;
  for (size_t i = 0; i < a.data.size(); ++i) {
    if (std::fabs(a.data[i] - b.data[i]) > tol) return true;
  }
  return false;
}

}  // namespace pteforge::testing
