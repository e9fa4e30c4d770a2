// keras-skim: what the skim cells' ops (KerasSkimLSTM: skim_lstm_op.h,
// KerasSkimGRU: skim_gru_op.h) share: their first nine inputs, their three
// outputs, and the kernel that checks them, packs the weights on the first
// run and runs the cell's core (skim_rnn_core.h).
//
// Inputs (G gate blocks per cell: LSTM 4, GRU 3; K = e + d rows, the
// inputs [x; h] of the products; N = G d + G ds + 1):
//   0 token_ids    i32 [1,T] or [T]  ids in [0, V)
//   1 threshold    f32 [] or [1]     read iff l_read - l_skim >= log(t / (1 - t)), i.e.
//                                    p_read >= t (contracts.THRESHOLD_RULE)
//   2 options      i32 [1]           [mask_zero]: 1 = id 0 is padding, its step is
//                                    skipped as Keras' Embedding(mask_zero=True) does
//   3 rows         f32|i8 [V, R]     per word: the embedding (R = e), or, folded
//                                    (e = 0), R = N: [x W + b | x W_s + b_s | x w_g + b_g]
//   4 rows_scale   f32 [V] | [1]     int8 rows: row v is rows[v] * rows_scale[v]; else a placeholder
//   5 kernel       f32|i8 [K, G d]   [W; U] of the big cell
//   6 kernel_scale f32 [G d] | [1]   int8 kernel: column j is kernel[:, j] * kernel_scale[j]; else a placeholder
//   7 skim_kernel  f32 [K, G ds + 1] [W_s | w_g; U_s | u_g]: the small cell and the gate,
//                                    w_g / u_g = read column - skim column
//   8 bias         f32 [N] | [1]     [b | b_s | b_g] (b_g = read - skim); a placeholder when folded
//   9...           a cell's own inputs (the GRU's recurrent_bias)
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
#include <stdlib.h>

#include <string>
#include <vector>

#include "op_kernel.h"
#include "skim_rnn_core.h"

namespace keras_skim {

enum SkimInput {
  kSkimTokens = 0,
  kSkimThreshold,
  kSkimOptions,
  kSkimRows,
  kSkimRowsScale,
  kSkimKernel,
  kSkimKernelScale,
  kSkimSkimKernel,
  kSkimBias,
  kSkimSharedInputs  // a cell's own inputs start here
};

struct SkimDims {
  int T, V, e, d, ds;
  bool int8_rows, int8_kernel;
};

// What a skim op is: its name, its cell's gate blocks and its inputs.
struct SkimOpInfo {
  const char* name;
  int blocks;
  int num_inputs;
};

// Checks the shared inputs' types and shapes (data may be null) and the
// counts; on failure says why in `error` (one line, naming the op).
bool ReadSkimDims(const SkimOpInfo& op, int num_inputs, const TensorView* in, int num_outputs, SkimDims* s,
                  std::string* error);
void SetSkimOutputs(const SkimDims& s, TensorView* out);
// Checks that the data is there and the token ids lie in [0, V).
bool CheckSkimRun(const SkimOpInfo& op, const SkimDims& s, int num_inputs, const TensorView* in, TensorView* out,
                  std::string* error);
// The shared weight fields from the inputs.
void FillSkimWeights(const SkimDims& s, const TensorView* in, SkimRnnWeights* w);

// The kernel of a skim op over the core of `Weights`; a cell with inputs
// of its own overrides CheckCellInputs and FillCellWeights.
template <class Weights>
class SkimOpKernel : public OpKernel {
 public:
  explicit SkimOpKernel(const SkimOpInfo& op) : op_(op), core_(getenv("KERAS_SKIM_SIMD")) {}

  bool InferOutputs(int num_inputs, const TensorView* in, int num_outputs, TensorView* out,
                    std::string* error) override {
    SkimDims s;
    if (!Check(num_inputs, in, num_outputs, &s, error)) return false;
    SetSkimOutputs(s, out);
    return true;
  }

  bool Run(int num_inputs, const TensorView* in, int num_outputs, TensorView* out, std::string* error) override {
    SkimDims s;
    if (!Check(num_inputs, in, num_outputs, &s, error) || !CheckSkimRun(op_, s, num_inputs, in, out, error))
      return false;
    // Pack on the first run, and whenever a weight moved (empty inputs are
    // arena tensors whose pointer may change with every allocation: not
    // weights).
    std::vector<const void*> weights;
    for (int i = kSkimRows; i < num_inputs; ++i) weights.push_back(in[i].shape.NumElements() ? in[i].data : nullptr);
    if (weights != packed_for_) {
      Weights w;
      FillSkimWeights(s, in, &w);
      FillCellWeights(in, &w);
      core_.Prepare(w);
      packed_for_ = weights;
    }
    const int32_t* tokens = static_cast<const int32_t*>(in[kSkimTokens].data);
    const bool mask_zero = static_cast<const int32_t*>(in[kSkimOptions].data)[0] != 0;
    const float threshold = *static_cast<const float*>(in[kSkimThreshold].data);
    const int reads = core_.Run(tokens, s.T, threshold, mask_zero, static_cast<float*>(out[0].data),
                                static_cast<float*>(out[1].data));
    *static_cast<int32_t*>(out[2].data) = reads;
    return true;
  }

 protected:
  virtual bool CheckCellInputs(const TensorView*, const SkimDims&, std::string*) { return true; }
  virtual void FillCellWeights(const TensorView*, Weights*) {}
  // One line for a failed check of the op's own inputs.
  bool Fail(const char* what, std::string* error) const {
    *error = std::string(op_.name) + ": check failed: " + what;
    return false;
  }

 private:
  bool Check(int num_inputs, const TensorView* in, int num_outputs, SkimDims* s, std::string* error) {
    return ReadSkimDims(op_, num_inputs, in, num_outputs, s, error) && CheckCellInputs(in, *s, error);
  }

  const SkimOpInfo op_;
  SkimCore<Weights> core_;
  std::vector<const void*> packed_for_;
};

}  // namespace keras_skim
