// keras-skim: the "KerasSkimGRU" op, a whole Skim-GRU sequence (batch 1)
// in one op, from token ids. Per token it runs the gate, then the big GRU
// (read) or the small GRU (skim), never both (skim_gru_core.h); both GRUs
// follow Keras' GRUCell with reset_after=True.
//
// Inputs 0-8 and the three outputs are those of every skim op
// (skim_rnn_op.h) with G = 3 gate blocks per cell (Keras order z, r, h):
// kernel [K, 3d], skim_kernel [K, 3ds + 1], bias and folded rows
// [3d + 3ds + 1], where each cell's biases are [b_z | b_r | b_xh] (b_z,
// b_r: Keras' input and recurrent biases summed; b_xh: the candidate's
// input bias). One input of its own:
//   9 recurrent_bias f32 [d + ds]    the candidate's recurrent biases b_hh (big cell,
//                                    then small cell): c = tanh(x W_h + b_xh + r (h U_h + b_hh))
#pragma once
#include "op_kernel.h"

namespace keras_skim {

extern const char kSkimGruOpName[];
OpKernel* CreateSkimGruKernel(const void* options, size_t options_size);

}  // namespace keras_skim
