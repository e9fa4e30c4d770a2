"""The LiteRT C API runtime (`keras_skim.runtime.litert_runner`): the same
outputs as the ai-edge-litert Python Interpreter on builtin exports, 64-byte
aligned buffers in custom-op exports, and one-line errors found when a model
is opened (unknown custom op, unaligned or zero-size tensors, no LiteRT)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.assertions import one_line
from tests.export.helpers import train_tiny

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THRESHOLDS = (0.0, 0.5, 1.5)


@pytest.fixture(scope="module")
def custom_models(tmp_path_factory):
    """{d': (Keras model, custom-op .tflite bytes)} for d' = 4 and 0."""
    from keras_skim.export.custom_op_backend import custom_op_flatbuffer

    out = {}
    for small in (4, 0):
        _, model = train_tiny(str(tmp_path_factory.mktemp(f"custom{small}")), "skim_lstm", small_units=small)
        out[small] = (model, custom_op_flatbuffer(model, threshold=0.5))
    return out


def buffer_offsets(data):
    """File offset of every non-empty buffer's data in a .tflite."""
    from ai_edge_litert import schema_py_generated as schema

    model = schema.Model.GetRootAsModel(data, 0)
    base = np.frombuffer(data, np.uint8).ctypes.data
    offsets = []
    for i in range(model.BuffersLength()):
        buffer = model.Buffers(i)
        if buffer.DataLength():
            offsets.append(buffer.DataAsNumpy().ctypes.data - base)
    return offsets


def sequences(vocabulary=50):
    rng = np.random.default_rng(5)
    return [rng.integers(1, vocabulary, n).astype(np.int32)[None] for n in (1, 9, 30, 4)]


def test_custom_backend_buffers_are_64_byte_aligned(custom_models):
    from keras_skim.export.flatbuffer_writer import BUFFER_ALIGNMENT
    from keras_skim.runtime.litert_runner import LiteRtModel

    assert BUFFER_ALIGNMENT == 64
    for small, (_, data) in custom_models.items():
        offsets = buffer_offsets(data)
        # options, rows, rows_scale, kernel, kernel_scale, skim_kernel, bias, dense W and b
        assert len(offsets) == 9, offsets
        assert [o % 64 for o in offsets] == [0] * 9, (small, offsets)
        runner = LiteRtModel(data).get_signature_runner("serving_default")
        out = runner(token_ids=sequences()[1], threshold=np.float32(0.0))
        assert int(out["read_count"][0]) == 9


def test_unaligned_custom_model_is_refused_when_opened(custom_models, monkeypatch):
    """What the custom backend wrote before: LiteRT's custom-op path would
    fail at the first run ("Unaligned host memory pointer"); the runtime says
    so when the model is opened."""
    from keras_skim.export import custom_op_backend, flatbuffer_writer
    from keras_skim.runtime.litert_runner import LiteRtError, LiteRtModel

    monkeypatch.setattr(flatbuffer_writer, "_aligned_buffer_class", lambda schema: schema.BufferT)
    model, _ = custom_models[4]
    data = custom_op_backend.custom_op_flatbuffer(model, threshold=0.5)
    assert any(o % 64 for o in buffer_offsets(data))  # the old layout
    with pytest.raises(LiteRtError) as info:
        LiteRtModel(data)
    assert "not 64-byte aligned" in one_line(str(info.value))


def test_unknown_custom_op_is_refused_when_opened(custom_models, tmp_path):
    from keras_skim.runtime import RuntimeModelError, SkimRunner
    from keras_skim.runtime.interpreter_loader import make_interpreter
    from keras_skim.runtime.litert_runner import LiteRtError

    _, data = custom_models[4]
    renamed = data.replace(b"KerasSkimLSTM", b"KerasSkimLSTX")
    assert renamed != data
    with pytest.raises(LiteRtError) as info:
        make_interpreter(model_content=renamed)
    message = one_line(str(info.value))
    assert "'KerasSkimLSTX', which is not registered" in message and "KerasSkimLSTM" in message
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "model.tflite").write_bytes(renamed)
    (folder / "metadata.json").write_text(
        '{"format": "keras_skim.export", "version": 2, "model_kind": "skim_lstm", '
        '"vocabulary_size": 40, "num_classes": 2}'
    )
    with pytest.raises(RuntimeModelError) as info:
        SkimRunner(str(folder))
    assert one_line(str(info.value)).startswith(str(folder / "model.tflite") + ": the model needs the custom op")


def test_custom_op_matches_keras_at_every_threshold(custom_models):
    """Logits and read decisions of the op through the C API against the
    Keras model (ids with padding 0 included), d' = 4 and the d' = 0
    placeholder."""
    import tempfile

    from keras_skim.export.custom_op_backend import custom_op_parity

    for small, (model, data) in custom_models.items():
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.tflite")
            with open(path, "wb") as f:
                f.write(data)
            samples = [s[0] for s in sequences()] + [np.array([0, 4, 0, 7, 9, 0], np.int32)]
            result = custom_op_parity(model, path, samples, thresholds=list(THRESHOLDS))
        assert result.ok, (small, result.message)
        assert result.decisions == len(THRESHOLDS) * sum(len(s) for s in samples)


def test_builtin_exports_match_the_python_interpreter(exported):
    """Same outputs as ai-edge-litert's Interpreter, lengths changing between
    calls (the input is resized up and down)."""
    from ai_edge_litert.interpreter import Interpreter

    from keras_skim.runtime.litert_runner import LiteRtModel

    for name in ("skim", "lstm"):
        _, folder, _ = exported(name)
        data = open(os.path.join(folder, "model.tflite"), "rb").read()
        ours = LiteRtModel(data).get_signature_runner("serving_default")
        theirs = Interpreter(model_content=data, num_threads=1).get_signature_runner("serving_default")
        # The LSTM export takes no threshold (issue 19: inputs a kind ignores are absent).
        for threshold in THRESHOLDS if name == "skim" else [None]:
            for ids in sequences():
                inputs = (
                    dict(token_ids=ids) if threshold is None else dict(token_ids=ids, threshold=np.float32(threshold))
                )
                a = ours(**inputs)
                b = theirs(**inputs)
                assert sorted(a) == sorted(b) == ["logits", "read_count", "read_mask"]
                for key in a:
                    assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, key
                np.testing.assert_allclose(a["logits"], b["logits"], rtol=0, atol=1e-6)
                np.testing.assert_array_equal(a["read_mask"], b["read_mask"])
                np.testing.assert_array_equal(a["read_count"], b["read_count"])


def test_threads_signature_list_and_steps(exported):
    from keras_skim.runtime.litert_runner import LiteRtModel

    _, folder, _ = exported("skim")
    data = open(os.path.join(folder, "model.tflite"), "rb").read()
    one, two = LiteRtModel(data, num_threads=1), LiteRtModel(data, num_threads=2)
    assert one.get_signature_list() == {
        "serving_default": {"inputs": ["threshold", "token_ids"], "outputs": ["logits", "read_mask", "read_count"]}
    }
    ids = sequences()[2]
    a = one.get_signature_runner()(token_ids=ids, threshold=np.float32(0.5))
    b = two.get_signature_runner()(token_ids=ids, threshold=np.float32(0.5))
    np.testing.assert_allclose(a["logits"], b["logits"], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(a["read_mask"], b["read_mask"])
    steps = one.get_signature_runner()  # the steps of a call, for timing the run alone
    steps.set_inputs(token_ids=ids, threshold=np.float32(0.5))
    steps.invoke()
    c = steps.get_outputs()
    assert all(np.array_equal(a[k], c[k]) for k in a)


def test_bad_inputs_are_one_line_errors(exported):
    from keras_skim.runtime.litert_runner import LiteRtModel

    _, folder, _ = exported("skim")  # a signature with both inputs
    data = open(os.path.join(folder, "model.tflite"), "rb").read()
    model = LiteRtModel(data)
    runner = model.get_signature_runner()
    ids = sequences()[1]
    cases = [
        (lambda: runner(token_ids=ids.astype(np.float32), threshold=np.float32(0)), "takes int32, got float32"),
        (lambda: runner(token_ids=ids), "missing input(s) threshold"),
        (lambda: runner(token_ids=ids, threshold=np.float32(0), extra=1), "unknown input(s) extra"),
        (lambda: runner(token_ids=ids[0], threshold=np.float32(0)), "input 'token_ids' takes rank 2"),
        (lambda: runner(token_ids=np.zeros((1, 0), np.int32), threshold=np.float32(0)), "sizes >= 1"),
        (lambda: model.get_signature_runner("nope"), "no signature 'nope'"),
        (lambda: LiteRtModel(b"not a model at all"), "not a TFLite model"),
        (lambda: LiteRtModel(data, num_threads=0), "num_threads must be at least 1"),
    ]
    for call, expected in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert expected in one_line(str(info.value)), (expected, str(info.value))
    model.close()
    with pytest.raises(ValueError, match="closed"):
        runner(token_ids=ids, threshold=np.float32(0))


def _in_fresh_process(code, **env):
    """Runs `code` in a new interpreter (the LiteRT library loads once per
    process); returns (exit code, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT, **env),
    )
    return done.returncode, done.stdout, done.stderr


_OPEN = (
    "import sys\n"
    "from keras_skim.runtime.litert_runner import LiteRtError, LiteRtModel\n"
    "try:\n"
    "    LiteRtModel(open(sys.argv[1] if len(sys.argv) > 1 else {path!r}, 'rb').read())\n"
    "except LiteRtError as err:\n"
    "    print('LiteRtError:', err)\n"
)


def test_missing_or_wrong_litert_library_is_one_line(exported):
    from keras_skim import litert_ops

    _, folder, _ = exported("lstm")
    code = _OPEN.format(path=os.path.join(folder, "model.tflite"))
    rc, out, err = _in_fresh_process(code, KERAS_SKIM_LITERT_LIB="/nonexistent/libLiteRt.so")
    assert rc == 0, err
    assert (
        one_line(out) == "LiteRtError: KERAS_SKIM_LITERT_LIB=/nonexistent/libLiteRt.so: no such file "
        "(expected libLiteRt.so)"
    )
    # A shared library that is not LiteRT: every missing C API function is named.
    rc, out, err = _in_fresh_process(code, KERAS_SKIM_LITERT_LIB=litert_ops.library_path())
    assert rc == 0, err
    line = one_line(out)
    assert "is not a LiteRT >= 2.1.6 C library (missing LiteRtCreateEnvironment" in line, line


def test_old_ai_edge_litert_is_refused(monkeypatch):
    from importlib import metadata

    from keras_skim.runtime import litert_runner

    monkeypatch.delenv(litert_runner.LITERT_LIBRARY_ENV, raising=False)
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "2.1.5" if name == "ai-edge-litert" else real(name))
    with pytest.raises(litert_runner.LiteRtError) as info:
        litert_runner.litert_library_path()
    assert (
        one_line(str(info.value)) == "ai-edge-litert 2.1.5 is too old: keras-skim needs >= 2.1.6 "
        "(tested: 2.1.6, 2.2.0, 2.3.0)"
    )


def test_library_loads_once_from_many_threads(exported):
    """Models made from several threads at once share one loaded library and
    give the same outputs."""
    import concurrent.futures

    from keras_skim.runtime.litert_runner import LiteRtModel

    _, folder, _ = exported("skim")
    data = open(os.path.join(folder, "model.tflite"), "rb").read()
    code = (
        "import concurrent.futures, sys, numpy as np\n"
        "from keras_skim.runtime import litert_runner\n"
        f"data = open({os.path.join(folder, 'model.tflite')!r}, 'rb').read()\n"
        "def run(_):\n"
        "    m = litert_runner.LiteRtModel(data)\n"
        "    ids = np.arange(1, 8, dtype=np.int32)[None]\n"
        "    out = m.get_signature_runner()(token_ids=ids, threshold=np.float32(0.5))\n"
        "    return (id(m._lib), m.litert_path, out['logits'].tobytes(), out['read_mask'].tobytes())\n"
        "with concurrent.futures.ThreadPoolExecutor(4) as pool:\n"
        "    results = list(pool.map(run, range(8)))\n"
        "print(len(set(results)))\n"
    )
    rc, out, err = _in_fresh_process(code)
    assert rc == 0 and out.strip() == "1", out + err
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        models = list(pool.map(lambda _: LiteRtModel(data), range(2)))
    assert models[0]._lib is models[1]._lib


def test_make_interpreter_routes_custom_op_models_to_the_c_api(custom_models, exported):
    """Custom ops: the C API (the only way to register them). Builtin only:
    ai-edge-litert's Python Interpreter, a few percent faster on the LSTM
    baseline (benchmarks/results/capi_runtime_speed.md)."""
    from ai_edge_litert.interpreter import Interpreter

    from keras_skim.runtime.interpreter_loader import make_interpreter
    from keras_skim.runtime.litert_runner import LiteRtModel

    assert isinstance(make_interpreter(model_content=custom_models[4][1]), LiteRtModel)
    _, folder, _ = exported("lstm")
    assert isinstance(make_interpreter(model_path=os.path.join(folder, "model.tflite")), Interpreter)
    for junk in (b"short", b"1234TFL3" + bytes(40)):
        with pytest.raises(ValueError) as info:
            make_interpreter(model_content=junk)
        assert one_line(str(info.value)).startswith("not a TFLite model")


def test_inputs_of_every_form_and_outputs_that_stay_the_callers(custom_models):
    """The per-call fast paths (a ready int32 array, a NumPy float32 scalar
    written into the runner's buffer, output views reused while LiteRT's
    buffers stay) give what a fresh runner gives for each call alone, with
    inputs of every accepted form in turn and lengths changing up and down;
    returned arrays are the caller's: the next runs do not change them."""
    from keras_skim.runtime.litert_runner import LiteRtModel

    data = custom_models[4][1]
    shared = LiteRtModel(data).get_signature_runner()
    ids = [s[0] for s in sequences()]
    forms = [
        lambda x, t: dict(token_ids=x[None].astype(np.int32), threshold=np.float32(t)),
        lambda x, t: dict(token_ids=x[None].astype(np.int64), threshold=float(t)),
        lambda x, t: dict(token_ids=x[None].tolist(), threshold=np.array([t], np.float32)),
        lambda x, t: dict(token_ids=np.asfortranarray(np.stack([x, x]))[:1], threshold=np.float64(t)),
    ]
    kept = []
    for k, (x, t) in enumerate((x, t) for t in THRESHOLDS for x in ids + ids[::-1]):
        inputs = forms[k % len(forms)](x, t)
        got = shared(**inputs)
        want = LiteRtModel(data).get_signature_runner()(token_ids=x[None].astype(np.int32), threshold=np.float32(t))
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{key}, form {k % len(forms)}")
        kept.append((got, {key: value.copy() for key, value in got.items()}))
    for got, copy in kept:
        assert all(np.array_equal(got[key], copy[key]) for key in copy)


def test_a_reused_input_buffer_is_read_afresh_at_every_call(custom_models):
    """An input array object that comes again keeps its address in the
    input struct (not read again per call): its new contents are what the
    next call runs, alternating buffers of other lengths and one-off arrays
    between its calls; and NumPy refuses to move a bound buffer's memory
    (resize), which is why the kept address stays valid."""
    from keras_skim.runtime.litert_runner import LiteRtModel

    data = custom_models[4][1]
    shared = LiteRtModel(data).get_signature_runner()
    fresh = LiteRtModel(data).get_signature_runner()
    long_buffer, short_buffer = np.zeros((1, 12), np.int32), np.zeros((1, 5), np.int32)
    rng = np.random.default_rng(3)
    for k in range(12):
        buffer = (long_buffer, short_buffer, None)[k % 3]
        ids = rng.integers(1, 50, size=(1, 7 if buffer is None else buffer.shape[1])).astype(np.int32)
        if buffer is not None:
            buffer[...] = ids
        got = shared(token_ids=ids if buffer is None else buffer, threshold=np.float32(0.5))
        want = fresh(token_ids=ids.copy(), threshold=np.float32(0.5))
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{key}, call {k}")
    shared(token_ids=long_buffer, threshold=np.float32(0.5))
    with pytest.raises(ValueError):
        long_buffer.resize((1, 4096))
