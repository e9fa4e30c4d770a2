// keras-skim: picking the instruction set at run time.
#include "simd_isa.h"

#include <string.h>

namespace keras_skim {

namespace {

bool Supported(SimdId id) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  switch (id) {
    case SimdId::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SimdId::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SimdId::kSse:
      return __builtin_cpu_supports("sse4.1") != 0;
    case SimdId::kGeneric:
      return true;
    default:
      return false;
  }
#elif defined(__aarch64__)
  return id == SimdId::kNeon || id == SimdId::kGeneric;
#else
  return id == SimdId::kGeneric;
#endif
}

// Best first. W and the panel sizes fit each set's registers: 32 vectors
// (AVX-512, NEON) hold 4 or 6 groups of 4 gate accumulators, 16 (AVX2, SSE) 3.
const SimdIsa kIsas[] = {
    {"avx512", SimdId::kAvx512, 16, 4, 8},
    {"avx2", SimdId::kAvx2, 8, 3, 6},
    {"sse", SimdId::kSse, 4, 3, 6},
    {"neon", SimdId::kNeon, 4, 6, 12},
    {"generic", SimdId::kGeneric, 4, 2, 6},
};

}  // namespace

const SimdIsa& PickSimd(const char* want) {
  for (const SimdIsa& isa : kIsas)
    if (Supported(isa.id) && (!want || !*want || strcmp(want, isa.name) == 0)) return isa;
  for (const SimdIsa& isa : kIsas)
    if (Supported(isa.id)) return isa;
  return kIsas[4];
}

}  // namespace keras_skim
