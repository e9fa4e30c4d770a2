"""A preset's README.md model card, written from its `preset.json` only, so
the card a person reads and the card a program reads never disagree."""

INTENDED_USE = (
    "A starting point: classify texts like those of its data with `keras_skim.from_preset`, `keras-skim show` "
    "or the exported LiteRT model (`keras-skim export NAME`), fine-tune it on your own data, or re-check the "
    "numbers below with `keras-skim evaluate NAME --data DATA`."
)
GENERAL_LIMITS = (
    "Trained on one corpus in one language with a word-level vocabulary: texts from elsewhere (other domains, "
    "languages, or words outside its vocabulary) may be classified worse than the test accuracy says, and the "
    "fraction it skims or reads changes with the text. It is a research model, not a moderation or "
    "decision-making tool."
)

# A preset of a sequence data set (`keras_skim.datasets.sequence_data`) reads float sequences: no tokenizer,
# no `keras-skim show`; its export runs with `SkimRunner(folder).run_sequence`.
SEQUENCE_INTENDED_USE = (
    "A starting point: classify sequences like those of its data with `keras_skim.from_preset` or the exported "
    "LiteRT model (`keras-skim export NAME`, run with `keras_skim.runtime.SkimRunner(folder).run_sequence`), "
    "fine-tune it on your own data, or re-check the numbers below with `keras-skim evaluate NAME --data DATA`."
)
SEQUENCE_GENERAL_LIMITS = (
    "Trained on one data set: sequences from elsewhere (other sources, lengths or scales) may be classified worse "
    "than the test accuracy says. It is a research model, not a decision-making tool."
)


def _reads_sequences(card):
    from keras_skim.datasets.sequence_data import SEQUENCE_DATASETS

    return card.data in SEQUENCE_DATASETS


def _percent(value):
    return "—" if value is None else f"{100.0 * value:.2f}%"


def _metric_rows(card):
    """(metric, ours, the paper's) rows."""
    paper = card.paper or {}
    rows = [("test accuracy", _percent(card.test_accuracy), _percent(paper.get("test_accuracy")))]
    if card.skim_rate is not None:
        rows.append(("skim rate", _percent(card.skim_rate), _percent(paper.get("skim_rate"))))
    if card.read_fraction_per_document is not None:
        rows.append(
            (
                "read per document",
                _percent(card.read_fraction_per_document),
                _percent(paper.get("read_fraction_per_document")),
            )
        )
    rows.append(("Flop-R", f"{card.flop_r:.2f}x", "—"))
    if card.baseline is not None:
        rows.append(
            (
                f"baseline `{card.baseline.name}` test accuracy",
                _percent(card.baseline.test_accuracy),
                _percent(paper.get("baseline_test_accuracy")),
            )
        )
    return rows


def model_card_markdown(card):
    """The README.md text of a preset from its `PresetCard`."""
    paper_source = (card.paper or {}).get("source", "no paper figure for this setting")
    sequences = _reads_sequences(card)
    load = f'model, tokenizer = keras_skim.from_preset("{card.name}", tokenizer=True)'
    if sequences:
        load = f'model = keras_skim.from_preset("{card.name}")  # no tokenizer: it reads float sequences'
    lines = [
        f"# {card.name}",
        "",
        "<!-- Written by benchmarks/make_preset.py from preset.json: edit that, not this. -->",
        "",
        "## What it is",
        "",
        card.description or f"A keras-skim text classifier trained on `{card.data}`.",
        "",
        "```python",
        "import keras_skim",
        "",
        load,
        "```",
        "",
        "## Data and split",
        "",
        f"Trained on `{card.data}`; the numbers below are on its `{card.split}` split "
        f"({card.test_examples} examples), evaluated once, at the end.",
        "",
        "## Metrics",
        "",
        f"| metric | this preset | paper ({paper_source}) |",
        "| --- | --- | --- |",
        *(f"| {name} | {ours} | {theirs} |" for name, ours, theirs in _metric_rows(card)),
        "",
        f"Re-check: `keras-skim evaluate {card.name} --data {card.data}`.",
        "",
        "## How it was trained",
        "",
        "```sh",
        card.command,
        "```",
        "",
        f"keras-skim commit `{card.commit}`.",
        "",
        "## Intended use",
        "",
        SEQUENCE_INTENDED_USE if sequences else INTENDED_USE,
        "",
        "## Limits",
        "",
        *([card.limits, ""] if card.limits else []),
        SEQUENCE_GENERAL_LIMITS if sequences else GENERAL_LIMITS,
        "",
        "## License",
        "",
        f"Weights: {card.license}.",
        "",
    ]
    return "\n".join(lines)
