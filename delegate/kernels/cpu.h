// Which vector ISAs this CPU runs, and the kernel table for a requested one.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/ew_table.h"
#include "kernels/gemm.h"
#include "kernels/q8_depthwise.h"
#include "kernels/q8_gemm.h"
#include "kernels/q8_kernel.h"
#include "kernels/qd8_gemm.h"

namespace fd {

// This CPU's data caches in bytes (L1d and L2 of one core), as CPUID (through
// sysconf) or the OS reports them; 0 where neither does.
struct CacheSizes {
  size_t l1d = 0, l2 = 0;
};
CacheSizes cache_sizes();

// "32K", "1024K", "32M", "65536": bytes; 0 if not a size.
size_t parse_cache_size(const std::string& text);

// ISAs usable on this CPU, best last: "scalar", then e.g. "avx2", "avx512".
std::vector<std::string> available_isas();

// Every kernel of one ISA.
struct Kernels {
  const EwTable* ew;
  const GemmKernel* gemm;
  const DwKernel* dw;
  const RowKernel* rows;
  const GemmKernel* gemm_wide = nullptr;  // optional: wider panels, see gemm_for
  const WinogradKernel* winograd = nullptr;  // optional: 3x3 stride-1 convolutions
  const Qd8GemmKernel* qd8_gemm = nullptr;   // dynamic-range int8 GEMM
  // The same with GEMM and depthwise kernels that sum as TFLite's builtin float
  // kernels do, and no Winograd or sparse GEMM: for the layers whose output a
  // dynamic-range layer quantizes (FusionPlan::rounds_as_builtin).
  const Kernels* rounded = nullptr;
  const SpmmKernel* spmm = nullptr;  // optional: weights mostly zero (runtime/sparse_gemm.h)
  const Q8Kernel* q8 = &q8_kernel_scalar();  // int8 table lookups
  const Q8GemmKernel* q8_gemm = nullptr;     // int8 GEMM (q8_gemm.h); set by kernels_for
  const Q8DepthwiseKernel* q8_depthwise = nullptr;  // int8 DEPTHWISE_CONV_2D (q8_depthwise.h); likewise
};

// The kernels for `isa` ("auto" = best available), or null if this CPU or build
// lacks it.
const Kernels* kernels_for(const std::string& isa);

}  // namespace fd
