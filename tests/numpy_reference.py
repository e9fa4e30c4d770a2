"""Independent NumPy references of the recurrent steps, for golden tests."""
import numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_step(x, h, c, kernel, recurrent, bias):
    z = x @ kernel + h @ recurrent + bias
    n = z.shape[-1] // 4
    i, f, g, o = (z[:, k * n : (k + 1) * n] for k in range(4))
    c_new = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c_new), c_new


def gru_step(x, h_full, h_part, kernel, recurrent, bias):
    xp = x @ kernel + bias[0]
    hp = h_full @ recurrent + bias[1]
    n = xp.shape[-1] // 3
    z = sigmoid(xp[:, :n] + hp[:, :n])
    r = sigmoid(xp[:, n : 2 * n] + hp[:, n : 2 * n])
    cand = np.tanh(xp[:, 2 * n :] + r * hp[:, 2 * n :])
    return z * h_part + (1 - z) * cand


def skim_lstm_hard_step(x, h, c, w, small_units, threshold):
    """One inference step of Skim-LSTM; w maps weight names to arrays."""
    logits = x @ w["gate_kernel"] + h @ w["gate_recurrent_kernel"] + w["gate_bias"]
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    read = p[:, 0] >= threshold
    h_read, c_read = lstm_step(x, h, c, w["kernel"], w["recurrent_kernel"], w["bias"])
    h_skim, c_skim = h.copy(), c.copy()
    if small_units:
        hs, cs = lstm_step(
            x, h, c[:, :small_units], w["small_kernel"], w["small_recurrent_kernel"], w["small_bias"]
        )
        h_skim[:, :small_units] = hs
        c_skim[:, :small_units] = cs
    r = read[:, None]
    return np.where(r, h_read, h_skim), np.where(r, c_read, c_skim), read


def skim_gru_hard_step(x, h, w, small_units, threshold):
    logits = x @ w["gate_kernel"] + h @ w["gate_recurrent_kernel"] + w["gate_bias"]
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    read = p[:, 0] >= threshold
    h_read = gru_step(x, h, h, w["kernel"], w["recurrent_kernel"], w["bias"])
    h_skim = h.copy()
    if small_units:
        h_skim[:, :small_units] = gru_step(
            x, h, h[:, :small_units], w["small_kernel"], w["small_recurrent_kernel"], w["small_bias"]
        )
    return np.where(read[:, None], h_read, h_skim), read


def cell_weights(cell):
    """The cell's weights by short name (the part after the last '/')."""
    return {v.path.split("/")[-1]: np.asarray(v.numpy(), dtype=np.float64) for v in cell.weights}
