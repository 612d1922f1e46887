// Python-style float formatting (see float_repr.h). Python's repr uses the
// shortest digit string that reads back as the same double (correctly
// rounded), in fixed notation when the decimal exponent is in [-4, 16) and in
// scientific notation with a signed, at least two-digit exponent otherwise.
#include "ir/float_repr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pteforge::ir {
namespace {

/// Shortest correctly rounded digits of v > 0: digits "d1d2...dn" and the
/// decimal exponent `decpt` such that v ≈ 0.d1d2...dn × 10^decpt. printf's %e
/// rounds correctly (glibc and musl), so the first precision whose output
/// reads back as v gives Python's digits.
void shortest_digits(double v, std::string& digits, int& decpt) {
  char buf[40];
  for (int precision = 0; precision < 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision, v);
    if (precision == 16 || std::strtod(buf, nullptr) == v) break;
  }
  // buf = "d.ddde[+-]XX"
  digits.clear();
  const char* p = buf;
  for (; *p && *p != 'e'; ++p) {
    if (*p >= '0' && *p <= '9') digits += *p;
  }
  int exp10 = *p == 'e' ? std::atoi(p + 1) : 0;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  decpt = exp10 + 1;
}

}  // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string out;
  if (std::signbit(v)) {
    out += '-';
    v = -v;
  }
  if (v == 0.0) return out + "0.0";
  std::string d;
  int decpt = 0;
  shortest_digits(v, d, decpt);
  const int length = static_cast<int>(d.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-decpt), '0');
      out += d;
    } else if (decpt >= length) {
      out += d;
      out.append(static_cast<size_t>(decpt - length), '0');
      out += ".0";
    } else {
      out += d.substr(0, static_cast<size_t>(decpt));
      out += '.';
      out += d.substr(static_cast<size_t>(decpt));
    }
    return out;
  }
  out += d[0];
  if (length > 1) {
    out += '.';
    out += d.substr(1);
  }
  int exp = decpt - 1;
  out += exp < 0 ? "e-" : "e+";
  int a = exp < 0 ? -exp : exp;
  if (a < 10) out += '0';
  out += std::to_string(a);
  return out;
}

}  // namespace pteforge::ir
