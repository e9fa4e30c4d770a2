"""`ExportOptions`: one checked record of an export's settings, built by the
CLI and passed whole, or built by `export_model` from its keywords."""

import pytest

from keras_skim.export.errors import ExportError
from keras_skim.export.export_options import MAX_PARITY_SAMPLES, ExportOptions
from keras_skim.export.exporter import export_model


def test_defaults_are_the_cli_defaults():
    options = ExportOptions()
    assert (options.backend, options.quantize, options.threshold, options.parity_samples) == ("auto", None, None, 4)
    assert (options.force, options.fold, options.tokenizer_path, options.parity_texts) == (False, None, None, None)


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"parity_samples": 0}, "--parity-samples must be at least 1"),
        ({"parity_samples": MAX_PARITY_SAMPLES + 1}, f"--parity-samples must be at most {MAX_PARITY_SAMPLES}"),
        ({"quantize": "int4"}, "--quantize must be int8"),
        ({"backend": "gpu"}, "--backend must be one of auto, builtin, custom"),
        ({"threshold": -0.5}, "--threshold"),
    ],
)
def test_a_bad_setting_is_one_export_error(settings, message):
    with pytest.raises(ExportError) as raised:
        ExportOptions(**settings)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_largest_parity_sample_count_is_allowed():
    assert ExportOptions(parity_samples=MAX_PARITY_SAMPLES).parity_samples == MAX_PARITY_SAMPLES


def test_export_model_checks_its_keywords_before_reading_the_model(tmp_path):
    # The model file does not exist: the bad option is what is reported.
    with pytest.raises(ExportError, match="--backend must be one of"):
        export_model(str(tmp_path / "missing.keras"), backend="gpu")


def test_export_model_takes_options_or_keywords_not_both(tmp_path):
    with pytest.raises(TypeError, match="not both"):
        export_model(str(tmp_path / "m.keras"), None, ExportOptions(), backend="builtin")
    with pytest.raises(TypeError):
        export_model(str(tmp_path / "m.keras"), no_such_setting=1)
