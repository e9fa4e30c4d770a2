"""Trained Skim-LSTM classifiers on real texts: every export of one model
(custom op and builtin graph, float32 and int8) against the LSTM export of
the same size, at the model's own threshold and skim rate.

For each model folder (`keras-skim train` output: model.keras,
tokenizer.json, train_config.json) it reports, in one table:
  * file size, and int8 against float32 (target <= 0.3x);
  * accuracy on the whole test split of the model's data set (the float32
    exports equal Keras within 1e-4) and its change under int8 (target
    <= 0.5 point);
  * read-decision agreement of each int8 export with its float32 export,
    over every token of the test split (target >= 99%);
  * per-token latency on a seeded sample of test texts (LiteRT, batch 1, one
    thread, each text at its own length, no padding), all exports and both
    baselines interleaved in one process: speed-up against the LSTM export
    (builtin ops, hoisted input projections, XNNPACK on; float32) and, for
    int8, against the int8 LSTM export; Flop-R at the measured skim rate.
The LSTM baselines have the model's size (V, e, d) and random weights: their
speed does not depend on the weights. Resizing the interpreter to a text's
length is done before each timed invoke, for every model alike.

    python benchmarks/trained_export_speed.py --model rotten_tomatoes=RT_FOLDER \\
        --model imdb=IMDB_FOLDER [--samples 200] [--rounds 15] [--cpu 1]

Writes benchmarks/results/trained_export_speed.{json,md} (or --out STEM).
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

EXPORTS = ["lstm", "lstm_int8", "custom", "custom_int8", "builtin", "builtin_int8"]


def read_folder(folder):
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.model_io import load_model

    with open(os.path.join(folder, "train_config.json")) as f:
        config = json.load(f)
    return (
        load_model(os.path.join(folder, "model.keras")),
        Tokenizer.load(os.path.join(folder, "tokenizer.json")),
        config,
    )


def lstm_like(model, d, seed=0):
    """A Keras LSTM classifier of the same V, e and d (random weights)."""
    import keras

    embedding = next(layer for layer in model.layers if isinstance(layer, keras.layers.Embedding))
    keras.utils.set_random_seed(seed)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(embedding.input_dim, embedding.output_dim, mask_zero=True)(inp)
    return keras.Model(inp, keras.layers.Dense(model.outputs[0].shape[-1])(keras.layers.LSTM(d)(x)))


def exports(model, lstm):
    from keras_skim.export.custom_op_backend import custom_op_flatbuffer
    from keras_skim.export.graph_builder import build_module, convert
    from keras_skim.export.plan import plan_model

    skim_module, lstm_module = build_module(plan_model(model)), build_module(plan_model(lstm))
    return {
        "lstm": convert(lstm_module),
        "lstm_int8": convert(lstm_module, quantize="int8"),
        "custom": custom_op_flatbuffer(model),
        "custom_int8": custom_op_flatbuffer(model, quantize="int8"),
        "builtin": convert(skim_module),
        "builtin_int8": convert(skim_module, quantize="int8"),
    }


class Runner:
    """An exported model that runs one text (ids [T]) at its own length
    through the runtime's signature runner (inputs in, run, outputs out), as
    `keras-skim bench` and the app do."""

    def __init__(self, content):
        from keras_skim.runtime.interpreter_loader import make_interpreter

        self.signature = make_interpreter(model_content=content, num_threads=1).get_signature_runner("serving_default")
        self.inputs = None

    def prepare(self, ids, threshold):
        """Sets the inputs the next `invoke` runs."""
        self.inputs = {"token_ids": np.asarray(ids, np.int32)[None], "threshold": np.array(threshold, np.float32)}

    def invoke(self):
        return self.signature(**self.inputs)

    def run(self, ids, threshold):
        """Outputs by name (copies)."""
        self.prepare(ids, threshold)
        return {k: np.array(v) for k, v in self.invoke().items()}


def encode(tokenizer, texts, max_length):
    """Token ids of each text as an export reads them: no padding, an empty
    text as one unknown token."""
    out = []
    for text in texts:
        ids = tokenizer.encode_one(text, max_length=max_length)
        ids = ids[ids != 0]
        out.append(ids if len(ids) else np.ones((1,), np.int32))
    return out


def evaluate(runner, ids_list, labels, threshold, activation):
    """(accuracy, read masks) of one export over texts."""
    from keras_skim.runtime.runner import probabilities_from_logits

    correct, masks = 0, []
    for ids, label in zip(ids_list, labels):
        out = runner.run(ids, threshold)
        p = probabilities_from_logits(out["logits"], activation)
        correct += int(int(np.argmax(p)) == int(label))
        masks.append(np.asarray(out["read_mask"]).reshape(-1).astype(np.int32))
    return correct / len(labels), masks


def time_interleaved(runners, ids_list, threshold, rounds):
    """Per-round total invoke seconds of each runner over the texts; within a
    text the order of the models alternates between texts and rounds."""
    names = list(runners)
    totals = {n: [] for n in names}
    for ids in ids_list[:3]:  # warm-up
        for n in names:
            runners[n].prepare(ids, threshold)
            runners[n].invoke()
    for r in range(rounds):
        spent = dict.fromkeys(names, 0.0)
        for k, ids in enumerate(ids_list):
            order = names if (r + k) % 2 == 0 else names[::-1]
            for n in order:
                runners[n].prepare(ids, threshold)
                t0 = time.perf_counter()
                runners[n].invoke()
                spent[n] += time.perf_counter() - t0
        for n in names:
            totals[n].append(spent[n])
    return {n: np.asarray(v) for n, v in totals.items()}


def bench_model(name, folder, samples, rounds):
    from keras_skim.analysis.flops import flop_report
    from keras_skim.datasets import load_text_dataset
    from keras_skim.export.custom_op_backend import read_model

    model, tokenizer, config = read_folder(folder)
    info = read_model(model)
    d, ds, e = info["d"], info["ds"], info["weights"]["emb"].shape[1]
    threshold = float(info["threshold"])
    dataset = config["arguments"]["dataset"]
    max_length = config.get("max_length") or config["arguments"].get("max_length")
    texts, labels = load_text_dataset(dataset, "test")
    ids_list = encode(tokenizer, list(texts), max_length)
    labels = np.asarray(labels)
    contents = exports(model, lstm_like(model, d))
    runners = {n: Runner(c) for n, c in contents.items()}
    accuracy, masks = {}, {}
    for n in ("custom", "custom_int8", "builtin", "builtin_int8"):
        accuracy[n], masks[n] = evaluate(runners[n], ids_list, labels, threshold, info["output_activation"])
    agreement = {}
    for n in ("custom_int8", "builtin_int8"):
        base = n.replace("_int8", "")
        same = sum(int(np.sum(a == b)) for a, b in zip(masks[n], masks[base]))
        agreement[n] = same / sum(len(m) for m in masks[base])
    same = sum(int(np.sum(a == b)) for a, b in zip(masks["custom"], masks["builtin"]))
    custom_vs_builtin = same / sum(len(m) for m in masks["custom"])
    rng = np.random.default_rng(0)
    sample = [ids_list[i] for i in rng.choice(len(ids_list), size=min(samples, len(ids_list)), replace=False)]
    totals = time_interleaved(runners, sample, threshold, rounds)
    tokens = sum(len(i) for i in sample)
    sample_masks = [runners["custom"].run(ids, threshold)["read_mask"] for ids in sample]
    skim_rate = 1.0 - sum(float(np.sum(m)) for m in sample_masks) / tokens
    flop_r = flop_report("lstm", d, ds, e, skim_rate)["flop_r"]
    rows = []
    for n in EXPORTS:
        base = "lstm_int8" if n.endswith("_int8") else "lstm"
        speedup = float(np.median(totals["lstm"] / totals[n]))
        row = {
            "export": n,
            "bytes": len(contents[n]),
            "size_vs_float": round(len(contents[n]) / len(contents[n.replace("_int8", "")]), 3),
            "us_per_token": round(float(np.median(totals[n])) / tokens * 1e6, 3),
            "speedup_vs_lstm_export": round(speedup, 3),
        }
        if n.endswith("_int8") and not n.startswith("lstm"):
            row["speedup_vs_lstm_int8"] = round(float(np.median(totals[base] / totals[n])), 3)
        if not n.startswith("lstm"):
            row["speedup_over_flop_r"] = round(speedup / flop_r, 3)
        if n in accuracy:
            row["test_accuracy"] = round(accuracy[n], 4)
        if n in agreement:
            row["accuracy_change_points"] = round(100 * (accuracy[n] - accuracy[n.replace("_int8", "")]), 2)
            row["decision_agreement_with_float"] = round(agreement[n], 5)
        rows.append(row)
    test_skim = 1.0 - sum(int(np.sum(m)) for m in masks["custom"]) / sum(len(m) for m in masks["custom"])
    return {
        "name": name,
        "folder": os.path.abspath(folder),
        "dataset": dataset,
        "units": d,
        "small_units": ds,
        "embedding": e,
        "vocabulary": info["vocabulary_size"],
        "threshold": threshold,
        "max_length": max_length,
        "keras_test_accuracy_at_training": config.get("test", {}).get("accuracy"),
        "test_texts": len(ids_list),
        "test_skim_rate": round(test_skim, 4),
        "float_custom_vs_builtin_decision_agreement": round(custom_vs_builtin, 6),
        "timed_texts": len(sample),
        "timed_tokens": tokens,
        "rounds": rounds,
        "mean_tokens": round(tokens / len(sample), 1),
        "skim_rate": round(skim_rate, 4),
        "flop_r": round(flop_r, 3),
        "rows": rows,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--model", action="append", required=True, metavar="NAME=FOLDER", help="a trained model folder (repeatable)"
    )
    ap.add_argument("--samples", type=int, default=200, help="test texts timed (default 200)")
    ap.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    ap.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU")
    ap.add_argument("--out", default=os.path.join(litert_report.RESULTS, "trained_export_speed"))
    a = ap.parse_args()
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    from keras_skim.litert_ops import library_path

    library_path()
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    models = []
    for spec in a.model:
        name, _, folder = spec.partition("=")
        models.append(bench_model(name, folder, a.samples, a.rounds))
        print(json.dumps(models[-1]), flush=True)
    report = {
        "benchmark": "trained_export_speed",
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_before),
        "versions": litert_report.versions(),
        "seconds": round(time.time() - started, 1),
        "models": models,
    }
    litert_report.write_files(a.out, report, _markdown(report))


def _markdown(report):
    m = report["machine"]
    lines = [
        "# Trained Skim-LSTM exports (float32 and int8) against the LSTM export",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs shared with other jobs; load average "
        f"{m['load_average_at_start']} at start, {m['load_average_at_end']} at end; nice {m['nice']}, "
        f"CPUs {m['cpus_allowed']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        "- baselines: `keras.layers.LSTM(d)` of the same V, e, d exported by keras-skim (builtin ops, hoisted input "
        'projections, XNNPACK on), float32 and int8 (`convert(quantize="int8")`, dynamic range); LiteRT, batch 1, '
        "one thread, texts at their own length; speed-up = median over rounds of baseline time / model time.",
        "- custom: `KerasSkimLSTM` op (`custom_op_flatbuffer`, int8: embedding with a scale per row, big-cell kernel "
        "with a scale per column); builtin: `keras-skim export` graph (int8: TFLite dynamic-range quantization).",
        "",
    ]
    for model in report["models"]:
        lines += [
            f"## {model['name']}: {model['dataset']}, d={model['units']}, d'={model['small_units']}, "
            f"e={model['embedding']}, V={model['vocabulary']}, threshold {model['threshold']}",
            "",
            f"Accuracy and agreement: all {model['test_texts']} test texts (skim rate {model['test_skim_rate']:.1%}; "
            f"Keras at training: {model['keras_test_accuracy_at_training']}; float custom op and builtin graph decide "
            f"alike on {model['float_custom_vs_builtin_decision_agreement']:.4%} of tokens). "
            f"Speed: {model['timed_texts']} test "
            f"texts ({model['mean_tokens']} tokens on average), {model['rounds']} rounds; skim rate there "
            f"{model['skim_rate']:.1%}, Flop-R {model['flop_r']:.2f}x.",
            "",
            "| export | bytes | size vs float | test accuracy | int8 change (points) | decisions as float |"
            " us/token | speed-up vs LSTM export | vs int8 LSTM export | speed-up / Flop-R |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in model["rows"]:

            def cell(key, fmt, r=r):
                return format(r[key], fmt) if key in r else "-"

            agree = r.get("decision_agreement_with_float")
            lines.append(
                f"| {r['export']} | {r['bytes']} | {r['size_vs_float']:.3f} | {cell('test_accuracy', '.4f')} | "
                f"{cell('accuracy_change_points', '+.2f')} | {'-' if agree is None else f'{agree:.2%}'} | "
                f"{r['us_per_token']:.3f} | {r['speedup_vs_lstm_export']:.2f}x | "
                f"{cell('speedup_vs_lstm_int8', '.2f')} | {cell('speedup_over_flop_r', '.2f')} |"
            )
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
