// keras-skim: the Structural-Jump-LSTM sequence kernel (batch 1), free of
// LiteRT types. Portable C++17 (GCC or Clang): AVX-512 / AVX2+FMA / SSE on
// x86-64, picked at run time, NEON on aarch64, plain vector code elsewhere
// (the same instruction-set regions as the Skim-LSTM core).
//
// The paper's inference loop (Hansen et al., ICLR 2019), greedy: from the
// first word, at each visited word the skip agent decides skip or read; a
// read word runs the LSTM step and the jump agent, whose action (next word,
// first word after the next separator, after the next sentence end, end of
// text) gives the next visited word. A jumped word is never touched; a
// skipped word costs only the skip agent. Punctuation is never a word: it
// only says where the jumps land.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <memory>

namespace keras_skim {

// What each token id is (the op's `kinds` input).
enum SjTokenKind : int8_t {
  kSjWord = 0,
  kSjSeparator = 1,    // , ;  ends a sub-sentence
  kSjSentenceEnd = 2,  // . ! ?  ends a sentence (and a sub-sentence)
  kSjOtherPunctuation = 3,
  kSjPadding = 4,
};

// Codes of the per-token mask (keras_skim.contracts.TOKEN_*).
enum SjMaskCode : int32_t {
  kSjMaskSkipped = 0,
  kSjMaskRead = 1,
  kSjMaskJumped = 2,
  kSjMaskNotAWord = 3,
};

// The weights, folded by the exporter (keras_skim/export/structural_jump_emitter.py).
// m: LSTM units, a: agent units, e: word vector size, or 0 when the LSTM's
// word term is folded into the rows. Gate order i, f, c, o (Keras).
// p, the previous-action state: 0 after a skipped word, 1 + j after a read
// word followed by jump action j (the first word sees p = 1).
struct SjLstmWeights {
  int m = 0, a = 0, vocab = 0, e = 0;
  const float* rows = nullptr;         // [V, a + R]: [x W_s[x rows] | x] (R = e), or [.. | x W[x rows]] (R = 4m)
  const float* previous = nullptr;     // [5, a + 4m]: per p, [skip agent terms + b_s | LSTM terms + b]
  const float* kernel = nullptr;       // [e + m, 4m]: [W[x rows]; U]
  const float* skip_kernel = nullptr;  // [m, a]: the skip agent's h rows
  const float* skip_head = nullptr;    // [a + 1]: l_read - l_skip = s . w + b
  const float* jump_kernel = nullptr;  // [m + 1, a]: [W_j; b_j]
  const float* jump_head = nullptr;    // [a + 1, 4]: [W_jp; b_jp]
  // int8 weights (the exporter's --quantize int8), used instead of `rows`
  // and `kernel` where set: symmetric int8 with float scales.
  const int8_t* rows_int8 = nullptr;    // [V, a + R]
  const float* rows_scale = nullptr;    // [V, 2]: per row, the scale of [0, a) and of [a, a + R)
  const int8_t* kernel_int8 = nullptr;  // [e + m, 4m]
  const float* kernel_scale = nullptr;  // [4m]: per column
};

struct SjLstmCounts {
  int read = 0;
  int visited = 0;
};

class SjLstmCore {
 public:
  // `simd`: "avx512", "avx2", "sse", "neon", "generic" or null/"" for the
  // best the CPU supports (falls back to the best supported one).
  explicit SjLstmCore(const char* simd = nullptr);
  ~SjLstmCore();

  // Packs the weights for the inner loops. Everything is copied except
  // `rows` (or `rows_int8` and `rows_scale`), which must stay valid while
  // Run is called.
  void Prepare(const SjLstmWeights& weights);

  // Runs one text from the zero state. `tokens` are raw ids in [0, V)
  // (checked by the caller), `kinds[id]` their SjTokenKind. With
  // `speed_reading` false every word is read and followed by the next one
  // (the full-read model). Writes the final h [m] and the mask [T]
  // (SjMaskCode per token) and returns the counts.
  SjLstmCounts Run(const int32_t* tokens, int T, const int8_t* kinds, bool speed_reading, float* h,
                   int32_t* mask);

  // The instruction set in use.
  const char* simd() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace keras_skim
