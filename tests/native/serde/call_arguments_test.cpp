// ops::check_call_arguments, through the importer: a call whose arguments do
// not fit its operator's schema is refused at the argument, with the node
// and the JSON pointer; the forms torch writes are accepted.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <functional>
#include <string>
#include <vector>

#include "serde/import_exported_program.h"
#include "test_files.h"

using namespace pteforge;

namespace {

using Nodes = rapidjson::Value;

/// Imports buffer_running_sum (add.Tensor(b_total, x) then mul.Tensor(add, 2))
/// after `edit` changed its nodes.
Result<serde::ImportResult> import_edited(
    const std::function<void(Nodes&, rapidjson::Document::AllocatorType&)>& edit,
    const serde::ImportOptions& options = {}) {
  rapidjson::Document d;
  d.Parse(
      test::read_file(test::data_path("fixtures/corpus/buffer_running_sum/json/models/model.json")).c_str());
  REQUIRE_FALSE(d.HasParseError());
  edit(d["graph_module"]["graph"]["nodes"], d.GetAllocator());
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  d.Accept(w);
  return serde::import_exported_program(out.GetString(), options);
}

/// Sets input `i` of node `n`'s argument to the JSON `arg` (e.g. {"as_float": 2.5}).
void set_arg(Nodes& nodes, rapidjson::Document::AllocatorType& a, unsigned n, unsigned i, const char* arg) {
  rapidjson::Document v(&a);
  v.Parse(arg);
  REQUIRE_FALSE(v.HasParseError());
  nodes[n]["inputs"][i]["arg"].CopyFrom(v, a);
}

/// Appends a keyword input `name` = `arg` to node `n`.
void add_input(Nodes& nodes, rapidjson::Document::AllocatorType& a, unsigned n, const char* name,
               const char* arg) {
  rapidjson::Value in(rapidjson::kObjectType);
  in.AddMember("name", rapidjson::Value(name, a), a);
  in.AddMember("arg", rapidjson::Value(rapidjson::kObjectType), a);
  in.AddMember("kind", 2, a);
  nodes[n]["inputs"].PushBack(in, a);
  set_arg(nodes, a, n, nodes[n]["inputs"].Size() - 1, arg);
}

/// Makes node 1 (mul.Tensor(add, 2)) a call of `target` whose second input,
/// renamed `name`, is the JSON `arg`: mul(add, 2) -> target(add, name=arg).
void retarget(Nodes& nodes, rapidjson::Document::AllocatorType& a, const char* target, const char* name,
              const char* arg) {
  nodes[1]["target"] = rapidjson::StringRef(target);
  nodes[1]["inputs"][1]["name"] = rapidjson::StringRef(name);
  set_arg(nodes, a, 1, 1, arg);
}

void check_refused(const Result<serde::ImportResult>& r, const std::string& message,
                   const std::string& pointer, const std::string& node) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::INVALID_GRAPH);
  CHECK(r.error().message == message);
  CHECK(r.error().where.pointer.value_or("") == pointer);
  CHECK(r.error().where.node.value_or("") == node);
}

}  // namespace

TEST_CASE("call arguments: the corpus program as written is accepted") {
  auto r = import_edited([](Nodes&, auto&) {});
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
}

TEST_CASE("call arguments: a required argument that is missing is refused") {
  auto r =
      import_edited([](Nodes& nodes, auto&) { nodes[1]["inputs"].Erase(nodes[1]["inputs"].Begin() + 1); });
  check_refused(
      r,
      "node 'mul': argument 'other' of aten::mul.Tensor is missing, and it has no default (its schema: "
      "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor)",
      "/graph_module/graph/nodes/1/inputs", "mul");
  // Unless the caller asked for no call checks.
  serde::ImportOptions no_checks;
  no_checks.check_calls = false;
  auto unchecked = import_edited(
      [](Nodes& nodes, auto&) { nodes[1]["inputs"].Erase(nodes[1]["inputs"].Begin() + 1); }, no_checks);
  CHECK(unchecked.ok());
}

TEST_CASE("call arguments: an argument the schema does not have is refused, after the others") {
  // A renamed argument: the one it replaced is missing (that error first).
  auto renamed = import_edited([](Nodes& nodes, auto&) { nodes[0]["inputs"][1]["name"] = "bogus"; });
  check_refused(
      renamed,
      "node 'add': argument 'other' of aten::add.Tensor is missing, and it has no default (its schema: "
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor)",
      "/graph_module/graph/nodes/0/inputs", "add");
  // An extra argument, everything else right: maybe one a newer PyTorch added.
  auto extra = import_edited(
      [](Nodes& nodes, auto& a) { add_input(nodes, a, 0, "new_kwarg", R"({"as_bool": false})"); });
  REQUIRE_FALSE(extra.ok());
  CHECK(extra.error().code == ErrorCode::UNSUPPORTED_OPERATOR);
  CHECK(extra.error().message ==
        "node 'add': aten::add.Tensor has no argument 'new_kwarg' (its schema: aten::add.Tensor(Tensor self, "
        "Tensor other, *, Scalar alpha=1) -> Tensor)");
  CHECK(extra.error().where.pointer == "/graph_module/graph/nodes/0/inputs/2");
  CHECK(extra.error().notes ==
        std::vector<std::string>{
            "pteforge's operator schemas are PyTorch's of early 2025 (about 2.7); a program "
            "exported by a newer PyTorch may pass arguments added since"});
}

TEST_CASE("call arguments: an input without a name is refused") {
  auto r = import_edited([](Nodes& nodes, auto&) { nodes[1]["inputs"][1]["name"] = ""; });
  check_refused(
      r,
      "node 'mul': input 1 of aten::mul.Tensor has no name (torch names every argument of an operator call)",
      "/graph_module/graph/nodes/1/inputs/1", "mul");
}

TEST_CASE("call arguments: an argument given twice is refused") {
  auto r = import_edited([](Nodes& nodes, auto& a) { add_input(nodes, a, 1, "other", R"({"as_int": 3})"); });
  check_refused(r, "node 'mul': argument 'other' of aten::mul.Tensor is given twice",
                "/graph_module/graph/nodes/1/inputs/2", "mul");
}

TEST_CASE("call arguments: a value of a kind the argument's type refuses is refused") {
  auto alpha =
      import_edited([](Nodes& nodes, auto& a) { add_input(nodes, a, 0, "alpha", R"({"as_string": "x"})"); });
  check_refused(
      alpha,
      "node 'add': argument 'alpha' of aten::add.Tensor is a string (as_string), but its type is Scalar",
      "/graph_module/graph/nodes/0/inputs/2", "add");
  auto none = import_edited([](Nodes& nodes, auto& a) { set_arg(nodes, a, 0, 1, R"({"as_none": true})"); });
  check_refused(none,
                "node 'add': argument 'other' of aten::add.Tensor is None (as_none), but its type is Tensor",
                "/graph_module/graph/nodes/0/inputs/1", "add");
  auto list = import_edited([](Nodes& nodes, auto& a) { set_arg(nodes, a, 1, 1, R"({"as_ints": [1, 2]})"); });
  check_refused(
      list, "node 'mul': argument 'other' of aten::mul.Tensor is a list (as_ints), but its type is Tensor",
      "/graph_module/graph/nodes/1/inputs/1", "mul");
  // permute(Tensor self, int[] dims): a list it needs cannot be None.
  auto dims = import_edited([](Nodes& nodes, auto& a) {
    retarget(nodes, a, "torch.ops.aten.permute.default", "dims", R"({"as_none": true})");
  });
  check_refused(dims, "node 'mul': argument 'dims' of aten::permute is None (as_none), but its type is int[]",
                "/graph_module/graph/nodes/1/inputs/1", "mul");
}

TEST_CASE("call arguments: the forms torch writes are accepted") {
  // A Python number for a Tensor argument (wrapped by torch), any number or a
  // bool for a Scalar.
  for (const char* other : {R"({"as_int": 2})", R"({"as_float": 2.5})", R"({"as_bool": true})"}) {
    CAPTURE(other);
    auto r = import_edited([&](Nodes& nodes, auto& a) { set_arg(nodes, a, 1, 1, other); });
    CHECK_MESSAGE(r.ok(), r.error().to_string());
  }
  for (const char* alpha : {R"({"as_int": 2})", R"({"as_float": 0.5})", R"({"as_bool": true})"}) {
    CAPTURE(alpha);
    auto r = import_edited([&](Nodes& nodes, auto& a) { add_input(nodes, a, 0, "alpha", alpha); });
    CHECK_MESSAGE(r.ok(), r.error().to_string());
  }
  // clamp(Tensor self, Scalar? min=None, Scalar? max=None): None for an
  // optional argument, and arguments with defaults left out.
  auto clamp = import_edited([](Nodes& nodes, auto& a) {
    retarget(nodes, a, "torch.ops.aten.clamp.default", "max", R"({"as_none": true})");
  });
  CHECK_MESSAGE(clamp.ok(), clamp.error().to_string());
  // sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None):
  // an empty list written with another list tag, one int for an int list,
  // None for the optional list, a dtype, an int for a bool (the emitter converts it).
  for (const char* dim :
       {R"({"as_tensors": []})", R"({"as_ints": []})", R"({"as_int": 0})", R"({"as_none": true})"}) {
    CAPTURE(dim);
    auto sum = import_edited([&](Nodes& nodes, auto& a) {
      retarget(nodes, a, "torch.ops.aten.sum.dim_IntList", "dim", dim);
      add_input(nodes, a, 1, "dtype", R"({"as_scalar_type": 6})");
      add_input(nodes, a, 1, "keepdim", R"({"as_int": 1})");
    });
    CHECK_MESSAGE(sum.ok(), sum.error().to_string());
  }
  // An empty list of lists for an int list; a bool for an int (squeeze.dim's dim).
  auto permute = import_edited([](Nodes& nodes, auto& a) {
    retarget(nodes, a, "torch.ops.aten.permute.default", "dims", R"({"as_int_lists": []})");
  });
  CHECK_MESSAGE(permute.ok(), permute.error().to_string());
  auto squeeze = import_edited([](Nodes& nodes, auto& a) {
    retarget(nodes, a, "torch.ops.aten.squeeze.dim", "dim", R"({"as_bool": false})");
  });
  CHECK_MESSAGE(squeeze.ok(), squeeze.error().to_string());
}

TEST_CASE("call arguments: an operator target without torch.ops. is refused") {
  auto r = import_edited([](Nodes& nodes, auto&) { nodes[1]["target"] = "aten.mul.Tensor"; });
  check_refused(
      r,
      "node 'mul': target 'aten.mul.Tensor' lacks the 'torch.ops.' prefix of an operator target (expected "
      "'torch.ops.aten.mul.Tensor')",
      "/graph_module/graph/nodes/1/target", "mul");
}

TEST_CASE("call arguments: a keyword-only argument passed positionally is refused") {
  // torch's serializer marks alpha keyword (kind 2); its loader would pass a
  // positional one as the third positional argument, which add.Tensor refuses.
  auto r = import_edited([](Nodes& nodes, auto& a) {
    add_input(nodes, a, 0, "alpha", R"({"as_int": 2})");
    nodes[0]["inputs"][2]["kind"] = 1;
  });
  check_refused(r,
                "node 'add': argument 'alpha' of aten::add.Tensor is keyword-only, but the call passes it "
                "positionally (kind 1)",
                "/graph_module/graph/nodes/0/inputs/2", "add");
  // As a keyword it is accepted.
  CHECK(
      import_edited([](Nodes& nodes, auto& a) { add_input(nodes, a, 0, "alpha", R"({"as_int": 2})"); }).ok());
}

TEST_CASE("call arguments: outputs that do not fit the operator's returns are refused") {
  auto add_output = [](Nodes& nodes, rapidjson::Document::AllocatorType& a, unsigned n, const char* json) {
    rapidjson::Document v(&a);
    v.Parse(json);
    REQUIRE_FALSE(v.HasParseError());
    nodes[n]["outputs"].PushBack(rapidjson::Value(v, a), a);
  };
  // One more output than add.Tensor returns (an extra named one was dropped without a word).
  auto extra = import_edited([&](Nodes& nodes, auto& a) { add_output(nodes, a, 0, R"({"as_none": true})"); });
  check_refused(extra, "node 'add': aten::add.Tensor returns 1 value (Tensor), but the node has 2 outputs",
                "/graph_module/graph/nodes/0/outputs", "add");
  // A tensor where the operator returns a SymInt (sym_size.int).
  auto symint = import_edited([](Nodes& nodes, auto& a) {
    retarget(nodes, a, "torch.ops.aten.sym_size.int", "dim", R"({"as_int": 0})");
  });
  check_refused(
      symint,
      "node 'mul': output 0 of aten::sym_size.int is a tensor (as_tensor), but the operator returns "
      "SymInt there",
      "/graph_module/graph/nodes/1/outputs/0", "mul");
}

TEST_CASE("call arguments: a lowered (EDGE) program's list out variant may keep the functional results") {
  // x[4,6] -> split_with_sizes_copy.out(x, [1, 5], 1, out=[a, b]) -> (g0, g1); returns g0.
  // to_out_variant leaves the node's results in place though the out variant returns ().
  auto program = [](const std::string& dialect) {
    auto meta = [](int cols) {
      return R"({"dtype": 7, "sizes": [{"as_int": 4}, {"as_int": )" + std::to_string(cols) +
             R"(}], "requires_grad": false, "device": {"type": "cpu", "index": null}, "strides": [{"as_int": )" +
             std::to_string(cols) + R"(}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7})";
    };
    auto t = [](const char* n) { return std::string(R"({"as_tensor": {"name": ")") + n + R"("}})"; };
    return R"({"graph_module": {"graph": {"inputs": [)" + t("x") + ", " + t("a") + ", " + t("b") +
           R"(], "outputs": [)" + t("g0") +
           R"(], "nodes": [{"target": "torch.ops.aten.split_with_sizes_copy.out", )"
           R"("inputs": [{"name": "self", "arg": )" +
           t("x") +
           R"(, "kind": 1}, {"name": "split_sizes", "arg": {"as_ints": [1, 5]}, "kind": 1}, )"
           R"({"name": "dim", "arg": {"as_int": 1}, "kind": 1}, )"
           R"({"name": "out", "arg": {"as_tensors": [{"name": "a"}, {"name": "b"}]}, "kind": 2}], )"
           R"("outputs": [{"as_tensors": [{"name": "g0"}, {"name": "g1"}]}], "metadata": {}, "name": "split"}], )"
           R"("tensor_values": {"x": )" +
           meta(6) + R"(, "a": )" + meta(1) + R"(, "b": )" + meta(5) + R"(, "g0": )" + meta(1) +
           R"(, "g1": )" + meta(5) +
           R"(}, "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false}, )"
           R"("signature": {"input_specs": [{"user_input": {"arg": )" +
           t("x") + R"(}}, {"user_input": {"arg": )" + t("a") + R"(}}, {"user_input": {"arg": )" + t("b") +
           R"(}}], "output_specs": [{"user_output": {"arg": )" + t("g0") +
           R"(}}]}, "module_call_graph": []}, "opset_version": {"aten": 10}, "range_constraints": {}, )"
           R"("schema_version": {"major": 8, "minor": 20}, "verifiers": [")" +
           dialect + R"("], "torch_version": "2.11.0+cpu"})";
  };
  auto r = serde::import_exported_program(program("EDGE"));
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  CHECK(r->program.graph().first_node()->outputs().size() == 1);

  // One result per tensor written: an out list of one against two results is refused.
  std::string one_out = program("EDGE");
  const std::string two = R"("as_tensors": [{"name": "a"}, {"name": "b"}])";
  REQUIRE(one_out.find(two) != std::string::npos);
  one_out.replace(one_out.find(two), two.size(), R"("as_tensors": [{"name": "a"}])");
  check_refused(
      serde::import_exported_program(one_out),
      "node 'split': aten::split_with_sizes_copy.out writes 1 tensors into 'out', but the node keeps 2 "
      "results (one per tensor written)",
      "/graph_module/graph/nodes/0/outputs/0", "split");

  // torch.export's own dialects write an op that returns () with no outputs.
  r = serde::import_exported_program(program("ATEN"));
  check_refused(r, "node 'split': aten::split_with_sizes_copy.out returns nothing, but the node has 1 output",
                "/graph_module/graph/nodes/0/outputs", "split");
}

TEST_CASE("call arguments: a Python operator call with a tensor input is refused") {
  // mul.Tensor(add, 2) -> _operator.mul(add, 2): the prim op the emitter
  // would make of it (executorch_prim::mul.Scalar) cannot take a tensor.
  auto r = import_edited([](Nodes& nodes, auto&) { nodes[1]["target"] = "_operator.mul"; });
  check_refused(
      r,
      "node 'mul': input 0 of _operator.mul is a tensor (as_tensor), but a Python operator call is scalar "
      "arithmetic (torch.export writes one for SymInt, SymFloat and SymBool values)",
      "/graph_module/graph/nodes/1/inputs/0", "mul");
}
