"""Re-checks committed presets against their cards (issue 31, item 5): each
preset is evaluated on its card's whole split by `keras-skim evaluate NAME
--data DATA --json`'s own code, and its accuracy, skim rate or read fraction
per document, Flop-R and number of texts are compared with the card's, at
the precision `keras-skim evaluate` prints them (four decimals; Flop-R two).
It also records the same evaluation on a slice (`--limit N`, the first
seeded class-balanced N texts), the figures tests/presets/
test_committed_presets.py expects `keras-skim evaluate NAME --data DATA
--limit N` to print.

    python benchmarks/preset_check.py                               # every preset in presets/
    python benchmarks/preset_check.py lstm_rotten_tomatoes skim_lstm_rotten_tomatoes

Writes benchmarks/results/preset_check.{json,md} (machine, versions, command,
load); exits 1 when a preset disagrees with its card.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for path in (ROOT, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

import litert_report  # noqa: E402
from make_preset import evaluate  # noqa: E402
from presets_table import committed_cards  # noqa: E402

SLICE = 64


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="presets to check (default: every one in presets/)")
    parser.add_argument("--slice", type=int, default=SLICE, help=f"texts of the slice also recorded (default {SLICE})")
    parser.add_argument("--out", default="preset_check", help="results file stem under benchmarks/results/")
    return parser.parse_args(argv)


def reading(card, result):
    """('skim_rate' or 'read_fraction_per_document' or None, the evaluation's value of it)."""
    if card.read_fraction_per_document is not None:
        return "read_fraction_per_document", float(result["per_document"]["read_fraction"])
    if card.skim_rate is not None:
        return "skim_rate", float(result["skim_rate"])
    return None, None


def figures(card, result):
    """The card's fields as the evaluation `result` gives them."""
    key, value = reading(card, result)
    found = {"test_examples": int(result["examples"]), "test_accuracy": float(result["accuracy"])}
    found["flop_r"] = float(result["flop_r"])
    if key is not None:
        found[key] = value
    return found


def disagreements(card, found):
    """The fields whose printed figure differs from the card's (four decimals; Flop-R two; counts exact)."""
    specs = {"test_examples": "d", "test_accuracy": ".4f", "flop_r": ".2f"}
    specs.update({key: ".4f" for key in ("skim_rate", "read_fraction_per_document") if key in found})
    card_fields = card.as_dict()
    return [key for key, spec in specs.items() if format(found[key], spec) != format(card_fields[key], spec)]


def check(card, slice_size):
    """One preset's record: the card's figures, the whole split's, whether they agree, and the slice's."""
    started = time.process_time()
    whole = figures(card, evaluate(card.name, card.data, card.split))
    seconds = time.process_time() - started
    sliced = figures(card, evaluate(card.name, card.data, card.split, limit=slice_size))
    card_fields = card.as_dict()
    return {
        "name": card.name,
        "data": card.data,
        "split": card.split,
        "card": {key: card_fields[key] for key in whole},
        "evaluated": whole,
        "disagreements": disagreements(card, whole),
        "evaluation_cpu_seconds": round(seconds, 1),
        "slice": {"limit": slice_size, **sliced},
    }


def _rate(fields):
    for key, label in (("skim_rate", "skim"), ("read_fraction_per_document", "read")):
        if key in fields:
            return f"{label} {fields[key]:.4f}"
    return "-"


def markdown(record):
    lines = [
        "# Presets re-evaluated against their cards",
        "",
        f"`{record['command']}` (commit {record['commit']}). Each preset on its card's whole split, through",
        "`keras-skim evaluate NAME --data DATA --json`'s code; 'agrees' compares the figures as `evaluate` prints",
        f"them. Load average at the end: {record['machine']['load_average_at_end']}.",
        "",
        "| preset | split (texts) | card accuracy | evaluated | card skim / read | evaluated | Flop-R | agrees |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in record["presets"]:
        card, found = row["card"], row["evaluated"]
        agrees = "yes" if not row["disagreements"] else "no: " + ", ".join(row["disagreements"])
        lines.append(
            f"| `{row['name']}` | {row['split']} ({found['test_examples']}) | {card['test_accuracy']:.4f} | "
            f"{found['test_accuracy']:.4f} | {_rate(card)} | {_rate(found)} | {found['flop_r']:.2f} | {agrees} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    cards = committed_cards()
    unknown = [name for name in args.names if name not in cards]
    if unknown:
        print(f"preset_check: no committed preset {', '.join(unknown)} (known: {', '.join(cards)})", file=sys.stderr)
        return 2
    rows = [check(cards[name], args.slice) for name in (args.names or sorted(cards))]
    record = {
        **litert_report.header(),
        "presets": rows,
    }
    litert_report.write(args.out, record, markdown(record))
    return 1 if any(row["disagreements"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
