// torch.export program JSON → IR (torch-export-format.md §2–§9, §11).
//
// Reads schema 8.x (any minor); major 9 is read with the 8.x rules and a
// warning (§11.3); any other major is UNSUPPORTED_SCHEMA_VERSION. Unknown
// struct keys are ignored and reported as warnings; missing optional fields
// take the defaults of §11.2. After parsing, the program is checked with the
// IR verifier (ir/verifier.h).
//
// Errors (each with `where.pointer`, plus `where.node` inside a node):
//   INPUT_EMPTY                 empty input
//   INPUT_NOT_JSON              JSON syntax error (`where.byte_offset` instead of a pointer)
//   INPUT_SCHEMA                missing required field, wrong JSON type, integer outside
//                               int64, unknown dtype/layout/memory-format number, negative
//                               size, malformed treespec, duplicate table key
//   UNKNOWN_UNION_TAG           a union (Argument, InputSpec, SymInt, ...) with a tag this
//                               reader does not know; the pointer names the tag
//   UNSUPPORTED_SCHEMA_VERSION  schema major other than 8 or 9
//   INVALID_GRAPH               verifier: duplicate names, use before definition, dangling
//                               names, outputs naming nothing, signature mismatch
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "support/error.h"

namespace pteforge::serde {

struct ImportOptions {
  /// Run ir::verify_program after parsing.
  bool verify = true;
  /// With `verify`, also check every operator call's arguments against the
  /// operator's schema (ops::check_call_arguments), as loading in torch does.
  bool check_calls = true;
  /// Schema version to assume when the document has no schema_version (e.g.
  /// taken from a legacy archive's `version` record). Without it a missing
  /// schema_version is read as 8.0 with a warning.
  std::optional<ir::SchemaVersion> assumed_schema_version;
  /// Warnings reported one by one; further ones are summarised in one last warning.
  size_t max_warnings = 100;
  /// Try the streaming fast path first (serde/stream_graph.h): the same
  /// result, errors and warnings, in less time. False reads with the DOM
  /// reader only (tests compare the two).
  bool streaming = true;
  /// With `streaming`, a text of at least this many bytes is read on two
  /// threads where there are threads: one tokenizes it, the calling thread
  /// builds the nodes and tensor metas from its tokens (stream_graph.h); the
  /// same result. 0: always (tests); SIZE_MAX: never.
  size_t two_threads_min_bytes = size_t{1} << 20;
  /// SAX events per batch handed from the tokenizing thread to the reading
  /// one (4096: 64 KiB; tests use 1 to hand over every element alone).
  size_t two_threads_batch_events = 4096;
  /// Work unrelated to the program's text to be done during the import (e.g.
  /// parsing the archive's payload configs); it must not touch what the
  /// import reads or makes. The import schedules it where it costs least.
  /// For a text of two_threads_min_bytes or more (a two-thread read): on the
  /// calling thread the first time it waits for the tokenizing thread; where
  /// it never waits (or the fast path stops before reading: invalid UTF-8, no
  /// second thread), on the calling thread after the import, one after the
  /// other. For a smaller text: on a thread of its own while the import runs
  /// (inline where no thread can be started). It has run exactly once when
  /// import_exported_program returns, whatever the result.
  std::function<void()> beside;
};

/// A non-fatal finding (unknown key, experimental schema, kept-verbatim metadata).
struct ImportWarning {
  std::string message;
  Location where;
  bool operator==(const ImportWarning& o) const {
    return message == o.message && where.to_string() == o.where.to_string();
  }
};

struct ImportResult {
  ir::ExportedProgram program;
  std::vector<ImportWarning> warnings;
  /// True when the streaming fast path read the program (false: the DOM reader did).
  bool streamed = false;
};

/// Reads one program JSON document (models/<model>.json). The caller names
/// the method (a lone program JSON is conventionally "forward"). The
/// streaming fast path reads the graph's nodes and tensor_values without
/// building a DOM for them; when it meets anything it does not accept, the
/// text is read again by the DOM reader (in place: std::move the text in when
/// it is not needed afterwards), which gives every error and warning.
Result<ImportResult> import_exported_program(std::string json, const ImportOptions& options = {});

/// Reads the program text again (e.g. the archive entry it came from).
using TextReread = std::function<Result<std::string>()>;

/// As above, for a caller that can read the text again: the fast path then
/// parses `json` itself instead of a copy (no second buffer of the text's
/// size), and when it gives up, `reread` supplies the text for the DOM reader.
/// Errors: as above, and reread's error.
Result<ImportResult> import_exported_program(std::string json, const ImportOptions& options,
                                             const TextReread& reread);

}  // namespace pteforge::serde
