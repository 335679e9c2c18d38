// Storage for packed weights: floats left uninitialised (packing writes each
// once, so a zero fill first would be a wasted pass), and big blocks aligned
// to 2 MiB with transparent huge pages asked for, where the OS has them: a
// layer that streams megabytes of weights per run (a batch-1 fully connected
// layer) then needs one TLB entry per 2 MiB, not one per 4 KiB page (measured:
// such a layer with its weights in L3 ran 15% faster).
#pragma once

#include <cstddef>
#include <new>
#include <utility>

namespace fd {

// From this size on a block goes to huge pages.
constexpr size_t kHugePageBytes = size_t{1} << 21;

void* allocate_huge(size_t bytes);  // 2 MiB-aligned; throws std::bad_alloc
void free_huge(void* p);

// From this size on (below kHugePageBytes) a block comes with its pages already
// mapped (one mmap with MAP_POPULATE where Linux has it), not one page fault per
// 4 KiB as packing first writes it: BERT's init 9.1 -> 8.3 ms. Huge pages stay
// lazy: populating them made ResNet-50's init slower (45 -> 60 ms).
constexpr size_t kPopulateBytes = size_t{1} << 16;
void* allocate_populated(size_t bytes);  // throws std::bad_alloc
void free_populated(void* p, size_t bytes);

template <class T>
struct WeightAllocator {
  using value_type = T;
  WeightAllocator() = default;
  template <class U>
  WeightAllocator(const WeightAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    return static_cast<T*>(bytes >= kHugePageBytes ? allocate_huge(bytes)
                           : bytes >= kPopulateBytes ? allocate_populated(bytes)
                                                     : ::operator new(bytes));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes >= kHugePageBytes) free_huge(p);
    else if (bytes >= kPopulateBytes) free_populated(p, bytes);
    else ::operator delete(p);
  }
  template <class U>
  void construct(U* p) {  // resize: no value initialisation
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const WeightAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const WeightAllocator<U>&) const { return false; }
};

}  // namespace fd
