"""How far the converter's int8 export of a trained baseline (builtin ops, dynamic-range quantization) moves
from its Keras model on real texts: the logits' differences, the predictions that flip, both accuracies.

`keras-skim export --quantize int8 --backend builtin` checks an int8 graph against Keras within a tolerance
(`keras_skim.export.parity.INT8_AGREEMENT`) and refuses it beyond; this script measures the same graph on a
whole test split instead of the exporter's few parity inputs, so that a refusal (and the choice the release
pipeline makes after it, `export/release_assets.py`'s PRESET_SETTINGS) rests on a committed figure.

    python benchmarks/int8_builtin_agreement.py lstm_rotten_tomatoes --data rotten_tomatoes

Writes benchmarks/results/int8_builtin_agreement_<preset>.{json,md} (machine, versions, command).
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

import litert_report  # noqa: E402


def int8_runner(model, length):
    """callable(token ids [T]) -> logits, through the runtime's interpreter, of the model's builtin int8 graph."""
    from keras_skim import contracts
    from keras_skim.export.builtin_backend import BuiltinBackend
    from keras_skim.export.plan import plan_model
    from keras_skim.runtime.interpreter_loader import make_interpreter

    plan = plan_model(model)
    flatbuffer = BuiltinBackend().flatbuffer(model, plan, threshold=None, length=length, quantize="int8")
    signature = make_interpreter(model_content=flatbuffer, num_threads=1).get_signature_runner(contracts.SIGNATURE_KEY)
    takes = set(signature.get_input_details())

    def run(ids):
        inputs = contracts.signature_inputs(takes, np.asarray(ids, np.int32)[None, :], np.float32(0.0))
        return np.asarray(signature(**inputs)["logits"], np.float64).reshape(-1)

    return run


def predictions(logits):
    """Class ids of logits rows: one logit (sigmoid) or one per class."""
    return (logits[:, 0] > 0).astype(int) if logits.shape[1] == 1 else logits.argmax(axis=1)


def measure(preset, data, split):
    from keras_skim import from_preset
    from keras_skim.datasets import load_text_dataset

    model, tokenizer = from_preset(preset, tokenizer=True)
    length = model.inputs[0].shape[1]
    texts, labels = load_text_dataset(data, split)
    ids = tokenizer.encode(texts, max_length=length)
    keras_logits = np.asarray(model.predict(ids, batch_size=256, verbose=0), np.float64).reshape(len(ids), -1)
    run = int8_runner(model, length)
    # each text at its own length, as the runtime feeds one (the padding is not read)
    int8_logits = np.stack([run(row[: max(int((row != 0).sum()), 1)]) for row in ids])
    diff = np.abs(int8_logits - keras_logits).max(axis=1)
    ours, theirs, truth = predictions(keras_logits), predictions(int8_logits), np.asarray(labels).reshape(-1)
    return {
        "preset": preset,
        "data": data,
        "split": split,
        "texts": len(ids),
        "max_logit_difference": float(diff.max()),
        "median_logit_difference": float(np.median(diff)),
        "p95_logit_difference": float(np.percentile(diff, 95)),
        "predictions_flipped": float((ours != theirs).mean()),
        "keras_accuracy": float((ours == truth).mean()),
        "int8_accuracy": float((theirs == truth).mean()),
    }


def markdown(record):
    r = record["result"]
    return "\n".join(
        [
            f"# The builtin int8 export of `{r['preset']}` against its Keras model",
            "",
            f"`{record['command']}`. Machine: {record['machine']['platform']}, {record['machine']['cpu_count']} "
            f"CPUs; versions: {record['versions']}.",
            "",
            f"{r['data']} {r['split']} split, {r['texts']} texts, each at its own length.",
            "",
            "| max logit difference | median | 95th percentile | predictions flipped | Keras accuracy | int8 accuracy"
            " |",
            "|---|---|---|---|---|---|",
            f"| {r['max_logit_difference']:.3f} | {r['median_logit_difference']:.4f} | "
            f"{r['p95_logit_difference']:.3f} | {r['predictions_flipped']:.4f} | {r['keras_accuracy']:.4f} | "
            f"{r['int8_accuracy']:.4f} |",
            "",
        ]
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("preset", help="a baseline preset (name or folder) whose export is builtin ops")
    parser.add_argument("--data", required=True, help="its data (a keras-skim --data registry name)")
    parser.add_argument("--split", default="test")
    args = parser.parse_args(argv)
    record = {
        "command": litert_report.command(),
        "machine": litert_report.machine(),
        "versions": litert_report.versions(),
        "result": measure(args.preset, args.data, args.split),
    }
    stem = f"int8_builtin_agreement_{os.path.basename(args.preset.rstrip('/'))}"
    litert_report.write(stem, record, markdown(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
