"""`keras-skim presets`: the trained models this install can load by name,
as a table (or `--json`), read from their cards (TensorFlow-free)."""

import json

from keras_skim.cli.errors import CliError

COLUMNS = ("name", "data", "test acc", "skim / read", "Flop-R", "baseline", "from")


def add_arguments(parser):
    parser.add_argument("--json", action="store_true", help="print {name: card} as JSON")


def _rate(card):
    if card.skim_rate is not None:
        return f"skim {card.skim_rate:.1%}"
    if card.read_fraction_per_document is not None:
        return f"read {card.read_fraction_per_document:.1%}"
    return "-"


def _row(name, card, origin):
    baseline = f"{card.baseline.name} {card.baseline.test_accuracy:.2%}" if card.baseline else "-"
    return (name, card.data, f"{card.test_accuracy:.2%}", _rate(card), f"{card.flop_r:.2f}x", baseline, origin)


def _table(rows):
    widths = [max(len(str(row[i])) for row in (COLUMNS, *rows)) for i in range(len(COLUMNS))]
    lines = ("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) for row in (COLUMNS, *rows))
    return "\n".join(line.rstrip() for line in lines)


def run(args):
    from keras_skim.presets import PresetError, list_presets, preset_roots
    from keras_skim.presets.preset_sources import known_presets

    try:
        cards = list_presets()
        origins = {name: root.origin for name, (_, root) in known_presets().items()}
        roots = preset_roots()
    except PresetError as err:
        raise CliError(str(err)) from None
    if args.json:
        print(json.dumps({name: card.as_dict() for name, card in cards.items()}, indent=2))
        return 0
    if not cards:
        searched = ", ".join(root.path for root in roots) or "no presets root"
        print(f"no presets installed (searched: {searched}); pip install keras-skim-presets, or set KERAS_SKIM_PRESETS")
        return 0
    print(_table([_row(name, card, origins.get(name, "?")) for name, card in cards.items()]))
    return 0
