// keras-skim: LiteRtCustomOpKernel -> keras_skim::OpKernel (see the header).
#include "litert_op_adapter.h"

#include <string.h>

namespace keras_skim {
namespace {

const LiteRtStatus kFailed = 1;  // any non-OK status; LiteRT ignores it today

LiteRtOpHost* Self(void* p) { return static_cast<LiteRtOpHost*>(p); }

}  // namespace

LiteRtStatus LiteRtOpHost::Register(LiteRtOptions options) {
  static const LiteRtCustomOpKernel kCallbacks = {
      &LiteRtOpHost::Init, &LiteRtOpHost::GetOutputLayouts, &LiteRtOpHost::Run,
      &LiteRtOpHost::Destroy};
  return api_->LiteRtAddCustomOpKernelOption(options, def_.name, def_.version,
                                             &kCallbacks, this);
}

std::string LiteRtOpHost::TakeError() {
  std::string error;
  error.swap(error_);
  return error;
}

bool LiteRtOpHost::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  return false;
}

LiteRtStatus LiteRtOpHost::Init(void* p, const void* data, size_t size) {
  LiteRtOpHost* self = Self(p);
  if (self->kernel_) {
    self->Fail(std::string(self->def_.name) +
               ": the model holds this op more than once, which the LiteRT "
               "custom-op interface cannot tell apart");
    return kFailed;
  }
  self->kernel_.reset(self->def_.create(data, size));
  if (!self->kernel_) {
    self->Fail(std::string(self->def_.name) + ": cannot create the kernel");
    return kFailed;
  }
  return kLiteRtStatusOk;
}

LiteRtStatus LiteRtOpHost::Destroy(void* p) {
  Self(p)->kernel_.reset();
  return kLiteRtStatusOk;
}

LiteRtStatus LiteRtOpHost::GetOutputLayouts(void* p, size_t num_inputs,
                                            const LiteRtLayout* in,
                                            size_t num_outputs,
                                            LiteRtLayout* out) {
  LiteRtOpHost* self = Self(p);
  // Whatever happens, hand LiteRT well-formed (empty) layouts: it resizes the
  // outputs to them without looking at our status.
  for (size_t i = 0; i < num_outputs; ++i) {
    memset(&out[i], 0, sizeof(LiteRtLayout));
    out[i].rank = 1;
  }
  const std::string name = self->def_.name;
  if (!self->kernel_) return self->Fail(name + ": not initialised"), kFailed;
  if (num_inputs != self->input_types_.size() || num_outputs != self->output_types_.size()) {
    self->Fail(name + ": the node's inputs or outputs differ from the model's");
    return kFailed;
  }
  self->inputs_.assign(num_inputs, TensorView());
  self->outputs_.assign(num_outputs, TensorView());
  for (size_t i = 0; i < num_inputs; ++i) {
    TensorView& v = self->inputs_[i];
    v.type = self->input_types_[i];
    if (in[i].rank > kMaxRank) return self->Fail(name + ": input rank above 8"), kFailed;
    v.shape.rank = in[i].rank;
    for (int k = 0; k < v.shape.rank; ++k) v.shape.dims[k] = in[i].dimensions[k];
  }
  std::string error;
  if (!self->kernel_->InferOutputs((int)num_inputs, self->inputs_.data(),
                                   (int)num_outputs, self->outputs_.data(), &error)) {
    self->Fail(error);
    return kFailed;
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const TensorView& v = self->outputs_[i];
    if (v.type != self->output_types_[i]) {
      self->Fail(name + ": output " + std::to_string(i) +
                 " has another element type in the model than the op writes");
      return kFailed;
    }
    out[i].rank = v.shape.rank;
    for (int k = 0; k < v.shape.rank; ++k) out[i].dimensions[k] = v.shape.dims[k];
  }
  return kLiteRtStatusOk;
}

// Locks `count` buffers and describes them as views; `*locked` counts the
// buffers locked so far (the caller unlocks them).
bool LiteRtOpHost::Views(size_t count, const LiteRtTensorBuffer* buffers,
                         int lock_mode, std::vector<TensorView>* views,
                         size_t* locked) {
  const std::string name = def_.name;
  views->assign(count, TensorView());
  for (size_t i = 0; i < count; ++i) {
    LiteRtRankedTensorType type;
    size_t bytes = 0;
    if (api_->LiteRtGetTensorBufferTensorType(buffers[i], &type) != kLiteRtStatusOk ||
        api_->LiteRtGetTensorBufferPackedSize(buffers[i], &bytes) != kLiteRtStatusOk) {
      return Fail(name + ": cannot read a tensor buffer's type");
    }
    if (type.layout.rank > kMaxRank) return Fail(name + ": tensor rank above 8");
    void* data = nullptr;
    if (bytes > 0) {
      if (api_->LiteRtLockTensorBuffer(buffers[i], &data, lock_mode) != kLiteRtStatusOk)
        return Fail(name + ": cannot lock a tensor buffer");
      ++*locked;
    }
    TensorView& v = (*views)[i];
    v.type = static_cast<DType>(type.element_type);
    v.shape.rank = type.layout.rank;
    for (int k = 0; k < v.shape.rank; ++k) v.shape.dims[k] = type.layout.dimensions[k];
    v.data = data;
    v.bytes = bytes;
  }
  return true;
}

LiteRtStatus LiteRtOpHost::Run(void* p, size_t num_inputs,
                               const LiteRtTensorBuffer* inputs,
                               size_t num_outputs, LiteRtTensorBuffer* outputs) {
  LiteRtOpHost* self = Self(p);
  if (!self->kernel_) return self->Fail(std::string(self->def_.name) + ": not initialised"), kFailed;
  // Buffers of zero bytes are never locked, so the locked ones are a prefix
  // of the non-empty ones: unlock exactly those.
  size_t locked_in = 0, locked_out = 0;
  bool ok = self->Views(num_inputs, inputs, kLiteRtTensorBufferLockModeRead,
                        &self->inputs_, &locked_in) &&
            self->Views(num_outputs, outputs, kLiteRtTensorBufferLockModeWrite,
                        &self->outputs_, &locked_out);
  if (ok) {
    std::string error;
    ok = self->kernel_->Run((int)num_inputs, self->inputs_.data(), (int)num_outputs,
                            self->outputs_.data(), &error);
    if (!ok) self->Fail(error);
  }
  auto unlock = [self](size_t count, const LiteRtTensorBuffer* buffers,
                       const std::vector<TensorView>& views, size_t locked) {
    for (size_t i = 0; i < count && locked > 0; ++i) {
      if (i < views.size() && views[i].bytes == 0) continue;
      self->api_->LiteRtUnlockTensorBuffer(buffers[i]);
      --locked;
    }
  };
  unlock(num_inputs, inputs, self->inputs_, locked_in);
  unlock(num_outputs, outputs, self->outputs_, locked_out);
  return ok ? kLiteRtStatusOk : kFailed;
}

}  // namespace keras_skim
