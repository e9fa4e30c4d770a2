"""`preset.json`, a preset's model card as data, and the README made from it (no TensorFlow).

`PresetCard` is the typed record; `read_card` reads a `preset.json` with a
size and nesting limit (`keras_skim.contract_fields`) and checks every field
before anything else sees it, so a bad card is one line naming the file and
the key:

    presets/x/preset.json: "test_accuracy" must be a finite number from 0 to 1; got 1.5

Keys this version does not know are left alone (newer writers may add some).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any

from keras_skim import contract_fields

CARD_FILE = "preset.json"
README_FILE = "README.md"
# A card is a few hundred bytes; a megabyte is already absurd.
MAX_CARD_BYTES = 1 << 20


class PresetError(ValueError):
    """A preset that cannot be found, read or loaded; the message is one line."""


def fraction(nullable=False):
    """A checker: a finite number from 0 to 1 (accuracies, rates, fractions)."""

    def check(value):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if (ok and math.isfinite(value) and 0.0 <= value <= 1.0) or (nullable and value is None):
            return None
        return "a finite number from 0 to 1" + (" or null" if nullable else "")

    return check


BASELINE_FIELDS = {
    "name": (contract_fields.text(), True),
    "test_accuracy": (fraction(), True),
}
PAPER_FIELDS = {
    "source": (contract_fields.text(), True),
    "test_accuracy": (fraction(nullable=True), False),
    "skim_rate": (fraction(nullable=True), False),
    "read_fraction_per_document": (fraction(nullable=True), False),
    "baseline_test_accuracy": (fraction(nullable=True), False),
}
CARD_FIELDS = {
    "name": (contract_fields.text(), True),
    "data": (contract_fields.text(), True),
    "split": (contract_fields.text(), True),
    "test_examples": (contract_fields.integer(1, 1 << 40), True),
    "test_accuracy": (fraction(), True),
    "skim_rate": (fraction(nullable=True), False),
    "read_fraction_per_document": (fraction(nullable=True), False),
    "flop_r": (contract_fields.number(), True),
    "baseline": (contract_fields.mapping(nullable=True), True),
    "paper": (contract_fields.mapping(nullable=True), False),
    "command": (contract_fields.text(), True),
    "commit": (contract_fields.text(), True),
    "license": (contract_fields.text(), True),
    "description": (contract_fields.text(nullable=True), False),
    "limits": (contract_fields.text(nullable=True), False),
}


@dataclasses.dataclass(frozen=True)
class Baseline:
    """The model a preset is compared with, and its test accuracy."""

    name: str
    test_accuracy: float


@dataclasses.dataclass(frozen=True)
class PresetCard:
    """What `preset.json` says about a trained model.

    Attributes:
        name: the preset's name (its folder's name in a presets tree).
        data: the data it was trained and tested on (a `--data` value).
        split: the split the test numbers are on ("test").
        test_examples: how many texts that split holds.
        test_accuracy: accuracy on that split, from 0 to 1.
        skim_rate: the fraction of tokens skimmed (models with a skim gate), else None.
        read_fraction_per_document: the mean fraction of each text read (models
            that jump), else None.
        flop_r: the FLOP reduction against the full-reading model.
        baseline: the `Baseline` it is compared with, None for a baseline itself.
        command: the exact command that trained it.
        commit: the keras-skim commit that trained it.
        license: the weights' license (an SPDX expression).
        paper: the paper's numbers for the same setting (`source` and the
            metrics above), or None.
        description: what the model is, in a sentence or two.
        limits: what it is not good for.
    """

    name: str
    data: str
    split: str
    test_examples: int
    test_accuracy: float
    flop_r: float
    baseline: Baseline
    command: str
    commit: str
    license: str
    skim_rate: float = None
    read_fraction_per_document: float = None
    paper: dict = None
    description: str = None
    limits: str = None

    def as_dict(self) -> dict[str, Any]:
        """The record `preset.json` holds: optional fields left out when None;
        "baseline" always there (null for a baseline itself)."""
        record = dataclasses.asdict(self)
        return {key: value for key, value in record.items() if value is not None or key == "baseline"}


def card_from_record(path, record):
    """A checked `PresetCard` from a parsed `preset.json` (`path` names it in errors)."""
    try:
        contract_fields.check_fields(path, record, CARD_FIELDS)
        if record["baseline"] is not None:
            contract_fields.check_fields(path, record["baseline"], BASELINE_FIELDS, prefix='"baseline".')
        if record.get("paper") is not None:
            contract_fields.check_fields(path, record["paper"], PAPER_FIELDS, prefix='"paper".')
    except contract_fields.FieldError as err:
        raise PresetError(str(err)) from None
    if record.get("skim_rate") is not None and record.get("read_fraction_per_document") is not None:
        raise PresetError(
            f'{path}: "skim_rate" and "read_fraction_per_document" are exclusive (a model skims or jumps)'
        )
    known = {key: record[key] for key in CARD_FIELDS if key in record}
    if known["baseline"] is not None:
        known["baseline"] = Baseline(known["baseline"]["name"], float(known["baseline"]["test_accuracy"]))
    if known.get("paper") is not None:
        known["paper"] = {key: known["paper"][key] for key in PAPER_FIELDS if key in known["paper"]}
    return PresetCard(**known)


def read_card(path: str | os.PathLike[str]) -> PresetCard:
    """Reads and checks a `preset.json` -> `PresetCard`; PresetError (one line) otherwise."""
    from keras_skim import contracts

    try:
        record = contracts.read_json(path, f"a {CARD_FILE} written by benchmarks/make_preset.py", MAX_CARD_BYTES)
    except contracts.ContractError as err:
        raise PresetError(str(err)) from None
    return card_from_record(path, record)


def card_json(card):
    """The text of `preset.json` for a card."""
    return json.dumps(card.as_dict(), indent=1, ensure_ascii=False) + "\n"
