// What the check programs of the skim cells' cores (skim_lstm_core_check.cc,
// skim_gru_core_check.cc) share: the op's weight inputs from deterministic
// pseudo-random weights, in every input mode (projected / folded rows,
// float / int8), a float64 reference loop whose cell step each program
// gives, and the one line per case that another build (another instruction
// set, aarch64 under qemu, Clang) must reproduce:
//
//   case <name> simd <simd> reads <n> reference_reads <n> mismatches <n>
//        max_error <e> mask <0/1 string> h <d values>
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include <string>
#include <vector>

#include "core_check_random.h"
#include "skim_rnn_core.h"

// Symmetric int8 with one scale per row (axis 0) or column (axis 1), as
// keras_skim.export.skim_op_weights.quantize_int8 does.
inline void quantize(const std::vector<float>& a, int rows, int cols, int axis, std::vector<int8_t>* q,
                     std::vector<float>* scale) {
  const int n = axis == 0 ? rows : cols;
  scale->assign(n, 0.0f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float& s = (*scale)[axis == 0 ? r : c];
      s = fmaxf(s, fabsf(a[(size_t)r * cols + c]));
    }
  for (float& s : *scale) s = s > 0 ? s / 127.0f : 1.0f;
  q->resize(a.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float v = nearbyintf(a[(size_t)r * cols + c] / (*scale)[axis == 0 ? r : c]);
      (*q)[(size_t)r * cols + c] = (int8_t)fmaxf(-127.0f, fminf(127.0f, v));
    }
}

inline double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// One case's settings: G gate blocks per cell (LSTM 4, GRU 3).
struct CheckCase {
  int G, d, ds;
  bool folded, int8, mask_zero;
  float threshold;
  int extra;  // floats of the cell's own extra weight vector (the GRU's recurrent biases)
};

// A case's op inputs (K = e + d rows, or d folded; S = G ds + 1; N = G d + S).
struct SkimInputs {
  static constexpr int e_in = 20, V = 300, T = 120;
  CheckCase c;
  int e, K, S, N, R;
  std::vector<float> rows, kernel, skim, bias, extra;
  std::vector<int8_t> rows_q, kernel_q;
  std::vector<float> rows_s, kernel_s;
  std::vector<double> rows_ref, kernel_ref;  // as the core sees them (int8 dequantized)
  std::vector<int32_t> tok;

  explicit SkimInputs(const CheckCase& cc) : c(cc) {
    const int G = c.G, d = c.d, ds = c.ds;
    S = G * ds + 1;
    N = G * d + S;
    e = c.folded ? 0 : e_in;
    K = e + d;
    R = c.folded ? N : e_in;
    Lcg g{(uint64_t)(d * 1000 + ds)};
    std::vector<float> emb = random(g, (size_t)V * e_in, 1.0f);
    std::vector<float> W = random(g, (size_t)e_in * G * d, 1.0f / sqrtf((float)e_in));
    std::vector<float> U = random(g, (size_t)d * G * d, 1.7f / sqrtf((float)d));
    std::vector<float> skim_x = random(g, (size_t)e_in * S, 1.0f / sqrtf((float)e_in));
    std::vector<float> skim_h = random(g, (size_t)d * S, 1.7f / sqrtf((float)d));
    bias = random(g, (size_t)N, 0.2f);
    tok.resize(T);
    for (int32_t& t : tok) t = 1 + (int32_t)g.below(V - 1);
    tok[5] = tok[6] = tok[40] = 0;  // padding (a word where mask_zero is off)
    extra = random(g, (size_t)c.extra, 0.2f);
    if (c.folded) {
      rows.resize((size_t)V * N);
      for (int v = 0; v < V; ++v)
        for (int j = 0; j < N; ++j) {
          double s = bias[j];
          for (int k = 0; k < e_in; ++k)
            s += (double)emb[(size_t)v * e_in + k] *
                 (j < G * d ? W[(size_t)k * G * d + j] : skim_x[(size_t)k * S + j - G * d]);
          rows[(size_t)v * N + j] = (float)s;
        }
      kernel = U;
      skim = skim_h;
    } else {
      rows = emb;
      kernel = W;
      kernel.insert(kernel.end(), U.begin(), U.end());
      skim = skim_x;
      skim.insert(skim.end(), skim_h.begin(), skim_h.end());
    }
    rows_ref.assign(rows.begin(), rows.end());
    kernel_ref.assign(kernel.begin(), kernel.end());
    if (c.int8) {
      quantize(rows, V, R, 0, &rows_q, &rows_s);
      quantize(kernel, K, G * d, 1, &kernel_q, &kernel_s);
      for (size_t i = 0; i < rows_ref.size(); ++i) rows_ref[i] = (double)rows_q[i] * rows_s[i / R];
      for (size_t i = 0; i < kernel_ref.size(); ++i) kernel_ref[i] = (double)kernel_q[i] * kernel_s[i % (G * d)];
    }
  }

  void fill(keras_skim::SkimRnnWeights* w) const {
    w->d = c.d;
    w->ds = c.ds;
    w->vocab = V;
    w->e = e;
    w->rows.data = c.int8 ? (const void*)rows_q.data() : (const void*)rows.data();
    w->rows.int8 = c.int8;
    w->rows.scale = c.int8 ? rows_s.data() : nullptr;
    w->kernel.data = c.int8 ? (const void*)kernel_q.data() : (const void*)kernel.data();
    w->kernel.int8 = c.int8;
    w->kernel.scale = c.int8 ? kernel_s.data() : nullptr;
    w->skim_kernel = skim.data();
    w->bias = bias.data();
  }

  // init + sum over rows [k0, k1) of u[k] * (column j of the read step's
  // kernel, or of the skim kernel), in float64.
  double column(bool read, const std::vector<double>& u, int j, int k0, int k1, double init) const {
    double s = init;
    for (int k = k0; k < k1; ++k)
      s += u[k] * (read ? kernel_ref[(size_t)k * c.G * c.d + j] : (double)skim[(size_t)k * S + j]);
    return s;
  }
};

// The float64 reference loop: the gate, then `step(read, u, terms, h)`
// (terms: the step's input terms, G n values for n = d (read) or ds) for
// every token that is read, or skimmed with ds > 0. Returns the reads.
template <class Step>
int reference(const SkimInputs& in, Step& step, std::vector<double>* h, std::vector<int>* mask) {
  const int d = in.c.d, e = in.e, K = in.K, N = in.N, S = in.S;
  std::vector<double> u(K), terms(N);
  h->assign(d, 0.0);
  mask->assign(in.tok.size(), 0);
  int reads = 0;
  for (size_t t = 0; t < in.tok.size(); ++t) {
    const int32_t tok = in.tok[t];
    if (in.c.mask_zero && tok == 0) continue;  // padding
    for (int j = 0; j < N; ++j) terms[j] = e ? in.bias[j] : in.rows_ref[(size_t)tok * N + j];
    for (int k = 0; k < e; ++k) u[k] = in.rows_ref[(size_t)tok * e + k];
    for (int k = 0; k < d; ++k) u[e + k] = (*h)[k];
    double gate = terms[N - 1];
    for (int k = 0; k < K; ++k) gate += u[k] * in.skim[(size_t)k * S + S - 1];
    const bool read = (float)sigmoid((float)gate) >= in.c.threshold;
    if (read || in.c.ds) step(read, u, terms.data() + (read ? 0 : in.c.G * d), h);
    (*mask)[t] = read;
    reads += read;
  }
  return reads;
}

// Runs `core` on the case and prints its line against the reference.
template <class Core, class Step>
void print_case(Core& core, const SkimInputs& in, Step& step) {
  const int d = in.c.d, T = (int)in.tok.size();
  std::vector<float> h(d), mask(T);
  const int reads = core.Run(in.tok.data(), T, in.c.threshold, in.c.mask_zero, h.data(), mask.data());
  std::vector<double> h_ref;
  std::vector<int> mask_ref;
  const int reads_ref = reference(in, step, &h_ref, &mask_ref);
  int mismatches = 0;
  double err = 0.0;
  std::string bits;
  for (int t = 0; t < T; ++t) {
    mismatches += (mask[t] != 0.0f) != (mask_ref[t] != 0);
    bits += mask[t] != 0.0f ? '1' : '0';
  }
  for (int j = 0; j < d; ++j) err = fmax(err, fabs(h[j] - h_ref[j]));
  printf("case d%d_ds%d_%s_%s%s_thr%.2f simd %s reads %d reference_reads %d mismatches %d max_error %.3e mask %s h",
         d, in.c.ds, in.c.folded ? "folded" : "projected", in.c.int8 ? "int8" : "float",
         in.c.mask_zero ? "" : "_words0", in.c.threshold, core.simd(), reads, reads_ref, mismatches, err,
         bits.c_str());
  for (int j = 0; j < d; ++j) printf(" %.7e", h[j]);
  printf("\n");
}

// Every case of a cell with G gate blocks and `extra(d, ds)` floats of its
// own weights: three sizes, projected and folded rows, float and int8, the
// thresholds 0 (read all), 0.5 and 1.5 (skim all) with id 0 as padding, and
// at 0.5 with id 0 a word (no mask_zero; projected float).
template <class RunCase, class Extra>
void run_cases(const char* simd, int G, Extra extra, RunCase run_case) {
  const int dims[][2] = {{16, 4}, {37, 0}, {100, 10}};
  for (const auto& dd : dims)
    for (int folded = 0; folded < 2; ++folded)
      for (int int8 = 0; int8 < 2; ++int8)
        for (float threshold : {0.0f, 0.5f, 1.5f}) {
          const int n = extra(dd[0], dd[1]);
          run_case(simd, CheckCase{G, dd[0], dd[1], folded != 0, int8 != 0, true, threshold, n});
          if (!folded && !int8 && threshold == 0.5f)
            run_case(simd, CheckCase{G, dd[0], dd[1], false, false, false, threshold, n});
        }
}
