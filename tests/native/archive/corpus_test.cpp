// Every corpus case opened as a .pt2 (libzip-backed reader) and as its
// unpacked json/ folder: entries, alignment, bytes, layout fields, payloads.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "serde/archive_native.h"
#include "serde/archive_zip.h"
#include "serde/pt2_layout.h"
#include "test_files.h"

using namespace pteforge;
using namespace pteforge::serde;
using pteforge::test::corpus_dir;
using pteforge::test::slurp;

namespace {

struct CorpusCase {
  const char* name;
  const char* archive;
  const char* root;
  std::vector<std::string> methods;
};

const std::vector<CorpusCase>& corpus_cases() {
  static const std::vector<CorpusCase> cases = {
      {"buffer_running_sum", "buffer_running_sum.pt2", "buffer_running_sum", {"forward"}},
      {"conv_avgpool", "conv_avgpool.pt2", "conv_avgpool", {"forward"}},
      {"dynamic_seq", "dynamic_seq.pt2", "dynamic_seq", {"forward"}},
      {"joint_linear_mse", "joint_linear_mse.pt2", "joint_linear_mse", {"forward"}},
      {"layernorm_residual", "layernorm_residual.pt2", "layernorm_residual", {"forward"}},
      {"linear_tanh", "linear_tanh.pt2", "archive", {"forward"}},
      {"modules_preserved", "modules_preserved.pt2", "modules_preserved", {"forward"}},
      {"modules_preserved_swap", "replacement_1.pt2", "replacement_1", {"forward"}},
      {"training_ir_conv_bn", "training_ir_conv_bn.pt2", "training_ir_conv_bn", {"forward"}},
      {"training_ir_linear_gelu", "training_ir_linear_gelu.pt2", "training_ir_linear_gelu", {"forward"}},
      {"two_methods", "two_methods.pt2", "two_methods", {"forward", "reset"}},
  };
  return cases;
}

std::vector<std::string> methods_of(const Pt2Layout& layout) {
  std::vector<std::string> out;
  for (const auto& m : layout.models) out.push_back(m.method);
  return out;
}

/// Checks the per-model record names of a layout-C archive rooted at `prefix`.
void check_models(const Pt2Layout& layout, const std::string& prefix) {
  for (const auto& m : layout.models) {
    const std::string name = m.name;
    CHECK(m.method == (name == "model" ? "forward" : name));
    CHECK(m.program_entry == prefix + "models/" + name + ".json");
    CHECK(m.weights_config_entry == prefix + "data/weights/" + name + "_weights_config.json");
    CHECK(m.constants_config_entry == prefix + "data/constants/" + name + "_constants_config.json");
    CHECK(m.weights_prefix == prefix + "data/weights/");
    CHECK(m.root_prefix() == prefix);
    CHECK(m.constants_prefix == prefix + "data/constants/");
    CHECK(m.sample_inputs_entry == prefix + "data/sample_inputs/" + name + ".pt");
    CHECK_FALSE(m.legacy_weights_entry.has_value());
    CHECK_FALSE(m.legacy_constants_entry.has_value());
  }
}

/// Resolves every path_name of both configs of every model; returns how many.
int resolve_all_payloads(Archive& archive, const Pt2Layout& layout) {
  int resolved = 0;
  for (const auto& m : layout.models) {
    for (auto folder : {PayloadFolder::kWeights, PayloadFolder::kConstants}) {
      const auto& config = folder == PayloadFolder::kWeights ? m.weights_config_entry : m.constants_config_entry;
      REQUIRE(config.has_value());
      auto text = read_entry(archive, *config, 1 << 20);
      REQUIRE(text.ok());
      rapidjson::Document doc;
      doc.Parse(text->data(), text->size());
      REQUIRE_FALSE(doc.HasParseError());
      for (const auto& item : doc["config"].GetObject()) {
        auto entry = resolve_payload(archive, m, folder, item.value["path_name"].GetString());
        REQUIRE(entry.ok());
        CHECK(require_stored(**entry).ok());
        CHECK((*entry)->name.rfind(folder == PayloadFolder::kWeights ? m.weights_prefix : m.constants_prefix, 0) == 0);
        ++resolved;
      }
    }
  }
  return resolved;
}

}  // namespace

TEST_CASE("archive corpus: linear_tanh.pt2 lists exactly its entries, sizes and data offsets") {
  auto archive = open_zip_file(corpus_dir() + "/linear_tanh/linear_tanh.pt2");
  REQUIRE(archive.ok());
  struct Expected {
    const char* name;
    uint64_t size;
    uint64_t data_offset;
  };
  const std::vector<Expected> expected = {
      {"archive/data/weights/weight_0", 256, 64},
      {"archive/data/weights/weight_1", 32, 384},
      {"archive/data/weights/weight_2", 64, 512},
      {"archive/data/weights/weight_3", 8, 640},
      {"archive/data/weights/model_weights_config.json", 1170, 768},
      {"archive/data/constants/model_constants_config.json", 14, 2048},
      {"archive/models/model.json", 7270, 2176},
      {"archive/data/sample_inputs/model.pt", 1369, 9536},
      {"archive/archive_format", 3, 11008},
      {"archive/archive_version", 1, 11072},
      {"archive/.data/version", 2, 11136},
      {"archive/byteorder", 6, 11200},
      {"archive/.data/serialization_id", 40, 11328},
  };
  const auto& entries = (*archive)->entries();
  REQUIRE(entries.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(entries[i].name == expected[i].name);
    CHECK(entries[i].size == expected[i].size);
    CHECK(entries[i].stored);
    CHECK(entries[i].data_offset == expected[i].data_offset);
  }
  CHECK((*archive)->find("archive/byteorder") == &entries[11]);
  CHECK((*archive)->find("archive/missing") == nullptr);
  CHECK((*archive)->find("byteorder") == nullptr);
  auto version = read_entry(**archive, "archive/.data/version", 16);
  REQUIRE(version.ok());
  CHECK(*version == "6\n");
  auto text = read_text_entry(**archive, "archive/.data/version");
  REQUIRE(text.ok());
  CHECK(*text == "6");
  auto range = (*archive)->read_range(entries[12], 4, 6);
  REQUIRE(range.ok());
  CHECK(*range == "953723");
}

TEST_CASE("archive corpus: every .pt2 opens, stored entries are 64-byte aligned and match json/") {
  for (const auto& c : corpus_cases()) {
    CAPTURE(c.name);
    const std::string case_dir = corpus_dir() + "/" + c.name;
    const std::string path = case_dir + "/" + c.archive;
    auto archive = open_zip_file(path);
    REQUIRE(archive.ok());
    const std::string raw = slurp(path);
    REQUIRE(!raw.empty());
    std::set<std::string> zip_names;
    for (const auto& entry : (*archive)->entries()) {
      CAPTURE(entry.name);
      REQUIRE(entry.stored);
      REQUIRE(entry.data_offset.has_value());
      CHECK(*entry.data_offset % 64 == 0);
      auto bytes = (*archive)->read(entry, 1 << 20);
      REQUIRE(bytes.ok());
      CHECK(bytes->size() == entry.size);
      CHECK(raw.compare(*entry.data_offset, entry.size, *bytes) == 0);
      const std::string prefix = std::string(c.root) + "/";
      REQUIRE(entry.name.rfind(prefix, 0) == 0);
      const std::string record = entry.name.substr(prefix.size());
      CHECK(slurp(case_dir + "/json/" + record) == *bytes);
      zip_names.insert(record);
      if (entry.size >= 3) {
        auto tail = (*archive)->read_range(entry, entry.size - 3, 3);
        REQUIRE(tail.ok());
        CHECK(*tail == bytes->substr(bytes->size() - 3));
      }
    }
    auto folder = open_directory(case_dir + "/json");
    REQUIRE(folder.ok());
    std::set<std::string> dir_names;
    for (const auto& entry : (*folder)->entries()) {
      CHECK(entry.stored);
      CHECK_FALSE(entry.data_offset.has_value());
      dir_names.insert(entry.name);
    }
    CHECK(dir_names == zip_names);
    CHECK(std::is_sorted((*folder)->entries().begin(), (*folder)->entries().end(),
                         [](const ArchiveEntry& a, const ArchiveEntry& b) { return a.name < b.name; }));
  }
}

TEST_CASE("archive corpus: the portable (libzip-free) zip reader gives the same entries") {
  for (const auto& c : corpus_cases()) {
    CAPTURE(c.name);
    const std::string path = corpus_dir() + "/" + c.name + "/" + c.archive;
    auto native = open_zip_file(path);
    auto portable = ZipArchive::open(std::make_unique<MemoryByteSource>(slurp(path)));
    REQUIRE(native.ok());
    REQUIRE(portable.ok());
    REQUIRE((*portable)->entries().size() == (*native)->entries().size());
    for (size_t i = 0; i < (*native)->entries().size(); ++i) {
      const auto& a = (*native)->entries()[i];
      const auto& b = (*portable)->entries()[i];
      CHECK(a.name == b.name);
      CHECK(a.size == b.size);
      CHECK(a.data_offset == b.data_offset);
      CHECK((*portable)->record(i).crc32 != 0);
      CHECK((*portable)->read(b, 1 << 20).value() == (*native)->read(a, 1 << 20).value());
    }
  }
}

TEST_CASE("archive corpus: layout of every .pt2 and json/ folder") {
  for (const auto& c : corpus_cases()) {
    CAPTURE(c.name);
    const std::string case_dir = corpus_dir() + "/" + c.name;
    {
      auto archive = open_zip_file(case_dir + "/" + c.archive);
      REQUIRE(archive.ok());
      auto layout = detect_pt2_layout(**archive);
      REQUIRE(layout.ok());
      CHECK(layout->kind == Pt2LayoutKind::kCurrent);
      CHECK(layout->root == c.root);
      CHECK(layout->byteorder == ByteOrder::kLittle);
      CHECK(layout->archive_version == 0);
      CHECK(methods_of(*layout) == c.methods);
      CHECK(layout->entry_name("models/x.json") == std::string(c.root) + "/models/x.json");
      check_models(*layout, std::string(c.root) + "/");
      CHECK(resolve_all_payloads(**archive, *layout) > 0);
    }
    {
      auto input = open_input(case_dir + "/json");
      REQUIRE(input.ok());
      CHECK(input->layout.kind == Pt2LayoutKind::kCurrent);
      CHECK(input->layout.root == "");
      CHECK(methods_of(input->layout) == c.methods);
      CHECK(input->layout.entry_name("models/x.json") == "models/x.json");
      check_models(input->layout, "");
      resolve_all_payloads(*input->archive, input->layout);
    }
  }
}

TEST_CASE("archive corpus: two_methods has methods forward and reset with their own configs") {
  auto input = open_input(corpus_dir() + "/two_methods/two_methods.pt2");
  REQUIRE(input.ok());
  const Pt2Layout& layout = input->layout;
  REQUIRE(layout.models.size() == 2);
  const Pt2Model* reset = layout.find_method("reset");
  REQUIRE(reset != nullptr);
  CHECK(reset->name == "reset");
  CHECK(reset->program_entry == "two_methods/models/reset.json");
  CHECK(reset->constants_config_entry == "two_methods/data/constants/reset_constants_config.json");
  auto payload = resolve_payload(*input->archive, *reset, PayloadFolder::kConstants, "tensor_0");
  REQUIRE(payload.ok());
  CHECK((*payload)->name == "two_methods/data/constants/tensor_0");
  CHECK((*payload)->size == 24);
  CHECK(layout.find_method("forward")->program_entry == "two_methods/models/forward.json");
  CHECK(layout.find_method("model") == nullptr);
}

TEST_CASE("archive corpus: resolve_payload errors name the entry and the method") {
  auto input = open_input(corpus_dir() + "/linear_tanh/linear_tanh.pt2");
  REQUIRE(input.ok());
  const Pt2Model& model = input->layout.models.at(0);
  auto ok = resolve_payload(*input->archive, model, PayloadFolder::kWeights, "weight_3");
  REQUIRE(ok.ok());
  CHECK((*ok)->name == "archive/data/weights/weight_3");

  auto missing = resolve_payload(*input->archive, model, PayloadFolder::kWeights, "weight_9");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::ARCHIVE_ENTRY_MISSING);
  CHECK(missing.error().where.entry == "archive/data/weights/weight_9");
  CHECK(missing.error().where.method == "forward");

  auto wrong_folder = resolve_payload(*input->archive, model, PayloadFolder::kConstants, "weight_0");
  REQUIRE_FALSE(wrong_folder.ok());
  CHECK(wrong_folder.error().where.entry == "archive/data/constants/weight_0");

  for (const char* bad : {"../weights/weight_0", "", "..", "a/b", "a\\b"}) {
    CAPTURE(bad);
    auto r = resolve_payload(*input->archive, model, PayloadFolder::kWeights, bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::ARCHIVE_ENTRY_NAME);
    CHECK(r.error().where.entry == std::string("archive/data/weights/") + bad);
  }
}

TEST_CASE("archive corpus: open_input on a program JSON inside an unpacked folder keeps that program") {
  auto single = open_input(corpus_dir() + "/linear_tanh/json/models/model.json");
  REQUIRE(single.ok());
  CHECK(single->layout.kind == Pt2LayoutKind::kCurrent);
  CHECK(single->layout.root == "");
  REQUIRE(single->layout.models.size() == 1);
  CHECK(single->layout.models[0].method == "forward");
  CHECK(single->layout.models[0].program_entry == "models/model.json");
  CHECK(resolve_payload(*single->archive, single->layout.models[0], PayloadFolder::kWeights, "weight_0").ok());

  auto reset = open_input(corpus_dir() + "/two_methods/json/models/reset.json");
  REQUIRE(reset.ok());
  REQUIRE(reset->layout.models.size() == 1);
  CHECK(reset->layout.models[0].method == "reset");
  CHECK(reset->layout.models[0].constants_config_entry == "data/constants/reset_constants_config.json");
}

TEST_CASE("archive corpus: open_input on a lone program JSON gives a one-entry archive") {
  const std::string dir = pteforge::test::scratch_dir("lone_json");
  const std::string program = slurp(corpus_dir() + "/linear_tanh/json/models/model.json");
  pteforge::test::spit(dir + "/my_program.json", program);
  auto input = open_input(dir + "/my_program.json");
  REQUIRE(input.ok());
  CHECK(input->layout.kind == Pt2LayoutKind::kProgramJson);
  CHECK(layout_kind_name(input->layout.kind) == "program_json");
  REQUIRE(input->archive->entries().size() == 1);
  CHECK(input->archive->entries()[0].name == "my_program.json");
  REQUIRE(input->layout.models.size() == 1);
  const Pt2Model& model = input->layout.models[0];
  CHECK(model.method == "forward");
  CHECK(model.program_entry == "my_program.json");
  CHECK_FALSE(model.weights_config_entry.has_value());
  auto bytes = read_entry(*input->archive, model.program_entry, 1 << 20);
  REQUIRE(bytes.ok());
  CHECK(*bytes == program);
  auto payload = resolve_payload(*input->archive, model, PayloadFolder::kWeights, "weight_0");
  REQUIRE_FALSE(payload.ok());
  CHECK(payload.error().code == ErrorCode::WEIGHTS_MISSING);
  CHECK(payload.error().where.method == "forward");
}

TEST_CASE("archive corpus: an unzipped archive folder (records under <root>/) is layout C with that root") {
  const std::string dir = pteforge::test::scratch_dir("unzipped");
  std::filesystem::copy(corpus_dir() + "/two_methods/json", dir + "/two_methods",
                        std::filesystem::copy_options::recursive);
  auto input = open_input(dir);
  REQUIRE(input.ok());
  CHECK(input->layout.root == "two_methods");
  CHECK(methods_of(input->layout) == std::vector<std::string>{"forward", "reset"});
  check_models(input->layout, "two_methods/");
}

TEST_CASE("archive corpus: a folder spelled with trailing, doubled or '.' separators lists the same entries") {
  const std::string dir = corpus_dir() + "/linear_tanh/json";
  auto plain = open_directory(dir);
  REQUIRE(plain.ok());
  std::vector<std::pair<std::string, uint64_t>> want;
  for (const auto& e : (*plain)->entries()) want.emplace_back(e.name, e.size);
  REQUIRE(want.size() >= 3);
  CHECK(want.front().first == ".data/serialization_id");  // names relative to the folder, sorted
  for (const std::string& spelling : {dir + "/", dir + "//", dir + "/.", dir + "/./"}) {
    CAPTURE(spelling);
    auto folder = open_directory(spelling);
    REQUIRE(folder.ok());
    std::vector<std::pair<std::string, uint64_t>> got;
    for (const auto& e : (*folder)->entries()) got.emplace_back(e.name, e.size);
    CHECK(got == want);
    // Entries read through the spelled base path.
    const ArchiveEntry* model = (*folder)->find("models/model.json");
    REQUIRE(model != nullptr);
    auto bytes = (*folder)->read(*model, model->size);
    REQUIRE(bytes.ok());
    CHECK(*bytes == slurp(dir + "/models/model.json"));
  }
}

TEST_CASE("archive corpus: open_directory_files refuses a folder or a missing file by its path") {
  const std::string dir = corpus_dir() + "/linear_tanh/json";
  auto folder = open_directory_files(dir, {"models"});
  REQUIRE_FALSE(folder.ok());
  CHECK(folder.error().code == ErrorCode::IO_ERROR);
  CHECK(folder.error().message == "cannot read folder \"" + dir + "/models\": is a directory");
  auto missing = open_directory_files(dir + "/", {"nope.json"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot read folder \"" + dir + "/nope.json\": no such file or folder");
}
