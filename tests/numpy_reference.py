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


def _reads(x, h, w, threshold):
    """The gate's read decisions by the read rule's one reference (`keras_skim.contracts.read_decisions`)."""
    from keras_skim.contracts import read_decisions

    logits = x @ w["gate_kernel"] + h @ w["gate_recurrent_kernel"] + w["gate_bias"]
    return read_decisions(logits[:, 0] - logits[:, 1], threshold)


def skim_lstm_hard_step(x, h, c, w, small_units, threshold):
    """One inference step of Skim-LSTM; w maps weight names to arrays."""
    read = _reads(x, h, w, threshold)
    h_read, c_read = lstm_step(x, h, c, w["kernel"], w["recurrent_kernel"], w["bias"])
    h_skim, c_skim = h.copy(), c.copy()
    if small_units:
        hs, cs = lstm_step(x, h, c[:, :small_units], w["small_kernel"], w["small_recurrent_kernel"], w["small_bias"])
        h_skim[:, :small_units] = hs
        c_skim[:, :small_units] = cs
    r = read[:, None]
    return np.where(r, h_read, h_skim), np.where(r, c_read, c_skim), read


def skim_gru_hard_step(x, h, w, small_units, threshold):
    read = _reads(x, h, w, threshold)
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


def text_structure_reference(ids, separators, sentence_ends, others):
    """Word stream, offsets (sub, sent, end) and positions of one row of raw ids,
    by a plain scan (the authors' `comma`/`newsent`, computed backwards)."""
    punctuation = set(separators) | set(sentence_ends) | set(others)
    words, positions, breaks_sub, breaks_end = [], [], [], []
    for t, token in enumerate(ids):
        if token == 0:
            continue
        if token in punctuation:
            if words:
                breaks_sub[-1] |= token in separators or token in sentence_ends
                breaks_end[-1] |= token in sentence_ends
            continue
        words.append(token)
        positions.append(t)
        breaks_sub.append(False)
        breaks_end.append(False)
    n = len(words)
    off_sub, off_sent = [0] * n, [0] * n
    for flags, out in ((breaks_sub, off_sub), (breaks_end, off_sent)):
        v = 0
        for i in range(n - 1, -1, -1):
            v = 1 if (flags[i] or i == n - 1) else v + 1
            out[i] = v
    off_end = [n - i for i in range(n)]
    return words, np.array([off_sub, off_sent, off_end], dtype=np.int64).T.reshape(n, 3), positions


def structural_jump_pass(x, offsets, n, w, noise=None, speed_reading=True):
    """One pass of Structural-Jump-LSTM over one document's word vectors,
    following the paper's loop: an index that advances by the jump.

    Args:
        x: `(T, d)` word vectors; offsets: `(T, 3)`; n: word count;
        w: dict of weights (lstm kernel/recurrent/bias and the six Dense
        layers' kernel/bias as `skip_hidden_kernel`, ...);
        noise: optional `(T, 6)` Gumbel noise (zeros: greedy).

    Returns:
        visited, read (lists of word indices), jumps (the jump action after
        each read word), and the final h, c.
    """
    m = w["recurrent"].shape[0]
    h, c = np.zeros(m), np.zeros(m)
    prev_skip, prev_jump = 1, 0
    visited, read, jumps = [], [], []
    i = 0
    while i < n:
        g = np.zeros(6) if noise is None else noise[i]
        xin = np.concatenate([x[i], np.eye(2)[prev_skip], np.eye(4)[prev_jump]])
        s = np.maximum(np.concatenate([h, xin]) @ w["skip_hidden_kernel"] + w["skip_hidden_bias"], 0)
        logits = s @ w["skip_policy_kernel"] + w["skip_policy_bias"] + g[:2]
        visited.append(i)
        if speed_reading and not logits[1] > logits[0]:
            prev_skip, prev_jump = 0, 0
            i += 1
            continue
        h, c = (v[0] for v in lstm_step(xin[None], h[None], c[None], w["kernel"], w["recurrent"], w["bias"]))
        sj = np.maximum(h @ w["jump_hidden_kernel"] + w["jump_hidden_bias"], 0)
        jump = int(np.argmax(sj @ w["jump_policy_kernel"] + w["jump_policy_bias"] + g[2:])) if speed_reading else 0
        read.append(i)
        jumps.append(jump)
        prev_skip, prev_jump = 1, jump
        i += [1, offsets[i, 0], offsets[i, 1], offsets[i, 2]][jump]
    return visited, read, jumps, h, c


def structural_jump_weights(cell):
    """The cell's weights in float64 under the names `structural_jump_pass` uses."""
    w = {
        "kernel": cell.lstm.kernel.numpy(),
        "recurrent": cell.lstm.recurrent_kernel.numpy(),
        "bias": cell.lstm.bias.numpy(),
    }
    for name in ("skip_hidden", "skip_policy", "skip_value", "jump_hidden", "jump_policy", "jump_value"):
        layer = getattr(cell, name)
        w[f"{name}_kernel"] = layer.kernel.numpy()
        w[f"{name}_bias"] = layer.bias.numpy()
    return {k: np.asarray(v, np.float64) for k, v in w.items()}
