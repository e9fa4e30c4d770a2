// keras-skim: the instruction set a kernel runs with, picked once per
// kernel instance from what the CPU supports (see simd_targets.h for how a
// kernel is compiled for each).
#pragma once

namespace keras_skim {

enum class SimdId { kAvx512, kAvx2, kSse, kNeon, kGeneric };

struct SimdIsa {
  const char* name;  // "avx512", "avx2", "sse", "neon", "generic"
  SimdId id;
  int W;         // floats per vector
  int GP;        // groups of W units per panel of a big cell
  int small_GP;  // groups per panel of a small (flat) product
};

// `want`: a name above, or null/"" for the best the CPU supports; an
// unknown or unsupported name falls back to the best supported one.
const SimdIsa& PickSimd(const char* want);

}  // namespace keras_skim
