// keras-skim: a standalone check of the Structural-Jump-LSTM core
// (sj_lstm_core.cc), without LiteRT: deterministic pseudo-random weights and
// texts (words, separators, sentence ends, other punctuation, padding), the
// word term projected or folded, the agents on or off, and a float64
// reference written the other way round (the word stream and its offsets
// first, then the paper's loop over word indices that advances by the
// offset), one line per case that another build (another instruction set,
// aarch64 under qemu, Clang) must reproduce. Built and run by
// tests/export/test_sj_lstm_core.py.
//
//   sj_lstm_core_check [SIMD]   (SIMD: avx512, avx2, sse, neon, generic)
//
// Output, one line per case:
//   case <name> simd <simd> read <n> visited <n> reference_read <n> reference_visited <n>
//        mismatches <n> max_error <e> jumps <n0>,<n1>,<n2>,<n3> mask <codes> h <m values>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "sj_lstm_core.h"

#include "core_check_random.h"

using keras_skim::SjLstmCore;
using keras_skim::SjLstmWeights;

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// Ids 2, 3, 4, 5: separator, sentence end, other punctuation, sentence end.
const int8_t kKind[6] = {4, 0, 1, 2, 3, 2};

struct Model {
  int m, a, e, V;
  std::vector<float> emb, wx, wp, U, b;          // LSTM: x rows [e, 4m], previous rows [6, 4m], U, b
  std::vector<float> sh, sx, sp, sb, shead;      // skip agent: h [m, a], x [e, a], previous [6, a], b, head [a + 1]
  std::vector<float> jk, jb, jh, jhb;            // jump agent: [m, a], [a], [a, 4], [4]
};

// float64 reference: the word stream and the offsets (the authors'
// comma/newsent arrays, computed backwards), then the paper's loop.
void reference(const Model& M, const std::vector<int32_t>& tok, bool speed, std::vector<double>* h_out,
               std::vector<int>* codes, int* reads, int* visited, int jumps[4]) {
  std::vector<int> words, pos;
  std::vector<bool> brk_sub, brk_end;
  for (size_t t = 0; t < tok.size(); ++t) {
    const int kind = tok[t] < 6 ? kKind[tok[t]] : 0;
    if (kind == 4) continue;
    if (kind == 0) {
      words.push_back(tok[t]);
      pos.push_back((int)t);
      brk_sub.push_back(false);
      brk_end.push_back(false);
    } else if (!words.empty()) {
      if (kind == 1 || kind == 2) brk_sub.back() = true;
      if (kind == 2) brk_end.back() = true;
    }
  }
  const int n = (int)words.size();
  std::vector<int> off_sub(n), off_sent(n);
  for (int i = n - 1, vs = 0, ve = 0; i >= 0; --i) {
    vs = (brk_sub[i] || i == n - 1) ? 1 : vs + 1;
    ve = (brk_end[i] || i == n - 1) ? 1 : ve + 1;
    off_sub[i] = vs;
    off_sent[i] = ve;
  }
  const int m = M.m, a = M.a, e = M.e;
  std::vector<double> h(m, 0.0), c(m, 0.0), s(a), z(4 * m), hn(m);
  codes->assign(tok.size(), 3);
  for (int i = 0; i < n; ++i) (*codes)[pos[i]] = 2;
  *reads = *visited = 0;
  for (int k = 0; k < 4; ++k) jumps[k] = 0;
  int prev[6] = {0, 1, 1, 0, 0, 0};  // READ, NEXT_WORD
  for (int i = 0; i < n;) {
    const float* x = &M.emb[(size_t)words[i] * e];
    ++*visited;
    bool read = true;
    if (speed) {
      double gate = M.shead[a];
      for (int j = 0; j < a; ++j) {
        double v = M.sb[j];
        for (int k = 0; k < m; ++k) v += h[k] * M.sh[(size_t)k * a + j];
        for (int k = 0; k < e; ++k) v += x[k] * M.sx[(size_t)k * a + j];
        for (int k = 0; k < 6; ++k) v += prev[k] * M.sp[(size_t)k * a + j];
        gate += fmax(v, 0.0) * M.shead[j];
      }
      read = gate > 0.0;
    }
    if (!read) {
      (*codes)[pos[i]] = 0;
      const int p[6] = {1, 0, 1, 0, 0, 0};
      memcpy(prev, p, sizeof(prev));
      ++i;
      continue;
    }
    for (int j = 0; j < 4 * m; ++j) {
      double v = M.b[j];
      for (int k = 0; k < e; ++k) v += x[k] * M.wx[(size_t)k * 4 * m + j];
      for (int k = 0; k < 6; ++k) v += prev[k] * M.wp[(size_t)k * 4 * m + j];
      for (int k = 0; k < m; ++k) v += h[k] * M.U[(size_t)k * 4 * m + j];
      z[j] = v;
    }
    for (int j = 0; j < m; ++j) {
      c[j] = sigmoid(z[m + j]) * c[j] + sigmoid(z[j]) * tanh(z[2 * m + j]);
      h[j] = sigmoid(z[3 * m + j]) * tanh(c[j]);
    }
    int action = 0;
    if (speed) {
      double best = -INFINITY;
      for (int j = 0; j < a; ++j) {
        double v = M.jb[j];
        for (int k = 0; k < m; ++k) v += h[k] * M.jk[(size_t)k * a + j];
        s[j] = fmax(v, 0.0);
      }
      for (int q = 0; q < 4; ++q) {
        double l = M.jhb[q];
        for (int j = 0; j < a; ++j) l += s[j] * M.jh[(size_t)j * 4 + q];
        if (l > best) best = l, action = q;
      }
    }
    (*codes)[pos[i]] = 1;
    ++*reads;
    ++jumps[action];
    const int p[6] = {0, 1, action == 0, action == 1, action == 2, action == 3};
    memcpy(prev, p, sizeof(prev));
    i += action == 0 ? 1 : action == 1 ? off_sub[i] : action == 2 ? off_sent[i] : n - i;
  }
  *h_out = h;
}

void run_case(const char* simd, int m, int a, bool folded, bool speed, int seed) {
  const int e = 20, V = 300, T = 400, P = a + 4 * m;
  Lcg g{(uint64_t)(m * 1000 + a * 10 + seed)};
  Model M{m, a, e, V};
  M.emb = random(g, (size_t)V * e, 1.0f);
  M.wx = random(g, (size_t)e * 4 * m, 1.0f / sqrtf((float)e));
  M.wp = random(g, (size_t)6 * 4 * m, 0.5f);
  M.U = random(g, (size_t)m * 4 * m, 1.7f / sqrtf((float)m));
  M.b = random(g, (size_t)4 * m, 0.2f);
  M.sh = random(g, (size_t)m * a, 1.7f / sqrtf((float)m));
  M.sx = random(g, (size_t)e * a, 1.0f / sqrtf((float)e));
  M.sp = random(g, (size_t)6 * a, 0.5f);
  M.sb = random(g, (size_t)a, 0.2f);
  M.shead = random(g, (size_t)a + 1, 1.0f);
  M.jk = random(g, (size_t)m * a, 1.7f / sqrtf((float)m));
  M.jb = random(g, (size_t)a, 0.2f);
  M.jh = random(g, (size_t)a * 4, 1.0f);
  M.jhb = random(g, 4, 0.3f);
  if (seed != 2) M.jhb[3] -= 1.0f;  // the end of the text: rarer, so that the loop goes on
  M.shead[a] += 0.3f;  // reading a little more likely than skipping
  std::vector<int32_t> tok(T);
  for (int32_t& t : tok) {
    const uint32_t r = g.below(100);
    t = r < 8 ? 2 : r < 14 ? 3 : r < 16 ? 4 : r < 17 ? 5 : r < 19 ? 0 : 6 + (int32_t)g.below(V - 6);
  }
  std::vector<int8_t> kinds(V, 0);
  for (int v = 0; v < 6; ++v) kinds[v] = kKind[v];
  // The op's inputs (keras_skim/export/structural_jump_op.py): previous-action
  // states p = 0 (SKIP, NEXT_WORD) and 1 + j (READ, jump j).
  const int R = a + (folded ? 4 * m : e);
  std::vector<float> rows((size_t)V * R), previous((size_t)5 * P), kernel, jump_kernel(M.jk), jump_head(M.jh);
  for (int v = 0; v < V; ++v) {
    for (int j = 0; j < a; ++j) {
      double s = 0.0;
      for (int k = 0; k < e; ++k) s += (double)M.emb[(size_t)v * e + k] * M.sx[(size_t)k * a + j];
      rows[(size_t)v * R + j] = (float)s;
    }
    for (int j = 0; j < R - a; ++j) {
      double s = 0.0;
      if (folded)
        for (int k = 0; k < e; ++k) s += (double)M.emb[(size_t)v * e + k] * M.wx[(size_t)k * 4 * m + j];
      else
        s = M.emb[(size_t)v * e + j];
      rows[(size_t)v * R + a + j] = (float)s;
    }
  }
  for (int p = 0; p < 5; ++p) {
    int onehot[6] = {p == 0, p != 0, p == 0 || p == 1, p == 2, p == 3, p == 4};
    for (int j = 0; j < P; ++j) {
      double s = j < a ? M.sb[j] : M.b[j - a];
      for (int k = 0; k < 6; ++k) s += onehot[k] * (j < a ? M.sp[(size_t)k * a + j] : M.wp[(size_t)k * 4 * m + j - a]);
      previous[(size_t)p * P + j] = (float)s;
    }
  }
  if (!folded) kernel = M.wx;
  kernel.insert(kernel.end(), M.U.begin(), M.U.end());
  jump_kernel.insert(jump_kernel.end(), M.jb.begin(), M.jb.end());
  jump_head.insert(jump_head.end(), M.jhb.begin(), M.jhb.end());
  SjLstmWeights w;
  w.m = m;
  w.a = a;
  w.vocab = V;
  w.e = folded ? 0 : e;
  w.rows = rows.data();
  w.previous = previous.data();
  w.kernel = kernel.data();
  w.skip_kernel = M.sh.data();
  w.skip_head = M.shead.data();
  w.jump_kernel = jump_kernel.data();
  w.jump_head = jump_head.data();
  SjLstmCore core(simd);
  core.Prepare(w);
  std::vector<float> h(m);
  std::vector<int32_t> mask(T);
  // Twice: the second run must not depend on the first.
  core.Run(tok.data(), T / 2, kinds.data(), speed, h.data(), mask.data());
  const keras_skim::SjLstmCounts counts = core.Run(tok.data(), T, kinds.data(), speed, h.data(), mask.data());
  std::vector<double> h_ref;
  std::vector<int> codes;
  int reads = 0, visited = 0, jumps[4];
  reference(M, tok, speed, &h_ref, &codes, &reads, &visited, jumps);
  int mismatches = 0;
  double err = 0.0;
  std::string text;
  for (int t = 0; t < T; ++t) {
    mismatches += mask[t] != codes[t];
    text += (char)('0' + mask[t]);
  }
  for (int j = 0; j < m; ++j) err = fmax(err, fabs(h[j] - h_ref[j]));
  printf("case m%d_a%d_%s_%s_s%d simd %s read %d visited %d reference_read %d reference_visited %d "
         "mismatches %d max_error %.3e jumps %d,%d,%d,%d mask %s h",
         m, a, folded ? "folded" : "projected", speed ? "agents" : "full_read", seed, core.simd(), counts.read,
         counts.visited, reads, visited, mismatches, err, jumps[0], jumps[1], jumps[2], jumps[3], text.c_str());
  for (int j = 0; j < m; ++j) printf(" %.7e", h[j]);
  printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const char* simd = argc > 1 ? argv[1] : "";
  const int dims[][2] = {{16, 6}, {37, 25}, {128, 25}};
  for (const auto& d : dims)
    for (int folded = 0; folded < 2; ++folded)
      for (int seed = 0; seed < 3; ++seed) run_case(simd, d[0], d[1], folded, true, seed);
  for (const auto& d : dims) run_case(simd, d[0], d[1], false, false, 0);
  return 0;
}
