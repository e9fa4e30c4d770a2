// keras-skim: the Skim-LSTM sequence kernel (batch 1), free of LiteRT types
// (the interface every skim cell's core has: skim_rnn_core.h).
#pragma once
#include "skim_rnn_core.h"

namespace keras_skim {

// The weights of a Skim-LSTM: G = 4 gate blocks (Keras order i, f, c, o);
// skim_rnn_core.h says how they are laid out.
struct SkimLstmWeights : SkimRnnWeights {};

using SkimLstmCore = SkimCore<SkimLstmWeights>;

}  // namespace keras_skim
