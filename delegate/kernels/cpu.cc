#include "kernels/cpu.h"

#include "kernels/q8_gemm.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace fd {

std::vector<std::string> available_isas() {
  std::vector<std::string> isas = {"scalar"};
#if defined(__x86_64__)
  __builtin_cpu_init();
  // libgcc checks that the OS saves the wider registers (XCR0) too.
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isas.push_back("avx2");
  if (__builtin_cpu_supports("avx512f")) isas.push_back("avx512");
#elif defined(__aarch64__)
  isas.push_back("neon");  // Advanced SIMD with FMA is part of ARMv8-A
#endif
  return isas;
}

namespace {

// The ISA "auto" or `isa` names, if this CPU and build have it; "" if not.
std::string resolve(const std::string& isa) {
  const auto isas = available_isas();
  const std::string want = isa == "auto" ? isas.back() : isa;
  for (const auto& i : isas)
    if (i == want) return want;
  return "";
}

#if defined(__x86_64__)
// AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (clang's __builtin_cpu_supports
// does not know the name); its YMM state is AVX2's.
bool has_avx_vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && ((eax >> 4) & 1);
}

// AVX2's qd8 kernel, in its AVX-VNNI form where the CPU has it (vpdpbusd on 256 bits).
const Qd8GemmKernel* qd8_avx2() { return has_avx_vnni() ? &qd8_gemm_kernel_avxvnni() : &qd8_gemm_kernel_avx2(); }

// The AVX-512 qd8 kernel needs AVX512BW (vpmaddwd on 512 bits), its VNNI form
// AVX512-VNNI too (vpdpbusd); else AVX2's.
const Qd8GemmKernel* qd8_avx512() {
  if (!__builtin_cpu_supports("avx512bw")) return qd8_avx2();
  return __builtin_cpu_supports("avx512vnni") ? &qd8_gemm_kernel_avx512vnni() : &qd8_gemm_kernel_avx512();
}
#endif

}  // namespace

#if defined(__x86_64__)
// AVX-512's table lookup needs VBMI (vpermi2b); without it, the scalar loop.
const Q8Kernel* q8_avx512() {
  if (!__builtin_cpu_supports("avx512bw")) return &q8_kernel_avx2();
  return __builtin_cpu_supports("avx512vbmi") ? &q8_kernel_avx512vbmi() : &q8_kernel_avx512();
}
#endif

// Each ISA's tables are built only when that ISA is asked for and present:
// building them runs its own instructions (an AVX-512 table on a CPU without
// AVX-512 raised SIGILL).
const Kernels* kernels_for(const std::string& isa) {
  const std::string want = resolve(isa);
  if (want == "scalar") {
    static const Kernels rounded{&ew_table_scalar(), &gemm_kernel_scalar_rounded(), &dw_kernel_scalar_rounded(),
                                 &row_kernel_scalar_rounded(), nullptr, nullptr, &qd8_gemm_kernel_scalar()};
    static const Kernels scalar{&ew_table_scalar(), &gemm_kernel_scalar(), &dw_kernel_scalar(), &row_kernel_scalar(),
                                nullptr, &winograd_kernel_scalar(), &qd8_gemm_kernel_scalar(), &rounded,
                                &spmm_kernel_scalar(), &q8_kernel_scalar(), &q8_gemm_kernel_scalar(),
                                &q8_depthwise_kernel_scalar()};
    return &scalar;
  }
#if defined(__x86_64__)
  if (want == "avx2") {
    static const Kernels rounded{&ew_table_avx2(), &gemm_kernel_avx2_rounded(), &dw_kernel_avx2_rounded(),
                                 &row_kernel_avx2_rounded(), nullptr, nullptr, qd8_avx2()};
    static const Kernels avx2{&ew_table_avx2(), &gemm_kernel_avx2(), &dw_kernel_avx2(), &row_kernel_avx2(),
                              nullptr, &winograd_kernel_avx2(), qd8_avx2(), &rounded,
                              &spmm_kernel_avx2(), &q8_kernel_avx2(), q8_gemm_kernel_for("avx2"),
                              q8_depthwise_kernel_for("avx2")};
    return &avx2;
  }
  if (want == "avx512") {
    static const Kernels rounded{&ew_table_avx512(), &gemm_kernel_avx512_rounded(), &dw_kernel_avx512_rounded(),
                                 &row_kernel_avx512_rounded(), nullptr, nullptr, qd8_avx512()};
    static const Kernels avx512{&ew_table_avx512(), &gemm_kernel_avx512(), &dw_kernel_avx512(),
                                &row_kernel_avx512(), &gemm_kernel_avx512_wide(), &winograd_kernel_avx512(),
                                qd8_avx512(), &rounded, &spmm_kernel_avx512(), q8_avx512(),
                                q8_gemm_kernel_for("avx512"), q8_depthwise_kernel_for("avx512")};
    return &avx512;
  }
#elif defined(__aarch64__)
  if (want == "neon") {
    static const Kernels rounded{&ew_table_neon(), &gemm_kernel_neon_rounded(), &dw_kernel_neon_rounded(),
                                 &row_kernel_neon_rounded(), nullptr, nullptr, &qd8_gemm_kernel_neon()};
    static const Kernels neon{&ew_table_neon(), &gemm_kernel_neon(), &dw_kernel_neon(), &row_kernel_neon(),
                              nullptr, &winograd_kernel_neon(), &qd8_gemm_kernel_neon(), &rounded,
                              &spmm_kernel_neon(), &q8_kernel_neon(), q8_gemm_kernel_for("neon"),
                              q8_depthwise_kernel_for("neon")};
    return &neon;
  }
#endif
  return nullptr;
}

namespace {

#if defined(__aarch64__)
// The dot product instructions (SDOT): HWCAP_ASIMDDP, bit 20 of AT_HWCAP.
bool has_dotprod() { return (getauxval(AT_HWCAP) >> 20) & 1; }
#endif

// Every q8 GEMM kernel this CPU runs, best last within each ISA.
std::vector<const Q8GemmKernel*> q8_runnable() {
  std::vector<const Q8GemmKernel*> kernels = {&q8_gemm_kernel_scalar()};
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return kernels;
  kernels.push_back(&q8_gemm_kernel_avx2());
  if (has_avx_vnni()) kernels.push_back(&q8_gemm_kernel_avxvnni());
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl"))
    return kernels;
  kernels.push_back(&q8_gemm_kernel_avx512());
  if (!__builtin_cpu_supports("avx512vnni")) return kernels;
  kernels.push_back(&q8_gemm_kernel_avx512vnni_narrow());
  kernels.push_back(&q8_gemm_kernel_avx512vnni());
#elif defined(__aarch64__)
  kernels.push_back(&q8_gemm_kernel_neon());
  if (has_dotprod()) kernels.push_back(&q8_gemm_kernel_neondot());
#endif
  return kernels;
}

}  // namespace

int q8_gemm_kernels_runnable(const Q8GemmKernel** out, int capacity) {
  static const std::vector<const Q8GemmKernel*> kernels = q8_runnable();
  int n = 0;
  for (; n < capacity && n < static_cast<int>(kernels.size()); ++n) out[n] = kernels[n];
  return n;
}

// avx2: AVX-VNNI's kernel where the CPU has it; avx512: AVX512-VNNI's, or
// AVX512BW's, or without AVX512BW and VL avx2's; neon: SDOT's where the CPU has it.
const Q8GemmKernel* q8_gemm_kernel_for(const std::string& isa) {
  const std::string want = resolve(isa);
  if (want == "scalar") return &q8_gemm_kernel_scalar();
#if defined(__x86_64__)
  const Q8GemmKernel* avx2 = has_avx_vnni() ? &q8_gemm_kernel_avxvnni() : &q8_gemm_kernel_avx2();
  if (want == "avx2") return avx2;
  if (want == "avx512") {
    if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) return avx2;
    return __builtin_cpu_supports("avx512vnni") ? &q8_gemm_kernel_avx512vnni() : &q8_gemm_kernel_avx512();
  }
#elif defined(__aarch64__)
  if (want == "neon") return has_dotprod() ? &q8_gemm_kernel_neondot() : &q8_gemm_kernel_neon();
#endif
  return nullptr;
}

}  // namespace fd
