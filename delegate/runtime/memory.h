// Storage for the buffers a partition owns: packed weights, activations,
// depth-first rings and indirection rows.
// Floats are left uninitialised (each is written before it is read, so a zero
// fill first would be a wasted pass). Blocks of 16 KiB and more are carved
// from shared regions aligned to 2 MiB, with transparent huge pages asked for
// and each block's pages mapped in one call when it is carved:
// - one page fault per 2 MiB, not one per 4 KiB, as packing first writes them
//   (BERT's 12 MB of weights: about 3 ms of faults at 4 KiB);
// - one TLB entry per 2 MiB, not 512, for every pass over weights and
//   activations (MobileNetV2 -8%, BERT -7%, EfficientNet-B0 -7% at run time).
// A freed block's space goes to the next blocks that fit in it (a resized
// model's buffers replace the old ones), but a region's pages are only given
// back with its last block, so blocks that outlive partitions (per-thread
// scratch) stay on the ordinary heap. A freed region is kept, 64 MiB of them
// at most, for the next partitions (an interpreter created again: no page
// faults, no zeroing); until then the kernel may take its memory back
// (MADV_FREE).
#pragma once

#include <cstddef>
#include <new>
#include <memory>
#include <utility>
#include <vector>

namespace fd {

constexpr size_t kHugePageBytes = size_t{1} << 21;
// From this size on a block goes to a huge-page region: four 4 KiB faults on
// the heap cost more than one call on pages mapped already (a Winograd layer's
// 16 panels of 64 x 64 filters: 16.6 KiB each).
constexpr size_t kRegionBlockBytes = size_t{1} << 14;

// 64-byte aligned; throws std::bad_alloc. free_block takes the same size.
void* allocate_block(size_t bytes);
void free_block(void* p, size_t bytes);

// The regions now mapped (for tests: all blocks freed, none is left).
int block_regions();

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) { return static_cast<T*>(allocate_block(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { free_block(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) {  // resize: no value initialisation
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const { return false; }
};

// The ordinary heap, but growing leaves new elements uninitialised: for
// scratch that is written before it is read (a zero fill would be one more
// pass over fresh pages on a first run).
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) {}
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using ScratchVector = std::vector<T, UninitAllocator<T>>;

}  // namespace fd
