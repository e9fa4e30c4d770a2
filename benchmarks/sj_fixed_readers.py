"""Fixed readers against full reading (issue 16, item 4(c)): a plain LSTM trained
and tested on only the first k words of each sentence.

How much accuracy can a reader that sees a fifth of the words keep with our
inputs (GloVe 6B 50d, 20k vocabulary, 400 tokens, the tokenizer and splits
of `load_dataset_splits`, seed 0)? For each k of --ks, every document
(train, validation and test alike) is reduced to its word stream
(punctuation removed, as Structural-Jump-LSTM reads it) keeping only the
first k words of each sentence (sentence ends `. ! ?`, as the jump agent's
"next sentence"); "all" keeps every word. An LSTM 128 (GloVe, trained
embedding, Adam 1e-3, the best validation accuracy of up to --epochs kept)
is trained on each. The read fraction is the test words kept over the test
words (corpus level; the per-document mean too).

Writes results/sj_fixed_readers_<data>[_<tag>].json, .md and .png.

    python benchmarks/sj_fixed_readers.py --data imdb --limit 8000 --epochs 3
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=["rotten_tomatoes", "imdb"], default="imdb")
    parser.add_argument("--limit", type=int, default=None, help="training texts (before IMDB's validation split)")
    parser.add_argument(
        "--max-length", type=int, default=None, help="tokens per text (default: 400 IMDB, 50 Rotten Tomatoes)"
    )
    parser.add_argument("--ks", default="1,2,3,5,all")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--units", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tag", default=None)
    parser.add_argument("--note", default=None, help="a paragraph for the Markdown (what the numbers show)")
    parser.add_argument("--render", default=None, help="only rewrite the Markdown of this result JSON")
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    return parser.parse_args(argv)


def first_words(token_ids, k, sentence_end_ids, punctuation):
    """Each row's word stream keeping the first k words of every sentence (k None: all words).

    Returns:
        `(reduced, kept, words)`: int32 `(batch, T')` left-aligned ids, 0
        after them (T' the longest reduced row); the words kept and the
        words of each row.
    """
    rows, kept, words = [], [], []
    for row in np.asarray(token_ids):
        out, position, total = [], 0, 0
        for token in row:
            if token == 0:
                continue
            if token in sentence_end_ids:
                position = 0
            if token in punctuation:
                continue
            total += 1
            if k is None or position < k:
                out.append(token)
            position += 1
        rows.append(out)
        kept.append(len(out))
        words.append(total)
    reduced = np.zeros((len(rows), max(max(kept), 1)), np.int32)
    for i, out in enumerate(rows):
        reduced[i, : len(out)] = out
    return reduced, np.asarray(kept), np.asarray(words)


def train_one(args, k, data, tokenizer, glove, ids):
    import keras

    from keras_skim.models.text_classifier.text_classifier import build_text_classifier, compile_text_classifier

    reduced = {split: first_words(data[split][0], k, *ids) for split in data}
    length = max(r[0].shape[1] for r in reduced.values())
    inputs = {split: np.pad(r[0], ((0, 0), (0, length - r[0].shape[1]))) for split, r in reduced.items()}
    keras.utils.set_random_seed(args.seed)
    model = build_text_classifier(
        "lstm",
        tokenizer.vocabulary_size,
        length,
        embedding_dim=50,
        units=args.units,
        embedding_matrix=glove,
        train_embedding=True,
    )
    compile_text_classifier(model, 1e-3)
    stop = keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=2, restore_best_weights=True)
    started = time.perf_counter()
    history = model.fit(
        inputs["train"],
        data["train"][1].astype("float32"),
        batch_size=args.batch_size,
        epochs=args.epochs,
        validation_data=(inputs["validation"], data["validation"][1].astype("float32")),
        callbacks=[stop],
        verbose=2,
    )
    seconds = time.perf_counter() - started

    def accuracy(split):
        logits = model.predict(inputs[split], batch_size=256, verbose=0)[:, 0]
        return float(np.mean((logits >= 0) == (data[split][1] == 1)))

    _, kept, words = reduced["test"]
    return {
        "k": "all" if k is None else k,
        "input_length": int(length),
        "test_accuracy": accuracy("test"),
        "validation_accuracy": accuracy("validation"),
        "read_fraction": float(kept.sum() / max(words.sum(), 1)),
        "read_fraction_per_document_mean": float(np.mean(kept / np.maximum(words, 1))),
        "epochs_run": len(history.history["loss"]),
        "seconds": seconds,
        "history": {name: [float(v) for v in values] for name, values in history.history.items()},
    }


def plot(rows, path, title, lstm=None):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6.5, 4.2))
    axis.plot([r["read_fraction"] for r in rows], [r["test_accuracy"] for r in rows], "o-")
    for r in rows:
        axis.annotate(
            f"k={r['k']}",
            (r["read_fraction"], r["test_accuracy"]),
            fontsize=8,
            xytext=(4, -10),
            textcoords="offset points",
        )
    if lstm is not None:
        axis.axhline(lstm["accuracy"], color="k", linestyle="--", label=f"LSTM, all data ({lstm['source']})")
        axis.legend(fontsize=8, loc="lower right")
    axis.set_xlabel("read fraction of the test words (first k words of each sentence)")
    axis.set_ylabel("test accuracy")
    axis.set_xlim(0, 1.02)
    axis.grid(alpha=0.3)
    axis.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def lstm_reference(data_name):
    import json

    path = os.path.join(HERE, "results", f"sj_reproduction_{data_name}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        row = next(r for r in json.load(f)["rows"] if r["model"] == "LSTM")
    return {"accuracy": row["accuracy"], "source": os.path.basename(path)}


def markdown(report):
    pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
    a = report["arguments"]
    lines = [
        f"# Fixed readers on {a['data']}: an LSTM on the first k words of each sentence",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']['platform']}, {report['machine']['cpu_count']} CPUs; "
        + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
        f"Data: {a['data']}, {report['train_examples']} training / {report['validation_examples']} validation / "
        f"{report['test_examples']} test texts"
        + (f" (a slice: `--limit {a['limit']}`)" if a["limit"] else "")
        + f"; tokenizer of `load_dataset_splits` (vocabulary {report['vocabulary_size']}, "
        f"{report['max_length']} raw tokens), GloVe 6B 50d (trained). Every split is reduced the same way: the word "
        "stream (punctuation removed) keeping the first k words of each sentence (`. ! ?`). LSTM "
        f"{a['units']}, Adam 1e-3, batch {a['batch_size']}, best validation accuracy of up to {a['epochs']} epochs.",
        "",
    ]
    if report["lstm_reference"]:
        ref = report["lstm_reference"]
        lines += [
            f"Reference: our LSTM 128 on all the training data, every token read (punctuation included): "
            f"{ref['accuracy']:.4f} ({ref['source']}).",
            "",
        ]
    lines += [
        "| reader | read (corpus) | read (per-document mean) | input length | test accuracy | vs k=all | "
        "val accuracy | val accuracy by epoch | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    full = next((r for r in report["rows"] if r["k"] == "all"), None)
    for r in report["rows"]:
        vs = f"{100 * (r['test_accuracy'] - full['test_accuracy']):+.2f} pt" if full else ""
        lines.append(
            f"| first {r['k']} words / sentence | {pct(r['read_fraction'])} | "
            f"{pct(r['read_fraction_per_document_mean'])} | {r['input_length']} | {r['test_accuracy']:.4f} | {vs} | "
            f"{r['validation_accuracy']:.4f} | {', '.join(f'{v:.3f}' for v in r['history']['val_accuracy'])} | "
            f"{r['seconds']:.0f} |"
        )
    lines += ["", f"Plot: {report['plot']}.", ""]
    if report["arguments"].get("note"):
        lines += [report["arguments"]["note"], ""]
    return "\n".join(lines)


def main(argv=None):
    args = parse(argv)
    import litert_report

    if args.render:
        import json

        with open(args.render) as f:
            report = json.load(f)
        if args.note:
            report["arguments"]["note"] = args.note
        litert_report.write_files(args.render[: -len(".json")], report, markdown(report))
        return 0
    from keras_skim.models.structural_jump.structural_jump_training import load_dataset_splits
    from keras_skim.models.structural_jump.text_structure import TOKENIZER_PUNCTUATION, punctuation_ids
    from keras_skim.models.text_classifier.text_classifier_training import versions

    started = time.time()
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    data, tokenizer, glove = load_dataset_splits(
        args.data, max_length=args.max_length, limit=args.limit, seed=args.seed
    )
    marks = punctuation_ids(tokenizer.vocabulary)
    punctuation = set(marks["separator_ids"]) | set(marks["sentence_end_ids"]) | set(marks["other_punctuation_ids"])
    ids = (set(marks["sentence_end_ids"]), punctuation)
    rows = []
    for k in args.ks.split(","):
        row = train_one(args, None if k == "all" else int(k), data, tokenizer, glove, ids)
        rows.append(row)
        print(
            f"k={row['k']}: read {row['read_fraction']:.1%}, test accuracy {row['test_accuracy']:.4f} "
            f"({row['seconds']:.0f} s)",
            flush=True,
        )
    suffix = f"_{args.tag}" if args.tag else ""
    stem = os.path.join(args.results, f"sj_fixed_readers_{args.data}{suffix}")
    report = {
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_at_start),
        "versions": versions(),
        "arguments": {k: v for k, v in vars(args).items() if k != "results"},
        "punctuation": {"tokenizer_keeps": list(TOKENIZER_PUNCTUATION), **marks},
        "train_examples": int(len(data["train"][1])),
        "validation_examples": int(len(data["validation"][1])),
        "test_examples": int(len(data["test"][1])),
        "vocabulary_size": int(tokenizer.vocabulary_size),
        "max_length": int(data["train"][0].shape[1]),
        "lstm_reference": lstm_reference(args.data),
        "rows": rows,
        "plot": os.path.basename(stem) + ".png",
        "seconds": time.time() - started,
    }
    os.makedirs(args.results, exist_ok=True)
    plot(
        rows,
        stem + ".png",
        f"Fixed readers, {args.data} ({report['train_examples']} training texts)",
        report["lstm_reference"],
    )
    litert_report.write_files(stem, report, markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
