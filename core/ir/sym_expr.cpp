// sympy expression parser, printer and evaluator (see sym_expr.h; syntax
// from torch-export-format.md §9.2).
#include "ir/sym_expr.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>

namespace pteforge::ir {
namespace {

// Nesting budget of the recursive-descent parser: kMaxLevels levels of
// parentheses or calls parse, one more does not. Each level is nine nested
// calls (expr ... atom); at 80 levels an unoptimized WebAssembly build (-O0,
// V8's baseline compiler) overflowed Node's default stack, so 40 keeps a 2x
// margin there (native stacks are far deeper). torch.export's sympy strings
// nest a few levels.
constexpr int kMaxLevels = 40;
// The depth counter's bound: an expression costs one unit, and each level two
// more (the bracket and the expression inside).
constexpr int kMaxDepth = 2 * kMaxLevels + 1;
// Built on the error path only (no static initializer).
std::string too_deep() {
  return "expression nested too deeply (more than " + std::to_string(kMaxLevels) + " levels of parentheses or calls)";
}

enum class Tok : uint8_t { End, Int, Float, Name, Str, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
};

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) { advance(); }

  Result<SymNode> parse_all() {
    PTEFORGE_ASSIGN_OR_RETURN(SymNode e, expr());
    if (cur_.kind != Tok::End) return fail("unexpected '" + std::string(cur_.text) + "'");
    return e;
  }

 private:
  Error fail(const std::string& what) const {
    // A long text is cut: the message names the offset, and an input of
    // megabytes must not be echoed whole.
    constexpr size_t kShown = 200;
    size_t head = std::min<size_t>(120, s_.size());  // cut at a UTF-8 character boundary (long texts only)
    while (s_.size() > kShown && head > 0 && (static_cast<unsigned char>(s_[head]) & 0xC0) == 0x80) --head;
    const std::string quoted = s_.size() <= kShown ? "\"" + std::string(s_) + "\""
                                                   : "\"" + std::string(s_.substr(0, head)) + "...\" (" +
                                                         std::to_string(s_.size()) + " bytes)";
    return make_error(ErrorCode::INPUT_SCHEMA, "cannot parse symbolic expression " + quoted + ": " + what +
                                                   " at offset " + std::to_string(pos_));
  }

  void advance() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
    size_t start = pos_;
    if (pos_ >= s_.size()) {
      cur_ = {Tok::End, {}};
      return;
    }
    char c = s_[pos_];
    if (is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]))) {
      bool is_float = false;
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '.') {
        is_float = true;
        ++pos_;
        while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      }
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        is_float = true;
        ++pos_;
        if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
        while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      }
      cur_ = {is_float ? Tok::Float : Tok::Int, s_.substr(start, pos_ - start)};
      return;
    }
    if (is_ident_start(c)) {
      while (pos_ < s_.size() && (is_ident_start(s_[pos_]) || is_digit(s_[pos_]))) ++pos_;
      cur_ = {Tok::Name, s_.substr(start, pos_ - start)};
      return;
    }
    if (c == '\'' || c == '"') {
      ++pos_;
      while (pos_ < s_.size() && s_[pos_] != c) ++pos_;
      if (pos_ >= s_.size()) {
        cur_ = {Tok::Punct, s_.substr(start)};  // unterminated: reported by the caller
        return;
      }
      cur_ = {Tok::Str, s_.substr(start + 1, pos_ - start - 1)};
      ++pos_;
      return;
    }
    static constexpr std::string_view kTwo[] = {"**", "//", "<=", ">=", "==", "!="};
    for (std::string_view two : kTwo) {
      if (s_.substr(pos_, 2) == two) {
        pos_ += 2;
        cur_ = {Tok::Punct, two};
        return;
      }
    }
    ++pos_;
    cur_ = {Tok::Punct, s_.substr(start, 1)};
  }

  bool accept(std::string_view punct) {
    if (cur_.kind == Tok::Punct && cur_.text == punct) {
      advance();
      return true;
    }
    return false;
  }

  struct DepthGuard {
    explicit DepthGuard(int& d) : d_(d) { ++d_; }
    ~DepthGuard() { --d_; }
    int& d_;
  };

  static SymNode call(std::string name, std::vector<SymNode> args) {
    SymNode n;
    n.op = SymNode::Op::Call;
    n.name = std::move(name);
    n.args = std::move(args);
    return n;
  }
  static SymNode integer(int64_t v) {
    SymNode n;
    n.op = SymNode::Op::Integer;
    n.num = v;
    return n;
  }
  static SymNode nary(SymNode::Op op, SymNode a, SymNode b) {
    SymNode n;
    n.op = op;
    if (a.op == op) {
      n.args = std::move(a.args);
    } else {
      n.args.push_back(std::move(a));
    }
    n.args.push_back(std::move(b));
    return n;
  }
  static SymNode negate(SymNode a) {
    switch (a.op) {
      case SymNode::Op::Integer:
      case SymNode::Op::Rational:
        if (a.num != INT64_MIN) {
          a.num = -a.num;
          return a;
        }
        break;
      case SymNode::Op::Float: a.fvalue = -a.fvalue; return a;
      default: break;
    }
    return nary(SymNode::Op::Mul, integer(-1), std::move(a));
  }

  Result<SymNode> expr() {
    DepthGuard g(depth_);
    if (depth_ > kMaxDepth) return fail(too_deep());
    PTEFORGE_ASSIGN_OR_RETURN(SymNode lhs, and_expr());
    while (accept("|")) {
      PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, and_expr());
      lhs = call("Or", {std::move(lhs), std::move(rhs)});
    }
    return lhs;
  }

  Result<SymNode> and_expr() {
    PTEFORGE_ASSIGN_OR_RETURN(SymNode lhs, not_expr());
    while (accept("&")) {
      PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, not_expr());
      lhs = call("And", {std::move(lhs), std::move(rhs)});
    }
    return lhs;
  }

  Result<SymNode> not_expr() {
    if (accept("~")) {
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth) return fail(too_deep());
      PTEFORGE_ASSIGN_OR_RETURN(SymNode a, not_expr());
      return call("Not", {std::move(a)});
    }
    return comparison();
  }

  Result<SymNode> comparison() {
    PTEFORGE_ASSIGN_OR_RETURN(SymNode lhs, additive());
    static constexpr std::pair<std::string_view, std::string_view> kRel[] = {
        {"<", "StrictLessThan"}, {"<=", "LessThan"},   {">", "StrictGreaterThan"},
        {">=", "GreaterThan"},   {"==", "Equality"},   {"!=", "Unequality"}};
    for (const auto& [op, name] : kRel) {
      if (accept(op)) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, additive());
        return call(std::string(name), {std::move(lhs), std::move(rhs)});
      }
    }
    return lhs;
  }

  Result<SymNode> additive() {
    PTEFORGE_ASSIGN_OR_RETURN(SymNode lhs, term());
    while (true) {
      if (accept("+")) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, term());
        lhs = nary(SymNode::Op::Add, std::move(lhs), std::move(rhs));
      } else if (accept("-")) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, term());
        lhs = nary(SymNode::Op::Add, std::move(lhs), negate(std::move(rhs)));
      } else {
        return lhs;
      }
    }
  }

  Result<SymNode> term() {
    PTEFORGE_ASSIGN_OR_RETURN(SymNode lhs, unary());
    while (true) {
      if (accept("*")) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, unary());
        lhs = nary(SymNode::Op::Mul, std::move(lhs), std::move(rhs));
      } else if (accept("//")) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, unary());
        lhs = call("FloorDiv", {std::move(lhs), std::move(rhs)});
      } else if (accept("/")) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, unary());
        lhs = call("TrueDiv", {std::move(lhs), std::move(rhs)});
      } else if (accept("%")) {
        PTEFORGE_ASSIGN_OR_RETURN(SymNode rhs, unary());
        lhs = call("Mod", {std::move(lhs), std::move(rhs)});
      } else {
        return lhs;
      }
    }
  }

  Result<SymNode> unary() {
    if (accept("-")) {
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth) return fail(too_deep());
      PTEFORGE_ASSIGN_OR_RETURN(SymNode a, unary());
      return negate(std::move(a));
    }
    if (accept("+")) {
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth) return fail(too_deep());
      return unary();
    }
    return power();
  }

  Result<SymNode> power() {
    PTEFORGE_ASSIGN_OR_RETURN(SymNode base, atom());
    if (accept("**")) {
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth) return fail(too_deep());
      PTEFORGE_ASSIGN_OR_RETURN(SymNode exp, unary());
      SymNode n;
      n.op = SymNode::Op::Pow;
      n.args.push_back(std::move(base));
      n.args.push_back(std::move(exp));
      return n;
    }
    return base;
  }

  Result<int64_t> parse_int(std::string_view t) const {
    int64_t v = 0;
    for (char c : t) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) {
        return fail("integer out of range");
      }
    }
    return v;
  }

  Result<SymNode> atom() {
    Token t = cur_;
    switch (t.kind) {
      case Tok::Int: {
        advance();
        PTEFORGE_ASSIGN_OR_RETURN(int64_t v, parse_int(t.text));
        return integer(v);
      }
      case Tok::Float: {
        advance();
        SymNode n;
        n.op = SymNode::Op::Float;
        n.fvalue = std::strtod(std::string(t.text).c_str(), nullptr);
        return n;
      }
      case Tok::Name: {
        advance();
        if (accept("(")) return call_args(std::string(t.text));
        if (t.text == "True" || t.text == "true") return boolean(true);
        if (t.text == "False" || t.text == "false") return boolean(false);
        SymNode n;
        n.op = SymNode::Op::Symbol;
        n.name = std::string(t.text);
        return n;
      }
      case Tok::Punct:
        if (accept("(")) {
          DepthGuard g(depth_);
          if (depth_ > kMaxDepth) return fail(too_deep());
          PTEFORGE_ASSIGN_OR_RETURN(SymNode e, expr());
          if (accept(",")) return tuple(std::move(e));
          if (!accept(")")) return fail("expected ')'");
          return e;
        }
        return fail("unexpected '" + std::string(t.text) + "'");
      case Tok::Str: return fail("unexpected string");
      case Tok::End: return fail("unexpected end");
    }
    return fail("unexpected token");
  }

  // After "(first,": the rest of a tuple up to ')', as sympy's str() writes
  // Piecewise's (value, condition) pairs. A call with an empty name (printed
  // back as "(a, b)").
  Result<SymNode> tuple(SymNode first) {
    std::vector<SymNode> items;
    items.push_back(std::move(first));
    while (!accept(")")) {
      PTEFORGE_ASSIGN_OR_RETURN(SymNode a, expr());
      items.push_back(std::move(a));
      if (accept(")")) break;
      if (!accept(",")) return fail("expected ',' or ')'");
    }
    return call("", std::move(items));
  }

  static SymNode boolean(bool v) {
    SymNode n;
    n.op = SymNode::Op::Bool;
    n.num = v ? 1 : 0;
    return n;
  }

  // After "Name(": arguments (positional expressions, strings, key=value) up to ')'.
  Result<SymNode> call_args(std::string name) {
    DepthGuard g(depth_);
    if (depth_ > kMaxDepth) return fail(too_deep());
    std::vector<SymNode> args;
    std::vector<std::string> strings;
    if (!accept(")")) {
      while (true) {
        if (cur_.kind == Tok::Str) {
          strings.emplace_back(cur_.text);
          advance();
        } else if (cur_.kind == Tok::Name && peek_is_assign()) {
          advance();  // keyword name (sympy assumptions such as integer=True): ignored
          advance();  // '='
          PTEFORGE_ASSIGN_OR_RETURN(SymNode ignored, expr());
          (void)ignored;
        } else {
          PTEFORGE_ASSIGN_OR_RETURN(SymNode a, expr());
          args.push_back(std::move(a));
        }
        if (accept(")")) break;
        if (!accept(",")) return fail("expected ',' or ')'");
      }
    }
    if (name == "Symbol" || name == "Dummy") {
      if (strings.size() != 1) return fail("Symbol needs a name");
      SymNode n;
      n.op = SymNode::Op::Symbol;
      n.name = strings[0];
      return n;
    }
    if (!strings.empty() && name != "Float") return fail("unexpected string argument to " + name);
    if (name == "Integer") {
      if (args.size() != 1 || args[0].op != SymNode::Op::Integer) return fail("Integer needs one integer");
      return std::move(args[0]);
    }
    if (name == "Rational") {
      if (args.size() != 2 || args[0].op != SymNode::Op::Integer || args[1].op != SymNode::Op::Integer ||
          args[1].num == 0) {
        return fail("Rational needs two integers");
      }
      SymNode n;
      n.op = SymNode::Op::Rational;
      n.num = args[0].num;
      n.den = args[1].num;
      return n;
    }
    if (name == "Float") {
      SymNode n;
      n.op = SymNode::Op::Float;
      if (!strings.empty()) {
        n.fvalue = std::strtod(strings[0].c_str(), nullptr);
      } else if (!args.empty() && args[0].op == SymNode::Op::Float) {
        n.fvalue = args[0].fvalue;
      } else if (!args.empty() && args[0].op == SymNode::Op::Integer) {
        n.fvalue = static_cast<double>(args[0].num);
      } else {
        return fail("Float needs a number");
      }
      return n;
    }
    if (name == "Add" || name == "Mul") {
      if (args.empty()) return fail(name + " needs arguments");
      SymNode n;
      n.op = name == "Add" ? SymNode::Op::Add : SymNode::Op::Mul;
      n.args = std::move(args);
      return n;
    }
    if (name == "Pow") {
      if (args.size() != 2) return fail("Pow needs two arguments");
      SymNode n;
      n.op = SymNode::Op::Pow;
      n.args = std::move(args);
      return n;
    }
    static constexpr std::pair<std::string_view, std::string_view> kAlias[] = {
        {"Eq", "Equality"}, {"Ne", "Unequality"}, {"Lt", "StrictLessThan"},
        {"Le", "LessThan"}, {"Gt", "StrictGreaterThan"}, {"Ge", "GreaterThan"}};
    for (const auto& [alias, full] : kAlias) {
      if (name == alias) name = std::string(full);
    }
    return call(std::move(name), std::move(args));
  }

  bool peek_is_assign() const {
    size_t p = pos_;
    while (p < s_.size() && s_[p] == ' ') ++p;
    return p < s_.size() && s_[p] == '=' && (p + 1 >= s_.size() || s_[p + 1] != '=');
  }

  std::string_view s_;
  size_t pos_ = 0;
  Token cur_;
  int depth_ = 0;
};

// ---- printing ------------------------------------------------------------

int precedence(const SymNode& e) {
  switch (e.op) {
    case SymNode::Op::Add: return 1;
    case SymNode::Op::Mul: return 2;
    case SymNode::Op::Pow: return 3;
    case SymNode::Op::Integer:
    case SymNode::Op::Float: return (e.op == SymNode::Op::Integer ? e.num < 0 : e.fvalue < 0) ? 2 : 4;
    case SymNode::Op::Rational: return 2;
    case SymNode::Op::Call: {
      static constexpr std::string_view kRel[] = {"StrictLessThan", "LessThan", "StrictGreaterThan",
                                                  "GreaterThan",    "Equality", "Unequality",
                                                  "And",            "Or"};
      for (auto r : kRel) {
        if (e.name == r) return 0;
      }
      return 4;
    }
    default: return 4;
  }
}

bool is_number(const SymNode& e) {
  return e.op == SymNode::Op::Integer || e.op == SymNode::Op::Rational || e.op == SymNode::Op::Float;
}

bool is_negative_term(const SymNode& e) {
  if (e.op == SymNode::Op::Integer || e.op == SymNode::Op::Rational) return e.num < 0;
  if (e.op == SymNode::Op::Float) return e.fvalue < 0;
  if (e.op == SymNode::Op::Mul && !e.args.empty()) return is_negative_term(e.args[0]);
  return false;
}

SymNode negated_term(const SymNode& e) {
  SymNode n = e;
  if (n.op == SymNode::Op::Mul) {
    SymNode& c = n.args[0];
    if (c.op == SymNode::Op::Float) {
      c.fvalue = -c.fvalue;
    } else {
      c.num = -c.num;
    }
    if (c.op == SymNode::Op::Integer && c.num == 1 && n.args.size() > 1) n.args.erase(n.args.begin());
    if (n.args.size() == 1) return n.args[0];
    return n;
  }
  if (n.op == SymNode::Op::Float) {
    n.fvalue = -n.fvalue;
  } else {
    n.num = -n.num;
  }
  return n;
}

std::string wrap(const SymNode& e, int min_prec) {
  std::string s = format_sym_expr(e);
  return precedence(e) < min_prec ? "(" + s + ")" : s;
}

std::string join_args(const std::vector<SymNode>& args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += format_sym_expr(args[i]);
  }
  return out;
}

std::string format_float(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

/// Appends the symbols of `e` not in `seen` to `out`, in first-seen order
/// (`seen` makes it linear: an expression may name thousands of symbols).
void collect(const SymNode& e, std::vector<std::string>& out, std::unordered_set<std::string_view>& seen) {
  if (e.op == SymNode::Op::Symbol) {
    if (seen.insert(e.name).second) out.push_back(e.name);
    return;
  }
  for (const auto& a : e.args) collect(a, out, seen);
}

}  // namespace

int64_t python_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t python_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Result<SymNode> parse_sym_expr(std::string_view text) {
  Parser p(text);
  return p.parse_all();
}

std::string format_sym_expr(const SymNode& e) {
  switch (e.op) {
    case SymNode::Op::Integer: return std::to_string(e.num);
    case SymNode::Op::Rational: return std::to_string(e.num) + "/" + std::to_string(e.den);
    case SymNode::Op::Float: return format_float(e.fvalue);
    case SymNode::Op::Bool: return e.num ? "True" : "False";
    case SymNode::Op::Symbol: return e.name;
    case SymNode::Op::Add: {
      // Like sympy: positive terms first (symbols, then numbers), then negative ones.
      std::vector<const SymNode*> terms;
      for (int group = 0; group < 4; ++group) {
        for (const auto& a : e.args) {
          int g = (is_negative_term(a) ? 2 : 0) + (is_number(a) ? 1 : 0);
          if (g == group) terms.push_back(&a);
        }
      }
      std::string out;
      for (size_t i = 0; i < terms.size(); ++i) {
        const SymNode& t = *terms[i];
        if (i == 0) {
          out += wrap(t, 1);
        } else if (is_negative_term(t)) {
          out += " - " + wrap(negated_term(t), 2);
        } else {
          out += " + " + wrap(t, 1);
        }
      }
      return out;
    }
    case SymNode::Op::Mul: {
      std::string out;
      size_t start = 0;
      if (!e.args.empty() && e.args[0].op == SymNode::Op::Integer && e.args[0].num == -1 && e.args.size() > 1) {
        out = "-";
        start = 1;
      }
      for (size_t i = start; i < e.args.size(); ++i) {
        if (i > start) out += "*";
        out += wrap(e.args[i], i == 0 ? 2 : 3);
      }
      return out;
    }
    case SymNode::Op::Pow: return wrap(e.args[0], 4) + "**" + wrap(e.args[1], 4);
    case SymNode::Op::Call: {
      static constexpr std::pair<std::string_view, std::string_view> kInfix[] = {
          {"StrictLessThan", " < "}, {"LessThan", " <= "}, {"StrictGreaterThan", " > "},
          {"GreaterThan", " >= "},   {"Equality", " == "}, {"Unequality", " != "},
          {"And", " & "},            {"Or", " | "}};
      for (const auto& [name, op] : kInfix) {
        if (e.name == name && e.args.size() == 2) return wrap(e.args[0], 1) + std::string(op) + wrap(e.args[1], 1);
      }
      if (e.name == "FloorDiv" && e.args.size() == 2) {
        return "(" + wrap(e.args[0], 2) + "//" + wrap(e.args[1], 3) + ")";
      }
      if (e.name == "Not" && e.args.size() == 1) return "~" + wrap(e.args[0], 4);
      return e.name + "(" + join_args(e.args) + ")";
    }
  }
  return {};
}

std::string display_sym_expr(std::string_view text) {
  auto parsed = parse_sym_expr(text);
  if (!parsed.ok()) return std::string(text);
  return format_sym_expr(*parsed);
}

std::vector<std::string> free_symbols(const SymNode& e) {
  std::vector<std::string> out;
  std::unordered_set<std::string_view> seen;  // views of names in `e`
  collect(e, out, seen);
  return out;
}

std::optional<int64_t> evaluate_sym_expr(const SymNode& e,
                                         const std::function<std::optional<int64_t>(std::string_view)>& lookup) {
  auto eval = [&lookup](const SymNode& a) { return evaluate_sym_expr(a, lookup); };
  auto eval_all = [&](std::vector<int64_t>& out) {
    for (const auto& a : e.args) {
      auto v = eval(a);
      if (!v) return false;
      out.push_back(*v);
    }
    return true;
  };
  switch (e.op) {
    case SymNode::Op::Integer:
    case SymNode::Op::Bool: return e.num;
    case SymNode::Op::Rational:
      if (e.num % e.den == 0) return e.num / e.den;
      return std::nullopt;
    case SymNode::Op::Float: return std::nullopt;
    case SymNode::Op::Symbol: return lookup(e.name);
    case SymNode::Op::Add:
    case SymNode::Op::Mul: {
      std::vector<int64_t> v;
      if (!eval_all(v)) return std::nullopt;
      int64_t acc = e.op == SymNode::Op::Add ? 0 : 1;
      for (int64_t x : v) {
        bool overflow = e.op == SymNode::Op::Add ? __builtin_add_overflow(acc, x, &acc)
                                                 : __builtin_mul_overflow(acc, x, &acc);
        if (overflow) return std::nullopt;
      }
      return acc;
    }
    case SymNode::Op::Pow: {
      auto b = eval(e.args[0]);
      auto x = eval(e.args[1]);
      if (!b || !x || *x < 0) return std::nullopt;
      int64_t acc = 1;
      for (int64_t i = 0; i < *x; ++i) {
        if (__builtin_mul_overflow(acc, *b, &acc)) return std::nullopt;
      }
      return acc;
    }
    case SymNode::Op::Call: {
      std::vector<int64_t> v;
      if (!eval_all(v)) return std::nullopt;
      const std::string& f = e.name;
      auto two = [&v]() { return v.size() == 2; };
      if ((f == "FloorDiv" || f == "CleanDiv" || f == "IntTrueDiv") && two()) {
        if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1)) return std::nullopt;
        if (f != "FloorDiv" && v[0] % v[1] != 0) return std::nullopt;
        return python_floor_div(v[0], v[1]);
      }
      if (f == "CeilDiv" && two()) {
        if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1)) return std::nullopt;
        return -python_floor_div(-v[0], v[1]);
      }
      if ((f == "Mod" || f == "PythonMod") && two()) {
        if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1)) return std::nullopt;
        return python_mod(v[0], v[1]);
      }
      if (f == "ModularIndexing" && v.size() == 3) {
        if (v[1] == 0 || v[2] == 0) return std::nullopt;
        return python_mod(python_floor_div(v[0], v[1]), v[2]);
      }
      if ((f == "Max" || f == "Min") && !v.empty()) {
        int64_t r = v[0];
        for (int64_t x : v) r = f == "Max" ? std::max(r, x) : std::min(r, x);
        return r;
      }
      if (f == "Abs" && v.size() == 1 && v[0] != INT64_MIN) return v[0] < 0 ? -v[0] : v[0];
      if ((f == "Identity" || f == "TruncToInt" || f == "FloorToInt" || f == "CeilToInt" || f == "RoundToInt") &&
          v.size() == 1) {
        return v[0];
      }
      if (two()) {
        if (f == "StrictLessThan") return v[0] < v[1];
        if (f == "LessThan") return v[0] <= v[1];
        if (f == "StrictGreaterThan") return v[0] > v[1];
        if (f == "GreaterThan") return v[0] >= v[1];
        if (f == "Equality") return v[0] == v[1];
        if (f == "Unequality") return v[0] != v[1];
        if (f == "And") return (v[0] != 0) && (v[1] != 0);
        if (f == "Or") return (v[0] != 0) || (v[1] != 0);
      }
      if (f == "Not" && v.size() == 1) return v[0] == 0;
      if (f == "Where" && v.size() == 3) return v[0] ? v[1] : v[2];
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> integer_literal(std::string_view text) {
  if (text.size() > 9 && text.substr(0, 8) == "Integer(" && text.back() == ')')
    text = text.substr(8, text.size() - 9);
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;  // (INT64_MIN itself is left as an expression)
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

}  // namespace pteforge::ir
