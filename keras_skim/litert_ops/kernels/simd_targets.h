// keras-skim: instruction-set regions for the SIMD kernels.
//
// A kernel's .cc includes its SIMD code (simd_math.inc, gate_panels.inc and
// its own .inc) once per region, each time in its own namespace:
//
//   KS_BEGIN_AVX512 namespace isa_avx512 { ... } KS_END_TARGET
//
// so that one source compiles for AVX-512, AVX2+FMA and SSE4.1 on x86-64
// (picked at run time with __builtin_cpu_supports) and for NEON on aarch64,
// with the baseline compiler flags (no -mavx2 needed).
#pragma once

#include <utility>  // std::forward in simd_regions.inc's run_on_isa

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KS_X86 1
#include <immintrin.h>
#elif defined(__aarch64__)
#define KS_ARM64 1
#include <arm_neon.h>
#endif

#define KS_INLINE inline __attribute__((always_inline))

#if defined(__clang__)
#define KS_BEGIN_AVX512 \
  _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512vl,avx2,fma\"))), apply_to = function)")
#define KS_BEGIN_AVX2 _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define KS_BEGIN_SSE _Pragma("clang attribute push(__attribute__((target(\"sse4.1\"))), apply_to = function)")
#define KS_END_TARGET _Pragma("clang attribute pop")
#else
#define KS_BEGIN_AVX512 \
  _Pragma("GCC push_options") _Pragma("GCC target(\"avx512f,avx512vl,avx2,fma\")")
#define KS_BEGIN_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define KS_BEGIN_SSE _Pragma("GCC push_options") _Pragma("GCC target(\"sse4.1\")")
#define KS_END_TARGET _Pragma("GCC pop_options")
#endif

// Vector code passes and returns wide vectors only between inlined
// functions, so GCC's notes on the (unused) out-of-line ABI are noise; and
// GCC 12 warns on its own AVX-512 intrinsics (_mm512_undefined_*).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
