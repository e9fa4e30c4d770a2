// Minimal, hand-written declarations of the TFLite/LiteRT kernel C ABI
// (the "semi-ABI-stable" structs of tensorflow/lite/core/c/common.h).
// Written for keras-skim from the public field lists; only the fields this op
// touches (and everything that precedes them in memory) are declared.
// Rule used by TFLite: fields are only ever appended, never reordered, so a
// prefix declaration stays valid across versions. We never depend on
// sizeof(TfLiteTensor) (tensors are fetched through context->GetTensor) and we
// hand AddCustom an over-sized, zero-padded TfLiteRegistration.
#pragma once
#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef enum { kTfLiteOk = 0, kTfLiteError = 1 } TfLiteStatus;
typedef enum { kTfLiteNoType = 0, kTfLiteFloat32 = 1, kTfLiteInt32 = 2 } TfLiteTypeLite;

typedef struct TfLiteIntArray { int size; int data[]; } TfLiteIntArray;

// Full (non-TF_LITE_STATIC_MEMORY) layout: the interpreter's context->tensors
// is a plain array of these, so sizeof() matters (112 bytes on LP64 since
// dims_signature was appended in TF 2.2; unchanged through TF 2.21 / LiteRT 2.3).
typedef struct TfLiteTensor {
  int type;                            // TfLiteType
  void* data;                          // TfLitePtrUnion
  TfLiteIntArray* dims;
  struct { float scale; int32_t zero_point; } params;
  int allocation_type;
  size_t bytes;
  const void* allocation;
  const char* name;
  void* delegate;
  int buffer_handle;
  bool data_is_stale;
  bool is_variable;
  struct { int type; void* params; } quantization;
  void* sparsity;
  const TfLiteIntArray* dims_signature;
} TfLiteTensor;
static_assert(sizeof(void*) != 8 || sizeof(TfLiteTensor) == 112, "TfLiteTensor ABI");

typedef struct TfLiteNode {            // prefix only
  TfLiteIntArray* inputs;
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  TfLiteIntArray* temporaries;
  void* user_data;
  void* builtin_data;
  const void* custom_initial_data;
  int custom_initial_data_size;
} TfLiteNode;

struct TfLiteContext;
typedef void* FnPtr;
typedef struct TfLiteContext {         // prefix up to GetTensor
  size_t tensors_size;
  FnPtr GetExecutionPlan;
  TfLiteTensor* tensors;
  void* impl_;
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor*, TfLiteIntArray*);
  void (*ReportError)(struct TfLiteContext*, const char* msg, ...);
  FnPtr AddTensors;
  FnPtr GetNodeAndRegistration;
  FnPtr ReplaceNodeSubsetsWithDelegateKernels;
  int recommended_num_threads;
  FnPtr GetExternalContext;
  FnPtr SetExternalContext;
  bool allow_fp32_relax_to_fp16;
  void* profiler;
  FnPtr AllocatePersistentBuffer;
  FnPtr AllocateBufferForEval;
  FnPtr RequestScratchBufferInArena;
  FnPtr GetScratchBuffer;
  FnPtr ResizeTensorExplicit;
  FnPtr PreviewDelegatePartitioning;
  // NULL in the TFLite/LiteRT interpreter (only TFLM sets it): use tensors[].
  TfLiteTensor* (*GetTensor)(const struct TfLiteContext*, int tensor_idx);
} TfLiteContext;

typedef struct TfLiteRegistration {
  void* (*init)(TfLiteContext*, const char* buffer, size_t length);
  void (*free)(TfLiteContext*, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext*, TfLiteNode*);
  TfLiteStatus (*invoke)(TfLiteContext*, TfLiteNode*);
  const char* (*profiling_string)(const TfLiteContext*, const TfLiteNode*);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  void* registration_external;
  void* async_kernel;
  uint64_t inplace_operator;
} TfLiteRegistration;

}  // extern "C"
