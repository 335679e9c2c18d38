#include "memory.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fd {

void* allocate_huge(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, kHugePageBytes, bytes) != 0) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without huge pages the block still works
#endif
  return p;
}

void* allocate_populated(size_t bytes) {
#if defined(__linux__) && defined(MAP_POPULATE)
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
#else
  return ::operator new(bytes);
#endif
}

void free_populated(void* p, size_t bytes) {
#if defined(__linux__) && defined(MAP_POPULATE)
  munmap(p, bytes);
#else
  (void)bytes;
  ::operator delete(p);
#endif
}

void free_huge(void* p) { std::free(p); }

}  // namespace fd
