// How a GraphDef names tensors: what the translation (graphdef_ir.cc), its
// patterns (tf_patterns.cc) and the rewrite (tf_rewrite.cc) all read.
#pragma once

#include <string>

namespace fd {

// "name:k" for an input string "name", "name:k"; "" for a control input "^name".
std::string canonical_tensor_name(const std::string& input);

}  // namespace fd
