// The check programs' (tests/export/*_core_check.cc) random weights and texts: a portable
// generator, so that every platform and instruction set sees the same numbers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

struct Lcg {
  uint64_t s;
  float uniform() {  // in [-1, 1)
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((s >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f;
  }
  uint32_t below(uint32_t n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(s >> 33) % n;
  }
};

inline std::vector<float> random(Lcg& g, size_t n, float scale) {
  std::vector<float> v(n);
  for (float& x : v) x = g.uniform() * scale;
  return v;
}
