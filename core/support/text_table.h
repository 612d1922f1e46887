// Aligned text tables for the CLI's human-readable output (inspect, the
// module tree of `inspect --modules`).
#pragma once

#include <string>
#include <vector>

namespace pteforge {

/// Rows of cells → one line per row, each starting with `indent`, every
/// column padded to its widest cell (in bytes) plus two spaces; trailing
/// spaces are trimmed. Rows may have different numbers of cells.
std::string text_table(const std::vector<std::vector<std::string>>& rows, const std::string& indent);

}  // namespace pteforge
