"""Skim-GRU layer: a `keras.layers.RNN` of one `SkimGRUCell` that owns its loop."""

import keras

from keras_skim.models.skim_rnn.skim_gru_cell import SkimGRUCell
from keras_skim.models.skim_rnn.skim_rnn_layer import SkimRNNLayer


@keras.saving.register_keras_serializable(package="keras_skim")
class SkimGRU(SkimRNNLayer):
    """Skim-GRU layer - Seo et al. 2018, with GRU cells.

    `SkimGRU(units, small_units)` computes what
    `keras.layers.RNN(SkimGRUCell(units, small_units))` computes (same
    weights, skim loss, metrics, threshold and masking; see `SkimGRUCell`)
    and owns its loop, as `SkimLSTM` does (with the TensorFlow backend,
    training runs the fused loop of `SkimGRUCell`). Its `cell` is a
    `SkimGRUCell`, so the exporter and the keras-skim tools treat it as the
    `RNN` of that cell.

    Args:
        units: int, size d of the state h and of the big GRU.
        small_units: int, size d' of the small GRU, 0 <= d' < d.
        gamma: float, weight of the skim loss (paper eq. 8). Defaults to 0.01.
        threshold: float >= 0, read iff p_read >= threshold at inference
            (higher skims more; 1 - the paper's threshold). Defaults to 0.5.
        activation, recurrent_activation, use_bias, kernel_initializer,
        recurrent_initializer, bias_initializer, kernel_regularizer,
        recurrent_regularizer, bias_regularizer, kernel_constraint,
        recurrent_constraint, bias_constraint, dropout, recurrent_dropout:
            as in `keras.layers.GRU` (`reset_after=True`).
        gate_initializer: initializer of the read/skim gate kernels.
        initial_temperature: Gumbel-softmax temperature before any schedule.
        seed: random seed for the Gumbel noise and dropout.
        return_sequences, return_state, go_backwards, stateful, unroll: as in
            `keras.layers.GRU`; the states are `[h, stats]`.
        **kwargs: base layer keyword arguments, such as `name` and `dtype`.

    Call arguments:
        sequences: a 3D tensor `(batch, timesteps, features)`.
        mask: optional boolean `(batch, timesteps)`; masked steps keep the
            state and count in neither the skim loss nor the skim rate.
        training: bool, Gumbel-softmax mixing (True) or hard decisions.
        initial_state: optional list of initial state tensors.

    Example:

    >>> import numpy as np
    >>> from keras_skim import SkimGRU
    >>> layer = SkimGRU(16, 4)
    >>> layer(np.zeros((2, 5, 8), "float32")).shape
    (2, 16)

    Reference:
        Minjoon Seo, Sewon Min, Ali Farhadi, Hannaneh Hajishirzi.
        "Neural Speed Reading via Skim-RNN". ICLR 2018.
        https://arxiv.org/abs/1711.02085
    """

    cell_class = SkimGRUCell
    cell_name = "skim_gru_cell"
