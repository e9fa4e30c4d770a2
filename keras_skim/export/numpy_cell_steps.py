"""Keras' LSTM and GRU updates in NumPy (float64), on the units [0, n) of a
state: the arithmetic of one step that the custom ops' NumPy references
share (a skim cell's op runs them on the big or the small cell, a jump
model's op on its LSTM). Both take the input terms z_x = x W + b and the
recurrent terms z_h = h U."""

import numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_step(h, c, z_x, z_h, n, bhh):
    """Keras' LSTM update of units [0, n) (gates i, f, c, o); `bhh` unused."""
    i, f, g, o = np.split(z_x + z_h, 4)
    c, h = c.copy(), h.copy()
    c[:n] = sigmoid(f) * c[:n] + sigmoid(i) * np.tanh(g)
    h[:n] = sigmoid(o) * np.tanh(c[:n])
    return h, c


def gru_step(h, c, z_x, z_h, n, bhh):
    """Keras' GRU update (reset_after=True) of units [0, n) (gates z, r, h):
    h' = z h + (1 - z) tanh(x W_h + b_xh + r (h U_h + b_hh)); `c` unused."""
    z = sigmoid(z_x[:n] + z_h[:n])
    r = sigmoid(z_x[n : 2 * n] + z_h[n : 2 * n])
    candidate = np.tanh(z_x[2 * n :] + r * (z_h[2 * n :] + bhh))
    h = h.copy()
    h[:n] = z * h[:n] + (1.0 - z) * candidate
    return h, c
