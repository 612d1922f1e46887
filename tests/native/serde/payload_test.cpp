// Payload configs (§1.5) and state binding (§1.4–§1.6).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>

#include "serde/import_exported_program.h"
#include "serde/payload_config.h"
#include "serde/state_binding.h"
#include "test_files.h"

using namespace pteforge;

namespace {

namespace fs = std::filesystem;

struct CorpusMethod {
  ir::ExportedProgram program;
  serde::PayloadConfig weights, constants;
  std::string dir;  // the case's json/ folder
};

CorpusMethod load(const std::string& case_name, const std::string& model) {
  CorpusMethod m;
  m.dir = test::data_path("fixtures/corpus/" + case_name + "/json");
  auto ep = serde::import_exported_program(test::read_file(m.dir + "/models/" + model + ".json"));
  REQUIRE(ep.ok());
  m.program = std::move(ep->program);
  std::string w = "data/weights/" + model + "_weights_config.json";
  std::string c = "data/constants/" + model + "_constants_config.json";
  auto wc = serde::parse_payload_config(test::read_file(m.dir + "/" + w), w);
  auto cc = serde::parse_payload_config(test::read_file(m.dir + "/" + c), c);
  REQUIRE(wc.ok());
  REQUIRE(cc.ok());
  m.weights = std::move(wc).value();
  m.constants = std::move(cc).value();
  return m;
}

serde::PayloadSizeFn files_in(const std::string& dir) {
  return [dir](const std::string& path_name, bool is_constant) -> std::optional<uint64_t> {
    fs::path p = fs::path(dir) / "data" / (is_constant ? "constants" : "weights") / path_name;
    std::error_code ec;
    auto size = fs::file_size(p, ec);
    if (ec) return std::nullopt;
    return size;
  };
}

serde::PayloadSizeFn sizes(std::map<std::string, uint64_t> m) {
  return [m](const std::string& path_name, bool) -> std::optional<uint64_t> {
    auto it = m.find(path_name);
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

/// A program with buffers `big` (float32[12]) and `part` (float32[3], a view at offset 2 of the same storage).
ir::ExportedProgram shared_program() {
  using namespace ir;
  ExportedProgram ep;
  Graph& g = ep.graph();
  g.set_tensor_meta("b_big", make_tensor_meta(ScalarType::Float, {12}));
  g.set_tensor_meta("b_part", make_tensor_meta(ScalarType::Float, {3}));
  g.set_inputs({arg_tensor("b_big"), arg_tensor("b_part")});
  g.set_outputs({arg_tensor("b_part")});
  for (const char* n : {"big", "part"}) {
    InputSpec s;
    s.kind = InputKind::Buffer;
    s.arg = arg_tensor(std::string("b_") + n);
    s.target = n;
    s.persistent = true;
    ep.signature().input_specs.push_back(s);
  }
  OutputSpec o;
  o.arg = arg_tensor("b_part");
  ep.signature().output_specs = {o};
  return ep;
}

serde::PayloadConfig shared_config() {
  serde::PayloadConfig c;
  c.entry_name = "data/weights/model_weights_config.json";
  ir::TensorMeta big = ir::make_tensor_meta(ir::ScalarType::Float, {12});
  ir::TensorMeta part = ir::make_tensor_meta(ir::ScalarType::Float, {3});
  part.storage_offset = ir::SymInt(int64_t{2});
  c.set("big", serde::PayloadMeta{"weight_0", false, false, big});
  c.set("part", serde::PayloadMeta{"weight_0", false, false, part});
  return c;
}

}  // namespace

TEST_CASE("payload: corpus configs parse and are written back byte-identically") {
  size_t configs = 0;
  for (const auto& c : fs::directory_iterator(test::data_path("fixtures/corpus"))) {
    for (const char* store : {"weights", "constants"}) {
      fs::path dir = c.path() / "json" / "data" / store;
      if (!fs::is_directory(dir)) continue;
      for (const auto& f : fs::directory_iterator(dir)) {
        if (f.path().extension() != ".json") continue;
        CAPTURE(f.path().string());
        std::string text = test::read_file(f.path().string());
        auto cfg = serde::parse_payload_config(text, f.path().filename().string());
        REQUIRE(cfg.ok());
        CHECK(cfg->warnings.empty());
        CHECK(serde::write_payload_config(*cfg) == text);
        ++configs;
      }
    }
  }
  CHECK(configs == 24);
  auto linear = serde::parse_payload_config(
      test::read_file(test::data_path("fixtures/corpus/linear_tanh/json/data/weights/model_weights_config.json")), "w");
  REQUIRE(linear.ok());
  const serde::PayloadMeta* w = linear->find("hidden.weight");
  REQUIRE(w != nullptr);
  CHECK(w->path_name == "weight_0");
  CHECK(w->is_param);
  CHECK_FALSE(w->use_pickle);
  CHECK(w->tensor_meta->sizes.size() == 2);
  CHECK(linear->find("nope") == nullptr);
}

TEST_CASE("payload: malformed configs") {
  auto bad = serde::parse_payload_config(R"({"config": {"w": {"path_name": 3}}})", "data/weights/m_weights_config.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::INPUT_SCHEMA);
  CHECK(bad.error().where.to_string() == "entry=data/weights/m_weights_config.json pointer=/config/w/path_name");
  auto escape = serde::parse_payload_config(R"({"config": {"w": {"path_name": "../weight_0"}}})", "cfg");
  REQUIRE_FALSE(escape.ok());
  CHECK(escape.error().message == "path_name \"../weight_0\" is not a plain file name");
  auto syntax = serde::parse_payload_config("{\"config\": ", "cfg");
  REQUIRE_FALSE(syntax.ok());
  CHECK(syntax.error().code == ErrorCode::INPUT_NOT_JSON);
  CHECK(syntax.error().where.to_string() == "entry=cfg byte_offset=11");
  auto extra = serde::parse_payload_config(R"({"config": {"w": {"path_name": "weight_0", "checksum": 1}}})", "cfg");
  REQUIRE(extra.ok());
  REQUIRE(extra->warnings.size() == 1);
  CHECK(extra->warnings[0].where.to_string() == "entry=cfg pointer=/config/w/checksum");
  CHECK_FALSE(extra->find("w")->tensor_meta.has_value());
}

TEST_CASE("binding: every corpus program binds its state to the payload files") {
  struct Expect {
    const char* name;
    const char* model;
    size_t tensors;
  };
  for (const Expect& e : {Expect{"linear_tanh", "model", 4}, Expect{"buffer_running_sum", "model", 1},
                          Expect{"training_ir_conv_bn", "model", 9}, Expect{"two_methods", "reset", 1},
                          Expect{"two_methods", "forward", 0}, Expect{"dynamic_seq", "model", 2}}) {
    CAPTURE(e.name);
    CAPTURE(e.model);
    CorpusMethod m = load(e.name, e.model);
    auto b = serde::bind_state(m.program, m.weights, m.constants, files_in(m.dir));
    REQUIRE_MESSAGE(b.ok(), b.error().to_string());
    CHECK(b->tensors.size() == e.tensors);
    CHECK(b->storages.size() == e.tensors);
    for (const auto& t : b->tensors) {
      CHECK(t.byte_offset == 0);
      CHECK(t.byte_length == t.nbytes());
      CHECK(b->storage_of(t).size_bytes == t.nbytes());
      CHECK(t.is_contiguous());
      CHECK_FALSE(t.zero_filled);
    }
  }
  CorpusMethod lin = load("linear_tanh", "model");
  auto b = serde::bind_state(lin.program, lin.weights, lin.constants, files_in(lin.dir));
  REQUIRE(b.ok());
  const ir::ConstantRef* w = b->find("hidden.weight");
  REQUIRE(w != nullptr);
  CHECK(w->placeholder == "p_hidden_weight");
  CHECK(w->kind == ir::InputKind::Parameter);
  CHECK(w->is_param);
  CHECK(w->dtype == ir::ScalarType::Float);
  CHECK(w->sizes == std::vector<int64_t>{8, 8});
  CHECK(w->strides == std::vector<int64_t>{8, 1});
  CHECK(w->byte_length == 256);
  CHECK(b->storage_of(*w).entry() == "data/weights/weight_0");
  CHECK(b->find_placeholder("p_out_bias")->fqn == "out.bias");
  CorpusMethod reset = load("two_methods", "reset");
  auto r = serde::bind_state(reset.program, reset.weights, reset.constants, files_in(reset.dir));
  REQUIRE(r.ok());
  CHECK(r->tensors[0].kind == ir::InputKind::TensorConstant);
  CHECK(r->storage_of(r->tensors[0]).entry() == "data/constants/tensor_0");
  CHECK(r->storage_of(r->tensors[0]).store == ir::PayloadStore::Constants);
}

namespace {

/// shared_program() bound to a payload of `payload_bytes` (at least 48): one
/// storage of that size, `big` over bytes [0, 48), its view over [8, 20),
/// no zero-filled warning.
void check_shared_views(const ir::StateBinding& b, uint64_t payload_bytes) {
  REQUIRE(b.storages.size() == 1);
  CHECK(b.storages[0].size_bytes == payload_bytes);
  REQUIRE(b.tensors.size() == 2);
  CHECK(b.tensors[0].storage == 0);
  CHECK(b.tensors[1].storage == 0);
  CHECK(b.tensors[0].byte_offset == 0);
  CHECK(b.tensors[0].byte_length == 48);
  CHECK(b.tensors[1].byte_offset == 8);
  CHECK(b.tensors[1].byte_length == 12);
  CHECK(serde::zero_filled_warnings(b).empty());
}

}  // namespace

TEST_CASE("binding: shared storages stay shared, views get their byte range") {
  ir::ExportedProgram ep = shared_program();
  serde::PayloadConfig empty;
  auto b = serde::bind_state(ep, shared_config(), empty, sizes({{"weight_0", 48}}));
  REQUIRE_MESSAGE(b.ok(), b.error().to_string());
  check_shared_views(*b, 48);
  // A 0-byte payload means zeros.
  auto zeros = serde::bind_state(ep, shared_config(), empty, sizes({{"weight_0", 0}}));
  REQUIRE(zeros.ok());
  CHECK(zeros->tensors[0].zero_filled);
  CHECK(zeros->tensors[1].zero_filled);
  // Both views share the one payload: two warnings, entries named with the archive's root folder.
  std::vector<serde::ImportWarning> zero_warnings = serde::zero_filled_warnings(*zeros, "arch/");
  REQUIRE(zero_warnings.size() == 2);
  CHECK(zero_warnings[0].message ==
        "the payload of 'big' has 0 bytes, so its 12 elements are all zero in the .pte (torch writes no "
        "bytes for "
        "a fake tensor; a real weight file of 0 bytes means the archive is damaged)");
  CHECK(zero_warnings[0].where.to_string() == "entry=arch/data/weights/weight_0");
  // A payload longer than every view is the storage torch saved (a tensor may
  // be a view of part of it): the views take their ranges, nothing is refused.
  auto long_payload = serde::bind_state(ep, shared_config(), empty, sizes({{"weight_0", 260}}));
  REQUIRE_MESSAGE(long_payload.ok(), long_payload.error().to_string());
  check_shared_views(*long_payload, 260);
  // Just long enough for the view but not for `big`.
  auto short_payload = serde::bind_state(ep, shared_config(), empty, sizes({{"weight_0", 20}}));
  REQUIRE_FALSE(short_payload.ok());
  CHECK(short_payload.error().code == ErrorCode::PAYLOAD_INVALID);
  CHECK(short_payload.error().message ==
        "payload of buffer 'big' has 20 bytes but the view float32[12] (strides [1], offset 0) needs 48");
  CHECK(short_payload.error().where.to_string() == "entry=data/weights/weight_0");
  // In a .pt2 whose records sit in a root folder, the entry is named as the zip lists it.
  auto in_root = serde::bind_state(ep, shared_config(), empty, sizes({{"weight_0", 20}}), "arch/");
  REQUIRE_FALSE(in_root.ok());
  CHECK(in_root.error().where.to_string() == "entry=arch/data/weights/weight_0");
}

TEST_CASE("binding: missing and invalid state") {
  ir::ExportedProgram ep = shared_program();
  serde::PayloadConfig empty;
  empty.entry_name = "data/constants/model_constants_config.json";
  serde::PayloadConfig config = shared_config();

  auto no_payload = serde::bind_state(ep, config, empty, sizes({}));
  REQUIRE_FALSE(no_payload.ok());
  CHECK(no_payload.error().code == ErrorCode::WEIGHTS_MISSING);
  CHECK(no_payload.error().message == "the payload of buffer 'big' is missing");
  CHECK(no_payload.error().where.to_string() == "entry=data/weights/weight_0");

  serde::PayloadConfig partial;
  partial.entry_name = "data/weights/model_weights_config.json";
  partial.set("big", *config.find("big"));
  auto no_entry = serde::bind_state(ep, partial, empty, sizes({{"weight_0", 48}}));
  REQUIRE_FALSE(no_entry.ok());
  CHECK(no_entry.error().code == ErrorCode::WEIGHTS_MISSING);
  CHECK(no_entry.error().message == "buffer 'part' has no entry in the weights config");
  CHECK(no_entry.error().where.to_string() == "entry=data/weights/model_weights_config.json");

  // No config at all (a program JSON alone, no archive around it): the input
  // carries no weights, and no entry is named.
  serde::PayloadConfig none;
  auto lone = serde::bind_state(ep, none, empty, sizes({}));
  REQUIRE_FALSE(lone.ok());
  CHECK(lone.error().code == ErrorCode::WEIGHTS_MISSING);
  CHECK(lone.error().message ==
        "buffer 'big' needs weights, but the input carries none (a program JSON alone): give the .pt2 "
        "archive or its "
        "unpacked folder");
  CHECK(lone.error().where.to_string().empty());

  // A non-persistent buffer is looked up in the constants config.
  ir::ExportedProgram np = shared_program();
  np.signature().input_specs[1].persistent = false;
  auto in_constants = serde::bind_state(np, config, empty, sizes({{"weight_0", 48}}));
  REQUIRE_FALSE(in_constants.ok());
  CHECK(in_constants.error().message == "buffer 'part' has no entry in the constants config");
  CHECK(in_constants.error().where.to_string() == "entry=data/constants/model_constants_config.json");

  auto odd = serde::bind_state(ep, config, empty, sizes({{"weight_0", 50}}));
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().code == ErrorCode::PAYLOAD_INVALID);
  CHECK(odd.error().message == "payload of buffer 'big' has 50 bytes, not a multiple of the 4-byte float32 element");

  serde::PayloadConfig pickled = shared_config();
  serde::PayloadMeta p = *pickled.find("big");
  p.use_pickle = true;
  pickled.set("big", p);
  auto pk = serde::bind_state(ep, pickled, empty, sizes({{"weight_0", 48}}));
  REQUIRE_FALSE(pk.ok());
  CHECK(pk.error().code == ErrorCode::UNSUPPORTED_FEATURE);

  serde::PayloadConfig mismatch = shared_config();
  serde::PayloadMeta m = *mismatch.find("big");
  m.tensor_meta->dtype = ir::ScalarType::Long;
  mismatch.set("big", m);
  auto mm = serde::bind_state(ep, mismatch, empty, sizes({{"weight_0", 96}}));
  REQUIRE_FALSE(mm.ok());
  CHECK(mm.error().code == ErrorCode::PAYLOAD_INVALID);
  CHECK(mm.error().message == "buffer 'big' is int64[12] in the config but float32[12] in the program");

  serde::PayloadConfig huge = shared_config();
  serde::PayloadMeta h = *huge.find("part");
  h.tensor_meta->strides[0] = ir::SymInt(int64_t{4611686018427387904});
  h.tensor_meta->sizes[0] = ir::SymInt(int64_t{3});
  huge.set("part", h);
  auto ov = serde::bind_state(ep, huge, empty, sizes({{"weight_0", 48}}));
  REQUIRE_FALSE(ov.ok());
  CHECK(ov.error().code == ErrorCode::PAYLOAD_INVALID);

  // Overlapping strides: the view reads 12 bytes, but its contiguous copy (what
  // the .pte stores) would need 2^64 bytes. That wrapped to a small size and
  // crashed the emitter; it is refused here.
  ir::ExportedProgram wide = shared_program();
  ir::TensorMeta wide_meta = ir::make_tensor_meta(ir::ScalarType::Float, {2147483647, 2147483647, 4});
  wide_meta.strides = {ir::SymInt(int64_t{1}), ir::SymInt(int64_t{1}), ir::SymInt(int64_t{1})};
  wide.graph().set_tensor_meta("b_part", wide_meta);
  serde::PayloadConfig overlapping = shared_config();
  serde::PayloadMeta w = *overlapping.find("part");
  w.tensor_meta = wide_meta;
  overlapping.set("part", w);
  for (uint64_t payload : {uint64_t{48}, uint64_t{0}}) {  // 0 bytes: zero-filled
    CAPTURE(payload);
    auto wrapped = serde::bind_state(wide, overlapping, empty, sizes({{"weight_0", payload}}));
    REQUIRE_FALSE(wrapped.ok());
    CHECK(wrapped.error().code == ErrorCode::PAYLOAD_INVALID);
    CHECK(wrapped.error().message == "buffer 'part' spans more bytes than a 64-bit size can hold");
  }
}
