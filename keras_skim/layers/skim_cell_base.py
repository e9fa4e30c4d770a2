"""What `SkimLSTMCell` and `SkimGRUCell` share: the read/skim gate, the
Gumbel-softmax relaxation, the hard inference decision, the skim loss and the
skim-rate bookkeeping. Subclasses only say how their big and small cells step.
"""
import math

import keras
import tensorflow as tf
from keras import ops
from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

from keras_skim.metrics.skim_rate import SkimRate

# Index of each entry of the bookkeeping state carried next to the RNN state.
STAT_TOKENS = 0  # real tokens read so far: feeds the skim-loss normaliser
STAT_SKIMS = 1  # real tokens skimmed so far
STAT_LAST_STEP = 2  # clock value of the last real step (see SkimRate)
STAT_PENDING = 3  # the skim decision of that step, not yet in the metric
NUM_STATS = 4
_NEVER = -1.0e9  # "no real step yet": never equal to a clock value


class SkimCellBase(keras.layers.Layer, DropoutRNNCell):
    """Base class of the Skim-RNN cells (Seo et al., ICLR 2018).

    Not used directly: see `SkimLSTMCell` and `SkimGRUCell`, whose docstrings
    describe the arguments. Subclasses set `rnn_state_count` (2 for an LSTM's
    h and c, 1 for a GRU's h) and implement `build_cells`, `big_step` and
    `small_step`.
    """

    rnn_state_count = 1

    def __init__(
        self,
        units,
        small_units,
        gamma=0.01,
        threshold=0.5,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        gate_initializer="glorot_uniform",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        initial_temperature=1.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        _check_int("units", units, minimum=1)
        _check_int("small_units", small_units, minimum=0)
        if small_units >= units:
            raise ValueError(
                "Argument `small_units` must be smaller than `units` (the "
                f"small cell updates part of the state). Received: "
                f"units={units}, small_units={small_units}"
            )
        _check_float("gamma", gamma, minimum=0.0)
        _check_float("threshold", threshold, minimum=0.0)
        _check_float("initial_temperature", initial_temperature, minimum=1e-6)
        for name, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
            _check_float(name, rate, minimum=0.0)
            if rate >= 1.0:
                raise ValueError(
                    f"Argument `{name}` must be in [0, 1). Received: {name}={rate}"
                )
        self.units = units
        self.small_units = small_units
        self.gamma = float(gamma)
        self._threshold_value = float(threshold)
        self.activation = keras.activations.get(activation)
        self.recurrent_activation = keras.activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.recurrent_initializer = keras.initializers.get(recurrent_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.gate_initializer = keras.initializers.get(gate_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = keras.regularizers.get(recurrent_regularizer)
        self.bias_regularizer = keras.regularizers.get(bias_regularizer)
        self.kernel_constraint = keras.constraints.get(kernel_constraint)
        self.recurrent_constraint = keras.constraints.get(recurrent_constraint)
        self.bias_constraint = keras.constraints.get(bias_constraint)
        self.dropout = float(dropout)
        self.recurrent_dropout = float(recurrent_dropout)
        self.initial_temperature = float(initial_temperature)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed=seed)
        self.skim_rate = SkimRate(name="skim_rate")
        self.state_size = [units] * self.rnn_state_count + [NUM_STATS]
        self.output_size = units

    # ------------------------------------------------------------------ weights
    def _weight(self, name, shape, kind):
        initializer, regularizer, constraint = {
            "kernel": (self.kernel_initializer, self.kernel_regularizer, self.kernel_constraint),
            "recurrent": (
                self.recurrent_initializer,
                self.recurrent_regularizer,
                self.recurrent_constraint,
            ),
            "bias": (self.bias_initializer, self.bias_regularizer, self.bias_constraint),
            "gate": (self.gate_initializer, self.kernel_regularizer, None),
            "gate_bias": ("zeros", self.bias_regularizer, None),
        }[kind]
        return self.add_weight(
            shape=shape,
            name=name,
            initializer=initializer,
            regularizer=regularizer,
            constraint=constraint,
        )

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.build_cells(input_dim)
        # The gate sees [x_t; h_{t-1}] and scores (read, skim).
        self.gate_kernel = self._weight("gate_kernel", (input_dim, 2), "gate")
        self.gate_recurrent_kernel = self._weight(
            "gate_recurrent_kernel", (self.units, 2), "gate"
        )
        self.gate_bias = self._weight("gate_bias", (2,), "gate_bias")
        # Non-trainable so that they are saved with the model and can be
        # changed after training without retracing the graph.
        self.temperature = self.add_weight(
            shape=(),
            name="temperature",
            initializer=keras.initializers.Constant(self.initial_temperature),
            trainable=False,
        )
        self._threshold = self.add_weight(
            shape=(),
            name="threshold",
            initializer=keras.initializers.Constant(self._threshold_value),
            trainable=False,
        )

    def build_cells(self, input_dim):
        raise NotImplementedError

    def big_step(self, x, h_rec, states):
        """Returns the big cell's new states (each of size `units`)."""
        raise NotImplementedError

    def small_step(self, x, h_rec, states):
        """Returns the small cell's new states (each of size `small_units`)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- threshold
    @property
    def threshold(self):
        """Inference threshold: read iff p(read) >= threshold (a higher
        threshold skims more; 0 reads all, >= 1 skims all)."""
        if self.built:
            return float(ops.convert_to_numpy(self._threshold))
        return self._threshold_value

    @threshold.setter
    def threshold(self, value):
        _check_float("threshold", value, minimum=0.0)
        self._threshold_value = float(value)
        if self.built:
            self._threshold.assign(float(value))

    # -------------------------------------------------------------------- state
    def get_initial_state(self, batch_size=None):
        zeros = [
            ops.zeros((batch_size, self.units), dtype=self.compute_dtype)
            for _ in range(self.rnn_state_count)
        ]
        stats = ops.zeros((batch_size, NUM_STATS), dtype=self.compute_dtype)
        never = ops.one_hot(
            ops.full((batch_size,), STAT_LAST_STEP), NUM_STATS, dtype=self.compute_dtype
        )
        return zeros + [stats + _NEVER * never]

    def _threshold_cut(self):
        """float32 cut of the read rule: read iff l_read - l_skim >= cut,
        log(t) - log(1 - t) for 0 < t < 1, -inf at t <= 0, +inf at t >= 1."""
        t = ops.cast(self._threshold, "float32")
        logit = ops.log(t) - ops.log(1.0 - t)
        inf = ops.cast(float("inf"), "float32")
        return ops.where(t <= 0.0, -inf, ops.where(t >= 1.0, inf, logit))

    def gate_logits(self, x, h_rec):
        return (
            ops.matmul(x, self.gate_kernel)
            + ops.matmul(h_rec, self.gate_recurrent_kernel)
            + self.gate_bias
        )

    # --------------------------------------------------------------------- call
    def call(self, inputs, states, training=False):
        rnn_states = list(states[: self.rnn_state_count])
        stats = states[self.rnn_state_count]
        h_prev = rnn_states[0]

        x = inputs
        h_rec = h_prev
        if training and self.dropout > 0.0:
            x = x * self.get_dropout_mask(inputs)
        if training and self.recurrent_dropout > 0.0:
            h_rec = h_prev * self.get_recurrent_dropout_mask(h_prev)

        read_states = self.big_step(x, h_rec, rnn_states)
        skim_states = self._skim_states(x, h_rec, rnn_states)

        logits = self.gate_logits(x, h_rec)
        log_p = ops.log_softmax(logits, axis=-1)
        if training:
            weights = self._gumbel_softmax(log_p)
            skimmed = ops.cast(weights[:, 1] > weights[:, 0], self.compute_dtype)
        else:
            # p_read >= threshold, decided on the logit difference against
            # logit(threshold) (contracts.THRESHOLD_RULE): float32 sigmoid
            # rounds to 1.0 for logits above ~16.6, which would make
            # threshold 1 read some tokens; every backend compares logits.
            difference = ops.cast(logits[:, 0] - logits[:, 1], "float32")
            read = ops.cast(difference >= self._threshold_cut(), self.compute_dtype)
            skimmed = 1.0 - read
            weights = ops.stack([read, skimmed], axis=-1)

        new_states = [
            weights[:, :1] * r + weights[:, 1:] * s
            for r, s in zip(read_states, skim_states)
        ]
        new_stats, tokens = self._update_stats(stats, skimmed)
        if training and self.gamma > 0.0:
            new_states, tokens = _attach_skim_loss(
                new_states, tokens, -log_p[:, 1], self.gamma
            )
            new_stats = ops.concatenate([tokens[:, None], new_stats[:, 1:]], axis=-1)
        h = new_states[0]
        return h, new_states + [new_stats]

    def _skim_states(self, x, h_rec, rnn_states):
        if self.small_units == 0:
            # d' = 0 is the paper's skip baseline: the state is copied.
            return rnn_states
        small = self.small_step(x, h_rec, rnn_states)
        return [
            ops.concatenate([s, prev[:, self.small_units :]], axis=-1)
            for s, prev in zip(small, rnn_states)
        ]

    def _gumbel_softmax(self, log_p):
        uniform = keras.random.uniform(
            ops.shape(log_p), minval=1e-6, maxval=1.0 - 1e-6, seed=self.seed_generator
        )
        gumbel = -ops.log(-ops.log(uniform))
        return ops.softmax((log_p + gumbel) / self.temperature, axis=-1)

    def _update_stats(self, stats, skimmed):
        """Commits the previous step to the metric and records this one.

        Keras reverts the whole state at padded steps, so an entry written
        here survives only if this step is a real token.
        """
        # The token count keeps its gradient path: the skim loss sends each
        # sequence's length backwards through it (see _attach_skim_loss).
        tokens = stats[:, STAT_TOKENS] + 1.0
        stats = ops.stop_gradient(stats)
        now = self.skim_rate.tick()
        previous_was_real = ops.cast(
            ops.equal(stats[:, STAT_LAST_STEP], now - 1.0), self.compute_dtype
        )
        self.skim_rate.update_counts(
            ops.sum(previous_was_real * stats[:, STAT_PENDING]),
            ops.sum(previous_was_real),
        )
        skimmed = ops.stop_gradient(skimmed)
        new_stats = ops.stack(
            [
                tokens,
                stats[:, STAT_SKIMS] + skimmed,
                ops.broadcast_to(now, ops.shape(tokens)),
                skimmed,
            ],
            axis=-1,
        )
        return new_stats, tokens

    # ------------------------------------------------------------------- config
    def get_config(self):
        config = {
            "units": self.units,
            "small_units": self.small_units,
            "gamma": self.gamma,
            "threshold": self.threshold,
            "activation": keras.activations.serialize(self.activation),
            "recurrent_activation": keras.activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": keras.initializers.serialize(self.recurrent_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "gate_initializer": keras.initializers.serialize(self.gate_initializer),
            "kernel_regularizer": keras.regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": keras.regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": keras.regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": keras.constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": keras.constraints.serialize(self.recurrent_constraint),
            "bias_constraint": keras.constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "initial_temperature": self.initial_temperature,
            "seed": self.seed,
        }
        return {**super().get_config(), **config}


def _attach_skim_loss(new_states, tokens, neg_log_p_skim, gamma):
    """Adds gamma * mean over real tokens of -log p_skim to the training loss.

    `add_loss` cannot be used: the cell runs inside a while loop. Instead the
    term enters through the gradient, by an identity whose backward pass
    hands `neg_log_p_skim` the gradient the extra loss would give it.

    Two facts are recovered in the backward pass. (1) Whether this step was a
    real token: Keras selects the old state at padded steps, so the gradient
    reaching a padded step's new state is exactly zero. (2) The length of
    each sequence: `tokens` counts the real tokens up to this one, and its
    gradient is made to carry, backwards, the number of real tokens after it.
    The loss is the mean over each sequence's real tokens, averaged over the
    batch (Keras' default reduction), divided by the replicas in sync.
    """
    count = len(new_states)

    @tf.custom_gradient
    def identity(*args):
        states, tokens_in, aux = list(args[:count]), args[count], args[count + 1]

        def grad(*upstream):
            g_states, g_tokens = list(upstream[:count]), upstream[count]
            real = tf.zeros_like(tokens_in, dtype=tf.bool)
            for g in g_states:
                real = tf.logical_or(real, tf.reduce_any(tf.not_equal(g, 0.0), axis=-1))
            real = tf.cast(real, aux.dtype)
            length = tf.maximum(tokens_in + g_tokens, 1.0)
            batch = tf.cast(tf.shape(aux)[0], aux.dtype)
            replicas = tf.cast(
                tf.distribute.get_replica_context().num_replicas_in_sync
                if tf.distribute.get_replica_context() is not None
                else 1,
                aux.dtype,
            )
            g_aux = gamma * real / (length * batch * replicas)
            return (*g_states, g_tokens + real, g_aux)

        return (*states, tokens_in), grad

    outputs = identity(*new_states, tokens, neg_log_p_skim)
    return list(outputs[:count]), outputs[count]


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(
            f"Argument `{name}` must be an integer >= {minimum}. Received: {name}={value!r}"
        )


def _check_float(name, value, minimum):
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < minimum
    ):
        raise ValueError(
            f"Argument `{name}` must be a number >= {minimum}. Received: {name}={value!r}"
        )
