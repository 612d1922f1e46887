// The generated operator table (see op_table.h).
//
// Encoding (chosen for the WASM build): scripts/gen_ops.py writes every schema
// as its canonical string, one per line (~320 KB of text for ~3,260 schemas;
// it compresses to a fraction of that in a gzipped .wasm), plus one 12-byte
// record per schema (tag bits, out-variant index, `_copy`-twin index, kernel
// bits, source, schema kind). The derived facts (autogen out schemas, signature
// pairing) are computed once by the generator, which checks them against the
// reference .tsv files. C++ parses a string with the same parser that handles
// user-supplied schemas, so the text stays the single source of truth and is
// greppable in the generated file.
//
// Startup only splits the text into lines and indexes (namespace, name,
// overload) in an open-addressing hash of 16-bit slots: well under a
// millisecond natively. A schema is parsed on first access (std::call_once per
// entry), so a conversion pays only for the ops it uses; parsing all of them
// takes a few milliseconds natively. Facts that filter many ops (kind, kernels,
// out variant) come from the records, without parsing.
#include "ops/op_table.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include "ops/str_cat.h"

namespace pteforge::ops {
namespace {

struct SchemaRecord {
  uint32_t tags;
  uint16_t out_variant;   // index, 0xFFFF = none
  uint16_t copy_variant;  // index, 0xFFFF = none
  uint8_t kernels;        // KernelLibrary bits
  uint8_t source;         // index into kSourceNames
  uint8_t kind;           // SchemaKind
};

#include "ops/op_table_data.inc"

static_assert(kSchemaCount < 0xFFFF, "indices are 16-bit");
static_assert(sizeof(kSchemaRecords) / sizeof(kSchemaRecords[0]) == kSchemaCount);

uint64_t hash_bytes(uint64_t h, std::string_view s) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t hash_key(std::string_view ns, std::string_view name, std::string_view overload) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = hash_bytes(h, ns);
  h = hash_bytes(h, "::");
  h = hash_bytes(h, name);
  h = hash_bytes(h, ".");
  return hash_bytes(h, overload);
}

// Levenshtein distance (insert, delete, substitute: cost 1 each).
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Base name of an operator name, in-place marker dropped (add_ -> add).
std::string base_of(std::string_view name) {
  OpSchema probe;
  probe.name = std::string(name);
  return probe.base_name();
}

constexpr uint16_t kNoIndex = 0xFFFF;

}  // namespace

struct OpTable::Entry {
  std::string_view text;  // the schema line
  std::string_view ns, name, overload;
  std::once_flag once;
  std::optional<OpSchema> schema;
  std::optional<Error> error;  // set when `text` failed to parse
};

const OpTable& OpTable::get() {
  static const OpTable table;
  return table;
}

OpTable::OpTable() : size_(kSchemaCount), entries_(new Entry[kSchemaCount]) {
  std::string_view text(kSchemaText, sizeof(kSchemaText) - 1);
  size_t capacity = 1;
  while (capacity < size_ * 2) capacity <<= 1;
  slots_.assign(capacity, 0);
  size_t mask = capacity - 1;
  size_t start = 0;
  for (size_t i = 0; i < size_; ++i) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    Entry& e = entries_[i];
    e.text = text.substr(start, nl - start);
    start = nl + 1;
    // "ns::name.overload(" or "name.overload(" (aten implied).
    std::string_view head = e.text.substr(0, e.text.find('('));
    size_t colons = head.find("::");
    e.ns = colons == std::string_view::npos ? std::string_view("aten") : head.substr(0, colons);
    if (colons != std::string_view::npos) head.remove_prefix(colons + 2);
    size_t dot = head.find('.');
    e.name = head.substr(0, dot);
    e.overload = dot == std::string_view::npos ? std::string_view() : head.substr(dot + 1);
    size_t slot = hash_key(e.ns, e.name, e.overload) & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = static_cast<uint16_t>(i + 1);
  }
}

OpTable::~OpTable() = default;

const OpSchema& OpTable::at(size_t i) const {
  Entry& e = entries_[i];
  std::call_once(e.once, [&e, i] {
    auto parsed = parse_schema(e.text);
    if (parsed.ok()) {
      e.schema = std::move(parsed).value();
    } else {
      e.error = parsed.error();
      e.schema.emplace();
      e.schema->ns = std::string(e.ns);
      e.schema->name = std::string(e.name);
      e.schema->overload = std::string(e.overload);
    }
    e.schema->tags = kSchemaRecords[i].tags;
    e.schema->kind_cache_.kind = e.schema->compute_kind();
  });
  return *e.schema;
}

Status OpTable::verify() const {
  for (size_t i = 0; i < size_; ++i) {
    at(i);
    if (entries_[i].error) return *entries_[i].error;
    if (static_cast<uint8_t>(at(i).kind()) != kSchemaRecords[i].kind) {
      return make_error(ErrorCode::INTERNAL,
                        detail::str_cat({"generated kind of ", at(i).full_name(), " differs from SchemaKind"}));
    }
  }
  std::string_view text(kSchemaText, sizeof(kSchemaText) - 1);
  if (entries_[size_ - 1].text.data() + entries_[size_ - 1].text.size() + 1 != text.data() + text.size()) {
    return make_error(ErrorCode::INTERNAL, "generated schema text and record count disagree");
  }
  return Status::Ok();
}

size_t OpTable::index(std::string_view ns, std::string_view name, std::string_view overload) const {
  if (overload == "default") overload = {};
  size_t mask = slots_.size() - 1;
  size_t slot = hash_key(ns, name, overload) & mask;
  while (slots_[slot] != 0) {
    const Entry& e = entries_[slots_[slot] - 1];
    if (e.name == name && e.overload == overload && e.ns == ns) return slots_[slot] - 1;
    slot = (slot + 1) & mask;
  }
  return kNpos;
}

const OpSchema* OpTable::find(std::string_view ns, std::string_view name, std::string_view overload) const {
  size_t i = index(ns, name, overload);
  return i == kNpos ? nullptr : &at(i);
}

const OpSchema* OpTable::find(std::string_view target) const {
  auto name = split_op_target(target);
  if (!name) return nullptr;
  return find(name->ns, name->name, name->overload);
}

Result<const OpSchema*> OpTable::lookup(std::string_view target) const {
  auto name = parse_op_target(target);
  if (!name.ok()) return name.error();
  if (const OpSchema* s = find(*name)) return s;
  Error e = make_error(ErrorCode::UNSUPPORTED_OPERATOR,
                       detail::str_cat({"unknown operator ", name->to_string(), " (from \"", target, "\")"}));
  std::vector<const OpSchema*> near = nearest_supported(target);
  if (!near.empty()) {
    std::string note = "nearest supported:";
    for (size_t i = 0; i < near.size(); ++i) {
      note += i ? ", " : " ";
      note += near[i]->full_name();
    }
    e.notes.push_back(std::move(note));
  }
  return e;
}

const OpSchema* OpTable::out_variant(const OpSchema& op) const {
  size_t i = index_of(op);
  if (i == kNpos || kSchemaRecords[i].out_variant == kNoIndex) return nullptr;
  return &at(kSchemaRecords[i].out_variant);
}

const OpSchema* OpTable::copy_variant(const OpSchema& op) const {
  size_t i = index_of(op);
  if (i == kNpos || kSchemaRecords[i].copy_variant == kNoIndex) return nullptr;
  return &at(kSchemaRecords[i].copy_variant);
}

KernelSet OpTable::kernels(const OpSchema& op) const {
  size_t i = index_of(op);
  return i == kNpos ? 0 : kSchemaRecords[i].kernels;
}

std::string_view OpTable::source(const OpSchema& op) const {
  size_t i = index_of(op);
  return i == kNpos ? std::string_view() : std::string_view(kSourceNames[kSchemaRecords[i].source]);
}

size_t OpTable::runtime_index(size_t i, KernelSet libs) const {
  if (kSchemaRecords[i].kernels & libs) return i;
  size_t base = i;
  if (uint16_t twin = kSchemaRecords[i].copy_variant; twin != kNoIndex) {
    if (kSchemaRecords[twin].kernels & libs) return twin;
    base = twin;
  }
  auto kind = static_cast<SchemaKind>(kSchemaRecords[base].kind);
  if (kind != SchemaKind::Functional && kind != SchemaKind::Mutable) return kNpos;
  uint16_t out = kSchemaRecords[base].out_variant;
  return out != kNoIndex && (kSchemaRecords[out].kernels & libs) ? out : kNpos;
}

const OpSchema* OpTable::runtime_op(const OpSchema& op, KernelSet libs) const {
  size_t i = index_of(op);
  if (i == kNpos) return nullptr;
  size_t r = runtime_index(i, libs);
  return r == kNpos ? nullptr : &at(r);
}

std::vector<const OpSchema*> OpTable::nearest_supported(std::string_view target, size_t max_results,
                                                        KernelSet libs) const {
  std::string ns;
  std::string name;
  if (auto parsed = parse_op_target(target); parsed.ok()) {
    ns = parsed->ns;
    name = parsed->name;
  } else {
    name = std::string(target);
  }
  std::string base = base_of(name);

  std::vector<size_t> same_name;
  std::vector<std::pair<size_t, size_t>> close;  // (distance, index)
  size_t limit = std::max<size_t>(2, base.size() / 3);
  for (size_t i = 0; i < size_; ++i) {
    const Entry& e = entries_[i];
    if (static_cast<SchemaKind>(kSchemaRecords[i].kind) != SchemaKind::Functional ||
        runtime_index(i, libs) == kNpos) {
      continue;
    }
    if ((ns.empty() || e.ns == ns) && (e.name == name || e.name == base)) {
      same_name.push_back(i);
      continue;
    }
    size_t d = edit_distance(base, e.name);
    if (d <= limit) close.emplace_back(d, i);
  }
  std::vector<const OpSchema*> out;
  if (!same_name.empty()) {
    for (size_t i : same_name) out.push_back(&at(i));
  } else {
    std::stable_sort(close.begin(), close.end(), [this](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      const Entry& x = entries_[a.second];
      const Entry& y = entries_[b.second];
      if (x.ns != y.ns) return x.ns < y.ns;
      if (x.name != y.name) return x.name < y.name;
      return x.overload < y.overload;
    });
    for (const auto& c : close) out.push_back(&at(c.second));
  }
  if (out.size() > max_results) out.resize(max_results);
  return out;
}

}  // namespace pteforge::ops
