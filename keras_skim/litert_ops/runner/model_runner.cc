// keras-skim: ModelRunner (see model_runner.h).
#include "model_runner.h"

#include <stdlib.h>
#include <string.h>

#include <mutex>

namespace keras_skim {
namespace {

// LiteRT's own log lines (stderr; logcat on Android) at or above this
// severity: KERAS_SKIM_LITERT_LOG = verbose | info | warning | error | silent
// (default error: keras-skim reports failures itself, in one line).
int LogSeverity() {
  static const char* const kNames[] = {"verbose", "info", "warning", "error", "silent"};
  const char* value = getenv("KERAS_SKIM_LITERT_LOG");
  for (int i = 0; value && i < 5; ++i)
    if (strcmp(value, kNames[i]) == 0) return i;
  return 3;
}

// One LiteRT environment per process, made on first use and kept: it holds
// the accelerator registry, which every compiled model may share.
LiteRtEnvironment SharedEnvironment(const LiteRtApi* api, std::string* error) {
  static std::mutex mutex;
  static LiteRtEnvironment env = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!env) {
    LiteRtEnvOption option;
    option.tag = kLiteRtEnvOptionTagMinLoggerSeverity;
    option.value.type = kLiteRtAnyTypeInt;
    option.value.int_value = LogSeverity();
    LiteRtStatus status = api->LiteRtCreateEnvironment(1, &option, &env);
    if (status != kLiteRtStatusOk) {
      env = nullptr;
      *error = "LiteRtCreateEnvironment failed (status " + std::to_string(status) + ")";
    }
  }
  return env;
}

const char* TypeName(DType type) {
  switch (static_cast<int>(type)) {
    case 1: return "float32";
    case 2: return "int32";
    case 3: return "uint8";
    case 4: return "int64";
    case 6: return "bool";
    case 7: return "int16";
    case 9: return "int8";
    case 10: return "float16";
    default: return "unknown";
  }
}

// Names of the LiteRtStatus codes (litert_common.h) that show up here.
std::string StatusName(LiteRtStatus status) {
  const char* name = nullptr;
  switch (status) {
    case 1: name = "invalid argument"; break;
    case 2: name = "memory allocation failure"; break;
    case 3: name = "runtime failure"; break;
    case 5: name = "unsupported"; break;
    case 6: name = "not found"; break;
    case 501: name = "invalid flatbuffer"; break;
    case 504: name = "compilation error"; break;
    case 1000: name = "index out of bounds"; break;
  }
  return std::to_string(status) + (name ? std::string(" ") + name : "");
}

std::string ShapeString(const TensorShape& shape) {
  std::string s = "[";
  for (int i = 0; i < shape.rank; ++i) s += (i ? ", " : "") + std::to_string(shape.dims[i]);
  return s + "]";
}

bool SameShape(const TensorShape& a, const TensorShape& b) {
  if (a.rank != b.rank) return false;
  for (int i = 0; i < a.rank; ++i)
    if (a.dims[i] != b.dims[i]) return false;
  return true;
}

TensorShape ShapeOf(const LiteRtLayout& layout) {
  TensorShape shape;
  shape.rank = layout.rank > kMaxRank ? kMaxRank : layout.rank;
  for (int i = 0; i < shape.rank; ++i) shape.dims[i] = layout.dimensions[i];
  return shape;
}

// Payload of the opaque option "xnnpack" (litert_cpu_options.cc: a TOML
// string the CPU accelerator parses).
void DeleteCString(void* p) { delete[] static_cast<char*>(p); }

}  // namespace

size_t ElementSize(DType type) {
  switch (static_cast<int>(type)) {
    case 1: case 2: return 4;
    case 4: return 8;
    case 3: case 6: case 9: return 1;
    case 7: case 10: return 2;
    default: return 0;
  }
}

std::unique_ptr<ModelRunner> ModelRunner::Create(const LiteRtApi* api,
                                                 const void* model, size_t size,
                                                 int num_threads,
                                                 std::string* error) {
  std::unique_ptr<ModelRunner> runner(new ModelRunner(api));
  if (!runner->Open(model, size, num_threads, error)) return nullptr;
  return runner;
}

ModelRunner::~ModelRunner() {
  for (State& state : states_) {
    for (Buffer& b : state.inputs) FreeBuffer(&b);
    for (Buffer& b : state.outputs) FreeBuffer(&b);
  }
  if (compiled_) api_->LiteRtDestroyCompiledModel(compiled_);
  if (options_) api_->LiteRtDestroyOptions(options_);
  if (model_) api_->LiteRtDestroyModel(model_);
  free(aligned_model_);
}

bool ModelRunner::Check(LiteRtStatus status, const char* what, std::string* error) {
  if (OpError(error)) return false;  // the op's own message says more
  if (status == kLiteRtStatusOk) return true;
  *error = std::string(what) + " (LiteRT status " + StatusName(status) + ")";
  return false;
}

bool ModelRunner::OpError(std::string* error) {
  for (auto& op : ops_) {
    std::string e = op->TakeError();
    if (!e.empty()) {
      *error = e;
      return true;
    }
  }
  return false;
}

bool ModelRunner::Open(const void* model, size_t size, int num_threads,
                       std::string* error) {
  if (!model || size < 8) {
    *error = "not a TFLite model (too short)";
    return false;
  }
  if (memcmp(static_cast<const char*>(model) + 4, "TFL3", 4) != 0) {
    *error = "not a TFLite model (no TFL3 identifier)";
    return false;
  }
  if (num_threads < 1) {
    *error = "num_threads must be at least 1, got " + std::to_string(num_threads);
    return false;
  }
  LiteRtEnvironment env = SharedEnvironment(api_, error);
  if (!env) return false;
  if (posix_memalign(&aligned_model_, kLiteRtHostMemoryAlignment, size) != 0) {
    aligned_model_ = nullptr;
    *error = "out of memory copying the model";
    return false;
  }
  memcpy(aligned_model_, model, size);
  model_size_ = size;
  if (api_->LiteRtCreateModelFromBuffer(env, aligned_model_, size, &model_) != kLiteRtStatusOk) {
    model_ = nullptr;
    *error = "not a valid TFLite model (LiteRT cannot read it)";
    return false;
  }
  int count = 0;
  const OpDef* defs = LibraryOps(&count);
  for (int i = 0; i < count; ++i) ops_.emplace_back(new LiteRtOpHost(api_, defs[i]));
  if (!ReadModel(error)) return false;

  if (!Check(api_->LiteRtCreateOptions(&options_), "cannot create LiteRT options", error)) return false;
  if (!Check(api_->LiteRtSetOptionsHardwareAccelerators(options_, kLiteRtHwAcceleratorCpu),
             "cannot select the CPU", error))
    return false;
  const std::string toml = "num_threads = " + std::to_string(num_threads) + "\n";
  char* payload = new char[toml.size() + 1];
  memcpy(payload, toml.c_str(), toml.size() + 1);
  LiteRtOpaqueOptions cpu = nullptr;
  if (api_->LiteRtCreateOpaqueOptions("xnnpack", payload, DeleteCString, &cpu) != kLiteRtStatusOk) {
    delete[] payload;
    *error = "LiteRtCreateOpaqueOptions failed";
    return false;
  }
  if (api_->LiteRtAddOpaqueOptions(options_, cpu) != kLiteRtStatusOk) {
    api_->LiteRtDestroyOpaqueOptions(cpu);
    *error = "LiteRtAddOpaqueOptions failed";
    return false;
  }
  for (auto& op : ops_) {
    if (!Check(op->Register(options_), "cannot register a custom op (LiteRtAddCustomOpKernelOption)", error)) return false;
  }
  LiteRtStatus status = api_->LiteRtCreateCompiledModel(env, model_, options_, &compiled_);
  if (status != kLiteRtStatusOk) compiled_ = nullptr;
  if (!Check(status, "cannot compile the model for the CPU", error))
    return false;
  states_.resize(signatures_.size());
  for (size_t s = 0; s < signatures_.size(); ++s) {
    states_[s].inputs.resize(signatures_[s].inputs.size());
    states_[s].outputs.resize(signatures_[s].outputs.size());
  }
  return true;
}

// Signatures, and the checks on custom ops: each must be ours and appear once.
bool ModelRunner::ReadModel(std::string* error) {
  auto tensor_info = [this](LiteRtTensor tensor, const char* name, TensorInfo* info) {
    int id = -1;
    LiteRtRankedTensorType type;
    if (api_->LiteRtGetTensorTypeId(tensor, &id) != kLiteRtStatusOk || id != kLiteRtRankedTensorType ||
        api_->LiteRtGetRankedTensorType(tensor, &type) != kLiteRtStatusOk)
      return false;
    info->name = name ? name : "";
    info->type = static_cast<DType>(type.element_type);
    info->shape = ShapeOf(type.layout);
    return true;
  };
  LiteRtParamIndex num_subgraphs = 0;
  if (api_->LiteRtGetNumModelSubgraphs(model_, &num_subgraphs) != kLiteRtStatusOk) {
    *error = "cannot read the model's subgraphs";
    return false;
  }
  std::vector<int> nodes(ops_.size(), 0);
  for (LiteRtParamIndex g = 0; g < num_subgraphs; ++g) {
    LiteRtSubgraph subgraph;
    LiteRtParamIndex num_ops = 0;
    if (api_->LiteRtGetModelSubgraph(model_, g, &subgraph) != kLiteRtStatusOk ||
        api_->LiteRtGetNumSubgraphOps(subgraph, &num_ops) != kLiteRtStatusOk) {
      *error = "cannot read the model's operators";
      return false;
    }
    for (LiteRtParamIndex o = 0; o < num_ops; ++o) {
      LiteRtOp op;
      int code = 0;
      const char* custom = nullptr;
      if (api_->LiteRtGetSubgraphOp(subgraph, o, &op) != kLiteRtStatusOk ||
          api_->LiteRtGetOpCode(op, &code) != kLiteRtStatusOk) {
        *error = "cannot read the model's operators";
        return false;
      }
      if (code != kLiteRtOpCodeTflCustom) continue;
      if (api_->LiteRtGetCustomCode(op, &custom) != kLiteRtStatusOk || !custom) custom = "";
      size_t k = 0;
      while (k < ops_.size() && strcmp(ops_[k]->def().name, custom) != 0) ++k;
      if (k == ops_.size()) {
        std::string ours;
        for (auto& h : ops_) ours += (ours.empty() ? "" : ", ") + std::string(h->def().name);
        *error = std::string("the model needs the custom op '") + custom +
                 "', which is not registered (keras-skim provides " + ours + ")";
        return false;
      }
      if (++nodes[k] > 1) {
        *error = std::string("the model holds the custom op ") + custom +
                 " more than once; keras-skim runs one node per custom op";
        return false;
      }
      LiteRtParamIndex n_in = 0, n_out = 0;
      api_->LiteRtGetNumOpInputs(op, &n_in);
      api_->LiteRtGetNumOpOutputs(op, &n_out);
      std::vector<DType> in(n_in), out(n_out);
      for (int pass = 0; pass < 2; ++pass) {
        std::vector<DType>& types = pass ? out : in;
        const char* side = pass ? "output" : "input";
        for (LiteRtParamIndex i = 0; i < types.size(); ++i) {
          LiteRtTensor t;
          TensorInfo info;
          LiteRtStatus st = pass ? api_->LiteRtGetOpOutput(op, i, &t) : api_->LiteRtGetOpInput(op, i, &t);
          if (st != kLiteRtStatusOk || !tensor_info(t, nullptr, &info)) {
            *error = std::string(custom) + ": " + side + " " + std::to_string(i) +
                     " of its node has no ranked type";
            return false;
          }
          types[i] = info.type;
          // What LiteRT's custom-op path refuses only when the model runs
          // (exports of keras-skim before the C API runtime had both).
          for (int k = 0; k < info.shape.rank; ++k) {
            if (info.shape.dims[k] == 0) {
              *error = std::string(custom) + ": " + side + " " + std::to_string(i) + " has shape " +
                       ShapeString(info.shape) +
                       ", and LiteRT cannot pass a tensor with a zero dimension to a custom op "
                       "(re-export the model with this keras-skim)";
              return false;
            }
          }
          LiteRtWeights weights;
          const void* bytes = nullptr;
          size_t size = 0;
          const char* base = static_cast<const char*>(aligned_model_);
          if (api_->LiteRtGetTensorWeights(t, &weights) == kLiteRtStatusOk &&
              api_->LiteRtGetWeightsBytes(weights, &bytes, &size) == kLiteRtStatusOk && size > 0 &&
              static_cast<const char*>(bytes) >= base &&
              static_cast<const char*>(bytes) < base + model_size_ &&
              (static_cast<const char*>(bytes) - base) % kLiteRtHostMemoryAlignment != 0) {
            *error = std::string(custom) + ": the constant " + side + " " + std::to_string(i) +
                     " is not 64-byte aligned in the file, which LiteRT's custom-op path refuses "
                     "(re-export the model with this keras-skim)";
            return false;
          }
        }
      }
      ops_[k]->SetNodeTypes(in, out);
    }
  }
  LiteRtParamIndex num_signatures = 0;
  if (api_->LiteRtGetNumModelSignatures(model_, &num_signatures) != kLiteRtStatusOk) {
    *error = "cannot read the model's signatures";
    return false;
  }
  signatures_.resize(num_signatures);
  for (LiteRtParamIndex s = 0; s < num_signatures; ++s) {
    LiteRtSignature sig;
    const char* key = nullptr;
    LiteRtParamIndex n_in = 0, n_out = 0;
    if (api_->LiteRtGetModelSignature(model_, s, &sig) != kLiteRtStatusOk ||
        api_->LiteRtGetSignatureKey(sig, &key) != kLiteRtStatusOk ||
        api_->LiteRtGetNumSignatureInputs(sig, &n_in) != kLiteRtStatusOk ||
        api_->LiteRtGetNumSignatureOutputs(sig, &n_out) != kLiteRtStatusOk) {
      *error = "cannot read the model's signatures";
      return false;
    }
    Signature& out = signatures_[s];
    out.key = key ? key : "";
    out.inputs.resize(n_in);
    out.outputs.resize(n_out);
    for (LiteRtParamIndex i = 0; i < n_in + n_out; ++i) {
      const bool input = i < n_in;
      const LiteRtParamIndex j = input ? i : i - n_in;
      const char* name = nullptr;
      LiteRtTensor t;
      LiteRtStatus a = input ? api_->LiteRtGetSignatureInputName(sig, j, &name)
                             : api_->LiteRtGetSignatureOutputName(sig, j, &name);
      LiteRtStatus b = input ? api_->LiteRtGetSignatureInputTensorByIndex(sig, j, &t)
                             : api_->LiteRtGetSignatureOutputTensorByIndex(sig, j, &t);
      if (a != kLiteRtStatusOk || b != kLiteRtStatusOk ||
          !tensor_info(t, name, input ? &out.inputs[j] : &out.outputs[j])) {
        *error = "signature '" + out.key + "': a tensor has no ranked type";
        return false;
      }
    }
  }
  return true;
}

int ModelRunner::SignatureIndex(const char* key) const {
  if (!key) return signatures_.empty() ? -1 : 0;
  for (size_t s = 0; s < signatures_.size(); ++s)
    if (signatures_[s].key == key) return (int)s;
  return -1;
}

int ModelRunner::InputIndex(int signature, const char* name) const {
  const auto& v = signatures_[signature].inputs;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name) return (int)i;
  return -1;
}

int ModelRunner::OutputIndex(int signature, const char* name) const {
  const auto& v = signatures_[signature].outputs;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name) return (int)i;
  return -1;
}

bool ModelRunner::MakeBuffer(DType type, const TensorShape& shape, Buffer* buffer,
                             std::string* error) {
  FreeBuffer(buffer);
  LiteRtRankedTensorType t;
  memset(&t, 0, sizeof(t));
  t.element_type = static_cast<int>(type);
  t.layout.rank = shape.rank;
  for (int i = 0; i < shape.rank; ++i) t.layout.dimensions[i] = shape.dims[i];
  const size_t bytes = (size_t)shape.NumElements() * ElementSize(type);
  // LiteRT refuses zero-byte host buffers; one spare element costs nothing.
  const size_t alloc = bytes ? bytes : kLiteRtHostMemoryAlignment;
  if (api_->LiteRtCreateManagedTensorBuffer(SharedEnvironment(api_, error),
                                            kLiteRtTensorBufferTypeHostMemory, &t,
                                            alloc, &buffer->handle) != kLiteRtStatusOk) {
    buffer->handle = nullptr;
    *error = "cannot allocate a " + ShapeString(shape) + " tensor buffer";
    return false;
  }
  buffer->shape = shape;
  return true;
}

void ModelRunner::FreeBuffer(Buffer* buffer) {
  if (buffer->handle) api_->LiteRtDestroyTensorBuffer(buffer->handle);
  buffer->handle = nullptr;
  buffer->host = nullptr;
}

const ModelRunner::TensorInfo* ModelRunner::CheckInput(int signature, int index, DType type,
                                                      const TensorShape& shape,
                                                      std::string* error) const {
  if (signature < 0 || signature >= (int)signatures_.size() || index < 0 ||
      index >= (int)signatures_[signature].inputs.size()) {
    *error = "no such input";
    return nullptr;
  }
  const TensorInfo& info = signatures_[signature].inputs[index];
  if (type != info.type) {
    *error = "input '" + info.name + "' takes " + TypeName(info.type) + ", got " + TypeName(type);
    return nullptr;
  }
  bool positive = shape.rank == info.shape.rank;
  for (int i = 0; positive && i < shape.rank; ++i) positive = shape.dims[i] > 0;
  if (!positive) {
    *error = "input '" + info.name + "' takes rank " + std::to_string(info.shape.rank) +
             " with sizes >= 1, got " + ShapeString(shape);
    return nullptr;
  }
  return &info;
}

bool ModelRunner::ShapeInput(int signature, int index, const TensorInfo& info,
                             const TensorShape& shape, std::string* error) {
  State& state = states_[signature];
  Buffer& buffer = state.inputs[index];
  if (buffer.handle && SameShape(buffer.shape, shape)) return true;
  // LiteRT knows which sizes may change (the model's shape signature);
  // resizing to the current shape is a no-op, and scalars never change.
  int dims[kMaxRank];
  for (int i = 0; i < shape.rank; ++i) dims[i] = shape.dims[i];
  if (shape.rank > 0 &&
      !Check(api_->LiteRtCompiledModelResizeInputTensor(compiled_, signature, index, dims,
                                                        shape.rank),
             ("input '" + info.name + "' cannot take shape " + ShapeString(shape)).c_str(),
             error))
    return false;
  if (!MakeBuffer(info.type, shape, &buffer, error)) return false;
  state.outputs_stale = true;
  // A managed host buffer's memory never moves: mapped once, written at
  // every run without a lock (two LiteRT calls less per input and run).
  if (api_->LiteRtLockTensorBuffer(buffer.handle, &buffer.host, kLiteRtTensorBufferLockModeWrite) !=
      kLiteRtStatusOk) {
    FreeBuffer(&buffer);
    *error = "cannot map input '" + info.name + "'";
    return false;
  }
  api_->LiteRtUnlockTensorBuffer(buffer.handle);
  return true;
}

bool ModelRunner::WriteInput(int signature, int index, const void* data, size_t bytes,
                             size_t total, std::string* error) {
  if (!total) return true;
  char* host = static_cast<char*>(states_[signature].inputs[index].host);
  if (!host) {
    *error = "cannot write input '" + signatures_[signature].inputs[index].name + "'";
    return false;
  }
  memcpy(host, data, bytes);
  if (total > bytes) memset(host + bytes, 0, total - bytes);
  return true;
}

bool ModelRunner::SetInput(int signature, int index, DType type,
                           const TensorShape& shape, const void* data,
                           size_t bytes, std::string* error) {
  const TensorInfo* info = CheckInput(signature, index, type, shape, error);
  if (!info) return false;
  const size_t want = (size_t)shape.NumElements() * ElementSize(type);
  if (bytes != want) {
    *error = "input '" + info->name + "': " + std::to_string(bytes) + " bytes for " +
             std::to_string(want);
    return false;
  }
  return ShapeInput(signature, index, *info, shape, error) &&
         WriteInput(signature, index, data, bytes, bytes, error);
}

bool ModelRunner::SetTokens(int signature, int ids_input, const int32_t* ids, int count,
                            int length, int threshold_input, float threshold,
                            std::string* error) {
  if (!ids || count < 1 || count > length) {
    *error = "token ids: " + std::to_string(count) + " ids for an input of " +
             std::to_string(length) + " (at least one, at most the input's length)";
    return false;
  }
  TensorShape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = length;
  const TensorInfo* info = CheckInput(signature, ids_input, DType::kInt32, shape, error);
  if (!info || !ShapeInput(signature, ids_input, *info, shape, error) ||
      !WriteInput(signature, ids_input, ids, (size_t)count * sizeof(int32_t),
                  (size_t)length * sizeof(int32_t), error))
    return false;
  if (threshold_input < 0) return true;
  return SetInput(signature, threshold_input, DType::kFloat32, TensorShape(), &threshold,
                  sizeof(float), error);
}

bool ModelRunner::RefreshOutputs(int signature, std::string* error) {
  State& state = states_[signature];
  const Signature& sig = signatures_[signature];
  std::vector<LiteRtLayout> layouts(sig.outputs.size());
  if (!Check(api_->LiteRtGetCompiledModelOutputTensorLayouts(
                 compiled_, signature, layouts.size(), layouts.data(), true),
             "cannot prepare the outputs for these input shapes", error))
    return false;
  for (size_t i = 0; i < layouts.size(); ++i) {
    const TensorShape shape = ShapeOf(layouts[i]);
    Buffer& buffer = state.outputs[i];
    if (buffer.handle && SameShape(buffer.shape, shape)) continue;
    ++state.outputs_made;
    if (!MakeBuffer(sig.outputs[i].type, shape, &buffer, error)) return false;
  }
  state.outputs_stale = false;
  return true;
}

bool ModelRunner::Invoke(int signature, std::string* error) {
  if (signature < 0 || signature >= (int)signatures_.size()) {
    *error = "no such signature";
    return false;
  }
  State& state = states_[signature];
  const Signature& sig = signatures_[signature];
  for (size_t i = 0; i < state.inputs.size(); ++i) {
    if (!state.inputs[i].handle) {
      *error = "input '" + sig.inputs[i].name + "' was not set";
      return false;
    }
  }
  if (state.outputs_stale && !RefreshOutputs(signature, error)) return false;
  const size_t n_in = state.inputs.size(), n_out = state.outputs.size();
  state.handles.resize(n_in + n_out);  // allocated by the first run only
  for (size_t i = 0; i < n_in; ++i) state.handles[i] = state.inputs[i].handle;
  for (size_t i = 0; i < n_out; ++i) state.handles[n_in + i] = state.outputs[i].handle;
  return Check(api_->LiteRtRunCompiledModel(compiled_, signature, n_in, state.handles.data(),
                                            n_out, state.handles.data() + n_in),
               "the model failed to run", error);
}

bool ModelRunner::Output(int signature, int index, TensorView* view, std::string* error) {
  if (signature < 0 || signature >= (int)signatures_.size() || index < 0 ||
      index >= (int)signatures_[signature].outputs.size() ||
      !states_[signature].outputs[index].handle) {
    *error = "no such output (or the model has not run)";
    return false;
  }
  const Buffer& buffer = states_[signature].outputs[index];
  const DType type = signatures_[signature].outputs[index].type;
  void* host = nullptr;
  if (api_->LiteRtLockTensorBuffer(buffer.handle, &host, kLiteRtTensorBufferLockModeRead) !=
      kLiteRtStatusOk) {
    *error = "cannot read output '" + signatures_[signature].outputs[index].name + "'";
    return false;
  }
  api_->LiteRtUnlockTensorBuffer(buffer.handle);  // host memory stays mapped
  view->type = type;
  view->shape = buffer.shape;
  view->data = host;
  view->bytes = (size_t)buffer.shape.NumElements() * ElementSize(type);
  return true;
}

}  // namespace keras_skim
