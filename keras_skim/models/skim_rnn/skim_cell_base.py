"""What `SkimLSTMCell` and `SkimGRUCell` share: the read/skim gate, the
Gumbel-softmax relaxation, the hard inference decision, the skim loss and the
skim-rate bookkeeping. Subclasses only say how their big and small cells step.
"""

import math
from typing import Any

import keras
from keras import ops, tree

from keras_skim import keras_internals
from keras_skim.backends import current as backend
from keras_skim.keras_internals import DropoutRNNCell
from keras_skim.models.skim_rnn.layer_state_metrics import CellSkimLoss, CellSkimRate

# The state's layout; STAT_PENDING stays importable from here for skim_statistics and export.parity.
from keras_skim.models.skim_rnn.skim_state_layout import (  # noqa: F401
    NUM_STATS,
    STAT_PENDING,
    STAT_SKIM_LOSS,
    STAT_SKIMS,
    STAT_TOKENS,
)

# One op per split on TensorFlow; skim_lstm_cell and skim_gru_cell import it from here.
split_sizes = backend.split_sizes


class SkimCellBase(keras.layers.Layer, DropoutRNNCell):
    """Base class of the Skim-RNN cells (Seo et al., ICLR 2018).

    Not used directly: see `SkimLSTMCell` and `SkimGRUCell`, whose docstrings
    describe the arguments. Subclasses set `rnn_state_count` (2 for an LSTM's
    h and c, 1 for a GRU's h) and implement `build_cells`, `big_step` and
    `small_step`.
    """

    rnn_state_count = 1
    # Every constructor argument, each an attribute of the cell and a key of
    # its config (in this order), and an attribute of `SkimLSTM`/`SkimGRU`.
    constructor_arguments = tuple(
        "units small_units gamma threshold activation recurrent_activation use_bias kernel_initializer "
        "recurrent_initializer bias_initializer gate_initializer kernel_regularizer recurrent_regularizer "
        "bias_regularizer kernel_constraint recurrent_constraint bias_constraint dropout recurrent_dropout "
        "initial_temperature seed".split()
    )
    # With the TensorFlow backend, training runs the fused loop of
    # `skim_training_loop` (see `run_skim_loop`); False on an instance runs
    # the RNN layer's per-step loop of `call` instead (the same numbers,
    # slower: benchmarks/results/training_speed.md).
    fused_loop = True

    def __init__(
        self,
        units: int,
        small_units: int,
        gamma: float = 0.01,
        threshold: float = 0.5,
        activation: str | Any = "tanh",
        recurrent_activation: str | Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: str | Any = "glorot_uniform",
        recurrent_initializer: str | Any = "orthogonal",
        bias_initializer: str | Any = "zeros",
        gate_initializer: str | Any = "glorot_uniform",
        kernel_regularizer: str | Any | None = None,
        recurrent_regularizer: str | Any | None = None,
        bias_regularizer: str | Any | None = None,
        kernel_constraint: str | Any | None = None,
        recurrent_constraint: str | Any | None = None,
        bias_constraint: str | Any | None = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        initial_temperature: float = 1.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
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
                raise ValueError(f"Argument `{name}` must be in [0, 1). Received: {name}={rate}")
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
        # Their counts are the cell's state (see `variables`).
        self.skim_rate = CellSkimRate(name="skim_rate")
        self.skim_loss = CellSkimLoss(name="skim_loss")
        self.state_size = [units] * self.rnn_state_count + [NUM_STATS]
        self.output_size = units
        # `call` casts its inputs itself: the bookkeeping state stays float32
        # when the layer computes in float16 (see
        # `_inner_loop_with_skim_accounting`).
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        # Set by the pre-loop hook when an RNN layer will add the skim loss.
        self._rnn_will_account = False
        # Set by a layer that owns its loop (`SkimLSTM`, `SkimGRU`): it adds
        # the skim loss itself, without the hook (which still serves a plain
        # keras.layers.RNN that shares the cell).
        self._loop_owned = False
        # The seed of this RNN call's Gumbel draws where the loop cannot
        # advance `seed_generator` (JAX's scan); set before each loop.
        self._loop_seed = None

    # ------------------------------------------------------------------ weights
    @property
    def variables(self) -> list:
        """The cell's state: its weights, its seed generator's state and the
        counts of its `skim_rate` and `skim_loss` (not weights: not saved,
        not in `weights`), which `_account` updates after each RNN loop.
        Keras' JAX trainer carries the model's non-trainable variables from
        step to step, so the counts reach the logs there too
        (`layer_state_metrics`)."""
        return super().variables + self.skim_rate.state_variables + self.skim_loss.state_variables

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

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        self.build_cells(input_dim)
        # The gate sees [x_t; h_{t-1}] and scores (read, skim).
        self.gate_kernel = self._weight("gate_kernel", (input_dim, 2), "gate")
        self.gate_recurrent_kernel = self._weight("gate_recurrent_kernel", (self.units, 2), "gate")
        self.gate_bias = self._weight("gate_bias", (2,), "gate_bias")
        # Non-trainable so that they are saved with the model and can be
        # changed after training without retracing the graph; read in float32
        # under mixed precision too.
        self.temperature = self.add_weight(
            shape=(),
            name="temperature",
            initializer=keras.initializers.Constant(self.initial_temperature),
            trainable=False,
            autocast=False,
        )
        self._threshold = self.add_weight(
            shape=(),
            name="threshold",
            initializer=keras.initializers.Constant(self._threshold_value),
            trainable=False,
            autocast=False,
        )

    def build_cells(self, input_dim: int) -> None:
        raise NotImplementedError

    def big_step(self, x: Any, h_rec: Any, states: Any) -> Any:
        """Returns the big cell's new states (each of size `units`)."""
        raise NotImplementedError

    def small_step(self, x: Any, h_rec: Any, states: Any) -> Any:
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
    def get_initial_state(self, batch_size: Any = None) -> Any:
        zeros = [ops.zeros((batch_size, self.units), dtype=self.compute_dtype) for _ in range(self.rnn_state_count)]
        return zeros + [ops.zeros((batch_size, NUM_STATS), dtype=self.compute_dtype)]

    def _threshold_cut(self):
        """float32 cut of the read rule: read iff l_read - l_skim >= cut,
        log(t) - log(1 - t) for 0 < t < 1, -inf at t <= 0, +inf at t >= 1.
        The rule's reference is `keras_skim.contracts.threshold_cut`; the
        tests hold this one against it."""
        t = ops.cast(self._threshold, "float32")
        logit = ops.log(t) - ops.log(1.0 - t)
        inf = ops.cast(float("inf"), "float32")
        return ops.where(t <= 0.0, -inf, ops.where(t >= 1.0, inf, logit))

    def gate_logits(self, x: Any, h_rec: Any) -> Any:
        return ops.matmul(x, self.gate_kernel) + ops.matmul(h_rec, self.gate_recurrent_kernel) + self.gate_bias

    # ------------------------------------------------------------- RNN hooks
    def get_dropout_mask(self, step_input: Any) -> Any:
        # `keras.layers.RNN` calls this once before its loop (to make the
        # dropout mask the loop will reuse): the moment to make sure that the
        # layer accounts for the skim loss after the loop.
        self._rnn_will_account = _account_after_the_loop(self)
        self._loop_seed = backend.loop_seed(self.seed_generator)
        if (
            not self._rnn_will_account
            and not self._loop_owned
            and self.gamma > 0.0
            and keras_internals.python_training_flag()
        ):
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has gamma={self.gamma} but the "
                "keras.layers.RNN that runs it is not a tracked sublayer of the layer being "
                "called, so the skim loss could not be added. Keep the RNN layer as an "
                "attribute or in the model's layers."
            )
        return super().get_dropout_mask(step_input)

    # --------------------------------------------------------------------- call
    def call(self, inputs: Any, states: Any, training: bool | None = False) -> Any:
        if training and self.gamma > 0.0 and not self._rnn_will_account:
            raise ValueError(
                f"{type(self).__name__} {self.name!r} has gamma={self.gamma} and is called "
                "in training outside keras.layers.RNN: its skim loss is added only by the "
                "RNN layer that runs it. Wrap the cell in keras.layers.RNN, or use gamma=0 "
                "and add the skim loss yourself."
            )
        inputs = self._in_compute_dtype(inputs)
        rnn_states = [self._in_compute_dtype(s) for s in states[: self.rnn_state_count]]
        stats = ops.convert_to_tensor(states[self.rnn_state_count])
        if not keras.backend.is_float_dtype(stats.dtype):
            stats = ops.cast(stats, self.compute_dtype)
        h_prev = rnn_states[0]
        h_rec = h_prev
        if training and self.recurrent_dropout > 0.0:
            h_rec = h_prev * self.get_recurrent_dropout_mask(h_prev)

        x = inputs
        if training and self.dropout > 0.0:
            x = x * DropoutRNNCell.get_dropout_mask(self, inputs)
        read_states = self.big_step(x, h_rec, rnn_states)
        skim_states = self._skim_states(x, h_rec, rnn_states)
        logits = self.gate_logits(x, h_rec)
        gumbel = self._gumbel_noise(ops.shape(logits), *self._step_seed(stats)) if training else None
        return self._choose(read_states, skim_states, logits, gumbel, stats)

    def _choose(self, read_states, skim_states, logits, gumbel, stats):
        """The step's output and new states from the two candidates and the
        gate's logits: a Gumbel-softmax mix with the noise `gumbel` in
        training, the hard threshold decision when `gumbel` is None."""
        # In float32 under mixed precision too: the skim loss sums these.
        log_p = ops.log_softmax(ops.cast(logits, "float32"), axis=-1)
        if gumbel is not None:
            weights = ops.softmax((log_p + ops.cast(gumbel, "float32")) / self.temperature, axis=-1)
            weights = ops.cast(weights, self.compute_dtype)
            skimmed = weights[:, 1] > weights[:, 0]
        else:
            # p_read >= threshold, decided on the logit difference against
            # logit(threshold) (contracts.THRESHOLD_RULE): float32 sigmoid
            # rounds to 1.0 for logits above ~16.6, which would make
            # threshold 1 read some tokens; every backend compares logits.
            difference = ops.cast(logits[:, 0] - logits[:, 1], "float32")
            read = difference >= self._threshold_cut()
            skimmed = ops.logical_not(read)
            weights = ops.stack(
                [ops.cast(read, self.compute_dtype), ops.cast(skimmed, self.compute_dtype)],
                axis=-1,
            )

        new_states = [weights[:, :1] * r + weights[:, 1:] * s for r, s in zip(read_states, skim_states)]
        neg_log_p_skim = -log_p[:, 1]
        if self.gamma == 0.0:
            neg_log_p_skim = ops.stop_gradient(neg_log_p_skim)
        new_stats = self._update_stats(stats, skimmed, neg_log_p_skim)
        return new_states[0], new_states + [new_stats]

    # ------------------------------------------------------ the fused loop
    # With the TensorFlow backend, training runs `skim_training_loop`
    # instead of the RNN layer's per-step loop (see `run_skim_loop`); the
    # subclass lays out the weights and steps on the fused rows.
    def fused_weights(self) -> Any:
        """(kernel, recurrent_kernel, input_bias, recurrent_bias,
        scaled_column) of the big cell, the small cell and the gate together,
        columns in the order that `fused_step` reads; a bias may be None.
        The gate's columns come from `gate_columns`; `scaled_column` is the
        index of its scaled column, to which the loop adds the Gumbel noise
        over the temperature."""
        raise NotImplementedError

    def fused_step(self, row: Any, loop_states: Any, recurrent_part: Any) -> Any:
        """(read states, skim states, read weight, gate logit) of one training
        step: the two candidates for the loop states of `pack_fused_states`
        (each a tensor, or a tuple of pieces that the loop joins on the last
        axis),
        the Gumbel-softmax weight of reading (batch, 1) and l_read - l_skim
        (batch, 1), from a row `x_t @ kernel + input_bias` of
        `fused_weights` and `recurrent_part(h)`, which returns
        `h_rec @ recurrent_kernel + recurrent_bias` (h after recurrent
        dropout)."""
        raise NotImplementedError

    def pack_fused_states(self, states: Any) -> Any:
        """The RNN states (without the bookkeeping state) as the fused loop
        carries them."""
        return states

    def unpack_fused_states(self, loop_states: Any) -> Any:
        """The inverse of `pack_fused_states`."""
        return loop_states

    def fused_output(self, loop_state: Any) -> Any:
        """The cell's output (the last axis of size `units`) from the first
        loop state."""
        return loop_state

    def gate_columns(self) -> Any:
        """The gate's (kernel, recurrent kernel, bias) as two columns each,
        [scaled, logit]: l_read - l_skim over the temperature, and
        l_read - l_skim. The Gumbel-softmax weight of reading,
        softmax((log p + g) / tau)[read], is the sigmoid of
        (l_read - l_skim + g_read - g_skim) / tau, so the loop adds the
        noise over the temperature to the scaled column and takes its
        sigmoid."""
        inverse_temperature = 1.0 / ops.stop_gradient(ops.convert_to_tensor(self.temperature))
        gate = [ops.convert_to_tensor(w) for w in (self.gate_kernel, self.gate_recurrent_kernel, self.gate_bias)]
        gate = [w[..., :1] - w[..., 1:] for w in gate]
        return [ops.concatenate([w * ops.cast(inverse_temperature, w.dtype), w], axis=-1) for w in gate]

    def _in_compute_dtype(self, x):
        x = ops.convert_to_tensor(x)
        if keras.backend.standardize_dtype(x.dtype) != self.compute_dtype:
            x = ops.cast(x, self.compute_dtype)
        return x

    def _skim_states(self, x, h_rec, rnn_states):
        small = self.small_step(x, h_rec, rnn_states) if self.small_units else None
        return self._with_copied_tail(small, rnn_states)

    def _with_copied_tail(self, small_states, rnn_states):
        """The skim candidate: the small cell's states on the first d' units,
        the previous states on the rest."""
        if self.small_units == 0:
            # d' = 0 is the paper's skip baseline: the state is copied.
            return rnn_states
        return [ops.concatenate([s, prev[:, self.small_units :]], axis=-1) for s, prev in zip(small_states, rnn_states)]

    def _gumbel_noise(self, shape, seed=None):
        """Standard Gumbel samples of `shape`, in float32, from `seed` (see
        `_step_seed`), by default the cell's seed generator."""
        seed = self.seed_generator if seed is None else seed
        uniform = keras.random.uniform(shape, minval=1e-6, maxval=1.0 - 1e-6, dtype="float32", seed=seed)
        return -ops.log(-ops.log(uniform))

    def _step_seed(self, stats):
        """`()` where the step draws from the seed generator, else `(seed,)`:
        the loop's seed (`keras_skim.backends`) with the step's index, the
        most tokens any sequence has counted, folded in."""
        if self._loop_seed is None:
            return ()
        step = ops.cast(ops.max(ops.stop_gradient(stats[:, STAT_TOKENS])), "int32")
        return (backend.step_seed(self._loop_seed, step),)

    def _update_stats(self, stats, skimmed, neg_log_p_skim):
        """The bookkeeping state after this step, in the dtype of `stats`.

        Only the skim-loss sum keeps a gradient path; the counts do not.
        """
        dtype = stats.dtype
        counts = ops.stop_gradient(stats)
        skimmed = ops.cast(ops.stop_gradient(skimmed), dtype)
        return ops.stack(
            [
                counts[:, STAT_TOKENS] + 1.0,
                counts[:, STAT_SKIMS] + skimmed,
                stats[:, STAT_SKIM_LOSS] + ops.cast(neg_log_p_skim, dtype),
                skimmed,
            ],
            axis=-1,
        )

    def _account(self, initial_stats, final_stats):
        """Adds this RNN call's skim loss and updates the cell's metrics.

        Called by `keras.layers.RNN` after its loop (see
        `_account_after_the_loop`) with the bookkeeping state before and
        after the sequence; their difference covers this call's real tokens
        only. Adds gamma * (batch mean of each sequence's mean over its real
        tokens of -log p_skim) with `add_loss` (Seo et al. 2018, eq. 8; a
        sequence without real tokens adds 0), and updates `skim_rate` and
        `skim_loss`.
        """
        self._rnn_will_account = False
        initial_stats = ops.cast(initial_stats, "float32")
        final_stats = ops.cast(final_stats, "float32")
        tokens = ops.stop_gradient(final_stats[:, STAT_TOKENS] - initial_stats[:, STAT_TOKENS])
        skimmed = ops.stop_gradient(final_stats[:, STAT_SKIMS] - initial_stats[:, STAT_SKIMS])
        total = final_stats[:, STAT_SKIM_LOSS] - initial_stats[:, STAT_SKIM_LOSS]
        loss = self.gamma * ops.mean(ops.divide_no_nan(total, tokens))
        self._loop_seed = None
        self._count(ops.sum(skimmed), ops.sum(tokens), ops.stop_gradient(loss), ops.shape(tokens)[0])
        if self.gamma > 0.0:
            self.add_loss(loss)
        return loss

    def _count(self, skimmed, tokens, loss, batch):
        """Adds this call's counts to the cell's statistics state (read by
        `skim_rate` and `skim_loss`). Skipped in a stateless scope that does
        not carry that state (a symbolic call)."""
        rate, mean = self.skim_rate, self.skim_loss
        if not keras_internals.variables_writable(rate.state_variables + mean.state_variables):
            return
        batch = ops.cast(batch, "float32")
        rate.skimmed.assign_add(ops.cast(skimmed, rate.dtype))
        rate.tokens.assign_add(ops.cast(tokens, rate.dtype))
        # The batch-size-weighted mean of the skim loss, as Mean(sample_weight=batch).
        mean.total.assign_add(ops.cast(loss * batch, mean.dtype))
        mean.count.assign_add(ops.cast(batch, mean.dtype))

    # ------------------------------------------------------------------- config
    def get_config(self) -> dict[str, Any]:
        config = {name: _serialized(name, getattr(self, name)) for name in self.constructor_arguments}
        return {**super().get_config(), **config}


# The Keras registry that turns a constructor argument into its object and
# back, by the argument's name ("kernel_initializer": keras.initializers).
_KERAS_OBJECTS = {
    "activation": keras.activations,
    "initializer": keras.initializers,
    "regularizer": keras.regularizers,
    "constraint": keras.constraints,
}


def _serialized(name, value):
    """`value` of the constructor argument `name` as `get_config` stores it."""
    registry = _KERAS_OBJECTS.get(name.rsplit("_", 1)[-1])
    return registry.serialize(value) if registry else value


def _account_after_the_loop(cell):
    """Makes every `keras.layers.RNN` that runs `cell` call `cell._account`
    after its loop; returns whether one was found.

    Why not inside the loop: the cell sees neither the padding mask nor the
    final state, so at the last time step it cannot tell whether that step
    was a real token, and a gradient injected inside the loop cannot know
    the loss scale or the replica count. After the loop, the final
    bookkeeping state knows all of it, and `add_loss` hands the term to Keras
    like any other loss.

    How (Keras internals, see `keras_internals`): called from the cell's
    `get_dropout_mask`, which `keras.layers.RNN` calls once before its loop,
    inside the layer call context of the outermost layer being called (the
    model in `fit`). The RNN layers among that layer's tracked sublayers
    whose cell is, or stacks, `cell` get their `inner_loop` replaced, on the
    instance only, by `_inner_loop_with_skim_accounting`;
    `keras.layers.RNN.call` looks `self.inner_loop` up after the hook. An RNN
    created inside another layer's `call` and not kept as an attribute is
    not found (the caller raises in training).
    """
    entry = keras_internals.calling_layer()
    if entry is None:
        return False
    found = False
    for layer in keras_internals.tracked_layers(entry):
        if not isinstance(layer, keras.layers.RNN) or not hasattr(type(layer), "inner_loop"):
            continue
        if not any(c is cell for c, _ in _skim_cells_in(layer.cell)):
            continue
        found = True
        if getattr(layer, "owns_skim_loop", False):
            continue  # `SkimLSTM`, `SkimGRU`: run_skim_loop in their own inner_loop
        if keras_internals.replaced_inner_loop(layer) is not _inner_loop_with_skim_accounting:
            keras_internals.replace_inner_loop(layer, _inner_loop_with_skim_accounting)
    return found


def _inner_loop_with_skim_accounting(rnn, sequences, initial_state, mask, training=False):
    """`keras.layers.RNN.inner_loop` of `rnn`'s class, plus the skim cells'
    accounting (see `run_skim_loop`)."""
    return run_skim_loop(rnn, type(rnn).inner_loop.__get__(rnn), sequences, initial_state, mask, training)


def run_skim_loop(rnn, inner_loop, sequences, initial_state, mask, training=False):
    """Runs `inner_loop` (the RNN layer `rnn`'s loop) for skim cells.

    The skim cells' bookkeeping states run the loop in float32 (Keras casts
    every state to the compute dtype, float16 under mixed precision, where
    counts stop being exact at 2048 and sums lose digits); the RNN layer casts
    the final states back to the compute dtype for `return_state`. After the
    loop each cell adds its skim loss (`_account`).

    In training with the TensorFlow backend, when `rnn`'s cell is one skim
    cell (not stacked) and `rnn` neither unrolls nor zeroes masked outputs,
    the fused loop of `skim_training_loop` replaces `inner_loop`: the same
    arithmetic with both cells and the gate in one input and one recurrent
    matmul per step, and the bookkeeping after the loop.
    """
    positions = _skim_cells_in(rnn.cell)
    flat = list(tree.flatten(initial_state))
    for _, index in positions:
        flat[index] = ops.cast(flat[index], "float32")
    initial_state = tree.pack_sequence_as(initial_state, flat)
    if _runs_fused(rnn, training):
        from keras_skim.models.skim_rnn.skim_training_loop import fused_training_loop

        last_output, outputs, states = fused_training_loop(
            rnn.cell, sequences, list(initial_state), mask, rnn.go_backwards, rnn.return_sequences
        )
    else:
        last_output, outputs, states = inner_loop(
            sequences=sequences, initial_state=initial_state, mask=mask, training=training
        )
    final = tree.flatten(states)
    for cell, index in positions:
        cell._account(flat[index], final[index])
    return last_output, outputs, states


def _runs_fused(rnn, training):
    return (
        training is True
        and keras.backend.backend() == "tensorflow"
        and isinstance(rnn.cell, SkimCellBase)
        and rnn.cell.fused_loop
        and not rnn.unroll
        and not getattr(rnn, "zero_output_for_mask", False)
    )


def _skim_cells_in(cell, offset=0):
    """[(skim cell, index of its bookkeeping state in the flat RNN state)]."""
    return _skim_cells_and_width(cell, offset)[0]


def _skim_cells_and_width(cell, offset):
    if isinstance(cell, SkimCellBase):
        return [(cell, offset + cell.rnn_state_count)], cell.rnn_state_count + 1
    if isinstance(cell, keras.layers.StackedRNNCells):
        found, width = [], 0
        for inner in cell.cells:
            inner_found, inner_width = _skim_cells_and_width(inner, offset + width)
            found += inner_found
            width += inner_width
        return found, width
    return [], len(tree.flatten(cell.state_size))


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"Argument `{name}` must be an integer >= {minimum}. Received: {name}={value!r}")


def _check_float(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < minimum:
        raise ValueError(f"Argument `{name}` must be a number >= {minimum}. Received: {name}={value!r}")
