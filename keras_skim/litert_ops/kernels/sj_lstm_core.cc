// keras-skim: Structural-Jump-LSTM sequence kernel (see sj_lstm_core.h).
//
// Per visited word it does only the work Flop-r counts (the project's SJ
// notes, section 3): the skip agent (its word term is a row of the folded
// table, so only h W_s[h] is computed), and for a read word the LSTM step
// on [x; h] and the jump agent. A backward pass over the tokens first finds,
// per position, the next word and the first word after the next separator
// and after the next sentence end (O(T) integer work, which also writes the
// mask of the words the loop never visits); the loop then jumps by them.
// The LSTM's product uses the packed panels of gate_panels.h (the Skim-LSTM
// core's inner loops), which fuse the cell update after their last row. The
// agents' hidden layers (a = 25 columns on m rows) are plain row-major
// [m][a_pad] matrices whose product splits the rows over several sets of
// accumulators (sj_lstm_kernel.inc): with a few vectors per row, one set
// would wait on the multiply-add latency at every row, and the skip agent
// is all a skipped word costs.
#include "sj_lstm_core.h"

#include <math.h>
#include <string.h>

#include <vector>

#include "gate_panels.h"
#include "simd_isa.h"
#include "simd_targets.h"
#include "skim_rnn_packed.h"  // the shared token loop's types (compiled in each region)

namespace keras_skim {

struct SjLstmCore::Impl {
  explicit Impl(const char* want) : isa(PickSimd(want)) {}
  const SimdIsa& isa;
  int m = 0, a = 0, V = 0, e = 0;
  int K = 0;  // rows of the LSTM product: [x (e); h (m)]
  int R = 0;  // floats per row of `rows`: a + e, or a + 4m when folded
  bool folded = false;
  const float* rows = nullptr;
  const int8_t* rows_int8 = nullptr;  // int8 rows instead of `rows`, with
  const float* rows_scale = nullptr;  // [V, 2] scales (sj_lstm_core.h)
  PanelShape big, skip;  // skip: the agents' padding (a_pad columns)
  PackedGates big_w;      // the LSTM's [W; U], float or int8
  Aligned<float> skip_w, jump_w;  // [m][a_pad] row-major, padding 0
  Aligned<float> previous_lstm;  // [5][4][m_pad]
  Aligned<float> previous_skip;  // [5][a_pad]
  Aligned<float> skip_head;      // [a_pad]
  float skip_bias = 0.0f;
  Aligned<float> jump_bias;      // [a_pad]
  Aligned<float> jump_head;      // [4][a_pad]: the columns of W_jp
  float jump_head_bias[4] = {0, 0, 0, 0};
  // Scratch of one text: u0, u1 = [x; h] (the LSTM writes the new h into
  // the other one), c, the LSTM's input terms, an agent's input terms and
  // hidden layer, and the jump targets [3][T].
  Aligned<float> u0, u1, c, init, agent_init, agent;
  Aligned<float> word;  // an int8 row's LSTM part, dequantized (folded rows)
  std::vector<int32_t> targets;

  int m_pad() const { return big.units_pad(); }
  int a_pad() const { return skip.units_pad(); }
};

namespace {

#define KS_KERNEL_INC "sj_lstm_kernel.inc"
#define KS_KERNEL_ENTRY run_text
#include "simd_regions.inc"
#undef KS_KERNEL_ENTRY
#undef KS_KERNEL_INC

PanelShape Shape(const SimdIsa& isa, int GP, int gates, int units, int rows) {
  PanelShape s;
  s.W = isa.W;
  s.GP = GP;
  s.gates = gates;
  s.units = units;
  s.rows = rows;
  return s;
}

// `src` [rows, cols] row-major into `dst` [rows, cols_pad] (padding 0).
void PadColumns(const float* src, int rows, int cols, int cols_pad, Aligned<float>* dst) {
  dst->resize((size_t)rows * cols_pad);
  memset(dst->data(), 0, sizeof(float) * rows * cols_pad);
  for (int k = 0; k < rows; ++k) memcpy(dst->data() + (size_t)k * cols_pad, src + (size_t)k * cols, sizeof(float) * cols);
}

}  // namespace

SjLstmCore::SjLstmCore(const char* simd) : impl_(new Impl(simd)) {}

SjLstmCore::~SjLstmCore() = default;

const char* SjLstmCore::simd() const { return impl_->isa.name; }

void SjLstmCore::Prepare(const SjLstmWeights& w) {
  Impl& s = *impl_;
  const int m = w.m, a = w.a, e = w.e;
  s.m = m;
  s.a = a;
  s.V = w.vocab;
  s.e = e;
  s.folded = e == 0;
  s.K = e + m;
  s.R = a + (e ? e : 4 * m);
  s.rows = w.rows;
  s.rows_int8 = w.rows_int8;
  s.rows_scale = w.rows_scale;
  s.big = Shape(s.isa, s.isa.GP, 4, m, s.K);
  s.skip = Shape(s.isa, s.isa.small_GP, 1, a, m);
  const int mp = s.m_pad(), ap = s.a_pad();
  if (w.kernel_int8)
    s.big_w.Pack(s.big, w.kernel_int8, true, w.kernel_scale);
  else
    s.big_w.Pack(s.big, w.kernel, false, nullptr);
  PadColumns(w.skip_kernel, m, a, ap, &s.skip_w);
  PadColumns(w.jump_kernel, m, a, ap, &s.jump_w);

  const int P = a + 4 * m;  // floats per row of `previous`
  s.previous_lstm.resize(5 * 4 * mp);
  s.previous_skip.resize(5 * ap);
  for (int p = 0; p < 5; ++p) {
    memset(s.previous_skip.data() + p * ap, 0, sizeof(float) * ap);
    memcpy(s.previous_skip.data() + p * ap, w.previous + (size_t)p * P, sizeof(float) * a);
    pack_gate_vector(s.big, w.previous + (size_t)p * P + a, s.previous_lstm.data() + p * 4 * mp);
  }
  s.skip_head.resize(ap);
  memset(s.skip_head.data(), 0, sizeof(float) * ap);
  memcpy(s.skip_head.data(), w.skip_head, sizeof(float) * a);
  s.skip_bias = w.skip_head[a];
  s.jump_bias.resize(ap);
  memset(s.jump_bias.data(), 0, sizeof(float) * ap);
  memcpy(s.jump_bias.data(), w.jump_kernel + (size_t)m * a, sizeof(float) * a);
  s.jump_head.resize(4 * ap);
  memset(s.jump_head.data(), 0, sizeof(float) * 4 * ap);
  for (int j = 0; j < a; ++j)
    for (int k = 0; k < 4; ++k) s.jump_head.data()[k * ap + j] = w.jump_head[j * 4 + k];
  for (int k = 0; k < 4; ++k) s.jump_head_bias[k] = w.jump_head[a * 4 + k];

  s.u0.resize(e + mp);
  s.u1.resize(e + mp);
  s.c.resize(mp);
  s.init.resize(4 * mp);
  s.agent_init.resize(ap);
  s.agent.resize(ap);
  s.word.resize(s.rows_int8 && s.folded ? 4 * m : 0);
}

SjLstmCounts SjLstmCore::Run(const int32_t* tokens, int T, const int8_t* kinds, bool speed_reading, float* h,
                             int32_t* mask) {
  Impl& s = *impl_;
  if (s.targets.size() < (size_t)3 * T) s.targets.resize((size_t)3 * T);
  return run_on_isa(s.isa.id, s, tokens, T, kinds, speed_reading, h, mask);
}

}  // namespace keras_skim
