"""Scaled Cayley orthogonal RNN cell (scoRNN, Helfrich et al., ICML 2018)."""

import math
from typing import Any

import keras
import numpy as np
from keras import ops

from keras_skim.keras_internals import DropoutRNNCell


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"Argument `{name}` must be an int, got {value!r} of type {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"Argument `{name}` must be an int >= {minimum}, got {value}.")
    return int(value)


def _check_rate(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"Argument `{name}` must be a float in [0, 1), got {value!r}.")
    if not 0.0 <= value < 1.0:
        raise ValueError(f"Argument `{name}` must be a float in [0, 1), got {value}.")
    return float(value)


def _modrelu_reference(z, modrelu_bias):
    """`sign(z) * relu(|z| + b_mod)` from keras ops (any backend)."""
    return ops.sign(z) * ops.relu(ops.abs(z) + modrelu_bias)


_TF_MODRELU = None


def _tf_modrelu():
    """modReLU for the TensorFlow backend with a hand-written gradient.

    The forward value is the reference formula, op for op. The gradient
    is the one TensorFlow's autodiff derives from that formula, written
    with fewer ops and with only the output kept for the backward pass:
    with `s = sign(out)`,

    - `d out / d z = s^2` (1 where `out != 0`, else 0): autodiff gives
      `sign(z) * relu'(|z| + b_mod) * sign(z)`, which is 1 exactly where
      `z != 0` and `|z| + b_mod > 0`, i.e. where `out != 0`;
    - `d out / d b_mod = s` (`sign(z) * relu'(|z| + b_mod)`, again nonzero
      exactly where `out != 0`, with `sign(out) = sign(z)` there).

    Multiplying by `s` (+-1 or 0) is exact, so the gradient equals the
    autodiff one bit for bit (the batch sum for `b_mod` aside, whose
    order may differ). Inside the RNN's `tf.while_loop` this halves the
    per-step element-wise ops of the backward pass and the tensors kept
    per step for it.
    """
    global _TF_MODRELU
    if _TF_MODRELU is None:
        import tensorflow as tf

        @tf.custom_gradient
        def modrelu(z, modrelu_bias):
            out = tf.sign(z) * tf.nn.relu(tf.abs(z) + modrelu_bias)

            def grad(upstream):
                s = tf.sign(out)
                grad_bias = upstream * s
                grad_z = grad_bias * s
                axes = list(range(len(grad_bias.shape) - 1))
                return grad_z, tf.reduce_sum(grad_bias, axis=axes)

            return out, grad

        _TF_MODRELU = modrelu
    return _TF_MODRELU


@keras.saving.register_keras_serializable(package="keras_skim")
class ScoRNNCell(keras.layers.Layer, DropoutRNNCell):
    """Scaled Cayley orthogonal RNN cell (scoRNN).

    One step of the scoRNN of Helfrich, Willmott and Ye (2018):

    ```
    h_t = modReLU(x_t U + h_{t-1} W + b)
    modReLU(z) = sign(z) * relu(|z| + b_mod)
    W = (I + A)^-1 (I - A) D
    ```

    `A` is skew-symmetric (`A = S - S^T`, `S` strictly upper triangular)
    with `units * (units - 1) / 2` trainable entries stored row by row in
    the weight `skew_parameters`. `D` is a fixed diagonal matrix whose last
    `rho` entries are -1 and the others +1, so `W` is exactly orthogonal
    with `det(W) = (-1)^rho` for any `A`. `D` is rebuilt from `rho`, so it
    has no weight. States are row vectors (`h_{t-1} @ W`, Keras
    convention); the paper writes `W h_{t-1}`, which is the same map with
    `W` transposed and is orthogonal too.

    `A` starts as in section 4.2 of the paper: zero except 2x2 diagonal
    blocks `[[0, s_j], [-s_j, 0]]`, `s_j = sqrt((1 - cos t_j)/(1 + cos t_j))`,
    `t_j ~ U[0, pi/2]`, drawn with `seed`. The modReLU bias `b_mod` starts
    at zero and `U` at `U[-0.01, 0.01]`, the values of the paper's code.
    `b` (`use_bias=True`) also starts at zero; the paper has only `b_mod`,
    so `use_bias=False` gives its exact parameter count.

    `W` costs O(units^3) (one linear solve), so it is formed once per call
    of the enclosing `keras.layers.RNN`, not once per time step: before its
    time loop, `RNN` asks every `DropoutRNNCell` for its dropout masks
    (so that the loop body is stateless) and clears them after the loop.
    This cell computes `W` in that pre-loop hook
    (`get_recurrent_dropout_mask`) and drops it in
    `reset_recurrent_dropout_mask`; the loop body only reads it, so in a
    `tf.function` the `tf.while_loop` body captures `W` and holds no
    matrix solve. Gradients reach `skew_parameters` through the solve
    (`keras.ops.solve`). When the cell is called outside `RNN` (a single
    step), it forms `W` itself in that call.

    The paper trains `A` with a smaller learning rate than the other
    weights; see `keras_skim.models.scornn.scornn_optimizer`.

    Args:
        units: Positive int, dimensionality of the state and the output.
        rho: Int in `[0, units]`, number of -1 entries of `D` (the last
            `rho` diagonal entries). Default `None` means `units // 2`,
            the paper's choice for permuted MNIST and copying (it used
            `units // 10` for MNIST and `7 * units // 10` for adding with
            `T >= 400`).
        use_bias: Boolean (default `True`), whether to add the bias `b`
            before the modReLU.
        kernel_initializer: Initializer for the input kernel `U`.
            Default: `RandomUniform(-0.01, 0.01)`.
        bias_initializer: Initializer for `b`. Default: `"zeros"`.
        modrelu_bias_initializer: Initializer for the modReLU bias `b_mod`.
            Default: `"zeros"`.
        kernel_regularizer: Regularizer for `U`. Default: `None`.
        bias_regularizer: Regularizer for `b`. Default: `None`.
        kernel_constraint: Constraint for `U`. Default: `None`.
        bias_constraint: Constraint for `b`. Default: `None`.
        dropout: Float in `[0, 1)`, fraction of the input units to drop
            (same mask at every step). Default: 0.
        recurrent_dropout: Float in `[0, 1)`, fraction of the state units
            to drop before `h_{t-1} W` (same mask at every step). Default:
            0. Note that it makes the recurrent map non-orthogonal while
            training.
        seed: Int or `None`, seed of the initial `A` and of the dropout
            masks.
        **kwargs: Standard layer keyword arguments (`name`, `dtype`, ...).

    Call arguments:
        inputs: A 2D tensor `(batch, features)`, one time step.
        states: A 2D tensor `(batch, units)` or a list holding it, the
            state of the previous step.
        training: Python boolean, whether dropout is applied.

    Example:

    ```python
    import numpy as np
    import keras
    from keras_skim.models.scornn.scornn_cell import ScoRNNCell

    inputs = np.random.random((4, 10, 2)).astype("float32")
    rnn = keras.layers.RNN(ScoRNNCell(8, rho=4, seed=1))
    outputs = rnn(inputs)  # shape (4, 8)
    W = rnn.cell.recurrent_matrix()  # (8, 8), W^T W = I
    ```

    Reference:
        - [Helfrich, Willmott, Ye, "Orthogonal Recurrent Neural Networks
          with Scaled Cayley Transform", ICML 2018](
          https://arxiv.org/abs/1707.09520)
    """

    # TensorFlow backend: modReLU with the hand-written gradient of
    # `_tf_modrelu` (False: the generic keras-ops formula; for comparisons).
    _fast_tf_modrelu = True

    def __init__(
        self,
        units: int,
        rho: int | None = None,
        use_bias: bool = True,
        kernel_initializer: str | Any | None = None,
        bias_initializer: str | Any = "zeros",
        modrelu_bias_initializer: str | Any = "zeros",
        kernel_regularizer: str | Any | None = None,
        bias_regularizer: str | Any | None = None,
        kernel_constraint: str | Any | None = None,
        bias_constraint: str | Any | None = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        units = _check_int("units", units, 1)
        if rho is None:
            rho = units // 2
        rho = _check_int("rho", rho, 0)
        if rho > units:
            raise ValueError(f"Argument `rho` must be an int in [0, units={units}], got {rho}.")
        if seed is not None:
            seed = _check_int("seed", seed, 0)
        dropout = _check_rate("dropout", dropout)
        recurrent_dropout = _check_rate("recurrent_dropout", recurrent_dropout)
        super().__init__(**kwargs)
        self.units = units
        self.rho = rho
        self.use_bias = bool(use_bias)
        if kernel_initializer is None:
            kernel_initializer = keras.initializers.RandomUniform(-0.01, 0.01)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.modrelu_bias_initializer = keras.initializers.get(modrelu_bias_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.bias_regularizer = keras.regularizers.get(bias_regularizer)
        self.kernel_constraint = keras.constraints.get(kernel_constraint)
        self.bias_constraint = keras.constraints.get(bias_constraint)
        self.dropout = dropout
        self.recurrent_dropout = recurrent_dropout
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)
        self.state_size = units
        self.output_size = units
        # W for the current keras.layers.RNN call (see class docstring).
        self._recurrent_matrix_cache = None

    # ------------------------------------------------------------------
    # weights
    # ------------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        n = self.units
        self.kernel = self.add_weight(
            shape=(input_shape[-1], n),
            name="kernel",
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.skew_parameters = self.add_weight(
            shape=(n * (n - 1) // 2,),
            name="skew_parameters",
            initializer=self._skew_initializer,
            # W is formed in the variable dtype (a float16 solve is neither
            # supported on CPU nor accurate) and cast for the step.
            autocast=False,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=(n,),
                name="bias",
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        else:
            self.bias = None
        self.modrelu_bias = self.add_weight(
            shape=(n,),
            name="modrelu_bias",
            initializer=self.modrelu_bias_initializer,
        )
        # Position (plus one) of A[i, j], i < j, in `skew_parameters`;
        # 0 points at a zero prepended to the vector.
        rows, cols = np.triu_indices(n, k=1)
        index = np.zeros((n, n), dtype="int32")
        index[rows, cols] = np.arange(1, rows.size + 1, dtype="int32")
        self._skew_index = index.reshape(-1)
        self._scaling = np.concatenate([np.ones(n - self.rho), -np.ones(self.rho)])

    def _skew_initializer(self, shape, dtype=None):
        """Section 4.2 of the paper: 2x2 rotation blocks on the diagonal."""
        n = self.units
        half = n // 2
        if half == 0:
            return ops.zeros(shape, dtype=dtype or "float32")
        t = keras.random.uniform(
            (half,),
            minval=0.0,
            maxval=math.pi / 2.0,
            dtype="float32",
            seed=self.seed_generator,
        )
        s = ops.sqrt((1.0 - ops.cos(t)) / (1.0 + ops.cos(t)))
        # Entry (2j, 2j + 1) of the strictly upper triangle, row-major: it
        # opens row i = 2j, which starts at offset i (n - 1) - i (i - 1) / 2.
        i = 2 * np.arange(half)
        flat = i * (n - 1) - i * (i - 1) // 2
        values = ops.scatter(ops.convert_to_tensor(flat[:, None].astype("int32")), s, shape)
        return ops.cast(values, dtype or "float32")

    def skew_matrix(self) -> Any:
        """Returns the skew-symmetric `A` (units, units) as a tensor."""
        params = ops.convert_to_tensor(self.skew_parameters)
        padded = ops.concatenate([ops.zeros((1,), dtype=params.dtype), params])
        upper = ops.reshape(ops.take(padded, self._skew_index), (self.units, self.units))
        return upper - ops.transpose(upper)

    def _compute_recurrent_matrix(self):
        """W = (I + A)^-1 (I - A) D, in the variable dtype."""
        a = self.skew_matrix()
        eye = ops.eye(self.units, dtype=a.dtype)
        scaling = ops.convert_to_tensor(self._scaling, dtype=a.dtype)
        return ops.solve(eye + a, eye - a) * scaling[None, :]

    def recurrent_matrix(self) -> Any:
        """Returns the current orthogonal recurrent matrix `W` as a tensor.

        The state update uses `h_{t-1} @ W`. Call `keras.ops.convert_to_numpy`
        on the result for a NumPy array.
        """
        if not self.built:
            raise ValueError(
                "ScoRNNCell.recurrent_matrix() needs a built cell; call the "
                "layer on data or `cell.build(input_shape)` first."
            )
        return self._compute_recurrent_matrix()

    # ------------------------------------------------------------------
    # per-RNN-call cache of W
    # ------------------------------------------------------------------
    def get_recurrent_dropout_mask(self, step_input: Any) -> Any:
        """Recurrent dropout mask; also forms `W` for this RNN call.

        `keras.layers.RNN` calls this once before its time loop and
        `reset_recurrent_dropout_mask` once after it; `W` is computed here
        so that the loop body does not solve a linear system per step.
        """
        self._recurrent_matrix_cache = self._compute_recurrent_matrix()
        return super().get_recurrent_dropout_mask(step_input)

    def reset_recurrent_dropout_mask(self) -> None:
        self._recurrent_matrix_cache = None
        super().reset_recurrent_dropout_mask()

    def _cached_matrix_is_usable(self, matrix):
        """False for a W left over from another graph (an aborted call)."""
        if keras.backend.backend() != "tensorflow":
            return True
        import tensorflow as tf

        if tf.executing_eagerly():
            return not tf.is_symbolic_tensor(matrix)
        if not tf.is_symbolic_tensor(matrix):
            return False
        graph = tf.compat.v1.get_default_graph()
        while graph is not None:
            if matrix.graph is graph:
                return True
            graph = getattr(graph, "outer_graph", None)
        return False

    def _step_recurrent_matrix(self):
        matrix = self._recurrent_matrix_cache
        if matrix is None or not self._cached_matrix_is_usable(matrix):
            matrix = self._compute_recurrent_matrix()
        return ops.cast(matrix, self.compute_dtype)

    # ------------------------------------------------------------------
    # step
    # ------------------------------------------------------------------
    def call(self, inputs: Any, states: Any, training: bool | None = False) -> Any:
        prev = states[0] if isinstance(states, (list, tuple)) else states
        # The base-class getters only read/fill the mask cache; the
        # overridden getter above is the pre-loop hook and is not needed
        # inside the step.
        dp_mask = super().get_dropout_mask(inputs)
        rec_dp_mask = super().get_recurrent_dropout_mask(prev)
        if training and dp_mask is not None:
            inputs = inputs * dp_mask
        if training and rec_dp_mask is not None:
            prev = prev * rec_dp_mask
        z = ops.matmul(inputs, self.kernel) + ops.matmul(prev, self._step_recurrent_matrix())
        if self._fast_tf_modrelu and keras.backend.backend() == "tensorflow":
            # Same values as the generic branch below; fewer ops per step
            # in the backward pass (see `_tf_modrelu`), and BiasAdd, whose
            # gradient is one BiasAddGrad instead of Sum + Reshape.
            import tensorflow as tf

            if self.bias is not None:
                z = tf.nn.bias_add(z, ops.cast(self.bias, z.dtype))
            output = _tf_modrelu()(z, ops.cast(self.modrelu_bias, z.dtype))
        else:
            if self.bias is not None:
                z = z + self.bias
            output = _modrelu_reference(z, self.modrelu_bias)
        new_state = [output] if isinstance(states, (list, tuple)) else output
        return output, new_state

    def get_initial_state(self, batch_size: Any = None) -> Any:
        return [ops.zeros((batch_size, self.state_size), dtype=self.compute_dtype)]

    def get_config(self) -> dict[str, Any]:
        config = {
            "units": self.units,
            "rho": self.rho,
            "use_bias": self.use_bias,
            "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
            "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            "modrelu_bias_initializer": keras.initializers.serialize(self.modrelu_bias_initializer),
            "kernel_regularizer": keras.regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": keras.regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": keras.constraints.serialize(self.kernel_constraint),
            "bias_constraint": keras.constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }
        base_config = super().get_config()
        return {**base_config, **config}
