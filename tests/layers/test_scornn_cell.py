"""Tests of keras_skim.models.scornn.scornn_cell.ScoRNNCell."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras import ops

from keras_skim.models.scornn.scornn_cell import ScoRNNCell

N, RHO, FEATURES, T, BATCH = 6, 2, 3, 5, 4


# ----------------------------------------------------------------------
# independent NumPy reference
# ----------------------------------------------------------------------
def np_skew(params, n):
    a = np.zeros((n, n))
    a[np.triu_indices(n, k=1)] = params
    return a - a.T


def np_cayley(a, rho):
    n = a.shape[0]
    d = np.diag(np.r_[np.ones(n - rho), -np.ones(rho)])
    eye = np.eye(n)
    return np.linalg.solve(eye + a, eye - a) @ d


def np_modrelu(z, b_mod):
    return np.sign(z) * np.maximum(np.abs(z) + b_mod, 0.0)


def np_step(x, h, u, w, b, b_mod):
    return np_modrelu(x @ u + h @ w + b, b_mod)


def np_weights(cell):
    return {
        "u": ops.convert_to_numpy(cell.kernel).astype("float64"),
        "a": np_skew(
            ops.convert_to_numpy(cell.skew_parameters).astype("float64"),
            cell.units,
        ),
        "b": ops.convert_to_numpy(cell.bias).astype("float64"),
        "b_mod": ops.convert_to_numpy(cell.modrelu_bias).astype("float64"),
    }


def randomize(cell, rng, scale=0.5):
    """Non-trivial weights so that every term of the step matters."""
    for var in (cell.kernel, cell.skew_parameters, cell.bias):
        var.assign(rng.normal(scale=scale, size=var.shape))
    cell.modrelu_bias.assign(rng.uniform(-0.3, 0.1, size=cell.units))


def orthogonality_error(w):
    w = np.asarray(w, dtype="float64")
    return np.linalg.norm(w.T @ w - np.eye(w.shape[0]))


def build_model(n=N, rho=RHO, seed=0, **cell_kwargs):
    model = keras.Sequential(
        [
            keras.Input((None, FEATURES)),
            keras.layers.RNN(ScoRNNCell(n, rho=rho, seed=seed, **cell_kwargs)),
            keras.layers.Dense(1),
        ]
    )
    return model


def data(rng, batch=BATCH, steps=T):
    x = rng.normal(size=(batch, steps, FEATURES)).astype("float32")
    y = rng.normal(size=(batch, 1)).astype("float32")
    return x, y


# ----------------------------------------------------------------------
# golden values
# ----------------------------------------------------------------------
def test_single_step_matches_numpy_reference():
    rng = np.random.default_rng(0)
    cell = ScoRNNCell(N, rho=RHO, seed=3)
    cell.build((None, FEATURES))
    randomize(cell, rng)
    x = rng.normal(size=(BATCH, FEATURES)).astype("float32")
    h = rng.normal(size=(BATCH, N)).astype("float32")
    out, new_state = cell(x, [h])
    p = np_weights(cell)
    w = np_cayley(p["a"], RHO)
    expected = np_step(x, h, p["u"], w, p["b"], p["b_mod"])
    np.testing.assert_allclose(ops.convert_to_numpy(out), expected, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(new_state[0]), expected, atol=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(cell.recurrent_matrix()), w, atol=1e-5)


def test_sequence_matches_numpy_reference():
    rng = np.random.default_rng(1)
    cell = ScoRNNCell(N, rho=RHO, seed=3)
    rnn = keras.layers.RNN(cell, return_sequences=True)
    x = rng.normal(size=(BATCH, T, FEATURES)).astype("float32")
    rnn(x)
    randomize(cell, rng)
    out = ops.convert_to_numpy(rnn(x))
    p = np_weights(cell)
    w = np_cayley(p["a"], RHO)
    h = np.zeros((BATCH, N))
    for t in range(T):
        h = np_step(x[:, t], h, p["u"], w, p["b"], p["b_mod"])
        np.testing.assert_allclose(out[:, t], h, atol=1e-5)


def test_no_bias_and_odd_units():
    rng = np.random.default_rng(2)
    cell = ScoRNNCell(5, rho=3, use_bias=False, seed=1)
    rnn = keras.layers.RNN(cell)
    x = rng.normal(size=(2, 3, FEATURES)).astype("float32")
    rnn(x)
    assert cell.bias is None
    assert cell.skew_parameters.shape == (10,)
    assert len(cell.trainable_weights) == 3
    a = np_skew(ops.convert_to_numpy(cell.skew_parameters), 5)
    # Section 4.2 init: 2x2 blocks, s_j = tan(t_j / 2) in [0, 1].
    assert a[0, 1] >= 0 and a[0, 1] <= 1 and a[2, 3] >= 0
    off_block = a.copy()
    off_block[0, 1] = off_block[1, 0] = off_block[2, 3] = off_block[3, 2] = 0
    assert np.all(off_block == 0)
    cell.modrelu_bias.assign(rng.uniform(-0.2, 0.2, size=5))
    w = np_cayley(a, 3)
    u = ops.convert_to_numpy(cell.kernel)
    h = np.zeros((2, 5))
    for t in range(3):
        h = np_step(x[:, t], h, u, w, 0.0, ops.convert_to_numpy(cell.modrelu_bias))
    np.testing.assert_allclose(ops.convert_to_numpy(rnn(x)), h, atol=1e-5)


def test_seed_makes_init_deterministic():
    def skew(seed):
        cell = ScoRNNCell(8, seed=seed)
        cell.build((None, 2))
        return ops.convert_to_numpy(cell.skew_parameters)

    np.testing.assert_array_equal(skew(7), skew(7))
    assert not np.array_equal(skew(7), skew(8))


# ----------------------------------------------------------------------
# orthogonality and determinant
# ----------------------------------------------------------------------
@pytest.mark.parametrize("rho", [0, 1, 6])
def test_determinant_is_minus_one_to_the_rho(rho):
    cell = ScoRNNCell(6, rho=rho, seed=0)
    cell.build((None, 1))
    w = ops.convert_to_numpy(cell.recurrent_matrix()).astype("float64")
    assert np.isclose(np.linalg.det(w), (-1.0) ** rho, atol=1e-5)
    assert orthogonality_error(w) < 1e-5


# ----------------------------------------------------------------------
# gradient: autodiff through the solve vs Theorem 3.2
# ----------------------------------------------------------------------
def test_gradient_matches_theorem_3_2():
    rng = np.random.default_rng(4)
    n, rho = 6, 2
    cell = ScoRNNCell(n, rho=rho, seed=0, dtype="float64")
    cell.build((None, 1))
    cell.skew_parameters.assign(rng.normal(size=n * (n - 1) // 2))
    grad_w = rng.normal(size=(n, n))  # dL/dW, with L = <dL/dW, W>
    with tf.GradientTape() as tape:
        w = cell.recurrent_matrix()
        loss = tf.reduce_sum(tf.constant(grad_w) * w)
    autodiff = tape.gradient(loss, cell.skew_parameters.value).numpy()

    a = np_skew(ops.convert_to_numpy(cell.skew_parameters), n)
    d = np.diag(np.r_[np.ones(n - rho), -np.ones(rho)])
    w_np = np_cayley(a, rho)
    v = np.linalg.solve((np.eye(n) + a).T, grad_w @ (d + w_np.T))
    theorem = v.T - v
    np.testing.assert_allclose(autodiff, theorem[np.triu_indices(n, k=1)], rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------
# W is formed once per forward pass, not once per step
# ----------------------------------------------------------------------
def _count_cayley(monkeypatch):
    calls = []
    original = ScoRNNCell._compute_recurrent_matrix

    def counting(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(ScoRNNCell, "_compute_recurrent_matrix", counting)
    return calls


def test_recurrent_matrix_computed_once_per_eager_call(monkeypatch):
    rng = np.random.default_rng(5)
    rnn = keras.layers.RNN(ScoRNNCell(N, rho=RHO, seed=0))
    x = rng.normal(size=(2, 7, FEATURES)).astype("float32")
    rnn(x)
    calls = _count_cayley(monkeypatch)
    rnn(x)  # eager: the time loop runs 7 Python steps
    assert len(calls) == 1
    assert rnn.cell._recurrent_matrix_cache is None  # cleared after the call


def test_recurrent_matrix_computed_once_per_fit_step(monkeypatch):
    rng = np.random.default_rng(6)
    model = build_model()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    calls = _count_cayley(monkeypatch)
    x, y = data(rng, batch=6, steps=9)
    model.fit(x, y, batch_size=2, epochs=1, verbose=0)
    assert len(calls) == 3  # 3 batches of 9 steps


def _function_op_types(concrete):
    """Op types of the outer graph and of each function in its library."""
    graph_def = concrete.graph.as_graph_def()
    outer = [node.op for node in graph_def.node]
    library = {f.signature.name: [node.op for node in f.node_def] for f in graph_def.library.function}
    return outer, library


def test_while_body_holds_no_matrix_solve_in_graph_mode():
    rng = np.random.default_rng(7)
    model = build_model()
    x, y = data(rng, steps=12)
    model(x)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        return tape.gradient(loss, model.trainable_variables)

    concrete = train_step.get_concrete_function(tf.TensorSpec((None, None, FEATURES)), tf.TensorSpec((None, 1)))
    outer, library = _function_op_types(concrete)
    solve_ops = ("MatrixSolve", "MatrixInverse", "MatrixSolveLs")
    bodies = {k: v for k, v in library.items() if "while_body" in k}
    assert bodies  # the RNN is a tf.while_loop
    for name, ops_in_body in bodies.items():
        assert not any(op in solve_ops for op in ops_in_body), name
    all_solves = outer.count("MatrixSolve") + sum(v.count("MatrixSolve") for v in library.values())
    # one solve forward, one (adjoint) solve for the gradient
    assert 1 <= all_solves <= 2
    grads = concrete(tf.constant(x), tf.constant(y))
    assert all(g is not None for g in grads)


def test_cell_called_directly_after_variable_change_is_fresh():
    rng = np.random.default_rng(8)
    cell = ScoRNNCell(N, rho=RHO, seed=0)
    x = rng.normal(size=(2, FEATURES)).astype("float32")
    h = rng.normal(size=(2, N)).astype("float32")
    out0 = ops.convert_to_numpy(cell(x, [h])[0])
    cell.skew_parameters.assign(rng.normal(size=cell.skew_parameters.shape))
    out1 = ops.convert_to_numpy(cell(x, [h])[0])
    assert not np.allclose(out0, out1)


# ----------------------------------------------------------------------
# masking, dropout
# ----------------------------------------------------------------------
def test_masked_steps_keep_the_state():
    rng = np.random.default_rng(9)
    cell = ScoRNNCell(N, rho=RHO, seed=0)
    inputs = keras.Input((None, FEATURES))
    masked = keras.layers.Masking(mask_value=0.0)(inputs)
    seq = keras.layers.RNN(cell, return_sequences=True)(masked)
    model = keras.Model(inputs, seq)
    x = rng.normal(size=(2, 6, FEATURES)).astype("float32")
    x[0, 4:] = 0.0  # trailing padding
    x[1, 2] = 0.0  # a hole in the middle
    randomize(cell, rng)
    out = ops.convert_to_numpy(model(x))
    np.testing.assert_allclose(out[0, 4], out[0, 3])
    np.testing.assert_allclose(out[0, 5], out[0, 3])
    np.testing.assert_allclose(out[1, 2], out[1, 1])
    # unpadded prefix equals a run on the prefix alone
    prefix = ops.convert_to_numpy(model(x[:1, :4]))
    np.testing.assert_allclose(out[0, :4], prefix[0], atol=1e-6)
    # the final state is the last unmasked one
    last = keras.layers.RNN(cell)(masked)
    last_out = ops.convert_to_numpy(keras.Model(inputs, last)(x))
    np.testing.assert_allclose(last_out[0], out[0, 3], atol=1e-6)


def test_dropout_only_in_training():
    rng = np.random.default_rng(10)
    kwargs = dict(rho=RHO, seed=0)
    plain = keras.layers.RNN(ScoRNNCell(N, **kwargs))
    drop = keras.layers.RNN(ScoRNNCell(N, dropout=0.5, recurrent_dropout=0.5, **kwargs))
    x = rng.normal(size=(3, 4, FEATURES)).astype("float32")
    plain(x)
    drop(x)
    drop.set_weights(plain.get_weights())
    ref = ops.convert_to_numpy(plain(x))
    np.testing.assert_allclose(ops.convert_to_numpy(drop(x, training=False)), ref, atol=1e-6)
    train_out = ops.convert_to_numpy(drop(x, training=True))
    assert not np.allclose(train_out, ref, atol=1e-4)
    assert drop.cell._recurrent_matrix_cache is None


def test_mixed_precision_solves_in_float32():
    rng = np.random.default_rng(12)
    rnn = keras.layers.RNN(ScoRNNCell(N, rho=RHO, seed=0), dtype="mixed_float16")
    x = rng.normal(size=(2, 3, FEATURES)).astype("float32")
    assert ops.convert_to_numpy(rnn(x)).dtype == np.float16
    w = rnn.cell.recurrent_matrix()
    assert ops.convert_to_numpy(w).dtype == np.float32
    assert orthogonality_error(ops.convert_to_numpy(w)) < 1e-5


# ----------------------------------------------------------------------
# serialization
# ----------------------------------------------------------------------
def test_get_config_round_trip():
    cell = ScoRNNCell(7, rho=5, use_bias=False, dropout=0.1, recurrent_dropout=0.2, seed=4)
    config = cell.get_config()
    for key in ("units", "rho", "use_bias", "dropout", "recurrent_dropout", "seed"):
        assert config[key] == getattr(cell, key)
    clone = ScoRNNCell.from_config(config)
    assert clone.get_config() == config
    assert ScoRNNCell(8).rho == 4  # default units // 2


@pytest.fixture(scope="module")
def trained_model():
    """A model fitted one epoch and its inputs, shared by the .keras and .h5
    cases (they only save it; tracing the fit is the slow part)."""
    rng = np.random.default_rng(11)
    model = build_model(n=5, rho=2)
    model.compile(optimizer="adam", loss="mse")
    x, y = data(rng)
    model.fit(x, y, epochs=1, verbose=0)
    return model, x


@pytest.mark.parametrize("suffix", ["keras", "h5"])
def test_model_save_load_gives_identical_outputs(tmp_path, suffix, trained_model):
    model, x = trained_model
    path = str(tmp_path / f"m.{suffix}")
    model.save(path)
    # A compiled model saved as .h5 cannot deserialize its compiled loss.
    loaded = keras.saving.load_model(path, compile=(suffix == "keras"))
    cell = loaded.layers[0].cell
    assert isinstance(cell, ScoRNNCell)
    assert cell.rho == 2
    np.testing.assert_array_equal(ops.convert_to_numpy(loaded(x)), ops.convert_to_numpy(model(x)))
    np.testing.assert_array_equal(
        ops.convert_to_numpy(cell.recurrent_matrix()),
        ops.convert_to_numpy(model.layers[0].cell.recurrent_matrix()),
    )


# ----------------------------------------------------------------------
# arguments and API
# ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(units=0), "units"),
        (dict(units=-3), "units"),
        (dict(units=4.0), "units"),
        (dict(units="4"), "units"),
        (dict(units=4, rho=-1), "rho"),
        (dict(units=4, rho=5), "rho"),
        (dict(units=4, rho=1.5), "rho"),
        (dict(units=4, dropout=1.0), "dropout"),
        (dict(units=4, recurrent_dropout=-0.1), "recurrent_dropout"),
        (dict(units=4, seed=1.5), "seed"),
    ],
)
def test_bad_arguments_raise_value_error(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        ScoRNNCell(**kwargs)


def test_recurrent_matrix_api():
    cell = ScoRNNCell(4, rho=1, seed=0)
    with pytest.raises(ValueError, match="built"):
        cell.recurrent_matrix()
    cell.build((None, 2))
    w = cell.recurrent_matrix()
    assert tuple(w.shape) == (4, 4)
    assert cell.state_size == 4 and cell.output_size == 4
    state = cell.get_initial_state(batch_size=3)
    assert tuple(state[0].shape) == (3, 4)
    a = ops.convert_to_numpy(cell.skew_matrix())
    np.testing.assert_array_equal(a, -a.T)
    np.testing.assert_allclose(ops.convert_to_numpy(w), np_cayley(a.astype("float64"), 1), atol=1e-6)


# ----------------------------------------------------------------------
# fast modReLU (TensorFlow backend)
# ----------------------------------------------------------------------
def test_fast_modrelu_equals_reference_values_and_gradients():
    from keras_skim.models.scornn.scornn_cell import _modrelu_reference, _tf_modrelu

    rng = np.random.default_rng(7)
    z = rng.normal(size=(6, 5)).astype("float32")
    b_mod = rng.normal(size=(5,)).astype("float32")
    # the kinks: z == 0 (sign) and |z| + b_mod == 0 (relu)
    z[0, :] = 0.0
    z[1, :] = -b_mod
    z[2, :] = b_mod
    b_mod[4] = 0.0
    z, b_mod = tf.constant(z), tf.constant(b_mod)
    upstream = tf.constant(rng.normal(size=(6, 5)).astype("float32"))

    def value_and_grads(fn):
        with tf.GradientTape() as tape:
            tape.watch([z, b_mod])
            out = fn(z, b_mod)
            loss = tf.reduce_sum(out * upstream)
        return (out,) + tuple(tape.gradient(loss, [z, b_mod]))

    fast = value_and_grads(_tf_modrelu())
    ref = value_and_grads(_modrelu_reference)
    np.testing.assert_array_equal(fast[0].numpy(), ref[0].numpy())
    np.testing.assert_array_equal(fast[1].numpy(), ref[1].numpy())
    np.testing.assert_allclose(fast[2].numpy(), ref[2].numpy(), rtol=1e-6)


def test_fit_gradients_equal_reference_formula(monkeypatch):
    import keras_skim.models.scornn.scornn_cell as module

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 6, 3)).astype("float32")
    x[:, 0] = 0.0  # z == 0 at the first step (zero state, zero input)

    def grads():
        cell = ScoRNNCell(5, rho=2, seed=1)
        rnn = keras.layers.RNN(cell, return_sequences=True)
        rnn.build((None, 6, 3))
        randomize(cell, np.random.default_rng(11))
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(rnn(x) ** 2)
        return [g.numpy() for g in tape.gradient(loss, rnn.trainable_weights)]

    fast = grads()
    monkeypatch.setattr(module.keras.backend, "backend", lambda: "other")
    ref = grads()
    for f, r in zip(fast, ref):
        np.testing.assert_allclose(f, r, rtol=1e-5, atol=1e-7)


def _check_orthogonal_with_determinant(w, rho):
    """W is float32, orthogonal, and of determinant (-1)^rho."""
    w = ops.convert_to_numpy(w)
    assert w.dtype == np.float32
    assert orthogonality_error(w) < 1e-5
    assert np.isclose(np.linalg.det(w.astype("float64")), (-1.0) ** rho, atol=1e-5)
    return w


def test_xla_train_step_equals_the_graph_one():
    """Keras compiles `fit` with XLA by default where a GPU is present
    (`jit_compile="auto"`); the Cayley solve, the pre-loop `W` and the
    modReLU gradient must give the same step there. Both fits keep `W`
    orthogonal with the right determinant (as at init) while training `A`."""
    from keras_skim.models.scornn.scornn_optimizer import scornn_optimizer

    x, y = data(np.random.default_rng(5), batch=8)
    weights = {}
    for jit in (False, True):
        keras.utils.set_random_seed(0)
        model = build_model(n=8, rho=3, seed=2)
        cell = model.layers[0].cell
        _check_orthogonal_with_determinant(cell.recurrent_matrix(), 3)
        randomize(cell, np.random.default_rng(6), scale=0.3)
        w0 = _check_orthogonal_with_determinant(cell.recurrent_matrix(), 3)
        model.compile(optimizer=scornn_optimizer(), loss="mse", jit_compile=jit)
        model.fit(x, y, batch_size=8, epochs=3, verbose=0)
        weights[jit] = [ops.convert_to_numpy(w) for w in model.weights]
        w1 = _check_orthogonal_with_determinant(cell.recurrent_matrix(), 3)
        assert not np.allclose(w0, w1, atol=1e-4)  # A was trained
    for graph, xla in zip(weights[False], weights[True]):
        np.testing.assert_allclose(xla, graph, rtol=1e-4, atol=1e-6)
