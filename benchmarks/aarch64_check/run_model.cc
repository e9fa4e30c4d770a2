// keras-skim: a command-line runner over keras_skim::ModelRunner (the code
// the Python runtime and the JNI shim use), for the aarch64 check under qemu
// (aarch64_check.py).
//
//   run_model LIBLITERT MODEL.tflite NUM_THREADS < requests
//
// Each request line is "THRESHOLD ID ID ..."; each answer is one JSON line
// {"logits": [...], "read_mask": [...], "read_count": [...]} of the
// "serving_default" signature (floats with 9 significant digits), or
// {"error": "..."}. Failing to open the model: one line on stderr, exit 1.
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "runner/model_runner.h"

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
  if (argc != 4) return Fail("usage: run_model LIBLITERT MODEL NUM_THREADS < requests");
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
  const int tok = sig < 0 ? -1 : runner->InputIndex(sig, "token_ids");
  const int thr = sig < 0 ? -1 : runner->InputIndex(sig, "threshold");
  if (tok < 0) return Fail("no serving_default signature with a token_ids input");
  const auto& outputs = runner->signatures()[sig].outputs;
  char line[1 << 16];
  while (fgets(line, sizeof(line), stdin)) {
    char* cursor = line;
    const float threshold = strtof(cursor, &cursor);
    std::vector<int32_t> ids;
    for (;;) {
      char* end = nullptr;
      long id = strtol(cursor, &end, 10);
      if (end == cursor) break;
      ids.push_back((int32_t)id);
      cursor = end;
    }
    TensorShape ids_shape;
    ids_shape.rank = 2;
    ids_shape.dims[0] = 1;
    ids_shape.dims[1] = (int)ids.size();
    TensorShape scalar;  // rank 0
    bool ok = runner->SetInput(sig, tok, DType::kInt32, ids_shape, ids.data(), ids.size() * 4, &error) &&
              (thr < 0 || runner->SetInput(sig, thr, DType::kFloat32, scalar, &threshold, 4, &error)) &&
              runner->Invoke(sig, &error);
    std::string out = "{";
    for (size_t i = 0; ok && i < outputs.size(); ++i) {
      TensorView v;
      if (!(ok = runner->Output(sig, (int)i, &v, &error))) break;
      out += (i ? ", \"" : "\"") + outputs[i].name + "\": [";
      char number[32];
      for (int64_t k = 0; k < v.shape.NumElements(); ++k) {
        if (v.type == DType::kFloat32)
          snprintf(number, sizeof(number), "%.9g", static_cast<const float*>(v.data)[k]);
        else if (v.type == DType::kInt32)
          snprintf(number, sizeof(number), "%d", static_cast<const int32_t*>(v.data)[k]);
        else
          snprintf(number, sizeof(number), "null");
        out += (k ? ", " : "") + std::string(number);
      }
      out += "]";
    }
    if (!ok) out = "{\"error\": \"" + error + "\"";  // our messages hold no quotes to escape
    printf("%s}\n", out.c_str());
    fflush(stdout);
  }
  return 0;
}
