// keras-skim: the Skim-GRU sequence kernel (batch 1), free of LiteRT types
// (the interface every skim cell's core has: skim_rnn_core.h).
#pragma once
#include "skim_rnn_core.h"

namespace keras_skim {

// The weights of a Skim-GRU whose cells follow Keras' GRUCell with
// reset_after=True: G = 3 gate blocks (Keras order z, r, h), laid out as
// skim_rnn_core.h says, with the biases split the way the update needs:
//   z = sigmoid(x W_z + h U_z + b_z), r = sigmoid(x W_r + h U_r + b_r),
//   h' = c + z (h - c), c = tanh(x W_h + b_xh + r (h U_h + b_hh)).
// `bias` (and a folded row) holds, per cell, [b_z | b_r | b_xh] (b_z, b_r:
// Keras' input and recurrent biases summed); the candidate's recurrent
// biases b_hh, which r scales, are `recurrent_bias`.
struct SkimGruWeights : SkimRnnWeights {
  const float* recurrent_bias = nullptr;  // [d + ds]: b_hh of the big cell, then of the small one
};

using SkimGruCore = SkimCore<SkimGruWeights>;

}  // namespace keras_skim
