// The serializer: the hand-built arduino_add_model against the reference
// bytes, re-serializing every reference file, segment layout and alignment,
// delegate/mutable/named data, the model round trip, and errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "emit/extended_header.h"
#include "emit/pte_decode.h"
#include "emit/pte_writer.h"
#include "pte_test_util.h"
#include "schema/program_generated.h"

using namespace pteforge;
using namespace pteforge::emit;
using namespace pteforge::emit::testing;

namespace {

Tensor make_tensor(ir::ScalarType type, std::vector<int32_t> sizes) {
  Tensor t;
  t.scalar_type = type;
  for (size_t i = 0; i < sizes.size(); ++i) t.dim_order.push_back(static_cast<uint8_t>(i));
  t.sizes = std::move(sizes);
  return t;
}

Tensor planned(Tensor t, uint64_t offset) {
  t.allocation_info = AllocationDetails{1, offset};
  return t;
}

Tensor constant(Tensor t, uint32_t index) {
  t.data_buffer_idx = index;
  return t;
}

// executorch-pipeline.md §7.1: forward(x) = x + 1.0 on float32[3], as the
// current pipeline emits it.
Program arduino_add_model() {
  ExecutionPlan plan;
  plan.name = "forward";
  plan.container_meta_type.encoded_inp_str =
      R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [{"type": "builtins.tuple", "context": "null", "children_spec": [{"type": null, "context": null, "children_spec": []}]}, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])";
  plan.container_meta_type.encoded_out_str = R"([1, {"type": null, "context": null, "children_spec": []}])";
  plan.values = {
      EValue{constant(make_tensor(ir::ScalarType::Float, {}), 1)},     // lifted constant 1.0
      EValue{planned(make_tensor(ir::ScalarType::Float, {3}), 16)},    // x
      EValue{planned(make_tensor(ir::ScalarType::Float, {3}), 0)},     // out
      EValue{Int{1}},                                                   // alpha
  };
  plan.inputs = {1};
  plan.outputs = {2};
  plan.chains = {Chain{{}, {}, {Instruction{KernelCall{0, {1, 0, 3, 2, 2}}}}, std::nullopt}};
  plan.operators = {Operator{"aten::add", "out"}};
  plan.non_const_buffer_sizes = {0, 32};
  Program p;
  p.execution_plan.push_back(std::move(plan));
  p.constant_segment = SubsegmentOffsets{0, {}};  // the emitter's placeholder
  return p;
}

std::vector<uint8_t> float_bytes(std::vector<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string flatten(const PteOutput& out, const std::vector<std::pair<std::string, std::string>>* inputs = nullptr) {
  auto flat = inputs ? flatten_chunks(out.chunks, memory_reader(inputs)) : flatten_chunks(out.chunks);
  REQUIRE_MESSAGE(flat.ok(), flat.error().to_string());
  return to_string(*flat);
}

DecodedPte decode_ok(const std::string& bytes) {
  auto d = decode_pte(bytes);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  return std::move(d).value();
}

}  // namespace

TEST_CASE("the hand-built arduino_add_model serializes to the reference file byte for byte") {
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({1.0f}))};
  auto out = serialize_program(arduino_add_model(), data);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  std::string ours = flatten(*out);
  std::string reference = read_file(reference_path("arduino_add_model.pte"));
  CHECK(ours.size() == 1156);
  CHECK(ours == reference);

  CHECK(out->layout == PteLayout{true, 32, 1008, 1040, 1152, 4, 1156});
  // Value by value: our decoding equals the reference's decoding.
  DecodedPte mine = decode_ok(ours);
  DecodedPte theirs = decode_ok(reference);
  CHECK(mine.program == theirs.program);
  CHECK(mine.info == theirs.info);
  CHECK(mine.program == out->program);
}

TEST_CASE("constant data given as an input range is referenced, not copied") {
  const std::string weights = std::string("\x11\x22\x33", 3) + std::string("\x00\x00\x80\x3f", 4) + "tail";
  std::vector<std::pair<std::string, std::string>> inputs{{"data/weights/weight_0", weights}};
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_range("data/weights/weight_0", 3, 4)};
  auto out = serialize_program(arduino_add_model(), data);
  REQUIRE(out.ok());
  size_t ranges = 0;
  for (const auto& c : out->chunks) {
    if (!c.is_bytes()) {
      ++ranges;
      CHECK(c.range() == InputRange{"data/weights/weight_0", 3, 4});
    }
  }
  CHECK(ranges == 1);
  CHECK(total_size(out->chunks) == 1156);
  CHECK(flatten(*out, &inputs) == read_file(reference_path("arduino_add_model.pte")));
  // Without a reader the range cannot be resolved.
  auto no_reader = flatten_chunks(out->chunks);
  REQUIRE(!no_reader.ok());
  CHECK(no_reader.error().code == ErrorCode::IO_ERROR);
  CHECK(no_reader.error().where.entry == std::optional<std::string>("data/weights/weight_0"));
}

TEST_CASE("re-serializing each reference file reproduces its bytes") {
  struct Case {
    std::string name;
    FlatbufferLayout layout;
  };
  // Current-pipeline files use the object-API layout; add.pte and
  // module_linear come from older releases that went through flatc's parser.
  for (const Case& c : {Case{"arduino_add_model.pte", FlatbufferLayout::ObjectApi},
                        Case{"arduino_keyword_spotting.pte", FlatbufferLayout::ObjectApi},
                        Case{"stories260k_hybrid_llama_qnn.pte", FlatbufferLayout::ObjectApi},
                        Case{"add.pte", FlatbufferLayout::FlatcJson},
                        Case{"module_linear_no_constant_segment.pte", FlatbufferLayout::FlatcJson}}) {
    CAPTURE(c.name);
    std::string bytes = read_file(reference_path(c.name));
    DecodedPte d = decode_ok(bytes);
    SerializeOptions options;
    options.flatbuffer_layout = c.layout;
    auto out = assemble_pte(d.program, segments_of(d, "ref"), options);
    REQUIRE_MESSAGE(out.ok(), out.error().to_string());
    CHECK(out->program.segments == d.program.segments);
    std::vector<std::pair<std::string, std::string>> inputs{{"ref", bytes}};
    CHECK(flatten(*out, &inputs) == bytes);
  }
}

TEST_CASE("constants go to segment 0: offsets[0] reserved, 16-byte aligned, no padding after the last") {
  Program p = arduino_add_model();
  auto& plan = p.execution_plan[0];
  // Three constants of 20, 4 and 7 bytes (int8 [7]); entry 3 shared by two values.
  plan.values[0] = EValue{constant(make_tensor(ir::ScalarType::Float, {5}), 1)};
  plan.values.push_back(EValue{constant(make_tensor(ir::ScalarType::Float, {}), 2)});
  plan.values.push_back(EValue{constant(make_tensor(ir::ScalarType::Char, {7}), 3)});
  plan.values.push_back(EValue{constant(make_tensor(ir::ScalarType::Byte, {7}), 3)});
  std::vector<uint8_t> c1 = float_bytes({1, 2, 3, 4, 5}), c2 = float_bytes({9}), c3 = {1, 2, 3, 4, 5, 6, 7};
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(c1), Chunk::from_bytes(c2), Chunk::from_bytes(c3)};
  auto out = serialize_program(p, data);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  const Program& written = out->program;
  REQUIRE(written.constant_segment.has_value());
  CHECK(written.constant_segment->segment_index == 0);
  CHECK(written.constant_segment->offsets == std::vector<uint64_t>{0, 0, 32, 48});
  CHECK(written.segments == std::vector<DataSegment>{{0, 55}});
  CHECK(written.constant_buffer.empty());

  std::string file = flatten(*out);
  DecodedPte d = decode_ok(file);
  CHECK(d.program == written);
  CHECK(d.info.segment_base_offset % 128 == 0);
  CHECK(d.info.segment_base_offset == out->layout.segment_base_offset);
  CHECK(d.info.program_size == out->layout.program_size);
  CHECK(file.size() == d.info.segment_base_offset + 55);
  std::vector<std::vector<uint8_t>> expected = {{}, c1, c2, c3};
  for (size_t k = 1; k < expected.size(); ++k) {
    uint64_t at = d.info.segment_base_offset + written.constant_segment->offsets[k];
    CHECK(at % 16 == 0);
    CHECK(file.substr(at, expected[k].size()) == std::string(expected[k].begin(), expected[k].end()));
  }
  // Padding between entries is zero.
  CHECK(file.substr(d.info.segment_base_offset + 20, 12) == std::string(12, '\0'));
  // The gap between program and segments is zero.
  CHECK(file.substr(d.info.program_size, d.info.segment_base_offset - d.info.program_size) ==
        std::string(d.info.segment_base_offset - d.info.program_size, '\0'));
}

TEST_CASE("a larger tensor alignment pads the header and aligns constants to it") {
  Program p = arduino_add_model();
  p.execution_plan[0].values.push_back(EValue{constant(make_tensor(ir::ScalarType::Float, {}), 2)});
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({1})), Chunk::from_bytes(float_bytes({2}))};
  SerializeOptions options;
  options.constant_tensor_alignment = 64;
  auto out = serialize_program(p, data, options);
  REQUIRE(out.ok());
  CHECK(out->layout.header_padded_length == 64);
  CHECK(out->program.constant_segment->offsets == std::vector<uint64_t>{0, 0, 64});
  std::string file = flatten(*out);
  const auto* bytes = reinterpret_cast<const uint8_t*>(file.data());
  CHECK(file.substr(8, 4) == "eh00");
  CHECK(read_u32_le(bytes + 12) == 32);
  CHECK(read_u64_le(bytes + 16) == out->layout.program_size);
  CHECK(out->layout.program_size == out->layout.flatbuffer_size + 64);
  CHECK(file.substr(40, 32) == std::string(32, '\0'));
  DecodedPte d = decode_ok(file);
  CHECK(d.program == out->program);
}

TEST_CASE("without constants there is no header and segment 0 is empty, like add.pte") {
  Program p = arduino_add_model();
  p.execution_plan[0].values[0] = EValue{Null{}};
  auto out = serialize_program(p, ProgramData{});
  REQUIRE(out.ok());
  CHECK(!out->layout.has_extended_header);
  CHECK(out->chunks.size() == 1);
  CHECK(out->program.segments == std::vector<DataSegment>{{0, 0}});
  CHECK(out->program.constant_segment->offsets == std::vector<uint64_t>{0});
  std::string file = flatten(*out);
  CHECK(file.substr(8, 4) != "eh00");
  DecodedPte d = decode_ok(file);
  CHECK(!d.info.extended_header.has_value());
  CHECK(d.program == out->program);
}

TEST_CASE("mutable data: one packed segment after the constants") {
  Program p = arduino_add_model();
  Tensor state = planned(make_tensor(ir::ScalarType::Float, {2}), 32);
  state.data_buffer_idx = 1;
  Tensor state2 = planned(make_tensor(ir::ScalarType::Char, {3}), 48);
  state2.data_buffer_idx = 2;
  p.execution_plan[0].values.push_back(EValue{state});
  p.execution_plan[0].values.push_back(EValue{state2});
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({1}))};
  data.mutable_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({5, 6})), Chunk::from_bytes({7, 8, 9})};
  auto out = serialize_program(p, data);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  REQUIRE(out->program.mutable_data_segments.has_value());
  CHECK(*out->program.mutable_data_segments == std::vector<SubsegmentOffsets>{{1, {0, 0, 8}}});
  CHECK(out->program.segments == std::vector<DataSegment>{{0, 4}, {128, 11}});
  std::string file = flatten(*out);
  DecodedPte d = decode_ok(file);
  CHECK(d.program == out->program);
  CHECK(file.substr(d.info.segment_base_offset + 128 + 8, 3) == "\x07\x08\x09");

  // Mutable data of no bytes (an empty buffer with --init-buffers): no
  // segment and no mutable_data_segments, as ExecuTorch's serializer writes it.
  data.mutable_buffer = {Chunk::zeros(0), Chunk::zeros(0)};
  p.execution_plan[0].values.resize(p.execution_plan[0].values.size() - 2);
  Tensor empty_state = planned(make_tensor(ir::ScalarType::Float, {0}), 32);
  empty_state.data_buffer_idx = 1;
  p.execution_plan[0].values.push_back(EValue{empty_state});
  auto empty = serialize_program(p, data);
  REQUIRE_MESSAGE(empty.ok(), empty.error().to_string());
  CHECK_FALSE(empty->program.mutable_data_segments.has_value());
  CHECK(empty->program.segments == std::vector<DataSegment>{{0, 4}});
}

TEST_CASE("delegate blobs move to segments once each, empty blobs stay inline") {
  Program p = arduino_add_model();
  CompileSpec spec{"max_value", {4, 0}};
  p.execution_plan[0].delegates = {BackendDelegate{"TestBackend", {DataLocation::Inline, 1}, {spec}},
                                   BackendDelegate{"EmptyBackend", {DataLocation::Inline, 0}, {}}};
  p.execution_plan[0].chains[0].instructions.push_back(Instruction{DelegateCall{0, {1, 2}}});
  ExecutionPlan second = p.execution_plan[0];
  second.name = "second";
  second.delegates = {BackendDelegate{"TestBackend", {DataLocation::Inline, 1}, {}}};
  p.execution_plan.push_back(second);
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({1}))};
  data.delegate_data = {Chunk::zeros(0), Chunk::from_bytes({1, 2, 3, 4, 5})};

  auto out = serialize_program(p, data);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  const Program& w = out->program;
  CHECK(w.segments == std::vector<DataSegment>{{0, 4}, {128, 5}});
  CHECK(w.execution_plan[0].delegates[0].processed == BackendDelegateDataReference{DataLocation::Segment, 1});
  CHECK(w.execution_plan[0].delegates[1].processed == BackendDelegateDataReference{DataLocation::Inline, 0});
  CHECK(w.execution_plan[1].delegates[0].processed == BackendDelegateDataReference{DataLocation::Segment, 1});
  CHECK(w.backend_delegate_data == std::vector<BackendDelegateInlineData>{{{}}});
  std::string file = flatten(*out);
  DecodedPte d = decode_ok(file);
  CHECK(d.program == w);
  CHECK(file.substr(d.info.segment_base_offset + 128, 5) == "\x01\x02\x03\x04\x05");

  // Not extracted: the blob stays inline, aligned to 16 inside the file.
  SerializeOptions inline_options;
  inline_options.extract_delegate_segments = false;
  auto kept = serialize_program(p, data, inline_options);
  REQUIRE(kept.ok());
  CHECK(kept->program.segments == std::vector<DataSegment>{{0, 4}});
  REQUIRE(kept->program.backend_delegate_data.size() == 2);
  CHECK(kept->program.backend_delegate_data[0].data == std::vector<uint8_t>{1, 2, 3, 4, 5});
  std::string inline_file = flatten(*kept);
  size_t at = inline_file.find(std::string("\x05\x00\x00\x00\x01\x02\x03\x04\x05", 9));
  REQUIRE(at != std::string::npos);
  CHECK((at + 4) % 16 == 0);
  CHECK(decode_ok(inline_file).program == kept->program);

  // An input range cannot be written inline.
  data.delegate_data[1] = Chunk::from_range("blob", 0, 5);
  auto bad = serialize_program(p, data, inline_options);
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  CHECK(bad.error().where.pointer == std::optional<std::string>("/execution_plan/0/delegates/0"));
}

TEST_CASE("named data: one segment per buffer with its alignment, keys in order") {
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({1}))};
  data.named_buffers = {NamedDataBuffer{Chunk::from_bytes({1, 2, 3}), 1},
                        NamedDataBuffer{Chunk::from_bytes({4, 5}), 256}};
  data.named_keys = {NamedDataKey{"b", 1}, NamedDataKey{"a", 0}, NamedDataKey{"a_copy", 1}};
  auto out = serialize_program(arduino_add_model(), data);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  CHECK(out->program.segments == std::vector<DataSegment>{{0, 4}, {128, 3}, {256, 2}});
  REQUIRE(out->program.named_data.has_value());
  CHECK(*out->program.named_data == std::vector<NamedData>{{"b", 2}, {"a", 1}, {"a_copy", 2}});
  DecodedPte d = decode_ok(flatten(*out));
  CHECK(d.program == out->program);
}

namespace {

// A program with every value kind, every instruction kind and the optional
// fields set.
Program rich_program() {
  Program p;
  ExecutionPlan plan;
  plan.name = "forward";
  plan.container_meta_type = {"T2#1#0(T1#1($),D0())", ""};
  Tensor big = planned(make_tensor(ir::ScalarType::BFloat16, {2, 3, 4}), (uint64_t{5} << 32) + 48);
  big.allocation_info->memory_id = 2;
  big.dim_order = {0, 2, 1};
  big.shape_dynamism = TensorShapeDynamism::DynamicBound;
  big.requires_grad = true;
  big.extra_tensor_info = ExtraTensorInfo{3, std::string("layer.weight"), TensorDataLocation::External,
                                          DeviceType::Cuda, 1};
  Tensor scalar = make_tensor(ir::ScalarType::Bool, {});
  Tensor c = constant(make_tensor(ir::ScalarType::Long, {2}), 1);
  plan.values = {
      EValue{Null{}},
      EValue{Int{-9007199254740993}},
      EValue{Bool{true}},
      EValue{Bool{false}},
      EValue{Double{-std::numeric_limits<double>::infinity()}},
      EValue{Double{0.1}},
      EValue{big},
      EValue{String{"torch.uint8"}},
      EValue{String{""}},
      EValue{IntList{{1, 2}}},
      EValue{DoubleList{{1.5, -2.25, std::numeric_limits<double>::infinity()}}},
      EValue{BoolList{{true, false, true}}},
      EValue{TensorList{{6, 12}}},
      EValue{OptionalTensorList{{6, 0}}},
      EValue{scalar},
      EValue{c},
      EValue{DoubleList{}},
      EValue{IntList{}},
  };
  plan.inputs = {6};
  plan.outputs = {12, 6};
  Chain chain;
  chain.instructions = {
      Instruction{KernelCall{0, {6, 1, 6}}},
      Instruction{KernelCall{1, {}}},
      Instruction{DelegateCall{0, {6, 14}}},
      Instruction{MoveCall{6, 14}},
      Instruction{JumpFalseCall{3, 5}},
      Instruction{FreeCall{14}},
  };
  chain.stacktrace = std::vector<FrameList>{FrameList{{Frame{"model.py", 12, "forward", "x + 1"}}}, FrameList{}};
  chain.inputs = {6};
  chain.outputs = {12};
  plan.chains = {chain};
  plan.operators = {Operator{"aten::add", "out"}, Operator{"aten::copy_", ""}};
  plan.delegates = {BackendDelegate{"XnnpackBackend", {DataLocation::Inline, 0}, {CompileSpec{"k", {0, 255}}}}};
  plan.non_const_buffer_sizes = {0, 64, int64_t{1} << 40};
  plan.non_const_buffer_device = std::vector<NonConstBufferDevice>{{1, DeviceType::Cpu, 0}, {2, DeviceType::Cuda, 3}};
  p.execution_plan.push_back(plan);
  ExecutionPlan getter;
  getter.name = "get_dim";
  getter.values = {EValue{Int{64}}};
  getter.outputs = {0};
  getter.chains = {Chain{}};
  getter.non_const_buffer_sizes = {0};
  p.execution_plan.push_back(getter);
  return p;
}

}  // namespace

TEST_CASE("round trip: decode(serialize(model)) gives the model back") {
  for (auto layout : {FlatbufferLayout::ObjectApi, FlatbufferLayout::FlatcJson}) {
    CAPTURE(static_cast<int>(layout));
    Program p = rich_program();
    ProgramData data;
    data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(std::vector<uint8_t>(16, 0xab))};
    data.delegate_data = {Chunk::from_bytes({9, 9, 9})};
    SerializeOptions options;
    options.flatbuffer_layout = layout;
    auto out = serialize_program(p, data, options);
    REQUIRE_MESSAGE(out.ok(), out.error().to_string());
    std::string file = flatten(*out);
    DecodedPte d = decode_ok(file);
    CHECK(d.program == out->program);

    // What the serializer owns differs from the input; the rest is the input.
    Program expected = p;
    expected.execution_plan[0].delegates[0].processed = {DataLocation::Segment, 1};
    expected.segments = {{0, 16}, {128, 3}};
    expected.constant_segment = SubsegmentOffsets{0, {0, 0}};
    CHECK(d.program == expected);

    // The 64-bit offset is split into low/high on the wire.
    std::string program_part = file.substr(0, static_cast<size_t>(d.info.program_size));
    std::vector<uint64_t> aligned((program_part.size() + 7) / 8);
    std::memcpy(aligned.data(), program_part.data(), program_part.size());
    const auto* fbp = executorch_flatbuffer::GetProgram(aligned.data());
    const auto* t = fbp->execution_plan()->Get(0)->values()->Get(6)->val_as_Tensor();
    REQUIRE(t != nullptr);
    CHECK(t->allocation_info()->memory_offset_low() == 48);
    CHECK(t->allocation_info()->memory_offset_high() == 5);

    // Deterministic: the same input gives the same chunks.
    auto again = serialize_program(p, data, options);
    REQUIRE(again.ok());
    CHECK(again->chunks == out->chunks);
  }
}

TEST_CASE("serializer errors are values with codes and pointers") {
  ProgramData data;
  data.constant_buffer = {Chunk::zeros(0), Chunk::from_bytes(float_bytes({1}))};

  SUBCASE("alignment not a power of two") {
    SerializeOptions options;
    options.segment_alignment = 96;
    auto r = serialize_program(arduino_add_model(), data, options);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::OPTION_INVALID);
  }
  SUBCASE("constant index out of range") {
    Program p = arduino_add_model();
    std::get<Tensor>(p.execution_plan[0].values[0].val).data_buffer_idx = 5;
    auto r = serialize_program(p, data);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::INTERNAL);
    CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/0"));
  }
  SUBCASE("constant shorter than its tensor") {
    Program p = arduino_add_model();
    std::get<Tensor>(p.execution_plan[0].values[0].val).sizes = {2};
    std::get<Tensor>(p.execution_plan[0].values[0].val).dim_order = {0};
    auto r = serialize_program(p, data);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::PAYLOAD_INVALID);
    CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/0"));
  }
  SUBCASE("scalar type the format cannot carry") {
    Program p = arduino_add_model();
    std::get<Tensor>(p.execution_plan[0].values[2].val).scalar_type = ir::ScalarType::ComplexFloat;
    auto r = serialize_program(p, data);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::UNSUPPORTED_FEATURE);
    CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/values/2"));
  }
  SUBCASE("layout fields already filled") {
    Program p = arduino_add_model();
    p.segments = {{0, 4}};
    auto r = serialize_program(p, data);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::INTERNAL);
    CHECK(r.error().where.pointer == std::optional<std::string>("/segments"));
  }
  SUBCASE("the deprecated inline constant_buffer is refused") {
    Program p = arduino_add_model();
    p.constant_buffer = {Buffer{}, Buffer{float_bytes({1})}};
    auto r = serialize_program(p, data);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::UNSUPPORTED_FEATURE);
  }
  SUBCASE("constant entry 0 must be empty") {
    ProgramData bad = data;
    bad.constant_buffer[0] = Chunk::from_bytes({1});
    auto r = serialize_program(arduino_add_model(), bad);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::INTERNAL);
  }
  SUBCASE("delegate index out of range") {
    Program p = arduino_add_model();
    p.execution_plan[0].delegates = {BackendDelegate{"B", {DataLocation::Inline, 3}, {}}};
    auto r = serialize_program(p, data);
    REQUIRE(!r.ok());
    CHECK(r.error().code == ErrorCode::INTERNAL);
    CHECK(r.error().where.pointer == std::optional<std::string>("/execution_plan/0/delegates/0"));
  }
}

TEST_CASE("the framed flatbuffer is the flatbuffer with the header inserted after byte 8, zero-padded") {
  Program p = arduino_add_model();
  p.constant_segment = SubsegmentOffsets{0, {0, 0}};
  p.segments = {DataSegment{0, 4}};
  auto plain = build_program_flatbuffer(p);
  REQUIRE(plain.ok());
  const std::vector<uint8_t> header_bytes(32, 0xAB);
  uint64_t seen_size = 0;
  FlatbufferFraming framing;
  framing.header = [&](uint64_t flatbuffer_size) {
    seen_size = flatbuffer_size;
    return header_bytes;
  };
  framing.pad_to = 128;
  auto framed = build_framed_program_flatbuffer(p, {}, framing);
  REQUIRE_MESSAGE(framed.ok(), framed.error().to_string());
  CHECK(seen_size == plain->size());
  CHECK(framed->flatbuffer_size == plain->size());
  auto inserted = insert_extended_header(*plain, header_bytes);
  REQUIRE(inserted.ok());
  std::vector<uint8_t> expected = *inserted;
  expected.resize((expected.size() + 127) / 128 * 128, 0);
  CHECK(framed->bytes.size() % 128 == 0);
  CHECK(framed->bytes.size() > plain->size() + 32);
  CHECK(framed->bytes == expected);
  // Root offset: the flatbuffer's own plus the header's 32 bytes.
  CHECK(read_u32_le(framed->bytes.data()) == read_u32_le(plain->data()) + 32);

  // Without a header: the plain flatbuffer, unpadded.
  auto unframed = build_framed_program_flatbuffer(p, {}, FlatbufferFraming{});
  REQUIRE(unframed.ok());
  CHECK(unframed->bytes == *plain);
  CHECK(unframed->flatbuffer_size == plain->size());
}
