// .pte bytes → Program model (see pte_decode.h).
#include "emit/pte_decode.h"

#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "emit/pte_fault.h"
#include "schema/program_generated.h"
#include "serde/archive.h"

namespace pteforge::emit {
namespace {

/// Bytes of the file from segment_base_offset to its end (0 when the base is past it).
uint64_t bytes_after_segment_base(const PteFileInfo& info) {
  return info.file_size - std::min(info.file_size, info.segment_base_offset);
}

namespace fb = executorch_flatbuffer;

// Offsets in a flatbuffer are signed 32-bit; the verifier refuses anything larger.
constexpr uint64_t kMaxProgramSize = FLATBUFFERS_MAX_BUFFER_SIZE - 1;
// Verifier limits: deep enough for any program, bounded for hostile input.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 100'000'000;
// Expansion budget of decoding: vector items and string bytes copied, per
// byte of the program, plus a constant allowance. The converter's writer
// shares identical tables, so a reference (4 bytes) may repeat a small
// table's items; 16 per byte leaves room for that.
constexpr uint64_t kItemsPerByte = 16;
constexpr uint64_t kItemAllowance = 1 << 20;

/// The most tables a program of `size` bytes can hold without sharing one
/// table between references: each takes at least 4 bytes and is reached by
/// a 4-byte offset. A larger count means tables referenced many times (a few
/// KB expanding to gigabytes when decoded), which no serializer writes.
flatbuffers::uoffset_t max_tables_for(uint64_t size) {
  return static_cast<flatbuffers::uoffset_t>(std::min<uint64_t>(kMaxTables, size / 4 + 64));
}

/// What `bytes` are when they look like one of the converter's inputs, as
/// its readers sniff them (serde::looks_like_zip, serde::starts_json_document);
/// nullopt otherwise.
std::optional<std::string> converter_input_kind(std::string_view bytes) {
  if (serde::looks_like_zip(bytes)) return std::string("a zip archive (such as a .pt2)");
  const std::string_view head = bytes.substr(0, 4096);
  const size_t first = serde::json_text_start(head);
  if (serde::starts_json_document(head, first)) return std::string("JSON (such as a program JSON)");
  return std::nullopt;
}

class Decoder {
 public:
  explicit Decoder(const DecodeOptions& options) : options_(options) {}

  Error invalid(std::string message, std::optional<uint64_t> byte_offset, std::optional<std::string> pointer = {}) const {
    Location where;
    if (!options_.source_name.empty()) where.entry = options_.source_name;
    where.byte_offset = byte_offset;
    where.pointer = std::move(pointer);
    return make_error(ErrorCode::PTE_INVALID, std::move(message), where);
  }

  Result<DecodedPte> decode(std::string_view bytes) {
    DecodedPte out;
    PteFileInfo& info = out.info;
    info.file_size = std::max<uint64_t>(options_.file_size.value_or(0), bytes.size());
    const bool has_identifier = bytes.size() >= 8 && bytes.substr(4, 4) == fb::ProgramIdentifier();
    if (!has_identifier) {
      // A converter input handed to decode by mistake is named as what it is.
      if (std::optional<std::string> what = converter_input_kind(bytes)) {
        return invalid("the input is " + *what + ", not a .pte; convert makes a .pte of it", 0);
      }
    }
    if (bytes.size() < 8) {
      return invalid("the input is " + std::to_string(bytes.size()) +
                         " bytes; a .pte starts with a 4-byte root offset and the identifier \"ET12\"",
                     bytes.size());
    }
    info.identifier = std::string(bytes.substr(4, 4));
    if (!has_identifier) {
      return invalid("file identifier is " + printable(info.identifier) + "; \"ET12\" expected", 4);
    }
    auto header = parse_extended_header(bytes);
    if (!header.ok()) {
      Error e = std::move(header).error();
      if (!options_.source_name.empty()) e.where.entry = options_.source_name;
      return e;
    }
    info.extended_header = *header;
    if (info.extended_header) {
      PTEFORGE_TRY(check_header(*info.extended_header, bytes.size(), info));
    } else {
      if (info.file_size > kMaxProgramSize) {
        return invalid("the file has no extended header, so the whole file is the program, but it is " +
                           std::to_string(info.file_size) + " bytes; at most " + std::to_string(kMaxProgramSize) +
                           " are possible",
                       std::nullopt);
      }
      if (info.file_size > bytes.size()) {
        return invalid("the file has no extended header, so the whole file is the program, but only " +
                           std::to_string(bytes.size()) + " of its " + std::to_string(info.file_size) +
                           " bytes were given",
                       bytes.size());
      }
      info.program_size = bytes.size();
      info.segment_base_offset = bytes.size();
      info.segment_data_size = 0;
    }
    if (info.program_size > kMaxProgramSize) {
      return invalid("the program part is " + std::to_string(info.program_size) + " bytes; at most " +
                         std::to_string(kMaxProgramSize) + " are possible",
                     info.extended_header ? std::optional<uint64_t>(16) : std::nullopt);
    }

    // The root table offset (the first 4 bytes, little-endian) must leave room
    // for the table's own 4-byte vtable offset: a file cut short (or a broken
    // offset) fails here, with a message saying so rather than the verifier's
    // general one.
    {
      uint32_t root = 0;
      if (info.program_size >= 4) {
        for (int i = 3; i >= 0; --i) root = (root << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
      }
      if (info.program_size < 8 || uint64_t{root} + 4 > info.program_size) {
        return invalid("the root table offset " + std::to_string(root) +
                           " (bytes 0..3) points past the end of the " + std::to_string(info.program_size) +
                           "-byte program: the file is truncated or corrupt",
                       0);
      }
    }
    // Verify and read from an 8-byte aligned copy: flatbuffers reads scalars
    // in place, and the caller's bytes may sit at any address.
    std::vector<uint64_t> aligned((info.program_size + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), static_cast<size_t>(info.program_size));
    auto buf = reinterpret_cast<const uint8_t*>(aligned.data());
    const flatbuffers::uoffset_t max_tables = max_tables_for(info.program_size);
    flatbuffers::Verifier verifier(buf, static_cast<size_t>(info.program_size), kMaxDepth, max_tables);
    const bool verified = fb::VerifyProgramBuffer(verifier);
    if (!verified || find_backward_offset(buf, static_cast<size_t>(info.program_size))) {
      // The verifier says only no: look for the part that fails on its own.
      // (A backward offset passes the verifier only on a 32-bit machine.)
      std::optional<FlatbufferFault> fault =
          locate_flatbuffer_fault(reinterpret_cast<uint8_t*>(aligned.data()),
                                  static_cast<size_t>(info.program_size), kMaxDepth, max_tables);
      std::optional<std::string> pointer;
      if (fault && !fault->pointer.empty()) pointer = fault->pointer;
      // (Also what a file referencing tables more often than max_tables_for
      // its size allows gets: shared tables, which would expand when decoded.)
      return invalid(
          "the flatbuffer failed verification: a table, vector or string is out of bounds, "
          "misaligned or nested too deeply",
          fault ? std::optional<uint64_t>(fault->byte_offset) : std::nullopt, pointer);
    }
    const fb::Program* p = fb::GetProgram(buf);
    // Without shared tables a program holds fewer items than bytes; a file
    // whose tables are referenced over and over (a few hundred KB naming one
    // 5,000-entry table 5,000 times) would expand to gigabytes. No
    // serializer shares that much: refuse it before the memory is spent.
    item_budget_ = kItemsPerByte * info.program_size + kItemAllowance;
    decoded_items_ = 0;
    over_budget_ = false;
    PTEFORGE_TRY(convert_program(*p, out.program));
    if (over_budget_) {
      return invalid("the program's tables are shared so often that decoding its " +
                         std::to_string(info.program_size) + " bytes would copy more than " +
                         std::to_string(item_budget_) + " vector items and string bytes (at most " +
                         std::to_string(kItemsPerByte) +
                         " per byte of the program); no serializer writes such a file",
                     std::nullopt);
    }
    PTEFORGE_TRY(check_segments(out.program, info));
    out.layout_problems = std::move(layout_problems_);
    if (options_.check_load) out.load_check = check_method_load(*p);
    return out;
  }

 private:
  static std::string printable(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        out += static_cast<char>(c);
      } else {
        static const char* hex = "0123456789abcdef";
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out + "\"";
  }

  Status check_header(const ExtendedHeader& h, uint64_t available, PteFileInfo& info) const {
    const uint64_t header_end = kExtendedHeaderOffset + kExtendedHeaderLength;
    if (h.program_size < header_end) {
      return invalid("extended header: program_size " + std::to_string(h.program_size) +
                         " is smaller than the header itself (" + std::to_string(header_end) + " bytes)",
                     16);
    }
    if (h.program_size > info.file_size) {  // a truncated file, most likely: located where it ends
      return invalid("extended header: program_size " + std::to_string(h.program_size) +
                         " is larger than the file (" + std::to_string(info.file_size) + " bytes)",
                     info.file_size);
    }
    if (h.program_size > kMaxProgramSize) {
      return invalid("extended header: program_size " + std::to_string(h.program_size) + " is above the " +
                         std::to_string(kMaxProgramSize) + " bytes a flatbuffer can have",
                     16);
    }
    if (h.program_size > available) {
      return invalid("extended header: program_size is " + std::to_string(h.program_size) + " but only " +
                         std::to_string(available) + " bytes are present",
                     available);
    }
    // ExecuTorch writes 0 when the file has no segments (program.cpp: "No
    // segments in program"); then there is no segment data.
    if (h.segment_base_offset == 0) {
      if (h.segment_data_size && *h.segment_data_size != 0) {
        return invalid("extended header: segment_base_offset 0 (no segments) with segment_data_size " +
                           std::to_string(*h.segment_data_size),
                       32);
      }
      info.program_size = h.program_size;
      info.segment_base_offset = h.program_size;
      info.segment_data_size = 0;
      return Status::Ok();
    }
    if (h.segment_base_offset < h.program_size) {
      // The runtime loads segments at segment_base_offset + offset, wherever that is.
      layout_problems_.push_back({"/extended_header/segment_base_offset",
                                  "segment_base_offset " + std::to_string(h.segment_base_offset) +
                                      " lies inside the program (program_size " +
                                      std::to_string(h.program_size) +
                                      "); ExecuTorch's serializer starts the segments after it"});
    }
    if (h.segment_base_offset > info.file_size) {
      return invalid("extended header: segment_base_offset " + std::to_string(h.segment_base_offset) +
                         " is past the end of the file (" + std::to_string(info.file_size) + " bytes)",
                     info.file_size);
    }
    uint64_t data_size = info.file_size - h.segment_base_offset;
    if (h.segment_data_size) {
      if (*h.segment_data_size > data_size) {
        return invalid("extended header: segment_data_size " + std::to_string(*h.segment_data_size) +
                           " from segment_base_offset " + std::to_string(h.segment_base_offset) +
                           " passes the end of the file (" + std::to_string(info.file_size) +
                           " bytes: at most " + std::to_string(data_size) + " bytes of segment data)",
                       info.file_size);
      }
      // The runtime ignores segment_data_size: segments are checked against
      // the file (check_segments) and this against them.
      data_size = *h.segment_data_size;
    }
    info.program_size = h.program_size;
    info.segment_base_offset = h.segment_base_offset;
    info.segment_data_size = data_size;
    return Status::Ok();
  }

  // Segments must lie inside the segment data; references must name
  // existing segments (checks the runtime makes when loading).
  //
  // A segment past the end of the file is a truncated file: PTE_INVALID. What
  // the runtime tolerates until it loads the part (it checks only those) is
  // a layout problem: a segment past segment_data_size but inside the file
  // (the runtime ignores segment_data_size), a subsegment offset past its
  // segment's end (check_method_load checks those a method reads).
  Status check_segments(const Program& p, const PteFileInfo& info) const {
    const uint64_t in_file = bytes_after_segment_base(info);
    uint64_t needed = 0;  // the end of the furthest segment
    for (size_t i = 0; i < p.segments.size(); ++i) {
      const auto& s = p.segments[i];
      const std::string at = "/segments/" + std::to_string(i);
      // segment_base_offset 0 says the file has no segments: the runtime's
      // LoadSegment refuses every one, and Program::load would read the
      // constant segment from the flatbuffer's own bytes.
      const bool base_zero = info.extended_header && info.extended_header->segment_base_offset == 0;
      if (s.size == 0 && (s.offset <= in_file || !info.extended_header || base_zero)) continue;
      if (base_zero) {
        return invalid(
            "segment " + std::to_string(i) + " has " + std::to_string(s.size) +
                " bytes but the extended header's segment_base_offset is 0, which says the file has "
                "no segments",
            24, at);
      }
      if (!info.extended_header) {
        return invalid("segment " + std::to_string(i) + " has " + std::to_string(s.size) +
                           " bytes but the file has no extended header, so no segment data",
                       std::nullopt, at);
      }
      if (s.offset > in_file || s.size > in_file - s.offset) {
        return invalid("segment " + std::to_string(i) + " (offset " + std::to_string(s.offset) + ", size " +
                           std::to_string(s.size) + ") extends past the end of the file (" +
                           std::to_string(in_file) + " bytes after segment_base_offset " +
                           std::to_string(info.segment_base_offset) + "): the file is probably truncated",
                       info.segment_base_offset + std::min(s.offset, in_file), at);
      }
      needed = std::max(needed, s.offset + s.size);
    }
    if (needed > info.segment_data_size) {
      layout_problems_.push_back({"/extended_header/segment_data_size",
                                  "segment_data_size " + std::to_string(info.segment_data_size) +
                                      " is smaller than the segments need (" + std::to_string(needed) +
                                      " bytes); the runtime does not read it"});
    }
    auto check_sub = [&](const SubsegmentOffsets& sub, const std::string& pointer) -> Status {
      if (sub.offsets.empty() || (pointer == "/constant_segment" && sub.offsets.size() == 1)) return Status::Ok();
      if (sub.segment_index >= p.segments.size()) {
        return invalid("segment_index " + std::to_string(sub.segment_index) + " names no segment (" +
                           std::to_string(p.segments.size()) + " segments)",
                       std::nullopt, pointer);
      }
      uint64_t size = p.segments[sub.segment_index].size;
      for (size_t k = 0; k < sub.offsets.size(); ++k) {
        if (sub.offsets[k] > size) {
          layout_problems_.push_back({pointer + "/offsets/" + std::to_string(k),
                                      "offset " + std::to_string(sub.offsets[k]) +
                                          " is past the end of segment " + std::to_string(sub.segment_index) +
                                          " (" + std::to_string(size) +
                                          " bytes); the runtime refuses it only for a tensor that uses it"});
        }
      }
      return Status::Ok();
    };
    if (p.constant_segment) PTEFORGE_TRY(check_sub(*p.constant_segment, "/constant_segment"));
    // The runtime's Program::load takes one of the two constant layouts.
    // It uses the segment when constant_segment has more than the placeholder
    // offset 0, and then refuses inline buffers too.
    if (!p.constant_buffer.empty() && p.constant_segment && p.constant_segment->offsets.size() > 1) {
      return invalid("constant_buffer holds " + std::to_string(p.constant_buffer.size()) +
                         " inline buffers and constant_segment " +
                         std::to_string(p.constant_segment->offsets.size()) +
                         " offsets; a program uses one of the two (ExecuTorch's loader refuses both)",
                     std::nullopt, "/constant_buffer");
    }
    if (p.mutable_data_segments) {
      for (size_t i = 0; i < p.mutable_data_segments->size(); ++i) {
        PTEFORGE_TRY(check_sub((*p.mutable_data_segments)[i], "/mutable_data_segments/" + std::to_string(i)));
      }
    }
    if (p.named_data) {
      for (size_t i = 0; i < p.named_data->size(); ++i) {
        if ((*p.named_data)[i].segment_index >= p.segments.size()) {
          return invalid("named data '" + (*p.named_data)[i].key + "' names segment " +
                             std::to_string((*p.named_data)[i].segment_index) + " of " +
                             std::to_string(p.segments.size()),
                         std::nullopt, "/named_data/" + std::to_string(i));
        }
      }
    }
    for (size_t pi = 0; pi < p.execution_plan.size(); ++pi) {
      const auto& delegates = p.execution_plan[pi].delegates;
      for (size_t di = 0; di < delegates.size(); ++di) {
        const auto& ref = delegates[di].processed;
        size_t limit = ref.location == DataLocation::Segment ? p.segments.size() : p.backend_delegate_data.size();
        if ((ref.location != DataLocation::Segment && ref.location != DataLocation::Inline) || ref.index >= limit) {
          return invalid("delegate data reference (" + data_location_name(ref.location) + ", " +
                             std::to_string(ref.index) + ") names nothing",
                         std::nullopt,
                         "/execution_plan/" + std::to_string(pi) + "/delegates/" + std::to_string(di) + "/processed");
        }
      }
    }
    return Status::Ok();
  }

  /// Charges `n` decoded items (vector elements, string bytes) to the
  /// expansion budget; false once it is spent (then nothing more is copied).
  bool charge(uint64_t n) const {
    decoded_items_ += n;
    if (decoded_items_ > item_budget_) over_budget_ = true;
    return !over_budget_;
  }

  std::string str(const flatbuffers::String* s) const {
    return s && charge(s->size()) ? s->str() : std::string();
  }

  /// The items of a scalar vector. Each is copied out byte-wise: the
  /// verifier checks only the 4-byte alignment of a vector's length field, so
  /// in a damaged (or hand-made) file the 8-byte items of an int64 or double
  /// vector may sit off their alignment, where reading them in place is
  /// undefined behaviour (found by fuzzing under UBSan).
  template <typename T, typename F>
  std::vector<T> vec(const flatbuffers::Vector<F>* v) const {
    static_assert(std::is_arithmetic_v<F>, "scalar vectors only");
    std::vector<T> out;
    if (!v || !charge(v->size())) return out;
    out.reserve(v->size());
    const uint8_t* data = v->Data();
    for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) {
      F item;
      std::memcpy(&item, data + static_cast<size_t>(i) * sizeof(F), sizeof(F));
      out.push_back(static_cast<T>(flatbuffers::EndianScalar(item)));
    }
    return out;
  }

  Tensor convert_tensor(const fb::Tensor& t) const {
    Tensor out;
    out.scalar_type = static_cast<ir::ScalarType>(t.scalar_type());
    out.storage_offset = t.storage_offset();
    out.sizes = vec<int32_t>(t.sizes());
    out.dim_order = vec<uint8_t>(t.dim_order());
    out.requires_grad = t.requires_grad();
    out.data_buffer_idx = t.data_buffer_idx();
    if (const auto* a = t.allocation_info()) {
      out.allocation_info = AllocationDetails{
          a->memory_id(), uint64_t{a->memory_offset_low()} | (uint64_t{a->memory_offset_high()} << 32)};
    }
    out.layout = t.layout();
    out.shape_dynamism = static_cast<TensorShapeDynamism>(t.shape_dynamism());
    if (const auto* e = t.extra_tensor_info()) {
      ExtraTensorInfo x;
      x.mutable_data_segments_idx = e->mutable_data_segments_idx();
      x.fully_qualified_name = str(e->fully_qualified_name());
      x.location = static_cast<TensorDataLocation>(e->location());
      x.device_type = static_cast<DeviceType>(e->device_type());
      x.device_index = e->device_index();
      out.extra_tensor_info = std::move(x);
    }
    return out;
  }

  Result<EValue> convert_value(const fb::EValue* v, const std::string& pointer) const {
    if (!v) return invalid("the value is missing", std::nullopt, pointer);
    const auto type = v->val_type();
    if (type == fb::KernelTypes::Null) return EValue{Null{}};
    if (!v->val()) {
      return invalid(std::string("the value of type ") + name_of(type) + " has no content", std::nullopt, pointer);
    }
    switch (type) {
      case fb::KernelTypes::Int:
        return EValue{Int{v->val_as_Int()->int_val()}};
      case fb::KernelTypes::Bool:
        return EValue{Bool{v->val_as_Bool()->bool_val()}};
      case fb::KernelTypes::Double:
        return EValue{Double{v->val_as_Double()->double_val()}};
      case fb::KernelTypes::Tensor:
        return EValue{convert_tensor(*v->val_as_Tensor())};
      case fb::KernelTypes::String:
        return EValue{String{str(v->val_as_String()->string_val())}};
      case fb::KernelTypes::IntList:
        return EValue{IntList{vec<int64_t>(v->val_as_IntList()->items())}};
      case fb::KernelTypes::DoubleList:
        return EValue{DoubleList{vec<double>(v->val_as_DoubleList()->items())}};
      case fb::KernelTypes::BoolList: {
        BoolList l;
        if (const auto* items = v->val_as_BoolList()->items(); items && charge(items->size())) {
          for (flatbuffers::uoffset_t i = 0; i < items->size(); ++i) l.items.push_back(items->Get(i) != 0);
        }
        return EValue{std::move(l)};
      }
      case fb::KernelTypes::TensorList:
        return EValue{TensorList{vec<int32_t>(v->val_as_TensorList()->items())}};
      case fb::KernelTypes::OptionalTensorList:
        return EValue{OptionalTensorList{vec<int32_t>(v->val_as_OptionalTensorList()->items())}};
      default:
        return invalid("unknown value type " + std::to_string(static_cast<int>(type)) +
                           " (KernelTypes 1..11 expected)",
                       std::nullopt, pointer);
    }
  }

  static std::string name_of(fb::KernelTypes t) {
    const char* n = fb::EnumNameKernelTypes(t);
    return n && *n ? n : std::to_string(static_cast<int>(t));
  }

  Result<Instruction> convert_instruction(const fb::Instruction* ins, const std::string& pointer) const {
    if (!ins || !ins->instr_args()) return invalid("the instruction has no arguments", std::nullopt, pointer);
    switch (ins->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const auto* k = ins->instr_args_as_KernelCall();
        return Instruction{KernelCall{k->op_index(), vec<int32_t>(k->args())}};
      }
      case fb::InstructionArguments::DelegateCall: {
        const auto* d = ins->instr_args_as_DelegateCall();
        return Instruction{DelegateCall{d->delegate_index(), vec<int32_t>(d->args())}};
      }
      case fb::InstructionArguments::MoveCall: {
        const auto* m = ins->instr_args_as_MoveCall();
        return Instruction{MoveCall{m->move_from(), m->move_to()}};
      }
      case fb::InstructionArguments::JumpFalseCall: {
        const auto* j = ins->instr_args_as_JumpFalseCall();
        return Instruction{JumpFalseCall{j->cond_value_index(), j->destination_instruction()}};
      }
      case fb::InstructionArguments::FreeCall:
        return Instruction{FreeCall{ins->instr_args_as_FreeCall()->value_index()}};
      default:
        return invalid("unknown instruction type " + std::to_string(static_cast<int>(ins->instr_args_type())) +
                           " (InstructionArguments 1..5 expected)",
                       std::nullopt, pointer);
    }
  }

  Result<Chain> convert_chain(const fb::Chain* c, const std::string& pointer) const {
    Chain out;
    if (!c) return invalid("the chain is missing", std::nullopt, pointer);
    out.inputs = vec<int32_t>(c->inputs());
    out.outputs = vec<int32_t>(c->outputs());
    if (const auto* ins = c->instructions()) {
      for (flatbuffers::uoffset_t i = 0; i < ins->size(); ++i) {
        // Moved straight from the Result: a named local here gets a false
        // -Wmaybe-uninitialized from GCC 12 at -O2.
        Result<Instruction> x = convert_instruction(ins->Get(i), pointer + "/instructions/" + std::to_string(i));
        if (!x.ok()) return std::move(x).error();
        out.instructions.push_back(std::move(x).value());
      }
    }
    if (const auto* st = c->stacktrace()) {
      std::vector<FrameList> frames;
      for (flatbuffers::uoffset_t i = 0; i < st->size(); ++i) {
        FrameList fl;
        const auto* f = st->Get(i);
        if (f && f->items()) {
          for (flatbuffers::uoffset_t k = 0; k < f->items()->size(); ++k) {
            const auto* fr = f->items()->Get(k);
            if (!fr) continue;
            fl.items.push_back(Frame{str(fr->filename()), fr->lineno(), str(fr->name()), str(fr->context())});
          }
        }
        frames.push_back(std::move(fl));
      }
      out.stacktrace = std::move(frames);
    }
    return out;
  }

  Result<ExecutionPlan> convert_plan(const fb::ExecutionPlan* plan, const std::string& pointer) const {
    if (!plan) return invalid("the execution plan is missing", std::nullopt, pointer);
    ExecutionPlan out;
    out.name = str(plan->name());
    if (const auto* m = plan->container_meta_type()) {
      out.container_meta_type = ContainerMetadata{str(m->encoded_inp_str()), str(m->encoded_out_str())};
    }
    if (const auto* values = plan->values()) {
      out.values.reserve(values->size());
      for (flatbuffers::uoffset_t i = 0; i < values->size(); ++i) {
        PTEFORGE_ASSIGN_OR_RETURN(EValue v, convert_value(values->Get(i), pointer + "/values/" + std::to_string(i)));
        out.values.push_back(std::move(v));
      }
    }
    out.inputs = vec<int32_t>(plan->inputs());
    out.outputs = vec<int32_t>(plan->outputs());
    if (const auto* chains = plan->chains()) {
      for (flatbuffers::uoffset_t i = 0; i < chains->size(); ++i) {
        PTEFORGE_ASSIGN_OR_RETURN(Chain c, convert_chain(chains->Get(i), pointer + "/chains/" + std::to_string(i)));
        out.chains.push_back(std::move(c));
      }
    }
    if (const auto* ops = plan->operators()) {
      for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i) {
        const auto* op = ops->Get(i);
        out.operators.push_back(op ? Operator{str(op->name()), str(op->overload())} : Operator{});
      }
    }
    if (const auto* dels = plan->delegates()) {
      for (flatbuffers::uoffset_t i = 0; i < dels->size(); ++i) {
        const auto* d = dels->Get(i);
        BackendDelegate bd;
        if (d) {
          bd.id = str(d->id());
          if (const auto* r = d->processed()) {
            bd.processed = BackendDelegateDataReference{static_cast<DataLocation>(r->location()), r->index()};
          }
          if (const auto* specs = d->compile_specs()) {
            for (flatbuffers::uoffset_t k = 0; k < specs->size(); ++k) {
              const auto* cs = specs->Get(k);
              if (cs) bd.compile_specs.push_back(CompileSpec{str(cs->key()), vec<uint8_t>(cs->value())});
            }
          }
        }
        out.delegates.push_back(std::move(bd));
      }
    }
    out.non_const_buffer_sizes = vec<int64_t>(plan->non_const_buffer_sizes());
    if (const auto* devs = plan->non_const_buffer_device()) {
      std::vector<NonConstBufferDevice> d;
      for (flatbuffers::uoffset_t i = 0; i < devs->size(); ++i) {
        const auto* x = devs->Get(i);
        if (x) {
          d.push_back(NonConstBufferDevice{x->buffer_idx(), static_cast<DeviceType>(x->device_type()),
                                           x->device_index()});
        }
      }
      out.non_const_buffer_device = std::move(d);
    }
    return out;
  }

  SubsegmentOffsets convert_sub(const fb::SubsegmentOffsets& s) const {
    return SubsegmentOffsets{s.segment_index(), vec<uint64_t>(s.offsets())};
  }

  Status convert_program(const fb::Program& p, Program& out) const {
    out.version = p.version();
    if (const auto* plans = p.execution_plan()) {
      for (flatbuffers::uoffset_t i = 0; i < plans->size(); ++i) {
        PTEFORGE_ASSIGN_OR_RETURN(ExecutionPlan plan,
                                  convert_plan(plans->Get(i), "/execution_plan/" + std::to_string(i)));
        out.execution_plan.push_back(std::move(plan));
      }
    }
    if (const auto* cb = p.constant_buffer()) {
      for (flatbuffers::uoffset_t i = 0; i < cb->size(); ++i) {
        const auto* b = cb->Get(i);
        out.constant_buffer.push_back(Buffer{b ? vec<uint8_t>(b->storage()) : std::vector<uint8_t>{}});
      }
    }
    if (const auto* dd = p.backend_delegate_data()) {
      for (flatbuffers::uoffset_t i = 0; i < dd->size(); ++i) {
        const auto* d = dd->Get(i);
        out.backend_delegate_data.push_back(
            BackendDelegateInlineData{d ? vec<uint8_t>(d->data()) : std::vector<uint8_t>{}});
      }
    }
    if (const auto* segs = p.segments()) {
      for (flatbuffers::uoffset_t i = 0; i < segs->size(); ++i) {
        const auto* s = segs->Get(i);
        out.segments.push_back(s ? DataSegment{s->offset(), s->size()} : DataSegment{});
      }
    }
    if (const auto* cs = p.constant_segment()) out.constant_segment = convert_sub(*cs);
    if (const auto* ms = p.mutable_data_segments()) {
      std::vector<SubsegmentOffsets> m;
      for (flatbuffers::uoffset_t i = 0; i < ms->size(); ++i) {
        const auto* s = ms->Get(i);
        m.push_back(s ? convert_sub(*s) : SubsegmentOffsets{});
      }
      out.mutable_data_segments = std::move(m);
    }
    if (const auto* nd = p.named_data()) {
      std::vector<NamedData> n;
      for (flatbuffers::uoffset_t i = 0; i < nd->size(); ++i) {
        const auto* x = nd->Get(i);
        n.push_back(x ? NamedData{str(x->key()), x->segment_index()} : NamedData{});
      }
      out.named_data = std::move(n);
    }
    return Status::Ok();
  }

  const DecodeOptions& options_;
  /// Vector items and string bytes decode() may copy (set per file), and the count so far.
  mutable uint64_t item_budget_ = 0;
  mutable uint64_t decoded_items_ = 0;
  mutable std::vector<LoadProblem> layout_problems_;  // see DecodedPte::layout_problems
  mutable bool over_budget_ = false;
};

}  // namespace

uint64_t pte_prefix_to_decode(std::string_view head, uint64_t file_size) {
  if (head.size() >= file_size) return file_size;
  if (head.size() < 8 || head.substr(4, 4) != fb::ProgramIdentifier()) return head.size();
  auto header = parse_extended_header(head);
  if (!header.ok()) return head.size();  // decode_pte reports the bad header from its bytes
  if (header->has_value()) {
    // A program_size the file cannot hold is refused from the header alone.
    const uint64_t program = (*header)->program_size;
    return program <= file_size && program <= kMaxProgramSize ? std::max<uint64_t>(program, head.size())
                                                              : head.size();
  }
  return file_size > kMaxProgramSize ? head.size() : file_size;
}

Result<DecodedPte> decode_pte(std::string_view bytes, const DecodeOptions& options) {
  Decoder decoder(options);
  return decoder.decode(bytes);
}

Result<std::string> decode_pte_json(std::string_view bytes, const DecodeOptions& options) {
  PTEFORGE_ASSIGN_OR_RETURN(DecodedPte decoded, decode_pte(bytes, options));
  return decoded_pte_to_json(decoded, options.json_style);
}

std::optional<uint64_t> segment_file_offset(const PteFileInfo& info, const DataSegment& s) {
  if (s.offset > bytes_after_segment_base(info)) return std::nullopt;
  return info.segment_base_offset + s.offset;
}

}  // namespace pteforge::emit
