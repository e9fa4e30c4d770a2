// keras-skim: Skim-LSTM sequence kernel.
//
// Per token it does only the work the Skim-RNN paper's Flop-R counts: the
// gate (a dot product with [x; h]), then either the big cell on [x; h]
// (read) or the small cell on [x; h] (skim), never both. The big and small
// cells' weights are packed once, at Prepare, into panels (gate_panels.h)
// whose inner loop streams them front to back with the accumulators in
// registers and the LSTM update fused after the last row. The state h lives
// right after x in one input vector u = [x; h]; the big cell writes the new
// h into a second vector (its panels still read the old h), the small cell
// updates h[0:ds] in place after its product.
#include "skim_lstm_core.h"

#include <math.h>
#include <string.h>

#include <algorithm>

#include "gate_panels.h"
#include "simd_targets.h"

namespace keras_skim {

struct SkimLstmCore::Impl {
  const char* simd = "generic";
  int W = 4, GP = 2, small_GP = 6;
  int d = 0, ds = 0, V = 0, e = 0, N = 0, K = 0;
  bool folded = false;
  WeightRef rows;
  // Big cell: rows [x (e); h (d)], 4 gates of d units.
  PanelShape big;
  Aligned<float> big_f;
  Aligned<int8_t> big_q;
  bool big_int8 = false;
  Aligned<float> big_scale, big_bias;  // [4][d_pad]
  // Small cell: rows [x; h], its 4 * ds columns packed flat (one "gate"),
  // so that a small cell pads to a multiple of W once, not once per gate.
  PanelShape small;
  Aligned<float> small_w, small_bias;  // bias [4 ds_pad]
  // Gate (l_read - l_skim) over [x; h].
  Aligned<float> gate_w;
  float gate_bias = 0.0f;
  // Scratch, sized at Prepare.
  Aligned<float> u0, u1, c, init, z_s, z_gates, h_tmp, c_tmp;
  // Hoisted input terms x W + b of a chunk of tokens ([kChunk][4][d_pad])
  // and their embeddings ([kChunk][e]).
  static constexpr int kChunk = 32;
  mutable Aligned<float> hoisted, xs;
  int (*run)(Impl&, const int32_t*, int, float, bool, float*, float*) = nullptr;
};

namespace {

#ifdef KS_X86
KS_BEGIN_AVX512
namespace isa_avx512 {
constexpr int kW = 16, kGP = 4, kSmallGP = 8, kRegisters = 32;
#define KS_SIMD_AVX512 1
#include "simd_math.inc"
#include "gate_panels.inc"
#include "skim_lstm_kernel.inc"
#undef KS_SIMD_AVX512
}  // namespace isa_avx512
KS_END_TARGET

KS_BEGIN_AVX2
namespace isa_avx2 {
constexpr int kW = 8, kGP = 3, kSmallGP = 6, kRegisters = 16;
#define KS_SIMD_AVX2 1
#include "simd_math.inc"
#include "gate_panels.inc"
#include "skim_lstm_kernel.inc"
#undef KS_SIMD_AVX2
}  // namespace isa_avx2
KS_END_TARGET

KS_BEGIN_SSE
namespace isa_sse {
constexpr int kW = 4, kGP = 3, kSmallGP = 6, kRegisters = 16;
#define KS_SIMD_SSE 1
#include "simd_math.inc"
#include "gate_panels.inc"
#include "skim_lstm_kernel.inc"
#undef KS_SIMD_SSE
}  // namespace isa_sse
KS_END_TARGET
#endif

#ifdef KS_ARM64
namespace isa_neon {
constexpr int kW = 4, kGP = 6, kSmallGP = 12, kRegisters = 32;
#define KS_SIMD_NEON 1
#include "simd_math.inc"
#include "gate_panels.inc"
#include "skim_lstm_kernel.inc"
#undef KS_SIMD_NEON
}  // namespace isa_neon
#endif

namespace isa_generic {
constexpr int kW = 4, kGP = 2, kSmallGP = 6, kRegisters = 16;
#define KS_SIMD_GENERIC 1
#include "simd_math.inc"
#include "gate_panels.inc"
#include "skim_lstm_kernel.inc"
#undef KS_SIMD_GENERIC
}  // namespace isa_generic

struct Isa {
  const char* name;
  int W, GP, small_GP;
  int (*run)(SkimLstmCore::Impl&, const int32_t*, int, float, bool, float*, float*);
  bool supported;
};

void pick_isa(SkimLstmCore::Impl& m, const char* want) {
  const Isa isas[] = {
#ifdef KS_X86
      {"avx512", 16, 4, 8, isa_avx512::run_sequence,
       __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")},
      {"avx2", 8, 3, 6, isa_avx2::run_sequence, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")},
      {"sse", 4, 3, 6, isa_sse::run_sequence, __builtin_cpu_supports("sse4.1") != 0},
#elif defined(KS_ARM64)
      {"neon", 4, 6, 12, isa_neon::run_sequence, true},
#endif
      {"generic", 4, 2, 6, isa_generic::run_sequence, true},
  };
  const Isa* pick = nullptr;
  for (const Isa& isa : isas) {
    if (!isa.supported) continue;
    if (!want || !*want || strcmp(want, isa.name) == 0) {
      pick = &isa;
      break;
    }
  }
  if (!pick)  // an unknown or unsupported request: the best supported one
    for (const Isa& isa : isas)
      if (isa.supported) {
        pick = &isa;
        break;
      }
  m.simd = pick->name;
  m.W = pick->W;
  m.GP = pick->GP;
  m.small_GP = pick->small_GP;
  m.run = pick->run;
}

}  // namespace

SkimLstmCore::SkimLstmCore(const char* simd) : impl_(new Impl) {
#ifdef KS_X86
  __builtin_cpu_init();
#endif
  pick_isa(*impl_, simd);
}

SkimLstmCore::~SkimLstmCore() = default;

const char* SkimLstmCore::simd() const { return impl_->simd; }

void SkimLstmCore::Prepare(const SkimLstmWeights& w) {
  Impl& m = *impl_;
  m.d = w.d;
  m.ds = w.ds;
  m.V = w.vocab;
  m.e = w.e;
  m.folded = w.e == 0;
  m.N = 4 * w.d + 4 * w.ds + 1;
  m.K = w.e + w.d;
  m.rows = w.rows;
  const int d = w.d, ds = w.ds, e = w.e, K = m.K, S = 4 * ds + 1;

  m.big = PanelShape();
  m.big.W = m.W;
  m.big.GP = m.GP;
  m.big.gates = 4;
  m.big.units = d;
  m.big.rows = K;
  const int dp = m.big.units_pad();
  m.big_int8 = w.kernel.int8;
  m.big_bias.resize(4 * dp);
  if (!m.folded) pack_gate_vector(m.big, w.bias, m.big_bias.data());
  if (m.big_int8) {
    m.big_f.resize(0);
    m.big_q.resize(m.big.size());
    pack_rows(m.big, static_cast<const int8_t*>(w.kernel.data), K, 4 * d, 0, 0, m.big_q.data());
    m.big_scale.resize(4 * dp);
    pack_gate_vector(m.big, w.kernel.scale, m.big_scale.data());
  } else {
    m.big_q.resize(0);
    m.big_f.resize(m.big.size());
    pack_rows(m.big, static_cast<const float*>(w.kernel.data), K, 4 * d, 0, 0, m.big_f.data());
  }

  m.small = PanelShape();
  m.small.W = m.W;
  m.small.GP = m.small_GP;
  m.small.gates = 1;
  m.small.units = 4 * ds;
  m.small.rows = K;
  m.small_w.resize(m.small.size());
  m.small_bias.resize(m.small.units_pad() + 1);
  if (ds) {
    pack_rows(m.small, w.skim_kernel, K, S, 0, 0, m.small_w.data());
    if (!m.folded) memcpy(m.small_bias.data(), w.bias + 4 * d, sizeof(float) * 4 * ds);
  }
  const int dsp = (ds + m.W - 1) / m.W * m.W;
  m.gate_w.resize(K);
  for (int k = 0; k < K; ++k) m.gate_w.data()[k] = w.skim_kernel[(size_t)k * S + 4 * ds];
  m.gate_bias = m.folded ? 0.0f : w.bias[4 * d + 4 * ds];

  m.u0.resize(e + dp);
  m.u1.resize(e + dp);
  m.c.resize(dp);
  m.init.resize(4 * dp);
  m.z_s.resize(m.small.units_pad() + 1);
  m.hoisted.resize(e ? (size_t)Impl::kChunk * 4 * dp : 0);
  m.xs.resize((size_t)Impl::kChunk * e);
  m.z_gates.resize(4 * dsp + 1);
  m.h_tmp.resize(dsp + 1);
  m.c_tmp.resize(dsp + 1);
}

int SkimLstmCore::Run(const int32_t* tokens, int T, float threshold, bool mask_zero, float* h, float* mask) {
  return impl_->run(*impl_, tokens, T, threshold, mask_zero, h, mask);
}

}  // namespace keras_skim
