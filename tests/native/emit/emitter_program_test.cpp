// emit_program tests: method order, constant methods (prim getters), training
// metadata exactly as seed 001 computes it, and the program-wide constant pool.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "emit/emit_program.h"
#include "emit/metadata_json.h"
#include "emitter_test_util.h"
#include "pte_test_util.h"
#include "serde/treespec_json.h"

using namespace pteforge;
using namespace pteforge::ir;
using pteforge::testing::alloc;
using pteforge::testing::bind_inline;
using pteforge::testing::describe_values;
using pteforge::testing::f32_bytes;
using pteforge::testing::ProgramBuilder;
using pteforge::testing::set_spec;
using pteforge::testing::share_spec;

namespace {

constexpr const char* kLeaf = "[1, {\"type\": null, \"context\": null, \"children_spec\": []}]";

emit::ConstantMethod parse_ok(std::string_view option) {
  auto r = emit::parse_constant_method_option(option);
  if (!r.ok()) FAIL(r.error().to_string());
  return std::move(r).value();
}

/// relu(x) + a constant c (same bytes in every method), planned by hand.
struct SmallMethod {
  ExportedProgram ep;
  passes::MethodState state;
};

SmallMethod small_method(float constant) {
  ProgramBuilder b;
  b.constant("c", "c", ScalarType::Float, {1});
  b.input("x", ScalarType::Float, {1});
  alloc(b, "a", ScalarType::Float, {1});
  b.call("aten.add.out", {arg_tensor("x"), arg_tensor("c")}, {ScalarType::Float, {1}}, {{"out", arg_tensor("a")}},
         "add");
  b.output("add");
  SmallMethod m{b.build(), {}};
  bind_inline(m.ep, "c", "c", InputKind::TensorConstant, ScalarType::Float, {1}, f32_bytes({constant}));
  set_spec(m.state, "c", ScalarType::Float, {1})->is_const = true;
  set_spec(m.state, "x", ScalarType::Float, {1}, 16);
  set_spec(m.state, "a", ScalarType::Float, {1}, 0);
  share_spec(m.state, "add", "a");
  m.state.non_const_buffer_sizes = {0, 32};
  return m;
}

emit::MethodInput input_of(const std::string& name, const SmallMethod& m) {
  emit::MethodInput in;
  in.name = name;
  in.program = &m.ep;
  in.state = &m.state;
  return in;
}

}  // namespace

TEST_CASE("constant methods: JSON values become flattened values and a pytree spec (§3.14)") {
  emit::ConstantMethod m = parse_ok("get_max_seq_len=128");
  CHECK(m.name == "get_max_seq_len");
  REQUIRE(m.values.size() == 1);
  CHECK(m.values[0] == emit::EValue{emit::Int{128}});
  CHECK(serde::format_treespec(m.spec) == kLeaf);

  emit::ExecutionPlan plan = emit::constant_method_plan(m);
  CHECK(plan.name == "get_max_seq_len");
  CHECK(plan.inputs.empty());
  CHECK(plan.outputs == std::vector<int32_t>{0});
  REQUIRE(plan.chains.size() == 1);
  CHECK(plan.chains[0] == emit::Chain{});
  CHECK(plan.operators.empty());
  CHECK(plan.delegates.empty());
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0});
  CHECK(plan.container_meta_type.encoded_inp_str.empty());
  CHECK(plan.container_meta_type.encoded_out_str == kLeaf);

  m = parse_ok("get_eos_ids=[2, 3]");
  CHECK(m.values == std::vector<emit::EValue>{{emit::Int{2}}, {emit::Int{3}}});
  CHECK(serde::format_treespec(m.spec) ==
        "[1, {\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [{\"type\": null, \"context\": "
        "null, \"children_spec\": []}, {\"type\": null, \"context\": null, \"children_spec\": []}]}]");
  CHECK(emit::constant_method_plan(m).outputs == std::vector<int32_t>{0, 1});

  m = parse_ok("get_name=\"tiny\"");
  CHECK(m.values == std::vector<emit::EValue>{{emit::String{"tiny"}}});
  m = parse_ok("get_use_kv_cache=true");
  CHECK(m.values == std::vector<emit::EValue>{{emit::Bool{true}}});
  m = parse_ok("get_scale=0.5");
  CHECK(m.values == std::vector<emit::EValue>{{emit::Double{0.5}}});
  m = parse_ok("get_two=2.0");  // a JSON float stays a Double, like Python's json
  CHECK(m.values == std::vector<emit::EValue>{{emit::Double{2.0}}});

  m = parse_ok("get_cfg={\"b\": 1, \"a\": [true, \"x\"]}");
  CHECK(m.values == std::vector<emit::EValue>{{emit::Int{1}}, {emit::Bool{true}}, {emit::String{"x"}}});
  CHECK(serde::format_treespec(m.spec) ==
        "[1, {\"type\": \"builtins.dict\", \"context\": \"[\\\"b\\\", \\\"a\\\"]\", \"children_spec\": [{\"type\": "
        "null, \"context\": null, \"children_spec\": []}, {\"type\": \"builtins.list\", \"context\": \"null\", "
        "\"children_spec\": [{\"type\": null, \"context\": null, \"children_spec\": []}, {\"type\": null, "
        "\"context\": null, \"children_spec\": []}]}]}]");

  auto all = emit::parse_constant_methods("{\"get_a\": 1, \"get_b\": [0.25]}");
  REQUIRE(all.ok());
  REQUIRE(all->size() == 2);
  CHECK((*all)[0].name == "get_a");
  CHECK((*all)[1].values == std::vector<emit::EValue>{{emit::Double{0.25}}});

  for (const char* bad : {"get_x", "=1", "get_x=", "get_x=tiny", "get_x=[1, nul]",
                          "get_x=18446744073709551615", "get_x=\"a\xFFz\"", "get_\xC0x=1"}) {
    CAPTURE(bad);
    auto r = emit::parse_constant_method_option(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::OPTION_INVALID);
  }
  // Nesting: 64 levels are a value, 65 are not; 200,000 are refused the same way (no recursion).
  for (size_t levels : {size_t{65}, size_t{200000}}) {
    CAPTURE(levels);
    const std::string deep = std::string(levels, '[') + "1" + std::string(levels, ']');
    auto r = emit::parse_constant_method_option("get_x=" + deep);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::OPTION_INVALID);
    CHECK(r.error().message == "constant method 'get_x': value nested deeper than 64 levels");
    CHECK(r.error().where.method == "get_x");
    auto all_deep = emit::parse_constant_methods("{\"get_y\": " + deep + "}");
    REQUIRE_FALSE(all_deep.ok());
    CHECK(all_deep.error().message == "constant method 'get_y': value nested deeper than 64 levels");
  }
  CHECK(emit::parse_constant_method_option("get_x=" + std::string(64, '[') + "1" + std::string(64, ']')).ok());
  CHECK(emit::parse_constant_method_option("get_x=\"a\xFFz\"").error().message ==
        "constant method 'get_x': value is not valid UTF-8 (at byte 2)");
  CHECK(emit::parse_constant_method_option("get_\xC0x=1").error().message ==
        "constant method name is not valid UTF-8 (at byte 4)");
  CHECK(emit::parse_constant_methods("{\"get_\xF5\": 1}").error().message ==
        "constant methods: value is not valid UTF-8 (at byte 6)");
  CHECK(emit::parse_constant_methods("[1]").error().code == ErrorCode::OPTION_INVALID);
  // Errors about the whole map point at the API's option; a member's at the member.
  CHECK(emit::parse_constant_methods("[1]").error().where.pointer == "/constantMethods");
  CHECK(emit::parse_constant_methods("{\"a\": [1,").error().where.pointer == "/constantMethods");
  CHECK(emit::parse_constant_methods("{\"get_a\": 99999999999999999999}").error().where.pointer ==
        "/constantMethods");
  const std::string too_deep = std::string(65, '[') + "1" + std::string(65, ']');
  CHECK(emit::parse_constant_methods("{\"get/a\": " + too_deep + "}").error().where.pointer ==
        "/constantMethods/get~1a");
  // NaN and infinities are read (ExecuTorch's prim getters may return them).
  REQUIRE(emit::parse_constant_methods("{\"get_a\": NaN, \"get_b\": -Infinity}").ok());
  // Numbers read as Python's json.loads reads them: a literal too large for a
  // double is an infinity (RapidJSON alone: "Number too big"); -NaN and a
  // bare Inf are refused (RapidJSON alone takes them); offsets of later
  // errors still count in the text as typed.
  m = parse_ok("get_x=[1e400, -1.5e309, 1e-400, NaN, -Infinity]");
  REQUIRE(m.values.size() == 5);
  CHECK(m.values[0] == emit::EValue{emit::Double{std::numeric_limits<double>::infinity()}});
  CHECK(m.values[1] == emit::EValue{emit::Double{-std::numeric_limits<double>::infinity()}});
  CHECK(m.values[2] == emit::EValue{emit::Double{0.0}});
  CHECK(std::isnan(std::get<emit::Double>(m.values[3].val).double_val));
  CHECK(m.values[4] == emit::EValue{emit::Double{-std::numeric_limits<double>::infinity()}});
  CHECK(emit::parse_constant_method_option("get_x=[1e400, x]").error().message ==
        "constant method 'get_x': value is not JSON (Invalid value. at byte 8)");
  CHECK(emit::parse_constant_method_option("get_x=[1, -NaN]").error().message ==
        "constant method 'get_x': value is not JSON (-NaN: NaN has no sign at byte 4)");
  CHECK(emit::parse_constant_method_option("get_x=-Inf").error().message ==
        "constant method 'get_x': value is not JSON (a bare Inf: infinity is written Infinity at byte 0)");
  // The first error of the text as typed, RapidJSON's or Python's.
  CHECK(emit::parse_constant_method_option("get_x=[1,,2,-NaN]").error().message ==
        "constant method 'get_x': value is not JSON (Invalid value. at byte 3)");
  CHECK(emit::parse_constant_method_option("get_x=[-NaN,,2]").error().message ==
        "constant method 'get_x': value is not JSON (-NaN: NaN has no sign at byte 1)");
  // Where RapidJSON alone misreads a literal or refuses it ("Number too
  // big"), the value is Python's: underflow to 0 (-0.0 for a negative),
  // literals past 1e308 in digits or exponent whose value is finite.
  m = parse_ok("get_x=[1e-325, 2e-324, 5e-324, -1e-400, 0e400, 0.001e310, 1" + std::string(310, '0') +
               "e-300]");
  REQUIRE(m.values.size() == 7);
  CHECK(m.values[0] == emit::EValue{emit::Double{0.0}});
  CHECK(m.values[1] == emit::EValue{emit::Double{0.0}});
  CHECK(m.values[2] == emit::EValue{emit::Double{std::numeric_limits<double>::denorm_min()}});
  CHECK(std::signbit(std::get<emit::Double>(m.values[3].val).double_val));
  CHECK(m.values[4] == emit::EValue{emit::Double{0.0}});
  CHECK(m.values[5] == emit::EValue{emit::Double{1e307}});
  CHECK(m.values[6] == emit::EValue{emit::Double{1e10}});
  // After a rewritten literal (2e400 -> Inf, 0e400 -> 0.0) offsets still count in the text as typed.
  CHECK(emit::parse_constant_method_option("get_x=[0e400, 1" + std::string(310, '0') + "e-300, x]")
            .error()
            .message == "constant method 'get_x': value is not JSON (Invalid value. at byte 326)");
  CHECK(emit::parse_constant_method_option("get_x=[\"-NaN Inf\", 1]").ok());
  const std::string huge = "1" + std::string(400, '0');
  CHECK(emit::parse_constant_method_option("get_x=" + huge).error().message ==
        "constant method 'get_x': integer 10000000000000000000... (401 characters) does not fit int64");
  // Long literals are no risk: 50,000 digits, a long mantissa with a tiny
  // exponent (RapidJSON's full-precision reader read out of bounds on it).
  CHECK(emit::parse_constant_method_option("get_x=[" + std::string(50000, '7') + "]").error().message ==
        "constant method 'get_x': integer 77777777777777777777... (50000 characters) does not fit int64");
  m = parse_ok("get_x=[1.00000000000000000000001e-330, 8.93067803572933031455422e-333, 0." +
               std::string(320, '0') + "123]");
  CHECK(m.values ==
        std::vector<emit::EValue>{{emit::Double{0.0}}, {emit::Double{0.0}}, {emit::Double{1.23e-321}}});
  // A literal followed by a sign or dot: the number ends before it, RapidJSON names the next byte.
  CHECK(emit::parse_constant_method_option("get_x=[0e400-]").error().message ==
        "constant method 'get_x': value is not JSON (Missing a comma or ']' after an array element. at byte "
        "6)");
  // A byte order mark (RapidJSON alone would skip it) is named, in an option and in the map.
  CHECK(
      emit::parse_constant_method_option("get_x=\xEF\xBB\xBF"
                                         "1")
          .error()
          .message ==
      "constant method 'get_x': value starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON text "
      "does not have");
  CHECK(emit::parse_constant_methods("\xEF\xBB\xBF{\"get_y\": 1}").error().message ==
        "constant methods: value starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON text does "
        "not "
        "have");
  // The one splitter the CLI uses too: at the first '=', a name before it.
  auto parts = emit::split_constant_method_option("get_eq=\"a=b\"");
  REQUIRE(parts.ok());
  CHECK(parts->first == "get_eq");
  CHECK(parts->second == "\"a=b\"");
  CHECK(emit::split_constant_method_option("=1").error().message ==
        "--constant-method expects NAME=JSON (e.g. get_max_seq_len=128), got '=1'");
  CHECK(emit::split_constant_method_option("get_x").error().message ==
        "--constant-method expects NAME=JSON (e.g. get_max_seq_len=128), got 'get_x'");
  CHECK(emit::parse_constant_methods("{\"a\": 1, \"a\": 2}").error().code == ErrorCode::OPTION_INVALID);
  // Integers past int64 are refused, also those RapidJSON would read as a
  // double (past uint64); number-like text in strings and real doubles are not.
  CHECK(emit::parse_constant_method_option("get_x=[1, 99999999999999999999]").error().message ==
        "constant method 'get_x': integer 99999999999999999999 does not fit int64");
  CHECK(emit::parse_constant_method_option("get_x=-9223372036854775809").error().message ==
        "constant method 'get_x': integer -9223372036854775809 does not fit int64");
  // In the map (the npm package's form) an integer that RapidJSON holds as
  // uint64 is named with its method and place; past uint64 only the text
  // scan sees it, after every member was read.
  CHECK(emit::parse_constant_methods("{\"get_y\": {\"k\": 18446744073709551615}}").error().message ==
        "constant method 'get_y': integer 18446744073709551615 at /k does not fit int64");
  auto big = emit::parse_constant_methods("{\"get_a\": 1, \"get_max\": 9223372036854775808}");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message == "constant method 'get_max': integer 9223372036854775808 does not fit int64");
  CHECK(big.error().where.method == "get_max");
  CHECK(emit::parse_constant_methods("{\"get_ids\": [1, 9223372036854775808]}").error().message ==
        "constant method 'get_ids': integer 9223372036854775808 at /1 does not fit int64");
  CHECK(emit::parse_constant_methods("{\"get_a\": 99999999999999999999}").error().message ==
        "constant methods: integer 99999999999999999999 does not fit int64");
  m = parse_ok("get_x=[\"99999999999999999999\\\"1\", 1e20, -9223372036854775808, -1.5e-3]");
  CHECK(m.values == std::vector<emit::EValue>{{emit::String{"99999999999999999999\"1"}},
                                              {emit::Double{1e20}},
                                              {emit::Int{INT64_MIN}},
                                              {emit::Double{-1.5e-3}}});
  // At most 100,000 values, lists and objects per parse (the map's methods together).
  std::string many = "[0";
  for (int i = 1; i < 99999; ++i) many += ",0";
  CHECK(emit::parse_constant_method_option("get_x=" + many + "]").ok());  // 99,999 values + the list
  CHECK(emit::parse_constant_method_option("get_x=" + many + ",0]").error().message ==
        "constant method 'get_x': more than 100000 values, lists and objects (constant methods return a few "
        "values, e.g. get_eos_ids=[2,3])");
  CHECK(emit::parse_constant_methods("{\"get_a\": " + many + "], \"get_b\": [1]}").error().message ==
        "constant method 'get_b': more than 100000 values, lists and objects (constant methods return a few "
        "values, e.g. get_eos_ids=[2,3])");
  // None flattens to no leaves under a NoneType node (torch's pytree), at the
  // top (a plan with no values and no outputs) or inside a list or object.
  emit::ConstantMethod none = parse_ok("get_x=null");
  CHECK(none.values.empty());
  CHECK(serde::format_treespec(none.spec) ==
        R"([1, {"type": "builtins.NoneType", "context": "null", "children_spec": []}])");
  emit::ConstantMethod inner = parse_ok("get_x=[1,{\"a/b\":[null]}]");
  CHECK(inner.values == std::vector<emit::EValue>{{emit::Int{1}}});
  CHECK(
      serde::format_treespec(inner.spec) ==
      R"([1, {"type": "builtins.list", "context": "null", "children_spec": [{"type": null, "context": null, )"
      R"("children_spec": []}, {"type": "builtins.dict", "context": "[\"a/b\"]", "children_spec": [{"type": )"
      R"("builtins.list", "context": "null", "children_spec": [{"type": "builtins.NoneType", "context": )"
      R"("null", "children_spec": []}]}]}]}])");
  // A key given twice keeps its first place and its last value (Python's json.loads).
  emit::ConstantMethod d = parse_ok("get_d={\"a\": 1, \"b\": [2], \"a\": true}");
  CHECK(d.values == std::vector<emit::EValue>{{emit::Bool{true}}, {emit::Int{2}}});
  REQUIRE(d.spec.root.children.size() == 2);
  CHECK(d.spec.root.context == R"("[\"a\", \"b\"]")");
}

TEST_CASE("constant methods reproduce stories260k_hybrid_llama_qnn.pte's getters (§7.5)") {
  std::string ref = emit::testing::read_file(emit::testing::reference_path("stories260k_hybrid_llama_qnn.pte"));
  auto decoded = emit::decode_pte(ref);
  REQUIRE(decoded.ok());
  // The file's getters, as a user would pass them (doubles as printed by flatc).
  const std::vector<std::string> options = {
      "get_ar_len=1", "get_bos_id=1", "get_eos_id=2", "get_dim=64", "get_head_dim=8", "get_max_batch_size=1",
      "get_max_seq_len=128", "get_max_context_len=128", "get_n_bos=1", "get_n_eos=1", "get_n_kv_heads=4",
      "get_n_layers=5", "get_vocab_size=512", "get_use_kv_cache=true", "get_kv_io_bit_width=8",
      "get_logits_zero_point=31143", "get_kv_output_0_quant_attr=[0.5, 128, 0, 255, \"torch.uint8\"]"};
  for (const std::string& o : options) {
    CAPTURE(o);
    emit::ExecutionPlan ours = emit::constant_method_plan(parse_ok(o));
    const emit::ExecutionPlan* want = nullptr;
    for (const auto& p : decoded->program.execution_plan) {
      if (p.name == ours.name) want = &p;
    }
    REQUIRE(want);
    CHECK(ours.inputs == want->inputs);
    CHECK(ours.outputs == want->outputs);
    CHECK(ours.chains == want->chains);
    CHECK(ours.operators == want->operators);
    CHECK(ours.delegates == want->delegates);
    CHECK(ours.non_const_buffer_sizes == want->non_const_buffer_sizes);
    CHECK(ours.container_meta_type == want->container_meta_type);
    REQUIRE(ours.values.size() == want->values.size());
    for (size_t i = 0; i < ours.values.size(); ++i) {
      CAPTURE(i);
      CHECK(ours.values[i].val.index() == want->values[i].val.index());
      // The quant-attr scale is a double the file prints rounded; the others match exactly.
      if (!std::holds_alternative<emit::Double>(ours.values[i].val)) CHECK(ours.values[i] == want->values[i]);
    }
  }
}

TEST_CASE("training metadata: positions in the output-spec list and the gradient FQNs, as seed 001 computes them") {
  auto joint = [](std::vector<std::pair<OutputKind, std::string>> outs) {
    ProgramBuilder b;
    b.parameter("p_w", "fc.weight", ScalarType::Float, {2});
    b.parameter("p_b", "fc.bias", ScalarType::Float, {2});
    b.input("x", ScalarType::Float, {2});
    for (const auto& [kind, target] : outs) {
      std::string name = kind == OutputKind::Token ? (target == "fc.weight" ? "p_w" : "p_b") : "x";
      b.output(name, kind, kind == OutputKind::Token ? "" : target);
    }
    return b.build();
  };
  // loss, grad w, grad b, then the TOKEN outputs weights_to_outputs appends.
  ExportedProgram ep = joint({{OutputKind::LossOutput, ""},
                              {OutputKind::GradientToParameter, "fc.weight"},
                              {OutputKind::GradientToParameter, "fc.bias"},
                              {OutputKind::Token, "fc.weight"},
                              {OutputKind::Token, "fc.bias"}});
  passes::MethodState state;
  emit::MethodInput in;
  in.name = "train";
  in.program = &ep;
  in.state = &state;
  auto md = emit::training_metadata({in});
  REQUIRE(md.ok());
  REQUIRE(md->size() == 1);
  CHECK((*md)[0].gradients_index == 1);
  CHECK((*md)[0].parameters_index == 3);
  CHECK((*md)[0].fqns == std::vector<std::string>{"fc.weight", "fc.bias"});
  std::vector<emit::ConstantMethod> getters = emit::training_metadata_getters(*md);
  REQUIRE(getters.size() == 3);
  CHECK(getters[0].name == "__et_training_gradients_index_train");
  CHECK(getters[0].values == std::vector<emit::EValue>{{emit::Int{1}}});
  CHECK(getters[1].name == "__et_training_fqn_train");
  CHECK(getters[1].values == std::vector<emit::EValue>{{emit::String{"fc.weight"}}, {emit::String{"fc.bias"}}});
  CHECK(serde::format_treespec(getters[1].spec).rfind("[1, {\"type\": \"builtins.list\"", 0) == 0);
  CHECK(getters[2].name == "__et_training_parameters_index_train");
  CHECK(getters[2].values == std::vector<emit::EValue>{{emit::Int{3}}});

  // Gradients without TOKEN outputs: no parameters index.
  ExportedProgram no_tokens = joint({{OutputKind::LossOutput, ""}, {OutputKind::GradientToParameter, "fc.weight"}});
  in.program = &no_tokens;
  md = emit::training_metadata({in});
  REQUIRE(md.ok());
  CHECK(emit::training_metadata_getters(*md).size() == 2);
  // No gradients: nothing.
  ExportedProgram inference = joint({{OutputKind::UserOutput, ""}});
  in.program = &inference;
  CHECK(emit::training_metadata({in})->empty());
  // ExecuTorch asserts that parameters come after the gradients.
  ExportedProgram bad = joint({{OutputKind::Token, "fc.weight"}, {OutputKind::GradientToParameter, "fc.weight"}});
  in.program = &bad;
  auto err = emit::training_metadata({in});
  REQUIRE_FALSE(err.ok());
  CHECK(err.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(err.error().where.method == "train");
}

TEST_CASE("emit_program: methods by name, then training getters, then constant methods, constants shared") {
  SmallMethod fwd = small_method(1.0f);
  SmallMethod enc = small_method(1.0f);  // same constant bytes: one entry program-wide
  SmallMethod dec = small_method(2.0f);
  emit::EmitProgramOptions options;
  options.constant_methods.push_back(parse_ok("get_b=1"));
  options.constant_methods.push_back(parse_ok("get_a=2"));
  auto out = emit::emit_program({input_of("forward", fwd), input_of("encode", enc), input_of("decode", dec)}, options,
                                {});
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  std::vector<std::string> names;
  for (const auto& p : out->program.execution_plan) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"decode", "encode", "forward", "get_b", "get_a"});
  CHECK(describe_values(out->program.execution_plan[0]).rfind("0: Tensor FLOAT [1] dim_order [0] data 1\n", 0) == 0);
  CHECK(describe_values(out->program.execution_plan[1]).rfind("0: Tensor FLOAT [1] dim_order [0] data 2\n", 0) == 0);
  CHECK(describe_values(out->program.execution_plan[2]).rfind("0: Tensor FLOAT [1] dim_order [0] data 2\n", 0) == 0);
  REQUIRE(out->data.constant_buffer.size() == 3);
  CHECK(out->data.constant_buffer[1] == emit::Chunk::from_bytes(f32_bytes({2.0f})));
  CHECK(out->data.constant_buffer[2] == emit::Chunk::from_bytes(f32_bytes({1.0f})));
  CHECK(out->data.mutable_buffer.empty());
  CHECK(out->program.version == 0);
  CHECK(out->program.constant_segment == emit::SubsegmentOffsets{0, {}});
  CHECK(out->debug.size() == 3);

  // Serializes, and the metadata JSON lists the methods and getters.
  auto pte = emit::serialize_program(out->program, out->data);
  REQUIRE(pte.ok());
  std::map<std::string, const passes::MethodState*> states = {{"forward", &fwd.state}};
  std::string md = emit::metadata_to_json(*out, *pte, states, nullptr);
  CHECK(md.find("\"name\": \"get_a\"") != std::string::npos);
  CHECK(md.find("\"non_const_buffer_sizes\": [\n") != std::string::npos);

  // Written in steps (the draft from facts taken before serialization, then
  // the file layout), the text is the same, and "file" follows "version"
  // exactly as one writer would have put it.
  const std::vector<emit::PlanFacts> facts = emit::plan_facts(out->program, out->debug);
  REQUIRE(facts.size() == 5);
  CHECK(facts[2].name == "forward");
  CHECK_FALSE(facts[2].constant_method);
  CHECK(facts[2].operators == std::vector<std::string>{"aten::add.out"});
  CHECK(facts[2].getter_values.empty());
  CHECK(facts[4].name == "get_a");
  CHECK(facts[4].constant_method);
  REQUIRE(facts[4].getter_values.size() == 1);
  const auto* get_a = std::get_if<emit::Int>(&facts[4].getter_values[0].val);
  REQUIRE(get_a != nullptr);
  CHECK(get_a->int_val == 2);
  emit::MetadataDraft draft = emit::draft_metadata_json(facts, *out, states, nullptr);
  CHECK(draft.text.rfind("{\n  \"format\": \"pteforge-metadata\",\n  \"version\": 1,\n  \"constants\": {\n",
                         0) == 0);
  CHECK(draft.file_at == std::string("{\n  \"format\": \"pteforge-metadata\",\n  \"version\": 1").size());
  CHECK(emit::finish_metadata_json(std::move(draft), *pte) == md);
  const std::string head =
      "{\n  \"format\": \"pteforge-metadata\",\n  \"version\": 1,\n  \"file\": {\n    \"size\": " +
      std::to_string(pte->layout.file_size) +
      ",\n    \"program_size\": " + std::to_string(pte->layout.program_size) +
      ",\n    \"segment_base_offset\": " + std::to_string(pte->layout.segment_base_offset) +
      ",\n    \"segment_data_size\": " + std::to_string(pte->layout.segment_data_size) +
      ",\n    \"segments\": [\n      {\n        \"offset\": 0,\n        \"size\": " +
      std::to_string(pte->program.segments.at(0).size) +
      "\n      }\n    ]\n  },\n  \"constants\": {\n    \"count\": 2,\n";
  CHECK(md.substr(0, head.size()) == head);
  CHECK(md.find("\"name\": \"get_a\",\n      \"values\": [\n        2\n      ]") != std::string::npos);

  // A constant method may not reuse a method's name.
  options.constant_methods.push_back(parse_ok("forward=1"));
  auto clash = emit::emit_program({input_of("forward", fwd)}, options, {});
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().code == ErrorCode::OPTION_INVALID);
  CHECK(clash.error().message == "constant method 'forward': a method of that name already exists");

  // A joint method's training getter named like another method of the program.
  SmallMethod joint = small_method(1.0f);
  joint.ep.signature().output_specs[0].kind = OutputKind::GradientToParameter;
  joint.ep.signature().output_specs[0].target = "fc.weight";
  auto named =
      emit::emit_program({input_of("train", joint), input_of("__et_training_fqn_train", fwd)}, {}, {});
  REQUIRE_FALSE(named.ok());
  CHECK(named.error().code == ErrorCode::INVALID_GRAPH);
  CHECK(named.error().message ==
        "method 'train' is a training (joint) program, whose metadata needs a method named "
        "'__et_training_fqn_train', but the program has a method of that name; rename one of them");
  CHECK(named.error().where.method == "__et_training_fqn_train");
  // Without the clash the same methods emit, with the getters after the methods.
  auto fine = emit::emit_program({input_of("train", joint), input_of("other", fwd)}, {}, {});
  REQUIRE_MESSAGE(fine.ok(), fine.error().to_string());
  CHECK(fine->program.execution_plan.size() == 4);
  CHECK(fine->program.execution_plan[3].name == "__et_training_fqn_train");
}
