"""The README's results table, generated from the committed preset cards
(presets/*/preset.json), with the papers' figures beside ours (issue 31, item 5).

The table sits in README.md between two marker lines; this script rewrites
what is between them, and `--check` fails (exit 1) when the README's table is
not the one the cards give (tests/presets/test_presets_table.py runs the same
comparison). The same table is in presets/README.md, and the rows of the app's
bundled presets in android_demo/README.md (`TARGETS`). Figures are fractions, as the cards hold them; a card's own
README.md (presets/NAME/README.md) gives them as percentages.

    python benchmarks/presets_table.py            # rewrite README.md's table from the cards
    python benchmarks/presets_table.py --check    # exit 1 if README.md's table is stale
    python benchmarks/presets_table.py --print    # print the table only

TensorFlow-free: it reads the cards only (keras_skim.presets.read_card).
"""

import argparse
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

README = os.path.join(ROOT, "README.md")
PRESETS = os.path.join(ROOT, "presets")
APP_README = os.path.join(ROOT, "android_demo", "README.md")
BEGIN = "<!-- presets table: written by benchmarks/presets_table.py from presets/*/preset.json; do not edit -->"
END = "<!-- end of the presets table -->"
HEADER = (
    "preset",
    "data (test texts)",
    "test accuracy",
    "skim rate / read per document",
    "Flop-R",
    "baseline (its test accuracy)",
    "paper",
    "paper: accuracy",
    "paper: skim / read",
    "paper: baseline",
)


def committed_cards(folder=PRESETS):
    """The checkout's preset cards, by name (only presets/, never an installed or $KERAS_SKIM_PRESETS one)."""
    from keras_skim.presets import read_card

    cards = (read_card(path) for path in sorted(glob.glob(os.path.join(folder, "*", "preset.json"))))
    return {card.name: card for card in cards}


def _fraction(value, spec=".4f"):
    return "-" if value is None else format(value, spec)


def _reading(skim_rate, read_fraction, spec=".4f"):
    """'skim 0.2214' or 'read 0.1970' (read fraction per document) or '-'."""
    if skim_rate is not None:
        return f"skim {skim_rate:{spec}}"
    if read_fraction is not None:
        return f"read {read_fraction:{spec}}"
    return "-"


def card_row(card):
    """One table row: our figures (the card's four decimals, as `keras-skim evaluate` prints them), then the
    paper's (its source, and its numbers as the paper gives them) where the card has them."""
    paper = card.paper or {}
    baseline = f"{card.baseline.name} ({card.baseline.test_accuracy:.4f})" if card.baseline else "-"
    return (
        f"`{card.name}`",
        f"{card.data} ({card.test_examples})",
        _fraction(card.test_accuracy),
        _reading(card.skim_rate, card.read_fraction_per_document),
        f"{card.flop_r:.2f}",
        baseline,
        paper.get("source", "-"),
        _fraction(paper.get("test_accuracy"), "g"),
        _reading(paper.get("skim_rate"), paper.get("read_fraction_per_document"), "g"),
        _fraction(paper.get("baseline_test_accuracy"), "g"),
    )


def targets():
    """[(file, the preset names of its table, None for all)]: where the table is written."""
    from export.release_assets import APP_JUMP_PRESET, APP_PRESETS

    return [(README, None), (os.path.join(PRESETS, "README.md"), None), (APP_README, (*APP_PRESETS, APP_JUMP_PRESET))]


def table(cards, names=None):
    """The markdown table of `cards` ({name: PresetCard}), rows by name; only `names` when given."""
    rows = [card_row(cards[name]) for name in sorted(cards) if names is None or name in names]
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def split_readme(text, name="README.md"):
    """(before, table, after) around the marker lines; ValueError when they are missing or out of order."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise ValueError(f"{name} has no presets table between {BEGIN!r} and {END!r}")
    body_start = start + len(BEGIN)
    return text[:body_start], text[body_start:stop].strip("\n"), text[stop:]


def rewritten(text, cards, names=None, name="README.md"):
    """`text` (a README, `name`) with the table between its markers generated from `cards` (only `names`)."""
    before, _, after = split_readme(text, name)
    return f"{before}\n{table(cards, names)}\n{after}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if a README's table is not the generated one")
    mode.add_argument("--print", action="store_true", help="print the generated table only")
    args = parser.parse_args(argv)
    cards = committed_cards()
    if args.print:
        print(table(cards))
        return 0
    stale = []
    for path, names in targets():
        name = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            updated = rewritten(text, cards, names, name)
        except ValueError as err:
            print(f"presets_table: {err}", file=sys.stderr)
            return 2
        if updated == text:
            continue
        stale.append(name)
        if not args.check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(updated)
    if args.check:
        if stale:
            print(f"presets_table: stale presets table in {', '.join(stale)}: run python benchmarks/presets_table.py")
        return 1 if stale else 0
    print(f"wrote the presets table of {', '.join(stale) or 'no file (all up to date)'} ({len(cards)} presets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
