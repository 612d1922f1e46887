// The method-load checks (emit/pte_load_check.h): every reference file and
// every corrupted variant of one, with the exact problems the runtime's
// Program::load / Method::init would stop at.
#include "emit/pte_load_check.h"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "emit/pte_decode.h"
#include "emit/pte_writer.h"
#include "pte_test_util.h"
#include "schema/program_generated.h"

using namespace pteforge;
using namespace pteforge::emit;
using namespace pteforge::emit::testing;

namespace {

/// arduino_add_model.pte (§7.1: values 0 constant 1.0, 1 x [3] @16, 2 out [3]
/// @0, 3 Int alpha; one add.out(1, 0, 3, 2, 2); buffers {0, 32}) with `edit`
/// applied to its program, written again with its segments and decoded.
/// decode_pte with the load checks.
Result<DecodedPte> decode_checked(const std::string& bytes) {
  DecodeOptions options;
  options.check_load = true;
  return decode_pte(bytes, options);
}

/// Reference file `name` with `edit` applied to its program, written again
/// with its segments.
std::string edited_reference(const std::string& name, const std::function<void(Program&)>& edit) {
  const std::string ref = read_file(reference_path(name));
  auto d = decode_pte(ref);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  Program p = d->program;
  edit(p);
  auto out = assemble_pte(p, segments_of(*d, "ref"));
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  const std::vector<std::pair<std::string, std::string>> inputs = {{"ref", ref}};
  auto flat = flatten_chunks(out->chunks, memory_reader(&inputs));
  REQUIRE_MESSAGE(flat.ok(), flat.error().to_string());
  return to_string(*flat);
}

std::vector<LoadProblem> problems_after(const std::function<void(Program&)>& edit) {
  auto again = decode_checked(edited_reference("arduino_add_model.pte", edit));
  REQUIRE_MESSAGE(again.ok(), again.error().to_string());
  CHECK(again->load_check.total == again->load_check.problems.size());
  return again->load_check.problems;
}

Tensor& tensor(Program& p, size_t value) { return std::get<Tensor>(p.execution_plan[0].values[value].val); }
KernelCall& add_call(Program& p) {
  return std::get<KernelCall>(p.execution_plan[0].chains[0].instructions[0].instr_args);
}

std::string describe(const std::vector<LoadProblem>& problems) {
  std::string s;
  for (const LoadProblem& p : problems) s += p.pointer + ": " + p.message + "\n";
  return s;
}

}  // namespace

TEST_CASE("every reference file made by ExecuTorch passes the load check") {
  for (const char* name : {"add.pte", "arduino_add_model.pte", "arduino_keyword_spotting.pte",
                           "module_linear_no_constant_segment.pte", "stories260k_hybrid_llama_qnn.pte"}) {
    auto d = decode_checked(read_file(reference_path(name)));
    REQUIRE_MESSAGE(d.ok(), d.error().to_string());
    CHECK_MESSAGE(d->load_check.total == 0, name << ":\n" << describe(d->load_check.problems));
  }
  CHECK(problems_after([](Program&) {}).empty());  // the round trip itself changes nothing
}

TEST_CASE("planned tensors must fit their buffer") {
  auto offset = problems_after([](Program& p) { tensor(p, 2).allocation_info->memory_offset = 24; });
  CHECK(offset == std::vector<LoadProblem>{{"/execution_plan/0/values/2/val/allocation_info",
                                            "12 bytes at offset 24 do not fit planned buffer 1 (32 bytes)"}});
  auto id = problems_after([](Program& p) { tensor(p, 1).allocation_info->memory_id = 2; });
  CHECK(id ==
        std::vector<LoadProblem>{
            {"/execution_plan/0/values/1/val/allocation_info/memory_id",
             "memory_id 2 names no planned buffer (non_const_buffer_sizes has 2 entries: the planned buffer "
             "is id 1)"}});
  auto reserved = problems_after([](Program& p) {
    tensor(p, 1).allocation_info->memory_id = 0;
    p.execution_plan[0].non_const_buffer_sizes = {0, 32, 64};
  });
  CHECK(reserved ==
        std::vector<LoadProblem>{
            {"/execution_plan/0/values/1/val/allocation_info/memory_id",
             "memory_id 0 names no planned buffer (non_const_buffer_sizes has 3 entries: the planned "
             "buffers are ids 1 to 2)"}});
  // A 64-bit offset (memory_offset_high) past a small buffer.
  auto high =
      problems_after([](Program& p) { tensor(p, 2).allocation_info->memory_offset = uint64_t{1} << 32; });
  CHECK(high ==
        std::vector<LoadProblem>{{"/execution_plan/0/values/2/val/allocation_info",
                                  "12 bytes at offset 4294967296 do not fit planned buffer 1 (32 bytes)"}});
  // An EXTERNAL tensor with a placement is loaded from the .ptd into its planned
  // memory (getTensorDataPtr's external branch), which must fit as well.
  auto external = problems_after([](Program& p) {
    Tensor& t = tensor(p, 2);
    t.allocation_info->memory_offset = 24;
    ExtraTensorInfo info;
    info.location = TensorDataLocation::External;
    info.fully_qualified_name = "out";
    t.extra_tensor_info = info;
  });
  CHECK(external ==
        std::vector<LoadProblem>{{"/execution_plan/0/values/2/val/allocation_info",
                                  "12 bytes at offset 24 do not fit planned buffer 1 (32 bytes)"}});
}

TEST_CASE("constants must name an entry of the constant segment and fit in it") {
  auto index = problems_after([](Program& p) { tensor(p, 0).data_buffer_idx = 5; });
  CHECK(index == std::vector<LoadProblem>{{"/execution_plan/0/values/0/val/data_buffer_idx",
                                           "constant 5 is not in constant_segment.offsets (2 entries)"}});
  // The 1.0 constant grown to 64 floats: 256 bytes at offset 0 of a 4-byte segment (padding not counted).
  auto size = problems_after([](Program& p) {
    tensor(p, 0).sizes = {64};
    tensor(p, 0).dim_order = {0};
  });
  REQUIRE(size.size() == 1);
  CHECK(size[0].pointer == "/execution_plan/0/values/0/val/data_buffer_idx");
  CHECK(size[0].message.rfind("constant 1: 256 bytes at offset 0 run past the ", 0) == 0);
}

TEST_CASE("tensor metadata the runtime refuses") {
  auto dims = problems_after([](Program& p) { tensor(p, 1).dim_order = {1}; });
  CHECK(dims == std::vector<LoadProblem>{
                    {"/execution_plan/0/values/1/val/dim_order", "is not a permutation of 0..0"}});
  auto length = problems_after([](Program& p) { tensor(p, 1).dim_order = {0, 1}; });
  CHECK(length == std::vector<LoadProblem>{
                      {"/execution_plan/0/values/1/val/dim_order", "has 2 entries for a rank-1 tensor"}});
  auto rank = problems_after([](Program& p) {
    tensor(p, 1).sizes.assign(17, 1);
    tensor(p, 1).dim_order.resize(17);
    for (size_t i = 0; i < 17; ++i) tensor(p, 1).dim_order[i] = static_cast<uint8_t>(i);
  });
  CHECK(rank == std::vector<LoadProblem>{
                    {"/execution_plan/0/values/1/val/sizes", "rank 17 is above the runtime's limit of 16"}});
  auto negative = problems_after([](Program& p) { tensor(p, 2).sizes = {-3}; });
  CHECK(negative == std::vector<LoadProblem>{{"/execution_plan/0/values/2/val/sizes/0", "negative size -3"}});
  auto offset = problems_after([](Program& p) {
    tensor(p, 1).storage_offset = 2;
    tensor(p, 1).shape_dynamism = TensorShapeDynamism::DynamicUnbound;
  });
  CHECK(offset == std::vector<LoadProblem>{
                      {"/execution_plan/0/values/1/val/storage_offset", "is 2; the runtime supports only 0"},
                      {"/execution_plan/0/values/1/val/shape_dynamism",
                       "DYNAMIC_UNBOUND: the runtime does not support unbounded shapes"}});
}

TEST_CASE("value references: plan inputs, instruction arguments, operators, lists") {
  auto io = problems_after([](Program& p) {
    p.execution_plan[0].inputs = {7};
    add_call(p).args[1] = 9;
    add_call(p).op_index = 3;
  });
  CHECK(io == std::vector<LoadProblem>{
                  {"/execution_plan/0/inputs/0", "input 7 names no value (the method has 4 values)", true},
                  {"/execution_plan/0/chains/0/instructions/0/instr_args/op_index",
                   "op_index 3 names no operator (the method has 1 operator)"},
                  {"/execution_plan/0/chains/0/instructions/0/instr_args/args/1",
                   "argument 9 names no value (the method has 4 values)"}});
  auto lists = problems_after([](Program& p) {
    auto& values = p.execution_plan[0].values;
    values.push_back(EValue{IntList{{3, 1}}});              // 4: Int, then a Tensor
    values.push_back(EValue{TensorList{{1, 6}}});           // 5: a later value
    values.push_back(EValue{OptionalTensorList{{-1, 3}}});  // 6: an Int
  });
  CHECK(lists == std::vector<LoadProblem>{
                     {"/execution_plan/0/values/4/val/items/1",
                      "IntList item 1 is a Tensor value; the runtime reads each item as an Int", true},
                     {"/execution_plan/0/values/5/val/items/1",
                      "TensorList item 6 is an OptionalTensorList value; a Tensor expected"},
                     {"/execution_plan/0/values/6/val/items/1",
                      "OptionalTensorList item 3 is an Int value; a Tensor, a Null or -1 expected"}});
  auto later = problems_after([](Program& p) {
    auto& values = p.execution_plan[0].values;
    values.insert(values.begin(),
                  EValue{TensorList{{2}}});  // refers to x, now value 2, parsed after the list
    p.execution_plan[0].inputs = {2};
    p.execution_plan[0].outputs = {3};
    add_call(p).args = {2, 1, 4, 3, 3};
  });
  CHECK(later ==
        std::vector<LoadProblem>{
            {"/execution_plan/0/values/0/val/items/0",
             "TensorList item 2 comes after the list; the runtime reads list items while it parses the "
             "values in order"}});
}

TEST_CASE("control instructions: a JumpFalse on a non-bool, a free of a non-tensor, a move past the values") {
  auto control = problems_after([](Program& p) {
    auto& ins = p.execution_plan[0].chains[0].instructions;
    ins.push_back(Instruction{JumpFalseCall{3, 0}});
    ins.push_back(Instruction{FreeCall{3}});
    ins.push_back(Instruction{MoveCall{1, 4}});
  });
  CHECK(control ==
        std::vector<LoadProblem>{{"/execution_plan/0/chains/0/instructions/1/instr_args/cond_value_index",
                                  "condition 3 is an Int value; a Bool or a bool tensor expected", true},
                                 {"/execution_plan/0/chains/0/instructions/2/instr_args/value_index",
                                  "freed value 3 is an Int value; only tensors are freed", true},
                                 {"/execution_plan/0/chains/0/instructions/3/instr_args/move_to",
                                  "move target 4 names no value (the method has 4 values)"}});
}

/// A one-plan program built with the generated API: operators named by
/// `names` ("name.overload" split at the first '.'), one chain calling
/// operator `called` when it is >= 0 (no chain otherwise), and no name,
/// values, inputs, outputs, non_const_buffer_sizes or delegates.
std::string bare_plan(const std::vector<std::string>& names, int called) {
  namespace fb = executorch_flatbuffer;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Operator>> ops;
  for (const std::string& n : names) {
    const size_t dot = n.find('.');
    ops.push_back(
        fb::CreateOperator(fbb, fbb.CreateString(n.substr(0, dot)), fbb.CreateString(n.substr(dot + 1))));
  }
  auto op_vec = fbb.CreateVector(ops);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Chain>>> chain_vec;
  if (called >= 0) {
    std::vector<int32_t> no_args;
    auto call = fb::CreateKernelCallDirect(fbb, called, &no_args);
    std::vector<flatbuffers::Offset<fb::Instruction>> ins = {
        fb::CreateInstruction(fbb, fb::InstructionArguments::KernelCall, call.Union())};
    std::vector<flatbuffers::Offset<fb::Chain>> chains = {fb::CreateChainDirect(fbb, nullptr, nullptr, &ins)};
    chain_vec = fbb.CreateVector(chains);
  }
  fb::ExecutionPlanBuilder plan(fbb);
  plan.add_operators(op_vec);
  if (called >= 0) plan.add_chains(chain_vec);
  auto plan_off = plan.Finish();
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans = {plan_off};
  auto plan_vec = fbb.CreateVector(plans);
  fb::ProgramBuilder pb(fbb);
  pb.add_execution_plan(plan_vec);
  fb::FinishProgramBuffer(fbb, pb.Finish());
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

TEST_CASE("a plan without the fields the runtime needs, built with the generated API") {
  const std::string long_name = std::string(60, 'a') + "." + std::string(40, 'b');  // 101 bytes
  const std::vector<LoadProblem> missing = {
      {"/execution_plan/0/name", "missing: methods are loaded by name"},
      {"/execution_plan/0/values", "missing (Method::init needs the values vector, even empty)"},
      {"/execution_plan/0/inputs", "missing (MethodMeta needs the inputs vector, even empty)"},
      {"/execution_plan/0/outputs", "missing (MethodMeta needs the outputs vector, even empty)"},
      {"/execution_plan/0/non_const_buffer_sizes",
       "missing (MethodMeta needs it, {0} when nothing is planned)"},
      {"/execution_plan/0/delegates", "missing (Method::init needs the delegates vector, even empty)"}};
  auto none = decode_checked(bare_plan({long_name}, -1));
  REQUIRE_MESSAGE(none.ok(), none.error().to_string());
  std::vector<LoadProblem> expected = missing;
  expected.push_back(
      {"/execution_plan/0/chains", "no chains: a method needs at least one chain of instructions"});
  CHECK(none->load_check.problems == expected);  // the uncalled operator's name is never read
  // Called, the operator's name must fit the runtime's 100-byte buffer.
  auto called = decode_checked(bare_plan({"aten::add.out", long_name}, 1));
  REQUIRE_MESSAGE(called.ok(), called.error().to_string());
  expected = missing;
  expected.push_back(
      {"/execution_plan/0/operators/1",
       "operator name '" + long_name + "' is 101 bytes; the runtime resolves names of at most 99"});
  CHECK(called->load_check.problems == expected);
}

TEST_CASE("packed and bit types take one byte per element, as the runtime counts them") {
  // x (value 1) as QUInt4x2 [3] planned at offset 16 of a 32-byte buffer: 3 bytes fit;
  // [17]: 17 bytes at 16 do not.
  auto fits = problems_after([](Program& p) { tensor(p, 1).scalar_type = ir::ScalarType::QUInt4x2; });
  CHECK(fits.empty());
  auto over = problems_after([](Program& p) {
    tensor(p, 1).scalar_type = ir::ScalarType::QUInt4x2;
    tensor(p, 1).sizes = {17};
  });
  CHECK(over == std::vector<LoadProblem>{{"/execution_plan/0/values/1/val/allocation_info",
                                          "17 bytes at offset 16 do not fit planned buffer 1 (32 bytes)"}});
}

TEST_CASE("a file with millions of problems keeps the first 100 and counts the rest") {
  const std::string bytes =
      edited_reference("arduino_add_model.pte", [](Program& p) { add_call(p).args.assign(5000, 9); });
  auto checked = decode_checked(bytes);  // 5,000 arguments naming no value
  REQUIRE(checked.ok());
  CHECK(checked->load_check.total == 5000);
  REQUIRE(checked->load_check.problems.size() == 100);
  CHECK(checked->load_check.problems[99].pointer ==
        "/execution_plan/0/chains/0/instructions/0/instr_args/args/99");
  // Without check_load, decoding makes no checks.
  auto plain = decode_pte(bytes);
  REQUIRE(plain.ok());
  CHECK(plain->load_check.total == 0);
}

TEST_CASE("a constant segment holding only its placeholder offset is no constant layout") {
  // Program::load uses the segment only when constant_segment.offsets has
  // more than the placeholder 0; inline constants beside it are the layout.
  const std::string bytes = edited_reference("module_linear_no_constant_segment.pte", [](Program& p) {
    REQUIRE_FALSE(p.constant_buffer.empty());
    p.constant_segment = SubsegmentOffsets{0, {0}};
  });
  auto checked = decode_checked(bytes);
  REQUIRE_MESSAGE(checked.ok(), checked.error().to_string());
  CHECK(checked->load_check.total == 0);
}

TEST_CASE("an empty constant segment gives no data through the file loaders") {
  // The 1.0 constant made an empty tensor, its segment 0 bytes: offsets [0, 0]
  // (as ExecuTorch's serializer writes them). FileDataLoader and
  // MmapDataLoader load a 0-byte segment as no data, and
  // get_constant_buffer_data then looks in the (empty) constant_buffer.
  const std::string ref = read_file(reference_path("arduino_add_model.pte"));
  auto d = decode_pte(ref);
  REQUIRE(d.ok());
  Program p = d->program;
  tensor(p, 0).sizes = {0};
  tensor(p, 0).dim_order = {0};
  p.constant_segment = SubsegmentOffsets{0, {0, 0}};
  std::vector<SegmentPayload> segments(1);  // one segment, no bytes
  auto out = assemble_pte(p, segments);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  auto flat = flatten_chunks(out->chunks, memory_reader(nullptr));
  REQUIRE_MESSAGE(flat.ok(), flat.error().to_string());
  auto checked = decode_checked(to_string(*flat));
  REQUIRE_MESSAGE(checked.ok(), checked.error().to_string());
  const std::vector<LoadProblem> want = {
      {"/execution_plan/0/values/0/val/data_buffer_idx",
       "constant 1: the constant segment is empty (0 bytes), which ExecuTorch's file and mmap loaders load "
       "as no "
       "data, so the runtime looks for the constant in constant_buffer (0 entries) and fails; only a buffer "
       "loader would load it"}};
  CHECK_MESSAGE(checked->load_check.problems == want, describe(checked->load_check.problems));
}

TEST_CASE("an inline constant without a storage vector is read through a null pointer") {
  std::string bytes = read_file(reference_path("module_linear_no_constant_segment.pte"));
  REQUIRE(decode_checked(bytes)->load_check.total == 0);
  // Drop the storage field of constant_buffer[1] from its vtable (shared
  // vtables: every Buffer loses it; only the constants used are checked).
  const auto* program = executorch_flatbuffer::GetProgram(bytes.data());
  const auto* buffer = program->constant_buffer()->Get(1);
  REQUIRE(buffer->storage() != nullptr);
  const uint8_t* table = reinterpret_cast<const uint8_t*>(buffer);
  const uint8_t* vtable = table - flatbuffers::ReadScalar<flatbuffers::soffset_t>(table);
  REQUIRE(flatbuffers::ReadScalar<uint16_t>(vtable) >= 6);  // has the storage slot
  flatbuffers::WriteScalar<uint16_t>(const_cast<uint8_t*>(vtable) + 4, 0);
  REQUIRE(buffer->storage() == nullptr);
  auto checked = decode_checked(bytes);
  REQUIRE_MESSAGE(checked.ok(), checked.error().to_string());
  REQUIRE_FALSE(checked->load_check.problems.empty());
  CHECK(checked->load_check.problems[0].message ==
        "inline constant 1 has no storage vector: the runtime would read its data through a null pointer");
}

TEST_CASE("a constant offset past its segment is a layout problem, and a load problem only when used") {
  // Offset 2 names 100 bytes past the 4-byte segment; no tensor uses it.
  auto unused = decode_checked(edited_reference("arduino_add_model.pte", [](Program& p) {
    p.constant_segment = SubsegmentOffsets{0, {0, 0, 100}};
  }));
  REQUIRE_MESSAGE(unused.ok(), unused.error().to_string());
  CHECK(unused->layout_problems ==
        std::vector<LoadProblem>{{"/constant_segment/offsets/2",
                                  "offset 100 is past the end of segment 0 (4 bytes); the runtime refuses it "
                                  "only for a tensor that uses it"}});
  CHECK(unused->load_check.total == 0);
  // The 1.0 constant moved there: its method would not load.
  auto used = decode_checked(edited_reference("arduino_add_model.pte", [](Program& p) {
    p.constant_segment = SubsegmentOffsets{0, {0, 100}};
  }));
  REQUIRE_MESSAGE(used.ok(), used.error().to_string());
  CHECK(used->layout_problems.size() == 1);
  CHECK(used->load_check.problems ==
        std::vector<LoadProblem>{{"/execution_plan/0/values/0/val/data_buffer_idx",
                                  "constant 1: 4 bytes at offset 100 run past the 4-byte constant segment"}});
}

TEST_CASE("a dim-order copy whose out tensor has another dim order than it is asked for (when it runs)") {
  // add.out(1, 0, 3, 2, 2) becomes _clone_dim_order.out(1, false, [0], 2, 2)
  // on the [3] tensors (dim order [0]); then the list asks for [1], which the
  // portable kernel refuses for out (check__to_dim_order_copy_args).
  auto clone = [](int64_t asked) {
    return [asked](Program& p) {
      p.execution_plan[0].operators[0] = Operator{"dim_order_ops::_clone_dim_order", "out"};
      auto& values = p.execution_plan[0].values;
      values.push_back(EValue{Bool{false}});   // 4
      values.push_back(EValue{Int{asked}});    // 5
      values.push_back(EValue{IntList{{5}}});  // 6
      add_call(p).args = {1, 4, 6, 2, 2};
    };
  };
  CHECK(problems_after(clone(0)).empty());
  CHECK(problems_after(clone(1)) ==
        std::vector<LoadProblem>{
            {"/execution_plan/0/chains/0/instructions/0/instr_args/args/3",
             "dim_order_ops::_clone_dim_order.out writes value 2, whose dim_order is [0], but is "
             "asked for dim_order [1] (value 6); the portable kernel refuses an out tensor of "
             "another dim order",
             true}});
}
