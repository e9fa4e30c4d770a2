"""keras-skim's custom LiteRT ops (one per model kind that has one,
`keras_skim.model_kinds.CUSTOM_OPS`: a whole sequence, or a whole text, in
one op) and the runtime that runs them through LiteRT's C API.

How the op reaches LiteRT. The prebuilt LiteRT libraries export C symbols
only: `libLiteRt.so` (in the `ai-edge-litert` wheel and in the Android AAR
`com.google.ai.edge.litert:litert` 2.x) exports the LiteRT 2.x C API, and
none of them exports the C++ `tflite::MutableOpResolver::AddCustom`. So a JNI
shim (or any code) built against a prebuilt AAR cannot call `AddCustom`: it
would not link. What works everywhere is the public C API:

1. open the model: `LiteRtCreateEnvironment`, `LiteRtCreateModelFromBuffer`;
2. `LiteRtCreateOptions`, CPU with one XNNPACK thread (the opaque option
   "xnnpack", payload `num_threads = 1`), and per op
   `LiteRtAddCustomOpKernelOption(options, op_name, 1, &kernel, data)`
   (every op of `kernels/library_ops.cc`, in the order of the model-kind table)
   where `kernel` is a `LiteRtCustomOpKernel` (Init / GetOutputLayouts / Run
   / Destroy over `LiteRtTensorBuffer`s);
3. `LiteRtCreateCompiledModel`, then per input shape
   `LiteRtCompiledModelResizeInputTensor` and `LiteRtRunCompiledModel` with
   host-memory tensor buffers.

Our C++ does exactly that and resolves those functions with dlopen/dlsym of
`libLiteRt.so` at run time, so it links nothing but libdl: the same sources
build for Python (g++, when the package is built), the desktop JVM shim and Android (CMake
in android_demo/app/src/main/cpp, which finds the libLiteRt.so the app's
LiteRT AAR ships). Python (for models with custom ops; builtin-only models
run on ai-edge-litert's Python `Interpreter`, faster here:
benchmarks/results/capi_runtime_speed.md), the
JVM and the phone (every model) thus run the same code:

The C++ is in three layers, each folder including only those before it:

- `kernels/`: the ops and their cores, free of LiteRT types.
  `op_kernel.h` is the seam every op is written against (`TensorView`,
  `OpKernel`, `LibraryOps()`, listed in `library_ops.cc`);
  the kernels of `library_ops.cc` (`*_op.cc`, one per op; the skim
  cells' two ops share one) and their `*_core.cc`: the ops; `simd_isa.cc` picks the instruction set
  and `simd_regions.inc` compiles each kernel once per set and holds the one
  dispatch to it (`run_on_isa`);
- `litert/`: `litert_c_abi.h`, our own declarations of the LiteRT C ABI we
  use, from the public headers; `litert_library.cc` loads `libLiteRt.so`
  once per process and checks that every function is there (LiteRT >=
  2.1.6); `litert_op_adapter.cc`: `LiteRtCustomOpKernel` -> `OpKernel`;
- `runner/`: `model_runner.cc` (open, compile with the ops registered,
  resize, run, read) and `keras_skim_c.cc`, a C interface over it for
  ctypes (`keras_skim.runtime.litert_runner`).

The Python side: `native_build` builds the library (standard library only,
for setup.py); `library_file` finds it and checks it against its build
manifest; `c_interface` is the ctypes binding of `runner/keras_skim_c.h`.

The library is compiled when the package is built (`setup.py`, through
`native_build.py`: `pip install`, `pip wheel .` gives a platform wheel,
`pip install -e .` builds it in place) into this folder as
`libkeras_skim_ops.so`, with `libkeras_skim_ops.json`, its manifest (size,
sha256, source hash, C API version). The runtime never calls a compiler: it
checks the file against the manifest before dlopen (so a truncated or
foreign file is one line, not a crash), then the C symbols and the C API
version. Where no library was built (macOS, Windows, a build without a C++
compiler), loading it says so in one line. This module imports neither
TensorFlow nor Keras, and never the runtime above it (the runtime's
`interpreter_loader.make_interpreter` loads models and registers these ops).

    from keras_skim.runtime.interpreter_loader import make_interpreter
    model = make_interpreter("model.tflite")      # custom ops registered, compiled
    outputs = model.get_signature_runner()(token_ids=ids, threshold=t)

Built on Linux (x86-64, arm64) with glibc and a C++17 compiler.
"""

from keras_skim.contracts import CUSTOM_OPS
from keras_skim.litert_ops.c_interface import Tensor, load_library, op_names
from keras_skim.litert_ops.library_file import C_API_VERSION, library_path, read_manifest, verify_library
from keras_skim.litert_ops.native_build import LIBRARY_NAME

OP_NAMES = tuple(CUSTOM_OPS.values())  # every op the library registers (kernels/library_ops.cc)
OP_NAME = OP_NAMES[0]  # the first op of the model-kind table (the library's first)

__all__ = [
    "C_API_VERSION",
    "LIBRARY_NAME",
    "OP_NAME",
    "OP_NAMES",
    "library_path",
    "load_library",
    "op_names",
    "read_manifest",
    "Tensor",
    "verify_library",
]
