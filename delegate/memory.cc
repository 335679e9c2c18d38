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

void free_huge(void* p) { std::free(p); }

}  // namespace fd
