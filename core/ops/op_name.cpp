// Operator-name parsing (see op_name.h).
#include "ops/op_name.h"

#include "ops/str_cat.h"

namespace pteforge::ops {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!(alpha || (digit && i > 0))) return false;
  }
  return true;
}

Error not_an_operator(std::string_view target) {
  return make_error(ErrorCode::UNSUPPORTED_OPERATOR,
                    detail::str_cat({"\"", target,
                                     "\" is not an operator name (expected e.g. torch.ops.aten.add.Tensor, "
                                     "aten.add.Tensor or aten::add.Tensor)"}));
}

}  // namespace

std::string OperatorName::to_string() const {
  std::string s = detail::str_cat({ns, "::", name});
  if (!overload.empty()) {
    s += '.';
    s += overload;
  }
  return s;
}

std::optional<OperatorNameView> split_op_target(std::string_view target) {
  std::string_view s = target;
  constexpr std::string_view kTorchOps = "torch.ops.";
  if (s.substr(0, kTorchOps.size()) == kTorchOps) s.remove_prefix(kTorchOps.size());

  OperatorNameView out;
  size_t colons = s.find("::");
  if (colons != std::string_view::npos) {
    // ns::name[.overload]
    out.ns = s.substr(0, colons);
    std::string_view rest = s.substr(colons + 2);
    size_t dot = rest.find('.');
    out.name = rest.substr(0, dot);
    if (dot != std::string_view::npos) {
      out.overload = rest.substr(dot + 1);
      if (!is_identifier(out.overload)) return std::nullopt;
    }
  } else {
    // ns.name[.overload]
    size_t dot1 = s.find('.');
    if (dot1 == std::string_view::npos) return std::nullopt;
    out.ns = s.substr(0, dot1);
    std::string_view rest = s.substr(dot1 + 1);
    size_t dot2 = rest.find('.');
    out.name = rest.substr(0, dot2);
    if (dot2 != std::string_view::npos) {
      out.overload = rest.substr(dot2 + 1);
      if (!is_identifier(out.overload)) return std::nullopt;
    }
  }
  if (!is_identifier(out.ns) || !is_identifier(out.name)) return std::nullopt;
  if (out.overload == "default") out.overload = {};
  return out;
}

Result<OperatorName> parse_op_target(std::string_view target) {
  auto v = split_op_target(target);
  if (!v) return not_an_operator(target);
  return OperatorName{std::string(v->ns), std::string(v->name), std::string(v->overload)};
}

}  // namespace pteforge::ops
