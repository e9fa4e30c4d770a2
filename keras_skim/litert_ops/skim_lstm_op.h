// keras-skim: the "KerasSkimLSTM" op, a whole Skim-LSTM sequence in one op.
//
// Inputs : 0 proj   f32 [1,T,K] or [T,K], K = 4d + 4ds + 2: each row is
//                   [x W + b (4d, gates i,f,c,o) | x W_s + b_s (4ds) | x W_g + b_g (2)]
//          1 thresh f32 scalar or [1]: read iff p_read >= thresh
//          2 U      f32 [d, 4d]   recurrent kernel of the big LSTM (Keras layout)
//          3 Us     f32 [d, 4ds]  recurrent kernel of the small LSTM ([d, 1],
//                   never read, when ds = 0)
//          4 Ug     f32 [d, 2]    recurrent kernel of the read/skim gate
//          5 tokens i32 [1,T] or [T] (optional): id 0 = padding, the step is
//                   masked out as with Keras `mask_zero=True`
// Outputs: 0 h      f32 [1, d]    final hidden state
//          1 mask   f32 [1, T]    1 = read, 0 = skim
//          2 count  i32 [1]       number of read steps
#pragma once
#include "op_kernel.h"

namespace keras_skim {

extern const char kSkimLstmOpName[];
OpKernel* CreateSkimLstmKernel(const void* options, size_t options_size);

}  // namespace keras_skim
