// Storage for packed weights. Floats are left uninitialised (packing writes
// each once, so a zero fill first would be a wasted pass). Blocks of 64 KiB and
// more are carved from shared regions aligned to 2 MiB, with transparent huge
// pages asked for and each block's pages mapped in one call when it is carved:
// - one page fault per 2 MiB, not one per 4 KiB, as packing first writes them
//   (BERT's 12 MB of weights: about 3 ms of faults at 4 KiB);
// - one TLB entry per 2 MiB for layers that stream megabytes of weights per run
//   (a batch-1 fully connected layer with its weights in L3 ran 15% faster).
#pragma once

#include <cstddef>
#include <new>
#include <utility>

namespace fd {

constexpr size_t kHugePageBytes = size_t{1} << 21;
// From this size on a block goes to a huge-page region.
constexpr size_t kRegionBlockBytes = size_t{1} << 16;

// 64-byte aligned; throws std::bad_alloc. free_weights takes the same size.
void* allocate_weights(size_t bytes);
void free_weights(void* p, size_t bytes);

// The regions now mapped (for tests: all blocks freed, none is left).
int weight_regions();

template <class T>
struct WeightAllocator {
  using value_type = T;
  WeightAllocator() = default;
  template <class U>
  WeightAllocator(const WeightAllocator<U>&) {}

  T* allocate(size_t n) { return static_cast<T*>(allocate_weights(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { free_weights(p, n * sizeof(T)); }
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
