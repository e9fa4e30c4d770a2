// keras-skim: the LiteRT 2.x C API, resolved at run time from libLiteRt.so
// with dlopen/dlsym (declarations in litert_c_abi.h). Nothing links against
// a LiteRT SDK, so the same sources build for Python (g++), the desktop JVM
// shim and Android (the app's LiteRT AAR ships libLiteRt.so).
#pragma once
#include <string>

#include "litert_c_abi.h"

namespace keras_skim {

// X(name, return type, parameter list): every function keras-skim calls.
#define KERAS_SKIM_LITERT_FUNCTIONS(X)                                        \
  X(LiteRtCreateEnvironment, LiteRtStatus,                                    \
    (int, const LiteRtEnvOption*, LiteRtEnvironment*))                        \
  X(LiteRtCreateModelFromBuffer, LiteRtStatus,                                \
    (LiteRtEnvironment, const void*, size_t, LiteRtModel*))                   \
  X(LiteRtDestroyModel, void, (LiteRtModel))                                  \
  X(LiteRtGetNumModelSubgraphs, LiteRtStatus, (LiteRtModel, LiteRtParamIndex*)) \
  X(LiteRtGetModelSubgraph, LiteRtStatus,                                     \
    (LiteRtModel, LiteRtParamIndex, LiteRtSubgraph*))                         \
  X(LiteRtGetNumSubgraphOps, LiteRtStatus, (LiteRtSubgraph, LiteRtParamIndex*)) \
  X(LiteRtGetSubgraphOp, LiteRtStatus, (LiteRtSubgraph, LiteRtParamIndex, LiteRtOp*)) \
  X(LiteRtGetOpCode, LiteRtStatus, (LiteRtOp, int*))                          \
  X(LiteRtGetCustomCode, LiteRtStatus, (LiteRtOp, const char**))              \
  X(LiteRtGetNumOpInputs, LiteRtStatus, (LiteRtOp, LiteRtParamIndex*))        \
  X(LiteRtGetOpInput, LiteRtStatus, (LiteRtOp, LiteRtParamIndex, LiteRtTensor*)) \
  X(LiteRtGetNumOpOutputs, LiteRtStatus, (LiteRtOp, LiteRtParamIndex*))       \
  X(LiteRtGetOpOutput, LiteRtStatus, (LiteRtOp, LiteRtParamIndex, LiteRtTensor*)) \
  X(LiteRtGetTensorTypeId, LiteRtStatus, (LiteRtTensor, int*))                \
  X(LiteRtGetRankedTensorType, LiteRtStatus, (LiteRtTensor, LiteRtRankedTensorType*)) \
  X(LiteRtGetTensorWeights, LiteRtStatus, (LiteRtTensor, LiteRtWeights*))    \
  X(LiteRtGetWeightsBytes, LiteRtStatus, (LiteRtWeights, const void**, size_t*)) \
  X(LiteRtGetNumModelSignatures, LiteRtStatus, (LiteRtModel, LiteRtParamIndex*)) \
  X(LiteRtGetModelSignature, LiteRtStatus,                                    \
    (LiteRtModel, LiteRtParamIndex, LiteRtSignature*))                        \
  X(LiteRtGetSignatureKey, LiteRtStatus, (LiteRtSignature, const char**))     \
  X(LiteRtGetNumSignatureInputs, LiteRtStatus, (LiteRtSignature, LiteRtParamIndex*)) \
  X(LiteRtGetSignatureInputName, LiteRtStatus,                                \
    (LiteRtSignature, LiteRtParamIndex, const char**))                        \
  X(LiteRtGetSignatureInputTensorByIndex, LiteRtStatus,                       \
    (LiteRtSignature, LiteRtParamIndex, LiteRtTensor*))                       \
  X(LiteRtGetNumSignatureOutputs, LiteRtStatus, (LiteRtSignature, LiteRtParamIndex*)) \
  X(LiteRtGetSignatureOutputName, LiteRtStatus,                               \
    (LiteRtSignature, LiteRtParamIndex, const char**))                        \
  X(LiteRtGetSignatureOutputTensorByIndex, LiteRtStatus,                      \
    (LiteRtSignature, LiteRtParamIndex, LiteRtTensor*))                       \
  X(LiteRtCreateOptions, LiteRtStatus, (LiteRtOptions*))                      \
  X(LiteRtDestroyOptions, void, (LiteRtOptions))                              \
  X(LiteRtSetOptionsHardwareAccelerators, LiteRtStatus, (LiteRtOptions, int)) \
  X(LiteRtCreateOpaqueOptions, LiteRtStatus,                                  \
    (const char*, void*, void (*)(void*), LiteRtOpaqueOptions*))              \
  X(LiteRtDestroyOpaqueOptions, void, (LiteRtOpaqueOptions))                  \
  X(LiteRtAddOpaqueOptions, LiteRtStatus, (LiteRtOptions, LiteRtOpaqueOptions)) \
  X(LiteRtAddCustomOpKernelOption, LiteRtStatus,                              \
    (LiteRtOptions, const char*, int, const LiteRtCustomOpKernel*, void*))    \
  X(LiteRtCreateCompiledModel, LiteRtStatus,                                  \
    (LiteRtEnvironment, LiteRtModel, LiteRtOptions, LiteRtCompiledModel*))    \
  X(LiteRtDestroyCompiledModel, void, (LiteRtCompiledModel))                  \
  X(LiteRtCompiledModelResizeInputTensor, LiteRtStatus,                       \
    (LiteRtCompiledModel, LiteRtParamIndex, LiteRtParamIndex, const int*, size_t)) \
  X(LiteRtGetCompiledModelOutputTensorLayouts, LiteRtStatus,                  \
    (LiteRtCompiledModel, LiteRtParamIndex, size_t, LiteRtLayout*, bool))     \
  X(LiteRtRunCompiledModel, LiteRtStatus,                                     \
    (LiteRtCompiledModel, LiteRtParamIndex, size_t, LiteRtTensorBuffer*,      \
     size_t, LiteRtTensorBuffer*))                                            \
  X(LiteRtCreateManagedTensorBuffer, LiteRtStatus,                            \
    (LiteRtEnvironment, int, const LiteRtRankedTensorType*, size_t,           \
     LiteRtTensorBuffer*))                                                    \
  X(LiteRtDestroyTensorBuffer, void, (LiteRtTensorBuffer))                    \
  X(LiteRtGetTensorBufferTensorType, LiteRtStatus,                            \
    (LiteRtTensorBuffer, LiteRtRankedTensorType*))                            \
  X(LiteRtGetTensorBufferPackedSize, LiteRtStatus, (LiteRtTensorBuffer, size_t*)) \
  X(LiteRtLockTensorBuffer, LiteRtStatus, (LiteRtTensorBuffer, void**, int))  \
  X(LiteRtUnlockTensorBuffer, LiteRtStatus, (LiteRtTensorBuffer))

// Present since the LiteRtCreateModelFromBuffer(environment, ...) signature
// and the TOML CPU options (LiteRT 2.1.6); never called.
#define KERAS_SKIM_LITERT_VERSION_MARKER "LiteRtCreateModelFromFd"

struct LiteRtApi {
#define KERAS_SKIM_POINTER(name, ret, args) ret(*name) args = nullptr;
  KERAS_SKIM_LITERT_FUNCTIONS(KERAS_SKIM_POINTER)
#undef KERAS_SKIM_POINTER
  std::string path;  // the library that was loaded
};

// Loads the LiteRT C library once per process (thread-safe) and resolves
// every function above. `path`: a file path, or a bare name the dynamic
// loader searches for ("libLiteRt.so" when null or empty; that is how an
// Android app finds the library its LiteRT AAR ships). Later calls return
// the same table whatever their `path`; a failed load is retried by the
// next call. On failure returns null and sets `error` to one line.
const LiteRtApi* LoadLiteRt(const char* path, std::string* error);

}  // namespace keras_skim
