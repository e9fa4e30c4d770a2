// keras-skim: the TfLite op-resolver adapter of the Python wheel's
// `InterpreterWithCustomOps(custom_op_registerers=...)`: turns TfLite's
// tensors into keras_skim::TensorView and registers every op of
// LibraryOps() with the interpreter's MutableOpResolver.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "op_kernel.h"
#include "tflite_abi.h"

namespace {

using keras_skim::DType;
using keras_skim::OpDef;
using keras_skim::OpKernel;
using keras_skim::TensorView;

const int kBuiltinCustom = 32;  // tflite::BuiltinOperator_CUSTOM
const int kMaxOps = 8;

TfLiteTensor* Tensor(TfLiteContext* ctx, int idx) {
  if (ctx->tensors) return ctx->tensors + idx;  // TFLite / LiteRT interpreter
  return ctx->GetTensor(ctx, idx);              // runtimes without the array
}

// Views of the tensors listed in `indices`; false if one is unusable.
bool Views(TfLiteContext* ctx, const TfLiteIntArray* indices,
           std::vector<TensorView>* views) {
  views->resize(indices->size);
  for (int i = 0; i < indices->size; ++i) {
    const int idx = indices->data[i];
    if (idx < 0 || (size_t)idx >= ctx->tensors_size) return false;
    const TfLiteTensor* t = Tensor(ctx, idx);
    // Cheap ABI sanity check (guards against a TfLiteTensor layout change).
    if (t->dims == nullptr || t->dims->size < 0 || t->dims->size > keras_skim::kMaxRank)
      return false;
    TensorView& v = (*views)[i];
    v.type = static_cast<DType>(t->type);
    v.shape.rank = t->dims->size;
    for (int k = 0; k < t->dims->size; ++k) v.shape.dims[k] = t->dims->data[k];
    v.data = t->data;
    v.bytes = t->bytes;
  }
  return true;
}

TfLiteStatus Resize(TfLiteContext* ctx, TfLiteTensor* t, const TensorView& v) {
  // ResizeTensor takes ownership and releases the array with free().
  TfLiteIntArray* a = static_cast<TfLiteIntArray*>(
      malloc(sizeof(TfLiteIntArray) + sizeof(int) * v.shape.rank));
  a->size = v.shape.rank;
  for (int i = 0; i < v.shape.rank; ++i) a->data[i] = v.shape.dims[i];
  return ctx->ResizeTensor(ctx, t, a);
}

template <int I>
void* Init(TfLiteContext*, const char* buffer, size_t length) {
  int count = 0;
  const OpDef* ops = keras_skim::LibraryOps(&count);
  return ops[I].create(buffer, length);
}

void Free(TfLiteContext*, void* kernel) { delete static_cast<OpKernel*>(kernel); }

TfLiteStatus Prepare(TfLiteContext* ctx, TfLiteNode* node) {
  std::vector<TensorView> in, out;
  if (!Views(ctx, node->inputs, &in) || !Views(ctx, node->outputs, &out)) {
    ctx->ReportError(ctx, "keras_skim: unusable tensor on a custom op node");
    return kTfLiteError;
  }
  std::string error;
  OpKernel* kernel = static_cast<OpKernel*>(node->user_data);
  if (!kernel->InferOutputs((int)in.size(), in.data(), (int)out.size(), out.data(), &error)) {
    ctx->ReportError(ctx, "%s", error.c_str());
    return kTfLiteError;
  }
  for (int i = 0; i < node->outputs->size; ++i) {
    TfLiteTensor* t = Tensor(ctx, node->outputs->data[i]);
    if (t->type != static_cast<int>(out[i].type)) {
      ctx->ReportError(ctx, "keras_skim: output %d has the wrong type", i);
      return kTfLiteError;
    }
    if (Resize(ctx, t, out[i]) != kTfLiteOk) return kTfLiteError;
  }
  return kTfLiteOk;
}

TfLiteStatus Invoke(TfLiteContext* ctx, TfLiteNode* node) {
  std::vector<TensorView> in, out;
  if (!Views(ctx, node->inputs, &in) || !Views(ctx, node->outputs, &out)) return kTfLiteError;
  std::string error;
  OpKernel* kernel = static_cast<OpKernel*>(node->user_data);
  if (!kernel->Run((int)in.size(), in.data(), (int)out.size(), out.data(), &error)) {
    ctx->ReportError(ctx, "%s", error.c_str());
    return kTfLiteError;
  }
  return kTfLiteOk;
}

// Over-sized and zero-padded: AddCustom copies sizeof(TfLiteRegistration) of
// the runtime's own build, which may have grown beyond our prefix.
union PaddedRegistration {
  TfLiteRegistration reg;
  unsigned char pad[512];
};
PaddedRegistration g_registrations[kMaxOps];
typedef void* (*InitFn)(TfLiteContext*, const char*, size_t);
const InitFn kInits[kMaxOps] = {Init<0>, Init<1>, Init<2>, Init<3>,
                                Init<4>, Init<5>, Init<6>, Init<7>};

const TfLiteRegistration* Registration(int i) {
  int count = 0;
  const OpDef* ops = keras_skim::LibraryOps(&count);
  if (i < 0 || i >= count || i >= kMaxOps) return nullptr;
  TfLiteRegistration& r = g_registrations[i].reg;
  r.init = kInits[i];
  r.free = Free;
  r.prepare = Prepare;
  r.invoke = Invoke;
  r.builtin_code = kBuiltinCustom;
  r.custom_name = ops[i].name;
  r.version = ops[i].version;
  return &r;
}

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

// The KerasSkimLSTM registration, for C++ code linking TFLite itself.
__attribute__((visibility("default")))
const TfLiteRegistration* KerasSkim_GetRegistration() { return Registration(0); }

// custom_op_registerers entry point: receives tflite::MutableOpResolver* and
// adds every op of the library. Returns 0 on success (the interpreter
// ignores the return value).
__attribute__((visibility("default")))
int KerasSkim_Register(void* resolver) {
  AddCustomFn add = FindAddCustom(resolver);
  if (!add) {
    fprintf(stderr, "keras_skim: %s\n", g_last_error.c_str());
    return 1;
  }
  int count = 0;
  const OpDef* ops = keras_skim::LibraryOps(&count);
  for (int i = 0; i < count && i < kMaxOps; ++i)
    add(resolver, ops[i].name, Registration(i), ops[i].version);
  return 0;
}

__attribute__((visibility("default")))
const char* KerasSkim_LastError() { return g_last_error.c_str(); }

}  // extern "C"
