// What the signature's targets name (ir::verify_signature_targets), checked
// when a program is imported: corpus programs edited by hand the way a broken
// or tampered file would be, each refused with its exact message and pointer.
#include <doctest/doctest.h>

#include <string>

#include "ir/verifier.h"
#include "serde/import_exported_program.h"
#include "test_files.h"

using namespace pteforge;

namespace {

std::string corpus_program(const std::string& name) {
  return test::read_file(test::data_path("fixtures/corpus/" + name + "/json/models/model.json"));
}

/// `text` with its one occurrence of `from` replaced by `to` (the test fails when it is not there once).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

struct Case {
  const char* name;
  const char* program;
  const char* from;
  const char* to;
  const char* message;
  const char* pointer;
};

const Case kCases[] = {
    {"buffer_mutation naming a parameter", "linear_tanh",
     R"({"user_output": {"arg": {"as_tensor": {"name": "addmm_1"}}}})",
     R"({"buffer_mutation": {"arg": {"name": "addmm_1"}, "buffer_name": "out.bias"}})",
     "output spec 0 (buffer_mutation) names 'out.bias', which input spec 3 binds as a parameter, not a "
     "buffer",
     "/graph_module/signature/output_specs/0/buffer_mutation/buffer_name"},
    {"buffer_mutation naming no input", "buffer_running_sum", R"("name": "add"}, "buffer_name": "total")",
     R"("name": "add"}, "buffer_name": "nonexist")",
     "output spec 0 (buffer_mutation) names buffer 'nonexist', but the program has no buffer of that name "
     "among "
     "its inputs",
     "/graph_module/signature/output_specs/0/buffer_mutation/buffer_name"},
    {"the mutated buffer bound as a parameter", "buffer_running_sum",
     R"({"buffer": {"arg": {"name": "b_total"}, "buffer_name": "total", "persistent": true}})",
     R"({"parameter": {"arg": {"name": "b_total"}, "parameter_name": "total"}})",
     "output spec 0 (buffer_mutation) names 'total', which input spec 0 binds as a parameter, not a buffer",
     "/graph_module/signature/output_specs/0/buffer_mutation/buffer_name"},
    {"two inputs bound to one buffer", "buffer_running_sum",
     R"({"user_input": {"arg": {"as_tensor": {"name": "x"}}}})",
     R"({"buffer": {"arg": {"name": "x"}, "buffer_name": "total", "persistent": true}})",
     "input spec 1 binds buffer 'total', which input spec 0 (buffer 'b_total') already binds: each "
     "parameter, buffer "
     "and constant is one graph input",
     "/graph_module/signature/input_specs/1/buffer/buffer_name"},
    {"one buffer mutated twice", "buffer_running_sum",
     R"({"user_output": {"arg": {"as_tensor": {"name": "mul"}}}})",
     R"({"buffer_mutation": {"arg": {"name": "mul"}, "buffer_name": "total"}})",
     "output spec 1 (buffer_mutation) names buffer 'total', which output spec 0 already names: one "
     "buffer_mutation "
     "output per buffer",
     "/graph_module/signature/output_specs/1/buffer_mutation/buffer_name"},
    {"gradient of an unknown parameter", "joint_linear_mse",
     R"("name": "permute_3"}, "parameter_name": "head.weight")",
     R"("name": "permute_3"}, "parameter_name": "nope")",
     "output spec 1 (gradient_to_parameter) names parameter 'nope', but the program has no parameter of that "
     "name "
     "among its inputs",
     "/graph_module/signature/output_specs/1/gradient_to_parameter/parameter_name"},
    {"one parameter's gradient twice", "joint_linear_mse",
     R"("name": "view"}, "parameter_name": "head.bias")",
     R"("name": "view"}, "parameter_name": "head.weight")",
     "output spec 2 (gradient_to_parameter) names parameter 'head.weight', which output spec 1 already "
     "names: one "
     "gradient_to_parameter output per parameter",
     "/graph_module/signature/output_specs/2/gradient_to_parameter/parameter_name"},
    {"a user input mutation of no user input", "buffer_running_sum",
     R"({"user_output": {"arg": {"as_tensor": {"name": "mul"}}}})",
     R"({"user_input_mutation": {"arg": {"name": "mul"}, "user_input_name": "nope"}})",
     "output spec 1 (user_input_mutation) names user input 'nope', but no user input of the graph has that "
     "name",
     "/graph_module/signature/output_specs/1/user_input_mutation/user_input_name"},
    {"a buffer mutation of a shape that does not broadcast to the buffer", "buffer_running_sum",
     R"("add": {"dtype": 7, "sizes": [{"as_int": 3}])", R"("add": {"dtype": 7, "sizes": [{"as_int": 4}])",
     "output spec 0 (buffer_mutation) writes 'add' float32[4] into buffer 'total' float32[3]: the value must "
     "broadcast to the buffer's shape (the write-back copy_ would fail)",
     "/graph_module/signature/output_specs/0"},
    {"a gradient of another dtype than its parameter", "joint_linear_mse",
     R"("view": {"dtype": 7, "sizes": [{"as_int": 2}])", R"("view": {"dtype": 5, "sizes": [{"as_int": 2}])",
     "output spec 2 (gradient_to_parameter) gives 'view' int64[2] as the gradient of parameter 'head.bias' "
     "float32[2]: a gradient has the dtype and shape of its parameter",
     "/graph_module/signature/output_specs/2"},
    {"a gradient of another shape than its parameter", "joint_linear_mse",
     R"("view": {"dtype": 7, "sizes": [{"as_int": 2}])", R"("view": {"dtype": 7, "sizes": [{"as_int": 3}])",
     "output spec 2 (gradient_to_parameter) gives 'view' float32[3] as the gradient of parameter 'head.bias' "
     "float32[2]: a gradient has the dtype and shape of its parameter",
     "/graph_module/signature/output_specs/2"},
};

}  // namespace

TEST_CASE("signature targets: every corpus program names real, distinct targets") {
  for (const std::string& path : test::corpus_programs()) {
    CAPTURE(path);
    auto r = serde::import_exported_program(test::read_file(path));
    REQUIRE(r.ok());
    CHECK(ir::verify_signature_targets(r->program).ok());
  }
}

TEST_CASE("signature targets: a hand-edited signature is refused at the target's pointer") {
  for (const Case& c : kCases) {
    CAPTURE(c.name);
    auto r = serde::import_exported_program(edited(corpus_program(c.program), c.from, c.to));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::INVALID_GRAPH);
    CHECK(r.error().message == c.message);
    CHECK(r.error().where.pointer == c.pointer);
  }
}

TEST_CASE("signature targets: a gradient of a user input is accepted under either name") {
  // torch's joint export may write aot_export's name of the input (primals_3), not the placeholder's.
  for (const char* name : {"x", "primals_3"}) {
    CAPTURE(std::string(name));
    auto r = serde::import_exported_program(
        edited(corpus_program("joint_linear_mse"),
               R"({"gradient_to_parameter": {"arg": {"name": "view"}, "parameter_name": "head.bias"}})",
               std::string(R"({"gradient_to_user_input": {"arg": {"name": "view"}, "user_input_name": ")") +
                   name + "\"}}"));
    REQUIRE(r.ok());
    CHECK(r->program.signature().output_specs[2].kind == ir::OutputKind::GradientToUserInput);
    CHECK(r->program.signature().output_specs[2].target == name);
  }
}

TEST_CASE(
    "signature targets: outputs out of torch.export's order (tokens, mutations, user outputs, gradients)") {
  // The graph's outputs and their specs swapped together: each spec still
  // matches its output, only the order is wrong, which torch's verifier
  // refuses and the emitter's positional rules depend on.
  std::string text = edited(corpus_program("buffer_running_sum"),
                            R"("outputs": [{"as_tensor": {"name": "add"}}, {"as_tensor": {"name": "mul"}}])",
                            R"("outputs": [{"as_tensor": {"name": "mul"}}, {"as_tensor": {"name": "add"}}])");
  text = edited(text,
                R"([{"buffer_mutation": {"arg": {"name": "add"}, "buffer_name": "total"}}, )"
                R"({"user_output": {"arg": {"as_tensor": {"name": "mul"}}}}])",
                R"([{"user_output": {"arg": {"as_tensor": {"name": "mul"}}}}, )"
                R"({"buffer_mutation": {"arg": {"name": "add"}, "buffer_name": "total"}}])");
  auto r = serde::import_exported_program(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::INVALID_GRAPH);
  CHECK(r.error().message ==
        "output spec 0 (user_output %mul) is out of order: with 0 token output(s), 1 mutation(s) and 1 user "
        "output(s), output 0 must be a buffer, parameter or user-input mutation. torch.export lists the "
        "outputs "
        "as tokens, mutations, user outputs, then gradients, and its verifier refuses any other order");
  CHECK(r.error().where.pointer == "/graph_module/signature/output_specs/0");

  // A gradient before the loss.
  text = edited(corpus_program("joint_linear_mse"),
                R"("outputs": [{"as_tensor": {"name": "mean"}}, {"as_tensor": {"name": "permute_3"}}, )",
                R"("outputs": [{"as_tensor": {"name": "permute_3"}}, {"as_tensor": {"name": "mean"}}, )");
  text = edited(
      text,
      R"([{"loss_output": {"arg": {"name": "mean"}}}, {"gradient_to_parameter": {"arg": {"name": "permute_3"}, "parameter_name": "head.weight"}}, )",
      R"([{"gradient_to_parameter": {"arg": {"name": "permute_3"}, "parameter_name": "head.weight"}}, {"loss_output": {"arg": {"name": "mean"}}}, )");
  r = serde::import_exported_program(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.rfind(
            "output spec 0 (gradient_to_parameter %permute_3) is out of order: with 0 token "
            "output(s), 0 mutation(s) and 1 user output(s), output 0 must be a user output "
            "or the loss.",
            0) == 0);
  CHECK(r.error().where.pointer == "/graph_module/signature/output_specs/0");
}

TEST_CASE(
    "signature: a lowered (EDGE) program may end with the weights weights_to_outputs appends as tokens") {
  // joint_linear_mse as ExecuTorch's weights_to_outputs leaves it: both
  // parameters appended after the gradients, as token outputs.
  auto with_weights = [](const std::string& dialect, const std::string& second) {
    std::string text = edited(
        corpus_program("joint_linear_mse"),
        R"("outputs": [{"as_tensor": {"name": "mean"}}, {"as_tensor": {"name": "permute_3"}}, {"as_tensor": {"name": "view"}}])",
        R"("outputs": [{"as_tensor": {"name": "mean"}}, {"as_tensor": {"name": "permute_3"}}, {"as_tensor": {"name": "view"}}, )"
        R"({"as_tensor": {"name": "p_head_weight"}}, {"as_tensor": {"name": ")" +
            second + R"("}}])");
    text = edited(text, R"("parameter_name": "head.bias"}}]}, "module_call_graph")",
                  R"("parameter_name": "head.bias"}}, {"token": {"arg": {"name": "p_head_weight"}}}, )"
                  R"({"token": {"arg": {"name": ")" +
                      second + R"("}}}]}, "module_call_graph")");
    return edited(text, R"("verifiers": ["ATEN"])", R"("verifiers": [")" + dialect + R"("])");
  };
  auto r = serde::import_exported_program(with_weights("EDGE", "p_head_bias"));
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->program.signature().output_specs.size() == 5);
  CHECK(r->program.is_edge_dialect());

  // torch.export's dialects keep torch's order: tokens first.
  r = serde::import_exported_program(with_weights("ATEN", "p_head_bias"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.rfind("output spec 2 (gradient_to_parameter %view) is out of order: with 2 token "
                                "output(s), 0 mutation(s) and 1 user output(s), output 2 must be a user "
                                "output or the loss.",
                                0) == 0);
  CHECK(r.error().where.pointer == "/graph_module/signature/output_specs/2");

  // In EDGE, a trailing token that is no parameter is named itself.
  r = serde::import_exported_program(with_weights("EDGE", "x"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "output spec 4 (token %x) ends a lowered program's outputs, where only the parameters "
        "weights_to_outputs "
        "appends may come, but it names no parameter input");
  CHECK(r.error().where.pointer == "/graph_module/signature/output_specs/4");
}
