"""The README's results table is the one benchmarks/presets_table.py generates from the committed
cards (issue 31, item 5): a card changed without the README, or the README edited by hand, fails here."""

import dataclasses

import pytest


@pytest.fixture
def presets_table(benchmarks):
    import presets_table

    return presets_table


def _readme(module):
    with open(module.README, encoding="utf-8") as f:
        return f.read()


def test_the_readme_table_is_the_one_the_cards_give(presets_table):
    cards = presets_table.committed_cards()
    assert {"lstm_rotten_tomatoes", "skim_lstm_rotten_tomatoes"} <= set(cards)
    _, readme_table, _ = presets_table.split_readme(_readme(presets_table))
    assert readme_table == presets_table.table(cards)


def test_a_row_puts_the_papers_figures_beside_the_cards(presets_table):
    card = presets_table.committed_cards()["skim_lstm_rotten_tomatoes"]
    row = presets_table.card_row(card)
    assert row[2] == f"{card.test_accuracy:.4f}" and row[3] == f"skim {card.skim_rate:.4f}"
    assert row[5] == f"{card.baseline.name} ({card.baseline.test_accuracy:.4f})"
    assert row[6] == card.paper["source"] and row[7] == f"{card.paper['test_accuracy']:g}"


def test_a_changed_card_makes_the_readme_table_stale(presets_table):
    cards = presets_table.committed_cards()
    name = "lstm_rotten_tomatoes"
    changed = {**cards, name: dataclasses.replace(cards[name], test_accuracy=cards[name].test_accuracy + 0.001)}
    text = _readme(presets_table)
    assert presets_table.rewritten(text, cards) == text
    assert presets_table.rewritten(text, changed) != text


def test_a_readme_without_its_markers_is_refused(presets_table):
    with pytest.raises(ValueError, match="no presets table"):
        presets_table.split_readme("# a README without the table\n")


def test_every_target_holds_the_table_the_cards_give(presets_table):
    """presets/README.md has every card's row and android_demo/README.md the rows of the app's presets."""
    cards = presets_table.committed_cards()
    for path, names in presets_table.targets():
        with open(path, encoding="utf-8") as f:
            _, written, _ = presets_table.split_readme(f.read(), path)
        assert written == presets_table.table(cards, names), path
        rows = written.splitlines()[2:]
        assert len(rows) == (len(cards) if names is None else len(set(names) & set(cards))), path
    app = dict(presets_table.targets())[presets_table.APP_README]
    assert "lstm_rotten_tomatoes" in app and "scornn_pixel_mnist" not in app
