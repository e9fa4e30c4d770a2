// keras-skim: runs a .tflite through the LiteRT 2.x C API (a compiled model
// on the CPU, XNNPACK with `num_threads` threads) with every op of
// LibraryOps() registered. The Python runtime (ctypes over keras_skim_c.cc,
// for models with custom ops), the desktop JVM and Android JNI shim (every
// model) and the aarch64 check all go through this class.
#pragma once
#include <stddef.h>

#include <memory>
#include <string>
#include <vector>

#include "../kernels/op_kernel.h"
#include "../litert/litert_library.h"
#include "../litert/litert_op_adapter.h"

namespace keras_skim {

// Bytes of one element of `type`; 0 for types keras-skim does not pass.
size_t ElementSize(DType type);

class ModelRunner {
 public:
  struct TensorInfo {
    std::string name;
    DType type;
    TensorShape shape;  // as the model declares it; -1 = dynamic
  };
  struct Signature {
    std::string key;
    std::vector<TensorInfo> inputs, outputs;
  };

  // Opens a model: copies the bytes into 64-byte-aligned memory (LiteRT
  // refuses unaligned constant tensors on its custom-op path), checks that
  // every custom op it names is one of LibraryOps(), appears once and has
  // tensors LiteRT can hand it (aligned, no zero dimension), and compiles it
  // for the CPU. Errors (one line) surface here, never at the
  // first run.
  static std::unique_ptr<ModelRunner> Create(const LiteRtApi* api,
                                             const void* model, size_t size,
                                             int num_threads,
                                             std::string* error);
  ~ModelRunner();
  ModelRunner(const ModelRunner&) = delete;
  ModelRunner& operator=(const ModelRunner&) = delete;

  const std::vector<Signature>& signatures() const { return signatures_; }
  // Index of the signature `key` (the first one when key is null); -1 if none.
  int SignatureIndex(const char* key) const;
  // Index of a signature's input / output by name; -1 if none.
  int InputIndex(int signature, const char* name) const;
  int OutputIndex(int signature, const char* name) const;

  // Copies `data` into an input, resizing the input when `shape` differs
  // from its current one.
  bool SetInput(int signature, int index, DType type, const TensorShape& shape,
                const void* data, size_t bytes, std::string* error);
  // Runs the signature on the inputs set so far (each must have been set).
  bool Invoke(int signature, std::string* error);
  // An output of the last Invoke of `signature`; `view->data` points into the
  // runner's memory and stays valid until the next SetInput, Invoke or the
  // runner's end.
  bool Output(int signature, int index, TensorView* view, std::string* error);
  // Sets the int32 input `ids_input` of shape [1, length] to `count` token
  // ids followed by padding (id 0) up to `length`, and the float32 scalar
  // input `threshold_input` (none when -1) to `threshold`: the inputs of a
  // text written in place, without a caller's padded copy. 0 < count <=
  // length; the input is resized only when `length` differs from its shape.
  bool SetTokens(int signature, int ids_input, const int32_t* ids, int count,
                 int length, int threshold_input, float threshold,
                 std::string* error);
  // A count that changes whenever an output buffer of `signature` is made
  // anew (its data moved, its shape changed): a caller that keeps views of
  // the outputs (Output) makes them again only then.
  uint64_t OutputGeneration(int signature) const { return states_[signature].outputs_made; }

 private:
  struct Buffer {
    LiteRtTensorBuffer handle = nullptr;
    TensorShape shape;
    void* host = nullptr;  // an input's memory, mapped once when it is made
  };
  struct State {
    std::vector<Buffer> inputs, outputs;
    std::vector<LiteRtTensorBuffer> handles;  // inputs then outputs, as a run passes them
    bool outputs_stale = true;
    uint64_t outputs_made = 0;
  };

  explicit ModelRunner(const LiteRtApi* api) : api_(api) {}
  bool Open(const void* model, size_t size, int num_threads, std::string* error);
  bool ReadModel(std::string* error);
  bool Check(LiteRtStatus status, const char* what, std::string* error);
  bool OpError(std::string* error);
  bool MakeBuffer(DType type, const TensorShape& shape, Buffer* buffer,
                  std::string* error);
  void FreeBuffer(Buffer* buffer);
  // The input's description when `type` and `shape` (sizes >= 1) fit it;
  // null with `error` set otherwise.
  const TensorInfo* CheckInput(int signature, int index, DType type,
                               const TensorShape& shape, std::string* error) const;
  // Gives a checked input a buffer of `shape`, resizing the model's input
  // when the shape changed.
  bool ShapeInput(int signature, int index, const TensorInfo& info,
                  const TensorShape& shape, std::string* error);
  // Copies `bytes` bytes of `data` into an input's buffer and fills the rest
  // of it (`total` bytes) with zeros.
  bool WriteInput(int signature, int index, const void* data, size_t bytes,
                  size_t total, std::string* error);
  bool RefreshOutputs(int signature, std::string* error);

  const LiteRtApi* api_;
  void* aligned_model_ = nullptr;
  size_t model_size_ = 0;
  LiteRtModel model_ = nullptr;
  LiteRtOptions options_ = nullptr;
  LiteRtCompiledModel compiled_ = nullptr;
  std::vector<std::unique_ptr<LiteRtOpHost>> ops_;
  std::vector<Signature> signatures_;
  std::vector<State> states_;
};

}  // namespace keras_skim
