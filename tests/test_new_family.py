"""A new model family is one new folder plus its rows in the family table (issue 29, CONTRIBUTING.md).

The test writes a small made-up family, a tanh RNN cell, as one folder of a package on `sys.path` (its
cell, its emitter, its trainer, its exporter and its commands: the five files CONTRIBUTING's walkthrough
lists) and adds its two rows (its `ModelFamily` and its `ModelKind`) to `keras_skim.model_kinds`; nothing
else of keras-skim changes. Then the real engines find it through the table: `keras-skim train --cell`
offers and trains it through the one pipeline, the emitter registry and the FLOP counts know its cell,
and `keras-skim export` plans, converts, checks and describes it.
"""

import json
import textwrap

import pytest

from keras_skim import model_kinds
from tests.tiny_data import use_tiny_rotten_tomatoes

PACKAGE = "madeup_models"
FAMILY = "tanh_rnn"
HERE = f"{PACKAGE}.{FAMILY}"

# The family's folder: file name -> source.
FILES = {
    "__init__.py": '"""A made-up family: a tanh RNN cell in a text classifier."""\n',
    "tanh_cell.py": '''
        import keras


        @keras.saving.register_keras_serializable(package="madeup_models")
        class TanhCell(keras.layers.Layer):
            """h' = tanh(x W + h U + b)."""

            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                self.state_size = units

            def build(self, input_shape):
                self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
                self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), name="recurrent_kernel")
                self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

            def call(self, inputs, states):
                h = keras.ops.tanh(inputs @ self.kernel + states[0] @ self.recurrent_kernel + self.bias)
                return h, [h]

            def get_config(self):
                return {**super().get_config(), "units": self.units}
    ''',
    "tanh_emitter.py": """
        import numpy as np

        from keras_skim.export.emitter_registry import CellEmitter, register_emitter
        from keras_skim.export.weights import f32, to_numpy


        @register_emitter("TanhCell")
        class TanhEmitter(CellEmitter):
            model_kind = "tanh_rnn"
            flop_kind = "tanh_rnn"

            def __init__(self, cell):
                super().__init__(cell)
                self.kernel, self.bias = to_numpy(cell.kernel), to_numpy(cell.bias)
                self.recurrent = to_numpy(cell.recurrent_kernel)
                self.input_dim = self.kernel.shape[0]

            def input_projections(self):
                return None, (self.kernel, self.bias)

            def initial_state(self):
                return [np.zeros((1, self.units), np.float32)]

            def read_step(self, state, read_row, carry):
                import tensorflow as tf

                return [tf.tanh(tf.matmul(state[0], tf.constant(f32(self.recurrent))) + read_row)]
    """,
    "tanh_training.py": """
        import dataclasses

        import keras
        import numpy as np


        @dataclasses.dataclass(frozen=True)
        class TanhTrainingConfig:
            units: int
            batch_size: int


        def fit_tanh_classifier(data, config, verbose):
            from madeup_models.tanh_rnn.tanh_cell import TanhCell

            x, y = data.splits["train"]
            inputs = keras.Input((data.max_length,), dtype="int32", name="token_ids")
            h = keras.layers.Embedding(data.tokenizer.vocabulary_size, 8, mask_zero=True, name="embedding")(inputs)
            h = keras.layers.RNN(TanhCell(config.units), name="tanh_rnn")(h)
            model = keras.Model(inputs, keras.layers.Dense(1, name="logit")(h))
            model.compile("adam", keras.losses.BinaryCrossentropy(from_logits=True))
            model.fit(x, y.astype("float32"), epochs=1, batch_size=config.batch_size, verbose=0)
            ids, labels = data.splits["test"]
            accuracy = float(np.mean((model.predict(ids, verbose=0)[:, 0] >= 0) == labels))
            return model, {"test": {"accuracy": accuracy, "examples": int(len(labels))}}
    """,
    "tanh_exporter.py": """
        from keras_skim.export.family_exporter import FamilyExporter

        EXPORTER = FamilyExporter()
    """,
    "tanh_commands.py": """
        OPTION_GROUPS = {}
        HELP_NOTES = {}


        def add_arguments(parser):
            pass


        def refusal(group):
            return None


        def check(args, kind, units):
            pass


        def train(args, kind, units, learning_rate, batch_size):
            import dataclasses

            from keras_skim.training.pipeline import encode_source, resolve_source, train_model
            from madeup_models.tanh_rnn.tanh_training import TanhTrainingConfig

            config = TanhTrainingConfig(units=units, batch_size=batch_size)
            arguments = {"dataset": args.data, **dataclasses.asdict(config), "max_length": 12}

            def prepare():
                source = resolve_source(args.data, args.split_seed or 0)
                data = encode_source(source, 12, args.max_tokens, args.limit, args.seed, glove=False)
                return data, config, arguments

            _, record = train_model(args.output, kind.name, args.data, prepare, force=args.force, verbose=0)
            print(f"wrote {args.output}: test accuracy {record['test']['accuracy']:.4f}")
            return 0
    """,
}

# Its rows of the family table.
FAMILY_ROW = model_kinds.ModelFamily(
    FAMILY,
    trainer=f"{HERE}.tanh_training:fit_tanh_classifier",
    exporter=f"{HERE}.tanh_exporter",
    commands=f"{HERE}.tanh_commands",
)
KIND_ROW = model_kinds.ModelKind(
    FAMILY,
    "Tanh-RNN",
    family=FAMILY,
    cli_name="tanh-rnn",
    description="a made-up tanh RNN",
    units=8,
    batch_size=16,
    cell_class=f"{HERE}.tanh_cell:TanhCell",
    emitter=f"{HERE}.tanh_emitter",
    step_shape=(1, 3),
)


@pytest.fixture
def new_family(tmp_path, monkeypatch):
    """The made-up family's folder on `sys.path` and its two rows in the table (undone after the test)."""
    folder = tmp_path / "src" / PACKAGE / FAMILY
    folder.mkdir(parents=True)
    (folder.parent / "__init__.py").write_text("")
    for name, source in FILES.items():
        (folder / name).write_text(textwrap.dedent(source).lstrip())
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setitem(model_kinds.FAMILIES, FAMILY, FAMILY_ROW)
    monkeypatch.setitem(model_kinds.KINDS, FAMILY, KIND_ROW)
    for cell, kind in model_kinds.cli_kinds(model_kinds.KINDS).items():
        monkeypatch.setitem(model_kinds.CLI_KINDS, cell, kind)
    return tmp_path


def test_the_engines_find_a_new_family_through_the_table(new_family):
    from keras_skim.analysis.flops import rnn_step_flops
    from keras_skim.cli.main import build_parser
    from keras_skim.export import emitter_registry
    from keras_skim.export.family_exporter import family_exporters

    assert list(model_kinds.CLI_KINDS)[-1] == "tanh-rnn"  # after the kinds _CLI_ORDER names
    args = build_parser().parse_args(["train", "--cell", "tanh-rnn", "-o", str(new_family / "out")])
    assert model_kinds.cli_kind(args.cell) is KIND_ROW and model_kinds.family_of(KIND_ROW) is FAMILY_ROW
    assert "TanhCell" in emitter_registry.known_cells()
    assert rnn_step_flops("tanh_rnn", 4, 2) == 2 * 1 * 4 * (2 + 4) + 3 * 4
    assert model_kinds.load(FAMILY_ROW.exporter).EXPORTER in family_exporters()


def test_a_new_family_trains_and_exports_with_the_real_commands(new_family, monkeypatch, capsys):
    from keras_skim.cli.main import main

    use_tiny_rotten_tomatoes(monkeypatch, new_family)
    out, export = new_family / "model", new_family / "export"
    rc = main(["train", "--cell", "tanh-rnn", "--no-glove", "--limit", "80", "--quiet", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    assert (out / "model.keras").is_file() and (out / "tokenizer.json").is_file()
    rc = main(["export", str(out), "-o", str(export), "--backend", "builtin"])
    assert rc == 0, capsys.readouterr().err
    metadata = json.loads((export / "metadata.json").read_text())
    assert metadata["model_kind"] == "tanh_rnn" and metadata["flops"]["kind"] == "tanh_rnn"
    assert (export / "model.tflite").stat().st_size > 0
