// convert with module swaps (ConvertOptions::swaps, the CLI's --swap): the
// replacement's program goes through the pipeline and its weights land in the
// .pte, read from the replacement's own archive.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "e2e_util.h"

using namespace pteforge;
using testing::test_path;

namespace {

const char* const kBase = "fixtures/corpus/modules_preserved/modules_preserved.pt2";
const char* const kReplacement = "fixtures/corpus/modules_preserved_swap/replacement_1.pt2";

/// Payload bytes of every weight entry of `in` (data/weights/weight_N).
std::vector<std::string> weight_payloads(serde::OpenedInput& in) {
  std::vector<std::string> out;
  for (const serde::ArchiveEntry& e : in.archive->entries()) {
    if (e.name.find("/data/weights/weight_") == std::string::npos) continue;
    auto bytes = serde::read_entry(*in.archive, e.name, 1 << 20);
    REQUIRE(bytes.ok());
    out.push_back(*bytes);
  }
  return out;
}

std::set<std::string> operator_names(const emit::DecodedPte& d) {
  std::set<std::string> out;
  for (const auto& op : d.program.execution_plan.at(0).operators) out.insert(op.name + "." + op.overload);
  return out;
}

}  // namespace

TEST_CASE("convert --swap: module '1' replaced by replacement_1.pt2, its weights read from that archive") {
  auto base = serde::open_input(test_path(kBase));
  auto rep = serde::open_input(test_path(kReplacement));
  REQUIRE(base.ok());
  REQUIRE(rep.ok());
  ConvertOptions options;
  options.report_times = false;
  options.swaps.push_back(SwapInput{"1", rep->archive.get(), rep->layout, "", ""});
  auto result = convert(*base->archive, base->layout, options);
  REQUIRE_MESSAGE(result.ok(), result.error().to_string());

  // The chunks name the replacement's payloads by label: swap:1::data/weights/weight_N.
  std::set<std::string> sources;
  for (const emit::Chunk& c : result->pte.chunks) {
    if (!c.is_bytes()) sources.insert(c.range().source);
  }
  CHECK(sources.count("swap:1::data/weights/weight_0") == 1);
  CHECK(sources.count("swap:1::data/weights/weight_3") == 1);

  // Without the swaps the reader cannot resolve them.
  auto unresolved = emit::flatten_chunks(result->pte.chunks, archive_range_reader(*base->archive));
  REQUIRE_FALSE(unresolved.ok());
  CHECK(unresolved.error().code == ErrorCode::ARCHIVE_ENTRY_MISSING);

  auto bytes = emit::flatten_chunks(result->pte.chunks, archive_range_reader(*base->archive, options.swaps));
  REQUIRE_MESSAGE(bytes.ok(), bytes.error().to_string());
  const std::string pte(bytes->begin(), bytes->end());
  auto decoded = emit::decode_pte(pte);
  REQUIRE(decoded.ok());

  // ReluMLP (Linear 5→8, relu, Linear 8→4) instead of Linear + Tanh.
  const std::set<std::string> ops = operator_names(*decoded);
  CHECK(ops.count("aten::relu.out") == 1);
  CHECK(ops.count("aten::tanh.out") == 0);
  CHECK(ops.count("aten::sigmoid.out") == 1);  // block 0 (SiLU, decomposed at export) stays

  // Every replacement weight is in the file; base weights: block 0's are, block 1's are not.
  for (const std::string& w : weight_payloads(*rep)) CHECK(pte.find(w) != std::string::npos);
  auto base_weights = weight_payloads(*base);
  REQUIRE(base_weights.size() == 4);
  CHECK(pte.find(base_weights[0]) != std::string::npos);  // 0.0.weight [5, 6]
  CHECK(pte.find(base_weights[1]) != std::string::npos);  // 0.0.bias [5]
  CHECK(pte.find(base_weights[2]) == std::string::npos);  // 1.0.weight [4, 5]
  CHECK(decoded->program.execution_plan.at(0).values.size() > 0);
}

TEST_CASE("convert --swap errors: unknown module, module swapped twice, no input") {
  auto base = serde::open_input(test_path(kBase));
  auto rep = serde::open_input(test_path(kReplacement));
  REQUIRE(base.ok());
  REQUIRE(rep.ok());

  ConvertOptions unknown;
  unknown.swaps.push_back(SwapInput{"2", rep->archive.get(), rep->layout, "", ""});
  auto r = convert(*base->archive, base->layout, unknown);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::MODULE_SWAP);
  CHECK(r.error().where.method == "forward");

  ConvertOptions twice;
  twice.swaps.push_back(SwapInput{"1", rep->archive.get(), rep->layout, "", ""});
  twice.swaps.push_back(SwapInput{"1", rep->archive.get(), rep->layout, "", ""});
  r = convert(*base->archive, base->layout, twice);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::OPTION_INVALID);
  CHECK(r.error().message == "module '1' is swapped twice");

  ConvertOptions none;
  none.swaps.push_back(SwapInput{"1", nullptr, {}, "", ""});
  r = convert(*base->archive, base->layout, none);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "the swap of module '1' has no input");

  ConvertOptions bad_path;
  bad_path.swaps.push_back(SwapInput{"1..x", rep->archive.get(), rep->layout, "", ""});
  r = convert(*base->archive, base->layout, bad_path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::OPTION_INVALID);
  // The API's own wording (no CLI "--swap '...'" around it), located at the option.
  CHECK(r.error().message ==
        "'1..x' is not a module path (non-empty module names separated by single dots, without control "
        "characters)");
  CHECK(r.error().where.pointer == "/swaps");
}
