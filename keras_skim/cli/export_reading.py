"""`keras-skim show` and `evaluate` of an export folder (model.tflite,
metadata.json, tokenizer.json), run through the runtime
(`keras_skim.runtime.SkimRunner`): what a runtime-only install (no Keras,
no TensorFlow) reads of a text, and its accuracy, skim rate or read
fraction and Flop-R over a data split. The numbers are counted as
`keras-skim bench` counts them (`keras_skim.runtime.bench.score_runs`)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from keras_skim import contracts
from keras_skim.cli.errors import CliError

if TYPE_CHECKING:
    from keras_skim.runtime import SkimRunner


def export_path(path: str) -> str | None:
    """`path` when it names an export (a folder holding model.tflite and no
    model.keras or model.h5, or a .tflite file), else None (a model folder, a file or a
    preset for the Keras commands)."""
    if os.path.isdir(path):
        exported = os.path.isfile(os.path.join(path, contracts.TFLITE_FILE))
        keras_model = any(os.path.exists(os.path.join(path, name)) for name in contracts.MODEL_FILES)
        return path if exported and not keras_model else None
    return path if path.endswith(".tflite") and os.path.isfile(path) else None


def open_export(path: str, tokenizer_arg: str | None, command: str) -> SkimRunner:
    """The export's runner, with `--tokenizer` in place of its own
    tokenizer.json; one line for an export that cannot run or read texts."""
    from keras_skim.datasets import Tokenizer
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    try:
        runner = SkimRunner(path)
    except RuntimeModelError as err:
        raise CliError(str(err)) from None
    if runner.takes_sequence:
        raise CliError(
            f"{path}: the export takes float sequences [T, {runner.metadata.feature_dim}], not text, and "
            f"keras-skim {command} reads texts; run it with keras_skim.runtime.SkimRunner(folder).run_sequence"
        )
    if tokenizer_arg is not None:
        try:
            runner.tokenizer = Tokenizer.load(contracts.tokenizer_file(tokenizer_arg))
        except contracts.ContractError as err:
            raise CliError(f"--tokenizer {err}") from None
        except ValueError as err:
            raise CliError(str(err)) from None
        if runner.tokenizer.vocabulary_size > runner.vocabulary_size:
            raise CliError(
                f"{path}: the tokenizer has {runner.tokenizer.vocabulary_size} tokens but the export takes "
                f"{runner.vocabulary_size}; pass the tokenizer it was trained with (--tokenizer)"
            )
    if runner.tokenizer is None:
        raise CliError(f"{path}: the export has no {contracts.TOKENIZER_FILE} (pass --tokenizer PATH)")
    return runner


def _refuse_threshold(runner: SkimRunner, path: str, threshold: float | None) -> None:
    if threshold is not None and not runner.kind.threshold_applies:
        raise CliError(
            f"--threshold does not apply to {path}: a {runner.kind.title}'s "
            + ("agents decide what to read, skip and jump" if runner.jumps else "reads every token")
        )


def read_text(args: argparse.Namespace, path: str, text: str) -> tuple[SkimRunner, list[str], dict, Any]:
    """(runner, tokens, {(layer, direction): mask codes}, logits) of the
    export at `path` reading `text` (`keras-skim show EXPORT`)."""
    from keras_skim.runtime import RuntimeModelError

    runner = open_export(path, args.tokenizer, "show")
    _refuse_threshold(runner, path, args.threshold)
    if not runner.skims and not runner.jumps:
        raise CliError(f"{path}: has no skim layer, so every word is read")
    try:
        ids, tokens = runner.encode(text)
        if not tokens:
            raise CliError("the text has no tokens")
        out = runner.run_ids(ids, args.threshold)
    except RuntimeModelError as err:
        raise CliError(str(err)) from None
    return runner, tokens, runner.read_masks(out, len(tokens)), out[contracts.OUTPUT_LOGITS]


def marked_sections(runner: SkimRunner, masks: dict, head: str, path: str) -> tuple[list, str, str]:
    """([(heading or None, mask codes)], summary, title) of what an export
    read: a jump model's read, skipped and jumped words; a skim model's
    read and skimmed tokens, once per layer and direction of a stack."""
    if runner.jumps:
        mask = masks[(0, "forward")]
        return [(None, mask)], head + _jump_line(mask, path), f"{runner.kind.title}: read, skipped and jumped words"
    sections, summary = _skim_sections(masks, head)
    return sections, summary, f"{runner.kind.title}: read and skimmed words"


def _jump_line(codes, path: str) -> str:
    """'read 4 of 9 words (44%), skipped 22%, jumped 33%; punctuation is not read'."""
    codes = [int(code) for code in codes]
    words = sum(code != contracts.TOKEN_NOT_A_WORD for code in codes)
    if words == 0:
        raise CliError(f"{path}: the text has no words, only punctuation, which the model does not read")
    read, skipped, jumped = (
        codes.count(c) for c in (contracts.TOKEN_READ, contracts.TOKEN_SKIMMED, contracts.TOKEN_JUMPED)
    )
    return (
        f"read {read} of {words} words ({read / words:.0%}), skipped {skipped / words:.0%}, "
        f"jumped {jumped / words:.0%}; punctuation is not read"
    )


def _skim_sections(masks, head: str):
    """([(heading or None, mask)], summary) of a skim export's masks: one
    section, or one per layer and direction of a stacked or bidirectional one."""
    read, steps = (
        sum(int((m == contracts.TOKEN_READ).sum()) for m in masks.values()),
        sum(len(m) for m in masks.values()),
    )
    over = f" over {len(masks)} skim layers and directions" if len(masks) > 1 else ""
    summary = head + f"read {read} of {steps} tokens{over}, skimmed {1 - read / steps:.0%}"
    if len(masks) == 1:
        return [(None, next(iter(masks.values())))], summary
    sections = []
    for (layer, direction), mask in masks.items():
        read_here = int((mask == contracts.TOKEN_READ).sum())
        line = f"layer {layer} {direction}: read {read_here} of {len(mask)} tokens"
        line += f", skimmed {1 - read_here / len(mask):.0%}"
        sections.append((line, mask))
    return sections, summary


def evaluate_export(args: argparse.Namespace, path: str) -> tuple[dict, Any, SkimRunner]:
    """(result, data source, runner) of `keras-skim evaluate EXPORT --data
    DATA`: accuracy, skim rate (or a jump model's read / skip / jump
    fractions) and Flop-R over a split, as `keras-skim bench` counts them."""
    from keras_skim.cli.data_args import data_error
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError
    from keras_skim.datasets.registry import resolve_data
    from keras_skim.runtime import RuntimeModelError
    from keras_skim.runtime.bench import score_runs

    runner = open_export(path, args.tokenizer, "evaluate")
    _refuse_threshold(runner, path, args.threshold)
    if args.data is None:
        raise CliError(f"{path}: an export does not record the data it was trained on (pass --data)")
    try:
        source = resolve_data(args.data, split_seed=args.split_seed, labelled=True)
        texts, labels = source.load(args.split, limit=args.limit, seed=0)
    except (DatasetUnavailableError, DataSourceError) as err:
        raise data_error(err) from None
    classes = max(int(runner.metadata.num_classes), 2)
    if classes != len(source.classes):
        raise CliError(
            f"{path}: {classes} classes, but {source.spec} has {len(source.classes)} ({', '.join(source.classes)})"
        )
    try:
        inputs = [runner.prepare(runner.encode(text)[0], args.threshold) for text in texts]
        result = score_runs(runner, inputs, [int(label) for label in labels])
    except RuntimeModelError as err:
        raise CliError(str(err)) from None
    threshold = None
    if runner.kind.threshold_applies:
        threshold = args.threshold if args.threshold is not None else runner.default_threshold
    result = {"export": path, "model_kind": runner.metadata.model_kind, "threshold": threshold, **result}
    result.update(dataset=source.spec, split=args.split, examples=len(inputs), classes=list(source.classes))
    return result, source, runner
