#include "frontends/options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>

#include "kernels/cpu.h"

namespace fd {
namespace {

// Every key parse_option takes, in its order: the one list (the unknown-key
// message names it; Python's OPTION_KEYS and the Android demo's are tested against it).
constexpr const char* kOptionKeys[] = {"num_threads", "isa", "fusions", "min_nodes_per_partition", "log",
                                       "plan_file", "profile_file"};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// A plain decimal integer in [lo, hi]: an optional sign, then digits, nothing
// around them (strtol alone would skip leading spaces but not trailing ones).
bool parse_int(const std::string& s, long lo, long hi, int* out) {
  const size_t digits = s.find_first_not_of("+-") == 1 ? 1 : 0;
  if (s.size() <= digits || s.find_first_not_of("0123456789", digits) != std::string::npos) return false;
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

std::string parse_isa(const std::string& value, std::string* isa) {
  static const std::vector<std::string> known = {"auto", "scalar", "avx2", "avx512", "neon"};
  if (std::find(known.begin(), known.end(), value) == known.end()) return bad_value("isa", value, join(known));
  if (!kernels_for(value))
    return "fusedelegate: option 'isa' asks for '" + value +
           "', which this CPU or build does not support; available here: " + join(available_isas());
  *isa = value;
  return "";
}

// The family one entry of `fusions` names, or 0.
uint32_t family_named(const std::string& name) {
  if (name == "all") return kFamilyAll;
  if (name == "elementwise") return kFamilyElementwise;
  if (name == "fully_connected") return kFamilyFullyConnected;
  if (name == "conv") return kFamilyConv;
  if (name == "transformer") return kFamilyTransformer;
  if (name == "int8_conv") return kFamilyInt8Conv;
  return 0;
}

// "none" or a comma list of families; false if an entry names none.
bool parse_families(const std::string& value, uint32_t* families) {
  *families = 0;
  if (value == "none") return true;
  for (size_t start = 0;;) {
    const size_t comma = value.find(',', start);
    const uint32_t family =
        family_named(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!family) return false;
    *families |= family;
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

bool parse_log(const std::string& value, LogLevel* log) {
  if (value == "quiet") *log = LogLevel::kQuiet;
  else if (value == "info") *log = LogLevel::kInfo;
  else if (value == "verbose") *log = LogLevel::kVerbose;
  else return false;
  return true;
}

// Parses one key/value pair into *o. Returns "" or the error.
std::string parse_option(const std::string& key, const std::string& value, Options* o) {
  if (key == "num_threads") {
    if (!parse_int(value, -1, 1024, &o->num_threads) || o->num_threads == 0)
      return bad_value(key, value, "a positive integer, or -1 for the interpreter's thread count");
  } else if (key == "isa") {
    return parse_isa(value, &o->isa);
  } else if (key == "fusions") {
    if (!parse_families(value, &o->families))
      return bad_value(key, value,
                       "all, none, or a comma list of: elementwise, fully_connected, conv, transformer, int8_conv");
  } else if (key == "min_nodes_per_partition") {
    if (!parse_int(value, 1, 1 << 20, &o->min_nodes_per_partition)) return bad_value(key, value, "an integer >= 1");
  } else if (key == "log") {
    if (!parse_log(value, &o->log)) return bad_value(key, value, "quiet, info, verbose");
  } else if (key == "plan_file" || key == "profile_file") {
    if (value.empty()) return bad_value(key, value, "a file path");
    (key == "plan_file" ? o->plan_file : o->profile_file) = value;
  } else {
    return "fusedelegate: unknown option '" + key + "'; accepted options: " +
           join(std::vector<std::string>(std::begin(kOptionKeys), std::end(kOptionKeys)));
  }
  return "";
}

}  // namespace

std::string parse_options(const std::vector<std::pair<std::string, std::string>>& kv, Options* out) {
  Options o;
  for (const auto& [key, value] : kv) {
    const std::string error = parse_option(key, value, &o);
    if (!error.empty()) return error;
  }
  *out = o;
  return "";
}

}  // namespace fd
