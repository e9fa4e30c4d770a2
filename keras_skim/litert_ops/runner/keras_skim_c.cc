// keras-skim: the C interface of keras_skim_c.h over ModelRunner.
#include "keras_skim_c.h"

#include <stdio.h>

#include <memory>
#include <string>
#include <vector>

#include "model_runner.h"

#define KERAS_SKIM_EXPORT __attribute__((visibility("default")))

struct KerasSkimTokenCall;

struct KerasSkimModel {
  std::unique_ptr<keras_skim::ModelRunner> runner;
  std::vector<std::unique_ptr<KerasSkimTokenCall>> token_calls;  // freed with the model
};

struct KerasSkimTokenCall {
  KerasSkimModel* model;
  int signature, ids_input, threshold_input;
  uint64_t described = ~uint64_t(0);  // the output generation the caller's views were made at
  std::string error;                  // the last run's failure
};

namespace {


int Fail(const std::string& message, char* error, size_t size) {
  if (error && size) snprintf(error, size, "%s", message.c_str());
  return 1;
}

bool ValidSignature(const KerasSkimModel* m, int s) {
  return m && s >= 0 && s < (int)m->runner->signatures().size();
}

// Describes the outputs of the last run of signature `s`; 0, or 2 when one cannot be read.
int DescribeOutputs(KerasSkimModel* model, int s, KerasSkimTensor* outputs, int num_outputs,
                    char* error, size_t error_size) {
  std::string message;
  for (int i = 0; outputs && i < num_outputs; ++i) {
    keras_skim::TensorView view;
    if (!model->runner->Output(s, i, &view, &message)) return 1 + Fail(message, error, error_size);
    KerasSkimTensor& t = outputs[i];
    t.type = static_cast<int32_t>(view.type);
    t.rank = view.shape.rank;
    for (int k = 0; k < view.shape.rank; ++k) t.dims[k] = view.shape.dims[k];
    t.data = view.data;
    t.bytes = view.bytes;
  }
  return 0;
}

int CheckOutputCount(const KerasSkimModel* model, int s, const KerasSkimTensor* outputs,
                     int num_outputs, char* error, size_t error_size) {
  const auto& sig = model->runner->signatures()[s];
  if (outputs && num_outputs != (int)sig.outputs.size())
    return Fail("the signature has " + std::to_string(sig.outputs.size()) + " outputs", error,
                error_size);
  return 0;
}

}  // namespace

extern "C" {

KERAS_SKIM_EXPORT int KerasSkim_ApiVersion(void) { return KERAS_SKIM_C_API_VERSION; }

KERAS_SKIM_EXPORT int KerasSkim_LoadLiteRt(const char* path, char* loaded, size_t loaded_size,
                                           char* error, size_t error_size) {
  std::string message;
  const keras_skim::LiteRtApi* api = keras_skim::LoadLiteRt(path, &message);
  if (!api) return Fail(message, error, error_size);
  if (loaded && loaded_size) snprintf(loaded, loaded_size, "%s", api->path.c_str());
  return 0;
}

KERAS_SKIM_EXPORT int KerasSkim_NumOps(void) {
  int count = 0;
  keras_skim::LibraryOps(&count);
  return count;
}

KERAS_SKIM_EXPORT const char* KerasSkim_OpName(int index) {
  int count = 0;
  const keras_skim::OpDef* ops = keras_skim::LibraryOps(&count);
  return index >= 0 && index < count ? ops[index].name : nullptr;
}

KERAS_SKIM_EXPORT KerasSkimModel* KerasSkim_ModelCreate(const void* data, size_t size,
                                                        int num_threads, char* error,
                                                        size_t error_size) {
  std::string message;
  const keras_skim::LiteRtApi* api = keras_skim::LoadLiteRt(nullptr, &message);
  if (!api) {
    Fail(message, error, error_size);
    return nullptr;
  }
  auto runner = keras_skim::ModelRunner::Create(api, data, size, num_threads, &message);
  if (!runner) {
    Fail(message, error, error_size);
    return nullptr;
  }
  return new KerasSkimModel{std::move(runner), {}};
}

KERAS_SKIM_EXPORT void KerasSkim_ModelDestroy(KerasSkimModel* model) { delete model; }

KERAS_SKIM_EXPORT int KerasSkim_NumSignatures(const KerasSkimModel* model) {
  return model ? (int)model->runner->signatures().size() : 0;
}

KERAS_SKIM_EXPORT const char* KerasSkim_SignatureKey(const KerasSkimModel* model, int s) {
  return ValidSignature(model, s) ? model->runner->signatures()[s].key.c_str() : nullptr;
}

KERAS_SKIM_EXPORT int KerasSkim_NumTensors(const KerasSkimModel* model, int s, int is_input) {
  if (!ValidSignature(model, s)) return 0;
  const auto& sig = model->runner->signatures()[s];
  return (int)(is_input ? sig.inputs.size() : sig.outputs.size());
}

KERAS_SKIM_EXPORT const char* KerasSkim_TensorInfo(const KerasSkimModel* model, int s,
                                                   int is_input, int index, int* type,
                                                   int* rank, int32_t* dims) {
  if (!ValidSignature(model, s)) return nullptr;
  const auto& sig = model->runner->signatures()[s];
  const auto& list = is_input ? sig.inputs : sig.outputs;
  if (index < 0 || index >= (int)list.size()) return nullptr;
  const auto& info = list[index];
  *type = static_cast<int>(info.type);
  *rank = info.shape.rank;
  for (int i = 0; i < info.shape.rank; ++i) dims[i] = info.shape.dims[i];
  return info.name.c_str();
}

KERAS_SKIM_EXPORT int KerasSkim_Run(KerasSkimModel* model, int s, const KerasSkimTensor* inputs,
                                    int num_inputs, int invoke, KerasSkimTensor* outputs,
                                    int num_outputs, char* error, size_t error_size) {
  if (!ValidSignature(model, s)) return Fail("no model or no such signature", error, error_size);
  const auto& sig = model->runner->signatures()[s];
  if (inputs && num_inputs != (int)sig.inputs.size())
    return Fail("the signature takes " + std::to_string(sig.inputs.size()) + " inputs, got " +
                    std::to_string(num_inputs),
                error, error_size);
  if (CheckOutputCount(model, s, outputs, num_outputs, error, error_size)) return 1;
  std::string message;
  for (int i = 0; inputs && i < num_inputs; ++i) {
    const KerasSkimTensor& t = inputs[i];
    if (t.rank < 0 || t.rank > keras_skim::kMaxRank) return Fail("rank must be 0 to 8", error, error_size);
    keras_skim::TensorShape shape;
    shape.rank = t.rank;
    for (int k = 0; k < t.rank; ++k) shape.dims[k] = t.dims[k];
    if (!model->runner->SetInput(s, i, static_cast<keras_skim::DType>(t.type), shape, t.data,
                                 t.bytes, &message))
      return Fail(message, error, error_size);
  }
  if (invoke && !model->runner->Invoke(s, &message)) return 1 + Fail(message, error, error_size);
  return DescribeOutputs(model, s, outputs, num_outputs, error, error_size);
}

KERAS_SKIM_EXPORT KerasSkimTokenCall* KerasSkim_TokenCallCreate(KerasSkimModel* model, int s,
                                                              int ids_input, int threshold_input,
                                                              char* error, size_t error_size) {
  if (!ValidSignature(model, s)) {
    Fail("no model or no such signature", error, error_size);
    return nullptr;
  }
  const auto& inputs = model->runner->signatures()[s].inputs;
  const int n = (int)inputs.size();
  const bool ids_ok = ids_input >= 0 && ids_input < n && inputs[ids_input].type == keras_skim::DType::kInt32 &&
                      inputs[ids_input].shape.rank == 2;
  const bool threshold_ok = threshold_input == -1 ||
                            (threshold_input >= 0 && threshold_input < n && threshold_input != ids_input &&
                             inputs[threshold_input].type == keras_skim::DType::kFloat32 &&
                             inputs[threshold_input].shape.rank == 0);
  if (!ids_ok || !threshold_ok || n != 1 + (threshold_input >= 0)) {
    Fail("the signature does not take token ids [1, T] (int32) and at most a float32 threshold", error,
         error_size);
    return nullptr;
  }
  model->token_calls.emplace_back(
      new KerasSkimTokenCall{model, s, ids_input, threshold_input, ~uint64_t(0), std::string()});
  return model->token_calls.back().get();
}

KERAS_SKIM_EXPORT int KerasSkim_TokenCallRun(KerasSkimTokenCall* call, const int32_t* ids, int count,
                                             int length, const float* threshold) {
  call->error.clear();
  if (call->threshold_input >= 0 && !threshold) {
    call->error = "no threshold";
    return 1;
  }
  keras_skim::ModelRunner& runner = *call->model->runner;
  if (!runner.SetTokens(call->signature, call->ids_input, ids, count, length, call->threshold_input,
                        call->threshold_input >= 0 ? *threshold : 0.0f, &call->error))
    return 1;
  if (!runner.Invoke(call->signature, &call->error)) return 2;
  const uint64_t generation = runner.OutputGeneration(call->signature);
  if (generation == call->described) return 0;
  call->described = generation;
  return 3;
}

KERAS_SKIM_EXPORT const char* KerasSkim_TokenCallError(const KerasSkimTokenCall* call) {
  return call->error.c_str();
}

KERAS_SKIM_EXPORT int KerasSkim_TokenCallOutputs(KerasSkimTokenCall* call, KerasSkimTensor* outputs,
                                                 int num_outputs, char* error, size_t error_size) {
  if (CheckOutputCount(call->model, call->signature, outputs, num_outputs, error, error_size)) return 1;
  return DescribeOutputs(call->model, call->signature, outputs, num_outputs, error, error_size);
}

}  // extern "C"
