// keras-skim: the seam between our custom ops and the runtimes that host them.
//
// An op is written once against this header, free of LiteRT/TFLite types:
// it sees its inputs and outputs as `TensorView`s. Each runtime has a thin
// adapter that turns its own tensors into views and calls the op: the
// LiteRT C API (Python runtime, the desktop JVM shim and the Android app)
// and, while it lasts, the TfLite op-resolver path of the Python wheel.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <string>

namespace keras_skim {

// Element types, numbered as TfLiteType / LiteRtElementType number them, so
// adapters can pass the runtime's code through unchanged.
enum class DType : int { kFloat32 = 1, kInt32 = 2, kInt8 = 9 };

constexpr int kMaxRank = 8;

struct TensorShape {
  int rank = 0;
  int dims[kMaxRank] = {0};
  int64_t NumElements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
};

struct TensorView {
  DType type = DType::kFloat32;
  TensorShape shape;
  void* data = nullptr;  // null while only shapes are known
  size_t bytes = 0;
};

// One instance per op node. Not thread-safe: a runtime runs a node from one
// thread at a time.
class OpKernel {
 public:
  virtual ~OpKernel() = default;

  // Checks the inputs' types and shapes (data may be null) and sets each
  // output's type and shape. On failure returns false and says why in
  // `error` (one line, starting with the op name).
  virtual bool InferOutputs(int num_inputs, const TensorView* inputs,
                            int num_outputs, TensorView* outputs,
                            std::string* error) = 0;

  // Computes the outputs, which have the shapes InferOutputs gave. Work that
  // depends only on constant inputs (weight packing) may be cached here on
  // the first call: a node's constant inputs keep their data pointer.
  virtual bool Run(int num_inputs, const TensorView* inputs, int num_outputs,
                   TensorView* outputs, std::string* error) = 0;
};

// The ops this library provides, for adapters that register all of them.
struct OpDef {
  const char* name;
  int version;
  // `options`: the node's custom options bytes (may be null / 0).
  OpKernel* (*create)(const void* options, size_t options_size);
};

// All ops of the library; `*count` receives their number.
const OpDef* LibraryOps(int* count);

}  // namespace keras_skim
