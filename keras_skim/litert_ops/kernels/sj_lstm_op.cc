// keras-skim: "KerasSjLSTM", written against the runtime-free seam in
// op_kernel.h (see sj_lstm_op.h for its inputs and outputs).
#include "sj_lstm_op.h"

#include <stdlib.h>

#include <string>
#include <vector>

#include "sj_lstm_core.h"

namespace keras_skim {

const char kSjLstmOpName[] = "KerasSjLSTM";

namespace {

enum Input {
  kTokens = 0,
  kOptions,
  kKinds,
  kRows,
  kPrevious,
  kKernel,
  kSkipKernel,
  kSkipHead,
  kJumpKernel,
  kJumpHead,
  kFloatInputs,  // a float32 model's inputs end here
  kRowsScale = kFloatInputs,
  kKernelScale,
  kInt8Inputs
};
constexpr int kNumOutputs = 4;
constexpr int kNumPrevious = 5;

#define SJ_ENSURE(cond)                                                 \
  do {                                                                  \
    if (!(cond)) {                                                      \
      *error = std::string(kSjLstmOpName) + ": check failed: " + #cond; \
      return false;                                                     \
    }                                                                   \
  } while (0)

struct Dims {
  int T, V, m, a, e;
  bool int8;  // rows and kernel int8, with their scales (inputs 10, 11)
};

bool IsFloat(const TensorView& v, int rank) { return v.type == DType::kFloat32 && v.shape.rank == rank; }

// rows and kernel: float32 (ten inputs), or int8 with their scales (twelve).
bool IsWeight(const TensorView& v, bool int8) {
  return v.type == (int8 ? DType::kInt8 : DType::kFloat32) && v.shape.rank == 2;
}

bool ReadDims(int num_inputs, const TensorView* in, int num_outputs, Dims* s, std::string* error) {
  SJ_ENSURE((num_inputs == kFloatInputs || num_inputs == kInt8Inputs) && num_outputs == kNumOutputs);
  s->int8 = num_inputs == kInt8Inputs;
  const TensorShape& tokens = in[kTokens].shape;
  SJ_ENSURE(in[kTokens].type == DType::kInt32);
  SJ_ENSURE(tokens.rank == 1 || (tokens.rank == 2 && tokens.dims[0] == 1));
  s->T = tokens.dims[tokens.rank - 1];
  SJ_ENSURE(in[kOptions].type == DType::kInt32 && in[kOptions].shape.NumElements() >= 1);
  SJ_ENSURE(in[kKinds].type == DType::kInt8 && in[kKinds].shape.rank == 1);
  s->V = in[kKinds].shape.dims[0];
  SJ_ENSURE(s->V > 0);
  SJ_ENSURE(IsWeight(in[kKernel], s->int8) && in[kKernel].shape.dims[1] > 0 && in[kKernel].shape.dims[1] % 4 == 0);
  s->m = in[kKernel].shape.dims[1] / 4;
  s->e = in[kKernel].shape.dims[0] - s->m;
  SJ_ENSURE(s->e >= 0);
  SJ_ENSURE(IsFloat(in[kSkipKernel], 2) && in[kSkipKernel].shape.dims[0] == s->m);
  s->a = in[kSkipKernel].shape.dims[1];
  SJ_ENSURE(s->a > 0);
  const int R = s->a + (s->e > 0 ? s->e : 4 * s->m);
  SJ_ENSURE(IsWeight(in[kRows], s->int8) && in[kRows].shape.dims[0] == s->V && in[kRows].shape.dims[1] == R);
  if (s->int8) {
    SJ_ENSURE(in[kRowsScale].type == DType::kFloat32 && in[kRowsScale].shape.NumElements() == 2 * s->V);
    SJ_ENSURE(in[kKernelScale].type == DType::kFloat32 && in[kKernelScale].shape.NumElements() == 4 * s->m);
  }
  SJ_ENSURE(IsFloat(in[kPrevious], 2) && in[kPrevious].shape.dims[0] == kNumPrevious &&
            in[kPrevious].shape.dims[1] == s->a + 4 * s->m);
  SJ_ENSURE(in[kSkipHead].type == DType::kFloat32 && in[kSkipHead].shape.NumElements() == s->a + 1);
  SJ_ENSURE(IsFloat(in[kJumpKernel], 2) && in[kJumpKernel].shape.dims[0] == s->m + 1 &&
            in[kJumpKernel].shape.dims[1] == s->a);
  SJ_ENSURE(IsFloat(in[kJumpHead], 2) && in[kJumpHead].shape.dims[0] == s->a + 1 &&
            in[kJumpHead].shape.dims[1] == 4);
  return true;
}

void SetShape(TensorView* v, DType type, int rank, int d0, int d1 = 0) {
  v->type = type;
  v->shape.rank = rank;
  v->shape.dims[0] = d0;
  v->shape.dims[1] = d1;
}

class SjLstmKernel : public OpKernel {
 public:
  SjLstmKernel() : core_(getenv("KERAS_SKIM_SIMD")) {}

  bool InferOutputs(int num_inputs, const TensorView* in, int num_outputs, TensorView* out,
                    std::string* error) override {
    Dims s;
    if (!ReadDims(num_inputs, in, num_outputs, &s, error)) return false;
    SetShape(&out[0], DType::kFloat32, 2, 1, s.m);
    SetShape(&out[1], DType::kInt32, 2, 1, s.T);
    SetShape(&out[2], DType::kInt32, 1, 1);
    SetShape(&out[3], DType::kInt32, 1, 1);
    return true;
  }

  bool Run(int num_inputs, const TensorView* in, int num_outputs, TensorView* out, std::string* error) override {
    Dims s;
    if (!ReadDims(num_inputs, in, num_outputs, &s, error)) return false;
    for (int i = 0; i < num_inputs; ++i) SJ_ENSURE(in[i].data != nullptr || in[i].shape.NumElements() == 0);
    for (int i = 0; i < kNumOutputs; ++i) SJ_ENSURE(out[i].data != nullptr || out[i].shape.NumElements() == 0);
    const int32_t* tokens = static_cast<const int32_t*>(in[kTokens].data);
    for (int t = 0; t < s.T; ++t) {
      if (tokens[t] < 0 || tokens[t] >= s.V) {
        *error = std::string(kSjLstmOpName) + ": token id " + std::to_string(tokens[t]) + " at position " +
                 std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(s.V) + ")";
        return false;
      }
    }
    std::vector<const void*> weights;
    for (int i = kRows; i < num_inputs; ++i) weights.push_back(in[i].data);
    if (weights != packed_for_) {
      SjLstmWeights w;
      w.m = s.m;
      w.a = s.a;
      w.vocab = s.V;
      w.e = s.e;
      if (s.int8) {
        w.rows_int8 = static_cast<const int8_t*>(in[kRows].data);
        w.rows_scale = static_cast<const float*>(in[kRowsScale].data);
        w.kernel_int8 = static_cast<const int8_t*>(in[kKernel].data);
        w.kernel_scale = static_cast<const float*>(in[kKernelScale].data);
      } else {
        w.rows = static_cast<const float*>(in[kRows].data);
        w.kernel = static_cast<const float*>(in[kKernel].data);
      }
      w.previous = static_cast<const float*>(in[kPrevious].data);
      w.skip_kernel = static_cast<const float*>(in[kSkipKernel].data);
      w.skip_head = static_cast<const float*>(in[kSkipHead].data);
      w.jump_kernel = static_cast<const float*>(in[kJumpKernel].data);
      w.jump_head = static_cast<const float*>(in[kJumpHead].data);
      core_.Prepare(w);
      packed_for_ = weights;
    }
    const bool speed_reading = static_cast<const int32_t*>(in[kOptions].data)[0] != 0;
    const SjLstmCounts counts =
        core_.Run(tokens, s.T, static_cast<const int8_t*>(in[kKinds].data), speed_reading,
                  static_cast<float*>(out[0].data), static_cast<int32_t*>(out[1].data));
    *static_cast<int32_t*>(out[2].data) = counts.read;
    *static_cast<int32_t*>(out[3].data) = counts.visited;
    return true;
  }

 private:
  SjLstmCore core_;
  std::vector<const void*> packed_for_;
};

#undef SJ_ENSURE

}  // namespace

OpKernel* CreateSjLstmKernel(const void*, size_t) { return new SjLstmKernel; }

}  // namespace keras_skim
