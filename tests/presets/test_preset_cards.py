"""preset.json checked strictly (one line naming the file and the key), the README written from it, preset
lookup (names, roots, handles) and its one-line errors; no TensorFlow."""

import json
import sys

import pytest

from keras_skim.presets import PresetError, read_card
from keras_skim.presets.preset_card import MAX_CARD_BYTES, card_json
from keras_skim.presets.preset_readme import model_card_markdown

CARD = {
    "name": "tiny",
    "data": "rotten_tomatoes",
    "split": "test",
    "test_examples": 16,
    "test_accuracy": 0.8125,
    "skim_rate": 0.5,
    "flop_r": 1.7,
    "baseline": {"name": "lstm_tiny", "test_accuracy": 0.75},
    "paper": {"source": "Seo et al.", "test_accuracy": 0.842, "skim_rate": 0.52},
    "command": "keras-skim train --data rotten_tomatoes -o runs/tiny",
    "commit": "0123abc",
    "license": "Apache-2.0",
}


def _write(folder, record):
    path = folder / "preset.json"
    path.write_text(json.dumps(record) if not isinstance(record, str) else record)
    return path


def test_a_good_card_reads_back_as_written(tmp_path):
    card = read_card(_write(tmp_path, CARD))
    assert card.test_accuracy == 0.8125 and card.baseline.name == "lstm_tiny"
    assert card.read_fraction_per_document is None
    assert json.loads(card_json(card)) == CARD
    baseline = read_card(_write(tmp_path, {**CARD, "baseline": None, "future_key": 1}))
    assert baseline.baseline is None and json.loads(card_json(baseline))["baseline"] is None


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"test_accuracy": 1.5}, '"test_accuracy" must be a finite number from 0 to 1; got 1.5'),
        ({"test_accuracy": "0.9"}, '"test_accuracy" must be a finite number from 0 to 1; got "0.9"'),
        ({"test_examples": 0}, '"test_examples" must be an integer from 1 to'),
        ({"test_examples": True}, '"test_examples" must be an integer from 1 to'),
        ({"flop_r": -1}, '"flop_r" must be a finite number >= 0; got -1'),
        ({"command": None}, '"command" must be a string; got null'),
        ({"baseline": {"name": "x"}}, '"baseline"."test_accuracy" is missing'),
        ({"baseline": [1]}, '"baseline" must be an object or null; got [1]'),
        ({"paper": {"test_accuracy": 0.9}}, '"paper"."source" is missing'),
        ({"read_fraction_per_document": 0.2}, '"skim_rate" and "read_fraction_per_document" are exclusive'),
    ],
)
def test_a_bad_field_is_one_line_naming_the_file_and_the_key(tmp_path, change, problem):
    path = _write(tmp_path, {**CARD, **change})
    with pytest.raises(PresetError) as raised:
        read_card(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


@pytest.mark.parametrize("missing", ["name", "data", "split", "test_examples", "baseline", "commit", "license"])
def test_a_missing_field_is_named(tmp_path, missing):
    path = _write(tmp_path, {key: value for key, value in CARD.items() if key != missing})
    with pytest.raises(PresetError, match=f'^{path}: "{missing}" is missing$'):
        read_card(path)


@pytest.mark.parametrize(
    "text, problem",
    [("{", "not valid JSON"), ("[1, 2]", "a JSON object), got list"), ("[" * 200 + "]" * 200, "nested deeper")],
)
def test_a_card_that_is_not_an_object_is_one_line(tmp_path, text, problem):
    path = _write(tmp_path, text)
    with pytest.raises(PresetError) as raised:
        read_card(path)
    assert str(raised.value).startswith(f"{path}: ") and problem in str(raised.value)


def test_a_card_is_read_with_a_size_limit(tmp_path):
    path = _write(tmp_path, " " * (MAX_CARD_BYTES + 1))
    with pytest.raises(PresetError, match=f"larger than {MAX_CARD_BYTES} bytes"):
        read_card(path)
    with pytest.raises(PresetError, match="no such file"):
        read_card(tmp_path / "none" / "preset.json")


def test_the_readme_puts_the_papers_figures_beside_ours(tmp_path):
    readme = model_card_markdown(read_card(_write(tmp_path, CARD)))
    assert "| metric | this preset | paper (Seo et al.) |" in readme
    assert "| test accuracy | 81.25% | 84.20% |" in readme and "| skim rate | 50.00% | 52.00% |" in readme
    assert "| baseline `lstm_tiny` test accuracy | 75.00% | — |" in readme
    assert "keras-skim evaluate tiny --data rotten_tomatoes" in readme and "0123abc" in readme


# ------------------------------------------------------------------- lookup
@pytest.fixture
def root(tmp_path, monkeypatch):
    """A presets root with one card-only preset (enough to be listed; loading needs a model)."""
    folder = tmp_path / "root" / "tiny"
    folder.mkdir(parents=True)
    _write(folder, CARD)
    (tmp_path / "root" / "not_a_preset").mkdir()  # no preset.json: ignored
    monkeypatch.setenv("KERAS_SKIM_PRESETS", str(tmp_path / "root"))
    return tmp_path / "root"


def test_list_presets_reads_every_root_and_checks_each_card(root):
    import keras_skim
    from keras_skim.presets import preset_roots
    from keras_skim.presets.preset_sources import CHECKOUT_ROOT

    committed = sorted(path.parent.name for path in CHECKOUT_ROOT.glob("*/preset.json"))
    # $KERAS_SKIM_PRESETS's and the checkout's own presets (tests run from a checkout), by name.
    assert list(keras_skim.list_presets()) == sorted(["tiny", *committed])
    assert preset_roots()[0].path == str(root) and preset_roots()[0].origin == "KERAS_SKIM_PRESETS"
    _write(root / "tiny", {**CARD, "split": 3})
    with pytest.raises(PresetError, match='tiny/preset.json: "split" must be a string; got 3'):
        keras_skim.list_presets()


def test_the_checkouts_presets_tree_is_a_root():
    from keras_skim.presets.preset_sources import CHECKOUT_ROOT, preset_roots

    assert (CHECKOUT_ROOT / "pyproject.toml").is_file() and (CHECKOUT_ROOT / "README.md").is_file()
    assert any(root.origin == "checkout" and root.path == str(CHECKOUT_ROOT) for root in preset_roots())


@pytest.mark.parametrize(
    "handle, message",
    [
        ("hf://owner/repo", "hf://owner/repo: loading from the Hugging Face Hub needs huggingface_hub: "),
        ("kaggle://o/m/keras/v", "kaggle://o/m/keras/v: loading from Kaggle needs kagglehub: pip install kagglehub"),
        ("s3://bucket/x", "s3://bucket/x: unknown preset scheme 's3' (expected file://, hf:// or kaggle://)"),
    ],
)
def test_a_hub_handle_without_its_package_is_one_line(monkeypatch, handle, message):
    import keras_skim

    # As if neither package were installed, whatever this machine has.
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    monkeypatch.setitem(sys.modules, "kagglehub", None)
    with pytest.raises(PresetError) as raised:
        keras_skim.tokenizer_from_preset(handle)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_the_cli_refuses_a_bad_preset_in_one_line(root, monkeypatch, capsys):
    from keras_skim.cli.main import main

    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    assert main(["evaluate", "hf://owner/repo"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("keras-skim evaluate: error: hf://owner/repo: loading from the Hugging Face Hub needs ")
    assert err.count("\n") == 1
    _write(root / "tiny", {**CARD, "test_accuracy": 2})
    assert main(["show", "tiny", "--text", "a film"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'tiny/preset.json: "test_accuracy" must be a finite number from 0 to 1' in err


def test_an_unknown_preset_names_the_known_ones(root):
    import keras_skim

    unknown = r"^nonesuch: not a preset folder, handle or known preset name \(known: .*tiny"
    with pytest.raises(PresetError, match=unknown):
        keras_skim.tokenizer_from_preset("nonesuch")
    with pytest.raises(PresetError, match="tiny: folder holds no model.keras or model.h5$"):
        keras_skim.tokenizer_from_preset("tiny")  # a card without its model folder


def test_listing_presets_imports_neither_keras_nor_tensorflow(root):
    import subprocess

    code = (
        "import sys, keras_skim\n"
        "from keras_skim.cli.main import main\n"
        "assert main(['presets']) == 0 and 'tiny' in keras_skim.list_presets()\n"
        "print(sorted(name for name in ('keras', 'tensorflow') if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_presets_distribution_declares_the_entry_point_the_lookup_reads():
    import tomllib

    from keras_skim.presets.preset_card import CARD_FILE, README_FILE
    from keras_skim.presets.preset_sources import CHECKOUT_ROOT, ENTRY_POINT_GROUP

    project = tomllib.loads((CHECKOUT_ROOT / "pyproject.toml").read_text())
    assert project["project"]["name"] == "keras-skim-presets"
    assert project["project"]["entry-points"][ENTRY_POINT_GROUP] == {"keras_skim_presets": "keras_skim_presets"}
    assert project["tool"]["setuptools"]["package-dir"] == {"keras_skim_presets": "."}
    shipped = project["tool"]["setuptools"]["package-data"]["keras_skim_presets"]
    assert {f"*/{name}" for name in (CARD_FILE, README_FILE, "model.keras", "tokenizer.json")} <= set(shipped)
    # The runtime wheel holds no presets: its packages are keras_skim's only.
    main = tomllib.loads((CHECKOUT_ROOT.parent / "pyproject.toml").read_text())
    assert main["tool"]["setuptools"]["packages"]["find"]["include"] == ["keras_skim", "keras_skim.*"]
