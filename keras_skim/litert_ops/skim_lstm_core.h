// keras-skim: the Skim-LSTM sequence kernel (batch 1), free of LiteRT types.
// Portable C++17 (GCC or Clang): AVX-512 / AVX2+FMA / SSE on x86-64, picked
// at run time, NEON on aarch64, plain vector code elsewhere.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <memory>

namespace keras_skim {

// A weight tensor: float32, or int8 with float scales (per column for the
// kernel, per row for the per-word rows).
struct WeightRef {
  const void* data = nullptr;
  bool int8 = false;
  const float* scale = nullptr;
};

// The weights of a Skim-LSTM (Keras gate order i, f, c, o), for inputs
// u = [x; h] (K = e + d rows). The skim part (small cell and gate) stays
// float: it decides what is read. The gate is the difference of the gate's
// two logits (read - skim).
//
// Two ways to give a token's input x:
//   projected (e > 0): `rows` are the embeddings [V, e]; a token's row is
//     projected in the kernel: by `kernel` rows [0, e) for read tokens
//     only, by `skim_kernel` rows [0, e) otherwise.
//   folded (e == 0): `rows` [V, 4d + 4ds + 1] already hold, per word,
//     [x W + b | x W_s + b_s | x w_g + b_g]; the kernels have only the h
//     rows and `bias` is unused.
struct SkimLstmWeights {
  int d = 0;      // units of the big cell and of the shared state
  int ds = 0;     // units of the small cell (0: skimming copies the state)
  int vocab = 0;  // V
  int e = 0;      // input size, or 0 when `rows` are folded
  WeightRef rows;                      // [V, e] or [V, 4d + 4ds + 1]; int8: scale per row
  WeightRef kernel;                    // [e + d, 4d]: [W; U]; int8: scale per column
  const float* skim_kernel = nullptr;  // [e + d, 4ds + 1]: [W_s | w_g; U_s | u_g]
  const float* bias = nullptr;         // [4d + 4ds + 1]: [b | b_s | b_g] (projected)
};

class SkimLstmCore {
 public:
  // `simd`: "avx512", "avx2", "sse", "neon", "generic" or null/"" for the
  // best the CPU supports (falls back to the best supported one).
  explicit SkimLstmCore(const char* simd = nullptr);
  ~SkimLstmCore();

  // Packs the weights for the inner loops. Everything is copied except
  // `rows`, which must stay valid while Run is called.
  void Prepare(const SkimLstmWeights& weights);

  // Runs one sequence from the zero state: token ids in [0, V) (checked by
  // the caller); with `mask_zero`, id 0 is padding: the step is skipped as
  // Keras' mask_zero does (state kept, mask 0, not counted). A token is
  // read iff l_read - l_skim >= log(t) - log(1 - t) (t = threshold). Writes the final h [d]
  // and mask [T] (1 read, 0 skimmed) and returns the number of reads.
  int Run(const int32_t* tokens, int T, float threshold, bool mask_zero, float* h, float* mask);

  // The instruction set in use ("avx512", "avx2", "sse", "neon", "generic").
  const char* simd() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace keras_skim
