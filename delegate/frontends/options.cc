#include "frontends/options.h"

#include <cerrno>
#include <cstdlib>

#include "kernels/cpu.h"

namespace fd {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool parse_int(const std::string& s, long lo, long hi, int* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

std::string bad_value(const std::string& key, const std::string& value, const std::string& accepted) {
  return "fusedelegate: option '" + key + "' has bad value '" + value + "'; accepted: " + accepted;
}

}  // namespace

std::string parse_options(const std::vector<std::pair<std::string, std::string>>& kv, Options* out) {
  Options o;
  for (const auto& [key, value] : kv) {
    if (key == "num_threads") {
      if (!parse_int(value, -1, 1024, &o.num_threads) || o.num_threads == 0)
        return bad_value(key, value, "a positive integer, or -1 for the interpreter's thread count");
    } else if (key == "isa") {
      static const std::vector<std::string> known = {"auto", "scalar", "avx2", "avx512", "neon"};
      bool ok = false;
      for (const auto& k : known) ok |= k == value;
      if (!ok) return bad_value(key, value, join(known));
      if (!kernels_for(value))
        return "fusedelegate: option 'isa' asks for '" + value +
               "', which this CPU or build does not support; available here: " + join(available_isas());
      o.isa = value;
    } else if (key == "fusions") {
      const std::string accepted = "all, none, or a comma list of: elementwise, fully_connected, conv, transformer";
      o.families = 0;
      if (value == "none") continue;
      size_t start = 0;
      for (;;) {
        const size_t comma = value.find(',', start);
        const std::string f = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (f == "all") o.families |= kFamilyAll;
        else if (f == "elementwise") o.families |= kFamilyElementwise;
        else if (f == "fully_connected") o.families |= kFamilyFullyConnected;
        else if (f == "conv") o.families |= kFamilyConv;
        else if (f == "transformer") o.families |= kFamilyTransformer;
        else return bad_value(key, value, accepted);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (key == "min_nodes_per_partition") {
      if (!parse_int(value, 1, 1 << 20, &o.min_nodes_per_partition))
        return bad_value(key, value, "an integer >= 1");
    } else if (key == "log") {
      if (value == "quiet") o.log = LogLevel::kQuiet;
      else if (value == "info") o.log = LogLevel::kInfo;
      else if (value == "verbose") o.log = LogLevel::kVerbose;
      else return bad_value(key, value, "quiet, info, verbose");
    } else if (key == "plan_file" || key == "profile_file") {
      if (value.empty()) return bad_value(key, value, "a file path");
      (key == "plan_file" ? o.plan_file : o.profile_file) = value;
    } else {
      return "fusedelegate: unknown option '" + key +
             "'; accepted options: num_threads, isa, fusions, min_nodes_per_partition, log, "
             "plan_file, profile_file";
    }
  }
  *out = o;
  return "";
}

}  // namespace fd
