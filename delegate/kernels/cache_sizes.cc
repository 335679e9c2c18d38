#include "kernels/cpu.h"

#include <cctype>
#include <string>

#if defined(__linux__)
#include <fcntl.h>
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

// The first line of a small file, "" when it cannot be read. read(2), not an
// ifstream: a process's first ifstream costs a third of a millisecond.
std::string read_line(const std::string& path) {
  char buf[64];
  long n = -1;
#if defined(__linux__)
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = read(fd, buf, sizeof buf);
    close(fd);
  }
#endif
  if (n <= 0) return {};
  const std::string text(buf, static_cast<size_t>(n));
  return text.substr(0, text.find('\n'));
}

// Linux's description of cpu0's caches (x86 and ARM alike).
CacheSizes from_sysfs() {
  CacheSizes c;
  for (int i = 0; i < 16 && !(c.l1d && c.l2); ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    if (level.empty()) break;
    const size_t size = parse_cache_size(read_line(dir + "size"));
    if (level == "1" && type == "Data") c.l1d = size;
    if (level == "2" && type != "Instruction") c.l2 = size;
  }
  return c;
}

}  // namespace

// glibc's sysconf reads CPUID on x86 (no system call); Linux's description,
// two dozen system calls (0.2 ms in a VM), fills what it leaves (ARM: all).
CacheSizes cache_sizes() {
  CacheSizes c;
#if defined(__linux__) && defined(_SC_LEVEL1_DCACHE_SIZE)
  const auto conf = [](int name) { const long v = sysconf(name); return v > 0 ? static_cast<size_t>(v) : 0; };
  c.l1d = conf(_SC_LEVEL1_DCACHE_SIZE);
  c.l2 = conf(_SC_LEVEL2_CACHE_SIZE);
#endif
  if (c.l1d && c.l2) return c;
  const CacheSizes f = from_sysfs();
  if (!c.l1d) c.l1d = f.l1d;
  if (!c.l2) c.l2 = f.l2;
  return c;
}

}  // namespace fd
