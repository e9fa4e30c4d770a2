// keras-skim: the checks the skim cells' ops share (skim_rnn_op.h).
#include "skim_rnn_op.h"

namespace keras_skim {

#define SKIM_ENSURE(cond)                                         \
  do {                                                            \
    if (!(cond)) {                                                \
      *error = std::string(op.name) + ": check failed: " + #cond; \
      return false;                                               \
    }                                                             \
  } while (0)

bool ReadSkimDims(const SkimOpInfo& op, int num_inputs, const TensorView* in, int num_outputs, SkimDims* s,
                  std::string* error) {
  const int G = op.blocks;
  SKIM_ENSURE(num_inputs == op.num_inputs && num_outputs == 3);
  const TensorShape& tokens = in[kSkimTokens].shape;
  SKIM_ENSURE(in[kSkimTokens].type == DType::kInt32);
  SKIM_ENSURE(tokens.rank == 1 || (tokens.rank == 2 && tokens.dims[0] == 1));
  s->T = tokens.dims[tokens.rank - 1];
  SKIM_ENSURE(in[kSkimThreshold].type == DType::kFloat32 && in[kSkimThreshold].shape.NumElements() == 1);
  SKIM_ENSURE(in[kSkimOptions].type == DType::kInt32 && in[kSkimOptions].shape.NumElements() >= 1);
  const TensorShape& kernel = in[kSkimKernel].shape;
  const TensorShape& skim = in[kSkimSkimKernel].shape;
  const TensorShape& rows = in[kSkimRows].shape;
  SKIM_ENSURE(kernel.rank == 2 && skim.rank == 2 && rows.rank == 2);
  SKIM_ENSURE(kernel.dims[1] > 0 && kernel.dims[1] % G == 0);
  s->d = kernel.dims[1] / G;
  s->e = kernel.dims[0] - s->d;
  SKIM_ENSURE(s->e >= 0);
  SKIM_ENSURE(skim.dims[0] == kernel.dims[0] && skim.dims[1] % G == 1);
  s->ds = skim.dims[1] / G;
  SKIM_ENSURE(s->ds < s->d);
  SKIM_ENSURE(in[kSkimSkimKernel].type == DType::kFloat32);
  const int N = G * s->d + G * s->ds + 1;
  s->V = rows.dims[0];
  SKIM_ENSURE(s->V > 0 && rows.dims[1] == (s->e > 0 ? s->e : N));
  s->int8_rows = in[kSkimRows].type == DType::kInt8;
  SKIM_ENSURE(s->int8_rows || in[kSkimRows].type == DType::kFloat32);
  SKIM_ENSURE(in[kSkimRowsScale].type == DType::kFloat32);
  // Unused scale and bias inputs are 1-element placeholders: LiteRT's C API
  // cannot hand a custom op a tensor with a zero dimension.
  SKIM_ENSURE(in[kSkimRowsScale].shape.NumElements() == (s->int8_rows ? s->V : 1));
  s->int8_kernel = in[kSkimKernel].type == DType::kInt8;
  SKIM_ENSURE(s->int8_kernel || in[kSkimKernel].type == DType::kFloat32);
  SKIM_ENSURE(in[kSkimKernelScale].type == DType::kFloat32);
  SKIM_ENSURE(in[kSkimKernelScale].shape.NumElements() == (s->int8_kernel ? G * s->d : 1));
  SKIM_ENSURE(in[kSkimBias].type == DType::kFloat32);
  SKIM_ENSURE(in[kSkimBias].shape.NumElements() == (s->e > 0 ? N : 1));
  return true;
}

void SetSkimOutputs(const SkimDims& s, TensorView* out) {
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
}

bool CheckSkimRun(const SkimOpInfo& op, const SkimDims& s, int num_inputs, const TensorView* in, TensorView* out,
                  std::string* error) {
  for (int i = 0; i < num_inputs; ++i) SKIM_ENSURE(in[i].data != nullptr || in[i].shape.NumElements() == 0);
  for (int i = 0; i < 3; ++i) SKIM_ENSURE(out[i].data != nullptr || out[i].shape.NumElements() == 0);
  const int32_t* tokens = static_cast<const int32_t*>(in[kSkimTokens].data);
  for (int t = 0; t < s.T; ++t) {
    if (tokens[t] < 0 || tokens[t] >= s.V) {
      *error = std::string(op.name) + ": token id " + std::to_string(tokens[t]) + " at position " +
               std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(s.V) + ")";
      return false;
    }
  }
  return true;
}

void FillSkimWeights(const SkimDims& s, const TensorView* in, SkimRnnWeights* w) {
  w->d = s.d;
  w->ds = s.ds;
  w->vocab = s.V;
  w->e = s.e;
  w->rows.data = in[kSkimRows].data;
  w->rows.int8 = s.int8_rows;
  w->rows.scale = static_cast<const float*>(in[kSkimRowsScale].data);
  w->kernel.data = in[kSkimKernel].data;
  w->kernel.int8 = s.int8_kernel;
  w->kernel.scale = static_cast<const float*>(in[kSkimKernelScale].data);
  w->skim_kernel = static_cast<const float*>(in[kSkimSkimKernel].data);
  w->bias = static_cast<const float*>(in[kSkimBias].data);
}

#undef SKIM_ENSURE

}  // namespace keras_skim
