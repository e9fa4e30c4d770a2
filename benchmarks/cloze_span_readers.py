"""SQuAD F1 / EM and per-layer skim rate of the span readers on the cloze set cast as span extraction.

    python benchmarks/cloze_span_readers.py                       # the set benchmarks/build_cloze_set.py wrote
    python benchmarks/cloze_span_readers.py --train-questions 0 --test-questions 0 --max-length 400   # all of it

The cloze files (CBT text format) are cast as SQuAD-format JSON by `keras_skim.datasets.cloze_to_squad`
(context: the 20 sentences; question: the query with XXXXX; answer: the missing word at its first place in
the context). Only questions whose answer lies inside the first ``--max-length`` context tokens are kept
(a reader cannot point past its input), and a seeded sample of ``--train-questions`` of the train file and
``--test-questions`` of the test file is taken, so that the run fits this shared machine: the figures are a
slice's, not the set's. Each ``--cells`` value is one ``keras-skim train --task squad --model
lstm-attention`` run (d, d' and gamma as the Skim-RNN paper's SQuAD model: 100, 20, 0.01), then
``keras-skim evaluate --json`` on the test slice; a run whose folder is complete is not trained again, so a
stopped benchmark resumes by running the same command. The rows go to
``benchmarks/results/cloze_span_<tag>.{json,md}`` after each reader, with the paper's SQuAD figures beside.
"""

import argparse
import hashlib
import json
import os
import pathlib
import platform
import random
import shlex
import subprocess
import sys
import time

from cloze_readers import versions  # the same record of versions as the cloze readers' results

from keras_skim.datasets.cache import cache_root
from keras_skim.datasets.cloze_files import ClozeExample
from keras_skim.datasets.cloze_priors import accuracy, context_frequency
from keras_skim.datasets.cloze_to_squad import cloze_examples, cloze_to_squad
from keras_skim.datasets.squad import answer_token_span, tokens_with_offsets

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
DEFAULT_SET = cache_root() / "data" / "cloze_imdb" / "v1"
# Skim-RNN (Seo et al., ICLR 2018), Table 4, SQuAD v1.1 dev: the context these rows are read beside.
PAPER = {
    "lstm": "LSTM+Att: F1 75.5, EM 67.2 (SQuAD v1.1 dev)",
    "skim-lstm": "Sk-LSTM+Att (gamma 0.01): about the LSTM's F1 at Flop-R 1.4-1.6x (SQuAD v1.1 dev)",
}
# What the issue asks of a skim reader: within this many F1 points of the LSTM ...
F1_MARGIN = 1.0
# ... at this skim rate or more in some layer.
MIN_LAYER_SKIM = 0.5


def answerable_slice(path, max_length, count, seed):
    """A SQuAD-format document of a seeded sample of `count` (0: all) questions of the cloze file `path`
    whose answer lies inside the first `max_length` context tokens, and how many questions the file has."""
    examples = cloze_examples(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), str(path))
    document, _ = cloze_to_squad(examples, title=pathlib.Path(path).stem)
    paragraphs = document["data"][0]["paragraphs"]
    kept = [paragraph for paragraph in paragraphs if _answer_inside(paragraph, max_length)]
    counts = {"in the file": len(examples), "answer inside": len(kept)}
    if count:
        kept = random.Random(seed).sample(kept, min(count, len(kept)))
    document["data"][0]["paragraphs"] = kept
    return document, {**counts, "sampled": len(kept)}


def _answer_inside(paragraph, max_length):
    answer = paragraph["qas"][0]["answers"][0]
    span = answer_token_span(tokens_with_offsets(paragraph["context"]), answer["answer_start"], answer["text"])
    return span is not None and span[1] < max_length


def keras_skim(*arguments, capture=True):
    """Runs ``python -m keras_skim ARGUMENTS`` at the lowest priority; its stdout if `capture` (else it goes
    to this script's, as the training's progress does)."""
    command = ["nice", "-n", "19", sys.executable, "-m", "keras_skim", *arguments]
    return subprocess.run(command, check=True, stdout=subprocess.PIPE if capture else None, text=True).stdout


def train_and_evaluate(args, cell, train_file, test_file):
    """The `keras-skim evaluate --json` result of the `cell` reader, trained unless its folder is complete."""
    folder = args.runs / f"{args.tag}_{cell}"
    if not (folder / "model.keras").exists():
        start = time.time()
        keras_skim(
            "train", "--task", "squad", "--model", "lstm-attention", "--data", str(train_file), "--cell", cell,
            "--units", str(args.units), "--small-units", str(args.small_units), "--gamma", str(args.gamma),
            "--epochs", str(args.epochs), "--batch-size", str(args.batch_size),
            "--max-length", str(args.max_length), "--seed", str(args.seed), "-o", str(folder), "--force",
            capture=False,
        )  # fmt: skip
        # Kept beside the model, so that a resumed benchmark still reports how long the training took.
        (folder / "cloze_span_train.json").write_text(json.dumps({"seconds": time.time() - start}) + "\n")
    held_out = json.loads((folder / "task.json").read_text(encoding="utf-8"))["held_out"]
    timing = folder / "cloze_span_train.json"
    seconds = json.loads(timing.read_text(encoding="utf-8"))["seconds"] if timing.exists() else None
    return evaluation(folder, test_file), held_out, seconds


def evaluation(folder, test_file):
    """`keras-skim evaluate --json` of `folder` on `test_file`, kept in the folder so that a rerun with the
    same test file (same sha256) does not evaluate again."""
    kept = folder / "cloze_span_test.json"
    digest = hashlib.sha256(pathlib.Path(test_file).read_bytes()).hexdigest()
    if kept.exists():
        record = json.loads(kept.read_text(encoding="utf-8"))
        if record["sha256"] == digest:
            return record["result"]
    result = json.loads(keras_skim("evaluate", str(folder), "--data", str(test_file), "--json"))
    kept.write_text(json.dumps({"sha256": digest, "result": result}) + "\n", encoding="utf-8")
    return result


def frequency_baseline(test_file):
    """EM (percent) on `test_file` of picking the candidate most frequent in the context: no reading, but it
    sees the candidates (`cloze_to_squad` keeps them), which the span readers do not."""
    paragraphs = json.loads(pathlib.Path(test_file).read_text(encoding="utf-8"))["data"][0]["paragraphs"]
    questions = [(paragraph["context"], paragraph["qas"][0]) for paragraph in paragraphs]
    examples = [
        ClozeExample((context,), qa["question"], qa["answers"][0]["text"], tuple(qa["candidates"]))
        for context, qa in questions
    ]
    return 100 * accuracy(examples, context_frequency)


def verdict(rows):
    """One sentence: is the skim reader within `F1_MARGIN` F1 of the LSTM at >= `MIN_LAYER_SKIM` skim in a layer?"""
    lstm = next((row for row in rows if row["cell"] == "lstm"), None)
    skim = next((row for row in rows if row["cell"] == "skim-lstm"), None)
    if lstm is None or skim is None:
        return "Not decided yet: both readers must have run."
    gap = lstm["test"]["f1"] - skim["test"]["f1"]
    top = max(row["skim_rate"] for row in skim["test"]["layers"].values())
    met = gap <= F1_MARGIN and top >= MIN_LAYER_SKIM
    return (
        f"Skim-LSTM F1 is {abs(gap):.2f} {'below' if gap >= 0 else 'above'} the LSTM's, with {100 * top:.1f}% skim in "
        f"its most-skimming layer: the issue's bar (within {F1_MARGIN:g} F1 at >= {100 * MIN_LAYER_SKIM:.0f}% "
        f"skim in some layer) is {'met' if met else 'not met'} on this slice."
    )


def merged_rows(path, record):
    """The rows of `record`, and those of other readers that an earlier or concurrent run of the same settings
    and data wrote to `path` (``--cells lstm`` and ``--cells skim-lstm`` may run side by side)."""
    try:
        earlier = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return record["rows"]
    if (earlier.get("settings"), earlier.get("data")) != (record["settings"], record["data"]):
        return record["rows"]
    mine = {row["cell"] for row in record["rows"]}
    rows = [row for row in earlier["rows"] if row["cell"] not in mine] + record["rows"]
    return sorted(rows, key=lambda row: sorted(PAPER).index(row["cell"]))


def write_report(path, record):
    record = {**record, "rows": merged_rows(path, record)}
    path.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    lines = []
    for row in record["rows"]:
        layers = ", ".join(
            f"{name} {100 * layer['skim_rate']:.1f}% (fw {100 * layer['forward']['skim_rate']:.1f}, "
            f"bw {100 * layer['backward']['skim_rate']:.1f})"
            for name, layer in row["test"]["layers"].items()
        )
        lines.append(
            f"| {row['cell']} | {row['test']['f1']:.2f} | {row['test']['exact_match']:.2f} | "
            f"{100 * row['test']['skim_rate']:.1f}% | {layers} | {row['held_out']['f1']:.2f} | "
            f"{'-' if row['seconds'] is None else format(row['seconds'], '.0f')} | {PAPER[row['cell']]} |"
        )
    pending = ", ".join(record["pending"]) or "none (of this command)"
    path.with_suffix(".md").write_text(
        f"# Span readers (LSTM+Attention) on the cloze set cast as span extraction\n\n"
        f"Written by `{record['command']}` ({record['machine']}; {record['versions']}; load average "
        f"{record['load_average']} at the start).\n\n"
        f"Data: {record['data']}. Reader settings: {record['settings']}. Readers still to run: {pending}.\n\n"
        "| reader | test F1 | test EM | skim rate | skim rate per layer (forward, backward) | held-out F1 "
        "| training seconds (wall) | paper (SQuAD, context only) |\n|---|---|---|---|---|---|---|---|\n"
        + "\n".join(lines)
        + f"\n\nNo reading, for scale: the candidate most frequent in the context (the span readers see no "
        f"candidates) has EM {record['frequency_baseline_em']:.2f} on the same test questions.\n\n"
        f"{verdict(record['rows'])}\n\n"
        "The paper's figures are SQuAD v1.1 with GloVe and the full training set; these readers learn their "
        "embeddings from the slice above, on the cloze set's text, so only the two rows here compare with each other."
        "\n",
        encoding="utf-8",
    )


def cloze_file(folder, kind, split):
    """The set's one `<source>_cloze_<kind>_<split>.txt` file (build_cloze_set.py names them by source)."""
    found = sorted(pathlib.Path(folder).glob(f"*_cloze_{kind}_{split}.txt"))
    if len(found) != 1:
        expected = f"one *_cloze_{kind}_{split}.txt file"
        raise SystemExit(f"cloze_span_readers: {folder}: expected {expected}, found {len(found)}")
    return found[0]


def prepare_data(args):
    """Writes the train and test slices (SQuAD JSON) under the runs folder; (train file, test file, counts)."""
    args.runs.mkdir(parents=True, exist_ok=True)
    files, counts = {}, {}
    for split, count in (("train", args.train_questions), ("test", args.test_questions)):
        source = cloze_file(args.set, args.kind, split)
        document, counts[split] = answerable_slice(source, args.max_length, count, args.seed)
        files[split] = args.runs / f"{args.tag}_{split}.json"
        files[split].write_text(json.dumps(document) + "\n", encoding="utf-8")
    return files["train"], files["test"], counts


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=pathlib.Path, default=DEFAULT_SET, help="folder of the cloze files")
    parser.add_argument("--kind", choices=("CN", "NE"), default="CN")
    parser.add_argument("--cells", nargs="+", default=["lstm", "skim-lstm"], choices=sorted(PAPER))
    parser.add_argument("--train-questions", type=int, default=400, help="0: every answerable question")
    parser.add_argument("--test-questions", type=int, default=100, help="0: every answerable question")
    parser.add_argument("--max-length", type=int, default=150, help="context tokens")
    parser.add_argument("--units", type=int, default=100)
    parser.add_argument("--small-units", type=int, default=20)
    parser.add_argument("--gamma", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tag", default="imdb_cn")
    parser.add_argument("--runs", type=pathlib.Path, default=cache_root() / "runs" / "cloze_span")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    train_file, test_file, counts = prepare_data(args)
    settings = {key: getattr(args, key) for key in ("units", "small_units", "gamma", "epochs", "batch_size", "seed")}
    record = {
        "command": "python benchmarks/cloze_span_readers.py " + shlex.join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs shared with other jobs",
        "load_average": [round(value, 1) for value in os.getloadavg()],
        "versions": versions(),
        "data": (
            f"{args.kind} files of {args.set}; questions per split (in the file, kept with the answer inside the "
            f"first {args.max_length} context tokens and sampled with seed {args.seed}): {counts}; "
            "keras-skim train holds 10% of the train slice out (held-out F1)"
        ),
        "settings": {**settings, "model": "lstm-attention", "max_length": args.max_length},
        "paper": PAPER,
        "frequency_baseline_em": frequency_baseline(test_file),
        "rows": [],
        "pending": list(args.cells),
    }
    report = RESULTS / f"cloze_span_{args.tag}"
    for cell in args.cells:
        test, held_out, seconds = train_and_evaluate(args, cell, train_file, test_file)
        record["rows"].append({"cell": cell, "test": test, "held_out": held_out, "seconds": seconds})
        record["pending"].remove(cell)
        write_report(report, record)
        print(f"{cell}: F1 {test['f1']:.2f} EM {test['exact_match']:.2f} skim {test['skim_rate']:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
