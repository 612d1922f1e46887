// IR → torch.export program JSON, in the producer's own style (Python
// json.dumps defaults, fields in schema declaration order, §1.3, §2). A
// program read with import_exported_program and written back is
// byte-identical to PyTorch's output; reading the result again gives an
// equal IR.
#pragma once

#include <string>

#include "ir/exported_program.h"

namespace pteforge::serde {

/// The program as one line of JSON (models/<model>.json).
std::string write_exported_program(const ir::ExportedProgram& ep);

}  // namespace pteforge::serde
