// Interned operator targets (see target.h).
#include "ir/target.h"

#include <deque>
#include <mutex>

#include "support/name_map.h"

namespace pteforge::ir {

struct OpTarget::Info {
  std::string full;
  TargetKind kind = TargetKind::None;
  std::string_view ns, op, overload, short_name;
  bool well_formed = false;
};

namespace {

constexpr std::string_view kTorchOps = "torch.ops.";

struct Registry {
  std::mutex mu;
  std::deque<OpTarget::Info> infos;  // stable addresses
  // Looked up once per node read (and per OpTarget made by a pass): the
  // robin map with its WebAssembly-friendly name comparison (name_map.h).
  NameMap<const OpTarget::Info*> by_name;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: targets may outlive static destructors
  return *r;
}

/// A Python identifier: a letter or '_', then letters, digits, '_'. Bytes of
/// UTF-8 sequences count as letters (Python allows non-ASCII identifiers).
bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    (static_cast<unsigned char>(c) & 0x80) != 0;
    if (!ok) return false;
  }
  return true;
}

/// Identifiers joined by single dots ("torch.nn.functional").
bool is_dotted_identifier(std::string_view s) {
  for (;;) {
    const size_t dot = s.find('.');
    if (!is_identifier(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s = s.substr(dot + 1);
  }
}

/// Whether the parsed pieces have a form torch.export writes (OpTarget::well_formed).
bool written_form(const OpTarget::Info& info) {
  switch (info.kind) {
    case TargetKind::None:
      return false;
    case TargetKind::Extension:
      return !info.ns.empty() && !info.op.empty();
    case TargetKind::HigherOrder:
      return is_identifier(info.op);
    case TargetKind::Operator:
      // The overload may be absent ("torch.ops.aten.add"), not empty ("...add.").
      // So may the op: higher-order ops of PyTorch 2.1 and ExecuTorch 0.1 had
      // no namespace and were written "torch.ops.<name>"
      // ("torch.ops.executorch_call_delegate").
      if (!is_identifier(info.ns) || info.full.back() == '.') return false;
      if (info.op.empty()) return info.short_name == info.ns;
      return is_dotted_identifier(info.op) && (info.overload.empty() || is_identifier(info.overload));
    default:
      return is_dotted_identifier(info.ns) && is_identifier(info.op);  // <module>.<name>
  }
}

/// Splits the target string into kind / namespace / op / overload (§5.1).
void parse(OpTarget::Info& info) {
  std::string_view s = info.full;
  info.short_name = s;
  if (s.empty()) {
    info.kind = TargetKind::None;
    return;
  }
  if (s[0] == '#') {
    info.kind = TargetKind::Extension;
    auto colon = s.find(':');
    if (colon != std::string_view::npos) {
      info.ns = s.substr(1, colon - 1);
      info.op = s.substr(colon + 1);
    }
    return;
  }
  if (s.substr(0, kTorchOps.size()) == kTorchOps) {
    std::string_view rest = s.substr(kTorchOps.size());
    info.short_name = rest;
    auto d1 = rest.find('.');
    info.ns = rest.substr(0, d1);
    if (info.ns == "higher_order") {
      info.kind = TargetKind::HigherOrder;
      if (d1 != std::string_view::npos) info.op = rest.substr(d1 + 1);
      return;
    }
    info.kind = TargetKind::Operator;
    if (d1 == std::string_view::npos) return;
    std::string_view tail = rest.substr(d1 + 1);
    auto d2 = tail.rfind('.');
    if (d2 == std::string_view::npos) {
      info.op = tail;
    } else {
      info.op = tail.substr(0, d2);
      info.overload = tail.substr(d2 + 1);
    }
    return;
  }
  auto dot = s.rfind('.');
  std::string_view module = dot == std::string_view::npos ? std::string_view() : s.substr(0, dot);
  info.op = dot == std::string_view::npos ? s : s.substr(dot + 1);
  info.ns = module;
  if (module == "_operator" || module == "operator") {
    info.kind = TargetKind::PythonOperator;
  } else if (module == "math") {
    info.kind = TargetKind::Math;
  } else if (module == "torch") {
    info.kind = TargetKind::TorchFunction;
  } else {
    info.kind = TargetKind::Other;
  }
}
}  // namespace

OpTarget::OpTarget() {
  // Every Node starts with an empty target: the registry is asked once.
  static const Info* const empty = OpTarget(std::string_view()).info_;
  info_ = empty;
}

OpTarget::OpTarget(std::string_view full) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(full);
  if (it != r.by_name.end()) {
    info_ = it->second;
    return;
  }
  Info& info = r.infos.emplace_back();
  info.full = std::string(full);
  parse(info);
  info.well_formed = written_form(info);
  r.by_name.emplace(std::string_view(info.full), &info);
  info_ = &info;
}

std::string_view OpTarget::str() const { return info_->full; }
TargetKind OpTarget::kind() const { return info_->kind; }
std::string_view OpTarget::ns() const { return info_->ns; }
std::string_view OpTarget::op() const { return info_->op; }
std::string_view OpTarget::overload() const { return info_->overload; }
std::string_view OpTarget::short_name() const { return info_->short_name; }
bool OpTarget::empty() const { return info_->full.empty(); }
bool OpTarget::well_formed() const { return info_->well_formed; }

bool OpTarget::is_higher_order() const {
  constexpr std::string_view kHopModule = "torch._higher_order_ops.";
  switch (info_->kind) {
    case TargetKind::HigherOrder:
      return true;
    case TargetKind::Operator:
      return info_->op.empty() && !info_->ns.empty();  // torch.ops.<name>
    case TargetKind::Other:
      return info_->full.substr(0, kHopModule.size()) == kHopModule;
    default:
      return false;
  }
}

bool OpTarget::is(std::string_view name) const { return name == info_->full || name == info_->short_name; }

}  // namespace pteforge::ir
