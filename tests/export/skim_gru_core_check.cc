// keras-skim: a standalone check of the Skim-GRU core (skim_gru_core.cc),
// without LiteRT: the cases and the reference loop of skim_core_check.h
// with Keras' GRU step (reset_after=True). Built and run by
// tests/export/test_skim_gru_core.py.
//
//   skim_gru_core_check [SIMD]   (SIMD: avx512, avx2, sse, neon, generic)
#include "skim_gru_core.h"

#include "skim_core_check.h"

namespace {

// The GRU step on the op's weights (gates z, r, h; terms [b_z | b_r | b_xh]
// or a folded row's; the candidate's recurrent biases in `in.extra`):
// h[0:n] = c + z (h - c), c = tanh(x W_h + b_xh + r (h U_h + b_hh)).
struct GruStep {
  const SkimInputs& in;
  void operator()(bool read, const std::vector<double>& u, const double* terms, std::vector<double>* h) {
    const int n = read ? in.c.d : in.c.ds, e = in.e, K = in.K;
    const float* b_hh = in.extra.data() + (read ? 0 : in.c.d);
    std::vector<double> next(n);
    for (int j = 0; j < n; ++j) {
      const double z = sigmoid(in.column(read, u, j, 0, K, terms[j]));
      const double r = sigmoid(in.column(read, u, n + j, 0, K, terms[n + j]));
      const double xh = in.column(read, u, 2 * n + j, 0, e, terms[2 * n + j]);
      const double hh = in.column(read, u, 2 * n + j, e, K, b_hh[j]);
      const double c = tanh(xh + r * hh);
      next[j] = z * (*h)[j] + (1.0 - z) * c;
    }
    for (int j = 0; j < n; ++j) (*h)[j] = next[j];
  }
};

void run_case(const char* simd, const CheckCase& c) {
  const SkimInputs in(c);
  keras_skim::SkimGruWeights w;
  in.fill(&w);
  w.recurrent_bias = in.extra.data();
  keras_skim::SkimGruCore core(simd);
  core.Prepare(w);
  GruStep step{in};
  print_case(core, in, step);
}

}  // namespace

int main(int argc, char** argv) {
  run_cases(argc > 1 ? argv[1] : "", 3, [](int d, int ds) { return d + ds; }, run_case);
  return 0;
}
