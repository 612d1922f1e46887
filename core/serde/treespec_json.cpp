// TreeSpec parsing and formatting (see treespec_json.h).
#include "serde/treespec_json.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "serde/json_cursor.h"
#include "serde/py_json_writer.h"

namespace pteforge::serde {
namespace {

constexpr int kMaxDepth = 256;

Error spec_error(const JsonDocument& doc, const rapidjson::Value& v, const std::string& what) {
  std::string p = doc.pointer_of(&v);
  return make_error(ErrorCode::INPUT_SCHEMA,
                    "invalid treespec: " + what + " (at " + (p.empty() ? std::string("/") : p) + " inside the text)");
}

/// Container types whose context torch's pytree writes with json.dumps and
/// reads with json.loads (the default to_dumpable_context /
/// from_dumpable_context): dict keys, None for lists and tuples.
bool has_json_context(std::string_view type) {
  return type == "builtins.dict" || type == "builtins.list" || type == "builtins.tuple" ||
         type == "builtins.NoneType" || type == "collections.OrderedDict";
}

/// JSON text `text` re-written as Python's json.dumps writes it (", "
/// separators, \uXXXX escapes, NaN and infinities bare; 1e400 read as
/// Infinity, as json.loads reads it), or nullopt when it is not JSON. A spec read
/// back by treespec_loads and written by treespec_dumps (ExecuTorch's
/// create_container_str) holds its contexts in this form, whatever the file had.
std::optional<std::string> python_style_json(std::string_view text) {
  // Parsed as the program JSON is (kProgramJsonParseFlags: numbers as text,
  // read by forward_raw_number, NaN and Infinity as Python writes them;
  // literals past RapidJSON's range, such as 1e400, read back from their
  // text), in situ over a copy (so the number literals' offsets name them),
  // iteratively and with nesting bounded (kMaxDepth): a context of 200,000
  // '[' overflowed the stack.
  std::string copy(text);
  if (copy.find('\0') != std::string::npos) return std::nullopt;  // the in-situ parser's end marker
  const std::map<size_t, std::string> originals = neutralize_oversized_numbers(copy);
  rapidjson::Document inner;
  bool parsed = false;
  auto fill = [&](rapidjson::Document& d) {
    rapidjson::InsituStringStream in(copy.data());
    rapidjson::Reader reader;
    DepthLimitedHandler handler(d, kMaxDepth);
    handler.restore_numbers(copy.data(), &originals);
    parsed = !reader.Parse<kProgramJsonParseFlags | rapidjson::kParseIterativeFlag>(in, handler).IsError();
    return parsed;
  };
  inner.Populate(fill);
  if (!parsed) return std::nullopt;
  std::string out;
  PyJsonWriter w(out, PyJsonWriter::NonFinite::Bare);  // json.dumps, not torch.export's serializer
  if (!write_json_value(w, inner, kMaxDepth).ok()) return std::nullopt;
  return out;
}

Result<ir::TreeSpecNode> read_node(const JsonDocument& doc, const rapidjson::Value& v, int depth) {
  if (depth > kMaxDepth) return spec_error(doc, v, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
  if (!v.IsObject()) return spec_error(doc, v, "expected a node object, found " + std::string(json_type_name(v)));
  ir::TreeSpecNode node;
  auto type = v.FindMember("type");
  auto context = v.FindMember("context");
  auto children = v.FindMember("children_spec");
  if (type == v.MemberEnd() || children == v.MemberEnd()) {
    return spec_error(doc, v, "a node needs \"type\" and \"children_spec\"");
  }
  if (type->value.IsString()) {
    node.type = std::string(type->value.GetString(), type->value.GetStringLength());
  } else if (!type->value.IsNull()) {
    return spec_error(doc, type->value, "\"type\" must be a string or null");
  }
  if (context != v.MemberEnd()) {
    std::string text;
    PyJsonWriter w(text);
    Status st = write_json_value(w, context->value, kMaxDepth);
    if (!st.ok()) return spec_error(doc, context->value, st.error().message);
    node.context = std::move(text);
    if (node.type && has_json_context(*node.type) && context->value.IsString()) {
      if (std::optional<std::string> inner = python_style_json(
              std::string_view(context->value.GetString(), context->value.GetStringLength()))) {
        node.context = python_json_string(*inner);
      }
    }
  }
  if (!children->value.IsArray()) return spec_error(doc, children->value, "\"children_spec\" must be an array");
  for (const auto& c : children->value.GetArray()) {
    PTEFORGE_ASSIGN_OR_RETURN(ir::TreeSpecNode child, read_node(doc, c, depth + 1));
    node.children.push_back(std::move(child));
  }
  if (node.is_leaf() && !node.children.empty()) return spec_error(doc, v, "a leaf (type null) has children");
  return node;
}

void write_node(PyJsonWriter& w, const ir::TreeSpecNode& n) {
  w.begin_object();
  w.key("type");
  if (n.type) {
    w.string(*n.type);
  } else {
    w.null();
  }
  w.key("context");
  w.raw(n.context);
  w.key("children_spec");
  w.begin_array();
  for (const auto& c : n.children) write_node(w, c);
  w.end_array();
  w.end_object();
}

}  // namespace

Result<ir::TreeSpec> parse_treespec(std::string_view text) {
  auto parsed = JsonDocument::parse(std::string(text));
  if (!parsed.ok()) {
    const Error& e = parsed.error();
    std::string msg = "invalid treespec: " + e.message;
    if (e.where.byte_offset) msg += " at offset " + std::to_string(*e.where.byte_offset) + " of the text";
    return make_error(ErrorCode::INPUT_SCHEMA, msg);
  }
  const JsonDocument& doc = **parsed;
  const rapidjson::Value& root = doc.root();
  if (!root.IsArray() || root.Size() != 2) {
    return spec_error(doc, root, "expected a 2-element array [protocol, node]");
  }
  if (!root[0].IsInt64()) return spec_error(doc, root[0], "the protocol must be an integer");
  ir::TreeSpec spec;
  spec.protocol = root[0].GetInt64();
  if (spec.protocol != 1) {
    return spec_error(doc, root[0], "unsupported pytree protocol " + std::to_string(spec.protocol) + " (only 1 exists)");
  }
  PTEFORGE_ASSIGN_OR_RETURN(spec.root, read_node(doc, root[1], 0));
  return spec;
}

std::string format_treespec(const ir::TreeSpec& spec) {
  std::string out;
  PyJsonWriter w(out);
  w.begin_array();
  w.int64(spec.protocol);
  write_node(w, spec.root);
  w.end_array();
  return out;
}

}  // namespace pteforge::serde
