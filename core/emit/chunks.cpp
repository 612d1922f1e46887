// Chunk helpers (see chunks.h).
#include "emit/chunks.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace pteforge::emit {

uint64_t Chunk::size() const {
  if (is_bytes()) return bytes().size();
  return range().length;
}

Chunk Chunk::from_bytes(std::vector<uint8_t> bytes) { return Chunk{std::move(bytes)}; }

Chunk Chunk::from_string(std::string_view bytes) {
  return Chunk{std::vector<uint8_t>(bytes.begin(), bytes.end())};
}

Chunk Chunk::zeros(uint64_t count) { return Chunk{std::vector<uint8_t>(count, 0)}; }

std::string labelled_source(std::string_view label, std::string_view entry) {
  std::string out(label);
  out += kSourceLabelSeparator;
  out += entry;
  return out;
}

std::optional<LabelledSource> split_labelled_source(std::string_view source) {
  const size_t sep = source.find(kSourceLabelSeparator);
  if (sep == std::string_view::npos) return std::nullopt;
  return LabelledSource{source.substr(0, sep), source.substr(sep + kSourceLabelSeparator.size())};
}

Chunk Chunk::from_range(std::string source, uint64_t offset, uint64_t length) {
  return Chunk{InputRange{std::move(source), offset, length}};
}

uint64_t total_size(const std::vector<Chunk>& chunks) {
  uint64_t n = 0;
  for (const auto& c : chunks) n += c.size();
  return n;
}

Status stream_chunks(const std::vector<Chunk>& chunks, const RangeReader& reader,
                     const std::function<Status(const uint8_t* data, uint64_t size)>& sink) {
  std::vector<uint8_t> piece;
  for (const auto& c : chunks) {
    if (c.is_bytes()) {
      if (!c.bytes().empty()) PTEFORGE_TRY(sink(c.bytes().data(), c.bytes().size()));
      continue;
    }
    const InputRange& r = c.range();
    if (r.length == 0) continue;
    if (!reader) {
      Location where;
      where.entry = r.source;
      where.byte_offset = r.offset;
      return make_error(ErrorCode::IO_ERROR,
                        "the output references input '" + r.source + "' but no reader for inputs was given",
                        where);
    }
    for (uint64_t done = 0; done < r.length;) {
      uint64_t n = std::min(kRangeReadPiece, r.length - done);
      piece.resize(static_cast<size_t>(n));
      PTEFORGE_TRY(reader(InputRange{r.source, r.offset + done, n}, piece.data()));
      PTEFORGE_TRY(sink(piece.data(), n));
      done += n;
    }
  }
  return Status::Ok();
}

Result<std::vector<uint8_t>> flatten_chunks(const std::vector<Chunk>& chunks, const RangeReader& reader) {
  uint64_t total = total_size(chunks);
  if (total > std::numeric_limits<size_t>::max() / 2) {
    return make_error(ErrorCode::EMIT_LIMIT,
                      "the output is " + std::to_string(total) + " bytes, too large to hold in memory");
  }
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(total));
  PTEFORGE_TRY(stream_chunks(chunks, reader, [&out](const uint8_t* data, uint64_t size) -> Status {
    out.insert(out.end(), data, data + size);
    return Status::Ok();
  }));
  return out;
}

}  // namespace pteforge::emit
