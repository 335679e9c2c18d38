#include "runtime/memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fd {

namespace {

constexpr size_t kBlockAlign = 64;
// Address space reserved per region; only the pages blocks use get memory.
constexpr size_t kRegionBytes = size_t{16} << 20;
// Freed regions kept, their pages mapped, for the next partitions (an
// interpreter created again skips the page faults and zeroing), at most this
// much; the kernel may still reclaim their memory (MADV_FREE).
constexpr size_t kSpareBytes = size_t{64} << 20;

size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

// Space [offset, offset + size) of a region, freed below its `used` mark.
struct Hole {
  size_t offset, size;
};

// Blocks go into the best-fitting hole of a region, else are carved after the
// `used` mark of the first region with room; a region is unmapped once every
// block carved from it is freed.
struct Region {
  char* base;
  size_t size, used;
  int live;
  std::vector<Hole> holes;  // by offset, none touching another or `used`
};

// The start of `size` bytes from r's best-fitting hole, or null.
char* take_hole(Region& r, size_t size) {
  auto best = r.holes.end();
  for (auto h = r.holes.begin(); h != r.holes.end(); ++h)
    if (h->size >= size && (best == r.holes.end() || h->size < best->size)) best = h;
  if (best == r.holes.end()) return nullptr;
  char* p = r.base + best->offset;
  best->offset += size;
  best->size -= size;
  if (best->size == 0) r.holes.erase(best);
  return p;
}

// Frees [offset, offset + size) of r: merged with the holes it touches, or
// given back to the `used` mark when it ends there.
void add_hole(Region& r, size_t offset, size_t size) {
  auto next = std::lower_bound(r.holes.begin(), r.holes.end(), offset,
                               [](const Hole& h, size_t o) { return h.offset < o; });
  if (next != r.holes.end() && offset + size == next->offset) {
    size += next->size;
    next = r.holes.erase(next);
  }
  if (next != r.holes.begin() && std::prev(next)->offset + std::prev(next)->size == offset) {
    --next;
    offset = next->offset;
    size += next->size;
    next = r.holes.erase(next);
  }
  if (offset + size == r.used) r.used = offset;
  else r.holes.insert(next, Hole{offset, size});
}

// Never destroyed: blocks may be freed by other objects' destructors at exit.
struct Regions {
  std::mutex mutex;
  std::vector<Region> list;   // in use
  std::vector<Region> spare;  // freed, oldest first
  size_t spare_bytes = 0;
};
Regions& all_regions() {
  static Regions* r = new Regions;
  return *r;
}

#if defined(__linux__)
Region map_region(size_t size) {
  // Over-reserve by one huge page, then trim both ends to 2 MiB alignment.
  char* raw = static_cast<char*>(
      mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (raw == MAP_FAILED) throw std::bad_alloc();
  char* base = reinterpret_cast<char*>(round_up(reinterpret_cast<uintptr_t>(raw), kHugePageBytes));
  const size_t head = base - raw, tail = kHugePageBytes - head;
  if (head) munmap(raw, head);
  if (tail) munmap(base + size, tail);
#if defined(MADV_HUGEPAGE)
  madvise(base, size, MADV_HUGEPAGE);  // a hint: without huge pages the region still works
#endif
  return {base, size, 0, 0, {}};
}

void unmap_region(const Region& r) { munmap(r.base, r.size); }

// Its memory may be taken back by the kernel until it is written again.
void lazy_free(const Region& r) {
#if defined(MADV_FREE)
  madvise(r.base, round_up(r.used, kHugePageBytes), MADV_FREE);
#endif
}

// Maps the block's pages now, in one call (Linux 5.14+; older kernels fault them later).
void populate(char* p, size_t bytes) {
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE
  const uintptr_t page = 4096, start = reinterpret_cast<uintptr_t>(p) / page * page;
  madvise(reinterpret_cast<void*>(start), round_up(reinterpret_cast<uintptr_t>(p) + bytes, page) - start,
          kPopulateWrite);
}
#else
Region map_region(size_t size) {
  char* base = static_cast<char*>(::operator new(size, std::align_val_t(kHugePageBytes)));
  return {base, size, 0, 0, {}};
}
void unmap_region(const Region& r) { ::operator delete(r.base, std::align_val_t(kHugePageBytes)); }
void lazy_free(const Region&) {}
void populate(char*, size_t) {}
#endif

// The smallest spare region of `size` bytes or more, else a new one.
Region take_region(Regions& regions, size_t size) {
  auto best = regions.spare.end();
  for (auto r = regions.spare.begin(); r != regions.spare.end(); ++r)
    if (r->size >= size && (best == regions.spare.end() || r->size < best->size)) best = r;
  if (best == regions.spare.end()) return map_region(size);
  const Region r = *best;
  regions.spare_bytes -= r.size;
  regions.spare.erase(best);
  return {r.base, r.size, 0, 0, {}};
}

// Keeps a freed region as a spare, the oldest spares unmapped to make room.
void retire_region(Regions& regions, const Region& r) {
  if (r.size > kSpareBytes) return unmap_region(r);
  while (regions.spare_bytes + r.size > kSpareBytes) {
    regions.spare_bytes -= regions.spare.front().size;
    unmap_region(regions.spare.front());
    regions.spare.erase(regions.spare.begin());
  }
  lazy_free(r);
  regions.spare.push_back(r);
  regions.spare_bytes += r.size;
}

}  // namespace

void* allocate_block(size_t bytes) {
  if (bytes < kRegionBlockBytes) return ::operator new(bytes, std::align_val_t(kBlockAlign));
  const size_t size = round_up(bytes, kBlockAlign);
  Regions& regions = all_regions();
  std::lock_guard<std::mutex> lock(regions.mutex);
  for (Region& r : regions.list) {
    if (char* p = take_hole(r, size)) {  // its pages mapped already
      ++r.live;
      return p;
    }
  }
  auto r = std::find_if(regions.list.begin(), regions.list.end(),
                        [size](const Region& r) { return r.size - r.used >= size; });
  if (r == regions.list.end())
    r = regions.list.insert(r, take_region(regions, std::max(kRegionBytes, round_up(size, kHugePageBytes))));
  char* p = r->base + r->used;
  r->used += size;
  ++r->live;
  populate(p, size);
  return p;
}

void free_block(void* p, size_t bytes) {
  if (bytes < kRegionBlockBytes) return ::operator delete(p, std::align_val_t(kBlockAlign));
  Regions& regions = all_regions();
  std::lock_guard<std::mutex> lock(regions.mutex);
  const auto r = std::find_if(regions.list.begin(), regions.list.end(), [p](const Region& r) {
    return static_cast<char*>(p) >= r.base && static_cast<char*>(p) < r.base + r.size;
  });
  if (r == regions.list.end()) std::abort();  // not a block of ours: a bug, not bad input
  if (--r->live == 0) {
    retire_region(regions, *r);
    regions.list.erase(r);
  } else {
    add_hole(*r, static_cast<char*>(p) - r->base, round_up(bytes, kBlockAlign));
  }
}

int block_regions() {
  Regions& regions = all_regions();
  std::lock_guard<std::mutex> lock(regions.mutex);
  return static_cast<int>(regions.list.size());
}

}  // namespace fd
