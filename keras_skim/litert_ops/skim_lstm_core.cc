// keras-skim: Skim-LSTM sequence kernel. Straight loops over row-major
// weights in the "axpy" form z[j] += h[k] * U[k][j] (unrolled by 4 over k),
// which the compiler auto-vectorises along the contiguous j axis.
#include "skim_lstm_core.h"

#include <math.h>
#include <string.h>

namespace keras_skim {
namespace {

// exp(x) for float, branch-free so that loops calling it auto-vectorise:
// x = n ln2 + r, |r| <= ln2/2 (two-constant Cody-Waite split), exp(r) by a
// degree-6 Taylor/Horner polynomial, 2^n built in the exponent bits.
// Max relative error ~2e-7 on [-87, 88].
inline float exp_approx(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float n = __builtin_floorf(x * 1.44269504f + 0.5f);
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  union { int32_t i; float f; } u;
  u.i = ((int32_t)n + 127) << 23;
  return p * u.f;
}
inline float sigmoid_fast(float x) { return 1.0f / (1.0f + exp_approx(-x)); }
inline float tanh_fast(float x) { return 2.0f / (1.0f + exp_approx(-2.0f * x)) - 1.0f; }

// z[0:n] += h[0:m] @ W[m, n]   (W row-major, n contiguous)
inline void matvec_acc(const float* __restrict h, int m,
                       const float* __restrict W, int n,
                       float* __restrict z) {
  int k = 0;
  for (; k + 4 <= m; k += 4) {
    const float h0 = h[k], h1 = h[k + 1], h2 = h[k + 2], h3 = h[k + 3];
    const float* __restrict r0 = W + (size_t)k * n;
    const float* __restrict r1 = r0 + n;
    const float* __restrict r2 = r1 + n;
    const float* __restrict r3 = r2 + n;
    for (int j = 0; j < n; ++j)
      z[j] += h0 * r0[j] + h1 * r1[j] + h2 * r2[j] + h3 * r3[j];
  }
  for (; k < m; ++k) {
    const float hk = h[k];
    const float* __restrict r = W + (size_t)k * n;
    for (int j = 0; j < n; ++j) z[j] += hk * r[j];
  }
}

// LSTM cell update of the first `n` units from the pre-activations z[4n]
// (gate blocks i, f, c, o of width n).
inline void lstm_update(const float* __restrict z, int n, float* __restrict h,
                        float* __restrict c) {
  const float* zi = z;
  const float* zf = z + n;
  const float* zc = z + 2 * n;
  const float* zo = z + 3 * n;
  for (int j = 0; j < n; ++j) {
    const float cj = sigmoid_fast(zf[j]) * c[j] + sigmoid_fast(zi[j]) * tanh_fast(zc[j]);
    c[j] = cj;
    h[j] = sigmoid_fast(zo[j]) * tanh_fast(cj);
  }
}

}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(KERAS_SKIM_NO_CLONES)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
int skim_lstm_sequence(const float* proj, int T, int d, int ds,
                       const float* U, const float* Us, const float* ug_diff,
                       float cut, float* h, float* c, float* mask,
                       float* z, const int32_t* tokens) {
  const int K = 4 * d + 4 * ds + 2;
  int reads = 0;
  for (int t = 0; t < T; ++t) {
    const float* p = proj + (size_t)t * K;
    if (tokens && tokens[t] == 0) {  // padding: Keras masks the step out
      mask[t] = 0.0f;
      continue;
    }
    // Gate: l0 - l1 = (g0 - g1) + h . (Ug[:,0] - Ug[:,1]).
    float diff = p[4 * d + 4 * ds] - p[4 * d + 4 * ds + 1];
    for (int k = 0; k < d; ++k) diff += h[k] * ug_diff[k];
    const bool read = diff >= cut;
    if (read) {
      memcpy(z, p, sizeof(float) * 4 * d);
      matvec_acc(h, d, U, 4 * d, z);
      lstm_update(z, d, h, c);
      ++reads;
    } else {
      memcpy(z, p + 4 * d, sizeof(float) * 4 * ds);
      matvec_acc(h, d, Us, 4 * ds, z);  // small LSTM reads the full h
      lstm_update(z, ds, h, c);         // updates h[:ds], c[:ds] only
    }
    mask[t] = read ? 1.0f : 0.0f;
  }
  return reads;
}

float ThresholdCut(float t) {
  if (t <= 0.0f) return -INFINITY;
  if (t >= 1.0f) return INFINITY;
  return logf(t) - logf(1.0f - t);
}

}  // namespace keras_skim
