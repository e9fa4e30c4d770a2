// keras-skim: what the skim cells' kernels share: the token ids' rows,
// the small cell and the gate packed for the inner loops, and the scratch
// of one sequence. A cell's core (skim_lstm_core.cc, skim_gru_core.cc)
// extends it with its big cell.
#pragma once
#include <stdint.h>
#include <string.h>

#include "gate_panels.h"
#include "simd_isa.h"
#include "skim_lstm_core.h"

namespace keras_skim {

struct SkimRnnPacked {
  explicit SkimRnnPacked(const char* want) : isa(PickSimd(want)) {}
  const SimdIsa& isa;
  int d = 0, ds = 0, V = 0, e = 0;
  int K = 0;  // rows of every product: [x (e); h (d)]
  int N = 0;  // width of a folded row: [big cell | small cell | gate]
  int big_blocks = 4;  // gate blocks of the big cell in a folded row (LSTM 4, GRU 3)
  bool folded = false;
  WeightRef rows;
  // Small cell: rows [x; h], its 4 * ds columns packed flat (one "gate"),
  // so that it pads to a multiple of W once, not once per block.
  PanelShape small;
  Aligned<float> small_w, small_bias;  // bias [4 ds] (+ padding)
  // Gate (l_read - l_skim) over [x; h].
  Aligned<float> gate_w;
  float gate_bias = 0.0f;
  // Scratch of one sequence. u0, u1: [x; h] (the big cell writes the new h
  // into the other one); z_s: the small product; z_gates: it by block.
  static constexpr int kChunk = 32;  // tokens whose input terms are hoisted together
  Aligned<float> u0, u1, init, z_s, z_gates, h_tmp, xs, hoisted;

  int d_pad() const { return (d + isa.W - 1) / isa.W * isa.W; }
  int ds_pad() const { return (ds + isa.W - 1) / isa.W * isa.W; }

  // Sets the sizes, packs the small cell's flat blocks with `pack_small`
  // (rows [x; h] of `skim_kernel` [K, S] -> small_w) and the gate column
  // (the last column of `skim_kernel`), and sizes the scratch;
  // `hoisted_width`: floats of one token's hoisted input terms.
  template <typename PackSmall>
  void PrepareShared(int d_, int ds_, int V_, int e_, int big_blocks_, const WeightRef& rows_,
                     const float* skim_kernel, int S, int hoisted_width, PackSmall pack_small) {
    d = d_;
    ds = ds_;
    V = V_;
    e = e_;
    big_blocks = big_blocks_;
    folded = e == 0;
    K = e + d;
    N = big_blocks * d + S;
    rows = rows_;
    small = PanelShape();
    small.W = isa.W;
    small.GP = isa.small_GP;
    small.gates = 1;
    small.units = 4 * ds;
    small.rows = K;
    small_w.resize(small.size());
    small_bias.resize(small.units_pad() + 1);
    if (ds) pack_small(small, small_w.data());
    gate_w.resize(K);
    for (int k = 0; k < K; ++k) gate_w.data()[k] = skim_kernel[(size_t)k * S + S - 1];
    u0.resize(e + d_pad());
    u1.resize(e + d_pad());
    init.resize(4 * d_pad());
    z_s.resize(small.units_pad() + 1);
    z_gates.resize(4 * ds_pad() + 1);
    h_tmp.resize(ds_pad() + 1);
    hoisted.resize(e ? (size_t)kChunk * hoisted_width : 0);
    xs.resize((size_t)kChunk * e);
  }
};

}  // namespace keras_skim
