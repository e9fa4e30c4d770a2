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

#define KERAS_SKIM_C_API_VERSION 3

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

// One tensor passed in or out: element type (TfLiteType numbering), rank,
// dims, data and its size in bytes.
typedef struct {
  int32_t type;
  int32_t rank;
  int32_t dims[8];
  const void* data;
  size_t bytes;
} KerasSkimTensor;

// One call per run: copies `inputs` in (all of the signature's, in its
// order; each input is resized when its shape changed), runs when `invoke`,
// and describes the outputs of the last run in `outputs` (their data stays
// valid until the next call or KerasSkim_ModelDestroy). `inputs` or
// `outputs` may be NULL (0 tensors) to do only part of it. Returns 1 when
// the inputs are refused, 2 when the run or reading the outputs fails.
int KerasSkim_Run(KerasSkimModel* model, int signature, const KerasSkimTensor* inputs,
                  int num_inputs, int invoke, KerasSkimTensor* outputs, int num_outputs,
                  char* error, size_t error_size);

// The per-text path of the Python runtime: one text of token ids in one call
// of few arguments, nothing else converted or described per text.
typedef struct KerasSkimTokenCall KerasSkimTokenCall;

// A token call of signature `signature`, whose inputs must be the int32 ids
// `ids_input` [1, T] and, unless `threshold_input` is -1, the float32 scalar
// `threshold_input`. Owned by the model (freed by KerasSkim_ModelDestroy).
// NULL on failure.
KerasSkimTokenCall* KerasSkim_TokenCallCreate(KerasSkimModel* model, int signature, int ids_input,
                                              int threshold_input, char* error, size_t error_size);
// Writes `count` ids followed by padding (id 0) up to `length` into the ids
// input (0 < count <= length; the input is resized only when `length`
// differs from its shape), sets the threshold to *threshold, and runs.
// Returns 0 when the outputs lie where the call's last description
// (KerasSkim_TokenCallOutputs) put them, 3 when they were made anew since
// (describe them again), 1 when the inputs are refused and 2 when the run
// fails (KerasSkim_TokenCallError says why).
int KerasSkim_TokenCallRun(KerasSkimTokenCall* call, const int32_t* ids, int count, int length,
                           const float* threshold);
// The last run's failure, one line ("" after a run that succeeded).
const char* KerasSkim_TokenCallError(const KerasSkimTokenCall* call);
// Describes the outputs of the last run, as KerasSkim_Run does.
int KerasSkim_TokenCallOutputs(KerasSkimTokenCall* call, KerasSkimTensor* outputs, int num_outputs,
                               char* error, size_t error_size);

#ifdef __cplusplus
}  // extern "C"
#endif
