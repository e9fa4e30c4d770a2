// keras-skim: Skim-LSTM sequence kernel.
//
// Per token it does only the work the Skim-RNN paper's Flop-R counts: the
// gate (a dot product with [x; h]), then either the big cell on [x; h]
// (read) or the small cell on [x; h] (skim), never both (the shared token
// loop is skim_rnn_loop.inc; this file adds the LSTM's big step). The
// weights are packed once, at Prepare, into panels (gate_panels.h) whose
// inner loop streams them front to back with the accumulators in registers
// and the LSTM update fused after the last row. The state h lives right
// after x in one input vector u = [x; h]; the big cell writes the new h into
// a second vector (its panels still read the old h), the small cell updates
// h[0:ds] after its product. Where nearly every token is read, x W + b of a
// chunk of tokens is computed together (as an LSTM export hoists it); read
// steps alternate the direction over the panels, so that a matrix larger
// than the cache starts each step on what the previous step left there.
#include "skim_lstm_core.h"

#include <math.h>
#include <string.h>

#include "gate_panels.h"
#include "simd_targets.h"
#include "skim_rnn_packed.h"

namespace keras_skim {

struct SkimLstmCore::Impl : SkimRnnPacked {
  explicit Impl(const char* want) : SkimRnnPacked(want) {}
  // Big cell: rows [x (e); h (d)], 4 gates of d units.
  PanelShape big;
  Aligned<float> big_f;
  Aligned<int8_t> big_q;
  bool big_int8 = false;
  Aligned<float> big_scale, big_bias;  // [4][d_pad]
  Aligned<float> c, c_tmp;             // cell state; the small cell's new c
};

namespace {

#define KS_KERNEL_INC "skim_lstm_kernel.inc"
#include "simd_regions.inc"
#undef KS_KERNEL_INC

}  // namespace

SkimLstmCore::SkimLstmCore(const char* simd) : impl_(new Impl(simd)) {}

SkimLstmCore::~SkimLstmCore() = default;

const char* SkimLstmCore::simd() const { return impl_->isa.name; }

void SkimLstmCore::Prepare(const SkimLstmWeights& w) {
  Impl& m = *impl_;
  const int d = w.d, ds = w.ds, e = w.e, K = e + d, S = 4 * ds + 1;
  m.PrepareShared(d, ds, w.vocab, e, 4, w.rows, w.skim_kernel, S, 4 * ((d + m.isa.W - 1) / m.isa.W * m.isa.W),
                  [&](const PanelShape& small, float* dst) {
                    pack_rows(small, w.skim_kernel, K, S, 0, 0, dst);
                    if (e) memcpy(m.small_bias.data(), w.bias + 4 * d, sizeof(float) * 4 * ds);
                  });
  m.gate_bias = e ? w.bias[4 * d + 4 * ds] : 0.0f;

  m.big = PanelShape();
  m.big.W = m.isa.W;
  m.big.GP = m.isa.GP;
  m.big.gates = 4;
  m.big.units = d;
  m.big.rows = K;
  const int dp = m.big.units_pad();
  m.big_int8 = w.kernel.int8;
  m.big_bias.resize(4 * dp);
  if (e) pack_gate_vector(m.big, w.bias, m.big_bias.data());
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
  m.c.resize(dp);
  m.c_tmp.resize(m.ds_pad() + 1);
}

int SkimLstmCore::Run(const int32_t* tokens, int T, float threshold, bool mask_zero, float* h, float* mask) {
  Impl& m = *impl_;
  switch (m.isa.id) {
#ifdef KS_X86
    case SimdId::kAvx512:
      return isa_avx512::run_sequence(m, tokens, T, threshold, mask_zero, h, mask);
    case SimdId::kAvx2:
      return isa_avx2::run_sequence(m, tokens, T, threshold, mask_zero, h, mask);
    case SimdId::kSse:
      return isa_sse::run_sequence(m, tokens, T, threshold, mask_zero, h, mask);
#endif
#ifdef KS_ARM64
    case SimdId::kNeon:
      return isa_neon::run_sequence(m, tokens, T, threshold, mask_zero, h, mask);
#endif
    default:
      return isa_generic::run_sequence(m, tokens, T, threshold, mask_zero, h, mask);
  }
}

}  // namespace keras_skim
