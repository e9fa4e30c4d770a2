// keras-skim: the Skim-LSTM core (keras_skim/litert_ops/kernels), without
// LiteRT, timed per token at a few skim rates: what a read token and a
// skimmed token cost inside the op's token loop. Built and run by
// benchmarks/skim_core_read_cost.py, which turns the lines into the strict
// gain and the cost of a read token.
//
//   skim_core_read_cost D E INT8 RUNS   (prints: simd <isa>, then per rate:
//                                        rate <target> reads <n> us <median us per call>)
//
// Random weights; the gate's h rows are zero, so that a token's gate value
// is known before the run and a threshold can pick an exact skim rate.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <random>
#include <vector>

#include "skim_lstm_core.h"

namespace {

constexpr int kVocab = 1000, kTokens = 200, kSmall = 10, kGates = 4;

double thread_us() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

// Symmetric int8, one scale per row (axis 0) or per column (axis 1); `a` gets the dequantized values.
void quantize(std::vector<float>* a, int rows, int cols, bool per_row, std::vector<int8_t>* q,
              std::vector<float>* scale) {
  scale->assign(per_row ? rows : cols, 0.0f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float& s = (*scale)[per_row ? r : c];
      s = fmaxf(s, fabsf((*a)[(size_t)r * cols + c]));
    }
  for (float& s : *scale) s = s > 0 ? s / 127.0f : 1.0f;
  q->resize(a->size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float& v = (*a)[(size_t)r * cols + c];
      const float s = (*scale)[per_row ? r : c];
      (*q)[(size_t)r * cols + c] = (int8_t)nearbyintf(v / s);
      v = (*q)[(size_t)r * cols + c] * s;
    }
}

struct Model {
  int d, e, K, S;
  std::vector<float> rows, kernel, skim, bias, rows_s, kernel_s;
  std::vector<int8_t> rows_q, kernel_q;
  keras_skim::SkimLstmWeights w;

  Model(int d_, int e_, bool int8) : d(d_), e(e_), K(e_ + d_), S(kGates * kSmall + 1) {
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    rows.resize((size_t)kVocab * e);
    kernel.resize((size_t)K * kGates * d);
    skim.resize((size_t)K * S);
    bias.assign(kGates * d + S, 0.0f);
    for (float& x : rows) x = 0.3f * normal(rng);
    for (float& x : kernel) x = 0.05f * normal(rng);
    for (float& x : skim) x = 0.05f * normal(rng);
    for (int k = e; k < K; ++k) skim[(size_t)k * S + S - 1] = 0.0f;  // the gate reads x only
    w.d = d;
    w.ds = kSmall;
    w.vocab = kVocab;
    w.e = e;
    w.skim_kernel = skim.data();
    w.bias = bias.data();
    if (int8) {
      quantize(&rows, kVocab, e, true, &rows_q, &rows_s);
      quantize(&kernel, K, kGates * d, false, &kernel_q, &kernel_s);
      w.rows = {rows_q.data(), true, rows_s.data()};
      w.kernel = {kernel_q.data(), true, kernel_s.data()};
    } else {
      w.rows.data = rows.data();
      w.kernel.data = kernel.data();
    }
  }

  // The gate's value (l_read - l_skim) of token `tok`.
  float gate(int tok) const {
    double g = 0.0;
    for (int k = 0; k < e; ++k) g += rows[(size_t)tok * e + k] * skim[(size_t)k * S + S - 1];
    return (float)g;
  }
};

// The threshold that skims the fraction `rate` of `tokens` (0: reads all, 1: skims all).
float threshold_for(const Model& m, const std::vector<int32_t>& tokens, double rate) {
  if (rate <= 0.0) return 0.0f;
  if (rate >= 1.0) return 1.0f;
  std::vector<float> g;
  for (int32_t t : tokens) g.push_back(m.gate(t));
  std::sort(g.begin(), g.end());
  const int i = (int)lround(rate * g.size());
  const float cut = 0.5f * (g[i - 1] + g[i]);
  return 1.0f / (1.0f + expf(-cut));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: skim_core_read_cost D E INT8 RUNS\n");
    return 2;
  }
  const Model m(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]) != 0);
  const int runs = atoi(argv[4]);
  keras_skim::SkimLstmCore core;
  core.Prepare(m.w);
  std::mt19937 rng(2);
  std::vector<int32_t> tokens(kTokens);
  for (int32_t& t : tokens) t = 1 + (int32_t)(rng() % (kVocab - 1));
  std::vector<float> h(m.d), mask(kTokens);
  printf("simd %s\n", core.simd());
  for (double rate : {0.0, 0.5, 0.8, 0.95, 0.975, 1.0}) {
    const float threshold = threshold_for(m, tokens, rate);
    int reads = 0;
    std::vector<double> us;
    for (int r = 0; r < runs + 3; ++r) {  // 3 untimed calls first
      const double t0 = thread_us();
      reads = core.Run(tokens.data(), kTokens, threshold, false, h.data(), mask.data());
      if (r >= 3) us.push_back(thread_us() - t0);
    }
    std::sort(us.begin(), us.end());
    printf("rate %.3f reads %d us %.2f\n", rate, reads, us[us.size() / 2]);
  }
  return 0;
}
