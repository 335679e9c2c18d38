// The pass's options travel to each FdFusedPartition op as one string
// attribute, "key=value;key=value", parsed there by parse_options.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fd {

inline std::string join_options(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string s;
  for (const auto& [k, v] : kv) s += (s.empty() ? "" : ";") + k + "=" + v;
  return s;
}

inline std::vector<std::pair<std::string, std::string>> split_options(const std::string& s) {
  std::vector<std::pair<std::string, std::string>> kv;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(';', start);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(start, end - start);
    const size_t eq = item.find('=');
    if (!item.empty()) kv.emplace_back(item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1));
    start = end + 1;
  }
  return kv;
}

}  // namespace fd
