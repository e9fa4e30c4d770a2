// keras-skim: the "KerasSkimLSTM" op, a whole Skim-LSTM sequence (batch 1)
// in one op, from token ids. Per token it runs the gate, then the big cell
// (read) or the small cell (skim), never both (skim_lstm_core.h).
//
// Inputs (K = e + d rows: the inputs [x; h] of the products; N = 4d + 4ds + 1):
//   0 token_ids    i32 [1,T] or [T]  ids in [0, V)
//   1 threshold    f32 [] or [1]     read iff l_read - l_skim >= log(t / (1 - t)), i.e.
//                                    p_read >= t (contracts.THRESHOLD_RULE)
//   2 options      i32 [1]           [mask_zero]: 1 = id 0 is padding, its step is
//                                    skipped as Keras' Embedding(mask_zero=True) does
//   3 rows         f32|i8 [V, R]     per word: the embedding (R = e), or, folded
//                                    (e = 0), R = N: [x W + b | x W_s + b_s | x w_g + b_g]
//   4 rows_scale   f32 [V] | [1]     int8 rows: row v is rows[v] * rows_scale[v]; else a placeholder
//   5 kernel       f32|i8 [K, 4d]    [W; U] of the big cell (gates i, f, c, o)
//   6 kernel_scale f32 [4d] | [1]    int8 kernel: column j is kernel[:, j] * kernel_scale[j]; else a placeholder
//   7 skim_kernel  f32 [K, 4ds + 1]  [W_s | w_g; U_s | u_g]: the small cell and the gate,
//                                    w_g / u_g = read column - skim column
//   8 bias         f32 [N] | [1]     [b | b_s | b_g] (b_g = read - skim); a placeholder when folded
// (No input has a zero dimension: LiteRT's C API cannot pass one to a custom op.)
// Shapes say the mode: e = K - d; e = 0 means folded rows.
// Outputs:
//   0 h            f32 [1, d]        final hidden state
//   1 read_mask    f32 [1, T]        1 = read, 0 = skimmed (or padding)
//   2 read_count   i32 [1]           number of read steps
//
// The weights are packed on the first run (and again if a weight tensor's
// data pointer changes). Set KERAS_SKIM_SIMD=avx512|avx2|sse|neon|generic
// to force an instruction set (tests, benchmarks).
#pragma once
#include "op_kernel.h"

namespace keras_skim {

extern const char kSkimLstmOpName[];
OpKernel* CreateSkimLstmKernel(const void* options, size_t options_size);

}  // namespace keras_skim
