// keras-skim: the JNI shim behind org.kerasskim.demo.core.NativeModel.
//
// It runs a .tflite through keras_skim::ModelRunner (keras_skim/litert_ops/,
// built in place by CMakeLists.txt): the LiteRT 2.x C API, resolved at run
// time from libLiteRt.so (the app's LiteRT AAR ships it; on a desktop JVM,
// NativeLibrary.setLiteRtPath or $KERAS_SKIM_LITERT_LIB names it), with every
// keras-skim custom op registered. The same code serves Python's runtime.
//
// Model contract (keras_skim export folders): signature "serving_default"
// (else the first one), inputs token_ids int32 [1, T] and, when present,
// threshold float32 []; outputs logits, and when present read_mask [1, T]
// and read_count [1]. Every failure is a ModelException with one line.
#include <jni.h>
#include <math.h>
#include <stdlib.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runner/model_runner.h"

namespace {

using keras_skim::DType;
using keras_skim::ModelRunner;
using keras_skim::TensorShape;
using keras_skim::TensorView;

jclass g_exception = nullptr;    // org.kerasskim.demo.core.ModelException
jclass g_result = nullptr;       // org.kerasskim.demo.core.RunResult
jmethodID g_result_init = nullptr;

struct Model {
  std::unique_ptr<ModelRunner> runner;
  int signature = 0;
  int ids = -1, threshold = -1;             // inputs
  int logits = -1, mask = -1, count = -1;   // outputs
  std::vector<int32_t> ids_buffer;          // the ids of a run, kept between runs
};

void Throw(JNIEnv* env, const std::string& message) {
  if (!env->ExceptionCheck()) env->ThrowNew(g_exception, message.c_str());
}

std::string JavaString(JNIEnv* env, jstring s) {
  if (!s) return "";
  const char* chars = env->GetStringUTFChars(s, nullptr);
  std::string out = chars ? chars : "";
  if (chars) env->ReleaseStringUTFChars(s, chars);
  return out;
}

// Element `i` of a numeric view as a double.
double ValueAt(const TensorView& v, int64_t i) {
  switch (v.type) {
    case DType::kFloat32: return static_cast<const float*>(v.data)[i];
    case DType::kInt32: return static_cast<const int32_t*>(v.data)[i];
    case DType::kInt8: return static_cast<const int8_t*>(v.data)[i];
  }
  return NAN;
}

bool Numeric(const TensorView& v) {
  return v.type == DType::kFloat32 || v.type == DType::kInt32 || v.type == DType::kInt8;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNI_OnLoad(JavaVM* vm, void*) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
  jclass exception = env->FindClass("org/kerasskim/demo/core/ModelException");
  jclass result = env->FindClass("org/kerasskim/demo/core/RunResult");
  if (!exception || !result) return JNI_ERR;
  g_exception = static_cast<jclass>(env->NewGlobalRef(exception));
  g_result = static_cast<jclass>(env->NewGlobalRef(result));
  g_result_init = env->GetMethodID(g_result, "<init>", "([F[IIJ)V");
  return g_result_init ? JNI_VERSION_1_6 : JNI_ERR;
}

JNIEXPORT jlong JNICALL Java_org_kerasskim_demo_core_NativeModel_nativeLoad(
    JNIEnv* env, jclass, jobject direct, jbyteArray bytes, jint offset, jint length,
    jint num_threads, jstring litert_path) {
  std::string path = JavaString(env, litert_path);
  if (path.empty()) {
    const char* from_env = getenv("KERAS_SKIM_LITERT_LIB");
    if (from_env) path = from_env;
  }
  std::string error;
  const keras_skim::LiteRtApi* api = keras_skim::LoadLiteRt(path.c_str(), &error);
  if (!api) return Throw(env, error), 0;

  std::vector<char> copy;  // heap buffers: the runner copies into aligned memory anyway
  const char* data = nullptr;
  if (direct) {
    data = static_cast<const char*>(env->GetDirectBufferAddress(direct));
    if (!data) return Throw(env, "the model ByteBuffer is not a direct buffer"), 0;
    data += offset;
  } else if (bytes) {
    copy.resize(length);
    env->GetByteArrayRegion(bytes, offset, length, reinterpret_cast<jbyte*>(copy.data()));
    if (env->ExceptionCheck()) return 0;
    data = copy.data();
  }
  if (!data || length <= 0) return Throw(env, "the model buffer is empty"), 0;

  auto model = std::make_unique<Model>();
  model->runner = ModelRunner::Create(api, data, (size_t)length, num_threads, &error);
  if (!model->runner) return Throw(env, error), 0;
  ModelRunner& r = *model->runner;
  model->signature = r.SignatureIndex("serving_default");
  if (model->signature < 0) model->signature = r.SignatureIndex(nullptr);
  if (model->signature < 0) return Throw(env, "the model has no signature"), 0;
  const int s = model->signature;
  model->ids = r.InputIndex(s, "token_ids");
  model->threshold = r.InputIndex(s, "threshold");
  model->logits = r.OutputIndex(s, "logits");
  model->mask = r.OutputIndex(s, "read_mask");
  model->count = r.OutputIndex(s, "read_count");
  const auto& sig = r.signatures()[s];
  if (model->ids < 0 || sig.inputs[model->ids].type != DType::kInt32 ||
      sig.inputs[model->ids].shape.rank != 2)
    return Throw(env, "signature '" + sig.key + "' has no token_ids input of int32 [1, T]"), 0;
  if (model->threshold >= 0 && (sig.inputs[model->threshold].type != DType::kFloat32 ||
                                sig.inputs[model->threshold].shape.rank != 0))
    return Throw(env, "signature '" + sig.key + "': threshold is not a float32 scalar"), 0;
  if ((int)sig.inputs.size() != 1 + (model->threshold >= 0))
    return Throw(env, "signature '" + sig.key + "' has inputs other than token_ids and threshold"), 0;
  if (model->logits < 0) return Throw(env, "signature '" + sig.key + "' has no logits output"), 0;
  return reinterpret_cast<jlong>(model.release());
}

JNIEXPORT jobject JNICALL Java_org_kerasskim_demo_core_NativeModel_nativeRun(
    JNIEnv* env, jclass, jlong handle, jintArray token_ids, jint text_length, jfloat threshold) {
  Model* model = reinterpret_cast<Model*>(handle);
  ModelRunner& r = *model->runner;
  const int s = model->signature;
  // The input length (padded by NativeModel's TokenPadding, or the text's
  // own); the text is its first `text_length` ids, and the per-token outputs are
  // cut back to them.
  const jsize length = env->GetArrayLength(token_ids);
  if (text_length < 1 || text_length > length)
    return Throw(env, "the text has " + std::to_string(text_length) + " of " + std::to_string(length) + " ids"),
           nullptr;
  const jsize T = text_length;
  std::vector<int32_t>& ids = model->ids_buffer;
  ids.resize(length);
  env->GetIntArrayRegion(token_ids, 0, length, reinterpret_cast<jint*>(ids.data()));
  if (env->ExceptionCheck()) return nullptr;

  std::string error;
  TensorView logits, mask, count;
  const auto start = std::chrono::steady_clock::now();
  TensorShape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = length;
  bool ok = r.SetInput(s, model->ids, DType::kInt32, shape, ids.data(), ids.size() * 4, &error);
  if (ok && model->threshold >= 0) {
    TensorShape scalar;
    ok = r.SetInput(s, model->threshold, DType::kFloat32, scalar, &threshold, 4, &error);
  }
  ok = ok && r.Invoke(s, &error) && r.Output(s, model->logits, &logits, &error) &&
       (model->mask < 0 || r.Output(s, model->mask, &mask, &error)) &&
       (model->count < 0 || r.Output(s, model->count, &count, &error));
  const auto stop = std::chrono::steady_clock::now();
  if (!ok) return Throw(env, error), nullptr;

  if (!Numeric(logits)) return Throw(env, "logits is not a numeric output"), nullptr;
  const int64_t n_logits = logits.shape.NumElements();
  std::vector<jfloat> logit_values(n_logits);
  for (int64_t i = 0; i < n_logits; ++i) logit_values[i] = (jfloat)ValueAt(logits, i);
  // 1 = read, 0 = skimmed (a jump model adds 2 = jumped); no read_mask: all read.
  std::vector<jint> mask_values(T, 1);
  jint reads = T;
  if (model->mask >= 0) {
    if (!Numeric(mask) || mask.shape.NumElements() != length)
      return Throw(env, "read_mask has " + std::to_string(mask.shape.NumElements()) +
                            " values for " + std::to_string(length) + " tokens"), nullptr;
    reads = 0;
    for (jsize i = 0; i < T; ++i) {
      mask_values[i] = (jint)lrint(ValueAt(mask, i));
      reads += mask_values[i] == 1;
    }
  }
  if (model->count >= 0) {
    if (!Numeric(count) || count.shape.NumElements() < 1)
      return Throw(env, "read_count is empty"), nullptr;
    reads = (jint)lrint(ValueAt(count, 0));
  }
  jfloatArray java_logits = env->NewFloatArray((jsize)n_logits);
  jintArray java_mask = env->NewIntArray(T);
  if (!java_logits || !java_mask) return nullptr;  // OutOfMemoryError pending
  env->SetFloatArrayRegion(java_logits, 0, (jsize)n_logits, logit_values.data());
  env->SetIntArrayRegion(java_mask, 0, T, mask_values.data());
  const jlong nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start).count();
  return env->NewObject(g_result, g_result_init, java_logits, java_mask, reads, nanos);
}

JNIEXPORT void JNICALL Java_org_kerasskim_demo_core_NativeModel_nativeClose(JNIEnv*, jclass,
                                                                           jlong handle) {
  delete reinterpret_cast<Model*>(handle);
}

}  // extern "C"
