// keras-skim: the adapter from LiteRT's custom-op kernel interface
// (LiteRtCustomOpKernel: Init / GetOutputLayouts / Run / Destroy over
// LiteRtTensorBuffer) to our runtime-free keras_skim::OpKernel.
//
// Two facts of the LiteRT 2.x runtime shape it (litert/runtime/
// custom_op_dispatcher.cc, 2.1.6 to 2.3.0):
// - one user_data per registered op, shared by every node of that op, and no
//   node handle in the callbacks: a model may hold each op once (the runner
//   checks that when it opens the model);
// - the status the callbacks return is ignored: an op that fails leaves its
//   outputs unwritten and the run "succeeds". So every failure is kept here
//   and the runner asks for it after each LiteRT call (TakeError).
// LiteRtLayout carries shapes only, so the element types the op sees while
// only shapes are known come from the model (SetNodeTypes).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../kernels/op_kernel.h"
#include "litert_library.h"

namespace keras_skim {

class LiteRtOpHost {
 public:
  LiteRtOpHost(const LiteRtApi* api, const OpDef& def) : api_(api), def_(def) {}
  LiteRtOpHost(const LiteRtOpHost&) = delete;
  LiteRtOpHost& operator=(const LiteRtOpHost&) = delete;

  const OpDef& def() const { return def_; }

  // The element types of the op's node in the model.
  void SetNodeTypes(std::vector<DType> inputs, std::vector<DType> outputs) {
    input_types_ = std::move(inputs);
    output_types_ = std::move(outputs);
  }

  // Adds this op to `options` (user_data = this; must outlive the model).
  LiteRtStatus Register(LiteRtOptions options);

  // The first failure since the last call, one line; empty if none.
  std::string TakeError();

 private:
  static LiteRtStatus Init(void* self, const void* data, size_t size);
  static LiteRtStatus GetOutputLayouts(void* self, size_t num_inputs,
                                       const LiteRtLayout* inputs,
                                       size_t num_outputs,
                                       LiteRtLayout* outputs);
  static LiteRtStatus Run(void* self, size_t num_inputs,
                          const LiteRtTensorBuffer* inputs, size_t num_outputs,
                          LiteRtTensorBuffer* outputs);
  static LiteRtStatus Destroy(void* self);

  bool Fail(const std::string& why);
  bool Views(size_t count, const LiteRtTensorBuffer* buffers, int lock_mode,
             std::vector<TensorView>* views, size_t* locked);

  const LiteRtApi* api_;
  const OpDef def_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<DType> input_types_, output_types_;
  std::vector<TensorView> inputs_, outputs_;  // reused between runs
  std::string error_;
};

}  // namespace keras_skim
