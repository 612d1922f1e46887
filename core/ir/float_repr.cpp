// Python-style float formatting (see float_repr.h). Python's repr uses
// fixed notation when the decimal exponent is in [-4, 16), otherwise
// scientific notation with a signed, at least two-digit exponent.
#include "ir/float_repr.h"

#include <rapidjson/internal/dtoa.h>

#include <cmath>

namespace pteforge::ir {

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string out;
  if (std::signbit(v)) {
    out += '-';
    v = -v;
  }
  if (v == 0.0) return out + "0.0";
  char digits[32];
  int length = 0;
  int k = 0;
  rapidjson::internal::Grisu2(v, digits, &length, &k);
  std::string d(digits, static_cast<size_t>(length));
  int decpt = length + k;  // value = 0.d1d2...dn * 10^decpt
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
