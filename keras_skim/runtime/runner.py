"""`SkimRunner`: runs an exported keras-skim model with LiteRT, the way a
phone app does. Imports neither TensorFlow nor Keras."""

from __future__ import annotations

import numbers
import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from keras_skim import contracts
from keras_skim.model_kinds import ModelKind, kind_of
from keras_skim.runtime import run_deadline
from keras_skim.runtime.classification import Classification
from keras_skim.runtime.interpreter_loader import make_interpreter
from keras_skim.runtime.token_padding import padding_for

if TYPE_CHECKING:
    from keras_skim.datasets.tokenizer import Tokenizer

# More interpreter threads than any CPU has: LiteRT creates them all, and
# tens of thousands exhaust the process (a crash at teardown).
MAX_THREADS = 256
_OUTPUTS = (contracts.OUTPUT_LOGITS, contracts.OUTPUT_READ_MASK, contracts.OUTPUT_READ_COUNT)


class RuntimeModelError(ValueError):
    """An export folder or file that cannot be run, or an input it cannot
    take; the message is one line."""


def resolve_export(path):
    """(model.tflite path, export folder) for a folder or a .tflite file."""
    try:
        export = contracts.resolve_export(path)
    except contracts.ContractError as err:
        raise RuntimeModelError(str(err)) from None
    return export.model, export.folder


def probabilities_from_logits(logits, activation):
    """Class probabilities from the `logits` output; a single sigmoid unit gives [1-p, p]."""
    logits = np.asarray(logits, dtype=np.float64).reshape(-1)
    if logits.size == 1:
        p = 1.0 / (1.0 + np.exp(-logits[0]))
        return np.array([1.0 - p, p])
    if activation == "sigmoid":
        return 1.0 / (1.0 + np.exp(-logits))
    e = np.exp(logits - logits.max())
    return e / e.sum()


def _backend_problem(meta, kind, used):
    """Whether the custom ops the model uses contradict its metadata's
    backend, its recorded ops (where recorded) or its kind's op."""
    if (meta.backend == "custom") != bool(used):
        return True
    if meta.custom_ops and sorted(meta.custom_ops) != used:
        return True
    return bool(used) and kind.custom_op is not None and kind.custom_op not in used


def _shape_fits(shape, want):
    return len(shape) == len(want) and all(w < 0 or s == w for s, w in zip(shape, want))


def _first_line(err):
    return (str(err).strip().splitlines() or [type(err).__name__])[0][:300]


class SkimRunner:
    """An exported model with its metadata and tokenizer.

    Every failure, of the files or of a run, is a `RuntimeModelError` with
    one line: the model file is checked before LiteRT reads it
    (`keras_skim.runtime.tflite_check`), `metadata.json` and `tokenizer.json`
    field by field (`keras_skim.contracts`), the signature's inputs and
    outputs when it is opened, and an export that opens but fails when it
    runs gives that run's first line.

    Threads: one runner may be shared by several threads; its runs are
    serialized by a lock (a LiteRT interpreter holds one set of tensors and
    must not run in two threads at once). For runs in parallel, give each
    thread its own runner.

    Args:
        path: the export folder or its `model.tflite` (`metadata.json` and
            `tokenizer.json` are read from the same folder).
        num_threads: interpreter threads (1 to `MAX_THREADS`).
    """

    model_path: str
    metadata: contracts.ExportMetadata
    tokenizer: Tokenizer | None
    interpreter: Any
    default_threshold: float | None
    max_length: int | None
    vocabulary_size: int | None
    run_started: float | None
    run_tokens: int
    _lock: threading.Lock
    _signature: Any
    _takes: set[str]
    _padding: Any
    _mask_names: tuple[str, ...]
    _tokens: Any  # litert_runner.TokenCall, or None

    def __init__(self, path: str | os.PathLike[str], num_threads: int = 1) -> None:
        if (
            isinstance(num_threads, bool)
            or not isinstance(num_threads, numbers.Integral)
            or not 1 <= num_threads <= MAX_THREADS
        ):
            raise RuntimeModelError(f"num_threads must be an integer from 1 to {MAX_THREADS}; got {num_threads!r}")
        self._lock = threading.Lock()
        self.run_started, self.run_tokens = None, 0  # the run in progress, for run_deadline
        run_deadline.watch(self)
        self.model_path, folder = resolve_export(path)
        try:
            self.metadata = contracts.read_metadata(os.path.join(folder, contracts.METADATA_FILE))
        except contracts.ContractError as err:
            raise RuntimeModelError(str(err)) from None
        self.tokenizer = None
        tok_path = os.path.join(folder, contracts.TOKENIZER_FILE)
        if os.path.isfile(tok_path):
            from keras_skim.datasets.tokenizer import Tokenizer

            try:
                self.tokenizer = Tokenizer.load(tok_path)
            except ValueError as err:
                raise RuntimeModelError(str(err).splitlines()[0]) from None
            self._check_tokenizer(tok_path)
        try:
            self.interpreter = make_interpreter(model_path=self.model_path, num_threads=int(num_threads))
        except (ValueError, OSError) as err:  # not a well-formed TFLite model, unreadable
            message = err.strerror if isinstance(err, OSError) and err.strerror else _first_line(err)
            raise RuntimeModelError(f"{self.model_path}: {message}") from None
        except RuntimeError as err:  # LiteRT unavailable, or the model does not compile (unknown custom op)
            raise RuntimeModelError(f"{self.model_path}: {_first_line(err)}") from None
        try:
            self._signature = self.interpreter.get_signature_runner(self.metadata.signature)
        except (ValueError, RuntimeError) as err:
            raise RuntimeModelError(f"{self.model_path}: cannot prepare the model ({_first_line(err)})") from None
        self._takes = self._check_signature()
        self._check_metadata_fits()
        # Custom-op exports run at a few padded input lengths (token_padding): no input resize per text.
        self._padding = padding_for(self._signature, self.metadata)
        # Read once: every run checks its masks (`_check_per_token`), and the metadata builds the layout anew.
        self._mask_names = tuple(self.read_mask_layout)
        self._tokens = self._token_call()
        self.default_threshold = self.metadata.default_threshold
        self.max_length = self.metadata.max_length
        size = self.metadata.vocabulary_size
        self.vocabulary_size = None if size is None else int(size)  # None: a sequence export

    def _token_call(self) -> Any:
        """The one-call path of a text's ids (`litert_runner.TokenCall`) for
        an export run padded (`_padding`) through the C API runner; None
        for the others."""
        if self._padding is None or self.metadata.task or contracts.INPUT_TOKEN_IDS not in self._takes:
            return None  # a task export's several inputs run through `_invoke_inputs`
        threshold = contracts.INPUT_THRESHOLD if contracts.INPUT_THRESHOLD in self._takes else None
        try:
            return self._signature.token_call(
                contracts.INPUT_TOKEN_IDS, threshold, self._padding.per_token, self._padding, self._check_outputs
            )
        except ValueError as err:
            raise RuntimeModelError(f"{self.model_path}: {_first_line(err)}") from None

    def _check_tokenizer(self, path):
        """A tokenizer whose ids the model cannot take is refused at once."""
        size = self.metadata.vocabulary_size
        if self.tokenizer.vocabulary_size > size:
            raise RuntimeModelError(
                f"{path}: {self.tokenizer.vocabulary_size} tokens, more than the model's vocabulary_size "
                f"({size}, {contracts.METADATA_FILE}); export the model with the tokenizer it was trained with"
            )

    def _check_signature(self):
        """The signature takes `token_ids` (and `threshold`, where the kind
        has one; every export before metadata version 3 had) and gives at
        least `logits`, `read_mask` and `read_count` (the export contract);
        returns its input names."""
        try:
            inputs = set(self._signature.get_input_details())
            outputs = set(self._signature.get_output_details())
        except (ValueError, RuntimeError) as err:
            raise RuntimeModelError(f"{self.model_path}: cannot read the signature ({_first_line(err)})") from None
        data = contracts.INPUT_SEQUENCE if self.metadata.takes_sequence else contracts.INPUT_TOKEN_IDS
        wanted_in = {data, contracts.INPUT_THRESHOLD}
        # A stacked or bidirectional export also gives a read mask per layer and direction.
        wanted_out = {contracts.OUTPUT_LOGITS, contracts.OUTPUT_READ_COUNT, *self.metadata.read_masks}
        if self.metadata.task:  # a question-answering export: its own inputs and outputs, as its metadata names them
            wanted_in, data = set(self.metadata.inputs), None
            wanted_out = {*self.metadata.outputs, contracts.OUTPUT_READ_COUNT, *self.metadata.read_masks}
        if inputs not in (wanted_in, {data}) or not wanted_out <= outputs:
            raise RuntimeModelError(
                f"{self.model_path}: not a keras-skim export (signature inputs {sorted(inputs)}, outputs "
                f"{sorted(outputs)}; expected inputs {sorted(wanted_in)} and outputs {sorted(wanted_out)})"
            )
        return inputs

    def _check_metadata_fits(self):
        """`metadata.json` describes this model: its kind's inputs and outputs
        (a threshold where it applies, `visited_count` where it jumps), the
        backend and custom op that run it, and the outputs' shapes (one text,
        `num_classes` logits, one count), so that an export's metadata beside
        another model is refused here, not reported as the wrong model."""
        meta, kind = self.metadata, self.metadata.kind
        details = self._signature.get_output_details()
        shapes = {name: tuple(int(d) for d in info["shape"]) for name, info in details.items()}
        expected = {contracts.OUTPUT_LOGITS: (1, meta.num_classes), contracts.OUTPUT_READ_COUNT: (1,)}
        expected.update({name: (1, -1) for name in meta.read_masks})
        if kind.jumps:
            expected[contracts.OUTPUT_VISITED_COUNT] = (1,)
        used = sorted(getattr(self.interpreter, "custom_op_names", None) or ())
        problems = [
            f"{name} has shape {list(shapes.get(name, ()))}, expected {[d if d >= 0 else 'T' for d in want]}"
            for name, want in expected.items()
            if name in shapes and not _shape_fits(shapes[name], want)
        ]
        if (contracts.INPUT_THRESHOLD in self._takes) != meta.takes_threshold:
            problems.append(f"the model takes {'a' if contracts.INPUT_THRESHOLD in self._takes else 'no'} threshold")
        if (contracts.OUTPUT_VISITED_COUNT in shapes) != kind.jumps:
            problems.append(f"the model {'gives' if kind.jumps is False else 'lacks'} {contracts.OUTPUT_VISITED_COUNT}")
        if _backend_problem(meta, kind, used):
            problems.append(f"the model's custom ops are {used or 'none'}, the metadata's {meta.custom_ops or 'none'}")
        if problems:
            raise RuntimeModelError(
                f"{self.model_path}: {contracts.METADATA_FILE} ({meta.model_kind}, {meta.backend} backend) does not "
                f"describe this model: {'; '.join(problems)}; expected the files of one export"
            )

    @property
    def backend(self) -> str:
        """ "builtin" (builtin ops only) or "custom" (needs the custom op
        named in the metadata's `custom_ops`: `contracts.CUSTOM_OPS`)."""
        return self.metadata.backend

    @property
    def kind(self) -> ModelKind:
        """The export's `keras_skim.model_kinds.ModelKind` (what it does, by its metadata)."""
        return kind_of(self.metadata)

    @property
    def skims(self) -> bool:
        return self.kind.skims

    @property
    def jumps(self) -> bool:
        """Whether the model jumps (`ModelKind.jumps`): `read_mask` then
        holds the four codes of `keras_skim.contracts.TOKEN_CODES` and the
        outputs include `visited_count`; the threshold is ignored."""
        return self.kind.jumps

    @property
    def read_mask_layout(self) -> dict[str, tuple[int, str]]:
        """{output name: (layer index, direction)} of every read mask of the
        signature: {"read_mask": (0, "forward")} for a single-layer export; a
        stacked or bidirectional one adds `read_mask_layer{i}_{direction}`
        (`metadata.layers`)."""
        return self.metadata.read_masks

    def read_masks(self, outputs: Mapping[str, Any], length: int | None = None) -> dict[tuple[int, str], np.ndarray]:
        """{(layer index, direction): int32 mask [T]} of a run's `outputs`
        (`run_ids`), each cut to `length` tokens when given."""
        return {
            where: np.asarray(outputs[name]).reshape(-1)[:length].astype(np.int32)
            for name, where in self.read_mask_layout.items()
        }

    @property
    def takes_sequence(self) -> bool:
        """Whether the export takes float sequences (`run_sequence`) rather than token ids."""
        return self.metadata.takes_sequence

    def _refuse_sequence_export(self):
        if self.takes_sequence:
            raise RuntimeModelError(
                f"{self.model_path}: the export takes float sequences [T, {self.metadata.feature_dim}], "
                "not texts or token ids: use run_sequence"
            )

    def encode(self, text: str) -> tuple[np.ndarray, list[str]]:
        """(token ids int32 [T], tokens) of one text, cut at `max_length`."""
        self._refuse_sequence_export()
        if self.tokenizer is None:
            raise RuntimeModelError("this export has no tokenizer.json: pass token ids to run_ids")
        tokens = self.tokenizer.tokenize(text)
        ids = self.tokenizer.encode_one(text, max_length=self.max_length)
        tokens = tokens[: len(ids)]
        keep = ids != 0
        return ids[keep], [t for t, k in zip(tokens, keep) if k]

    def run_ids(self, token_ids: ArrayLike, threshold: float | None = None) -> dict[str, np.ndarray]:
        """Raw outputs (`logits`, `read_mask`, `read_count`) for the ids of
        one text, [T] or [1, T] (a batch of several texts is refused).

        Ids must lie in [0, vocabulary_size); id 0 follows the export's
        `padding_id` rule (metadata). An empty text reads as one unknown
        token, except in a jump model, where it runs as one padding token
        (no word, as the empty text is for the Keras model).
        """
        return self.invoke(*self.prepare(token_ids, threshold))

    def _invoke_inputs(self, inputs, threshold):
        """Runs checked `inputs` {name: array [1, T, ...]} (and the threshold where the signature takes one)."""
        inputs = dict(inputs)
        if contracts.INPUT_THRESHOLD in self._takes:
            inputs[contracts.INPUT_THRESHOLD] = threshold
        try:
            with self._lock:
                self.run_tokens = max(np.shape(data)[1] for data in inputs.values() if np.ndim(data) > 1)
                self.run_started = time.monotonic()
                try:
                    out = self._signature(**inputs)
                finally:
                    self.run_started = None
        except (RuntimeError, ValueError) as err:
            raise RuntimeModelError(f"{self.model_path}: the model failed to run ({_first_line(err)})") from None
        return out

    def invoke(self, ids: np.ndarray | dict[str, np.ndarray], threshold: np.float32) -> dict[str, np.ndarray]:
        """Runs inputs that `prepare` checked (the timed call of the bench);
        an export that fails to run raises RuntimeModelError (one line)."""
        if isinstance(ids, dict):  # a task export's several inputs; its read masks cover the first
            out = self._invoke_inputs(ids, threshold)
            self._check_per_token(out, next(iter(ids.values())).shape[1])
            return out
        try:
            with self._lock:
                count = ids.shape[-1]
                self.run_tokens = count
                self.run_started = time.monotonic()  # for an armed run deadline (run_deadline)
                try:
                    if self._tokens is not None:  # padded by C++, checked when the outputs change
                        return self._tokens(ids, threshold)
                    out = self._signature(**contracts.signature_inputs(self._takes, ids, threshold))
                finally:
                    self.run_started = None
        except RuntimeModelError:
            raise
        except (RuntimeError, ValueError) as err:  # LiteRT's failures (LiteRtError is a RuntimeError)
            raise RuntimeModelError(f"{self.model_path}: the model failed to run ({_first_line(err)})") from None
        self._check_outputs(out, ids.shape[1])
        return out

    def _check_outputs(self, out, length):
        """A run's outputs have every read mask [1, length] (`_check_per_token`)
        and non-empty `_OUTPUTS`."""
        self._check_per_token(out, length)
        for name in _OUTPUTS:
            value = out.get(name)
            if value is None or not (value.size if type(value) is np.ndarray else np.size(value)):
                raise RuntimeModelError(f"{self.model_path}: the run gave no or empty {', '.join(_OUTPUTS)}")

    def _check_per_token(self, out, length):
        """Every read mask of a run is [1, length], one code per token: a
        crafted model whose mask is computed from another tensor (a scalar,
        say) is refused in one line, not cut or reshaped into wrong codes."""
        shape = (1, length)
        for name in self._mask_names:
            value = out.get(name)
            if value is not None and (value.shape if type(value) is np.ndarray else np.shape(value)) != shape:
                raise RuntimeModelError(
                    f"{self.model_path}: the run gave {name} of shape {list(np.shape(value))}, expected [1, {length}] "
                    "(one code per token)"
                )

    def prepare(
        self, token_ids: ArrayLike | Mapping[str, ArrayLike], threshold: float | None = None
    ) -> tuple[np.ndarray | dict[str, np.ndarray], np.float32]:
        """(ids int32 [1, T], threshold float32) checked for `invoke`; raises
        RuntimeModelError (one line) for inputs the model cannot take. A
        task export's inputs are a mapping {input name: ids}, checked into
        one (`run_inputs`)."""
        self._refuse_sequence_export()
        if isinstance(token_ids, Mapping):
            return self._checked_inputs(token_ids), self._threshold(threshold)
        if self.metadata.task:
            names = ", ".join(name for name in self.metadata.inputs if name != contracts.INPUT_THRESHOLD)
            task = self.metadata.task.get("name")
            raise RuntimeModelError(f"{self.model_path}: a {task} export takes {names}, not one text: use answer()")
        ids = np.asarray(token_ids)
        if ids.ndim > 2 or (ids.ndim == 2 and ids.shape[0] != 1):
            raise RuntimeModelError(
                f"token_ids must be one text, shape [T] or [1, T]; got shape {list(ids.shape)} "
                "(run texts one at a time)"
            )
        if ids.size:
            ids = self._checked_ids(contracts.INPUT_TOKEN_IDS, ids)
        else:
            # No zero-length input: a custom op cannot receive one.
            ids = np.full((1, 1), contracts.PADDING_ID if self.jumps else contracts.UNKNOWN_ID, np.int32)
        return ids, self._threshold(threshold)

    def _checked_ids(self, name, ids):
        """int32 [1, T] of a non-empty integer array of ids within the vocabulary (RuntimeModelError otherwise)."""
        if ids.dtype.kind not in "iu":
            raise RuntimeModelError(f"{name} must be integers; got {ids.dtype}")
        # Checked in the caller's own type, before the cast to int32 could wrap a large id.
        low, high = int(ids.min()), int(ids.max())
        size = int(self.vocabulary_size or 0)  # a token-id export records it (sequence ones are refused above)
        if low < 0 or high >= size:
            bad = high if high >= size else low
            raise RuntimeModelError(f"token id {bad} is outside the model's vocabulary [0, {size})")
        return ids.astype(np.int32).reshape(1, -1)  # a copy: the caller's array may change later

    def run_inputs(self, inputs: Mapping[str, ArrayLike], threshold: float | None = None) -> dict[str, np.ndarray]:
        """Raw outputs of an export with several token inputs (a
        question-answering export: `metadata.inputs` names them), each one
        non-empty sequence of ids [T] or [1, T]; the threshold where the
        signature takes one."""
        return self.invoke(*self.prepare(inputs, threshold))

    def _checked_inputs(self, inputs):
        """{name: int32 [1, T]} of a task export's token inputs, checked (RuntimeModelError, one line)."""
        names = [name for name in self.metadata.inputs if name != contracts.INPUT_THRESHOLD]
        if not self.metadata.task or set(inputs) != set(names):
            raise RuntimeModelError(f"the export takes {', '.join(names)}; got {', '.join(sorted(inputs))}")
        checked = {}
        for name in names:  # in the signature's order: the first is the one the read masks cover
            ids = np.asarray(inputs[name])
            if not ids.size or ids.ndim > 2 or (ids.ndim == 2 and ids.shape[0] != 1):
                raise RuntimeModelError(f"{name} must be one non-empty sequence, shape [T] or [1, T]")
            checked[name] = self._checked_ids(name, ids)
        return checked

    def answer(self, *args: Any, threshold: float | None = None, **kwargs: Any) -> Any:
        """The answer of a question-answering export (`metadata.task`), by its
        task's own answer function (`model_kinds.TASKS[...].answer`): for a
        span export `answer(context, question)` (the answer's text, its
        character offsets in the context and each layer's read masks), for a
        cloze export `answer(document, query, candidates)` (the chosen
        candidate and every candidate's probability)."""
        from keras_skim.model_kinds import TASKS, load

        task = self.metadata.task
        if not task:
            raise RuntimeModelError(
                f"{self.model_path}: a text classifier export answers no question (answer() takes an export of a "
                f"--task {' or --task '.join(TASKS)} model); use classify"
            )
        answer = TASKS[task["name"]].answer_of(task.get("model")) if task.get("name") in TASKS else None
        if answer is None:
            raise RuntimeModelError(f"{self.model_path}: this runtime cannot answer with a {task.get('name')!r} export")
        if self.tokenizer is None:
            raise RuntimeModelError(f"{self.model_path}: the export has no tokenizer.json; answer() needs one")
        return load(answer)(self, *args, threshold=threshold, **kwargs)

    def _threshold(self, threshold):
        if threshold is None:
            threshold = self.default_threshold if self.default_threshold is not None else 0.0
        try:
            threshold = contracts.check_threshold(threshold)
        except contracts.ContractError as err:
            raise RuntimeModelError(str(err)) from None
        return np.float32(threshold)

    def run_sequence(self, sequence: ArrayLike, threshold: float | None = None) -> dict[str, np.ndarray]:
        """Raw outputs of an export on float sequences (`takes_sequence`):
        `sequence` is [T, F] or [1, T, F] (one sequence: the signature's
        outputs, `logits` [1, k], `read_mask` [1, T], `read_count` [1]) or
        [B, T, F] (B sequences run one after the other, outputs stacked:
        [B, k], [B, T], [B]). F must be the export's `feature_dim`, T its
        sequence length when the model fixed one; values must be finite."""
        batch = sequence_batch(self, sequence)
        threshold = self._threshold(threshold)
        outs = [self._invoke_inputs({contracts.INPUT_SEQUENCE: x[None]}, threshold) for x in batch]
        if len(outs) == 1:
            return outs[0]
        return {name: np.concatenate([out[name] for out in outs], axis=0) for name in outs[0]}

    def classify(self, text: str, threshold: float | None = None) -> Classification:
        """A `Classification` of one text: it unpacks as (probabilities,
        read_mask, tokens) and names the predicted class (`label`, from the
        training data's class names in the metadata; "class i" without).

        `read_mask[i]` is one of `keras_skim.contracts.TOKEN_CODES`: 1 read
        by the big cell, 0 skimmed; in a jump model also 2 jumped and 3 not
        a word. `read_masks` holds every layer's and direction's mask (a
        stacked or bidirectional export's), `read_mask` is layer 0's forward one.
        """
        ids, tokens = self.encode(text)
        out = self.run_ids(ids, threshold)
        probabilities = probabilities_from_logits(out[contracts.OUTPUT_LOGITS], self.metadata.output_activation)
        mask = np.asarray(out[contracts.OUTPUT_READ_MASK]).reshape(-1)[: len(tokens)]
        return Classification(probabilities, mask, tokens, self.metadata, self.read_masks(out, len(tokens)))


def sequence_batch(runner, sequence):
    """[B, T, F] float32 of a `run_sequence` argument, checked (RuntimeModelError, one line)."""
    runner_metadata = runner.metadata
    if not runner_metadata.takes_sequence:
        raise RuntimeModelError(f"{runner.model_path}: the export takes token ids, not float sequences: use run_ids")
    features, length = runner_metadata.feature_dim, runner_metadata.max_length
    try:
        x = np.asarray(sequence, dtype=np.float32)
    except (TypeError, ValueError):
        raise RuntimeModelError(f"sequence must be numbers, shape [T, {features}] or [B, T, {features}]") from None
    if x.ndim == 2:
        x = x[None]
    if x.ndim != 3 or x.shape[2] != features or not x.shape[0] or not x.shape[1]:
        raise RuntimeModelError(
            f"sequence must have shape [T, {features}] or [B, T, {features}] with T, B >= 1; got {list(x.shape)}"
        )
    if length is not None and x.shape[1] != length:
        raise RuntimeModelError(f"sequence must have {length} steps (the model's Input); got {x.shape[1]}")
    if not np.isfinite(x).all():
        raise RuntimeModelError("sequence values must be finite (no NaN or infinity)")
    return np.ascontiguousarray(x)
