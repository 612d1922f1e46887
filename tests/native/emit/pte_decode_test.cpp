// Decoding the reference .pte files: exact facts from executorch-pipeline.md
// §7, agreement with flatc's own JSON decodings, and bad input.
#include "emit/pte_decode.h"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "emit/pte_fault.h"
#include "pte_test_util.h"
#include "schema/program_generated.h"

using namespace pteforge;
using namespace pteforge::emit;
using namespace pteforge::emit::testing;

namespace {

DecodedPte decode_reference(const std::string& name) {
  std::string bytes = read_file(reference_path(name));
  REQUIRE_MESSAGE(!bytes.empty(), "cannot read " << name);
  auto d = decode_pte(bytes);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  return std::move(d).value();
}

const Tensor& tensor_at(const ExecutionPlan& plan, size_t i) {
  REQUIRE(i < plan.values.size());
  const Tensor* t = std::get_if<Tensor>(&plan.values[i].val);
  REQUIRE_MESSAGE(t != nullptr, "value " << i << " is " << kernel_type_name(plan.values[i].val));
  return *t;
}

int64_t int_at(const ExecutionPlan& plan, size_t i) {
  REQUIRE(i < plan.values.size());
  const Int* v = std::get_if<Int>(&plan.values[i].val);
  REQUIRE_MESSAGE(v != nullptr, "value " << i << " is " << kernel_type_name(plan.values[i].val));
  return v->int_val;
}

const KernelCall& kernel_call(const ExecutionPlan& plan, size_t i) {
  REQUIRE(plan.chains.size() == 1);
  REQUIRE(i < plan.chains[0].instructions.size());
  const KernelCall* k = std::get_if<KernelCall>(&plan.chains[0].instructions[i].instr_args);
  REQUIRE(k != nullptr);
  return *k;
}

// First difference between two JSON values ("" when equal). Doubles compare
// with a relative tolerance: flatc prints 12 significant digits.
std::string json_diff(const rapidjson::Value& a, const rapidjson::Value& b, const std::string& path) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsDouble() || b.IsDouble()) {
      double x = a.GetDouble(), y = b.GetDouble();
      return std::fabs(x - y) <= 1e-9 * std::max(1.0, std::fabs(y)) ? "" : path + ": number differs";
    }
    if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64() ? "" : path + ": integer differs";
    return a.GetUint64() == b.GetUint64() ? "" : path + ": integer differs";
  }
  if (a.GetType() != b.GetType()) return path + ": type differs";
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return path + ": member count differs";
    for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
      auto other = b.FindMember(it->name);
      if (other == b.MemberEnd()) return path + "/" + it->name.GetString() + ": missing";
      std::string d = json_diff(it->value, other->value, path + "/" + it->name.GetString());
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return path + ": length " + std::to_string(a.Size()) + " vs " + std::to_string(b.Size());
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      std::string d = json_diff(a[i], b[i], path + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : path + ": value differs";
}

const std::vector<std::string> kReferenceFiles = {
    "add.pte", "arduino_add_model.pte", "arduino_keyword_spotting.pte", "module_linear_no_constant_segment.pte",
    "stories260k_hybrid_llama_qnn.pte"};

}  // namespace

TEST_CASE("arduino_add_model.pte decodes to the facts of spec section 7.1") {
  DecodedPte d = decode_reference("arduino_add_model.pte");
  CHECK(d.info.file_size == 1156);
  CHECK(d.info.identifier == "ET12");
  REQUIRE(d.info.extended_header.has_value());
  CHECK(d.info.extended_header->length == 32);
  CHECK(d.info.extended_header->program_size == 1040);
  CHECK(d.info.extended_header->segment_base_offset == 1152);
  CHECK(d.info.extended_header->segment_data_size == std::optional<uint64_t>(4));
  CHECK(d.info.segment_data_size == 4);

  const Program& p = d.program;
  CHECK(p.version == 0);
  CHECK(p.segments == std::vector<DataSegment>{{0, 4}});
  REQUIRE(p.constant_segment.has_value());
  CHECK(p.constant_segment->segment_index == 0);
  CHECK(p.constant_segment->offsets == std::vector<uint64_t>{0, 0});
  CHECK(p.constant_buffer.empty());
  CHECK(p.backend_delegate_data.empty());
  CHECK(!p.mutable_data_segments.has_value());
  CHECK(!p.named_data.has_value());

  REQUIRE(p.execution_plan.size() == 1);
  const ExecutionPlan& plan = p.execution_plan[0];
  CHECK(plan.name == "forward");
  REQUIRE(plan.values.size() == 4);
  const Tensor& c = tensor_at(plan, 0);
  CHECK(c.scalar_type == ir::ScalarType::Float);
  CHECK(c.sizes.empty());
  CHECK(c.dim_order.empty());
  CHECK(c.data_buffer_idx == 1);
  CHECK(!c.allocation_info.has_value());
  const Tensor& x = tensor_at(plan, 1);
  CHECK(x.sizes == std::vector<int32_t>{3});
  CHECK(x.dim_order == std::vector<uint8_t>{0});
  CHECK(x.allocation_info == std::optional<AllocationDetails>(AllocationDetails{1, 16}));
  CHECK(x.data_buffer_idx == 0);
  const Tensor& out = tensor_at(plan, 2);
  CHECK(out.allocation_info == std::optional<AllocationDetails>(AllocationDetails{1, 0}));
  CHECK(int_at(plan, 3) == 1);
  CHECK(plan.inputs == std::vector<int32_t>{1});
  CHECK(plan.outputs == std::vector<int32_t>{2});
  CHECK(plan.operators == std::vector<Operator>{{"aten::add", "out"}});
  REQUIRE(plan.chains.size() == 1);
  CHECK(plan.chains[0].inputs.empty());
  CHECK(plan.chains[0].outputs.empty());
  REQUIRE(plan.chains[0].instructions.size() == 1);
  CHECK(kernel_call(plan, 0) == KernelCall{0, {1, 0, 3, 2, 2}});
  CHECK(plan.delegates.empty());
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 32});
  CHECK(plan.container_meta_type.encoded_inp_str ==
        R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}]}, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])");
  CHECK(plan.container_meta_type.encoded_out_str == R"([1, {"type": null, "context": null, "children_spec": []}])");
  CHECK(format_instruction(plan, plan.chains[0].instructions[0]) == "aten::add.out(%1, %0, %3, %2, %2)");
}

TEST_CASE("add.pte (older toolchain) has no extended header and compact pytree strings, spec 7.2") {
  DecodedPte d = decode_reference("add.pte");
  CHECK(d.info.file_size == 728);
  CHECK(!d.info.extended_header.has_value());
  CHECK(d.info.program_size == 728);
  CHECK(d.info.segment_data_size == 0);
  const Program& p = d.program;
  CHECK(p.segments == std::vector<DataSegment>{{0, 0}});
  CHECK(p.constant_segment->offsets == std::vector<uint64_t>{0});
  const ExecutionPlan& plan = p.execution_plan[0];
  CHECK(tensor_at(plan, 0).allocation_info->memory_offset == 0);
  CHECK(tensor_at(plan, 1).allocation_info->memory_offset == 16);
  CHECK(tensor_at(plan, 2).allocation_info->memory_offset == 32);
  CHECK(int_at(plan, 3) == 1);
  CHECK(kernel_call(plan, 0).args == std::vector<int32_t>{0, 1, 3, 2, 2});
  CHECK(plan.inputs == std::vector<int32_t>{0, 1});
  CHECK(plan.outputs == std::vector<int32_t>{2});
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 48});
  CHECK(plan.container_meta_type.encoded_inp_str == "T2#2#0(T2#1#1($,$),D0())");
  CHECK(plan.container_meta_type.encoded_out_str == "$");
}

TEST_CASE("a size-0 segment past the end of the file has no file offset (not a wrapped-around one)") {
  DecodedPte d = decode_reference("add.pte");  // 728 bytes, no extended header, segment 0 = {0, 0}
  CHECK(segment_file_offset(d.info, d.program.segments[0]) == std::optional<uint64_t>(728));
  d.program.segments[0].offset = UINT64_MAX;  // 728 + it wraps to 727
  CHECK(segment_file_offset(d.info, d.program.segments[0]) == std::nullopt);
  const std::string json = decoded_pte_to_json(d);
  CHECK(json.find("\"file_offset\": null") != std::string::npos);
  CHECK(json.find("\"file_offset\": 727") == std::string::npos);
  CHECK(format_pte_summary(d).find("  0: offset 18446744073709551615, size 0 (past the end of the file)\n") !=
        std::string::npos);
}

TEST_CASE("module_linear_no_constant_segment.pte keeps constants inline (deprecated), spec 7.3") {
  std::string bytes = read_file(reference_path("module_linear_no_constant_segment.pte"));
  CHECK(read_u32_le(reinterpret_cast<const uint8_t*>(bytes.data())) == 36);
  DecodedPte d = decode_reference("module_linear_no_constant_segment.pte");
  CHECK(d.info.file_size == 1040);
  CHECK(!d.info.extended_header.has_value());
  const Program& p = d.program;
  REQUIRE(p.constant_buffer.size() == 3);
  CHECK(p.constant_buffer[0].storage.empty());
  std::vector<uint8_t> three, two;
  for (int i = 0; i < 4; ++i) {
    three.insert(three.end(), {0x00, 0x00, 0x40, 0x40});
    two.insert(two.end(), {0x00, 0x00, 0x00, 0x40});
  }
  CHECK(p.constant_buffer[1].storage == three);
  CHECK(p.constant_buffer[2].storage == two);
  CHECK(p.segments.empty());
  REQUIRE(p.constant_segment.has_value());
  CHECK(p.constant_segment->offsets.empty());
  const ExecutionPlan& plan = p.execution_plan[0];
  CHECK(tensor_at(plan, 0).data_buffer_idx == 1);
  CHECK(tensor_at(plan, 1).data_buffer_idx == 2);
  CHECK(tensor_at(plan, 2).allocation_info->memory_offset == 0);
  CHECK(tensor_at(plan, 3).allocation_info->memory_offset == 16);
  CHECK(tensor_at(plan, 4).allocation_info->memory_offset == 0);
  CHECK(int_at(plan, 5) == 1);
  CHECK(kernel_call(plan, 0) == KernelCall{0, {0, 2, 3, 3}});
  CHECK(kernel_call(plan, 1) == KernelCall{1, {3, 1, 5, 4, 4}});
  CHECK(plan.operators == std::vector<Operator>{{"aten::mul", "out"}, {"aten::add", "out"}});
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 32});
  CHECK(plan.container_meta_type.encoded_inp_str == "T2#1#0(T1#1($),D0())");
  std::string summary = format_pte_summary(d);
  CHECK(summary.find("constant_buffer (deprecated inline constants): 3 entries, sizes [0, 16, 16]") !=
        std::string::npos);
  CHECK(summary.find("1: aten::add.out(%3, %1, %5, %4, %4)") != std::string::npos);
}

TEST_CASE("arduino_keyword_spotting.pte: constants, dedup, custom ops and memory plan, spec 7.4") {
  DecodedPte d = decode_reference("arduino_keyword_spotting.pte");
  CHECK(d.info.file_size == 54192);
  CHECK(d.info.extended_header->program_size == 14904);
  CHECK(d.info.extended_header->segment_base_offset == 14976);
  CHECK(d.info.extended_header->segment_data_size == std::optional<uint64_t>(39216));
  const Program& p = d.program;
  CHECK(p.segments == std::vector<DataSegment>{{0, 39216}});
  const auto& offsets = p.constant_segment->offsets;
  REQUIRE(offsets.size() == 64);
  CHECK(offsets[0] == 0);
  CHECK(offsets[1] == 0);
  CHECK(offsets[2] == 256);
  CHECK(offsets[3] == 768);
  CHECK(offsets[21] == 5376);
  CHECK(offsets[22] == 7936);
  CHECK(offsets[63] == 39168);
  for (uint64_t o : offsets) CHECK(o % 16 == 0);

  const ExecutionPlan& plan = p.execution_plan[0];
  for (size_t v = 1; v <= 33; v += 4) CHECK(tensor_at(plan, v).data_buffer_idx == 2);
  CHECK(tensor_at(plan, 46).data_buffer_idx == 31);
  CHECK(tensor_at(plan, 49).data_buffer_idx == 31);
  CHECK(tensor_at(plan, 46).sizes == std::vector<int32_t>{64, 64, 1, 1});
  CHECK(tensor_at(plan, 49).sizes == std::vector<int32_t>{64, 1, 1, 64});
  const Tensor& input = tensor_at(plan, 83);
  CHECK(input.scalar_type == ir::ScalarType::Float);
  CHECK(input.sizes == std::vector<int32_t>{1, 1, 49, 10});
  CHECK(input.dim_order == std::vector<uint8_t>{0, 2, 1, 3});
  CHECK(input.allocation_info == std::optional<AllocationDetails>(AllocationDetails{1, 0}));
  CHECK(plan.inputs == std::vector<int32_t>{83});
  CHECK(plan.outputs == std::vector<int32_t>{283});
  CHECK(tensor_at(plan, 84).allocation_info->memory_offset == 1968);
  CHECK(std::get<Double>(plan.values[85].val).double_val == doctest::Approx(2.822781801224).epsilon(1e-12));
  CHECK(int_at(plan, 86) == 68);
  CHECK(int_at(plan, 87) == -128);
  CHECK(int_at(plan, 89) == 1);
  const Tensor& scratch = tensor_at(plan, 90);
  CHECK(scratch.scalar_type == ir::ScalarType::Byte);
  CHECK(scratch.sizes == std::vector<int32_t>{0});
  CHECK(tensor_at(plan, 91).dim_order == std::vector<uint8_t>{0, 2, 3, 1});
  CHECK(std::get<IntList>(plan.values[94].val).items == std::vector<int64_t>{92, 93});
  CHECK(std::holds_alternative<Null>(plan.values[273].val));
  CHECK(tensor_at(plan, 257).allocation_info->memory_offset == 8256);
  CHECK(tensor_at(plan, 271).allocation_info->memory_offset == 8256);
  CHECK(std::get<IntList>(plan.values[278].val).items == std::vector<int64_t>{277});
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 16000});
  CHECK(plan.operators == std::vector<Operator>{{"cortex_m::quantize_per_tensor", "out"},
                                                {"cortex_m::quantized_depthwise_conv2d", "out"},
                                                {"dim_order_ops::_clone_dim_order", "out"},
                                                {"cortex_m::quantized_conv2d", "out"},
                                                {"cortex_m::pad", "out"},
                                                {"cortex_m::quantized_avg_pool2d", "out"},
                                                {"cortex_m::quantized_linear", "out"},
                                                {"cortex_m::dequantize_per_tensor", "out"}});
  REQUIRE(plan.chains[0].instructions.size() == 16);
  CHECK(kernel_call(plan, 0) == KernelCall{0, {83, 85, 86, 87, 88, 89, 84, 84}});
  CHECK(kernel_call(plan, 2) == KernelCall{2, {91, 107, 112, 106, 106}});
  CHECK(kernel_call(plan, 14) == KernelCall{6, {271, 81, 82, 273, 274, 275, 276, 278, 280, 281, 282, 272, 272}});
  CHECK(kernel_call(plan, 15) == KernelCall{7, {272, 284, 285, 286, 287, 288, 283, 283}});
  CHECK(format_instruction(plan, plan.chains[0].instructions[15]) ==
        "cortex_m::dequantize_per_tensor.out(%272, %284, %285, %286, %287, %288, %283, %283)");
}

TEST_CASE("stories260k_hybrid_llama_qnn.pte: delegates, prim getters, unplanned I/O, spec 7.5") {
  DecodedPte d = decode_reference("stories260k_hybrid_llama_qnn.pte");
  CHECK(d.info.file_size == 1350144);
  CHECK(d.info.extended_header->program_size == 18688);
  CHECK(d.info.extended_header->segment_base_offset == 18688);
  CHECK(d.info.extended_header->segment_data_size == std::optional<uint64_t>(1331456));
  const Program& p = d.program;
  CHECK(p.segments == std::vector<DataSegment>{{0, 0}, {0, 1331456}});
  CHECK(p.constant_segment->offsets == std::vector<uint64_t>{0});
  REQUIRE(p.execution_plan.size() == 29);
  CHECK(p.execution_plan[0].name == "kv_forward");
  CHECK(p.execution_plan[1].name == "prefill_forward");
  CHECK(p.execution_plan[2].name == "get_ar_len");
  CHECK(p.execution_plan[3].name == "get_bos_id");
  for (size_t i = 0; i < 2; ++i) {
    const ExecutionPlan& plan = p.execution_plan[i];
    REQUIRE(plan.delegates.size() == 1);
    const BackendDelegate& del = plan.delegates[0];
    CHECK(del.id == "QnnBackend");
    CHECK(del.processed == BackendDelegateDataReference{DataLocation::Segment, 1});
    REQUIRE(del.compile_specs.size() == 1);
    CHECK(del.compile_specs[0].key == "qnn_compile_spec");
    CHECK(del.compile_specs[0].value.size() == 200);
    CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 0});
    CHECK(plan.operators.empty());
    for (const auto& v : plan.values) {
      const Tensor* t = std::get_if<Tensor>(&v.val);
      REQUIRE(t != nullptr);
      CHECK(!t->allocation_info.has_value());
      CHECK(t->data_buffer_idx == 0);
    }
  }
  const ExecutionPlan& kv = p.execution_plan[0];
  REQUIRE(kv.chains[0].instructions.size() == 1);
  const auto& call = std::get<DelegateCall>(kv.chains[0].instructions[0].instr_args);
  CHECK(call.delegate_index == 0);
  std::vector<int32_t> args = {2, 0, 3, 8, 1, 4, 9, 5, 10, 6, 11, 7, 12};
  for (int32_t v = 13; v <= 23; ++v) args.push_back(v);
  CHECK(call.args == args);
  CHECK(kv.outputs == std::vector<int32_t>{23, 14, 16, 18, 20, 22, 13, 15, 17, 19, 21});
  const ExecutionPlan& getter = p.execution_plan[5];
  CHECK(getter.name == "get_dim");
  CHECK(getter.inputs.empty());
  CHECK(getter.outputs == std::vector<int32_t>{0});
  CHECK(getter.non_const_buffer_sizes == std::vector<int64_t>{0});
  CHECK(getter.container_meta_type.encoded_inp_str.empty());
  CHECK(getter.chains[0].instructions.empty());
  CHECK(int_at(getter, 0) == 64);
  bool saw_string = false;
  for (const auto& plan : p.execution_plan) {
    for (const auto& v : plan.values) {
      if (auto* s = std::get_if<String>(&v.val)) saw_string = saw_string || s->string_val.rfind("torch.", 0) == 0;
    }
  }
  CHECK(saw_string);
  CHECK(format_instruction(kv, kv.chains[0].instructions[0]).rfind("delegate 0 QnnBackend(%2, %0, %3, ", 0) == 0);
}

TEST_CASE("the flatc-style JSON equals flatc's decoding of every reference file") {
  for (const auto& name : kReferenceFiles) {
    CAPTURE(name);
    std::string bytes = read_file(reference_path(name));
    DecodeOptions options;
    options.json_style = PteJsonStyle::Flatc;
    auto json = decode_pte_json(bytes, options);
    REQUIRE_MESSAGE(json.ok(), json.error().to_string());
    std::string expected_text = read_file(reference_path(name.substr(0, name.size() - 4) + ".json"));
    rapidjson::Document ours, expected;
    REQUIRE(!ours.Parse(json->c_str()).HasParseError());
    REQUIRE(!expected.Parse(expected_text.c_str()).HasParseError());
    CHECK(json_diff(ours, expected, "") == "");
  }
}

TEST_CASE("the readable JSON spells out layout, defaults and operator names") {
  std::string bytes = read_file(reference_path("arduino_add_model.pte"));
  auto json = decode_pte_json(bytes);
  REQUIRE(json.ok());
  rapidjson::Document doc;
  REQUIRE(!doc.Parse(json->c_str()).HasParseError());
  CHECK(doc["file"]["size"].GetUint64() == 1156);
  CHECK(doc["file"]["extended_header"]["segment_base_offset"].GetUint64() == 1152);
  CHECK(doc["version"].GetUint() == 0);
  const auto& plan = doc["execution_plan"][0];
  CHECK(std::string(plan["name"].GetString()) == "forward");
  CHECK(plan["non_const_buffer_sizes"][1].GetInt64() == 32);
  const auto& v1 = plan["values"][1];
  CHECK(std::string(v1["type"].GetString()) == "Tensor");
  CHECK(std::string(v1["scalar_type"].GetString()) == "FLOAT");
  CHECK(v1["allocation_info"]["memory_offset"].GetUint64() == 16);
  CHECK(v1["nbytes"].GetUint64() == 12);
  CHECK(std::string(v1["shape_dynamism"].GetString()) == "STATIC");
  CHECK(plan["values"][3]["value"].GetInt64() == 1);
  const auto& ins = plan["chains"][0]["instructions"][0];
  CHECK(std::string(ins["operator"].GetString()) == "aten::add.out");
  CHECK(std::string(ins["text"].GetString()) == "aten::add.out(%1, %0, %3, %2, %2)");
  CHECK(doc["segments"][0]["file_offset"].GetUint64() == 1152);
  CHECK(doc["constant_segment"]["offsets"].Size() == 2);
  CHECK(doc["mutable_data_segments"].IsNull());
}

TEST_CASE("the summary writes U+FFFD for invalid UTF-8 in names, as the JSON forms do") {
  std::string bytes = read_file(reference_path("arduino_add_model.pte"));
  REQUIRE(bytes.substr(280, 9) == "aten::add");
  bytes[280] = static_cast<char>(0xC0);  // the operator name's first byte: a lone lead byte
  auto d = decode_pte(bytes);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  const std::string s = format_pte_summary(d.value());
  CHECK(s.find("    0: \xEF\xBF\xBDten::add.out\n") != std::string::npos);
  CHECK(s.find('\xC0') == std::string::npos);
}

TEST_CASE("the summary escapes C1 controls (U+0080..U+009F) in names and quoted strings") {
  std::string bytes = read_file(reference_path("arduino_add_model.pte"));
  REQUIRE(bytes.substr(280, 9) == "aten::add");
  bytes.replace(280, 2, "\xc2\x9b");  // "at" -> U+009B (CSI), valid UTF-8 of the same length
  const size_t spec = bytes.find("builtins.tuple");
  REQUIRE(spec != std::string::npos);
  bytes.replace(spec, 2, "\xc2\x85");  // "bu" -> U+0085 inside the container's input spec
  auto d = decode_pte(bytes);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  const std::string s = format_pte_summary(d.value());
  CHECK(s.find("    0: \\xc2\\x9ben::add.out\n") != std::string::npos);
  CHECK(s.find("\\\"\\xc2\\x85iltins.tuple\\\"") != std::string::npos);
  CHECK(s.find("\xc2\x9b") == std::string::npos);
  CHECK(s.find("\xc2\x85") == std::string::npos);
}

TEST_CASE("the summary lists methods, values, operators, instructions and segments") {
  DecodedPte d = decode_reference("arduino_add_model.pte");
  std::string s = format_pte_summary(d);
  for (const char* line : {"file: 1156 bytes, identifier ET12\n",
                           "extended header: length 32, program_size 1040, segment_base_offset 1152, segment_data_size 4\n",
                           "method forward\n", "  inputs: [%1]\n", "  outputs: [%2]\n",
                           "  non_const_buffer_sizes: [0, 32]\n", "    %0 = Tensor FLOAT[] const #1\n",
                           "    %1 = Tensor FLOAT[3] mem 1@16\n", "    %3 = Int 1\n", "    0: aten::add.out\n",
                           "    0: aten::add.out(%1, %0, %3, %2, %2)\n",
                           "  0: offset 0, size 4 (file bytes 1152..1156)\n",
                           "constant_segment: segment 0, 2 offsets [0, 0]\n"}) {
    CHECK_MESSAGE(s.find(line) != std::string::npos, "missing: " << line << "\nin:\n" << s);
  }
}

TEST_CASE("decoding from the program part plus the file size") {
  std::string bytes = read_file(reference_path("stories260k_hybrid_llama_qnn.pte"));
  DecodeOptions options;
  options.file_size = bytes.size();
  auto part = decode_pte(std::string_view(bytes).substr(0, 18688), options);
  REQUIRE_MESSAGE(part.ok(), part.error().to_string());
  auto whole = decode_pte(bytes);
  REQUIRE(whole.ok());
  CHECK(part->program == whole->program);
  CHECK(part->info == whole->info);

  // Claiming a larger file than the header accounts for is fine; a smaller one is not.
  options.file_size = 18688 + 100;
  auto short_file = decode_pte(std::string_view(bytes).substr(0, 18688), options);
  REQUIRE(!short_file.ok());
  CHECK(short_file.error().code == ErrorCode::PTE_INVALID);
  CHECK(short_file.error().where.byte_offset == std::optional<uint64_t>(18788));

  // Without a header, the whole file is needed.
  std::string add = read_file(reference_path("add.pte"));
  options.file_size = add.size();
  auto partial = decode_pte(std::string_view(add).substr(0, 100), options);
  REQUIRE(!partial.ok());
  CHECK(partial.error().code == ErrorCode::PTE_INVALID);
}

TEST_CASE("an int64 vector off its 8-byte alignment is read byte-wise (the verifier accepts it)") {
  // Found by fuzzing under UBSan: one byte of arduino_keyword_spotting.pte
  // (the offset from value 154's IntList table to its items) moved by 124, so
  // the int64 items start 4 bytes past an 8-byte boundary. FlatBuffers'
  // verifier checks only the length field's 4-byte alignment, and reading the
  // items in place was undefined behaviour.
  std::string bytes = read_file(reference_path("arduino_keyword_spotting.pte"));
  REQUIRE(bytes.size() == 54192);
  REQUIRE(static_cast<uint8_t>(bytes[7896]) == 0x04);
  bytes[7896] = static_cast<char>(0x80);
  auto d = decode_pte(bytes);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  const auto& values = d.value().program.execution_plan[0].values;
  REQUIRE(values.size() > 154);
  const auto* list = std::get_if<IntList>(&values[154].val);
  REQUIRE(list != nullptr);
  CHECK(list->items == std::vector<int64_t>{-27676769255424});
  // The load checks read the same items byte-wise too (the item names no value).
  DecodeOptions check;
  check.check_load = true;
  auto checked = decode_pte(bytes, check);
  REQUIRE_MESSAGE(checked.ok(), checked.error().to_string());
  REQUIRE(checked->load_check.total == 1);
  CHECK(checked->load_check.problems[0].pointer == "/execution_plan/0/values/154/val/items/0");
  // The untouched file: the same value holds [152, 153].
  DecodedPte untouched = decode_reference("arduino_keyword_spotting.pte");
  CHECK(std::get<IntList>(untouched.program.execution_plan[0].values[154].val).items ==
        std::vector<int64_t>{152, 153});
}

TEST_CASE("a flatbuffer that fails verification: the error names the part that fails on its own") {
  const std::string good = read_file(reference_path("arduino_keyword_spotting.pte"));
  REQUIRE(good.size() == 54192);
  DecodeOptions options;
  options.source_name = "m.pte";
  const std::string message =
      "the flatbuffer failed verification: a table, vector or string is out of bounds, misaligned or "
      "nested too deeply";
  // Value 154's IntList items offset (4, at byte 7896) made 0x7f0004: the
  // items lie past the end. Named down to the field: the value's union
  // member (its IntList table), then its items.
  std::string items = good;
  items[7898] = 0x7f;
  auto r = decode_pte(items, options);
  REQUIRE(!r.ok());
  CHECK(r.error().code == ErrorCode::PTE_INVALID);
  CHECK(r.error().message == message);
  CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/154/val/items"));
  CHECK(r.error().where.byte_offset == std::optional<uint64_t>(7896));
  CHECK(r.error().where.entry == std::optional<std::string>("m.pte"));
  // A tensor's field: arduino_add_model.pte's value 0 (the constant 1.0) has
  // its sizes offset at byte 668; made 0x7f....: the sizes lie past the end.
  std::string add = read_file(reference_path("arduino_add_model.pte"));
  add[670] = 0x7f;
  r = decode_pte(add, options);
  REQUIRE(!r.ok());
  CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/0/val/sizes"));
  CHECK(r.error().where.byte_offset == std::optional<uint64_t>(668));
  // The root offset past the end: the root itself, at byte 0.
  std::string root = good;
  root[3] = 0x7f;
  r = decode_pte(root, options);
  REQUIRE(!r.ok());
  CHECK(r.error().message ==
        "the root table offset 2130706492 (bytes 0..3) points past the end of the 14904-byte program: the "
        "file is "
        "truncated or corrupt");
  CHECK_FALSE(r.error().where.pointer.has_value());
  CHECK(r.error().where.byte_offset == std::optional<uint64_t>(0));
}

TEST_CASE("a vector element whose offset leads backwards is refused, on 64- and 32-bit machines alike") {
  // add.pte's first operator offset (at byte 200) made 0xFFFFFF54: 200 + it
  // wraps to the root table (byte 28) on a 32-bit machine, where FlatBuffers'
  // verifier then accepted the file (the npm package decoded it); on a 64-bit
  // machine it points past the end. Found by comparing the CLI and the npm package.
  std::string bytes = read_file(reference_path("add.pte"));
  REQUIRE(bytes.substr(200, 4) == std::string("\x04\0\0\0", 4));
  const uint32_t back = static_cast<uint32_t>(28 - 200);
  std::memcpy(&bytes[200], &back, sizeof back);
  DecodeOptions options;
  options.source_name = "m.pte";
  auto r = decode_pte(bytes, options);
  REQUIRE(!r.ok());
  CHECK(r.error().code == ErrorCode::PTE_INVALID);
  CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/operators/0"));
  CHECK(r.error().where.byte_offset == std::optional<uint64_t>(200));
  // The check decode runs after the verifier passed (what catches it on a 32-bit machine).
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  auto fault = find_backward_offset(reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size());
  REQUIRE(fault.has_value());
  CHECK(fault->pointer == "/execution_plan/0/operators/0");
  CHECK(fault->byte_offset == 200);
  const std::string good = read_file(reference_path("add.pte"));
  std::memcpy(aligned.data(), good.data(), good.size());
  CHECK_FALSE(
      find_backward_offset(reinterpret_cast<const uint8_t*>(aligned.data()), good.size()).has_value());
}

TEST_CASE("bad headers give PTE_INVALID with the byte offset") {
  std::string good = read_file(reference_path("arduino_add_model.pte"));
  DecodeOptions options;
  options.source_name = "model.pte";

  auto empty = decode_pte("", options);
  REQUIRE(!empty.ok());
  CHECK(empty.error().code == ErrorCode::PTE_INVALID);
  CHECK(empty.error().where.entry == std::optional<std::string>("model.pte"));
  CHECK(empty.error().where.byte_offset == std::optional<uint64_t>(0));

  std::string bad_id = good;
  bad_id[7] = '3';
  auto id = decode_pte(bad_id, options);
  REQUIRE(!id.ok());
  CHECK(id.error().code == ErrorCode::PTE_INVALID);
  CHECK(id.error().where.byte_offset == std::optional<uint64_t>(4));
  CHECK(id.error().message == "file identifier is \"ET13\"; \"ET12\" expected");

  // A converter input given to decode by mistake is named as what it is,
  // whatever its size (an empty zip is 22 bytes, "{}" two).
  const std::string zip_says = "the input is a zip archive (such as a .pt2), not a .pte; convert makes a .pte of it";
  const std::string json_says = "the input is JSON (such as a program JSON), not a .pte; convert makes a .pte of it";
  for (const std::string& input : {std::string("PK\x03\x04\x14\x00\x00\x00\x00\x00", 10),
                                   std::string("PK\x05\x06") + std::string(18, '\0')}) {
    auto r = decode_pte(input, options);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::PTE_INVALID);
    CHECK(r.error().message == zip_says);
    CHECK(r.error().where.byte_offset == std::optional<uint64_t>(0));
  }
  for (const char* input : {"\n  {\"schema_version\": {}}", "{}", "[1,2]", "\xEF\xBB\xBF{\"graph_module\": {}}"}) {
    auto r = decode_pte(input, options);
    REQUIRE(!r.ok());
    CHECK(r.error().message == json_says);
  }

  std::string short_len = good;
  short_len[12] = 16;  // header length 16 < 24
  auto len = decode_pte(short_len, options);
  REQUIRE(!len.ok());
  CHECK(len.error().where.byte_offset == std::optional<uint64_t>(12));

  // What the runtime tolerates (it reads segments at base + offset, and
  // checks only what it loads) decodes, with layout problems.
  std::string base = good;
  base[24] = 0x00;  // segment_base_offset 1152 -> 1024, inside the program (1040)
  auto b = decode_pte(base, options);
  REQUIRE_MESSAGE(b.ok(), b.error().to_string());
  CHECK(b->layout_problems ==
        std::vector<LoadProblem>{{"/extended_header/segment_base_offset",
                                  "segment_base_offset 1024 lies inside the program (program_size 1040); "
                                  "ExecuTorch's serializer starts the segments after it"}});
  CHECK(decode_reference("arduino_add_model.pte").layout_problems.empty());
  // segment_base_offset 0 says there are no segments (the runtime loads none).
  std::string no_base = good;
  for (int k = 24; k < 40; ++k) no_base[k] = 0;
  auto nb = decode_pte(no_base, options);
  REQUIRE_FALSE(nb.ok());
  CHECK(
      nb.error().message ==
      "segment 0 has 4 bytes but the extended header's segment_base_offset is 0, which says the file has no "
      "segments");
  CHECK(nb.error().where.byte_offset == std::optional<uint64_t>(24));
  CHECK(nb.error().where.pointer == std::optional<std::string>("/segments/0"));
  std::string small_data = good;
  small_data[32] = 2;  // segment_data_size 4 -> 2; segment 0 is 4 bytes, all in the file
  auto sd = decode_pte(small_data, options);
  REQUIRE_MESSAGE(sd.ok(), sd.error().to_string());
  CHECK(sd->layout_problems ==
        std::vector<LoadProblem>{
            {"/extended_header/segment_data_size",
             "segment_data_size 2 is smaller than the segments need (4 bytes); the runtime "
             "does not read it"}});
  CHECK(format_pte_summary(*sd).find(
            "\nlayout problem: /extended_header/segment_data_size: segment_data_size 2 "
            "is smaller") != std::string::npos);

  std::string small_program = good;
  small_program[16] = 8;
  small_program[17] = 0;  // program_size 8
  auto sp = decode_pte(small_program, options);
  REQUIRE(!sp.ok());
  CHECK(sp.error().where.byte_offset == std::optional<uint64_t>(16));

  std::string huge = good;
  huge[37] = 0x01;  // segment_data_size 4 + 2^40
  auto h = decode_pte(huge, options);
  REQUIRE(!h.ok());
  CHECK(h.error().code == ErrorCode::PTE_INVALID);
  CHECK(h.error().where.byte_offset == std::optional<uint64_t>(1156));
}

TEST_CASE("every truncation of arduino_add_model.pte is PTE_INVALID") {
  std::string good = read_file(reference_path("arduino_add_model.pte"));
  REQUIRE(good.size() == 1156);
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    auto r = decode_pte(std::string_view(good).substr(0, n));
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::PTE_INVALID);
    // The error names the end of the data, where bytes are missing; cuts at
    // 8..11 (identifier present, header magic cut) leave a headerless program
    // whose root table offset (60, at byte 0) points past its end.
    if (n < 8 || n >= 12) {
      CHECK(r.error().where.byte_offset == std::optional<uint64_t>(n));
    } else {
      CHECK(r.error().where.byte_offset == std::optional<uint64_t>(0));
      CHECK(r.error().message == "the root table offset 60 (bytes 0..3) points past the end of the " +
                                     std::to_string(n) + "-byte program: the file is truncated or corrupt");
    }
  }
}

TEST_CASE("random byte flips never crash: PTE_INVALID or a program that prints") {
  std::mt19937 rng(20240917);
  int failures = 0, successes = 0;
  for (const auto& name : kReferenceFiles) {
    std::string good = read_file(reference_path(name));
    // Flip bytes in the program part (where the structure is).
    size_t span = std::min<size_t>(good.size(), 20000);
    int rounds = name == "stories260k_hybrid_llama_qnn.pte" ? 150 : 600;
    for (int round = 0; round < rounds; ++round) {
      std::string bytes = good;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        size_t at = rng() % span;
        bytes[at] = static_cast<char>(bytes[at] ^ static_cast<char>(1u << (rng() % 8)));
      }
      auto r = decode_pte(bytes);
      if (!r.ok()) {
        CHECK(r.error().code == ErrorCode::PTE_INVALID);
        ++failures;
        continue;
      }
      ++successes;
      rapidjson::Document doc;
      std::string readable = decoded_pte_to_json(*r, PteJsonStyle::Readable);
      CHECK(!doc.Parse(readable.c_str()).HasParseError());
      std::string flatc = decoded_pte_to_json(*r, PteJsonStyle::Flatc);
      CHECK(!doc.Parse(flatc.c_str()).HasParseError());
      CHECK(!format_pte_summary(*r).empty());
    }
  }
  // Both outcomes occur, so the test exercises both paths.
  CHECK(failures > 100);
  CHECK(successes > 100);
}

namespace {

// A one-value program built with the generated API, for inputs our own
// writer cannot produce.
std::string raw_program(uint8_t value_type, bool with_segment) {
  namespace fb = executorch_flatbuffer;
  flatbuffers::FlatBufferBuilder fbb;
  auto i = fb::CreateInt(fbb, 7);
  auto ev = fb::CreateEValue(fbb, static_cast<fb::KernelTypes>(value_type), i.Union());
  std::vector<flatbuffers::Offset<fb::EValue>> vals{ev};
  auto plan = fb::CreateExecutionPlanDirect(fbb, "forward", 0, &vals);
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{plan};
  std::vector<flatbuffers::Offset<fb::DataSegment>> segs;
  if (with_segment) segs.push_back(fb::CreateDataSegment(fbb, 0, 64));
  auto plan_vec = fbb.CreateVector(plans);
  auto seg_vec = fbb.CreateVector(segs);
  fb::ProgramBuilder pb(fbb);
  pb.add_execution_plan(plan_vec);
  pb.add_segments(seg_vec);
  fb::FinishProgramBuffer(fbb, pb.Finish());
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

}  // namespace

TEST_CASE("problems found after verification name the table") {
  auto ok = decode_pte(raw_program(2, false));
  REQUIRE_MESSAGE(ok.ok(), ok.error().to_string());
  CHECK(std::get<Int>(ok->program.execution_plan[0].values[0].val).int_val == 7);

  auto unknown = decode_pte(raw_program(12, false));
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().code == ErrorCode::PTE_INVALID);
  CHECK(unknown.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/0"));

  auto none = decode_pte(raw_program(0, false));
  REQUIRE(!none.ok());
  CHECK(none.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/0"));

  auto segment = decode_pte(raw_program(2, true));
  REQUIRE(!segment.ok());
  CHECK(segment.error().code == ErrorCode::PTE_INVALID);
  CHECK(segment.error().where.pointer == std::optional<std::string>("/segments/0"));
}

TEST_CASE("shared tables that would expand without bound are refused, quickly") {
  // 40 plans of 2,000 values, all one EValue and one plan: a few KB that
  // would decode to 80,000 values (and, scaled up, to gigabytes).
  namespace fb = executorch_flatbuffer;
  flatbuffers::FlatBufferBuilder fbb;
  auto ev = fb::CreateEValue(fbb, fb::KernelTypes::Int, fb::CreateInt(fbb, 7).Union());
  std::vector<flatbuffers::Offset<fb::EValue>> vals(2000, ev);
  auto plan = fb::CreateExecutionPlanDirect(fbb, "forward", 0, &vals);
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans(40, plan);
  auto plan_vec = fbb.CreateVector(plans);
  fb::ProgramBuilder pb(fbb);
  pb.add_execution_plan(plan_vec);
  fb::FinishProgramBuffer(fbb, pb.Finish());
  const std::string bytes(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  auto r = decode_pte(bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::PTE_INVALID);
  CHECK(
      r.error().message ==
      "the flatbuffer failed verification: a table, vector or string is out of bounds, misaligned or nested "
      "too deeply");
}

TEST_CASE("a tensor table shared by many values cannot make decoding copy gigabytes") {
  // 2,000 values naming one Tensor whose sizes and dim_order have 8,000
  // entries each: a 48 KB file that would decode to 32 million items.
  namespace fb = executorch_flatbuffer;
  auto build = [](int values, int items) {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<int32_t> sizes(static_cast<size_t>(items), 1);
    std::vector<uint8_t> dim_order(static_cast<size_t>(items), 0);
    auto tensor = fb::CreateTensorDirect(fbb, fb::ScalarType::FLOAT, 0, &sizes, &dim_order);
    auto ev = fb::CreateEValue(fbb, fb::KernelTypes::Tensor, tensor.Union());
    std::vector<flatbuffers::Offset<fb::EValue>> vals(static_cast<size_t>(values), ev);
    auto plan = fb::CreateExecutionPlanDirect(fbb, "forward", 0, &vals);
    std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{plan};
    auto plan_vec = fbb.CreateVector(plans);
    fb::ProgramBuilder pb(fbb);
    pb.add_execution_plan(plan_vec);
    fb::FinishProgramBuffer(fbb, pb.Finish());
    return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  };
  const std::string bytes = build(2000, 8000);
  auto r = decode_pte(bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::PTE_INVALID);
  const uint64_t budget = 16 * uint64_t{bytes.size()} + (1 << 20);
  CHECK(r.error().message == "the program's tables are shared so often that decoding its " +
                                 std::to_string(bytes.size()) + " bytes would copy more than " +
                                 std::to_string(budget) +
                                 " vector items and string bytes (at most 16 per byte of the program); no "
                                 "serializer writes such a file");
  // Sharing within the budget decodes: 300 values of one 300-entry tensor.
  auto small = decode_pte(build(300, 300));
  REQUIRE_MESSAGE(small.ok(), small.error().to_string());
  REQUIRE(small->program.execution_plan[0].values.size() == 300);
  CHECK(std::get<Tensor>(small->program.execution_plan[0].values[299].val).sizes.size() == 300);
}

namespace {

/// `program` (a flatbuffer without a header) behind a 32-byte extended header
/// whose program_size is the program's new size; its offsets are relative, so
/// only the root moves. With `segment_data` > 0 that many zero bytes follow at
/// the next multiple of 128 (the segment base offset); else the base offset is 0.
std::string with_extended_header(std::string program, uint64_t segment_data) {
  const uint32_t root = static_cast<uint32_t>(static_cast<uint8_t>(program[0])) + 32;
  program.insert(8, std::string(32, '\0'));
  std::memcpy(&program[0], &root, 4);
  std::memcpy(&program[8], "eh00", 4);
  const uint32_t len = 32;
  std::memcpy(&program[12], &len, 4);
  const uint64_t program_size = program.size();
  std::memcpy(&program[16], &program_size, 8);
  uint64_t base = 0;
  if (segment_data > 0) {
    program.resize((program.size() + 127) / 128 * 128, '\0');
    base = program.size();
    program.append(segment_data, '\0');
  }
  std::memcpy(&program[24], &base, 8);
  std::memcpy(&program[32], &segment_data, 8);
  return program;
}

}  // namespace

TEST_CASE(
    "headers: segment_base_offset 0 means no segments and sizes the file cannot hold are refused from the "
    "header") {
  std::string good = read_file(reference_path("add.pte"));  // no extended header
  // add.pte behind a header saying program_size = the file, no segments (base offset 0).
  std::string with_header = with_extended_header(good, 0);
  auto r = decode_pte(with_header);  // offsets are relative: only the root moves
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  CHECK(r->info.segment_data_size == 0);
  CHECK(r->info.segment_base_offset == with_header.size());
  CHECK(r->program.execution_plan.size() == 1);
  // program_size far past the file: refused from the 64-byte head alone.
  const uint64_t huge = uint64_t{1} << 40;
  std::memcpy(&with_header[16], &huge, 8);
  CHECK(pte_prefix_to_decode(std::string_view(with_header).substr(0, 64), with_header.size()) == 64);
  auto big = decode_pte(with_header);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message == "extended header: program_size 1099511627776 is larger than the file (" +
                                   std::to_string(with_header.size()) + " bytes)");
}

TEST_CASE("a program with both constant layouts is refused, as ExecuTorch's loader refuses it") {
  namespace fb = executorch_flatbuffer;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<uint8_t> data = {1, 2, 3, 4};
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBufferDirect(fbb, &data),
                                                          fb::CreateBufferDirect(fbb, &data)};
  auto buffer_vec = fbb.CreateVector(buffers);
  std::vector<uint64_t> offsets = {0, 16};
  auto segment = fb::CreateSubsegmentOffsetsDirect(fbb, 0, &offsets);
  std::vector<flatbuffers::Offset<fb::DataSegment>> segs = {fb::CreateDataSegment(fbb, 0, 32)};
  auto seg_vec = fbb.CreateVector(segs);
  fb::ProgramBuilder pb(fbb);
  pb.add_constant_buffer(buffer_vec);
  pb.add_constant_segment(segment);
  pb.add_segments(seg_vec);
  fb::FinishProgramBuffer(fbb, pb.Finish());
  // A header and 32 bytes of segment data, so only the layouts are wrong.
  auto r = decode_pte(with_extended_header(
      std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize()), 32));
  REQUIRE_FALSE(r.ok());
  CHECK(
      r.error().message ==
      "constant_buffer holds 2 inline buffers and constant_segment 2 offsets; a program uses one of the two "
      "(ExecuTorch's loader refuses both)");
  CHECK(r.error().where.pointer == std::optional<std::string>("/constant_buffer"));
}
