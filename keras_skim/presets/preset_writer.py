"""Writes a preset folder from a trained model folder and its card (no TensorFlow)."""

import os
import shutil

from keras_skim.presets.preset_card import CARD_FILE, README_FILE, PresetError, card_from_record, card_json
from keras_skim.presets.preset_readme import model_card_markdown


def write_preset(model_dir, output_dir, card, force=False):
    """Copies a model folder's files and writes `preset.json` and README.md.

    Args:
        model_dir: a model folder as `keras-skim train` writes it.
        output_dir: the preset folder to write (its name is the preset's name
            in a presets root); replaced only with `force`, and only when
            keras-skim wrote it.
        card: the `PresetCard`; it is checked as `read_card` would check it.
        force: replace an existing preset folder.

    Returns:
        The absolute path of the preset folder.

    Raises:
        PresetError: a bad card or a model folder without a model (one line).
        keras_skim.contracts.OutputRefused: the folder may not be written (one line).
    """
    from keras_skim import contracts, output_folder

    card_from_record(CARD_FILE, card.as_dict())  # the card a reader will accept, or one line now
    try:
        files = contracts.resolve_model(model_dir)
    except contracts.ContractError as err:
        raise PresetError(str(err)) from None
    sources = [path for path in (files.model, files.tokenizer, files.train_config) if path is not None]
    with output_folder.staged_output_dir(output_dir, force=force, inputs=sources) as stage:
        for path in sources:
            shutil.copyfile(path, os.path.join(stage, os.path.basename(path)))
        with open(os.path.join(stage, CARD_FILE), "w", encoding="utf-8") as f:
            f.write(card_json(card))
        with open(os.path.join(stage, README_FILE), "w", encoding="utf-8") as f:
            f.write(model_card_markdown(card))
    return os.path.abspath(os.fspath(output_dir))
