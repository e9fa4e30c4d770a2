// keras-skim: loads libLiteRt.so and resolves the C API (litert_library.h).
#include "litert_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace keras_skim {
namespace {

std::mutex g_mutex;
LiteRtApi* g_api = nullptr;  // set once, never freed (the library stays loaded)

const char kDefaultName[] = "libLiteRt.so";

}  // namespace

const LiteRtApi* LoadLiteRt(const char* path, std::string* error) {
  const std::string wanted = (path && *path) ? path : "";
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_api) {
    if (!wanted.empty() && wanted != g_api->path) {
      *error = "LiteRT C library already loaded from " + g_api->path +
               "; cannot load " + wanted + " in the same process";
      return nullptr;
    }
    return g_api;
  }
  const std::string name = wanted.empty() ? kDefaultName : wanted;
  // RTLD_LOCAL: the LiteRT symbols stay private to our lookups, so another
  // TFLite/LiteRT copy in the process (TensorFlow, the ai_edge_litert Python
  // interpreter) cannot interpose.
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    *error = "cannot load the LiteRT C library " + name + " (" +
             (why ? why : "dlopen failed") + ")";
    return nullptr;
  }
  LiteRtApi api;
  api.path = name;
  std::string missing;
#define KERAS_SKIM_RESOLVE(fn, ret, args)                               \
  api.fn = reinterpret_cast<ret(*) args>(dlsym(handle, #fn));           \
  if (!api.fn) missing += (missing.empty() ? "" : ", ") + std::string(#fn);
  KERAS_SKIM_LITERT_FUNCTIONS(KERAS_SKIM_RESOLVE)
#undef KERAS_SKIM_RESOLVE
  if (missing.size() > 160) missing = missing.substr(0, missing.rfind(", ", 160)) + ", ...";
  if (!missing.empty() || !dlsym(handle, KERAS_SKIM_LITERT_VERSION_MARKER)) {
    *error = name + " is not a LiteRT >= 2.1.6 C library (" +
             (missing.empty() ? std::string("no ") + KERAS_SKIM_LITERT_VERSION_MARKER
                              : "missing " + missing) +
             "); keras-skim needs the LiteRT C API of 2.1.6 or newer (ai-edge-litert "
             "or the com.google.ai.edge.litert AAR)";
    dlclose(handle);
    return nullptr;
  }
  g_api = new LiteRtApi(api);
  return g_api;
}

}  // namespace keras_skim
