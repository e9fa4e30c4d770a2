// keras-skim: "KerasSkimLSTM", written against the runtime-free seam in
// op_kernel.h (see skim_lstm_op.h and skim_rnn_op.h for its inputs and
// outputs).
#include "skim_lstm_op.h"

#include "skim_lstm_core.h"
#include "skim_rnn_op.h"

namespace keras_skim {

const char kSkimLstmOpName[] = "KerasSkimLSTM";

OpKernel* CreateSkimLstmKernel(const void*, size_t) {
  return new SkimOpKernel<SkimLstmWeights>(SkimOpInfo{kSkimLstmOpName, 4, kSkimSharedInputs});
}

}  // namespace keras_skim
