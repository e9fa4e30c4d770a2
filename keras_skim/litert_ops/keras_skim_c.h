// keras-skim: a small C interface over ModelRunner, for callers that cannot
// use C++ (Python's ctypes: keras_skim/runtime/litert_runner.py). Every
// function that can fail returns 0 on success and otherwise writes one line
// into `error` (`error_size` bytes, NUL-terminated).
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KERAS_SKIM_C_API_VERSION 1

typedef struct KerasSkimModel KerasSkimModel;

// Version of this interface (KERAS_SKIM_C_API_VERSION).
int KerasSkim_ApiVersion(void);

// Loads the LiteRT C library (a path, or NULL for "libLiteRt.so"); once per
// process, see LoadLiteRt in litert_library.h. The loaded path is written to
// `loaded` (may be NULL).
int KerasSkim_LoadLiteRt(const char* path, char* loaded, size_t loaded_size,
                         char* error, size_t error_size);

// Number of ops this library registers, and their names.
int KerasSkim_NumOps(void);
const char* KerasSkim_OpName(int index);

// Opens a model (bytes are copied). NULL on failure. Needs KerasSkim_LoadLiteRt.
KerasSkimModel* KerasSkim_ModelCreate(const void* data, size_t size, int num_threads,
                                      char* error, size_t error_size);
void KerasSkim_ModelDestroy(KerasSkimModel* model);

int KerasSkim_NumSignatures(const KerasSkimModel* model);
const char* KerasSkim_SignatureKey(const KerasSkimModel* model, int signature);
// Counts and descriptions of a signature's inputs (is_input = 1) or outputs.
int KerasSkim_NumTensors(const KerasSkimModel* model, int signature, int is_input);
// Name, element type (TfLiteType numbering), rank and declared dims (-1 dynamic).
const char* KerasSkim_TensorInfo(const KerasSkimModel* model, int signature, int is_input,
                                 int index, int* type, int* rank, int32_t* dims);

int KerasSkim_SetInput(KerasSkimModel* model, int signature, int index, int type,
                       int rank, const int32_t* dims, const void* data, size_t bytes,
                       char* error, size_t error_size);
int KerasSkim_Invoke(KerasSkimModel* model, int signature, char* error, size_t error_size);
// An output of the last invoke: its type, rank, dims (8 ints), a pointer to its
// data (valid until the next SetInput / Invoke / Destroy) and its size.
int KerasSkim_GetOutput(KerasSkimModel* model, int signature, int index, int* type,
                        int* rank, int32_t* dims, const void** data, size_t* bytes,
                        char* error, size_t error_size);

#ifdef __cplusplus
}  // extern "C"
#endif
