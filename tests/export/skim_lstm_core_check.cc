// keras-skim: a standalone check of the Skim-LSTM core (skim_lstm_core.cc),
// without LiteRT: the cases and the reference loop of skim_core_check.h
// with the LSTM's step. Built and run by tests/export/test_skim_lstm_core.py.
//
//   skim_lstm_core_check [SIMD]   (SIMD: avx512, avx2, sse, neon, generic)
#include "skim_lstm_core.h"

#include "skim_core_check.h"

namespace {

// The LSTM step on the op's weights (gates i, f, c, o): c and h of its n units.
struct LstmStep {
  const SkimInputs& in;
  std::vector<double> c;
  void operator()(bool read, const std::vector<double>& u, const double* terms, std::vector<double>* h) {
    const int n = read ? in.c.d : in.c.ds;
    std::vector<double> z(4 * n);
    for (int j = 0; j < 4 * n; ++j) z[j] = in.column(read, u, j, 0, in.K, terms[j]);
    for (int j = 0; j < n; ++j) {
      c[j] = sigmoid(z[n + j]) * c[j] + sigmoid(z[j]) * tanh(z[2 * n + j]);
      (*h)[j] = sigmoid(z[3 * n + j]) * tanh(c[j]);
    }
  }
};

void run_case(const char* simd, const CheckCase& c) {
  const SkimInputs in(c);
  keras_skim::SkimLstmWeights w;
  in.fill(&w);
  keras_skim::SkimLstmCore core(simd);
  core.Prepare(w);
  LstmStep step{in, std::vector<double>(c.d, 0.0)};
  print_case(core, in, step);
}

}  // namespace

int main(int argc, char** argv) {
  run_cases(argc > 1 ? argv[1] : "", 4, [](int, int) { return 0; }, run_case);
  return 0;
}
