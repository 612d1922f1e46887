// Segment layout, extended header and chunk list of a .pte (see pte_writer.h;
// rules from executorch-pipeline.md §2.3-§2.8).
#include "emit/pte_writer.h"

#include <map>
#include <numeric>
#include <string>

#include "emit/extended_header.h"

namespace pteforge::emit {
namespace {

constexpr uint64_t kMaxAlignment = uint64_t{1} << 16;

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

uint64_t round_up(uint64_t v, uint64_t align) { return (v + align - 1) / align * align; }

Status check_alignment(const char* name, uint64_t value) {
  if (!is_power_of_two(value) || value > kMaxAlignment) {
    return make_error(ErrorCode::OPTION_INVALID, std::string(name) + " is " + std::to_string(value) +
                                                     "; a power of two up to " + std::to_string(kMaxAlignment) +
                                                     " expected");
  }
  return Status::Ok();
}

Status check_options(const SerializeOptions& o) {
  PTEFORGE_TRY(check_alignment("segment_alignment", o.segment_alignment));
  PTEFORGE_TRY(check_alignment("constant_tensor_alignment", o.constant_tensor_alignment));
  PTEFORGE_TRY(check_alignment("delegate_alignment", o.delegate_alignment));
  return Status::Ok();
}

Error internal_at(std::string pointer, std::string message) {
  Location where;
  where.pointer = std::move(pointer);
  return make_error(ErrorCode::INTERNAL, std::move(message), where);
}

std::string value_pointer(size_t plan, size_t value) {
  return "/execution_plan/" + std::to_string(plan) + "/values/" + std::to_string(value);
}

// The serializer owns the layout fields; the emitter leaves them empty.
Status check_layout_fields_empty(const Program& p) {
  if (!p.segments.empty()) return internal_at("/segments", "the program already lists segments");
  if (p.constant_segment && !p.constant_segment->offsets.empty()) {
    return internal_at("/constant_segment", "the program already has constant_segment offsets");
  }
  if (p.mutable_data_segments) return internal_at("/mutable_data_segments", "the program already has mutable data segments");
  if (p.named_data) return internal_at("/named_data", "the program already has named data");
  if (!p.constant_buffer.empty()) {
    Location where;
    where.pointer = "/constant_buffer";
    return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                      "the deprecated inline constant_buffer is never written; pass constants in "
                      "ProgramData::constant_buffer",
                      where);
  }
  return Status::Ok();
}

// Tensors must point at data that exists, and constants must be long enough.
Status check_tensor_data(const Program& p, const std::vector<Chunk>& constants, const std::vector<Chunk>& mutables) {
  for (size_t pi = 0; pi < p.execution_plan.size(); ++pi) {
    const auto& values = p.execution_plan[pi].values;
    for (size_t vi = 0; vi < values.size(); ++vi) {
      const Tensor* t = std::get_if<Tensor>(&values[vi].val);
      if (!t || t->data_buffer_idx == 0) continue;
      if (t->extra_tensor_info && t->extra_tensor_info->location == TensorDataLocation::External) continue;
      const bool planned = t->allocation_info.has_value();
      const auto& list = planned ? mutables : constants;
      if (t->data_buffer_idx >= list.size()) {
        return internal_at(value_pointer(pi, vi),
                           std::string(planned ? "mutable" : "constant") + " data index " +
                               std::to_string(t->data_buffer_idx) + " is out of range (" +
                               std::to_string(list.size()) + " entries)");
      }
      auto nbytes = tensor_nbytes(*t);
      if (nbytes && list[t->data_buffer_idx].size() < *nbytes) {
        Location where;
        where.pointer = value_pointer(pi, vi);
        return make_error(ErrorCode::PAYLOAD_INVALID,
                          "tensor needs " + std::to_string(*nbytes) + " bytes but its data entry " +
                              std::to_string(t->data_buffer_idx) + " has " +
                              std::to_string(list[t->data_buffer_idx].size()),
                          where);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<PteOutput> assemble_pte(Program program, const std::vector<SegmentPayload>& segments,
                               const SerializeOptions& options) {
  PTEFORGE_TRY(check_options(options));
  // Place the segments (§2.4): each at round_up(previous end, lcm(segment
  // alignment, own alignment)); no padding after the last one.
  program.segments.clear();
  uint64_t end = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    PTEFORGE_TRY(check_alignment("segment alignment", segments[i].alignment));
    uint64_t align = std::lcm(options.segment_alignment, segments[i].alignment);
    uint64_t offset = round_up(end, align);
    uint64_t size = total_size(segments[i].pieces);
    program.segments.push_back(DataSegment{offset, size});
    end = offset + size;
  }
  const uint64_t segment_data_size = end;

  if (segment_data_size == 0) {
    // No segment data: the file is the flatbuffer alone, without a header (§2.1).
    PTEFORGE_ASSIGN_OR_RETURN(std::vector<uint8_t> flatbuffer, build_program_flatbuffer(program, options));
    PteOutput out;
    out.layout.flatbuffer_size = flatbuffer.size();
    out.layout.program_size = flatbuffer.size();
    out.layout.segment_base_offset = flatbuffer.size();
    out.layout.file_size = flatbuffer.size();
    out.chunks.push_back(Chunk::from_bytes(std::move(flatbuffer)));
    out.program = std::move(program);
    return out;
  }

  // The header goes after the flatbuffer's first 8 bytes (§2.3), and zeros
  // pad the program part up to segment_base_offset: both as the flatbuffer
  // is copied out of the builder.
  const uint64_t max_alignment = std::max(options.constant_tensor_alignment, options.delegate_alignment);
  const uint64_t padded = extended_header_padded_length(max_alignment);
  ExtendedHeader header;
  FlatbufferFraming framing;
  framing.header = [&](uint64_t flatbuffer_size) {
    header.program_size = flatbuffer_size + padded;
    header.segment_base_offset = round_up(header.program_size, options.segment_alignment);
    header.segment_data_size = segment_data_size;
    return encode_extended_header(header, padded);
  };
  framing.pad_to = options.segment_alignment;
  PTEFORGE_ASSIGN_OR_RETURN(FramedFlatbuffer framed,
                            build_framed_program_flatbuffer(program, options, framing));

  PteOutput out;
  out.layout.flatbuffer_size = framed.flatbuffer_size;
  out.layout.has_extended_header = true;
  out.layout.header_padded_length = padded;
  out.layout.program_size = header.program_size;
  out.layout.segment_base_offset = header.segment_base_offset;
  out.layout.segment_data_size = segment_data_size;
  out.layout.file_size = header.segment_base_offset + segment_data_size;
  if (framed.bytes.size() != header.segment_base_offset) {
    return make_error(ErrorCode::INTERNAL, "the program part is " + std::to_string(framed.bytes.size()) +
                                               " bytes, not segment_base_offset " +
                                               std::to_string(header.segment_base_offset));
  }
  out.chunks.push_back(Chunk::from_bytes(std::move(framed.bytes)));
  uint64_t at = 0;  // relative to segment_base_offset
  for (size_t i = 0; i < segments.size(); ++i) {
    if (program.segments[i].offset > at) out.chunks.push_back(Chunk::zeros(program.segments[i].offset - at));
    for (const auto& piece : segments[i].pieces) {
      if (piece.size() > 0) out.chunks.push_back(piece);
    }
    at = program.segments[i].offset + program.segments[i].size;
  }
  out.program = std::move(program);
  return out;
}

Result<PteOutput> serialize_program(const Program& input, const ProgramData& data, const SerializeOptions& options) {
  return serialize_program(Program(input), data, options);
}

Result<PteOutput> serialize_program(Program&& input, const ProgramData& data, const SerializeOptions& options) {
  PTEFORGE_TRY(check_options(options));
  PTEFORGE_TRY(check_layout_fields_empty(input));

  std::vector<Chunk> constants = data.constant_buffer;
  if (constants.empty()) constants.push_back(Chunk::zeros(0));
  if (constants[0].size() != 0) {
    return internal_at("/constant_buffer/0", "constant entry 0 is reserved for \"no data\" and must be empty");
  }
  if (!data.mutable_buffer.empty() && data.mutable_buffer[0].size() != 0) {
    return internal_at("/mutable_buffer/0", "mutable data entry 0 is reserved and must be empty");
  }
  PTEFORGE_TRY(check_tensor_data(input, constants, data.mutable_buffer));

  // Inline delegate blobs: from `data`, else the program's own inline list.
  std::vector<Chunk> inline_blobs = data.delegate_data;
  if (!input.backend_delegate_data.empty()) {
    if (!inline_blobs.empty()) {
      return internal_at("/backend_delegate_data",
                         "delegate blobs given both in the program and in ProgramData::delegate_data");
    }
    for (const auto& d : input.backend_delegate_data) inline_blobs.push_back(Chunk::from_bytes(d.data));
  }

  Program program = std::move(input);
  program.backend_delegate_data.clear();
  std::vector<SegmentPayload> segments;

  // Segment 0: constants, padded to the tensor alignment between entries (§2.5).
  {
    SegmentPayload seg;
    seg.alignment = options.constant_tensor_alignment;
    SubsegmentOffsets offsets;
    uint64_t len = 0;
    for (size_t i = 0; i < constants.size(); ++i) {
      offsets.offsets.push_back(len);
      seg.pieces.push_back(constants[i]);
      len += constants[i].size();
      if (i + 1 < constants.size()) {
        uint64_t padded = round_up(len, options.constant_tensor_alignment);
        if (padded > len) seg.pieces.push_back(Chunk::zeros(padded - len));
        len = padded;
      }
    }
    offsets.segment_index = 0;
    program.constant_segment = std::move(offsets);
    segments.push_back(std::move(seg));
  }

  // Mutable data: packed without padding, one segment (§2.6); none when it
  // holds no bytes (ExecuTorch adds it only when its data is not empty, §2.4).
  uint64_t mutable_bytes = 0;
  for (const auto& c : data.mutable_buffer) mutable_bytes += c.size();
  if (data.mutable_buffer.size() > 1 && mutable_bytes > 0) {
    SegmentPayload seg;
    SubsegmentOffsets offsets;
    offsets.segment_index = static_cast<uint32_t>(segments.size());
    uint64_t len = 0;
    for (const auto& c : data.mutable_buffer) {
      offsets.offsets.push_back(len);
      seg.pieces.push_back(c);
      len += c.size();
    }
    program.mutable_data_segments = std::vector<SubsegmentOffsets>{std::move(offsets)};
    segments.push_back(std::move(seg));
  }

  // Delegate blobs (§2.7).
  std::map<uint32_t, uint32_t> blob_to_segment;  // inline index → segment index
  std::map<uint32_t, uint32_t> blob_to_inline;   // inline index → new inline index
  std::vector<std::pair<Chunk, uint32_t>> blob_segments;  // distinct chunk → segment index
  for (size_t pi = 0; pi < program.execution_plan.size(); ++pi) {
    auto& delegates = program.execution_plan[pi].delegates;
    for (size_t di = 0; di < delegates.size(); ++di) {
      auto& ref = delegates[di].processed;
      const std::string where = "/execution_plan/" + std::to_string(pi) + "/delegates/" + std::to_string(di);
      if (ref.location != DataLocation::Inline) {
        return internal_at(where, "delegate data already refers to a segment; the serializer assigns segments");
      }
      if (ref.index >= inline_blobs.size()) {
        return internal_at(where, "delegate data index " + std::to_string(ref.index) + " is out of range (" +
                                      std::to_string(inline_blobs.size()) + " blobs)");
      }
      const Chunk& blob = inline_blobs[ref.index];
      if (options.extract_delegate_segments && blob.size() > 0) {
        auto it = blob_to_segment.find(ref.index);
        if (it == blob_to_segment.end()) {
          uint32_t seg_index = 0;
          bool found = false;
          for (const auto& [chunk, index] : blob_segments) {
            if (chunk == blob) {
              seg_index = index;
              found = true;
              break;
            }
          }
          if (!found) {
            seg_index = static_cast<uint32_t>(segments.size());
            segments.push_back(SegmentPayload{{blob}, 1});
            blob_segments.emplace_back(blob, seg_index);
          }
          it = blob_to_segment.emplace(ref.index, seg_index).first;
        }
        ref = BackendDelegateDataReference{DataLocation::Segment, it->second};
        continue;
      }
      // Stays inline, reindexed in order of first use.
      auto it = blob_to_inline.find(ref.index);
      if (it == blob_to_inline.end()) {
        if (!blob.is_bytes()) {
          Location loc;
          loc.pointer = where;
          return make_error(ErrorCode::UNSUPPORTED_FEATURE,
                            "inline delegate data must be given as bytes, not as an input range", loc);
        }
        uint32_t new_index = static_cast<uint32_t>(program.backend_delegate_data.size());
        program.backend_delegate_data.push_back(BackendDelegateInlineData{blob.bytes()});
        it = blob_to_inline.emplace(ref.index, new_index).first;
      }
      ref.index = it->second;
    }
  }

  // Named data (§2.8): one segment per buffer, keys in insertion order.
  if (!data.named_keys.empty() || !data.named_buffers.empty()) {
    const uint32_t first = static_cast<uint32_t>(segments.size());
    for (const auto& b : data.named_buffers) {
      PTEFORGE_TRY(check_alignment("named data alignment", b.alignment));
      segments.push_back(SegmentPayload{{b.data}, b.alignment});
    }
    std::vector<NamedData> named;
    for (size_t k = 0; k < data.named_keys.size(); ++k) {
      const auto& key = data.named_keys[k];
      if (key.buffer_index >= data.named_buffers.size()) {
        return internal_at("/named_data/" + std::to_string(k),
                           "named data key '" + key.key + "' names buffer " + std::to_string(key.buffer_index) +
                               " of " + std::to_string(data.named_buffers.size()));
      }
      named.push_back(NamedData{key.key, first + key.buffer_index});
    }
    if (!named.empty()) program.named_data = std::move(named);
  }

  return assemble_pte(std::move(program), segments, options);
}

}  // namespace pteforge::emit
