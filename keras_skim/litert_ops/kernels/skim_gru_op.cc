// keras-skim: "KerasSkimGRU", written against the runtime-free seam in
// op_kernel.h (see skim_gru_op.h and skim_rnn_op.h for its inputs and
// outputs).
#include "skim_gru_op.h"

#include "skim_gru_core.h"
#include "skim_rnn_op.h"

namespace keras_skim {

const char kSkimGruOpName[] = "KerasSkimGRU";

namespace {

constexpr int kRecurrentBias = kSkimSharedInputs;

class SkimGruKernel : public SkimOpKernel<SkimGruWeights> {
 public:
  SkimGruKernel() : SkimOpKernel(SkimOpInfo{kSkimGruOpName, 3, kRecurrentBias + 1}) {}

 protected:
  bool CheckCellInputs(const TensorView* in, const SkimDims& s, std::string* error) override {
    const TensorView& b = in[kRecurrentBias];
    if (b.type != DType::kFloat32 || b.shape.NumElements() != s.d + s.ds)
      return Fail("recurrent_bias is f32 [d + ds]", error);
    return true;
  }
  void FillCellWeights(const TensorView* in, SkimGruWeights* w) override {
    w->recurrent_bias = static_cast<const float*>(in[kRecurrentBias].data);
  }
};

}  // namespace

OpKernel* CreateSkimGruKernel(const void*, size_t) { return new SkimGruKernel; }

}  // namespace keras_skim
