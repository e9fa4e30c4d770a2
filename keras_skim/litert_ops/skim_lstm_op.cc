// keras-skim: "KerasSkimLSTM", written against the runtime-free seam in
// op_kernel.h (see skim_lstm_op.h for its inputs and outputs).
#include "skim_lstm_op.h"

#include <string.h>

#include <string>
#include <vector>

#include "skim_lstm_core.h"

namespace keras_skim {

const char kSkimLstmOpName[] = "KerasSkimLSTM";

namespace {

#define SKIM_ENSURE(cond)                                                 \
  do {                                                                    \
    if (!(cond)) {                                                        \
      *error = std::string(kSkimLstmOpName) + ": check failed: " + #cond; \
      return false;                                                       \
    }                                                                     \
  } while (0)

class SkimLstmKernel : public OpKernel {
 public:
  bool InferOutputs(int num_inputs, const TensorView* in, int num_outputs,
                    TensorView* out, std::string* error) override {
    SKIM_ENSURE((num_inputs == 5 || num_inputs == 6) && num_outputs == 3);
    for (int i = 0; i < 5; ++i) SKIM_ENSURE(in[i].type == DType::kFloat32);
    const TensorShape& proj = in[0].shape;
    const TensorShape& U = in[2].shape;
    const TensorShape& Us = in[3].shape;
    const TensorShape& Ug = in[4].shape;
    SKIM_ENSURE(U.rank == 2 && Us.rank == 2 && Ug.rank == 2);
    const int d = U.dims[0];
    const int ds = Us.dims[1] / 4;
    SKIM_ENSURE(d > 0 && U.dims[1] == 4 * d);
    // d' = 0 comes as a [d, 1] placeholder: LiteRT's C API cannot hand a
    // custom op a tensor with a zero dimension.
    SKIM_ENSURE(Us.dims[0] == d && (Us.dims[1] == 4 * ds || (ds == 0 && Us.dims[1] == 1)) && ds <= d);
    SKIM_ENSURE(Ug.dims[0] == d && Ug.dims[1] == 2);
    const int K = 4 * d + 4 * ds + 2;
    SKIM_ENSURE(proj.rank == 2 || (proj.rank == 3 && proj.dims[0] == 1));
    SKIM_ENSURE(proj.dims[proj.rank - 1] == K);
    SKIM_ENSURE(in[1].shape.NumElements() == 1);
    const int T = proj.dims[proj.rank - 2];
    if (num_inputs == 6) {
      SKIM_ENSURE(in[5].type == DType::kInt32 && in[5].shape.NumElements() == T);
    }
    out[0].type = DType::kFloat32;
    out[0].shape.rank = 2;
    out[0].shape.dims[0] = 1;
    out[0].shape.dims[1] = d;
    out[1].type = DType::kFloat32;
    out[1].shape.rank = 2;
    out[1].shape.dims[0] = 1;
    out[1].shape.dims[1] = T;
    out[2].type = DType::kInt32;
    out[2].shape.rank = 1;
    out[2].shape.dims[0] = 1;
    return true;
  }

  bool Run(int num_inputs, const TensorView* in, int num_outputs,
           TensorView* out, std::string* error) override {
    TensorView shapes[3];
    if (!InferOutputs(num_inputs, in, num_outputs, shapes, error)) return false;
    for (int i = 0; i < num_inputs; ++i) SKIM_ENSURE(in[i].data != nullptr || in[i].shape.NumElements() == 0);
    for (int i = 0; i < 3; ++i) SKIM_ENSURE(out[i].data != nullptr);
    const int d = in[2].shape.dims[0];
    const int ds = in[3].shape.dims[1] / 4;
    const int T = in[0].shape.dims[in[0].shape.rank - 2];
    h_.assign(d, 0.f);
    c_.assign(d, 0.f);
    z_.assign(4 * d, 0.f);
    // The gate only needs the difference of its two logits.
    const float* ug = static_cast<const float*>(in[4].data);
    ug_diff_.resize(d);
    for (int k = 0; k < d; ++k) ug_diff_[k] = ug[2 * k] - ug[2 * k + 1];
    const float threshold = *static_cast<const float*>(in[1].data);
    const int reads = skim_lstm_sequence(
        static_cast<const float*>(in[0].data), T, d, ds,
        static_cast<const float*>(in[2].data), static_cast<const float*>(in[3].data),
        ug_diff_.data(), ThresholdCut(threshold), h_.data(), c_.data(),
        static_cast<float*>(out[1].data), z_.data(),
        num_inputs == 6 ? static_cast<const int32_t*>(in[5].data) : nullptr);
    memcpy(out[0].data, h_.data(), sizeof(float) * d);
    *static_cast<int32_t*>(out[2].data) = reads;
    return true;
  }

 private:
  std::vector<float> h_, c_, z_, ug_diff_;
};

#undef SKIM_ENSURE

}  // namespace

OpKernel* CreateSkimLstmKernel(const void*, size_t) { return new SkimLstmKernel; }

}  // namespace keras_skim
