// keras-skim: Skim-GRU sequence kernel.
//
// The Skim-LSTM core's scheme (skim_lstm_core.cc) with Keras' GRU
// (reset_after=True) as both cells: per token the gate, then either the big
// GRU (read) or the small GRU (skim) on [x; h], never both; the token loop,
// the hoisting of a chunk's input terms and the packed panels are the
// shared ones (skim_rnn_loop.inc, gate_panels.h). The big cell's panels
// hold the three gate blocks z, r, h over all rows [x; h]; its update is
// fused after the last row, the candidate's x part set aside after the x
// rows (r scales only its h part). The small cell is one flat product
// over [x; h] done in two parts for the same reason.
#include "skim_gru_core.h"

#include <math.h>
#include <string.h>

#include "gate_panels.h"
#include "simd_targets.h"
#include "skim_rnn_packed.h"

namespace keras_skim {

template <>
struct SkimGruCore::Impl : SkimRnnPacked {
  Aligned<float> big_rec_bias;    // [d_pad]: the big cell's b_hh
  Aligned<float> small_rec_bias;  // flat [3 ds] (+ padding): 0 for z and r, then the small cell's b_hh
  Aligned<float> z_h, z_gates_h;  // the small cell's h-row product: flat, by block
  using SkimRnnPacked::SkimRnnPacked;
  void Prepare(const SkimGruWeights& w);
  int Run(const int32_t* tokens, int T, float threshold, bool mask_zero, float* h, float* mask);
};

void SkimGruCore::Impl::Prepare(const SkimGruWeights& w) {
  PrepareShared(w, 3);
  big_rec_bias.resize(d_pad());
  memcpy(big_rec_bias.data(), w.recurrent_bias, sizeof(float) * d);
  small_rec_bias.resize(small.units_pad() + 1);
  if (ds) memcpy(small_rec_bias.data() + 2 * ds, w.recurrent_bias + d, sizeof(float) * ds);
  z_h.resize(small.units_pad() + 1);
  z_gates_h.resize(3 * ds_pad() + 1);
}

#define KS_KERNEL_INC "skim_gru_kernel.inc"
#define KS_CORE_WEIGHTS SkimGruWeights
#include "skim_core_impl.inc"

}  // namespace keras_skim
