"""The model kinds keras-skim trains, exports and runs, in one table (no imports).

A model kind is what `metadata.json` calls `model_kind`; its row also gives
its `keras-skim train --cell` name, its custom op, the `read_mask` codes it
writes, whether a threshold applies and the training defaults of the CLI.
A model family (`FAMILIES`) is what several kinds share: one trainer, one
exporter, one set of CLI commands, one statistics report. Each is named by
an import path ("module:attribute"), loaded only when asked
(`load(path)`), so this module stays a leaf that every room may import:
the file contracts (`keras_skim.contracts`) re-export its codes and op
names, the runtime asks it without Keras.

The CLI, the runtime, `bench`, the metadata checks and the custom-op library
ask this table what a kind does (`kind.jumps`, `kind.threshold_applies`,
`family_of(kind).commands`) instead of comparing kind names, so that a new
kind is one row here plus its family's own files.

    from keras_skim.model_kinds import kind_of
    kind_of(metadata).threshold_applies   # False for a jump model
"""

import dataclasses
import importlib

# The one per-token code table: the codes of every export's int32 `read_mask`
# output and of `reading_positions(...)["status"]` on the Keras side, the
# same in the Python runtime, `keras-skim show` and the app. Skim models use 0 and 1 only (their
# padding is 0); a jump model (Structural-Jump-LSTM) uses all four (its
# padding and punctuation are 3).
TOKEN_SKIMMED = 0  # skimmed by the small cell, or skipped by a jump model's skip agent (skim models: and padding)
TOKEN_READ = 1  # read by the big cell (the LSTM)
TOKEN_JUMPED = 2  # jumped over: never touched
TOKEN_NOT_A_WORD = 3  # punctuation that steers a jump model's jumps, never read, and a jump model's padding
TOKEN_CODES = {TOKEN_SKIMMED: "skimmed", TOKEN_READ: "read", TOKEN_JUMPED: "jumped", TOKEN_NOT_A_WORD: "not a word"}
# The skim gate's read decision, the same in Keras, in both backends and in the runtime (`contracts` and the
# exports' metadata carry it; `keras-skim --threshold`'s help says it short). It is here because it names the
# paper whose threshold is the other way round.
THRESHOLD_RULE = (
    "read a token iff l_read - l_skim >= log(t / (1 - t)), i.e. p_read >= t: t = 0 reads "
    "every token, t >= 1 skims every token; a lower t reads more. The Skim-RNN paper's "
    "threshold (Seo et al. 2018, Figures 5 and 10) is on p_skim: ours is 1 minus the paper's. "
    "NaN is refused by the runtime (the graph itself would skim every token)"
)
THRESHOLD_HELP = (
    "read a token iff p(read) >= THRESHOLD: 0 reads every token, 1 or more skims every token, "
    "a lower value reads more (the Skim-RNN paper's threshold is on p(skim): ours is 1 minus it)"
)


@dataclasses.dataclass(frozen=True)
class ModelKind:
    """One family of exported models.

    Attributes:
        name: The metadata `model_kind` ("skim_lstm", ...).
        title: How reports name it.
        custom_op: The LiteRT custom op of its custom-op export, or None
            (builtin graph only).
        skims: A per-token read/skim gate decides by the threshold.
        jumps: It skips and jumps words: its `read_mask` uses all four
            `TOKEN_*` codes and it has a `visited_count` output.
        mask_codes: The codes its `read_mask` holds.
        family: The name of its `ModelFamily` (`FAMILIES`).
        cli_name: Its `keras-skim train --cell` value, or None (not
            trained by the CLI).
        description: One line for `--cell`'s help.
        units, learning_rate: The CLI's default state size and learning rate.
        batch_size: The CLI's default batch size; None lets the family's
            trainer choose (per data set).
        cell_class: The Keras cell class ("module:Class") that the kind's
            models run, or None (a family's own model).
        layer: The Keras recurrent layer ("module:Class") the text
            classifier builds for the kind (`build_text_classifier`), or None.
        layer_name: The name the text classifier gives that layer; None:
            the kind's name.
        emitter: The module whose `@register_emitter` class turns the
            kind's cell into builtin TFLite ops (`export.emitter_registry`),
            or None (a family that plans its model itself).
        cell_op: The module that writes the kind's cell as its custom op for
            the custom-op backend (`export.custom_op_backend`): `op_model`,
            `op_flatbuffer`, `int8_reference`, `SPEED_TABLES`; None: no
            cell op (or the family's exporter writes its own op).
        gate: The module of the kind's skim gate (`skims`): finding a
            model's skim cells, their threshold, their read decisions and
            skim statistics (`skim_gate()`).
        step_shape: (matrix blocks, element-wise ops per unit) of one step
            of the kind's plain cell, for `keras_skim.analysis.flops`
            (which names it by the kind's name), or None.
    """

    name: str
    title: str
    custom_op: str = None
    skims: bool = False
    jumps: bool = False
    mask_codes: tuple = (TOKEN_READ,)
    family: str = "text_classifier"
    cli_name: str = None
    description: str = ""
    units: int = 100
    learning_rate: float = 1e-3
    batch_size: int = 64
    cell_class: str = None
    layer: str = None
    layer_name: str = None
    emitter: str = None
    cell_op: str = None
    gate: str = None
    step_shape: tuple = None

    @property
    def threshold_applies(self):
        """Whether a threshold changes anything (the skim gate's cut): only
        then does the kind's export signature have a `threshold` input."""
        return self.skims


@dataclasses.dataclass(frozen=True)
class ModelFamily:
    """What the kinds of one model family share; each piece is an import
    path "module:attribute" (`load`), so that asking the table imports
    nothing.

    Attributes:
        name: The family's key in `FAMILIES`.
        trainer: The function that builds, fits and evaluates a model of
            the family on encoded data; the one training pipeline
            (`keras_skim.training.pipeline.train_model`) calls it.
        exporter: The family's export module, whose `EXPORTER` (a
            `keras_skim.export.family_exporter.FamilyExporter`) is all that
            `keras_skim.export` asks of the family: its planners, its
            builtin graph and custom op, its metadata entries, its parity
            reference and its backend note.
        commands: The family's `keras-skim` command pieces
            (`keras_skim.cli`): its train options, and its evaluate and
            show reports where they differ from a text classifier's; None:
            the text classifier's own.
        model_class: The registered Keras name of the family's
            `keras.Model` class (how a loaded model is recognised), or None
            (a functional text classifier).
        model_module: The module that defines (and registers) that class,
            imported before a model is loaded (`keras_skim.register_layers`).
        flop_report: Its FLOP counts from per-text statistics (`bench`
            asks it for kinds that jump), or None.
        train_function: Its Python training function (output folder and
            keyword arguments, `cell` a `--cell` value; returns the results
            dict the CLI prints), or None; `keras-skim demo` calls it.
    """

    name: str
    trainer: str
    exporter: str
    commands: str = None
    model_class: str = None
    flop_report: str = None
    train_function: str = None
    model_module: str = None


FAMILIES = {
    family.name: family
    for family in (
        ModelFamily(
            "text_classifier",
            trainer="keras_skim.models.text_classifier.text_classifier_training:fit_text_classifier",
            exporter="keras_skim.models.text_classifier.text_classifier_exporter",
            commands="keras_skim.models.text_classifier.text_classifier_commands",
            train_function="keras_skim.models.text_classifier.text_classifier_training:train_text_model",
        ),
        ModelFamily(
            "structural_jump",
            trainer="keras_skim.models.structural_jump.structural_jump_training:fit_structural_jump_model",
            exporter="keras_skim.models.structural_jump.structural_jump_exporter",
            commands="keras_skim.models.structural_jump.structural_jump_commands",
            model_class="keras_skim>StructuralJumpLSTM",
            model_module="keras_skim.models.structural_jump.structural_jump_lstm",
            flop_report="keras_skim.models.structural_jump.structural_jump_flops:structural_jump_flop_report",
        ),
    )
}


@dataclasses.dataclass(frozen=True)
class ModelTask:
    """A task that `keras-skim train --task` trains, besides the text
    classification of the `--cell` kinds (which is what the CLI does without
    `--task`): its own data, models and reports, in a family folder.

    Attributes:
        name: The `--task` value.
        description: One line for `--task`'s help.
        commands: The module of its `keras-skim` pieces: `train(args)` and
            `evaluate(args, folder)`, each returning an exit code.
        models: {`--model` value: its `keras.Model` class, "module:Class"},
            the first the default; the classes are public
            (`keras_skim.models.<Class>`) and registered for loading.
        public: {public name in `keras_skim.models`: "module:attribute"} of
            its other public pieces.
        model_commands: {`--model` value: its own commands module} of the
            models that another family trains (its trainer and reports),
            instead of `commands`.
        exporter: The module whose `EXPORTER` (a
            `keras_skim.export.task_export.TaskExporter`) exports the task's
            models (`keras-skim export`), or None (they do not export).
        answer: "module:function" that answers a question with an export of
            the task, without TensorFlow (`SkimRunner.answer` calls it with
            the runner and the caller's arguments), or None.
        model_exporters, model_answers: {`--model` value: its own exporter
            module, its own answer function} of the models that another
            family exports (their exports' `task["model"]` names them),
            instead of `exporter` and `answer`.
    """

    name: str
    description: str
    commands: str
    models: dict
    public: dict = dataclasses.field(default_factory=dict)
    model_commands: dict = dataclasses.field(default_factory=dict)
    exporter: str = None
    answer: str = None
    model_exporters: dict = dataclasses.field(default_factory=dict)
    model_answers: dict = dataclasses.field(default_factory=dict)

    def commands_of(self, model):
        """The commands module path of `--model model` (None: the default model's)."""
        return self.model_commands.get(model, self.commands)

    def model_value(self, model):
        """The `--model` value of a Keras model of the task (by its class), or None."""
        cls = type(model)
        name = f"{cls.__module__}:{cls.__name__}"
        return next((value for value, path in self.models.items() if path == name), None)

    def exporter_of(self, model):
        """The exporter module path of a Keras model of the task."""
        return self.model_exporters.get(self.model_value(model), self.exporter)

    def answer_of(self, model):
        """The answer function path of an export of `--model model` (its `task["model"]`; None: the default's)."""
        return self.model_answers.get(model, self.answer)


_SPAN_QA = "keras_skim.models.span_qa"
_STRUCTURAL_JUMP = "keras_skim.models.structural_jump"
TASKS = {
    task.name: task
    for task in (
        ModelTask(
            "squad",
            description="SQuAD v1.1 span extraction (--data FILE.json in SQuAD format, or squad through tfds)",
            commands=f"{_SPAN_QA}.span_qa_commands",
            models={
                "lstm-attention": f"{_SPAN_QA}.lstm_attention_qa:LSTMAttentionQA",
                "bidaf": f"{_SPAN_QA}.bidaf:BiDAF",
            },
            public={
                "compile_span_reader": f"{_SPAN_QA}.span_reader:compile_span_reader",
                "BidirectionalReader": f"{_SPAN_QA}.bidirectional_reader:BidirectionalReader",
                "TrilinearSimilarity": f"{_SPAN_QA}.trilinear_similarity:TrilinearSimilarity",
            },
            exporter=f"{_SPAN_QA}.span_qa_export",
            answer=f"{_SPAN_QA}.span_qa_answer:answer_span",
        ),
        ModelTask(
            "cloze",
            description="cloze questions in the Children's Book Test's text format (--data FILE)",
            commands="keras_skim.models.cloze_qa.cloze_commands",
            models={
                "cloze": "keras_skim.models.cloze_qa.cloze_qa:ClozeQA",
                "sj-lstm": f"{_STRUCTURAL_JUMP}.structural_jump_cloze_qa:StructuralJumpClozeQA",
            },
            model_commands={"sj-lstm": f"{_STRUCTURAL_JUMP}.structural_jump_cloze_commands"},
            exporter="keras_skim.models.cloze_qa.cloze_export",
            answer="keras_skim.models.cloze_qa.cloze_answer:answer_cloze",
            model_exporters={"sj-lstm": f"{_STRUCTURAL_JUMP}.structural_jump_cloze_export"},
            model_answers={"sj-lstm": f"{_STRUCTURAL_JUMP}.structural_jump_cloze_answer:answer_structural_jump_cloze"},
        ),
    )
}


def task_of_model(model):
    """The `ModelTask` one of whose `models` classes `model` is an instance of, or None."""
    return next((task for task in TASKS.values() if task.model_value(model)), None)


def task_public_names():
    """{name: "module:attribute"} of what the tasks make public in `keras_skim.models`."""
    found = {}
    for task in TASKS.values():
        found.update({path.rpartition(":")[2]: path for path in task.models.values()})
        found.update(task.public)
    return found


_SKIM_CODES = (TOKEN_SKIMMED, TOKEN_READ)
_SKIM_RNN = "keras_skim.models.skim_rnn"


def _skim_cell(name, cell_class, layer):
    """The pieces of a Skim-RNN kind (`keras_skim/models/skim_rnn/`): its cell, its layer, its emitter, its
    cell op and the gate they share."""
    return {
        "cell_class": f"{_SKIM_RNN}.{name}_cell:{cell_class}",
        "layer": f"{_SKIM_RNN}.{name}:{layer}",
        "layer_name": "skim_rnn",
        "emitter": f"{_SKIM_RNN}.skim_emitters",
        "cell_op": f"{_SKIM_RNN}.skim_op_export",
        "gate": f"{_SKIM_RNN}.skim_gate",
    }


_JUMP_CODES = (TOKEN_SKIMMED, TOKEN_READ, TOKEN_JUMPED, TOKEN_NOT_A_WORD)

# The kinds with a custom op come first, in the order of the op library's table (litert_ops/kernels/library_ops.cc).
KINDS = {
    kind.name: kind
    for kind in (
        ModelKind(
            "skim_lstm",
            "Skim-LSTM",
            "KerasSkimLSTM",
            skims=True,
            mask_codes=_SKIM_CODES,
            cli_name="skim-lstm",
            description="Skim-LSTM (Seo et al. 2018): a big and a small LSTM",
            **_skim_cell("skim_lstm", "SkimLSTMCell", "SkimLSTM"),
        ),
        # The paper's sizes and rates (Hansen et al. 2019): LSTM 128, RMSprop 0.0005, batch 32 for
        # Rotten Tomatoes and 100 for IMDB (the trainer's choice).
        ModelKind(
            "structural_jump_lstm",
            "Structural-Jump-LSTM",
            "KerasSjLSTM",
            jumps=True,
            mask_codes=_JUMP_CODES,
            family="structural_jump",
            cell_class="keras_skim.models.structural_jump.structural_jump_lstm_cell:StructuralJumpLSTMCell",
            cli_name="sj-lstm",
            description="Structural-Jump-LSTM (Hansen et al. 2019): skips words and jumps to the next , ; or . ! ? "
            "or the end",
            units=128,
            learning_rate=5e-4,
            batch_size=None,
        ),
        ModelKind(
            "skim_gru",
            "Skim-GRU",
            "KerasSkimGRU",
            skims=True,
            mask_codes=_SKIM_CODES,
            cli_name="skim-gru",
            description="Skim-GRU: a big and a small GRU",
            **_skim_cell("skim_gru", "SkimGRUCell", "SkimGRU"),
        ),
        ModelKind(
            "lstm",
            "LSTM",
            cli_name="lstm",
            description="LSTM baseline (reads every token)",
            cell_class="keras.layers:LSTMCell",
            layer="keras.layers:LSTM",
            emitter="keras_skim.export.lstm_emitters",
            step_shape=(4, 13),
        ),
        ModelKind(
            "gru",
            "GRU",
            cli_name="gru",
            description="GRU baseline (reads every token)",
            cell_class="keras.layers:GRUCell",
            layer="keras.layers:GRU",
            emitter="keras_skim.export.gru_emitters",
            step_shape=(3, 11),
        ),
        ModelKind(
            "scornn",
            "scoRNN",
            cell_class="keras_skim.models.scornn.scornn_cell:ScoRNNCell",
            emitter="keras_skim.models.scornn.scornn_emitter",
            step_shape=(1, 7),
        ),
    )
}
# Custom LiteRT ops, by the model kind that uses them (the op library registers them all).
CUSTOM_OPS = {name: kind.custom_op for name, kind in KINDS.items() if kind.custom_op}

# `keras-skim train --cell` choices, in the order of its help (a kind not named here follows, in table order).
_CLI_ORDER = ("skim_lstm", "skim_gru", "lstm", "gru", "structural_jump_lstm")


def cli_kinds(kinds):
    """{`--cell` value: kind} of the `kinds` with one, in `_CLI_ORDER` (the others after, in table order)."""
    named = [kind for kind in kinds.values() if kind.cli_name]
    rank = {name: index for index, name in enumerate(_CLI_ORDER)}
    return {kind.cli_name: kind for kind in sorted(named, key=lambda kind: rank.get(kind.name, len(rank)))}


CLI_KINDS = cli_kinds(KINDS)
# The `--cell` of `keras-skim train` without one, and the kinds `keras-skim demo` trains: a model and its baseline.
DEFAULT_CELL = "skim-lstm"
DEMO_KINDS = ("skim_lstm", "lstm")
CELL_HELP = "; ".join(f"{name}: {kind.description}" for name, kind in CLI_KINDS.items())


def kind_of(metadata_or_name):
    """The `ModelKind` of an export's metadata (an `ExportMetadata` record
    or its JSON dict) or of a kind name.

    Raises:
        ValueError: an unknown kind (one line naming the known ones).
    """
    if isinstance(metadata_or_name, dict):
        name = metadata_or_name.get("model_kind")
    else:
        name = getattr(metadata_or_name, "model_kind", metadata_or_name)
    if name not in KINDS:
        raise ValueError(f"unknown model_kind {name!r}; expected one of {', '.join(KINDS)}")
    return KINDS[name]


def cli_kind(cell):
    """The `ModelKind` of a `--cell` value; ValueError (one line) for an unknown one."""
    if cell not in CLI_KINDS:
        raise ValueError(f"unknown cell {cell!r}; expected one of {', '.join(CLI_KINDS)}")
    return CLI_KINDS[cell]


def family_of(kind):
    """The `ModelFamily` of a `ModelKind` (or of a kind name)."""
    return FAMILIES[kind_of(kind).family if isinstance(kind, str) else kind.family]


def family_of_model_class(registered_name):
    """The family whose `keras.Model` class is registered as `registered_name`
    (`keras.saving.get_registered_name(type(model))`); the text classifier's
    for any other model (a functional one)."""
    for family in FAMILIES.values():
        if family.model_class is not None and family.model_class == registered_name:
            return family
    return FAMILIES["text_classifier"]


def cli_names(family):
    """The `--cell` values of a family's kinds."""
    return [cell for cell, kind in CLI_KINDS.items() if kind.family == family.name]


def text_classifier_cells():
    """The `--cell` values `build_text_classifier` builds."""
    return tuple(cli_names(FAMILIES["text_classifier"]))


def skim_gate():
    """The module of the skim gate that the kinds that skim share
    (`ModelKind.gate`): what the engines ask of a model's skim cells.

    Raises:
        ValueError: the kinds that skim name different gates (a model may
            hold cells of several kinds, so the engines ask one gate).
    """
    gates = {kind.gate for kind in KINDS.values() if kind.skims}
    if len(gates) != 1:
        raise ValueError(f"the kinds that skim must share one gate module; the table names {sorted(map(str, gates))}")
    return load(gates.pop())


def step_shapes():
    """{kind name: (matrix blocks, element-wise ops per unit)} of the kinds
    whose plain cell `keras_skim.analysis.flops` counts (`ModelKind.step_shape`)."""
    return {name: kind.step_shape for name, kind in KINDS.items() if kind.step_shape}


def load(path):
    """The object an import path "module:attribute" names (imports the module)."""
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded
