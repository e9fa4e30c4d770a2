// keras-skim: the C interface of keras_skim_c.h over ModelRunner.
#include "keras_skim_c.h"

#include <stdio.h>

#include <memory>
#include <string>

#include "model_runner.h"

#define KERAS_SKIM_EXPORT __attribute__((visibility("default")))

struct KerasSkimModel {
  std::unique_ptr<keras_skim::ModelRunner> runner;
};

namespace {


int Fail(const std::string& message, char* error, size_t size) {
  if (error && size) snprintf(error, size, "%s", message.c_str());
  return 1;
}

bool ValidSignature(const KerasSkimModel* m, int s) {
  return m && s >= 0 && s < (int)m->runner->signatures().size();
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
  return new KerasSkimModel{std::move(runner)};
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

KERAS_SKIM_EXPORT int KerasSkim_SetInput(KerasSkimModel* model, int s, int index, int type,
                                         int rank, const int32_t* dims, const void* data,
                                         size_t bytes, char* error, size_t error_size) {
  if (!model) return Fail("no model", error, error_size);
  if (rank < 0 || rank > keras_skim::kMaxRank) return Fail("rank must be 0 to 8", error, error_size);
  keras_skim::TensorShape shape;
  shape.rank = rank;
  for (int i = 0; i < rank; ++i) shape.dims[i] = dims[i];
  std::string message;
  if (!model->runner->SetInput(s, index, static_cast<keras_skim::DType>(type), shape, data,
                               bytes, &message))
    return Fail(message, error, error_size);
  return 0;
}

KERAS_SKIM_EXPORT int KerasSkim_Invoke(KerasSkimModel* model, int s, char* error,
                                       size_t error_size) {
  if (!model) return Fail("no model", error, error_size);
  std::string message;
  if (!model->runner->Invoke(s, &message)) return Fail(message, error, error_size);
  return 0;
}

KERAS_SKIM_EXPORT int KerasSkim_GetOutput(KerasSkimModel* model, int s, int index, int* type,
                                          int* rank, int32_t* dims, const void** data,
                                          size_t* bytes, char* error, size_t error_size) {
  if (!model) return Fail("no model", error, error_size);
  keras_skim::TensorView view;
  std::string message;
  if (!model->runner->Output(s, index, &view, &message)) return Fail(message, error, error_size);
  *type = static_cast<int>(view.type);
  *rank = view.shape.rank;
  for (int i = 0; i < view.shape.rank; ++i) dims[i] = view.shape.dims[i];
  *data = view.data;
  *bytes = view.bytes;
  return 0;
}

}  // extern "C"
