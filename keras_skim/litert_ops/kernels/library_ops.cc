// keras-skim: the table of every op this library provides (in the order of
// keras_skim.contracts.CUSTOM_OPS).
#include "op_kernel.h"
#include "sj_lstm_op.h"
#include "skim_gru_op.h"
#include "skim_lstm_op.h"

namespace keras_skim {

const OpDef* LibraryOps(int* count) {
  static const OpDef kOps[] = {
      {kSkimLstmOpName, 1, CreateSkimLstmKernel},
      {kSjLstmOpName, 1, CreateSjLstmKernel},
      {kSkimGruOpName, 1, CreateSkimGruKernel},
  };
  *count = static_cast<int>(sizeof(kOps) / sizeof(kOps[0]));
  return kOps;
}

}  // namespace keras_skim
