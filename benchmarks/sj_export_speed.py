"""A trained Structural-Jump-LSTM on real texts: both exports (the KerasSjLSTM
custom op and the builtin graph) against our builtin LSTM export of the same
size, at the trained (greedy) policy.

For one model folder (model.keras, tokenizer.json, train_config.json of a
Structural-Jump-LSTM run) it reports:
  * the export's accuracy on the test split of its data set (both exports
    equal Keras within 1e-4 and decide alike: checked at export) and the
    read / skip / jump fractions the exports report;
  * per-token latency on a seeded sample of test texts (LiteRT, batch 1, one
    thread, each text at its own length cut at the training length, through
    the runtime's signature runner, as `keras-skim bench` and the app run
    it), all exports and both baselines interleaved in one process:
      - `lstm_words`: the LSTM export (`keras.layers.LSTM(m)` of the same V,
        e, m, random weights: its speed does not depend on them) on the
        texts' words only, punctuation removed: the full read that Flop-r
        counts (the target's baseline);
      - `lstm_tokens`: the same export on the raw ids, punctuation
        included, as the project's LSTM classifiers read them;
    speed-up = median over rounds of baseline time / model time; Flop-r
    (keras_skim.models.structural_jump.structural_jump_flops, corpus level over the timed
    texts) from the counts the export returns; target speed-up >= 0.8 x Flop-r;
  * cost per token against the text length: one long text (the timed texts
    joined) cut at 500, 5,000 and 50,000 tokens, through both exports of the
    same model with its agents off (`speed_reading = False`: every word
    read, the loop's worst case; a trained policy may jump to the end of
    such a text at once) and the LSTM export: the per-token time must not
    grow with the length.

    python benchmarks/sj_export_speed.py --model FOLDER [--data imdb] [--samples 200] [--rounds 15] [--cpu 1]

Writes benchmarks/results/sj_export_speed.{json,md} (or --out STEM).
"""

import argparse
import json
import os
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litert_report  # noqa: E402
import numpy as np  # noqa: E402

LONG_LENGTHS = (500, 5000, 50000)
LSTM_BASELINES = ("lstm_words", "lstm_tokens")


class Runner:
    """An exported model that runs one text (ids [T]) through the runtime's
    signature runner (inputs in, run, outputs out)."""

    def __init__(self, content):
        from keras_skim.runtime.interpreter_loader import make_interpreter

        self.signature = make_interpreter(model_content=content, num_threads=1).get_signature_runner("serving_default")
        self.inputs = None

    def prepare(self, ids):
        # Jump models take no threshold (their agents act greedily), nor does the LSTM export.
        self.inputs = {"token_ids": np.asarray(ids, np.int32)[None]}

    def invoke(self):
        return self.signature(**self.inputs)

    def run(self, ids):
        self.prepare(ids)
        return {k: np.array(v) for k, v in self.invoke().items()}


def lstm_export(vocabulary, embedding, units, classes, seed=0):
    """Our builtin export of a Keras LSTM classifier of the same V, e, m."""
    import keras

    from keras_skim.export.graph_builder import build_module, convert
    from keras_skim.export.plan import plan_model

    keras.utils.set_random_seed(seed)
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(vocabulary, embedding, mask_zero=True)(inp)
    model = keras.Model(inp, keras.layers.Dense(classes)(keras.layers.LSTM(units)(x)))
    return convert(build_module(plan_model(model)))


def export(folder, backend, out):
    """export_model (plan, flatbuffer, parity against Keras, metadata)."""
    from keras_skim.export.exporter import export_model

    result = export_model(folder, os.path.join(out, backend), backend=backend, force=True)
    with open(os.path.join(result.output_dir, "model.tflite"), "rb") as f:
        return f.read(), result


def time_interleaved(runners, inputs, rounds):
    """Per-round invoke seconds of each runner, per text ([rounds, texts];
    `inputs[name][k]`: that runner's ids of text k); the order of the
    runners alternates between texts and rounds."""
    names = list(runners)
    for k in range(min(3, len(inputs[names[0]]))):  # warm-up
        for n in names:
            runners[n].prepare(inputs[n][k])
            runners[n].invoke()

    def order(r, texts):
        for k in range(texts):
            for n in names if (r + k) % 2 == 0 else names[::-1]:
                yield n, k

    return _time_calls(runners, inputs, rounds, order)


def time_in_blocks(runners, inputs, rounds):
    """As `time_interleaved`, but each runner runs all its texts in a row
    before the next one, as an app serving one model does (its weights stay
    in the caches between texts); the order of the runners alternates
    between rounds."""
    names = list(runners)

    def order(r, texts):
        for n in names if r % 2 == 0 else names[::-1]:
            for k in range(texts):
                yield n, k

    return _time_calls(runners, inputs, rounds, order)


def _time_calls(runners, inputs, rounds, order):
    """Times each call that `order(round, texts)` names, (runner, text) pairs: [rounds, texts] per runner."""
    texts = len(next(iter(inputs.values())))
    times = {n: np.zeros((rounds, texts)) for n in runners}
    for r in range(rounds):
        for n, k in order(r, texts):
            runners[n].prepare(inputs[n][k])
            t0 = time.perf_counter()
            runners[n].invoke()
            times[n][r, k] = time.perf_counter() - t0
    return times


def speedups(times, name, flops):
    """Speed-ups of `name` against both LSTM baselines, over the texts and per text, and their share of Flop-r."""
    totals = {n: t.sum(axis=1) for n, t in times.items()}
    row = {f"speedup_vs_{base}": round(float(np.median(totals[base] / totals[name])), 3) for base in LSTM_BASELINES}
    if name.startswith("sj"):
        row["speedup_over_flop_r"] = round(row["speedup_vs_lstm_words"] / flops["flop_r"], 3)
        per_document = per_document_speedup(times, name, "lstm_words")
        row["per_document_speedup_vs_lstm_words"] = round(per_document, 3)
        row["per_document_speedup_over_flop_r"] = round(per_document / flops["flop_r_per_document_mean"], 3)
    return row


def per_document_speedup(times, name, base):
    """The mean over texts of each text's speed-up (medians over rounds): the
    measured counterpart of the per-document mean Flop-r."""
    return float(np.mean(np.median(times[base], axis=0) / np.median(times[name], axis=0)))


def full_read_exports(folder):
    """Both exports of the model with its agents off (every word read)."""
    from keras_skim.export.exporter import backends
    from keras_skim.export.plan import plan_model
    from keras_skim.model_io import load_model

    model = load_model(os.path.join(folder, "model.keras"))
    model.speed_reading = False
    plan = plan_model(model)
    return {
        f"sj_{name}_full_read": backends()[name].flatbuffer(model, plan, threshold=None, length=None)
        for name in ("custom", "builtin")
    }


def counts(runner, ids_list):
    """Per text: words (tokens that are not punctuation or padding), visited, read."""
    words, visited, read = [], [], []
    for ids in ids_list:
        out = runner.run(ids)
        mask = out["read_mask"].reshape(-1)
        words.append(int(np.sum(mask != 3)))
        visited.append(int(out["visited_count"].reshape(-1)[0]))
        read.append(int(out["read_count"].reshape(-1)[0]))
    return np.asarray(words), np.asarray(visited), np.asarray(read)


def bench(folder, dataset, samples, rounds, accuracy_texts, long_repeats):
    from keras_skim.datasets import load_text_dataset
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.models.structural_jump.structural_jump_flops import structural_jump_flop_report

    with open(os.path.join(folder, "train_config.json")) as f:
        config = json.load(f)
    arguments = config["arguments"]
    max_length = arguments["max_length"]
    dataset = dataset or arguments.get("dataset")
    if not dataset:
        raise SystemExit(f"{folder}: train_config.json names no dataset: pass --data")
    tokenizer = Tokenizer.load(os.path.join(folder, "tokenizer.json"))
    with tempfile.TemporaryDirectory() as out:
        contents, results = {}, {}
        for backend in ("custom", "builtin"):
            contents[f"sj_{backend}"], results[backend] = export(folder, backend, out)
    meta = results["custom"].metadata
    m, e, a, V = meta.units, meta.embedding_dim, meta.agent_units, meta.vocabulary_size
    punctuation = sorted(i for ids in meta.punctuation.values() for i in ids)
    contents["lstm_words"] = contents["lstm_tokens"] = lstm_export(V, e, m, meta.num_classes)
    runners = {n: Runner(c) for n, c in contents.items()}  # one interpreter per name

    texts, labels = load_text_dataset(dataset, "test")
    labels = np.asarray(labels)
    ids_list = []
    for text in texts:
        ids = tokenizer.encode_one(text, max_length=max_length)
        ids = ids[ids != 0]
        ids_list.append(ids if len(ids) else np.zeros((1,), np.int32))
    order = np.random.default_rng(0).permutation(len(ids_list))
    evaluated = order if accuracy_texts is None else order[:accuracy_texts]
    accuracy = {}
    for name in ("sj_custom", "sj_builtin"):
        correct = 0
        for i in evaluated:
            correct += int(np.argmax(runners[name].run(ids_list[i])["logits"]) == labels[i])
        accuracy[name] = correct / len(evaluated)
    all_words, all_visited, all_read = counts(runners["sj_custom"], [ids_list[i] for i in evaluated])

    sample = [ids_list[i] for i in order[:samples]]
    words_only = [ids[~np.isin(ids, punctuation)] for ids in sample]
    words_only = [w if len(w) else np.ones((1,), np.int32) for w in words_only]
    inputs = {"sj_custom": sample, "sj_builtin": sample, "lstm_words": words_only, "lstm_tokens": sample}
    times = time_interleaved(runners, inputs, rounds)
    times_in_blocks = time_in_blocks(runners, inputs, rounds)
    totals = {n: t.sum(axis=1) for n, t in times.items()}
    word_count, visited, read = counts(runners["sj_custom"], sample)
    check = counts(runners["sj_builtin"], sample)
    assert all(np.array_equal(x, y) for x, y in zip(check, (word_count, visited, read)))
    flops = structural_jump_flop_report(word_count, visited, read, m, e, a)
    tokens = sum(len(i) for i in sample)
    words = int(word_count.sum())
    rows = []
    for name in ("sj_custom", "sj_builtin", "lstm_words", "lstm_tokens"):
        row = {
            "export": name,
            "bytes": len(contents[name]),
            "ms_per_text": round(float(np.median(totals[name])) / len(sample) * 1e3, 4),
            "us_per_word": round(float(np.median(totals[name])) / words * 1e6, 3),
        }
        row.update(speedups(times, name, flops))
        row["in_blocks"] = speedups(times_in_blocks, name, flops)
        if name.startswith("sj"):
            row["test_accuracy"] = round(accuracy[name], 4)
        rows.append(row)

    # Cost per token against the length: one long text of the timed texts.
    joined = np.concatenate(sample * (1 + max(LONG_LENGTHS) // max(tokens, 1)))
    runners.update({n: Runner(c) for n, c in full_read_exports(folder).items()})
    long_rows = []
    for length in LONG_LENGTHS:
        row = {"tokens": length}
        for name in ("sj_custom_full_read", "sj_builtin_full_read", "lstm_tokens"):
            runner = runners[name]
            runner.prepare(joined[:length])
            runner.invoke()
            times = []
            for _ in range(long_repeats):
                t0 = time.perf_counter()
                runner.invoke()
                times.append(time.perf_counter() - t0)
            row[f"{name}_us_per_token"] = round(float(np.median(times)) / length * 1e6, 3)
        out = runners["sj_custom_full_read"].run(joined[:length])
        row["words"] = int(np.sum(out["read_mask"] != 3))
        assert int(out["read_count"][0]) == row["words"]
        long_rows.append(row)
    n = max(int(all_words.sum()), 1)
    return {
        "folder": os.path.abspath(folder),
        "dataset": dataset,
        "units": m,
        "agent_units": a,
        "embedding": e,
        "vocabulary": V,
        "max_length": max_length,
        "speed_reading": meta.speed_reading,
        "keras_test_accuracy_at_training": config.get("test", {}).get("accuracy"),
        "parity": {backend: results[backend].parity.message for backend in results},
        "accuracy_texts": int(len(evaluated)),
        "read_fraction": round(int(all_read.sum()) / n, 4),
        "skip_fraction": round(int(all_visited.sum() - all_read.sum()) / n, 4),
        "jump_fraction": round(int(all_words.sum() - all_visited.sum()) / n, 4),
        "timed_texts": len(sample),
        "timed_tokens": tokens,
        "timed_words": words,
        "rounds": rounds,
        "timed_read_fraction": round(int(read.sum()) / max(words, 1), 4),
        "timed_skip_fraction": round(int(visited.sum() - read.sum()) / max(words, 1), 4),
        "timed_jump_fraction": round(int(word_count.sum() - visited.sum()) / max(words, 1), 4),
        "flop_r": round(flops["flop_r"], 3),
        "flop_r_per_document_mean": round(flops["flop_r_per_document_mean"], 3),
        "step_flops": flops["step_flops"],
        "rows": rows,
        "long_text": long_rows,
        "long_repeats": long_repeats,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a Structural-Jump-LSTM model folder")
    ap.add_argument("--data", default=None, help="its data set (default: the one train_config.json names)")
    ap.add_argument("--samples", type=int, default=200, help="test texts timed (default 200)")
    ap.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    ap.add_argument("--accuracy-texts", type=int, default=None, help="test texts for accuracy (default all)")
    ap.add_argument("--long-repeats", type=int, default=5, help="timed runs per long text (default 5)")
    ap.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU")
    ap.add_argument("--out", default=os.path.join(litert_report.RESULTS, "sj_export_speed"))
    a = ap.parse_args()
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    from keras_skim.litert_ops import library_path

    library_path()
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    result = bench(a.model, a.data, a.samples, a.rounds, a.accuracy_texts, a.long_repeats)
    report = {
        "benchmark": "sj_export_speed",
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_before),
        "versions": litert_report.versions(),
        "seconds": round(time.time() - started, 1),
        "model": result,
    }
    litert_report.write_files(a.out, report, _markdown(report))


def _markdown(report):
    m, r = report["machine"], report["model"]
    lines = [
        "# Trained Structural-Jump-LSTM exports against the LSTM export",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs shared with other jobs; load average "
        f"{m['load_average_at_start']} at start, {m['load_average_at_end']} at end; nice {m['nice']}, "
        f"CPUs {m['cpus_allowed']}; {report['seconds']} s",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- model: {r['folder']} ({r['dataset']}, LSTM {r['units']}, agents {r['agent_units']}, e={r['embedding']}, "
        f"V={r['vocabulary']}, texts cut at {r['max_length']} tokens); Keras test accuracy at training "
        f"{r['keras_test_accuracy_at_training']}",
        f"- parity at export: custom: {r['parity']['custom']}; builtin: {r['parity']['builtin']}",
        "- baselines: our builtin export of `keras.layers.LSTM(m)` with the same V, e, m (hoisted input projections, "
        "XNNPACK on), on the texts' words only (`lstm_words`: the full read Flop-r counts) and on the raw ids with "
        "punctuation (`lstm_tokens`); LiteRT, batch 1, one thread, the runtime's signature runner; speed-up = "
        "median over rounds of baseline time / model time (per document: the mean over texts of each text's "
        "speed-up, against the per-document mean Flop-r); target: speed-up vs lstm_words >= 0.8 x Flop-r. Timed two "
        "ways in each round: interleaved (the runners take turns text by text, so each call finds the caches "
        "holding the other models' weights: the strict measure) and in blocks (each runner runs all the texts in "
        "a row, as an app serving one model does; the runners' order alternates between rounds).",
        "",
        f"Test accuracy of the exports on {r['accuracy_texts']} test texts; there read {r['read_fraction']:.1%}, "
        f"skipped {r['skip_fraction']:.1%}, jumped {r['jump_fraction']:.1%} of the words. Speed: {r['timed_texts']} "
        f"test texts ({r['timed_tokens']} tokens, {r['timed_words']} words), {r['rounds']} rounds; read "
        f"{r['timed_read_fraction']:.1%}, skipped {r['timed_skip_fraction']:.1%}, jumped "
        f"{r['timed_jump_fraction']:.1%}; Flop-r {r['flop_r']:.2f}x (per-document mean "
        f"{r['flop_r_per_document_mean']:.2f}x).",
        "",
        "| export | bytes | test accuracy | ms/text | us/word | speed-up vs lstm_words | vs lstm_tokens |"
        " speed-up / Flop-r | per-document speed-up | per-document speed-up / Flop-r |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["rows"]:

        def cell(key, fmt, row=row):
            return format(row[key], fmt) if key in row else "-"

        lines.append(
            f"| {row['export']} | {row['bytes']} | {cell('test_accuracy', '.4f')} | {row['ms_per_text']:.3f} | "
            f"{row['us_per_word']:.3f} | {row['speedup_vs_lstm_words']:.2f}x | {row['speedup_vs_lstm_tokens']:.2f}x | "
            f"{cell('speedup_over_flop_r', '.2f')} | {cell('per_document_speedup_vs_lstm_words', '.2f')} | "
            f"{cell('per_document_speedup_over_flop_r', '.2f')} |"
        )
    if all("in_blocks" in row for row in r["rows"]):  # results before the second timing lack it
        lines += [
            "",
            "In blocks (the same rounds, each runner's texts in a row):",
            "",
            "| export | speed-up vs lstm_words | vs lstm_tokens | speed-up / Flop-r | per-document speed-up |"
            " per-document speed-up / Flop-r |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        keys = ("speedup_vs_lstm_words", "speedup_vs_lstm_tokens", "speedup_over_flop_r")
        keys += ("per_document_speedup_vs_lstm_words", "per_document_speedup_over_flop_r")
        for row in r["rows"]:
            cells = [format(row["in_blocks"][k], ".2f") if k in row["in_blocks"] else "-" for k in keys]
            lines.append(f"| {row['export']} | {cells[0]}x | {cells[1]}x | " + " | ".join(cells[2:]) + " |")
    lines += [
        "",
        "Per-token time against the text length: the timed texts joined, both exports with the agents off "
        f"(every word read), median of {r['long_repeats']} runs:",
        "",
        "| tokens | words (all read) | sj_custom_full_read us/token | sj_builtin_full_read us/token |"
        " lstm_tokens us/token |",
        "|---:|---:|---:|---:|---:|",
    ]
    names = ("sj_custom_full_read", "sj_builtin_full_read", "lstm_tokens")
    for row in r["long_text"]:
        lines.append(
            f"| {row['tokens']} | {row['words']} | "
            + " | ".join(f"{row[f'{n}_us_per_token']:.3f}" for n in names)
            + " |"
        )
    first, last = r["long_text"][0], r["long_text"][-1]
    lines += [
        "",
        f"Growth from {first['tokens']} to {last['tokens']} tokens: "
        + ", ".join(f"{n} {last[f'{n}_us_per_token'] / first[f'{n}_us_per_token']:.2f}x" for n in names)
        + ".",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
