// keras-skim: hand-written declarations of the part of the LiteRT 2.x C API
// that keras-skim uses, so that nothing links against a LiteRT SDK: every
// function is resolved at run time from libLiteRt.so (litert_library.cc).
//
// Written from the public headers of google-ai-edge/LiteRT (litert/c/*.h at
// tags v2.1.6 and v2.2.0 and the 2.3.0 sources, 2026), which mark these
// structs "part of the public API and ABI stable":
//   litert_common.h        LiteRtStatus, LiteRtHwAccelerators,
//                          LiteRtTensorBufferLockMode, LiteRtParamIndex
//   litert_layout.h        LiteRtLayout (68 bytes; dimensions at 4)
//   litert_model_types.h   LiteRtElementType, LiteRtRankedTensorType (72)
//   litert_custom_op_kernel.h  LiteRtCustomOpKernel
//   litert_tensor_buffer_types.h  kLiteRtTensorBufferTypeHostMemory, the
//                          64-byte host-memory alignment
//   litert_op_code.h       kLiteRtOpCodeTflCustom
//   litert_environment_options.h, litert_any.h  LiteRtEnvOption (24 bytes)
//   options/litert_cpu_options.cc  the CPU options payload: identifier
//                          "xnnpack", a TOML string such as "num_threads = 1"
// Function signatures: litert_environment.h, litert_model.h,
// litert_options.h, litert_opaque_options.h, litert_compiled_model.h,
// litert_tensor_buffer.h. LiteRT before 2.1.6 had other signatures for
// LiteRtCreateModelFromBuffer (no environment) and another CPU options
// payload; litert_library.cc refuses such a library by the absence of
// LiteRtCreateModelFromFd, which arrived with the new signature.
#pragma once
#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef int LiteRtStatus;  // enum in litert_common.h; 0 is kLiteRtStatusOk
enum { kLiteRtStatusOk = 0 };

typedef struct LiteRtEnvironmentT* LiteRtEnvironment;
typedef struct LiteRtModelT* LiteRtModel;
typedef struct LiteRtSubgraphT* LiteRtSubgraph;
typedef struct LiteRtOpT* LiteRtOp;
typedef struct LiteRtTensorT* LiteRtTensor;
typedef struct LiteRtWeightsT* LiteRtWeights;
typedef struct LiteRtSignatureT* LiteRtSignature;
typedef struct LiteRtOptionsT* LiteRtOptions;
typedef struct LiteRtOpaqueOptionsT* LiteRtOpaqueOptions;
typedef struct LiteRtCompiledModelT* LiteRtCompiledModel;
typedef struct LiteRtTensorBufferT* LiteRtTensorBuffer;
typedef size_t LiteRtParamIndex;

enum { kLiteRtTensorMaxRank = 8 };  // LITERT_TENSOR_MAX_RANK
enum { kLiteRtHostMemoryAlignment = 64 };  // LITERT_HOST_MEMORY_BUFFER_ALIGNMENT

typedef struct {
  unsigned int rank : 7;
  unsigned int has_strides : 1;
  int32_t dimensions[kLiteRtTensorMaxRank];  // < 0: dynamic
  uint32_t strides[kLiteRtTensorMaxRank];
} LiteRtLayout;

// LiteRtElementType numbers are TfLiteType's (litert_model_types.h).
enum {
  kLiteRtElementTypeFloat32 = 1,
  kLiteRtElementTypeInt32 = 2,
  kLiteRtElementTypeUInt8 = 3,
  kLiteRtElementTypeInt64 = 4,
  kLiteRtElementTypeBool = 6,
  kLiteRtElementTypeInt16 = 7,
  kLiteRtElementTypeInt8 = 9,
  kLiteRtElementTypeFloat16 = 10,
};

typedef struct {
  int element_type;  // LiteRtElementType
  LiteRtLayout layout;
} LiteRtRankedTensorType;

enum { kLiteRtRankedTensorType = 0 };  // LiteRtTensorTypeId
enum { kLiteRtOpCodeTflCustom = 32 };
enum { kLiteRtHwAcceleratorCpu = 1 };
enum { kLiteRtTensorBufferTypeHostMemory = 1 };
enum {
  kLiteRtTensorBufferLockModeRead = 0,
  kLiteRtTensorBufferLockModeWrite = 1,
};

enum { kLiteRtAnyTypeInt = 2 };  // LiteRtAnyType
enum { kLiteRtEnvOptionTagMinLoggerSeverity = 25 };  // LiteRtEnvOptionTag

typedef struct {
  int type;  // LiteRtAnyType
  union {
    bool bool_value;
    int64_t int_value;
    double real_value;
    const char* str_value;
    const void* ptr_value;
  };
} LiteRtAny;

typedef struct {
  int tag;  // LiteRtEnvOptionTag
  LiteRtAny value;
} LiteRtEnvOption;

typedef struct {
  LiteRtStatus (*Init)(void* user_data, const void* init_data,
                       size_t init_data_size);
  LiteRtStatus (*GetOutputLayouts)(void* user_data, size_t num_inputs,
                                   const LiteRtLayout* input_layouts,
                                   size_t num_outputs,
                                   LiteRtLayout* output_layouts);
  LiteRtStatus (*Run)(void* user_data, size_t num_inputs,
                      const LiteRtTensorBuffer* inputs, size_t num_outputs,
                      LiteRtTensorBuffer* outputs);
  LiteRtStatus (*Destroy)(void* user_data);
} LiteRtCustomOpKernel;

#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
static_assert(sizeof(LiteRtLayout) == 68, "LiteRtLayout ABI");
static_assert(offsetof(LiteRtLayout, dimensions) == 4, "LiteRtLayout ABI");
static_assert(sizeof(LiteRtRankedTensorType) == 72, "LiteRtRankedTensorType ABI");
static_assert(sizeof(LiteRtEnvOption) == 24, "LiteRtEnvOption ABI");
#endif

}  // extern "C"
