"""Skim-LSTM layer: a `keras.layers.RNN` of one `SkimLSTMCell` that owns its loop."""

import keras

from keras_skim.models.skim_rnn.skim_lstm_cell import SkimLSTMCell
from keras_skim.models.skim_rnn.skim_rnn_layer import SkimRNNLayer


@keras.saving.register_keras_serializable(package="keras_skim")
class SkimLSTM(SkimRNNLayer):
    """Skim-LSTM layer - Seo et al. 2018.

    `SkimLSTM(units, small_units)` computes what
    `keras.layers.RNN(SkimLSTMCell(units, small_units))` computes, with the
    same weights, the same skim loss (`gamma`), `skim_rate` and `skim_loss`
    metrics, threshold and masking (see `SkimLSTMCell` for the model), and
    owns its loop, as `keras.layers.LSTM` does: it adds the skim loss after
    its loop itself, without the Keras internals that a plain
    `keras.layers.RNN` of a skim cell needs. With the TensorFlow backend,
    training runs the cell's fused loop (one input and one recurrent matmul
    per step for both cells and the gate, the bookkeeping after the loop; see
    `SkimLSTMCell`). Its `cell` is a `SkimLSTMCell`, so the exporter,
    `keras_skim.skim_cells`, `set_threshold` and `skim_statistics` treat it
    as the `RNN` of that cell.

    Args:
        units: int, size d of the shared state (h, c) and of the big LSTM.
        small_units: int, size d' of the small LSTM, 0 <= d' < d (0 copies
            the state: the paper's skip baseline).
        gamma: float, weight of the skim loss (paper eq. 8). Defaults to 0.01.
        threshold: float >= 0, read iff p_read >= threshold at inference
            (higher skims more; 1 - the paper's threshold). Defaults to 0.5.
        activation: activation of the cell candidate and output.
            Defaults to `"tanh"`.
        recurrent_activation: activation of the LSTM gates. Defaults to
            `"sigmoid"`.
        use_bias: whether the LSTMs use a bias vector. Defaults to `True`.
        kernel_initializer, recurrent_initializer, bias_initializer: as in
            `keras.layers.LSTM`.
        unit_forget_bias: add 1 to the forget-gate bias at initialization.
        gate_initializer: initializer of the read/skim gate kernels.
        kernel_regularizer, recurrent_regularizer, bias_regularizer,
        kernel_constraint, recurrent_constraint, bias_constraint: as in
            `keras.layers.LSTM`.
        dropout: fraction of the inputs to drop in training.
        recurrent_dropout: fraction of h_{t-1} to drop in training.
        initial_temperature: Gumbel-softmax temperature before any schedule
            (`keras_skim.GumbelTemperatureSchedule`).
        seed: random seed for the Gumbel noise and dropout.
        return_sequences: whether to return the whole output sequence.
        return_state: whether to return the final states `[h, c, stats]`
            too (`stats`: real tokens, skimmed tokens, summed -log p_skim and
            the last decision, per sequence).
        go_backwards: whether to read the sequence backwards.
        stateful: whether each batch starts from the last batch's states.
        unroll: whether to unroll the loop (short sequences only).
        **kwargs: base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: a 3D tensor `(batch, timesteps, features)`.
        mask: optional boolean `(batch, timesteps)`; masked steps keep the
            state and count in neither the skim loss nor the skim rate.
        training: bool, Gumbel-softmax mixing (True) or hard decisions.
        initial_state: optional list of initial state tensors.

    Example:

    >>> import numpy as np
    >>> from keras_skim import SkimLSTM
    >>> layer = SkimLSTM(16, 4)
    >>> layer(np.zeros((2, 5, 8), "float32")).shape
    (2, 16)

    Reference:
        Minjoon Seo, Sewon Min, Ali Farhadi, Hannaneh Hajishirzi.
        "Neural Speed Reading via Skim-RNN". ICLR 2018.
        https://arxiv.org/abs/1711.02085
    """

    cell_class = SkimLSTMCell
    cell_name = "skim_lstm_cell"
