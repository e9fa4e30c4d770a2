// keras-skim: Skim-LSTM sequence kernel.
//
// Per token it does only the work the Skim-RNN paper's Flop-R counts: the
// gate (a dot product with [x; h]), then either the big cell on [x; h]
// (read) or the small cell on [x; h] (skim), never both (the shared token
// loop is skim_rnn_loop.inc; this file adds the LSTM's steps). The
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

template <>
struct SkimLstmCore::Impl : SkimRnnPacked {
  using SkimRnnPacked::SkimRnnPacked;
  void Prepare(const SkimLstmWeights& w);
  int Run(const int32_t* tokens, int T, float threshold, bool mask_zero, float* h, float* mask);
  Aligned<float> c;  // cell state
};

void SkimLstmCore::Impl::Prepare(const SkimLstmWeights& w) {
  PrepareShared(w, 4);
  c.resize(d_pad());
}

#define KS_KERNEL_INC "skim_lstm_kernel.inc"
#define KS_CORE_WEIGHTS SkimLstmWeights
#include "skim_core_impl.inc"

}  // namespace keras_skim
