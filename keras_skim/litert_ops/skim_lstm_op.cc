// keras-skim: "KerasSkimLSTM" custom LiteRT/TFLite op + registration glue for
// the Python interpreter's `custom_op_registerers`.
//
// Op inputs : 0 proj   f32 [1,T,K] or [T,K], K = 4d + 4ds + 2
//             1 thresh f32 scalar or [1]
//             2 U      f32 [d, 4d]
//             3 Us     f32 [d, 4ds]
//             4 Ug     f32 [d, 2]
//             5 tokens i32 [1,T] or [T] (optional): id 0 = padding, the
//                      step is masked out as with Keras `mask_zero=True`
// Op outputs: 0 h      f32 [1, d]   final hidden state
//             1 mask   f32 [1, T]   1 = read, 0 = skim
//             2 count  i32 [1]      number of read steps
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "skim_lstm_core.h"
#include "tflite_abi.h"

namespace {

const int kBuiltinCustom = 32;  // tflite::BuiltinOperator_CUSTOM

struct OpData {
  std::vector<float> h, c, z, ug_diff;
};

TfLiteTensor* Tensor(TfLiteContext* ctx, int idx) {
  if (ctx->tensors) return ctx->tensors + idx;  // TFLite / LiteRT interpreter
  return ctx->GetTensor(ctx, idx);              // runtimes without the array
}
TfLiteTensor* In(TfLiteContext* ctx, TfLiteNode* node, int i) {
  return Tensor(ctx, node->inputs->data[i]);
}
TfLiteTensor* Out(TfLiteContext* ctx, TfLiteNode* node, int i) {
  return Tensor(ctx, node->outputs->data[i]);
}
int NumElements(const TfLiteTensor* t) {
  int n = 1;
  for (int i = 0; i < t->dims->size; ++i) n *= t->dims->data[i];
  return n;
}

#define SKIM_ENSURE(ctx, cond)                                           \
  do {                                                                   \
    if (!(cond)) {                                                       \
      (ctx)->ReportError((ctx), "KerasSkimLSTM: %s:%d check failed: %s", \
                         __FILE__, __LINE__, #cond);                     \
      return kTfLiteError;                                               \
    }                                                                    \
  } while (0)

void* Init(TfLiteContext*, const char*, size_t) { return new OpData; }
void Free(TfLiteContext*, void* buffer) { delete static_cast<OpData*>(buffer); }

TfLiteStatus Resize(TfLiteContext* ctx, TfLiteTensor* t, int rank,
                    const int* shape) {
  // ResizeTensor takes ownership and releases the array with free().
  TfLiteIntArray* a = static_cast<TfLiteIntArray*>(
      malloc(sizeof(TfLiteIntArray) + sizeof(int) * rank));
  a->size = rank;
  for (int i = 0; i < rank; ++i) a->data[i] = shape[i];
  return ctx->ResizeTensor(ctx, t, a);
}

TfLiteStatus Prepare(TfLiteContext* ctx, TfLiteNode* node) {
  const int nin = node->inputs->size;
  SKIM_ENSURE(ctx, (nin == 5 || nin == 6) && node->outputs->size == 3);
  // Cheap ABI sanity check (guards against a TfLiteTensor layout change):
  // every tensor we touch must have a name, sane dims and consistent bytes.
  for (int i = 0; i < nin + node->outputs->size; ++i) {
    const int idx = i < nin ? node->inputs->data[i] : node->outputs->data[i - nin];
    SKIM_ENSURE(ctx, idx >= 0 && (size_t)idx < ctx->tensors_size);
    const TfLiteTensor* t = Tensor(ctx, idx);
    SKIM_ENSURE(ctx, t->name != nullptr && t->dims != nullptr);
    SKIM_ENSURE(ctx, t->dims->size >= 0 && t->dims->size <= 8);
  }
  for (int i = 0; i < 5; ++i) SKIM_ENSURE(ctx, In(ctx, node, i)->type == kTfLiteFloat32);
  for (int i = 2; i < 5; ++i)
    SKIM_ENSURE(ctx, In(ctx, node, i)->bytes == sizeof(float) * NumElements(In(ctx, node, i)));
  const TfLiteTensor* proj = In(ctx, node, 0);
  const TfLiteTensor* U = In(ctx, node, 2);
  const TfLiteTensor* Us = In(ctx, node, 3);
  const TfLiteTensor* Ug = In(ctx, node, 4);
  SKIM_ENSURE(ctx, U->dims->size == 2 && Us->dims->size == 2 && Ug->dims->size == 2);
  const int d = U->dims->data[0];
  const int ds = Us->dims->data[1] / 4;
  SKIM_ENSURE(ctx, U->dims->data[1] == 4 * d);
  SKIM_ENSURE(ctx, Us->dims->data[0] == d && Us->dims->data[1] == 4 * ds && ds <= d);
  SKIM_ENSURE(ctx, Ug->dims->data[0] == d && Ug->dims->data[1] == 2);
  const int K = 4 * d + 4 * ds + 2;
  const int pr = proj->dims->size;
  SKIM_ENSURE(ctx, pr == 2 || (pr == 3 && proj->dims->data[0] == 1));
  SKIM_ENSURE(ctx, proj->dims->data[pr - 1] == K);
  SKIM_ENSURE(ctx, NumElements(In(ctx, node, 1)) == 1);
  const int T = proj->dims->data[pr - 2];
  if (nin == 6) {
    const TfLiteTensor* tok = In(ctx, node, 5);
    SKIM_ENSURE(ctx, tok->type == kTfLiteInt32 && NumElements(tok) == T);
  }

  OpData* od = static_cast<OpData*>(node->user_data);
  od->h.assign(d, 0.f);
  od->c.assign(d, 0.f);
  od->z.assign(4 * d, 0.f);
  od->ug_diff.assign(d, 0.f);
  TfLiteTensor* out_h = Out(ctx, node, 0);
  TfLiteTensor* out_m = Out(ctx, node, 1);
  TfLiteTensor* out_n = Out(ctx, node, 2);
  SKIM_ENSURE(ctx, out_h->type == kTfLiteFloat32 && out_m->type == kTfLiteFloat32 &&
                       out_n->type == kTfLiteInt32);
  const int sh[2] = {1, d}, sm[2] = {1, T}, sn[1] = {1};
  if (Resize(ctx, out_h, 2, sh) != kTfLiteOk) return kTfLiteError;
  if (Resize(ctx, out_m, 2, sm) != kTfLiteOk) return kTfLiteError;
  if (Resize(ctx, out_n, 1, sn) != kTfLiteOk) return kTfLiteError;
  return kTfLiteOk;
}

TfLiteStatus Invoke(TfLiteContext* ctx, TfLiteNode* node) {
  OpData* od = static_cast<OpData*>(node->user_data);
  const TfLiteTensor* proj = In(ctx, node, 0);
  const TfLiteTensor* U = In(ctx, node, 2);
  const TfLiteTensor* Us = In(ctx, node, 3);
  const float* ug = static_cast<const float*>(In(ctx, node, 4)->data);
  const int d = U->dims->data[0];
  const int ds = Us->dims->data[1] / 4;
  const int T = proj->dims->data[proj->dims->size - 2];
  // Ug may be a runtime tensor in principle, so refresh the (tiny) diff here.
  for (int k = 0; k < d; ++k) od->ug_diff[k] = ug[2 * k] - ug[2 * k + 1];
  const float thr = *static_cast<const float*>(In(ctx, node, 1)->data);
  float* h = od->h.data();
  float* c = od->c.data();
  memset(h, 0, sizeof(float) * d);
  memset(c, 0, sizeof(float) * d);
  const int reads = keras_skim::skim_lstm_sequence(
      static_cast<const float*>(proj->data), T, d, ds,
      static_cast<const float*>(U->data), static_cast<const float*>(Us->data),
      od->ug_diff.data(), thr, h, c,
      static_cast<float*>(Out(ctx, node, 1)->data), od->z.data(),
      node->inputs->size == 6
          ? static_cast<const int32_t*>(In(ctx, node, 5)->data) : nullptr);
  memcpy(Out(ctx, node, 0)->data, h, sizeof(float) * d);
  *static_cast<int32_t*>(Out(ctx, node, 2)->data) = reads;
  return kTfLiteOk;
}

// Over-sized and zero-padded: AddCustom copies sizeof(TfLiteRegistration) of
// the runtime's own build, which may have grown beyond our prefix.
union PaddedRegistration {
  TfLiteRegistration reg;
  unsigned char pad[512];
};
PaddedRegistration g_registration;

// ---- Locating tflite::MutableOpResolver::AddCustom -----------------------
// The ai-edge-litert wheel hides all TFLite C++ symbols (only the PyInit_*
// entry points are dynamic exports), but its libpywrap_litert_common.so keeps
// a full .symtab. We find the shared object that owns the resolver's vtable
// and look the (non-virtual) member function up there: the function that
// runs is therefore always the runtime's own AddCustom, matching the
// resolver's layout, even if another TFLite copy (e.g. TensorFlow's) is
// loaded in the same process.
const char kAddCustomMangled[] =
    "_ZN6tflite17MutableOpResolver9AddCustomEPKcPK18TfLiteRegistrationi";
typedef void (*AddCustomFn)(void* self, const char* name,
                            const TfLiteRegistration* reg, int version);

struct FindBase { const char* path; uintptr_t base; };
int FindBaseCb(struct dl_phdr_info* info, size_t, void* data) {
  FindBase* fb = static_cast<FindBase*>(data);
  if (info->dlpi_name && strcmp(info->dlpi_name, fb->path) == 0) {
    fb->base = info->dlpi_addr;
    return 1;
  }
  return 0;
}

uintptr_t LookupInSymtab(const char* path, const char* symbol) {
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  std::vector<unsigned char> buf;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf.resize(size);
  size_t got = fread(buf.data(), 1, size, f);
  fclose(f);
  if (got != (size_t)size || size < (long)sizeof(Elf64_Ehdr)) return 0;
  const Elf64_Ehdr* eh = reinterpret_cast<const Elf64_Ehdr*>(buf.data());
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) return 0;
  const Elf64_Shdr* sh = reinterpret_cast<const Elf64_Shdr*>(buf.data() + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) continue;
    const Elf64_Sym* syms = reinterpret_cast<const Elf64_Sym*>(buf.data() + sh[i].sh_offset);
    const char* strtab = reinterpret_cast<const char*>(buf.data() + sh[sh[i].sh_link].sh_offset);
    const size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t j = 0; j < n; ++j) {
      if (syms[j].st_value != 0 && ELF64_ST_TYPE(syms[j].st_info) == STT_FUNC &&
          strcmp(strtab + syms[j].st_name, symbol) == 0)
        return syms[j].st_value;
    }
  }
  return 0;
}

std::string g_last_error;

AddCustomFn FindAddCustom(void* resolver) {
  void* vptr = *static_cast<void**>(resolver);
  Dl_info info;
  if (!dladdr(vptr, &info) || !info.dli_fname) {
    g_last_error = "dladdr failed on the resolver vtable";
    return nullptr;
  }
  // 1) Exported (e.g. tflite-runtime builds, or a TFLite linked by the app).
  void* handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (handle) {
    void* sym = dlsym(handle, kAddCustomMangled);
    dlclose(handle);
    if (sym) return reinterpret_cast<AddCustomFn>(sym);
  }
  // 2) Hidden but present in the static symbol table.
  FindBase fb = {info.dli_fname, 0};
  dl_iterate_phdr(FindBaseCb, &fb);
  if (!fb.base) fb.base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  const uintptr_t off = LookupInSymtab(info.dli_fname, kAddCustomMangled);
  if (!off) {
    g_last_error = std::string("AddCustom not found in ") + info.dli_fname +
                   " (stripped wheel?)";
    return nullptr;
  }
  return reinterpret_cast<AddCustomFn>(fb.base + off);
}

}  // namespace

extern "C" {

// Usable directly by C++ code linking TFLite itself (e.g. Android):
//   resolver.AddCustom("KerasSkimLSTM", KerasSkim_GetRegistration());
__attribute__((visibility("default")))
const TfLiteRegistration* KerasSkim_GetRegistration() {
  TfLiteRegistration& r = g_registration.reg;
  r.init = Init;
  r.free = Free;
  r.prepare = Prepare;
  r.invoke = Invoke;
  r.builtin_code = kBuiltinCustom;
  r.custom_name = "KerasSkimLSTM";
  r.version = 1;
  return &r;
}

// custom_op_registerers entry point: receives tflite::MutableOpResolver*.
// Returns 0 on success (the interpreter ignores the return value).
__attribute__((visibility("default")))
int KerasSkim_Register(void* resolver) {
  AddCustomFn add = FindAddCustom(resolver);
  if (!add) {
    fprintf(stderr, "keras_skim: %s\n", g_last_error.c_str());
    return 1;
  }
  add(resolver, "KerasSkimLSTM", KerasSkim_GetRegistration(), 1);
  return 0;
}

__attribute__((visibility("default")))
const char* KerasSkim_LastError() { return g_last_error.c_str(); }

// Direct entry to the kernel (for tests / a NumPy-free fallback).
__attribute__((visibility("default")))
int KerasSkim_RunSequence(const float* proj, int T, int d, int ds,
                          const float* U, const float* Us, const float* Ug,
                          float threshold, float* h_out, float* mask) {
  std::vector<float> c(d, 0.f), z(4 * d), ugd(d);
  for (int k = 0; k < d; ++k) ugd[k] = Ug[2 * k] - Ug[2 * k + 1];
  memset(h_out, 0, sizeof(float) * d);
  return keras_skim::skim_lstm_sequence(proj, T, d, ds, U, Us, ugd.data(),
                                        threshold, h_out, c.data(), mask, z.data(), nullptr);
}

}  // extern "C"
