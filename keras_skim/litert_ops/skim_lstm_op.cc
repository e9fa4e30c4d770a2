// keras-skim: "KerasSkimLSTM", written against the runtime-free seam in
// op_kernel.h (see skim_lstm_op.h for its inputs and outputs).
#include "skim_lstm_op.h"

#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "skim_lstm_core.h"

namespace keras_skim {

const char kSkimLstmOpName[] = "KerasSkimLSTM";

namespace {

enum Input {
  kTokens = 0,
  kThreshold,
  kOptions,
  kRows,
  kRowsScale,
  kKernel,
  kKernelScale,
  kSkimKernel,
  kBias,
  kNumInputs
};

#define SKIM_ENSURE(cond)                                                 \
  do {                                                                    \
    if (!(cond)) {                                                        \
      *error = std::string(kSkimLstmOpName) + ": check failed: " + #cond; \
      return false;                                                       \
    }                                                                     \
  } while (0)

struct Dims {
  int T, V, e, d, ds;
  bool int8_rows, int8_kernel;
};

bool ReadDims(int num_inputs, const TensorView* in, int num_outputs, Dims* s, std::string* error) {
  SKIM_ENSURE(num_inputs == kNumInputs && num_outputs == 3);
  const TensorShape& tokens = in[kTokens].shape;
  SKIM_ENSURE(in[kTokens].type == DType::kInt32);
  SKIM_ENSURE(tokens.rank == 1 || (tokens.rank == 2 && tokens.dims[0] == 1));
  s->T = tokens.dims[tokens.rank - 1];
  SKIM_ENSURE(in[kThreshold].type == DType::kFloat32 && in[kThreshold].shape.NumElements() == 1);
  SKIM_ENSURE(in[kOptions].type == DType::kInt32 && in[kOptions].shape.NumElements() >= 1);
  const TensorShape& kernel = in[kKernel].shape;
  const TensorShape& skim = in[kSkimKernel].shape;
  const TensorShape& rows = in[kRows].shape;
  SKIM_ENSURE(kernel.rank == 2 && skim.rank == 2 && rows.rank == 2);
  SKIM_ENSURE(kernel.dims[1] > 0 && kernel.dims[1] % 4 == 0);
  s->d = kernel.dims[1] / 4;
  s->e = kernel.dims[0] - s->d;
  SKIM_ENSURE(s->e >= 0);
  SKIM_ENSURE(skim.dims[0] == kernel.dims[0] && skim.dims[1] % 4 == 1);
  s->ds = skim.dims[1] / 4;
  SKIM_ENSURE(s->ds < s->d);
  SKIM_ENSURE(in[kSkimKernel].type == DType::kFloat32);
  const int N = 4 * s->d + 4 * s->ds + 1;
  s->V = rows.dims[0];
  SKIM_ENSURE(s->V > 0 && rows.dims[1] == (s->e > 0 ? s->e : N));
  s->int8_rows = in[kRows].type == DType::kInt8;
  SKIM_ENSURE(s->int8_rows || in[kRows].type == DType::kFloat32);
  SKIM_ENSURE(in[kRowsScale].type == DType::kFloat32);
  // Unused scale and bias inputs are 1-element placeholders: LiteRT's C API
  // cannot hand a custom op a tensor with a zero dimension.
  SKIM_ENSURE(in[kRowsScale].shape.NumElements() == (s->int8_rows ? s->V : 1));
  s->int8_kernel = in[kKernel].type == DType::kInt8;
  SKIM_ENSURE(s->int8_kernel || in[kKernel].type == DType::kFloat32);
  SKIM_ENSURE(in[kKernelScale].type == DType::kFloat32);
  SKIM_ENSURE(in[kKernelScale].shape.NumElements() == (s->int8_kernel ? 4 * s->d : 1));
  SKIM_ENSURE(in[kBias].type == DType::kFloat32);
  SKIM_ENSURE(in[kBias].shape.NumElements() == (s->e > 0 ? N : 1));
  return true;
}

class SkimLstmKernel : public OpKernel {
 public:
  SkimLstmKernel() : core_(getenv("KERAS_SKIM_SIMD")) {}

  bool InferOutputs(int num_inputs, const TensorView* in, int num_outputs, TensorView* out,
                    std::string* error) override {
    Dims s;
    if (!ReadDims(num_inputs, in, num_outputs, &s, error)) return false;
    out[0].type = DType::kFloat32;
    out[0].shape.rank = 2;
    out[0].shape.dims[0] = 1;
    out[0].shape.dims[1] = s.d;
    out[1].type = DType::kFloat32;
    out[1].shape.rank = 2;
    out[1].shape.dims[0] = 1;
    out[1].shape.dims[1] = s.T;
    out[2].type = DType::kInt32;
    out[2].shape.rank = 1;
    out[2].shape.dims[0] = 1;
    return true;
  }

  bool Run(int num_inputs, const TensorView* in, int num_outputs, TensorView* out,
           std::string* error) override {
    Dims s;
    if (!ReadDims(num_inputs, in, num_outputs, &s, error)) return false;
    for (int i = 0; i < num_inputs; ++i) SKIM_ENSURE(in[i].data != nullptr || in[i].shape.NumElements() == 0);
    for (int i = 0; i < 3; ++i) SKIM_ENSURE(out[i].data != nullptr || out[i].shape.NumElements() == 0);
    const int32_t* tokens = static_cast<const int32_t*>(in[kTokens].data);
    const bool mask_zero = static_cast<const int32_t*>(in[kOptions].data)[0] != 0;
    for (int t = 0; t < s.T; ++t) {
      if (tokens[t] < 0 || tokens[t] >= s.V) {
        *error = std::string(kSkimLstmOpName) + ": token id " + std::to_string(tokens[t]) + " at position " +
                 std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(s.V) + ")";
        return false;
      }
    }
    // Pack on the first run, and whenever a weight moved (empty inputs are
    // arena tensors whose pointer may change with every allocation: not
    // weights).
    std::vector<const void*> weights;
    for (int i = kRows; i < kNumInputs; ++i)
      weights.push_back(in[i].shape.NumElements() ? in[i].data : nullptr);
    if (weights != packed_for_) {
      SkimLstmWeights w;
      w.d = s.d;
      w.ds = s.ds;
      w.vocab = s.V;
      w.e = s.e;
      w.rows.data = in[kRows].data;
      w.rows.int8 = s.int8_rows;
      w.rows.scale = static_cast<const float*>(in[kRowsScale].data);
      w.kernel.data = in[kKernel].data;
      w.kernel.int8 = s.int8_kernel;
      w.kernel.scale = static_cast<const float*>(in[kKernelScale].data);
      w.skim_kernel = static_cast<const float*>(in[kSkimKernel].data);
      w.bias = static_cast<const float*>(in[kBias].data);
      core_.Prepare(w);
      packed_for_ = weights;
    }
    const float threshold = *static_cast<const float*>(in[kThreshold].data);
    const int reads = core_.Run(tokens, s.T, threshold, mask_zero, static_cast<float*>(out[0].data),
                                static_cast<float*>(out[1].data));
    *static_cast<int32_t*>(out[2].data) = reads;
    return true;
  }

 private:
  SkimLstmCore core_;
  std::vector<const void*> packed_for_;
};

#undef SKIM_ENSURE

}  // namespace

OpKernel* CreateSkimLstmKernel(const void*, size_t) { return new SkimLstmKernel; }

}  // namespace keras_skim
