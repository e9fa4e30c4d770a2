// keras-skim: what the skim cells' kernels share: the token ids' rows, the
// big cell, the small cell and the gate packed for the inner loops, and the
// scratch of one sequence. A cell's core (skim_lstm_core.cc,
// skim_gru_core.cc) extends it with its own state and biases.
#pragma once
#include <stdint.h>
#include <string.h>

#include "gate_panels.h"
#include "simd_isa.h"
#include "skim_rnn_core.h"

namespace keras_skim {

struct SkimRnnPacked {
  explicit SkimRnnPacked(const char* want) : isa(PickSimd(want)) {}
  const SimdIsa& isa;
  int d = 0, ds = 0, V = 0, e = 0;
  int blocks = 4;  // gate blocks of each cell (LSTM 4, GRU 3)
  int K = 0;       // rows of every product: [x (e); h (d)]
  int N = 0;       // width of a folded row: [big cell | small cell | gate]
  bool folded = false;
  WeightRef rows;
  // Big cell: rows [x (e); h (d)], `blocks` gates of d units; float or int8.
  PanelShape big;
  PackedGates big_weights;
  bool big_int8 = false;
  Aligned<float> big_bias;  // [blocks][d_pad]
  // Small cell: rows [x; h], its blocks * ds columns packed flat (one
  // "gate"), so that it pads to a multiple of W once, not once per block.
  PanelShape small;
  Aligned<float> small_w, small_bias;  // bias [blocks ds] (+ padding)
  // Gate (l_read - l_skim) over [x; h].
  Aligned<float> gate_w;
  float gate_bias = 0.0f;
  // Scratch of one sequence. u0, u1: [x; h] (the big cell writes the new h
  // into the other one); init: a folded row's big-cell terms; z_s: the
  // small product; z_gates: it by block; xs, hoisted: a chunk's embeddings
  // and their big-cell input terms.
  static constexpr int kChunk = 32;  // tokens whose input terms are hoisted together
  static constexpr int kMaxW = 16;   // the widest vector of any instruction set, in floats
  Aligned<float> u0, u1, init, z_s, z_gates, h_tmp, xs, hoisted;

  int d_pad() const { return (d + isa.W - 1) / isa.W * isa.W; }
  int ds_pad() const { return (ds + isa.W - 1) / isa.W * isa.W; }
  GatePanels<float> big_float() const { return big_weights.floats(); }
  GatePanels<int8_t> big_int8_panels() const { return big_weights.int8s(); }
  GatePanels<float> small_panels() const { return {small, small_w.data(), nullptr}; }
  // The hoisted big-cell input terms of a chunk's token j, [blocks][d_pad].
  const float* hoisted_terms(int j) const { return hoisted.data() + (size_t)j * blocks * d_pad(); }

  // Sets the sizes, packs the big cell, the small cell's flat blocks and
  // the gate column (the last column of `skim_kernel`), and sizes the
  // scratch.
  void PrepareShared(const SkimRnnWeights& w, int blocks_) {
    d = w.d;
    ds = w.ds;
    V = w.vocab;
    e = w.e;
    blocks = blocks_;
    folded = e == 0;
    K = e + d;
    const int S = blocks * ds + 1;
    N = blocks * d + S;
    rows = w.rows;
    PackBig(w);
    small = PanelShape();
    small.W = isa.W;
    small.GP = isa.small_GP;
    small.gates = 1;
    small.units = blocks * ds;
    small.rows = K;
    small_w.resize(small.size());
    small_bias.resize(small.units_pad() + 1);
    if (ds) pack_rows(small, w.skim_kernel, K, S, 0, 0, small_w.data());
    if (ds && e) memcpy(small_bias.data(), w.bias + blocks * d, sizeof(float) * blocks * ds);
    // Zeros after K: the gate's dot product runs over whole vectors (u's
    // entries there are h's padding, or the zeros after it).
    gate_w.resize(K + kMaxW);
    for (int k = 0; k < K; ++k) gate_w.data()[k] = w.skim_kernel[(size_t)k * S + S - 1];
    gate_bias = e ? w.bias[N - 1] : 0.0f;
    u0.resize(e + d_pad() + kMaxW);
    u1.resize(e + d_pad() + kMaxW);
    init.resize(blocks * d_pad());
    // The LSTM's update reads the last block's ds_pad lanes from (blocks - 1) * ds.
    const int z_read = (blocks - 1) * ds + ds_pad();
    z_s.resize((small.units_pad() > z_read ? small.units_pad() : z_read) + 1);
    z_gates.resize(blocks * ds_pad() + 1);
    h_tmp.resize(ds_pad() + 1);
    hoisted.resize(e ? (size_t)kChunk * blocks * d_pad() : 0);
    xs.resize((size_t)kChunk * e);
  }

 private:
  // The big cell's kernel [K, blocks d] (int8: and its column scales) and,
  // projected, its bias [blocks d].
  void PackBig(const SkimRnnWeights& w) {
    big = PanelShape();
    big.W = isa.W;
    big.GP = isa.GP;
    big.gates = blocks;
    big.units = d;
    big.rows = K;
    const int dp = big.units_pad();
    big_int8 = w.kernel.int8;
    big_bias.resize(blocks * dp);
    if (e) pack_gate_vector(big, w.bias, big_bias.data());
    big_weights.Pack(big, w.kernel.data, w.kernel.int8, w.kernel.scale);
  }
};

}  // namespace keras_skim
