"""Structural-Jump-LSTM cell: an LSTM with a skip agent and a jump agent."""

from typing import Any

import keras
from keras import ops

from keras_skim.models.structural_jump.text_structure import NUM_OFFSETS

# Actions, as in the authors' code (`agent_1_skip/read`, `agent_2_word/comma/punct/end`).
SKIP, READ = 0, 1
NEXT_WORD, NEXT_SEPARATOR, NEXT_SENTENCE, END_OF_TEXT = 0, 1, 2, 3
NUM_SKIP_ACTIONS = 2
NUM_JUMP_ACTIONS = 4
NUM_NOISE = NUM_SKIP_ACTIONS + NUM_JUMP_ACTIONS
STEP_EXTRA = NUM_NOISE + NUM_OFFSETS  # packed step input = [x | noise | offsets]

# Layout of the per-step output (the "trace").
TRACE_ACTIVE = 0  # 1 at a visited word: a real word that was not jumped over
TRACE_READ = 1  # 1 where the word updated the LSTM
TRACE_SKIP_ACTION = 2  # SKIP/READ at visited words, 0 elsewhere
TRACE_JUMP_ACTION = 3  # the jump action at read words, 0 elsewhere
TRACE_SKIP_LOG_PROB = 4  # log pi_skip(action taken)
TRACE_JUMP_LOG_PROB = 5  # log pi_jump(action taken)
TRACE_SKIP_VALUE = 6
TRACE_JUMP_VALUE = 7
TRACE_SKIP_LOGITS = slice(8, 10)
TRACE_JUMP_LOGITS = slice(10, 14)
TRACE_SIZE = 14

# Layout of the third state: [countdown, onehot(previous skip action),
# onehot(previous jump action)].
AUX_COUNTDOWN = 0
AUX_SIZE = 1 + NUM_SKIP_ACTIONS + NUM_JUMP_ACTIONS


def pack_step_inputs(embedded_words, offsets, noise=None):
    """Packs the cell's per-step input `[x | noise | offsets]`.

    Keras' `RNN` takes one tensor per step, so the word vectors, the Gumbel
    noise of the two agents and the three jump offsets travel together.

    Args:
        embedded_words: float `(batch, T, d)`, the word stream's vectors.
        offsets: int or float `(batch, T, 3)` from `text_structure`
            (all 0 at padding).
        noise: float `(batch, T, 6)` Gumbel noise of the skip agent (2) and
            the jump agent (4), or None for greedy actions (zeros).

    Returns:
        float tensor `(batch, T, d + 9)`.
    """
    x = ops.convert_to_tensor(embedded_words)
    if noise is None:
        noise = ops.zeros(ops.shape(x)[:-1] + (NUM_NOISE,), dtype=x.dtype)
    return ops.concatenate([x, ops.cast(noise, x.dtype), ops.cast(offsets, x.dtype)], axis=-1)


@keras.saving.register_keras_serializable(package="keras_skim")
class StructuralJumpLSTMCell(keras.layers.Layer):
    """Structural-Jump-LSTM cell, for `keras.layers.RNN`.

    An LSTM that reads a word stream (punctuation removed) with two agents
    (Hansen et al. 2019, section 3). At each visited word a skip agent,
    `softmax(W relu(W_s [h; x'] + b_s))` with `x' = [x; onehot(previous skip
    action); onehot(previous jump action)]`, chooses to skip the word
    (h and c are kept) or to read it (one LSTM step on x'). After a read
    word a jump agent, `softmax(W relu(W_j h + b_j))`, chooses where to go
    next: the next word, the first word after the next sub-sentence
    separator, the first word after the next sentence end, or the end of
    the text. Both agents also have a value head (their critic).

    The cell steps over every position of the word stream, so a jump is a
    countdown in the state: the positions it passes over are inactive (no
    computation counts, no action, no cost). Actions are `argmax(logits +
    noise)` with the noise passed in the step input: Gumbel noise gives an
    exact sample of the policy (the Gumbel-max trick) and zero noise gives
    the greedy policy. With `speed_reading=False` every word is read and
    never jumped (the full-read pretraining of the paper); the agents still
    run, so their logits can be trained towards that.

    The step input is packed by `pack_step_inputs`: `[x (d) | noise (6) |
    off_sub, off_sent, off_end (3)]`, with the offsets of
    `keras_skim.models.structural_jump.text_structure` (`off_end = 0` marks padding). The
    per-step output is a trace of `TRACE_SIZE` = 14 values: active, read,
    skip action, jump action, the log-probabilities of both actions taken,
    both values, the 2 skip logits and the 4 jump logits (see the
    `TRACE_*` constants); the skip agent's entries are zero where the word
    was not visited and the jump agent's where it was not read. A loss built on it lives after the RNN (see
    `keras_skim.StructuralJumpLSTM`), because the episode's reward needs
    the prediction and the label.

    Args:
        units: int, size m of the LSTM state (128 in the paper).
        agent_units: int, size of each agent's hidden layer (25 in the paper).
        speed_reading: bool, whether the agents act (True) or every word is
            read (False). Can be changed after building without retracing
            (`cell.speed_reading = False`).
        activation: activation of the LSTM's cell candidate and output.
        recurrent_activation: activation of the LSTM's gates.
        kernel_initializer, recurrent_initializer, bias_initializer: the
            LSTM's initializers, as in `keras.layers.LSTMCell`.
        unit_forget_bias: add 1 to the forget-gate bias at initialization
            (the authors' code uses TF1's `LSTMCell`, forget_bias 1.0).
        agent_initializer: initializer of the agents' kernels (biases start
            at 0).
        **kwargs: base layer keyword arguments, such as `dtype`.

    Call arguments:
        inputs: a 2D tensor `(batch, d + 9)`, one packed step.
        states: list `[h, c, aux]` from the previous step; `aux` holds the
            jump countdown and the previous actions' one-hots.
        training: unused (the randomness comes in through the noise).

    Example:

    >>> import numpy as np, keras
    >>> from keras_skim import StructuralJumpLSTMCell
    >>> from keras_skim.models.structural_jump.structural_jump_lstm_cell import pack_step_inputs
    >>> words = np.random.rand(2, 5, 8).astype("float32")
    >>> n = np.array([[5], [3]])
    >>> i = np.arange(5)[None, :]
    >>> off_end = np.maximum(n - i, 0)
    >>> offsets = np.stack([np.minimum(off_end, 1)] * 2 + [off_end], -1)
    >>> rnn = keras.layers.RNN(StructuralJumpLSTMCell(16), return_sequences=True,
    ...                        return_state=True)
    >>> trace, h, c, aux = rnn(pack_step_inputs(words, offsets))
    >>> tuple(trace.shape), tuple(h.shape)
    ((2, 5, 14), (2, 16))

    Reference:
        Christian Hansen, Casper Hansen, Stephen Alstrup, Jakob Grue
        Simonsen, Christina Lioma. "Neural Speed Reading with
        Structural-Jump-LSTM". ICLR 2019. https://arxiv.org/abs/1904.00761
    """

    def __init__(
        self,
        units: int,
        agent_units: int = 25,
        speed_reading: bool = True,
        activation: str | Any = "tanh",
        recurrent_activation: str | Any = "sigmoid",
        kernel_initializer: str | Any = "glorot_uniform",
        recurrent_initializer: str | Any = "orthogonal",
        bias_initializer: str | Any = "zeros",
        unit_forget_bias: bool = True,
        agent_initializer: str | Any = "glorot_uniform",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _check_int("units", units, minimum=1)
        _check_int("agent_units", agent_units, minimum=1)
        if not isinstance(speed_reading, bool):
            raise ValueError(f"Argument `speed_reading` must be a bool. Received: speed_reading={speed_reading!r}")
        self.units = units
        self.agent_units = agent_units
        self._speed_reading_value = speed_reading
        self.activation = keras.activations.get(activation)
        self.recurrent_activation = keras.activations.get(recurrent_activation)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.recurrent_initializer = keras.initializers.get(recurrent_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.agent_initializer = keras.initializers.get(agent_initializer)
        self.lstm = keras.layers.LSTMCell(
            units,
            activation=activation,
            recurrent_activation=recurrent_activation,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias,
            dtype=self.dtype_policy,
            name="lstm",
        )

        def dense(size, name, activation=None):
            return keras.layers.Dense(
                size,
                activation=activation,
                kernel_initializer=agent_initializer,
                dtype=self.dtype_policy,
                name=name,
            )

        self.skip_hidden = dense(agent_units, "skip_hidden", "relu")
        self.skip_policy = dense(NUM_SKIP_ACTIONS, "skip_policy")
        self.skip_value = dense(1, "skip_value")
        self.jump_hidden = dense(agent_units, "jump_hidden", "relu")
        self.jump_policy = dense(NUM_JUMP_ACTIONS, "jump_policy")
        self.jump_value = dense(1, "jump_value")
        self.state_size = [units, units, AUX_SIZE]
        self.output_size = TRACE_SIZE

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        if input_dim is None or input_dim <= STEP_EXTRA:
            raise ValueError(
                f"StructuralJumpLSTMCell takes packed steps [x | noise (6) | offsets (3)] of size "
                f"d + {STEP_EXTRA} with d >= 1 (see pack_step_inputs). Received input size {input_dim}"
            )
        lstm_input = input_dim - STEP_EXTRA + NUM_SKIP_ACTIONS + NUM_JUMP_ACTIONS
        self.lstm.build((None, lstm_input))
        self.skip_hidden.build((None, self.units + lstm_input))
        self.skip_policy.build((None, self.agent_units))
        self.skip_value.build((None, self.agent_units))
        self.jump_hidden.build((None, self.units))
        self.jump_policy.build((None, self.agent_units))
        self.jump_value.build((None, self.agent_units))
        # Non-trainable so that it is saved with the model and can change
        # between training phases without retracing.
        self._speed_reading = self.add_weight(
            shape=(),
            name="speed_reading",
            initializer=keras.initializers.Constant(float(self._speed_reading_value)),
            trainable=False,
        )

    @property
    def speed_reading(self):
        """Whether the agents act (True) or every word is read (False)."""
        if self.built:
            return bool(ops.convert_to_numpy(self._speed_reading) > 0.5)
        return self._speed_reading_value

    @speed_reading.setter
    def speed_reading(self, value):
        if not isinstance(value, bool):
            raise ValueError(f"speed_reading must be a bool. Received: {value!r}")
        self._speed_reading_value = value
        if self.built:
            self._speed_reading.assign(float(value))

    def get_initial_state(self, batch_size: Any = None) -> Any:
        zeros = ops.zeros((batch_size, self.units), dtype=self.compute_dtype)
        # No countdown; the "previous" actions of the first word are READ
        # and NEXT_WORD, as in the authors' code.
        first = [0.0] * AUX_SIZE
        first[1 + READ] = first[1 + NUM_SKIP_ACTIONS + NEXT_WORD] = 1.0
        aux = ops.broadcast_to(ops.convert_to_tensor(first, dtype=self.compute_dtype), (batch_size, AUX_SIZE))
        return [zeros, zeros, aux]

    def call(self, inputs: Any, states: Any, training: bool | None = False) -> Any:
        h, c, aux = states
        dim = ops.shape(inputs)[-1] - STEP_EXTRA
        x = inputs[:, :dim]
        noise = inputs[:, dim : dim + NUM_NOISE]
        offsets = inputs[:, dim + NUM_NOISE :]
        countdown = aux[:, AUX_COUNTDOWN]
        previous = aux[:, AUX_COUNTDOWN + 1 :]
        dtype = h.dtype

        valid = ops.cast(offsets[:, 2] > 0.5, dtype)
        active = valid * ops.cast(countdown < 0.5, dtype)
        speed = ops.cast(self._speed_reading, dtype)
        xin = ops.concatenate([x, previous], axis=-1)

        skip_state = self.skip_hidden(ops.concatenate([h, xin], axis=-1))
        skip_logits = self.skip_policy(skip_state)
        skip_value = self.skip_value(skip_state)[:, 0]
        noisy = skip_logits + noise[:, :NUM_SKIP_ACTIONS]
        # A tie skips, as argmax (first maximum) would.
        chose_read = ops.cast(noisy[:, READ] > noisy[:, SKIP], dtype)
        chose_read = speed * chose_read + (1.0 - speed)
        read = active * chose_read

        h_read, (_, c_read) = self.lstm(xin, [h, c], training=False)
        keep = read[:, None]
        h_new = keep * h_read + (1.0 - keep) * h
        c_new = keep * c_read + (1.0 - keep) * c

        jump_state = self.jump_hidden(h_new)
        jump_logits = self.jump_policy(jump_state)
        jump_value = self.jump_value(jump_state)[:, 0]
        jump = ops.argmax(jump_logits + noise[:, NUM_SKIP_ACTIONS:], axis=-1)
        jump = ops.cast(jump, dtype) * speed * read  # NEXT_WORD after a skip
        jump_onehot = ops.one_hot(ops.cast(jump, "int32"), NUM_JUMP_ACTIONS, dtype=dtype)

        # Positions to pass over after this word: offset - 1 for the chosen
        # target (NEXT_WORD moves 1), counted down at inactive positions.
        targets = ops.concatenate([ops.ones_like(offsets[:, :1]), offsets], axis=-1)
        step = ops.sum(targets * jump_onehot, axis=-1)
        new_countdown = active * (step - 1.0) + (1.0 - active) * ops.maximum(countdown - 1.0, 0.0)
        skip_onehot = ops.stack([1.0 - chose_read, chose_read], axis=-1)
        acted = ops.concatenate([skip_onehot, jump_onehot], axis=-1)
        a = active[:, None]
        new_previous = a * acted + (1.0 - a) * previous
        new_aux = ops.concatenate([new_countdown[:, None], new_previous], axis=-1)

        skip_log_prob = ops.sum(ops.log_softmax(skip_logits, axis=-1) * skip_onehot, axis=-1)
        jump_log_prob = ops.sum(ops.log_softmax(jump_logits, axis=-1) * jump_onehot, axis=-1)
        # An agent's entries are zero where it did not act (the masks of the loss).
        trace = ops.concatenate(
            [
                ops.stack(
                    [
                        active,
                        read,
                        active * chose_read,
                        jump,
                        active * skip_log_prob,
                        read * jump_log_prob,
                        active * skip_value,
                        read * jump_value,
                    ],
                    axis=-1,
                ),
                a * skip_logits,
                keep * jump_logits,
            ],
            axis=-1,
        )
        return trace, [h_new, c_new, new_aux]

    def get_config(self) -> dict[str, Any]:
        config = {
            "units": self.units,
            "agent_units": self.agent_units,
            "speed_reading": self.speed_reading,
            "activation": keras.activations.serialize(self.activation),
            "recurrent_activation": keras.activations.serialize(self.recurrent_activation),
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": keras.initializers.serialize(self.recurrent_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "agent_initializer": keras.initializers.serialize(self.agent_initializer),
        }
        return {**super().get_config(), **config}


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"Argument `{name}` must be an integer >= {minimum}. Received: {name}={value!r}")
