// Metadata JSON (see metadata_json.h).
#include "emit/metadata_json.h"

#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "support/huge_pages.h"

namespace pteforge::emit {
namespace {

/// A RapidJSON output stream appending to a string. The string is sized up
/// in steps of 64 KiB (inside its reservation) and bytes are stored through
/// an index: RapidJSON's writers ask for room first (PutReserve, below) and
/// then store unchecked (PutUnsafe), where one push_back per character had
/// cost more instructions than the rest of the metadata writer. finish()
/// cuts the string to what was written.
class AppendStream {
 public:
  using Ch = char;
  explicit AppendStream(std::string& out) : out_(out), len_(out.size()) {}
  void Put(char c) {
    make_room(1);
    out_[len_++] = c;
  }
  void Flush() {}
  /// Ensures room for `n` more bytes.
  void make_room(size_t n) {
    if (out_.size() - len_ >= n) return;
    size_t want = len_ + std::max<size_t>(n, size_t{64} << 10);
    // Not past the reservation when the request fits in it: growing beyond
    // the capacity reallocates (and copies) the whole text.
    if (len_ + n <= out_.capacity()) want = std::min(want, out_.capacity());
    out_.resize(want);
  }
  /// Stores a byte; make_room must have made room for it.
  void put_unsafe(char c) { out_[len_++] = c; }
  /// Cuts the string to the bytes written.
  void finish() { out_.resize(len_); }
  /// Bytes written so far.
  size_t size() const { return len_; }

 private:
  std::string& out_;
  size_t len_;  // bytes written; out_.size() - len_ bytes of room follow
};

// Found by argument-dependent lookup from RapidJSON's writers (its generic
// versions call Put for every byte).
inline void PutReserve(AppendStream& stream, size_t count) { stream.make_room(count); }
inline void PutUnsafe(AppendStream& stream, char c) { stream.put_unsafe(c); }

template <typename Writer>
void write_string(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

template <typename Writer>
void write_value(Writer& w, const EValue& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Int>) {
          w.Int64(x.int_val);
        } else if constexpr (std::is_same_v<T, Bool>) {
          w.Bool(x.bool_val);
        } else if constexpr (std::is_same_v<T, Double>) {
          // JSON has no infinities: written as the strings "inf", "-inf", "nan" (as the decoder does).
          if (std::isnan(x.double_val)) {
            w.String("nan");
          } else if (std::isinf(x.double_val)) {
            w.String(x.double_val > 0 ? "inf" : "-inf");
          } else {
            w.Double(x.double_val);
          }
        } else if constexpr (std::is_same_v<T, String>) {
          write_string(w, x.string_val);
        } else {
          w.String(std::string(kernel_type_name(v.val)).c_str());
        }
      },
      v.val);
}

template <typename Writer, typename V>
void write_ints(Writer& w, const V& v) {
  w.StartArray();
  for (auto x : v) w.Int64(static_cast<int64_t>(x));
  w.EndArray();
}

template <typename Writer>
void write_method(Writer& w, const PlanFacts& plan, const MethodDebugInfo* debug,
                  const passes::MethodState* state, const TrainingMetadata* training) {
  w.StartObject();
  w.Key("name");
  write_string(w, plan.name);
  w.Key("values");
  w.Uint64(plan.num_values);
  w.Key("instructions");
  w.Uint64(plan.num_instructions);
  w.Key("inputs");
  write_ints(w, plan.inputs);
  w.Key("outputs");
  write_ints(w, plan.outputs);
  w.Key("operators");
  w.StartArray();
  for (const std::string& op : plan.operators) write_string(w, op);
  w.EndArray();
  w.Key("debug_handle_map");
  w.StartObject();
  if (debug) {
    for (const auto& [instruction, handle] : debug->debug_handles) {
      w.Key(std::to_string(instruction).c_str());
      w.Int64(handle);
    }
  }
  w.EndObject();
  // No delegates are emitted yet, so every delegate map is empty (§3.15).
  w.Key("delegate_map");
  w.StartObject();
  w.EndObject();
  w.Key("memory_plan");
  w.StartObject();
  w.Key("algorithm");
  write_string(w, state ? state->planning_algorithm : std::string());
  w.Key("non_const_buffer_sizes");
  write_ints(w, plan.non_const_buffer_sizes);
  w.Key("lower_bound");
  if (state) {
    write_ints(w, state->live_bytes_lower_bound);
  } else {
    write_ints(w, std::vector<int64_t>{});
  }
  w.Key("tensors");
  w.StartArray();
  if (debug) {
    for (const PlannedTensorInfo& t : debug->planned) {
      w.StartObject();
      w.Key("value");
      w.Int(t.value);
      w.Key("names");
      w.StartArray();
      for (const std::string& n : t.names) write_string(w, n);
      w.EndArray();
      w.Key("mem_id");
      w.Uint(t.mem_id);
      w.Key("offset");
      w.Uint64(t.offset);
      w.Key("size");
      w.Uint64(t.nbytes);
      w.Key("lifetime");
      w.StartArray();
      w.Int64(t.lifetime_first);
      w.Int64(t.lifetime_last);
      w.EndArray();
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  if (training) {
    w.Key("training");
    w.StartObject();
    w.Key("gradients_index");
    if (training->gradients_index) {
      w.Int64(*training->gradients_index);
    } else {
      w.Null();
    }
    w.Key("parameters_index");
    if (training->parameters_index) {
      w.Int64(*training->parameters_index);
    } else {
      w.Null();
    }
    w.Key("fqns");
    w.StartArray();
    for (const std::string& f : training->fqns) write_string(w, f);
    w.EndArray();
    w.EndObject();
  }
  if (debug && !debug->relaid_out_constants.empty()) {
    w.Key("relaid_out_constants");
    w.StartArray();
    for (const std::string& f : debug->relaid_out_constants) write_string(w, f);
    w.EndArray();
  }
  w.EndObject();
}

/// The "file" member: the layout of the serialized file.
template <typename Writer>
void write_file_layout(Writer& w, const PteOutput& pte) {
  w.Key("file");
  w.StartObject();
  w.Key("size");
  w.Uint64(pte.layout.file_size);
  w.Key("program_size");
  w.Uint64(pte.layout.program_size);
  w.Key("segment_base_offset");
  w.Uint64(pte.layout.segment_base_offset);
  w.Key("segment_data_size");
  w.Uint64(pte.layout.segment_data_size);
  w.Key("segments");
  w.StartArray();
  for (const DataSegment& s : pte.program.segments) {
    w.StartObject();
    w.Key("offset");
    w.Uint64(s.offset);
    w.Key("size");
    w.Uint64(s.size);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

/// The document without its "file" member; `version_end` receives the
/// offset just past the "version" value, where "file" belongs.
template <typename Writer>
void write_draft(Writer& w, AppendStream& out, const std::vector<PlanFacts>& plans,
                 const EmitterOutput& emitted,
                 const std::map<std::string, const passes::MethodState*>& states,
                 const std::string* report_json, size_t& version_end) {
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("format");
  w.String("pteforge-metadata");
  w.Key("version");
  w.Int(1);
  version_end = out.size();

  auto pool = [&](const char* key, const std::vector<Chunk>& entries) {
    w.Key(key);
    w.StartObject();
    w.Key("count");
    w.Uint64(entries.empty() ? 0 : entries.size() - 1);
    w.Key("bytes");
    w.Uint64(total_size(entries));
    w.EndObject();
  };
  pool("constants", emitted.data.constant_buffer);
  pool("mutable_data", emitted.data.mutable_buffer);

  w.Key("methods");
  w.StartArray();
  std::vector<const PlanFacts*> getters;
  for (const PlanFacts& plan : plans) {
    if (plan.constant_method) {
      getters.push_back(&plan);
      continue;
    }
    auto d = emitted.debug.find(plan.name);  // found: plan_facts said so
    auto s = states.find(plan.name);
    const TrainingMetadata* training = nullptr;
    for (const TrainingMetadata& t : emitted.training) {
      if (t.method == plan.name) training = &t;
    }
    write_method(w, plan, d == emitted.debug.end() ? nullptr : &d->second,
                 s == states.end() ? nullptr : s->second, training);
  }
  w.EndArray();

  w.Key("constant_methods");
  w.StartArray();
  for (const PlanFacts* plan : getters) {
    w.StartObject();
    w.Key("name");
    write_string(w, plan->name);
    w.Key("values");
    w.StartArray();
    for (const EValue& v : plan->getter_values) write_value(w, v);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();

  if (report_json) {
    w.Key("pass_report");
    w.RawValue(report_json->data(), report_json->size(), rapidjson::kObjectType);
  }
  w.EndObject();
}

}  // namespace

std::vector<PlanFacts> plan_facts(const Program& program,
                                  const std::map<std::string, MethodDebugInfo>& debug) {
  std::vector<PlanFacts> facts;
  facts.reserve(program.execution_plan.size());
  for (const ExecutionPlan& plan : program.execution_plan) {
    PlanFacts& f = facts.emplace_back();
    f.name = plan.name;
    f.num_values = plan.values.size();
    f.num_instructions = plan.chains.empty() ? 0 : plan.chains.front().instructions.size();
    f.inputs = plan.inputs;
    f.outputs = plan.outputs;
    f.operators.reserve(plan.operators.size());
    for (const Operator& op : plan.operators) f.operators.push_back(operator_qualified_name(op));
    f.non_const_buffer_sizes = plan.non_const_buffer_sizes;
    // A constant method (no debug info: the emitter made it from an option or
    // training metadata) has its values listed.
    f.constant_method = !debug.contains(plan.name);
    if (f.constant_method) f.getter_values = plan.values;
  }
  return facts;
}

MetadataDraft draft_metadata_json(const std::vector<PlanFacts>& plans, const EmitterOutput& emitted,
                                  const std::map<std::string, const passes::MethodState*>& states,
                                  const std::string* report_json) {
  // Written into a string reserved for the usual size (about 70 bytes per
  // value at 100k nodes), so it is rarely copied as it grows: a growing
  // buffer allocated about three times the final size plus a copy (22 MB of
  // metadata at 100k nodes), and memory touched for the first time is the
  // dearest part of a conversion. A reservation past the final size is
  // never touched. The room for "file" (added by finish_metadata_json) is
  // part of the 64 KiB.
  size_t estimate = (report_json ? report_json->size() : 0) + (size_t{64} << 10);
  for (const PlanFacts& plan : plans) estimate += 96 * (plan.num_values + plan.num_instructions);
  MetadataDraft draft;
  draft.text.reserve(estimate);
  advise_huge_pages(draft.text.data(), draft.text.capacity());
  AppendStream append(draft.text);
  rapidjson::PrettyWriter<AppendStream> writer(append);
  write_draft(writer, append, plans, emitted, states, report_json, draft.file_at);
  append.Put('\n');
  append.finish();
  return draft;
}

std::string finish_metadata_json(MetadataDraft draft, const PteOutput& pte) {
  // "file" written as the only member of a document of its own has the
  // indentation it has in the full document; its lines go in after the
  // "version" value, behind a comma, as the writer would have put them.
  std::string file;
  AppendStream append(file);
  rapidjson::PrettyWriter<AppendStream> writer(append);
  writer.SetIndent(' ', 2);
  writer.StartObject();
  write_file_layout(writer, pte);
  writer.EndObject();
  append.finish();
  // file = "{\n" + member + "\n}"
  file[0] = ',';  // "," + member: one insertion moves the rest of the text once
  const std::string_view addition = std::string_view(file).substr(0, file.size() - 2);
  // Usually inside the reservation (its 64 KiB spare include this); if the
  // text outgrew it, insert copies it once into a larger buffer.
  draft.text.insert(draft.file_at, addition);
  return std::move(draft.text);
}

std::string metadata_to_json(const EmitterOutput& emitted, const PteOutput& pte,
                             const std::map<std::string, const passes::MethodState*>& states,
                             const passes::PassReport* report, const MetadataOptions& options) {
  const std::string report_json = report ? report->to_json(options.with_times) : std::string();
  return finish_metadata_json(draft_metadata_json(plan_facts(pte.program, emitted.debug), emitted, states,
                                                  report ? &report_json : nullptr),
                              pte);
}

}  // namespace pteforge::emit
