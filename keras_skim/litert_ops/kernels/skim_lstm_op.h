// keras-skim: the "KerasSkimLSTM" op, a whole Skim-LSTM sequence (batch 1)
// in one op, from token ids. Per token it runs the gate, then the big cell
// (read) or the small cell (skim), never both (skim_lstm_core.h).
//
// Its nine inputs and three outputs are those of every skim op
// (skim_rnn_op.h) with G = 4 gate blocks per cell (Keras order i, f, c, o):
// kernel [K, 4d], skim_kernel [K, 4ds + 1], bias and folded rows
// [4d + 4ds + 1]; it has no input of its own.
#pragma once
#include "op_kernel.h"

namespace keras_skim {

extern const char kSkimLstmOpName[];
OpKernel* CreateSkimLstmKernel(const void* options, size_t options_size);

}  // namespace keras_skim
