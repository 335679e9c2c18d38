// The little-endian byte format of a serialized partition (ir/serialize.h):
// the writer and reader that the IR's structs and each op's parameters
// (OpParams::write, AnchorInfo::read_params) are written with.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fd {

// Appends little-endian values to a string.
class WireWriter {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void flag(bool v) { u8(v ? 1 : 0); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i32(int v) { u32(static_cast<uint32_t>(v)); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    u32(bits);
  }
  template <class E>
  void enumeration(E v) { u8(static_cast<uint8_t>(v)); }
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void ints(const std::vector<int>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (int x : v) i32(x);
  }
  void int64s(const std::vector<int64_t>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (int64_t x : v) i64(x);
  }
  void floats(const std::vector<float>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (float x : v) f32(x);
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Reads what WireWriter wrote. The first failure sticks: later reads give zeros
// and empty lists, so a caller may read on and check ok() once.
class WireReader {
 public:
  WireReader(const char* p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool at_end() const { return p_ == end_; }
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    p_ = end_;
  }

  uint8_t u8() { return static_cast<uint8_t>(little_endian(1)); }
  bool flag() { return u8() != 0; }
  uint32_t u32() { return static_cast<uint32_t>(little_endian(4)); }
  uint64_t u64() { return little_endian(8); }
  int i32() { return static_cast<int>(u32()); }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  float f32() {
    const uint32_t bits = u32();
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }
  // `n` bytes, or null if fewer remain.
  const char* raw(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) {
      fail("truncated: the payload ends inside a value");
      return nullptr;
    }
    const char* at = p_;
    p_ += n;
    return at;
  }
  // A list's length, checked against the bytes left (each element takes at
  // least `element_bytes`), so a corrupt count never allocates much.
  size_t count(size_t element_bytes) {
    const size_t n = u32();
    if (n > static_cast<size_t>(end_ - p_) / element_bytes) fail("truncated: a list is longer than the bytes left");
    return ok() ? n : 0;
  }
  std::string str() {
    const size_t n = count(1);
    const char* p = raw(n);
    return p ? std::string(p, n) : std::string();
  }
  std::vector<int> ints() {
    std::vector<int> v(count(4));
    for (int& x : v) x = i32();
    return v;
  }
  std::vector<int64_t> int64s() {
    std::vector<int64_t> v(count(8));
    for (int64_t& x : v) x = i64();
    return v;
  }
  std::vector<float> floats() {
    std::vector<float> v(count(4));
    for (float& x : v) x = f32();
    return v;
  }

 private:
  uint64_t little_endian(int bytes) {
    const char* p = raw(bytes);
    uint64_t v = 0;
    for (int i = 0; p && i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
    return v;
  }
  const char* p_;
  const char* end_;
  std::string error_;
};

}  // namespace fd
