// keras-skim: what the skim cells' sequence kernels (batch 1) share, free of
// LiteRT types: their weight inputs and their interface. A cell's header
// (skim_lstm_core.h, skim_gru_core.h) names its weights and its core; its
// .cc defines the core's Impl. Portable C++17 (GCC or Clang): AVX-512 /
// AVX2+FMA / SSE on x86-64, picked at run time, NEON on aarch64, plain
// vector code elsewhere.
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

// The weights every skim cell has, for inputs u = [x; h] (K = e + d rows).
// A cell has G gate blocks (LSTM 4, GRU 3), in Keras' column order. The
// skim part (small cell and gate) stays float: it decides what is read.
// The gate is the difference of the gate's two logits (read - skim).
//
// Two ways to give a token's input x:
//   projected (e > 0): `rows` are the embeddings [V, e]; a token's row is
//     projected in the kernel: by `kernel` rows [0, e) for read tokens
//     only, by `skim_kernel` rows [0, e) otherwise.
//   folded (e == 0): `rows` [V, N], N = G d + G ds + 1, already hold, per
//     word, [x W + b | x W_s + b_s | x w_g + b_g]; the kernels have only
//     the h rows and `bias` is unused.
struct SkimRnnWeights {
  int d = 0;      // units of the big cell and of the shared state
  int ds = 0;     // units of the small cell (0: skimming copies the state)
  int vocab = 0;  // V
  int e = 0;      // input size, or 0 when `rows` are folded
  WeightRef rows;                      // [V, e] or [V, N]; int8: scale per row
  WeightRef kernel;                    // [e + d, G d]: [W; U]; int8: scale per column
  const float* skim_kernel = nullptr;  // [e + d, G ds + 1]: [W_s | w_g; U_s | u_g]
  const float* bias = nullptr;         // [N]: [b | b_s | b_g] (projected)
};

// The sequence kernel of the cell whose weights are `Weights`.
template <class Weights>
class SkimCore {
 public:
  // `simd`: "avx512", "avx2", "sse", "neon", "generic" or null/"" for the
  // best the CPU supports (falls back to the best supported one).
  explicit SkimCore(const char* simd = nullptr);
  ~SkimCore();

  // Packs the weights for the inner loops. Everything is copied except
  // `rows`, which must stay valid while Run is called.
  void Prepare(const Weights& weights);

  // Runs one sequence from the zero state: token ids in [0, V) (checked by
  // the caller); with `mask_zero`, id 0 is padding: the step is skipped as
  // Keras' mask_zero does (state kept, mask 0, not counted). A token is
  // read iff l_read - l_skim >= log(t) - log(1 - t) (t = threshold). Writes
  // the final h [d] and mask [T] (1 read, 0 skimmed) and returns the number
  // of reads.
  int Run(const int32_t* tokens, int T, float threshold, bool mask_zero, float* h, float* mask);

  // The instruction set in use ("avx512", "avx2", "sse", "neon", "generic").
  const char* simd() const;

  struct Impl;  // a cell's packed weights and steps (its core's .cc)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace keras_skim
