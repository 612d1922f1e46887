// Python's repr() of a float, for byte-identical JSON output and the printer.
#pragma once

#include <string>

namespace pteforge::ir {

/// Shortest round-trip text of `v` in Python repr style: "0.2", "1e-05",
/// "1.0", "1e+16", "-0.0", "inf", "-inf", "nan" (identical to Python's repr).
std::string python_float_repr(double v);

}  // namespace pteforge::ir
