// Streaming fast path of the program JSON importer (internal to serde).
//
// The top-level graph's `nodes` array and `tensor_values` table hold nearly
// all of a program's bytes. stream_program() parses the document once with
// RapidJSON's SAX reader: those two are read straight into IR nodes and
// TensorMeta entries, and everything else goes into an ordinary JsonDocument
// (where the two appear empty) for the DOM reader. The fast path only accepts
// what it fully understands; anything else (an unknown key, a duplicate key,
// a value of the wrong type, a nested subgraph, a node without a name, ...)
// makes it give up (as does any error in the rest of the import), and the
// caller reads the text again with the DOM reader, which reports the problem
// with its exact message and JSON pointer. So the fast path never changes a
// result: it only has to notice, not describe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "ir/graph.h"
#include "ir/node.h"
#include "ir/tensor_meta.h"
#include "support/chunked_vector.h"

namespace pteforge::serde {
class JsonDocument;
}

namespace pteforge::serde::detail {

class ImportContext;

/// The streamed parts of /graph_module/graph.
struct StreamedGraph {
  /// True when /graph_module/graph/nodes was an array and `nodes` holds its elements.
  bool has_nodes = false;
  /// The nodes in document order, named, with target, arguments, metadata and
  /// hop flag set, origins unset, placed in `graph` but not attached
  /// (ir::GraphLoader): read_graph takes over `graph` and attaches them.
  ir::Graph graph;
  /// True when /graph_module/graph/tensor_values was an object and `tensor_values` holds its members.
  bool has_tensor_values = false;
  /// tensor_values members in document order.
  ChunkedVector<std::pair<std::string, ir::TensorMeta>> tensor_values;
  /// Set by read_graph when it has used the streamed parts.
  bool consumed = false;
};

/// Work the calling thread may do while it waits for the tokenizing thread
/// (two-thread reads only): `work` runs the first time no batch is ready, at
/// most once; `ran` tells the caller whether it did.
struct IdleWork {
  const std::function<void()>* work = nullptr;
  bool ran = false;
};

/// Parses a copy of `text` (in place, up to the first NUL) into `doc`, which
/// keeps the copy, with the members of
/// /graph_module/graph/nodes and /graph_module/graph/tensor_values read into
/// `out` instead (the document holds them as [] and {}). `ctx` supplies the
/// shared metadata and symbolic-expression caches. Returns false when the
/// fast path does not apply or meets anything it does not accept (including
/// JSON syntax errors); then `doc` and `out` must be discarded and the text
/// read by the DOM reader.
/// With `batch_events` > 0 the text is tokenized on a second thread, which
/// hands the captured elements over in batches of at least that many SAX
/// events, while the calling thread reads them into `out` (natively; where
/// no thread can be started, all on the calling thread): the same result,
/// in less time for a large text. Then `idle` (optional) is done by the
/// calling thread the first time it finds no batch ready (IdleWork).
bool stream_program(const std::string& text, ImportContext& ctx, JsonDocument& doc, StreamedGraph& out,
                    size_t batch_events = 0, IdleWork* idle = nullptr);

/// As stream_program, but parses `text` itself in place (`doc` takes it):
/// no copy, no second buffer. The text is consumed even when the fast path
/// gives up, so the caller needs another way to read it for the DOM reader.
/// (Under WebAssembly SIMD, whose string scan needs padding and a check of
/// every byte, this still copies.)
bool stream_program_in_place(std::string text, ImportContext& ctx, JsonDocument& doc, StreamedGraph& out,
                             size_t batch_events = 0, IdleWork* idle = nullptr);

}  // namespace pteforge::serde::detail
