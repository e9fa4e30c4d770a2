// keras-skim: the "KerasSjLSTM" op, a whole Structural-Jump-LSTM text (batch
// 1) in one op, from raw token ids: punctuation steers the jumps and is
// never read; a jumped word is never touched, a skipped word costs only the
// skip agent (sj_lstm_core.h).
//
// Inputs (m LSTM units, a agent units, e word vector size; e = 0: folded):
//   0 token_ids     i32 [1,T] or [T]   raw ids in [0, V), punctuation included, 0 = padding
//   1 options       i32 [1]            [speed_reading]: 0 reads every word (the full-read model)
//   2 kinds         i8 [V]             per id: 0 word, 1 separator (, ;), 2 sentence end (. ! ?),
//                                      3 other punctuation, 4 padding (id 0)
//   3 rows          f32|i8 [V, a + R]  per id: [x W_s[x rows] | x] (R = e), or folded
//                                      [x W_s[x rows] | x W[x rows]] (R = 4m)
//   4 previous      f32 [5, a + 4m]    per previous-action state p (0: after a skip; 1 + j:
//                                      after a read and jump j): [skip terms + b_s | LSTM terms + b]
//   5 kernel        f32|i8 [e + m, 4m] [W[x rows]; U] of the LSTM (gates i, f, c, o); [U] when folded
//   6 skip_kernel   f32 [m, a]         the skip agent's h rows
//   7 skip_head     f32 [a + 1]        l_read - l_skip = relu(...) . w + b: [w | b]
//   8 jump_kernel   f32 [m + 1, a]     the jump agent's hidden layer [W_j; b_j]
//   9 jump_head     f32 [a + 1, 4]     its logits [W_jp; b_jp]
// and, only when rows and kernel are int8 (the exporter's --quantize int8;
// a float32 model has the ten inputs above):
//  10 rows_scale    f32 [V, 2]         row v is [rows[v, :a] * rows_scale[v, 0] | rows[v, a:] * rows_scale[v, 1]]
//  11 kernel_scale  f32 [4m]           column j of kernel is kernel[:, j] * kernel_scale[j]
// (No input has a zero dimension: LiteRT's C API cannot pass one to a custom op.)
// Outputs:
//   0 h             f32 [1, m]         the last state reached (zero for a text without words)
//   1 read_mask     i32 [1, T]         per token: 1 read, 0 skipped, 2 jumped, 3 not a word
//                                      (punctuation or padding): keras_skim.contracts.TOKEN_*
//   2 read_count    i32 [1]            words read (LSTM steps)
//   3 visited_count i32 [1]            words not jumped over (read or skipped)
//
// The weights are packed on the first run (and again if a weight tensor's
// data pointer changes). KERAS_SKIM_SIMD=avx512|avx2|sse|neon|generic forces
// an instruction set (tests, benchmarks).
#pragma once
#include "op_kernel.h"

namespace keras_skim {

extern const char kSjLstmOpName[];
OpKernel* CreateSjLstmKernel(const void* options, size_t options_size);

}  // namespace keras_skim
