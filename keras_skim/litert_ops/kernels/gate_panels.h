// keras-skim: matrix-vector products of gated recurrent cells in a layout
// the inner loop streams once, front to back.
//
// A "gated" matrix has `gates` blocks of `units` columns (Keras' layout:
// column q * units + j is gate q of unit j) and K rows (the inputs of the
// product, e.g. [x; h]). Packed, the units are padded to a multiple of W and
// cut into groups of W; GP groups make a panel; a panel stores, for each row
// k, for each of its groups, for each gate, the W weights. A panel's
// GP * gates accumulators stay in registers over all K rows, and the cell
// update of its units runs right after its last row, so pre-activations
// never go to memory. Weights are float or int8 (int8: per-column scales,
// applied once per panel after the rows). This header packs; the products
// are in gate_panels.inc, compiled once per instruction set.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vector>


namespace keras_skim {

struct PanelShape {
  int W = 4;       // floats per vector
  int GP = 1;      // groups per full panel
  int gates = 4;   // gate blocks per unit (LSTM 4, GRU 3)
  int units = 0;   // real units
  int rows = 0;    // K
  int groups() const { return (units + W - 1) / W; }
  int units_pad() const { return groups() * W; }
  size_t size() const { return (size_t)rows * units_pad() * gates; }
  // Offset of (row k, unit j, gate q) in the packed array.
  size_t offset(int k, int j, int q) const {
    const int g = j / W, lane = j % W, p = g / GP, in = g % GP;
    const int panel_groups = groups() - p * GP < GP ? groups() - p * GP : GP;
    return (size_t)p * GP * W * gates * rows + ((size_t)k * panel_groups + in) * gates * W +
           (size_t)q * W + lane;
  }
};

// Copies rows [0, n) of `src` (row-major, `stride` values per row, the
// gate blocks starting at column `col0`, each `shape.units` wide) into
// packed rows [k0, k0 + n) of `dst` (float to float, int8 to int8).
template <typename S, typename T>
void pack_rows(const PanelShape& shape, const S* src, int n, int stride, int col0, int k0, T* dst) {
  for (int k = 0; k < n; ++k)
    for (int q = 0; q < shape.gates; ++q)
      for (int j = 0; j < shape.units; ++j)
        dst[shape.offset(k0 + k, j, q)] = static_cast<T>(src[(size_t)k * stride + col0 + q * shape.units + j]);
}

// A vector of `gates` blocks laid out [gates][units_pad] (padding zero).
inline void pack_gate_vector(const PanelShape& shape, const float* src, float* dst) {
  const int up = shape.units_pad();
  memset(dst, 0, sizeof(float) * shape.gates * up);
  for (int q = 0; q < shape.gates; ++q) memcpy(dst + q * up, src + q * shape.units, sizeof(float) * shape.units);
}

// 64-byte aligned storage for packed panels.
template <typename T>
class Aligned {
 public:
  void resize(size_t n) {
    buf_.assign(n * sizeof(T) + 64, 0);
    uintptr_t p = reinterpret_cast<uintptr_t>(buf_.data());
    data_ = reinterpret_cast<T*>((p + 63) & ~uintptr_t(63));
    size_ = n;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::vector<unsigned char> buf_;
  T* data_ = nullptr;
  size_t size_ = 0;
};

// A packed gated matrix and the per-column vectors its products need.
template <typename T>
struct GatePanels {
  PanelShape shape;
  const T* data = nullptr;       // packed weights
  const float* scale = nullptr;  // int8: [gates][units_pad] column scales; float: null
};

// A gated matrix packed once for the products: float, or int8 with its
// per-column scales. The skim cells' big cell and the Structural-Jump-LSTM's
// LSTM are packed by it.
struct PackedGates {
  PanelShape shape;
  bool int8 = false;
  Aligned<float> f;
  Aligned<int8_t> q;
  Aligned<float> scale;  // int8: [gates][units_pad]

  // `kernel`: [shape.rows, gates * units] row-major, float or (`is_int8`)
  // int8 whose column j is kernel[:, j] * column_scale[j].
  void Pack(const PanelShape& s, const void* kernel, bool is_int8, const float* column_scale) {
    shape = s;
    int8 = is_int8;
    const int cols = s.gates * s.units;
    f.resize(int8 ? 0 : s.size());
    q.resize(int8 ? s.size() : 0);
    scale.resize(int8 ? s.gates * s.units_pad() : 0);
    if (int8) {
      pack_rows(s, static_cast<const int8_t*>(kernel), s.rows, cols, 0, 0, q.data());
      pack_gate_vector(s, column_scale, scale.data());
    } else {
      pack_rows(s, static_cast<const float*>(kernel), s.rows, cols, 0, 0, f.data());
    }
  }
  GatePanels<float> floats() const { return {shape, f.data(), nullptr}; }
  GatePanels<int8_t> int8s() const { return {shape, q.data(), scale.data()}; }
};

}  // namespace keras_skim
