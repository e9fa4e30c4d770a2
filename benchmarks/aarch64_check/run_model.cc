// keras-skim: a command-line runner over keras_skim::ModelRunner (the code
// the Python runtime and the JNI shim use), for the aarch64 check under qemu.
//
//   run_model LIBLITERT MODEL.tflite NUM_THREADS THRESHOLD ID [ID ...]
//
// Prints one JSON object: {"outputs": {name: {"dtype", "shape", "values"}}}
// for the "serving_default" signature, values with 9 significant digits.
// Exit 1 with one line on stderr on any failure.
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "model_runner.h"

using keras_skim::DType;
using keras_skim::TensorShape;
using keras_skim::TensorView;

namespace {

int Fail(const std::string& message) {
  fprintf(stderr, "run_model: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) return Fail("usage: run_model LIBLITERT MODEL NUM_THREADS THRESHOLD ID...");
  std::string error;
  const keras_skim::LiteRtApi* api = keras_skim::LoadLiteRt(argv[1], &error);
  if (!api) return Fail(error);
  FILE* f = fopen(argv[2], "rb");
  if (!f) return Fail(std::string(argv[2]) + ": cannot open");
  std::vector<char> bytes;
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) bytes.insert(bytes.end(), chunk, chunk + got);
  fclose(f);
  auto runner = keras_skim::ModelRunner::Create(api, bytes.data(), bytes.size(), atoi(argv[3]), &error);
  if (!runner) return Fail(std::string(argv[2]) + ": " + error);
  const int sig = runner->SignatureIndex("serving_default");
  if (sig < 0) return Fail("no serving_default signature");
  std::vector<int32_t> ids;
  for (int i = 5; i < argc; ++i) ids.push_back(atoi(argv[i]));
  const float threshold = strtof(argv[4], nullptr);
  TensorShape ids_shape;
  ids_shape.rank = 2;
  ids_shape.dims[0] = 1;
  ids_shape.dims[1] = (int)ids.size();
  const int tok = runner->InputIndex(sig, "token_ids");
  const int thr = runner->InputIndex(sig, "threshold");
  if (tok < 0) return Fail("no token_ids input");
  if (!runner->SetInput(sig, tok, DType::kInt32, ids_shape, ids.data(), ids.size() * 4, &error))
    return Fail(error);
  if (thr >= 0) {
    TensorShape scalar;  // rank 0
    if (!runner->SetInput(sig, thr, DType::kFloat32, scalar, &threshold, 4, &error)) return Fail(error);
  }
  if (!runner->Invoke(sig, &error)) return Fail(error);
  printf("{\"outputs\": {");
  const auto& outputs = runner->signatures()[sig].outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    TensorView v;
    if (!runner->Output(sig, (int)i, &v, &error)) return Fail(error);
    printf("%s\"%s\": {\"dtype\": \"%s\", \"shape\": [", i ? ", " : "", outputs[i].name.c_str(),
           v.type == DType::kFloat32 ? "float32" : v.type == DType::kInt32 ? "int32" : "other");
    for (int k = 0; k < v.shape.rank; ++k) printf("%s%d", k ? ", " : "", v.shape.dims[k]);
    printf("], \"values\": [");
    const int64_t n = v.shape.NumElements();
    for (int64_t k = 0; k < n; ++k) {
      if (v.type == DType::kFloat32)
        printf("%s%.9g", k ? ", " : "", static_cast<const float*>(v.data)[k]);
      else if (v.type == DType::kInt32)
        printf("%s%d", k ? ", " : "", static_cast<const int32_t*>(v.data)[k]);
    }
    printf("]}");
  }
  printf("}}\n");
  return 0;
}
