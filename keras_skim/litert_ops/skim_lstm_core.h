// keras-skim: plain C++ Skim-LSTM sequence kernel (no TFLite dependency).
// Portable: builds with any C++11 compiler (gcc/clang, Android NDK).
#pragma once
#include <stdint.h>

namespace keras_skim {

// Runs a whole Skim-LSTM sequence (batch 1) from precomputed input
// projections.
//   proj : [T, K] row-major, K = 4*d + 4*ds + 2, each row =
//          [x W + b (4d, gates i,f,c,o) | x W_s + b_s (4ds) | x W_g + b_g (2)]
//   U    : [d, 4d]   recurrent kernel of the big LSTM (Keras layout)
//   Us   : [d, 4ds]  recurrent kernel of the small LSTM (reads the FULL h)
//   ug_diff : [d] = U_g[:,0] - U_g[:,1] (gate logit difference read - skim)
//   cut  : read iff l0 - l1 >= cut, cut = log(t) - log(1 - t) of the
//          threshold t (-inf at t <= 0, +inf at t >= 1): ThresholdCut()
//   h, c : [d] state in/out (zeros for a fresh sequence)
//   mask : [T] out, 1.0 read / 0.0 skim
//   z    : scratch of 4*d floats
//   tokens: [T] token ids or nullptr; id 0 is padding (Keras mask_zero): the
//          step is skipped entirely (state copied, mask 0, not counted)
// Returns the number of read steps.
int skim_lstm_sequence(const float* proj, int T, int d, int ds,
                       const float* U, const float* Us, const float* ug_diff,
                       float cut, float* h, float* c, float* mask,
                       float* z, const int32_t* tokens);

// The read rule's cut for a threshold t, in float32 as Keras computes it.
float ThresholdCut(float threshold);

}  // namespace keras_skim
