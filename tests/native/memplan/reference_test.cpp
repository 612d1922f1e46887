// Greedy and naive reproduce the memory plans of the reference .pte files
// (executorch-pipeline.md §6.4, §7). Sizes and expected offsets are read from
// the flatc JSON decodings in tests/data/reference/pte; lifetimes come from the
// node lists of §7, simulated with GraphSim.

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "graph_sim.h"
#include "passes/memory_plan/check.h"
#include "passes/memory_plan/memory_plan.h"

using namespace pteforge;
using namespace pteforge::memplan;
using memplan_test::GraphSim;

namespace {

struct RefTensor {
  uint64_t nbytes = 0;
  uint32_t memory_id = 0;
  uint64_t offset = 0;
};

struct RefPlan {
  std::map<uint64_t, RefTensor> planned;  // value index → tensor with allocation_info
  std::vector<uint64_t> buffer_sizes;
};

uint64_t element_size(const std::string& scalar_type) {
  if (scalar_type == "FLOAT" || scalar_type == "INT") return 4;
  if (scalar_type == "CHAR" || scalar_type == "BYTE" || scalar_type == "BOOL") return 1;
  if (scalar_type == "LONG" || scalar_type == "DOUBLE") return 8;
  FAIL("scalar type not handled by this test: " << scalar_type);
  return 0;
}

RefPlan read_reference(const std::string& name) {
  const std::string path = std::string(PTEFORGE_TEST_DATA_DIR) + "/data/reference/pte/" + name + ".json";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  const auto& plan = doc["execution_plan"][0];
  RefPlan ref;
  for (const auto& s : plan["non_const_buffer_sizes"].GetArray()) ref.buffer_sizes.push_back(s.GetUint64());
  const auto& values = plan["values"].GetArray();
  for (rapidjson::SizeType i = 0; i < values.Size(); ++i) {
    const auto& v = values[i];
    if (std::string(v["val_type"].GetString()) != "Tensor") continue;
    const auto& t = v["val"];
    if (!t.HasMember("allocation_info")) continue;
    RefTensor r;
    // An absent scalar_type is the enum default, BYTE.
    r.nbytes = element_size(t.HasMember("scalar_type") ? t["scalar_type"].GetString() : "BYTE");
    for (const auto& d : t["sizes"].GetArray()) r.nbytes *= d.GetUint64();
    const auto& a = t["allocation_info"];
    r.memory_id = a["memory_id"].GetUint();
    const uint64_t low = a.HasMember("memory_offset_low") ? a["memory_offset_low"].GetUint64() : 0;
    const uint64_t high = a.HasMember("memory_offset_high") ? a["memory_offset_high"].GetUint64() : 0;
    r.offset = low | (high << 32);
    ref.planned[i] = r;
  }
  return ref;
}

// Builds the tensors for the listed value indices with sizes from the reference.
struct RefGraph {
  GraphSim g;
  std::map<uint64_t, size_t> tensor_of;  // value index → tensor index (views map to their base)
  const RefPlan& ref;
  explicit RefGraph(const RefPlan& r) : ref(r) {}
  size_t add(uint64_t value) {
    REQUIRE(ref.planned.count(value) == 1);
    const size_t t = g.tensor(value, ref.planned.at(value).nbytes);
    tensor_of[value] = t;
    return t;
  }
  std::vector<size_t> ts(const std::vector<uint64_t>& values) {
    std::vector<size_t> out;
    for (uint64_t v : values) out.push_back(tensor_of.at(v));
    return out;
  }
  // An out-variant op: allocs for `outs` (one node each), then the op node.
  void op(const std::vector<uint64_t>& inputs, const std::vector<uint64_t>& outs) {
    std::vector<size_t> created;
    for (uint64_t v : outs) {
      created.push_back(add(v));
      g.node({created.back()});
    }
    std::vector<size_t> uses = ts(inputs);
    uses.insert(uses.end(), created.begin(), created.end());
    g.node(uses);
  }
};

void expect_matches_reference(const RefGraph& rg, const MemoryPlan& plan) {
  CHECK(plan.buffer_sizes == rg.ref.buffer_sizes);
  for (const auto& [key, r] : rg.ref.planned) {
    const auto value = key;  // CAPTURE's lambda cannot capture a structured binding under clang 14
    CAPTURE(value);
    const size_t t = rg.tensor_of.at(value);
    CHECK(plan.placements[t].mem_id == r.memory_id);
    CHECK(plan.placements[t].offset == r.offset);
  }
}

}  // namespace

TEST_CASE("reference: §6.4 worked trace (arduino_add_model)") {
  const RefPlan ref = read_reference("arduino_add_model");
  RefGraph rg(ref);
  rg.g.skip(1);                   // 0: lifted constant placeholder
  rg.g.placeholder(rg.add(1));    // 1: x
  rg.op({1}, {2});                // 2: alloc, 3: add.out
  rg.g.node(rg.ts({2}));          // 4: output
  const auto& ts = rg.g.tensors();
  CHECK(ts[0].first_use == 0);
  CHECK(ts[0].last_use == 3);
  CHECK(ts[1].first_use == 2);
  CHECK(ts[1].last_use == 4);

  Result<MemoryPlan> plan = plan_greedy(ts, PlanOptions{});
  REQUIRE(plan.ok());
  expect_matches_reference(rg, *plan);
  // The trace itself: out creates object 0, x cannot stack (16 + 16 > 16) and opens object 1.
  CHECK(plan->placements[1].offset == 0);
  CHECK(plan->placements[1].mem_obj_id == 0u);
  CHECK(plan->placements[0].offset == 16);
  CHECK(plan->placements[0].mem_obj_id == 1u);
  CHECK(plan->buffer_sizes == std::vector<uint64_t>{0, 32});
  CHECK(check_plan(ts, *plan, PlanOptions{}).ok());
}

TEST_CASE("reference: module_linear_no_constant_segment (§7.3)") {
  const RefPlan ref = read_reference("module_linear_no_constant_segment");
  RefGraph rg(ref);
  rg.g.skip(2);                  // a, b
  rg.g.placeholder(rg.add(2));   // x at node 2
  rg.op({2}, {3});               // alloc 3, mul 4
  rg.op({3}, {4});               // alloc 5, add 6
  rg.g.node(rg.ts({4}));         // output 7
  const auto& ts = rg.g.tensors();
  CHECK(ts[0].last_use == 4);
  CHECK(ts[1].first_use == 3);
  CHECK(ts[1].last_use == 6);
  CHECK(ts[2].first_use == 5);
  CHECK(ts[2].last_use == 7);
  Result<MemoryPlan> plan = plan_greedy(ts, PlanOptions{});
  REQUIRE(plan.ok());
  expect_matches_reference(rg, *plan);
  CHECK(ref.planned.at(2).offset == 0);  // x=0, t1=16, t2=0, size 32 (§7.3)
  CHECK(ref.planned.at(3).offset == 16);
  CHECK(ref.buffer_sizes == std::vector<uint64_t>{0, 32});
}

TEST_CASE("reference: add.pte (older toolchain) equals naive - current greedy places out=0 - y=16 - x=32") {
  const RefPlan ref = read_reference("add");
  RefGraph rg(ref);
  rg.g.placeholder(rg.add(0));  // x
  rg.g.placeholder(rg.add(1));  // y
  rg.op({0, 1}, {2});
  rg.g.node(rg.ts({2}));
  const auto& ts = rg.g.tensors();
  Result<MemoryPlan> naive = plan_naive(ts, PlanOptions{});
  REQUIRE(naive.ok());
  expect_matches_reference(rg, *naive);
  Result<MemoryPlan> greedy = plan_greedy(ts, PlanOptions{});
  REQUIRE(greedy.ok());
  CHECK(greedy->placements[2].offset == 0);
  CHECK(greedy->placements[1].offset == 16);
  CHECK(greedy->placements[0].offset == 32);
  CHECK(greedy->buffer_sizes == std::vector<uint64_t>{0, 48});
}

namespace {

// arduino_keyword_spotting (§7.4): 83 constant placeholders, the input, then 16
// kernel calls (allocs before each op), the elided view 271 of 257, the output.
RefGraph build_kws(const RefPlan& ref) {
  RefGraph rg(ref);
  rg.g.skip(83);
  rg.g.placeholder(rg.add(83));        // node 83
  rg.op({83}, {84});                   // [0] quantize: alloc 84, op 85
  rg.op({84}, {90, 91});               // [1] depthwise conv: scratch 90, out 91, op 88
  rg.op({91}, {106});                  // [2] clone
  rg.op({106}, {113, 114});            // [3]..[10] conv / depthwise conv
  rg.op({114}, {129, 130});
  rg.op({130}, {144, 145});
  rg.op({145}, {160, 161});
  rg.op({161}, {175, 176});
  rg.op({176}, {191, 192});
  rg.op({192}, {206, 207});
  rg.op({207}, {222, 223});
  rg.op({223}, {237});                 // [11] clone
  rg.op({237}, {244});                 // [12] pad
  rg.op({244}, {256, 257});            // [13] avg pool: scratch 256, out 257
  rg.g.node(rg.ts({257}));             // 122: memory.view 271 of 257 (same spec)
  rg.tensor_of[271] = rg.tensor_of.at(257);
  rg.op({271}, {272});                 // [14] linear
  rg.op({272}, {283});                 // [15] dequantize
  rg.g.node(rg.ts({283}));             // 127: output
  return rg;
}

}  // namespace

TEST_CASE("reference: arduino_keyword_spotting greedy plan (§7.4)") {
  const RefPlan ref = read_reference("arduino_keyword_spotting");
  RefGraph rg = build_kws(ref);
  const auto& ts = rg.g.tensors();
  REQUIRE(rg.g.node_count() == 128);
  auto life = [&](uint64_t v) {
    const auto& t = ts[rg.tensor_of.at(v)];
    return std::make_pair(t.first_use, t.last_use);
  };
  // Lifetimes stated in §7.4.
  CHECK(life(83) == std::make_pair<int64_t, int64_t>(0, 85));
  CHECK(life(84) == std::make_pair<int64_t, int64_t>(84, 88));
  CHECK(life(90) == std::make_pair<int64_t, int64_t>(86, 88));
  CHECK(life(91) == std::make_pair<int64_t, int64_t>(87, 90));
  CHECK(life(106) == std::make_pair<int64_t, int64_t>(89, 93));
  CHECK(life(237) == std::make_pair<int64_t, int64_t>(115, 118));
  CHECK(life(244) == std::make_pair<int64_t, int64_t>(117, 121));
  CHECK(life(256) == std::make_pair<int64_t, int64_t>(119, 121));
  CHECK(life(257) == std::make_pair<int64_t, int64_t>(120, 124));
  CHECK(life(272) == std::make_pair<int64_t, int64_t>(123, 126));
  CHECK(life(283) == std::make_pair<int64_t, int64_t>(125, 127));

  Result<MemoryPlan> plan = plan_greedy(ts, PlanOptions{});
  REQUIRE(plan.ok());
  expect_matches_reference(rg, *plan);  // every offset of the 29 planned values, and [0, 16000]
  CHECK(plan->buffer_sizes == std::vector<uint64_t>{0, 16000});
  CHECK(check_plan(ts, *plan, PlanOptions{}).ok());
  // Objects: 8000-byte object 0 at 0 and object 1 at 8000.
  CHECK(plan->placements[rg.tensor_of.at(244)].mem_obj_id == 0u);
  CHECK(plan->placements[rg.tensor_of.at(237)].mem_obj_id == 1u);
  CHECK(plan->placements[rg.tensor_of.at(257)].mem_obj_id == 1u);
  CHECK(plan->placements[rg.tensor_of.at(90)].mem_obj_id == 0u);

  // Greedy is optimal here (two 8000-byte activations live at once), so the
  // "best" suite keeps greedy's plan, bit for bit.
  PlanOptions best;
  best.algorithm = Algorithm::Best;
  Result<MemoryPlan> suite = plan_memory(ts, best);
  REQUIRE(suite.ok());
  CHECK(suite->algorithm == Algorithm::Greedy);
  expect_matches_reference(rg, *suite);
}
