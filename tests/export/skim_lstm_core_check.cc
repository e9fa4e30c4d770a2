// keras-skim: a standalone check of the Skim-LSTM core (skim_lstm_core.cc),
// without LiteRT: deterministic pseudo-random weights, every input mode
// (projected / folded rows, float / int8), a float64 reference of the same
// math, and one line per case that another build (another instruction set,
// or aarch64 under qemu) must reproduce. Built and run by
// tests/export/test_skim_lstm_core.py.
//
//   skim_lstm_core_check [SIMD]   (SIMD: avx512, avx2, sse, neon, generic)
//
// Output, one line per case:
//   case <name> simd <simd> reads <n> reference_reads <n> mismatches <n>
//        max_error <e> mask <0/1 string> h <d values>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "skim_lstm_core.h"

#include "core_check_random.h"

using keras_skim::SkimLstmCore;
using keras_skim::SkimLstmWeights;

namespace {

// Symmetric int8 with one scale per row (axis 0) or column (axis 1), as
// keras_skim.export.custom_op_backend.quantize_int8 does.
void quantize(const std::vector<float>& a, int rows, int cols, int axis, std::vector<int8_t>* q,
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

double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// float64 reference on the op's weight inputs (int8 ones dequantized).
int reference(int d, int ds, int e, const std::vector<double>& rows, const std::vector<double>& kernel,
              const std::vector<float>& skim, const std::vector<float>& bias, const std::vector<int32_t>& tok,
              float threshold, std::vector<double>* h_out, std::vector<int>* mask) {
  const int S = 4 * ds + 1, N = 4 * d + S, K = e + d;
  std::vector<double> h(d, 0.0), c(d, 0.0), u(K), terms(N), z(4 * d);
  mask->assign(tok.size(), 0);
  int reads = 0;
  for (size_t t = 0; t < tok.size(); ++t) {
    if (tok[t] == 0) continue;  // padding
    if (e) {
      for (int k = 0; k < e; ++k) u[k] = rows[(size_t)tok[t] * e + k];
      for (int j = 0; j < N; ++j) terms[j] = bias[j];
    } else {
      for (int j = 0; j < N; ++j) terms[j] = rows[(size_t)tok[t] * N + j];
    }
    for (int k = 0; k < d; ++k) u[e + k] = h[k];
    double gate = terms[N - 1];
    for (int k = 0; k < K; ++k) gate += u[k] * skim[(size_t)k * S + 4 * ds];
    const bool read = (float)sigmoid((float)gate) >= threshold;
    const int n = read ? d : ds;
    if (n == 0) continue;
    for (int j = 0; j < 4 * n; ++j) {
      double s = read ? terms[j] : terms[4 * d + j];
      for (int k = 0; k < K; ++k) s += u[k] * (read ? kernel[(size_t)k * 4 * d + j] : skim[(size_t)k * S + j]);
      z[j] = s;
    }
    for (int j = 0; j < n; ++j) {
      c[j] = sigmoid(z[n + j]) * c[j] + sigmoid(z[j]) * tanh(z[2 * n + j]);
      h[j] = sigmoid(z[3 * n + j]) * tanh(c[j]);
    }
    (*mask)[t] = read;
    reads += read;
  }
  *h_out = h;
  return reads;
}

void run_case(const char* simd, int d, int ds, bool folded, bool int8, float threshold) {
  const int e = 20, V = 300, T = 120, S = 4 * ds + 1, N = 4 * d + S;
  Lcg g{(uint64_t)(d * 1000 + ds)};
  std::vector<float> emb = random(g, (size_t)V * e, 1.0f);
  std::vector<float> W = random(g, (size_t)e * 4 * d, 1.0f / sqrtf((float)e));
  std::vector<float> U = random(g, (size_t)d * 4 * d, 1.7f / sqrtf((float)d));
  std::vector<float> skim_x = random(g, (size_t)e * S, 1.0f / sqrtf((float)e));
  std::vector<float> skim_h = random(g, (size_t)d * S, 1.7f / sqrtf((float)d));
  std::vector<float> bias = random(g, (size_t)N, 0.2f);
  std::vector<int32_t> tok(T);
  for (int32_t& t : tok) t = 1 + (int32_t)g.below(V - 1);
  tok[5] = tok[6] = tok[40] = 0;  // padding
  // The op's inputs: rows, kernel [K, 4d], skim_kernel [K, S], bias.
  const int K = folded ? d : e + d, R = folded ? N : e;
  std::vector<float> rows, kernel, skim;
  if (folded) {
    rows.resize((size_t)V * N);
    for (int v = 0; v < V; ++v)
      for (int j = 0; j < N; ++j) {
        double s = bias[j];
        for (int k = 0; k < e; ++k)
          s += (double)emb[(size_t)v * e + k] * (j < 4 * d ? W[(size_t)k * 4 * d + j] : skim_x[(size_t)k * S + j - 4 * d]);
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
  std::vector<int8_t> rows_q, kernel_q;
  std::vector<float> rows_s, kernel_s;
  std::vector<double> rows_ref(rows.begin(), rows.end()), kernel_ref(kernel.begin(), kernel.end());
  if (int8) {
    quantize(rows, V, R, 0, &rows_q, &rows_s);
    quantize(kernel, K, 4 * d, 1, &kernel_q, &kernel_s);
    for (size_t i = 0; i < rows_ref.size(); ++i) rows_ref[i] = (double)rows_q[i] * rows_s[i / R];
    for (size_t i = 0; i < kernel_ref.size(); ++i) kernel_ref[i] = (double)kernel_q[i] * kernel_s[i % (4 * d)];
  }
  SkimLstmWeights w;
  w.d = d;
  w.ds = ds;
  w.vocab = V;
  w.e = folded ? 0 : e;
  w.rows.data = int8 ? (const void*)rows_q.data() : (const void*)rows.data();
  w.rows.int8 = int8;
  w.rows.scale = int8 ? rows_s.data() : nullptr;
  w.kernel.data = int8 ? (const void*)kernel_q.data() : (const void*)kernel.data();
  w.kernel.int8 = int8;
  w.kernel.scale = int8 ? kernel_s.data() : nullptr;
  w.skim_kernel = skim.data();
  w.bias = bias.data();
  SkimLstmCore core(simd);
  core.Prepare(w);
  std::vector<float> h(d), mask(T);
  const int reads = core.Run(tok.data(), T, threshold, true, h.data(), mask.data());
  std::vector<double> h_ref;
  std::vector<int> mask_ref;
  const int reads_ref = reference(d, ds, folded ? 0 : e, rows_ref, kernel_ref, skim, bias, tok, threshold,
                                  &h_ref, &mask_ref);
  int mismatches = 0;
  double err = 0.0;
  std::string bits;
  for (int t = 0; t < T; ++t) {
    mismatches += (mask[t] != 0.0f) != (mask_ref[t] != 0);
    bits += mask[t] != 0.0f ? '1' : '0';
  }
  for (int j = 0; j < d; ++j) err = fmax(err, fabs(h[j] - h_ref[j]));
  printf("case d%d_ds%d_%s_%s_thr%.2f simd %s reads %d reference_reads %d mismatches %d max_error %.3e mask %s h",
         d, ds, folded ? "folded" : "projected", int8 ? "int8" : "float", threshold, core.simd(), reads,
         reads_ref, mismatches, err, bits.c_str());
  for (int j = 0; j < d; ++j) printf(" %.7e", h[j]);
  printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const char* simd = argc > 1 ? argv[1] : "";
  const int dims[][2] = {{16, 4}, {37, 0}, {100, 10}};
  for (const auto& dd : dims)
    for (int folded = 0; folded < 2; ++folded)
      for (int int8 = 0; int8 < 2; ++int8)
        for (float threshold : {0.0f, 0.5f, 1.5f}) run_case(simd, dd[0], dd[1], folded, int8, threshold);
  return 0;
}
