#include "frontends/tf/tf_names.h"

namespace fd {

std::string canonical_tensor_name(const std::string& input) {
  if (input.empty() || input[0] == '^') return "";
  const size_t colon = input.rfind(':');
  if (colon != std::string::npos && colon + 1 < input.size() &&
      input.find_first_not_of("0123456789", colon + 1) == std::string::npos)
    return input;
  return input + ":0";
}

}  // namespace fd
