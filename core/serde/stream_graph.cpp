// Streaming fast path of the program JSON importer (see stream_graph.h).
//
// The SAX handler forwards events to the RapidJSON document except inside the
// elements of /graph_module/graph/nodes and the members of
// /graph_module/graph/tensor_values. Each of those is recorded on a small
// token tape (reused for every element) and, when it closes, read from the
// tape into the IR by the pull readers below. The readers mirror the DOM
// readers of import_graph.cpp rule for rule, and return false wherever those
// would report an error or a warning.
#include "serde/stream_graph.h"

#include <rapidjson/reader.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "ir/dtype.h"
#include "ir/sym_expr.h"
#include "serde/import_context.h"
#include "serde/json_cursor.h"
#include "support/background_job.h"

namespace pteforge::serde::detail {
namespace {

// ---- token tape ------------------------------------------------------------

/// Kinds of SAX event recorded on the tape.
enum class Tok : uint8_t { Null, False, True, Int, BigUint, Double, String, Key, ObjStart, ObjEnd, ArrStart, ArrEnd };

/// One recorded SAX event (16 bytes).
struct Token {
  Tok kind;
  uint32_t len = 0;  ///< string length; element count of an array (on ArrStart)
  union {
    int64_t i;      ///< Int
    uint64_t u;     ///< BigUint (above INT64_MAX)
    double d;       ///< Double
    const char* s;  ///< String and Key: the text, in the parse buffer
  };
  Token() : kind(Tok::Null), u(0) {}
};

/// The events of one captured value. Strings point into the parse buffer,
/// which outlives the tape. Storage is kept between values (no allocation
/// once warm).
class Tape {
 public:
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  Token& at(size_t i) { return tokens_[i]; }
  const Token* begin() const { return tokens_.data(); }
  const Token* end() const { return tokens_.data() + size_; }

  __attribute__((always_inline)) Token& push(Tok k) {
    if (size_ == tokens_.size()) [[unlikely]] grow();
    Token& t = tokens_[size_++];
    t.kind = k;
    return t;
  }
  void push_int(int64_t v) { push(Tok::Int).i = v; }
  void push_big(uint64_t v) { push(Tok::BigUint).u = v; }
  void push_double(double v) { push(Tok::Double).d = v; }
  void push_string(Tok k, const char* s, rapidjson::SizeType n) {
    Token& t = push(k);
    t.s = s;
    t.len = n;
  }

 private:
  __attribute__((noinline)) void grow() { tokens_.resize(tokens_.size() * 2 + 256); }

  std::vector<Token> tokens_;
  size_t size_ = 0;
};

/// The members of an object met so far, one bit each.
struct SeenKeys {
  unsigned bits = 0;
  /// True the first time `bit` is met; false for a repeated member.
  bool first(unsigned bit) {
    if (bits & bit) return false;
    bits |= bit;
    return true;
  }
  /// True when every member in `mask` (the required ones) was met.
  bool all(unsigned mask) const { return (bits & mask) == mask; }
};

/// `key == literal`, with the comparison inlined (the length is a constant).
template <size_t N>
bool is(std::string_view key, const char (&literal)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), literal, N - 1) == 0;
}

// ---- pull readers over a tape ---------------------------------------------
//
// Every reader returns false when the value is not exactly what the DOM
// reader accepts without a warning.

class TapeReader {
 public:
  TapeReader(const Token* begin, const Token* end, ImportContext& ctx) : p_(begin), end_(end), ctx_(ctx) {}

  bool at_end() const { return p_ == end_; }

  /// A Node object (read_node_body's rules); false where the DOM reader
  /// would report an error or a warning, or for a node without a name.
  bool node(ir::Node& out);
  /// A TensorMeta object (read_tensor_meta's rules, its checks included).
  bool tensor_meta(ir::TensorMeta& out);

 private:
  static std::string_view text(const Token& t) { return std::string_view(t.s, t.len); }

  bool take(Tok k) {
    if (p_ >= end_ || p_->kind != k) return false;
    ++p_;
    return true;
  }
  /// Consumes a null; true when there was one (absent optional).
  bool take_null() { return take(Tok::Null); }

  /// Object members: call begin_object(), then next_key() until it returns false
  /// with `done` set (ObjEnd consumed); `done` unset means a malformed tape.
  bool begin_object() { return take(Tok::ObjStart); }
  bool next_key(std::string_view& key, bool& done) {
    done = false;
    if (p_ < end_ && p_->kind == Tok::ObjEnd) {
      ++p_;
      done = true;
      return false;
    }
    if (p_ >= end_ || p_->kind != Tok::Key) return false;
    key = text(*p_);
    ++p_;
    return true;
  }
  /// Iterates array elements: begin_array(count), then while (more()) read
  /// one; the end is consumed by more(). `count` is the number of elements.
  bool begin_array(size_t& count) {
    if (p_ >= end_ || p_->kind != Tok::ArrStart) return false;
    count = p_->len;
    ++p_;
    return true;
  }
  bool more(bool& done) {
    done = false;
    if (p_ < end_ && p_->kind == Tok::ArrEnd) {
      ++p_;
      done = true;
      return false;
    }
    return p_ < end_;
  }

  /// Skips one value of any shape.
  bool skip_value() {
    int depth = 0;
    do {
      if (p_ >= end_) return false;
      switch (p_->kind) {
        case Tok::ObjStart:
        case Tok::ArrStart: ++depth; break;
        case Tok::ObjEnd:
        case Tok::ArrEnd: --depth; break;
        default: break;
      }
      ++p_;
    } while (depth > 0);
    return depth == 0;
  }

  bool int64(int64_t& v) {
    if (p_ >= end_ || p_->kind != Tok::Int) return false;
    v = p_->i;
    ++p_;
    return true;
  }
  /// JsonCursor::as_float: any number, or the strings NaN / Infinity / -Infinity.
  bool float64(double& v) {
    if (p_ >= end_) return false;
    switch (p_->kind) {
      case Tok::Int: v = static_cast<double>(p_->i); break;
      case Tok::BigUint: v = static_cast<double>(p_->u); break;
      case Tok::Double: v = p_->d; break;
      case Tok::String: {
        const std::optional<double> f = nonfinite_from_string(text(*p_));
        if (!f) return false;
        v = *f;
        break;
      }
      default: return false;
    }
    ++p_;
    return true;
  }
  bool boolean(bool& v) {
    if (p_ >= end_) return false;
    if (p_->kind == Tok::True) {
      v = true;
    } else if (p_->kind == Tok::False) {
      v = false;
    } else {
      return false;
    }
    ++p_;
    return true;
  }
  bool string(std::string_view& v) {
    if (p_ >= end_ || p_->kind != Tok::String) return false;
    v = text(*p_);
    ++p_;
    return true;
  }
  /// An enum number in 0..max (read_enum), stored only when in range.
  template <typename E>
  bool enum_of(int64_t max, E& out) {
    int64_t v = 0;
    if (!int64(v) || v < 0 || v > max) return false;
    out = static_cast<E>(v);
    return true;
  }

  /// A single-key union object: its tag; the payload follows. Call union_end() after the payload.
  bool union_tag(std::string_view& tag) {
    bool done = false;
    return begin_object() && next_key(tag, done);
  }
  bool union_end() { return take(Tok::ObjEnd); }

  template <typename T, typename F>
  bool list(std::vector<T>& out, F&& one) {
    size_t count = 0;
    if (!begin_array(count)) return false;
    out.reserve(count);
    bool done = false;
    while (more(done)) {
      if (!one(out.emplace_back())) return false;
    }
    return done;
  }

  bool tensor_name(std::string& out);
  bool tensor_argument(ir::TensorArgument& out) { return tensor_name(out.name); }
  bool optional_tensor(ir::OptionalTensorArgument& out);
  bool sym_int(ir::SymInt& out);
  bool sym_expr(std::shared_ptr<const ir::SymExpr>& out);
  bool device(ir::Device& out);
  bool dtype(ir::ScalarType& out) {
    int64_t n = 0;
    if (!int64(n)) return false;
    auto t = ir::scalar_type_from_export(n);
    if (!t) return false;
    out = *t;
    return true;
  }
  bool argument(ir::Argument& out);
  /// A SymInt/SymFloat/SymBoolArgument union: {"as_name": name} or {literal_tag: value}.
  template <typename T, typename ReadLiteral>
  bool named_sym(T& out, std::string_view literal_tag, ReadLiteral&& literal) {
    std::string_view tag;
    if (!union_tag(tag)) return false;
    if (is(tag, "as_name")) {
      std::string_view s;
      if (!string(s)) return false;
      out.name = std::string(s);
    } else if (tag != literal_tag || !literal(out.value)) {
      return false;
    }
    return union_end();
  }
  bool sym_int_argument(ir::SymIntArgument& out) {
    return named_sym(out, "as_int", [this](int64_t& v) { return int64(v); });
  }
  bool sym_bool_argument(ir::SymBoolArgument& out) {
    return named_sym(out, "as_bool", [this](bool& v) { return boolean(v); });
  }
  bool sym_float_argument(ir::SymFloatArgument& out) {
    return named_sym(out, "as_float", [this](double& v) { return float64(v); });
  }
  bool bools(std::vector<bool>& out) {
    size_t count = 0;
    if (!begin_array(count)) return false;
    out.reserve(count);
    bool done = false;
    while (more(done)) {
      bool b = false;
      if (!boolean(b)) return false;
      out.push_back(b);
    }
    return done;
  }
  bool complex(ir::ComplexValue& out);
  bool named_argument(ir::NamedArgument& out);
  bool metadata(ir::NodeMetadata& md);

  const Token* p_;
  const Token* end_;
  ImportContext& ctx_;
};

bool TapeReader::tensor_name(std::string& out) {
  // Exactly {"name": "<string>"} (read_tensor_argument).
  std::string_view key, name;
  bool done = false;
  if (!begin_object() || !next_key(key, done) || key != "name" || !string(name)) return false;
  out.assign(name);
  return take(Tok::ObjEnd);
}

bool TapeReader::optional_tensor(ir::OptionalTensorArgument& out) {
  std::string_view tag;
  if (!union_tag(tag)) return false;
  if (is(tag, "as_none")) {
    out.name.reset();
    if (!skip_value()) return false;
  } else if (is(tag, "as_tensor")) {
    std::string name;
    if (!tensor_name(name)) return false;
    out.name = std::move(name);
  } else {
    return false;
  }
  return union_end();
}

bool TapeReader::sym_expr(std::shared_ptr<const ir::SymExpr>& out) {
  if (!begin_object()) return false;
  enum : unsigned { kExprStr = 1, kHint = 2 };
  std::string_view expr;
  std::optional<ir::SymExprHint> hint;
  SeenKeys seen;
  bool done = false;
  std::string_view key;
  while (next_key(key, done)) {
    if (is(key, "expr_str")) {
      if (!seen.first(kExprStr) || !string(expr)) return false;
    } else if (is(key, "hint")) {
      if (!seen.first(kHint)) return false;
      if (take_null()) continue;
      std::string_view tag;
      if (!union_tag(tag)) return false;
      if (is(tag, "as_int")) {
        int64_t v = 0;
        if (!int64(v)) return false;
        hint = ir::SymExprHint::of_int(v);
      } else if (is(tag, "as_bool")) {
        bool v = false;
        if (!boolean(v)) return false;
        hint = ir::SymExprHint::of_bool(v);
      } else if (is(tag, "as_float")) {
        double v = 0;
        if (!float64(v)) return false;
        hint = ir::SymExprHint::of_float(v);
      } else {
        return false;
      }
      if (!union_end()) return false;
    } else {
      return false;
    }
  }
  if (!done || !seen.all(kExprStr)) return false;
  out = ctx_.sym_expr(expr, hint);
  return true;
}

bool TapeReader::sym_int(ir::SymInt& out) {
  std::string_view tag;
  if (!union_tag(tag)) return false;
  if (is(tag, "as_int")) {
    int64_t v = 0;
    if (!int64(v)) return false;
    out = ir::SymInt(v);
  } else if (is(tag, "as_expr")) {
    std::shared_ptr<const ir::SymExpr> e;
    if (!sym_expr(e)) return false;
    if (std::optional<int64_t> v = ir::integer_literal(e->expr_str)) {
      out = ir::SymInt(*v);  // static, as torch.export's loader makes it
    } else {
      out = ir::SymInt(std::move(e));
    }
  } else {
    return false;
  }
  return union_end();
}

bool TapeReader::device(ir::Device& out) {
  if (!begin_object()) return false;
  enum : unsigned { kType = 1, kIndex = 2 };
  SeenKeys seen;
  bool done = false;
  std::string_view key;
  while (next_key(key, done)) {
    if (is(key, "type")) {
      std::string_view s;
      if (!seen.first(kType) || !string(s)) return false;
      out.type.assign(s);
    } else if (is(key, "index")) {
      if (!seen.first(kIndex)) return false;
      if (take_null()) {
        out.index.reset();
        continue;
      }
      int64_t v = 0;
      if (!int64(v)) return false;
      out.index = v;
    } else {
      return false;
    }
  }
  return done && seen.all(kType);
}

bool TapeReader::tensor_meta(ir::TensorMeta& m) {
  // read_tensor_meta, member by member in document order.
  enum : unsigned {
    kDtype = 1,
    kSizes = 2,
    kRequiresGrad = 4,
    kDevice = 8,
    kStrides = 16,
    kStorageOffset = 32,
    kLayout = 64
  };
  if (!begin_object()) return false;
  SeenKeys seen;
  bool done = false;
  std::string_view key;
  bool has_offset = false;
  while (next_key(key, done)) {
    if (is(key, "dtype")) {
      if (!seen.first(kDtype) || !dtype(m.dtype)) return false;
    } else if (is(key, "sizes")) {
      if (!seen.first(kSizes)) return false;
      if (!list(m.sizes, [this](ir::SymInt& v) { return sym_int(v) && !(v.is_concrete() && v.value() < 0); })) {
        return false;
      }
    } else if (is(key, "requires_grad")) {
      if (!seen.first(kRequiresGrad)) return false;
      if (take_null()) continue;
      if (!boolean(m.requires_grad)) return false;
    } else if (is(key, "device")) {
      if (!seen.first(kDevice)) return false;
      if (take_null()) continue;
      if (!device(m.device)) return false;
    } else if (is(key, "strides")) {
      if (!seen.first(kStrides) || !list(m.strides, [this](ir::SymInt& v) { return sym_int(v); })) return false;
    } else if (is(key, "storage_offset")) {
      if (!seen.first(kStorageOffset)) return false;
      if (take_null()) continue;
      if (!sym_int(m.storage_offset)) return false;
      has_offset = true;
    } else if (is(key, "layout")) {
      if (!seen.first(kLayout)) return false;
      if (take_null()) continue;
      if (!enum_of(ir::kMaxLayout, m.layout)) return false;
    } else {
      return false;
    }
  }
  if (!done || !seen.all(kDtype | kSizes | kStrides)) return false;
  if (!has_offset) m.storage_offset = ir::SymInt(int64_t{0});
  if (m.layout == ir::Layout::Strided && m.strides.size() != m.sizes.size()) return false;
  if (m.is_static()) {
    const std::optional<uint64_t> bytes = m.nbytes();
    if (!bytes || *bytes > static_cast<uint64_t>(INT64_MAX)) return false;
  }
  return true;
}

bool TapeReader::argument(ir::Argument& out) {
  using ir::Argument;
  using ir::ArgTag;
  std::string_view tag_name;
  if (!union_tag(tag_name)) return false;
  ArgTag tag = ArgTag::Tensor;
  if (!is(tag_name, "as_tensor")) {
    auto t = ir::arg_tag_from_name(tag_name);
    if (!t) return false;
    tag = *t;
  }
  auto ints = [this](int64_t& v) { return int64(v); };
  auto floats = [this](double& v) { return float64(v); };
  auto tensors = [this](ir::TensorArgument& v) { return tensor_argument(v); };
  auto sym_int_arg = [this](ir::SymIntArgument& v) { return sym_int_argument(v); };
  auto sym_bool_arg = [this](ir::SymBoolArgument& v) { return sym_bool_argument(v); };
  auto sym_float_arg = [this](ir::SymFloatArgument& v) { return sym_float_argument(v); };
  bool ok = false;
  switch (tag) {
    case ArgTag::None: ok = skip_value(); out = Argument(); break;
    case ArgTag::Tensor: ok = tensors(out.variant().emplace<ir::TensorArgument>()); break;
    case ArgTag::Tensors: ok = list(out.variant().emplace<std::vector<ir::TensorArgument>>(), tensors); break;
    case ArgTag::Int: ok = int64(out.variant().emplace<int64_t>()); break;
    case ArgTag::Ints: ok = list(out.variant().emplace<std::vector<int64_t>>(), ints); break;
    case ArgTag::Float: ok = float64(out.variant().emplace<double>()); break;
    case ArgTag::Floats: ok = list(out.variant().emplace<std::vector<double>>(), floats); break;
    case ArgTag::String: {
      std::string_view s;
      ok = string(s);
      out.variant().emplace<static_cast<size_t>(ArgTag::String)>(s);
      break;
    }
    case ArgTag::Strings:
      ok = list(out.variant().emplace<std::vector<std::string>>(), [this](std::string& v) {
        std::string_view s;
        if (!string(s)) return false;
        v.assign(s);
        return true;
      });
      break;
    case ArgTag::SymInt: ok = sym_int_arg(out.variant().emplace<ir::SymIntArgument>()); break;
    case ArgTag::SymInts: ok = list(out.variant().emplace<std::vector<ir::SymIntArgument>>(), sym_int_arg); break;
    case ArgTag::ScalarType: ok = dtype(out.variant().emplace<ir::ScalarType>()); break;
    case ArgTag::MemoryFormat: ok = enum_of(ir::kMaxMemoryFormat, out.variant().emplace<ir::MemoryFormat>()); break;
    case ArgTag::Layout: ok = enum_of(ir::kMaxLayout, out.variant().emplace<ir::Layout>()); break;
    case ArgTag::Device: ok = device(out.variant().emplace<ir::Device>()); break;
    case ArgTag::Bool: ok = boolean(out.variant().emplace<bool>()); break;
    case ArgTag::Bools: ok = bools(out.variant().emplace<std::vector<bool>>()); break;
    case ArgTag::SymBool: ok = sym_bool_arg(out.variant().emplace<ir::SymBoolArgument>()); break;
    case ArgTag::SymBools: ok = list(out.variant().emplace<std::vector<ir::SymBoolArgument>>(), sym_bool_arg); break;
    case ArgTag::OptionalTensors:
      ok = list(out.variant().emplace<std::vector<ir::OptionalTensorArgument>>(),
                [this](ir::OptionalTensorArgument& v) { return optional_tensor(v); });
      break;
    case ArgTag::Operator: {
      std::string_view s;
      ok = string(s);
      if (ok) out = Argument::make<ArgTag::Operator>(ir::OperatorArgument{ir::OpTarget(s)});
      break;
    }
    case ArgTag::SymFloat: ok = sym_float_arg(out.variant().emplace<ir::SymFloatArgument>()); break;
    case ArgTag::SymFloats: ok = list(out.variant().emplace<std::vector<ir::SymFloatArgument>>(), sym_float_arg); break;
    case ArgTag::OptionalTensor: ok = optional_tensor(out.variant().emplace<ir::OptionalTensorArgument>()); break;
    case ArgTag::Complex: ok = complex(out.variant().emplace<ir::ComplexValue>()); break;
    case ArgTag::NestedTensors:
      ok = list(out.variant().emplace<std::vector<std::vector<ir::TensorArgument>>>(),
                [&](std::vector<ir::TensorArgument>& v) { return list(v, tensors); });
      break;
    case ArgTag::IntLists:
      ok = list(out.variant().emplace<std::vector<std::vector<int64_t>>>(),
                [&](std::vector<int64_t>& v) { return list(v, ints); });
      break;
    case ArgTag::FloatLists:
      ok = list(out.variant().emplace<std::vector<std::vector<double>>>(),
                [&](std::vector<double>& v) { return list(v, floats); });
      break;
    case ArgTag::Graph:             // nested subgraphs: the DOM reader names their pointers
    case ArgTag::CustomObj:         // rare; the DOM reader handles them
    case ArgTag::StringToArgument:  // nested arguments, depth-checked by the DOM reader
      return false;
  }
  return ok && union_end();
}

bool TapeReader::complex(ir::ComplexValue& out) {
  enum : unsigned { kReal = 1, kImag = 2 };
  if (!begin_object()) return false;
  SeenKeys seen;
  bool done = false;
  std::string_view key;
  while (next_key(key, done)) {
    if (is(key, "real")) {
      if (!seen.first(kReal) || !float64(out.real)) return false;
    } else if (is(key, "imag")) {
      if (!seen.first(kImag) || !float64(out.imag)) return false;
    } else {
      return false;
    }
  }
  return done && seen.all(kReal | kImag);
}

bool TapeReader::named_argument(ir::NamedArgument& out) {
  enum : unsigned { kName = 1, kArg = 2, kKind = 4 };
  if (!begin_object()) return false;
  SeenKeys seen;
  bool done = false;
  std::string_view key;
  while (next_key(key, done)) {
    if (is(key, "name")) {
      std::string_view s;
      if (!seen.first(kName) || !string(s)) return false;
      out.name.assign(s);
    } else if (is(key, "arg")) {
      if (!seen.first(kArg) || !argument(out.arg)) return false;
    } else if (is(key, "kind")) {
      if (!seen.first(kKind)) return false;
      if (take_null()) continue;
      ir::ArgumentKind kind{};
      if (!enum_of(2, kind)) return false;
      out.kind = kind;
    } else {
      return false;
    }
  }
  return done && seen.all(kName | kArg);
}

bool TapeReader::metadata(ir::NodeMetadata& md) {
  // read_metadata: every value a string; documented keys parsed (a malformed
  // one would be a warning: give up), others kept verbatim in order.
  if (!begin_object()) return false;
  bool done = false;
  std::string_view key;
  while (next_key(key, done)) {
    std::string_view text;
    if (!string(text)) return false;
    if (is(key, "stack_trace")) {
      md.stack_trace = ctx_.stack_trace(text);
    } else if (is(key, "nn_module_stack")) {
      md.nn_module_stack = ctx_.module_stack(text);
      if (!md.nn_module_stack) return false;
    } else if (is(key, "source_fn_stack")) {
      md.source_fn_stack = ctx_.source_fn_stack(text);
      if (!md.source_fn_stack) return false;
    } else if (is(key, "torch_fn")) {
      md.torch_fn = ctx_.torch_fn(text);
      if (!md.torch_fn) return false;
    } else {
      md.other.emplace_back(std::string(key), std::string(text));
    }
  }
  return done;
}

bool TapeReader::node(ir::Node& node) {
  // read_node_body, in document order. A node without a name (files before
  // schema 8.16) is left to the DOM reader.
  enum : unsigned { kTarget = 1, kInputs = 2, kOutputs = 4, kMetadata = 8, kHopFlag = 16, kName = 32 };
  if (!begin_object()) return false;
  SeenKeys seen;
  bool done = false;
  std::string_view key;
  while (next_key(key, done)) {
    if (is(key, "target")) {
      std::string_view s;
      if (!seen.first(kTarget) || !string(s)) return false;
      node.set_target(ir::OpTarget(s));
    } else if (is(key, "inputs")) {
      if (!seen.first(kInputs)) return false;
      std::vector<ir::NamedArgument> ins;
      if (!list(ins, [this](ir::NamedArgument& a) { return named_argument(a); })) return false;
      node.set_inputs(std::move(ins));
    } else if (is(key, "outputs")) {
      if (!seen.first(kOutputs)) return false;
      std::vector<ir::Argument> outs;
      if (!list(outs, [this](ir::Argument& a) { return argument(a); })) return false;
      node.set_outputs(std::move(outs));
    } else if (is(key, "metadata")) {
      if (!seen.first(kMetadata)) return false;
      if (take_null()) continue;
      if (!metadata(node.metadata())) return false;
    } else if (is(key, "is_hop_single_tensor_return")) {
      if (!seen.first(kHopFlag)) return false;
      if (take_null()) continue;
      bool b = false;
      if (!boolean(b)) return false;
      node.is_hop_single_tensor_return() = b;
    } else if (is(key, "name")) {
      std::string_view s;
      if (!seen.first(kName) || !string(s)) return false;
      node.set_name(std::string(s));
    } else {
      return false;
    }
  }
  return done && seen.all(kTarget | kInputs | kOutputs | kName);
}

// ---- SAX handler -------------------------------------------------------------

/// What an open container (outside a captured value) is.
enum class Role : uint8_t { Other, Root, GraphModule, Graph, Nodes, TensorValues };

/// Carries the captured elements (nodes, tensor_values members) from the
/// parse to the readers that build them into `out`. Inline (the default),
/// each element is read as it closes. Threaded, the parse runs on a second
/// thread and hands full batches of elements (a given number of events or more)
/// through a queue to the calling thread, which reads them in document order
/// with `ctx` while the parse goes on (consume()). The IR is built on the
/// calling thread either way (its memory belongs to that thread's heap), and
/// is the same either way. A failed read stops the parse at its next
/// hand-over; the fast path then gives up, as it does inline.
class ElementPipe {
 public:
  ElementPipe(ImportContext& ctx, StreamedGraph& out)
      : ctx_(ctx), out_(out), batch_(std::make_unique<Batch>()) {}
  ElementPipe(const ElementPipe&) = delete;
  ElementPipe& operator=(const ElementPipe&) = delete;

  /// Threaded (handing over batches of at least `batch_events` events) or
  /// inline (0); set before the parse starts.
  void set_batch_events(size_t batch_events) { batch_events_ = batch_events; }
  /// Work consume() does the first time it would wait for a batch (IdleWork).
  void set_idle_work(IdleWork* idle) { idle_ = idle; }

  // ---- the parse's side ----

  /// The tape the parse records the open element on.
  Tape& tape() { return batch_->tape; }

  /// The element recorded on tape() from `begin` on is complete. `name` is
  /// the tensor_values key (in the parse buffer, which outlives the pipe).
  /// False when an element could not be read: the parse must stop.
  bool close_element(size_t begin, Role role, std::string_view name) {
    batch_->items.push_back({begin, batch_->tape.size(), role, name});
    if (batch_events_ == 0) {
      const bool ok = read(*batch_);
      batch_->items.clear();
      batch_->tape.clear();
      if (!ok) failed_.store(true, std::memory_order_relaxed);
      return ok;
    }
    if (batch_->tape.size() < batch_events_) return true;
    return hand_over();
  }

  /// The parse has ended (completed or stopped): the last batch goes.
  void parse_done() {
    if (batch_events_ == 0) return;
    std::unique_lock<std::mutex> lock(mutex_);
    if (!batch_->items.empty() && !failed_.load(std::memory_order_relaxed))
      full_.push_back(std::move(batch_));
    done_ = true;
    lock.unlock();
    ready_.notify_one();
  }

  // ---- the reading side ----

  /// Threaded: reads the batches as they come until the parse has ended.
  void consume() {
    for (;;) {
      std::unique_ptr<Batch> b;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (full_.empty() && !done_ && idle_ && idle_->work && *idle_->work && !idle_->ran) {
          // Nothing to read yet: the calling thread does the idle work
          // instead of waiting (the tokenizer keeps its core).
          idle_->ran = true;
          lock.unlock();
          (*idle_->work)();
          continue;
        }
        ready_.wait(lock, [this] { return !full_.empty() || done_; });
        if (full_.empty()) return;  // the parse has ended and every batch is read
        b = std::move(full_.front());
        full_.pop_front();
      }
      room_.notify_one();
      const bool ok = !failed_.load(std::memory_order_relaxed) && read(*b);
      b->items.clear();
      b->tape.clear();
      std::unique_lock<std::mutex> lock(mutex_);
      if (!ok) failed_.store(true, std::memory_order_relaxed);
      free_.push_back(std::move(b));
      lock.unlock();
      if (!ok) room_.notify_one();
    }
  }

  /// True when every element closed so far was read.
  bool all_read() const { return !failed_.load(std::memory_order_relaxed); }

 private:
  // Batches recorded and not read yet, at most: 64 lets the parse run on
  // through a few milliseconds of idle work on the reading side. A batch's
  // tape grows to about 8,000 events of 16 bytes before it holds 4096, so
  // about 8 MiB at most (more with very large elements).
  static constexpr size_t kMaxQueued = 64;

  struct Item {
    size_t begin, end;
    Role role;
    std::string_view name;
  };
  struct Batch {
    Tape tape;
    std::vector<Item> items;
  };

  /// Reads every element of `b` in order; false at the first that fails.
  bool read(const Batch& b) {
    for (const Item& item : b.items) {
      TapeReader reader(b.tape.begin() + item.begin, b.tape.begin() + item.end, ctx_);
      bool ok = false;
      if (item.role == Role::Nodes) {
        ok = reader.node(ir::GraphLoader::place(out_.graph));
      } else {
        ir::TensorMeta meta;
        ok = reader.tensor_meta(meta);
        if (ok) out_.tensor_values.emplace_back(std::string(item.name), std::move(meta));
      }
      if (!ok || !reader.at_end()) return false;
    }
    return true;
  }

  /// The parse's side: queues the current batch and takes an empty one;
  /// false when a read has failed.
  bool hand_over() {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return full_.size() < kMaxQueued || failed_.load(std::memory_order_relaxed); });
    if (failed_.load(std::memory_order_relaxed)) return false;
    full_.push_back(std::move(batch_));
    if (free_.empty()) {
      batch_ = std::make_unique<Batch>();
    } else {
      batch_ = std::move(free_.back());
      free_.pop_back();
    }
    lock.unlock();
    ready_.notify_one();
    return true;
  }

  ImportContext& ctx_;
  StreamedGraph& out_;
  std::unique_ptr<Batch> batch_;  ///< being recorded by the parse
  size_t batch_events_ = 0;
  IdleWork* idle_ = nullptr;  ///< the calling thread's side only
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<std::unique_ptr<Batch>> full_;   ///< recorded, not read yet (under mutex_)
  std::vector<std::unique_ptr<Batch>> free_;  ///< read, for reuse (under mutex_)
  bool done_ = false;                         ///< under mutex_
  std::atomic<bool> failed_{false};
};

/// RapidJSON SAX handler of stream_program: forwards the events to the
/// document, except those of each element of /graph_module/graph/nodes and
/// each member of /graph_module/graph/tensor_values. Those are recorded on
/// the tape and read into `out` when the element closes; the document gets
/// [] and {} in their place. Returning false stops the parse: the fast path
/// gives up.
class StreamHandler {
 public:
  StreamHandler(rapidjson::Document& doc, StreamedGraph& out, ElementPipe& pipe)
      : doc_(doc), out_(out), pipe_(pipe) {}

  bool Null() { return capturing() ? record(Tok::Null) : scalar() && doc_.Null(); }
  bool Bool(bool b) { return capturing() ? record(b ? Tok::True : Tok::False) : scalar() && doc_.Bool(b); }
  bool Int(int i) { return capturing() ? record_int(i) : scalar() && doc_.Int(i); }
  bool Uint(unsigned u) { return capturing() ? record_int(u) : scalar() && doc_.Uint(u); }
  bool Int64(int64_t i) { return capturing() ? record_int(i) : scalar() && doc_.Int64(i); }
  bool Uint64(uint64_t u) {
    if (capturing()) {
      if (u <= static_cast<uint64_t>(INT64_MAX)) return record_int(static_cast<int64_t>(u));
      pipe_.tape().push_big(u);
      return true;
    }
    return scalar() && doc_.Uint64(u);
  }
  bool Double(double d) {
    if (capturing()) {
      pipe_.tape().push_double(d);
      return true;
    }
    return scalar() && doc_.Double(d);
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return forward_raw_number(*this, s, n); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    if (capturing()) {
      pipe_.tape().push_string(Tok::String, s, n);
      return true;
    }
    return scalar() && doc_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if (capturing()) {
      pipe_.tape().push_string(Tok::Key, s, n);
      return true;
    }
    const std::string_view key(s, n);
    const Role top = roles_.back();
    next_ = Role::Other;
    if (top == Role::TensorValues) {
      tv_name_ = key;  // the member's value is captured, not forwarded (in situ: the text stays)
      return true;
    }
    if (top == Role::Root && is(key, "graph_module")) {
      next_ = Role::GraphModule;
    } else if (top == Role::GraphModule && is(key, "graph")) {
      next_ = Role::Graph;
    } else if (top == Role::Graph && is(key, "nodes")) {
      next_ = Role::Nodes;
    } else if (top == Role::Graph && is(key, "tensor_values")) {
      next_ = Role::TensorValues;
    }
    // A second key of the same name (the DOM reader keeps the last value,
    // whatever its type) is the DOM reader's business.
    if (!claim(next_)) return false;
    return doc_.Key(s, n, copy);
  }
  bool StartObject() {
    if (!enter()) return false;
    if (capturing()) return record_open(Tok::ObjStart);
    const Role top = roles_.empty() ? Role::Other : roles_.back();
    if (top == Role::Nodes || top == Role::TensorValues) {
      capture_ = top;
      capture_depth_ = 0;
      element_begin_ = pipe_.tape().size();
      return record_open(Tok::ObjStart);
    }
    Role role = roles_.empty() ? Role::Root : take_next();
    if (role == Role::Nodes) role = Role::Other;  // not an array: the DOM reader reports it
    if (role == Role::TensorValues) out_.has_tensor_values = true;
    roles_.push_back(role);
    return doc_.StartObject();
  }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    if (capturing()) return record_close(Tok::ObjEnd);
    const Role role = roles_.back();
    roles_.pop_back();
    return doc_.EndObject(role == Role::TensorValues ? 0 : n);
  }
  bool StartArray() {
    if (!enter()) return false;
    if (capturing()) {
      open_arrays_.push_back(pipe_.tape().size());
      return record_open(Tok::ArrStart);
    }
    const Role top = roles_.empty() ? Role::Other : roles_.back();
    if (top == Role::Nodes || top == Role::TensorValues) return false;  // a node or tensor meta that is not an object
    Role role = roles_.empty() ? Role::Other : take_next();
    if (role != Role::Nodes) role = Role::Other;
    if (role == Role::Nodes) out_.has_nodes = true;
    roles_.push_back(role);
    return doc_.StartArray();
  }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    if (capturing()) {
      pipe_.tape().at(open_arrays_.back()).len = n;  // for the readers' reserve()
      open_arrays_.pop_back();
      return record_close(Tok::ArrEnd);
    }
    const Role role = roles_.back();
    roles_.pop_back();
    return doc_.EndArray(role == Role::Nodes ? 0 : n);
  }

 private:
  bool capturing() const { return capture_ != Role::Other; }
  Role take_next() {
    const Role r = next_;
    next_ = Role::Other;
    return r;
  }
  /// A scalar outside a capture: fine unless it stands where a node or a tensor meta should.
  bool scalar() {
    next_ = Role::Other;
    return roles_.empty() || (roles_.back() != Role::Nodes && roles_.back() != Role::TensorValues);
  }
  /// Each special key may appear once.
  bool claim(Role role) {
    if (role == Role::Other) return true;
    const auto bit = 1u << static_cast<unsigned>(role);
    if (claimed_ & bit) return false;
    claimed_ |= bit;
    return true;
  }
  bool enter() { return ++depth_ <= kMaxJsonDepth; }
  bool record(Tok k) {
    pipe_.tape().push(k);
    return true;
  }
  bool record_int(int64_t v) {
    pipe_.tape().push_int(v);
    return true;
  }
  bool record_open(Tok k) {
    pipe_.tape().push(k);
    ++capture_depth_;
    return true;
  }
  bool record_close(Tok k) {
    pipe_.tape().push(k);
    if (--capture_depth_ > 0) return true;
    // The captured value is complete: it is read (now or on the reader thread).
    const Role role = capture_;
    capture_ = Role::Other;
    return pipe_.close_element(element_begin_, role,
                               role == Role::TensorValues ? tv_name_ : std::string_view());
  }

  rapidjson::Document& doc_;
  StreamedGraph& out_;
  ElementPipe& pipe_;
  std::vector<Role> roles_;
  Role next_ = Role::Other;
  unsigned claimed_ = 0;
  size_t depth_ = 0;
  Role capture_ = Role::Other;  ///< Nodes or TensorValues while capturing an element
  int capture_depth_ = 0;
  std::string_view tv_name_;         ///< the tensor_values key being captured (in the parse buffer)
  size_t element_begin_ = 0;         ///< tape position of the captured element's first event
  std::vector<size_t> open_arrays_;  ///< tape positions of the captured arrays still open
};

}  // namespace

namespace {
/// Parses the NUL-terminated text at `buffer` (owned by `doc`) in place.
bool stream_buffer(char* buffer, ImportContext& ctx, JsonDocument& doc, StreamedGraph& out,
                   size_t batch_events, IdleWork* idle) {
  rapidjson::Reader reader;
  ElementPipe pipe(ctx, out);
  StreamHandler handler(doc.dom(), out, pipe);
  bool parsed = false;
  auto generate = [&](rapidjson::Document&) {
    rapidjson::InsituStringStream stream(buffer);
    parsed = !reader.Parse<kProgramJsonParseFlags>(stream, handler).IsError();
    return parsed;
  };
  auto parse = [&] {
    doc.dom().Populate(generate);
    pipe.parse_done();
  };
  if (batch_events > 0) {
    pipe.set_batch_events(batch_events);
    // Where no thread can be started, BackgroundJob runs the work at once,
    // here: the work then does nothing, and the parse runs inline below.
    const std::thread::id self = std::this_thread::get_id();
    BackgroundJob job([&parse, self] {
      if (std::this_thread::get_id() != self) parse();
    });
    if (job.threaded()) {
      pipe.set_idle_work(idle);
      pipe.consume();
      job.wait();
      return parsed && pipe.all_read();
    }
    pipe.set_batch_events(0);
  }
  parse();
  return parsed && pipe.all_read();
}
}  // namespace

bool stream_program(const std::string& text, ImportContext& ctx, JsonDocument& doc, StreamedGraph& out,
                    size_t batch_events, IdleWork* idle) {
  // In situ, over a copy that the document keeps (its strings and the tape's
  // point into it): the caller's text stays intact for the DOM reader. Up to
  // the first NUL, as the DOM reader reads. 16 bytes of padding (NULs) keep
  // the SIMD scan's aligned 16-byte loads inside the allocation.
  char* buffer = doc.allocate_text(text.size() + 16);
  if (!buffer) return false;  // out of memory: the DOM reader needs no copy
#if defined(RAPIDJSON_SSE2)
  // The SIMD string scan misreads raw 0x1A..0x1F bytes (json_cursor.h).
  if (!copy_unless_simd_scan_blind_bytes(text, buffer)) return false;
#else
  std::memcpy(buffer, text.data(), text.size());
#endif
  std::memset(buffer + text.size(), 0, 16);
  return stream_buffer(buffer, ctx, doc, out, batch_events, idle);
}

bool stream_program_in_place(std::string text, ImportContext& ctx, JsonDocument& doc, StreamedGraph& out,
                             size_t batch_events, IdleWork* idle) {
#if defined(RAPIDJSON_SSE2)
  return stream_program(text, ctx, doc, out, batch_events, idle);
#else
  return stream_buffer(doc.adopt_text(std::move(text)), ctx, doc, out, batch_events, idle);
#endif
}

}  // namespace pteforge::serde::detail
