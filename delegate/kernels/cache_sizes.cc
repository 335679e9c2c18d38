#include "kernels/cpu.h"

#include <cctype>
#include <fstream>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace fd {

size_t parse_cache_size(const std::string& text) {
  size_t i = 0, value = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t digits = i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) value = value * 10 + (text[i] - '0');
  if (i == digits) return 0;
  const char unit = i < text.size() ? static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))) : ' ';
  if (unit == 'K') return value << 10;
  if (unit == 'M') return value << 20;
  if (unit == 'G') return value << 30;
  return std::isspace(static_cast<unsigned char>(unit)) ? value : 0;
}

namespace {

std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// Linux's description of cpu0's caches (x86 and ARM alike).
CacheSizes from_sysfs() {
  CacheSizes c;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    if (level.empty()) break;
    const size_t size = parse_cache_size(read_line(dir + "size"));
    if (level == "1" && type == "Data") c.l1d = size;
    if (level == "2" && type != "Instruction") c.l2 = size;
    if (level == "3" && type != "Instruction") c.l3 = size;
  }
  return c;
}

}  // namespace

CacheSizes cache_sizes() {
  CacheSizes c = from_sysfs();
#if defined(__linux__) && defined(_SC_LEVEL1_DCACHE_SIZE)
  const auto conf = [](int name) { const long v = sysconf(name); return v > 0 ? static_cast<size_t>(v) : 0; };
  if (!c.l1d) c.l1d = conf(_SC_LEVEL1_DCACHE_SIZE);
  if (!c.l2) c.l2 = conf(_SC_LEVEL2_CACHE_SIZE);
  if (!c.l3) c.l3 = conf(_SC_LEVEL3_CACHE_SIZE);
#endif
  return c;
}

}  // namespace fd
