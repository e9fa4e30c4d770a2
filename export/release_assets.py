"""Builds the Android app's assets from export folders: per model `model.tflite`,
`tokenizer.json`, `metadata.json` (byte-identical copies of what `keras-skim export` wrote),
`catalog.json`, `bench_texts.json`, and one golden file per model.

Layout (the app reads it under `assets/keras_skim/`, `ModelRepository.ASSET_ROOT`):

    <output>/catalog.json            which models, the default one, the LSTM baseline
    <output>/bench_texts.json        the Benchmark button's texts (and labels)
    <output>/<id>/model.tflite       <id> = <model_kind>_<backend>, e.g. skim_lstm_custom,
                                     structural_jump_lstm_builtin
    <output>/<id>/tokenizer.json
    <output>/<id>/metadata.json
    <golden>/<id>.json               fixture texts -> tokens, ids, logits, read masks, read counts

The golden values come from `keras_skim.runtime.SkimRunner` (LiteRT, no TensorFlow), the
runner that `keras-skim bench` uses.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys

from export.fixtures import FIXTURES, GOLDEN_THRESHOLDS
from keras_skim.contracts import OutputRefused
from keras_skim.output_folder import check_output_folder, staged_output_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP_ASSETS = os.path.join(ROOT, "android_demo", "app", "src", "main", "assets")
ASSET_ROOT = "keras_skim"  # ModelRepository.ASSET_ROOT in the app
DEFAULT_OUTPUT = os.path.join(APP_ASSETS, ASSET_ROOT)
DEFAULT_GOLDEN = os.path.join(ROOT, "android_demo", "golden")
SAMPLE_REVIEWS = os.path.join(APP_ASSETS, "sample_reviews.json")
DEFAULT_WORK = os.path.join(ROOT, "export", "build", "demo")

CATALOG_FORMAT = "keras_skim.app_catalog"
BENCH_TEXTS_FORMAT = "keras_skim.bench_texts"
GOLDEN_FORMAT = "keras_skim.golden"
EXPORT_FILES = ("model.tflite", "tokenizer.json", "metadata.json")
KIND_TITLES = {
    "skim_lstm": "Skim-LSTM",
    "skim_gru": "Skim-GRU",
    "lstm": "LSTM",
    "gru": "GRU",
    "scornn": "scoRNN",
    "structural_jump_lstm": "Structural-Jump-LSTM",
}
BACKEND_TITLES = {"custom": "custom op", "builtin": "builtin ops"}
BASELINE_KIND = "lstm"
JUMP_KIND = "structural_jump_lstm"  # ModelMetadata.JUMP_MODEL_KIND in the app
# The app reads text: an export of any other input kind (a model on float sequences) is refused
# in these words, here and by the app (ModelMetadata.TEXT_INPUTS_ONLY).
TEXT_INPUTS_ONLY = (
    'the app reads text, so it runs only token-id exports (input_kind "token_ids": a model whose first layer '
    "is an Embedding)"
)


class ReleaseError(ValueError):
    """A pipeline step that cannot go on; the message is one line."""


def _python_env():
    """The environment of the `keras-skim` subprocesses: this checkout's package first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _keras_skim(args, log):
    command = [sys.executable, "-m", "keras_skim", *args]
    log("$ keras-skim " + " ".join(args))
    done = subprocess.run(command, env=_python_env(), stdout=None, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ReleaseError(f"keras-skim {args[0]} failed (exit {done.returncode}): {last}")


# The demo models that the committed app assets hold (android_demo/app/src/main/assets/keras_skim/):
# small on purpose, so that a clone carries them (int8 weights, an 8,000-word vocabulary) and
# so that they train in minutes on two cores. The Skim-LSTM is the Skim-RNN paper's
# Rotten Tomatoes size (d=100, d'=10); the LSTM baseline has the same d.
DEMO_SETTINGS = {
    "data": "rotten_tomatoes",
    "units": 100,
    "small_units": 10,
    "gamma": 0.02,
    "epochs": 3,
    "max_tokens": 8000,
    "quantize": "int8",
    # The LSTM baseline's builtin export takes `quantize` too (its int8 export of these small
    # weights passes the exporter's parity bound; the presets' does not: PRESET_SETTINGS).
    "baseline_quantized": True,
    # The builtin-op Skim-LSTM is left out by default: its int8 export of these weights misses the
    # exporter's parity bound (outputs within 0.05 of Keras), and float32 it would double the bundle.
    "skim_backends": ("custom",),
    "jump_units": 64,
    "jump_full_read_epochs": 4,
    "jump_speed_read_epochs": 3,
    "jump_backends": ("custom",),
    "seed": 0,
}


def _train(folder, cell, settings, limit, reuse, log, extra=()):
    """`keras-skim train --cell CELL` into `folder`, unless `reuse` and it is there."""
    if reuse and os.path.isfile(os.path.join(folder, "model.keras")):
        log(f"reusing {folder}")
        return
    args = ["train", "--cell", cell, "--data", settings["data"], "--max-tokens", str(settings["max_tokens"])]
    args += ["--seed", str(settings["seed"]), "--quiet", "--force", "-o", folder, *extra]
    if limit:
        args += ["--limit", str(limit)]
    _keras_skim(args, log)


def train_demo_exports(work, *, limit=None, reuse=False, jump_model=False, log=print, **overrides):
    """Trains the demo's models with `keras-skim train` (the library's own training, via its
    CLI) and exports them with `keras-skim export`: the Skim-LSTM with `skim_backends` (the
    custom op), the LSTM baseline with the builtin backend, both with `--quantize int8`
    (DEMO_SETTINGS; `overrides` replace its entries). With `jump_model`, also a
    Structural-Jump-LSTM (`--cell sj-lstm`, `jump_units`, `jump_full_read_epochs` +
    `jump_speed_read_epochs` epochs) exported with `jump_backends`, with `--quantize int8`
    where its exporter quantizes that backend (the custom op; its builtin graph stays
    float32). Returns the export folders, in catalog order."""
    settings = _settings(overrides)
    trained = os.path.join(work, "trained")
    skim, lstm = os.path.join(trained, "skim_lstm"), os.path.join(trained, "lstm")
    epochs = ["--epochs", str(settings["epochs"]), "--units", str(settings["units"])]
    skim_args = ["--small-units", str(settings["small_units"]), "--gamma", str(settings["gamma"])]
    _train(skim, "skim-lstm", settings, limit, reuse, log, [*epochs, *skim_args])
    _train(lstm, "lstm", settings, limit, reuse, log, epochs)
    models = [(skim, "skim_lstm"), (lstm, BASELINE_KIND)]
    if jump_model:
        jump = os.path.join(trained, "sj_lstm")
        jump_args = ["--units", str(settings["jump_units"])]
        jump_args += ["--full-read-epochs", str(settings["jump_full_read_epochs"])]
        jump_args += ["--speed-read-epochs", str(settings["jump_speed_read_epochs"])]
        _train(jump, "sj-lstm", settings, limit, reuse, log, jump_args)
        models.append((jump, JUMP_KIND))
    return _export_all(models, work, settings, log)


# The presets the app bundles when it is built from presets (`assets --from-presets`, issue 31):
# its Skim-LSTM and LSTM baseline and, with --jump-model, its Structural-Jump-LSTM, all trained on
# Rotten Tomatoes with the papers' protocols (benchmarks/train_presets.py).
APP_PRESETS = ("skim_lstm_rotten_tomatoes", "lstm_rotten_tomatoes")
APP_JUMP_PRESET = "structural_jump_lstm_rotten_tomatoes"
# The LSTM preset is bundled float32: the converter's int8 (dynamic-range) LSTM quantizes its
# activations on the fly, and with the preset's weights (trained to convergence, larger than the
# demo's) its logits move well past the exporter's parity bound and some Rotten Tomatoes test
# predictions flip (benchmarks/results/int8_builtin_agreement_lstm_rotten_tomatoes.md), so
# `keras-skim export --quantize int8` refuses it.
PRESET_SETTINGS = {"baseline_quantized": False}


def preset_exports(work, presets=(), *, jump_model=False, log=print, **overrides):
    """Exports trained presets for the app, as `train_demo_exports` exports the demo's models
    (the same backends and quantization per model kind: DEMO_SETTINGS with PRESET_SETTINGS and
    `overrides`, so the LSTM float32), with
    `keras-skim export PRESET_FOLDER`: nothing is trained. `presets` are preset names or
    folders (default: APP_PRESETS, and APP_JUMP_PRESET with `jump_model`). Returns the export
    folders, in catalog order.

    Raises:
        ReleaseError: a preset that is not there or not readable (one line saying how to make it).
    """
    from keras_skim import contracts
    from keras_skim.model_kinds import cli_kind
    from keras_skim.presets import PresetError, preset_folder

    settings = _settings({**PRESET_SETTINGS, **overrides})
    names = list(presets) or [*APP_PRESETS, *([APP_JUMP_PRESET] if jump_model else [])]
    models = []
    for name in names:
        try:
            found = preset_folder(name)
            config = contracts.read_train_config(os.path.join(found.folder, contracts.TRAIN_CONFIG_FILE))
        except (PresetError, contracts.ContractError) as err:
            raise ReleaseError(
                f"{err} (make the preset first: python benchmarks/train_presets.py NAME, then "
                "benchmarks/make_preset.py; presets/README.md)"
            ) from None
        log(f"preset {found.card.name}: {found.folder} (test accuracy {found.card.test_accuracy:.4f})")
        models.append((found.folder, cli_kind(config.arguments["cell"]).name))
    return _export_all(models, work, settings, log)


def _settings(overrides):
    settings = dict(DEMO_SETTINGS, **overrides)
    unknown = sorted(set(settings) - set(DEMO_SETTINGS))
    if unknown:
        raise ReleaseError(f"unknown demo settings: {', '.join(unknown)}")
    return settings


def _export_plan(kind, settings):
    """[(backend, catalog id, quantization flags)] of a model of `kind`, as the app bundles it:
    the baseline with the builtin backend, a jump model with `jump_backends` (int8 where its
    exporter quantizes the backend), a skim model with `skim_backends`; the baseline is quantized
    only with `baseline_quantized`."""
    from keras_skim.export.family_exporter import exporter_of

    quantize = ["--quantize", settings["quantize"]] if settings["quantize"] else []
    if kind == BASELINE_KIND:
        return [("builtin", f"{kind}_builtin", quantize if settings["baseline_quantized"] else [])]
    if kind == JUMP_KIND:
        quantized = exporter_of(JUMP_KIND).quantizes
        return [(b, f"{kind}_{b}", quantize if b in quantized else []) for b in settings["jump_backends"]]
    return [(b, f"{kind}_{b}", quantize) for b in settings["skim_backends"]]


def _export_all(models, work, settings, log):
    """`keras-skim export`s of [(model folder, kind)] under `work`/exports -> the export folders."""
    folders = []
    for model, kind in models:
        for backend, name, flags in _export_plan(kind, settings):
            out = os.path.join(work, "exports", name)
            _keras_skim(["export", model, "-o", out, "--backend", backend, "--force", *flags], log)
            folders.append(out)
    return folders


def read_export(folder):
    """(folder, `ExportMetadata`) of an export folder that has all three files the app needs."""
    from keras_skim import contracts

    folder = os.path.abspath(folder)
    path = os.path.join(folder, contracts.METADATA_FILE)
    record = _metadata_json(path) if os.path.isfile(path) else None
    # Before the file checks: a sequence export has no tokenizer.json, and asking for one would mislead.
    kind = record.get("input_kind") if isinstance(record, dict) else None
    if kind not in (None, contracts.INPUT_KIND_TOKEN_IDS):
        raise ReleaseError(f"{folder}: input_kind {json.dumps(kind)}: {TEXT_INPUTS_ONLY}")
    for name in EXPORT_FILES:
        if not os.path.isfile(os.path.join(folder, name)):
            raise ReleaseError(
                f"{folder}: no {name} (expected a folder written by `keras-skim export`, with the model's tokenizer)"
            )
    if not isinstance(record, dict) or record.get("format") != contracts.METADATA_FORMAT:
        raise ReleaseError(f"{path}: not a {contracts.METADATA_FORMAT} metadata file")
    try:
        return folder, contracts.read_metadata(path)
    except contracts.ContractError as err:
        raise ReleaseError(str(err)) from None


def _metadata_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as err:
        raise ReleaseError(f"{path}: cannot read ({err})") from None


def _record(metadata):
    """An `ExportMetadata`, or a metadata dict made one (unchecked: catalogs of hand-made dicts)."""
    from keras_skim.contracts import ExportMetadata

    return metadata if isinstance(metadata, ExportMetadata) else ExportMetadata.of(metadata)


def model_id(metadata):
    record = _record(metadata)
    return f"{record.model_kind}_{record.backend}"


def default_labels(metadata):
    """The class names an export records (the training data's, issue 19), else the names the
    app gave before they travelled: negative/positive for two classes, "class i" for more."""
    record = _record(metadata)
    if record.class_names and record.num_classes and len(record.class_names) == record.classes:
        return list(record.class_names)
    classes = record.num_classes or 1
    return ["negative", "positive"] if classes <= 2 else [f"class {i}" for i in range(classes)]


def catalog(exports, labels=None):
    """The catalog.json dict for [(folder, metadata), ...] in the given order."""
    models, seen = [], {}
    for folder, metadata in exports:
        mid = model_id(metadata)
        if mid in seen:
            raise ReleaseError(f"{seen[mid]} and {folder} are both {mid}: give one export per model kind and backend")
        seen[mid] = folder
        kind, backend = _record(metadata).model_kind, _record(metadata).backend
        title = KIND_TITLES.get(kind, kind)
        title += " (baseline)" if kind == BASELINE_KIND else f" ({BACKEND_TITLES.get(backend, backend)})"
        models.append(
            {
                "id": mid,
                "title": title,
                "model_kind": kind,
                "backend": backend,
                "model": f"{mid}/model.tflite",
                "tokenizer": f"{mid}/tokenizer.json",
                "metadata": f"{mid}/metadata.json",
                "labels": list(labels) if labels else default_labels(metadata),
            }
        )
    if not models:
        raise ReleaseError("no models to bundle")
    baselines = [m["id"] for m in models if m["model_kind"] == BASELINE_KIND]
    skims = [m for m in models if m["model_kind"].startswith("skim")]
    custom = [m for m in skims if m["backend"] == "custom"]
    default = (custom or skims or models)[0]["id"]
    return {
        "format": CATALOG_FORMAT,
        "version": 1,
        "models": models,
        "default_model": default,
        "baseline": baselines[0] if baselines else None,
        "bench_texts": "bench_texts.json",
    }


def bench_texts(spec, samples, split="test"):
    """The bench_texts.json dict: the texts `keras-skim bench --data SPEC --split SPLIT
    --samples N` times."""
    from keras_skim.runtime.bench_data import BenchDataError, load_bench_texts

    try:
        texts, labels, description = load_bench_texts(spec, samples, split=split)
    except BenchDataError as err:
        raise ReleaseError(f"benchmark texts: {err}") from None
    return {
        "format": BENCH_TEXTS_FORMAT,
        "version": 1,
        "description": description,
        "texts": list(texts),
        "labels": None if labels is None else [int(v) for v in labels],
    }


def fixture_cases(sample_reviews=SAMPLE_REVIEWS):
    """(name, text) of the golden files: the Unicode traps, then the app's sample reviews."""
    cases = list(FIXTURES)
    if sample_reviews and os.path.isfile(sample_reviews):
        with open(sample_reviews, encoding="utf-8") as f:
            for i, review in enumerate(json.load(f)["reviews"]):
                cases.append((f"sample_review_{i}", review["text"]))
    return cases


# The fields of `keras_skim.contracts.ExportMetadata` that the app reads (ModelMetadata.java).
APP_FIELDS = (
    "model_kind",
    "units",
    "small_units",
    "embedding_dim",
    "vocabulary_size",
    "num_classes",
    "output_activation",
    "max_length",
    "default_threshold",
    "backend",
    "custom_ops",
    "agent_units",
)


def app_metadata(record):
    """What the app must read of an export's metadata.json, as the Python record reads it: the
    golden file keeps it, and the JVM tests check that ModelMetadata.java reads the same (the Java
    side of the typed record, issue 17)."""
    flops = record.flops
    out = {name: getattr(record, name) for name in APP_FIELDS}
    out.update(
        class_names=[record.class_name(i) for i in range(record.classes)],
        takes_threshold=record.takes_threshold,
        skims=record.kind.skims,
        jumps=record.kind.jumps,
        baseline_flops_per_token=flops.baseline_flops_per_token if flops else None,
        read_flops_per_token=flops.read_flops_per_token if flops else None,
        skim_flops_per_token=flops.skim_flops_per_token if flops else None,
    )
    return out


def golden(folder, mid, cases, thresholds=GOLDEN_THRESHOLDS):
    """The golden file dict of one export folder, from the Python LiteRT runner."""
    import numpy as np

    from keras_skim.runtime import RuntimeModelError, SkimRunner

    try:
        runner = SkimRunner(folder, num_threads=1)
    except RuntimeModelError as err:
        raise ReleaseError(f"golden values of {mid}: {err}") from None
    out = []
    for name, text in cases:
        ids, tokens = runner.encode(text)
        runs = []
        for threshold in thresholds:
            result = runner.run_ids(ids, threshold)
            runs.append(
                {
                    "threshold": float(threshold),
                    "logits": [float(v) for v in np.asarray(result["logits"], np.float32).reshape(-1)],
                    "read_mask": [int(round(float(v))) for v in np.asarray(result["read_mask"]).reshape(-1)],
                    "read_count": int(np.asarray(result["read_count"]).reshape(-1)[0]),
                }
            )
        out.append(
            {"name": name, "text": text, "tokens": list(tokens), "token_ids": [int(i) for i in ids], "runs": runs}
        )
    return {
        "format": GOLDEN_FORMAT,
        "version": 1,
        "model": mid,
        "thresholds": [float(t) for t in thresholds],
        "metadata": app_metadata(runner.metadata),
        "cases": out,
    }


def _write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


@contextlib.contextmanager
def _staged(target, force, inputs):
    """A staging folder that replaces `target` only when the block succeeds,
    with keras-skim's output rules (`keras_skim.output_folder`): `--force`
    replaces a folder only while it holds exactly the files this tool wrote
    there (its marker lists them), never one a user added to or edited."""
    try:
        with staged_output_dir(target, force=force, inputs=inputs) as stage:
            yield stage
    except OutputRefused as err:
        raise ReleaseError(str(err)) from None


def _inputs(export_folders, bench_data, sample_reviews):
    """What the pipeline reads: never inside a folder that --force may replace."""
    paths = list(export_folders) + [sample_reviews]
    if bench_data and os.path.exists(bench_data):
        paths.append(bench_data)
    return [p for p in paths if p]


def build_assets(
    export_folders,
    *,
    output=DEFAULT_OUTPUT,
    golden_dir=DEFAULT_GOLDEN,
    bench_data="rotten_tomatoes",
    bench_samples=100,
    bench_split="test",
    labels=None,
    force=False,
    sample_reviews=SAMPLE_REVIEWS,
    log=print,
):
    """Writes the app's assets and the golden files; nothing is left half-written on failure.
    Each folder gets keras-skim's output marker (`.keras-skim-output.json`, the files written
    and their sha256; the APK build skips dot files), so that `force` replaces it only while it
    holds just those files, unchanged: a folder with a file the tool did not write is refused
    in one line, before any work. Returns the catalog dict."""
    inputs = _inputs(export_folders, bench_data, sample_reviews)
    for target in (output, golden_dir):  # before the slow part
        try:
            check_output_folder(target, force=force, inputs=inputs)
        except OutputRefused as err:
            raise ReleaseError(str(err)) from None
    exports = [read_export(folder) for folder in export_folders]
    cat = catalog(exports, labels)
    if cat["baseline"] is None:
        log("note: no LSTM export given, so the app's Benchmark button has no baseline to compare with")
    texts = bench_texts(bench_data, bench_samples, bench_split)
    cases = fixture_cases(sample_reviews)
    goldens = {}
    for (folder, _), entry in zip(exports, cat["models"]):
        log(f"golden values of {entry['id']} ({len(cases)} texts x {len(GOLDEN_THRESHOLDS)} thresholds)")
        goldens[entry["id"]] = golden(folder, entry["id"], cases)
    with _staged(output, force, inputs) as assets, _staged(golden_dir, force, inputs) as gold:
        for (folder, _), entry in zip(exports, cat["models"]):
            os.makedirs(os.path.join(assets, entry["id"]))
            for name in EXPORT_FILES:
                shutil.copyfile(os.path.join(folder, name), os.path.join(assets, entry["id"], name))
            _write_json(os.path.join(gold, entry["id"] + ".json"), goldens[entry["id"]])
        _write_json(os.path.join(assets, "catalog.json"), cat)
        _write_json(os.path.join(assets, "bench_texts.json"), texts)
    return cat
