"""Baselines that do not read (`keras_skim.datasets.cloze_priors`) on a CBT-format cloze set, beside the readers.

    python benchmarks/cloze_priors.py                                   # the set build_cloze_set.py wrote
    python benchmarks/cloze_priors.py --set FOLDER --prefix cbtest --tag cbt   # CBT's own files (users with them)

For each kind (CN, NE) the candidate prior is fitted on ``<prefix>_<kind>_train.txt`` and every baseline is
scored on ``<prefix>_<kind>_{valid,test}.txt``. The readers' test accuracy (`benchmarks/cloze_readers.py`'s
``--readers`` results files, where they were trained on this set) is shown beside, so a reader can see
whether the set tests reading: a reader that does no better than a baseline that ignores the document
has not shown that it reads. Writes ``benchmarks/results/cloze_priors_<tag>.{json,md}`` with the machine,
the versions and the command. Pure Python: no TensorFlow, seconds of CPU.
"""

import argparse
import json
import os
import pathlib
import platform
import shlex
import sys

from keras_skim.datasets.cache import cache_root
from keras_skim.datasets.cloze_files import read_cloze_file
from keras_skim.datasets.cloze_priors import CandidatePrior, accuracy, chance, context_frequency, query_aware_frequency

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
BASELINES = {
    "chance (uniform among the candidates)": None,
    "most frequent candidate in the context": context_frequency,
    "most frequent in the context, not written in the query": query_aware_frequency,
    "candidate prior (sees the candidates only)": "prior",
}


def score_kind(folder, prefix, kind):
    """{baseline: {split: accuracy}} and the question counts of one kind's files."""
    train = read_cloze_file(folder / f"{prefix}_{kind}_train.txt")
    prior = CandidatePrior().fit(train)
    rows, counts = {name: {} for name in BASELINES}, {"train": len(train)}
    for split in ("valid", "test"):
        examples = read_cloze_file(folder / f"{prefix}_{kind}_{split}.txt")
        counts[split] = len(examples)
        for name, scorer in BASELINES.items():
            if scorer is None:
                rows[name][split] = chance(examples)
            else:
                rows[name][split] = accuracy(examples, prior if scorer == "prior" else scorer)
    return rows, counts


def reader_rows(paths, folder):
    """[(label, kind, test accuracy, skim rate)] of `cloze_readers.py` results trained on files in `folder`."""
    found = []
    for path in paths:
        record = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        data = pathlib.Path(record["data"])
        if data.parent != folder:
            continue
        kind = data.name.split("_")[-2]
        for row in record["rows"]:
            # Jump readers' rows (and older files) may lack a skim rate or an epoch count.
            epochs = f", {row['epochs_run']} epochs" if "epochs_run" in row else ""
            label = f"{row['cell']} reader ({pathlib.Path(path).stem}{epochs})"
            found.append((label, kind, row["test"]["accuracy"], row["test"].get("skim_rate")))
    return found


def comparison(record):
    """One line per kind with readers: the best baseline's test accuracy against the best reader's."""
    lines = []
    for kind, entry in record["kinds"].items():
        readers = [(test, label) for label, reader_kind, test, _ in record["readers"] if reader_kind == kind]
        best_name, splits = max(entry["baselines"].items(), key=lambda item: item[1]["test"])
        line = f"{kind}: the best baseline that does not read is '{best_name}' ({splits['test']:.4f} on test)"
        if readers:
            test, label = max(readers)
            side = "above" if test > splits["test"] else "not above"
            line += f"; the best reader, {label}, is {side} it ({test:.4f})"
        lines.append(line + ".")
    return "\n".join(f"- {line}" for line in lines)


def versions():
    return {"python": platform.python_version()}


def markdown(record):
    lines = []
    for kind, entry in record["kinds"].items():
        for name, splits in entry["baselines"].items():
            lines.append(f"| {kind} | {name} | {splits['valid']:.4f} | {splits['test']:.4f} | - |")
        for label, reader_kind, test, skim in record["readers"]:
            if reader_kind == kind:
                shown = "-" if skim is None else f"{100 * skim:.1f}%"
                lines.append(f"| {kind} | {label} | - | {test:.4f} | {shown} |")
    counts = "; ".join(f"{kind}: {entry['questions']}" for kind, entry in record["kinds"].items())
    return (
        f"# Cloze baselines that do not read, on {record['folder']} ({record['prefix']}_*)\n\n"
        f"Written by `{record['command']}` ({record['machine']}; {record['versions']}).\n\n"
        f"Questions: {counts}. Accuracy counts a tie among the top candidates as the chance of picking the "
        "answer among them. The candidate prior is fitted on the train file.\n\n"
        "| kind | reader | valid accuracy | test accuracy | skim rate |\n|---|---|---|---|---|\n"
        + "\n".join(lines)
        + "\n\n"
        + comparison(record)
        + "\n"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=pathlib.Path, default=cache_root() / "data" / "cloze_imdb" / "v1")
    parser.add_argument("--prefix", default="imdb_cloze")
    parser.add_argument("--kinds", nargs="+", default=["CN", "NE"])
    parser.add_argument("--tag", default="imdb")
    parser.add_argument("--readers", nargs="*", default=[RESULTS / "cloze_imdb_cn.json"], type=pathlib.Path)
    args = parser.parse_args(argv)
    kinds = {}
    for kind in args.kinds:
        baselines, questions = score_kind(args.set, args.prefix, kind)
        kinds[kind] = {"baselines": baselines, "questions": questions}
    record = {
        "command": "python benchmarks/cloze_priors.py " + shlex.join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.platform()}, {os.cpu_count()} CPUs",
        "versions": versions(),
        "folder": str(args.set),
        "prefix": args.prefix,
        "kinds": kinds,
        "readers": reader_rows([path for path in args.readers if path.exists()], args.set),
    }
    report = RESULTS / f"cloze_priors_{args.tag}"
    report.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    report.with_suffix(".md").write_text(markdown(record), encoding="utf-8")
    print(markdown(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
