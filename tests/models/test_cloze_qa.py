"""`keras_skim.models.ClozeQA`: trains with fit, reports its skim rate, round-trips through .keras, and
`keras-skim train/evaluate --task cloze`."""

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from keras_skim.cli.main import main  # noqa: E402
from keras_skim.models import ClozeQA  # noqa: E402

STORY = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "cloze" / "story_CN_train.txt"


def _batch():
    rng = np.random.default_rng(0)
    tokens = rng.integers(2, 40, size=(8, 12)).astype("int32")
    tokens[:, 9:] = 0  # padding at the end
    candidates = rng.integers(2, 40, size=(8, 4)).astype("int32")
    return {"tokens": tokens, "candidates": candidates}, rng.integers(0, 4, size=8).astype("int32")


@pytest.mark.parametrize("cell", ["lstm", "skim-lstm"])
def test_fit_and_the_keras_file_round_trip(cell, tmp_path):
    inputs, labels = _batch()
    model = ClozeQA(40, cell=cell, embedding_dim=8, units=12, small_units=3, num_candidates=4, seed=2)
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    logs = model.fit(inputs, labels, epochs=2, batch_size=4, verbose=0).history
    assert ("skim_rate" in logs) == (cell != "lstm")
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert type(loaded) is ClozeQA and loaded.get_config() == model.get_config()
    np.testing.assert_array_equal(model.predict(inputs, verbose=0), loaded.predict(inputs, verbose=0))


def test_the_score_is_the_candidate_embedding_dot_w_h():
    inputs, _ = _batch()
    model = ClozeQA(40, cell="lstm", embedding_dim=8, units=12, num_candidates=4)
    scores = model.predict(inputs, verbose=0)
    h = keras.Model(model.inputs, model.get_layer("reader").output).predict(inputs, verbose=0)
    w = model.get_layer("answer_projection").kernel.numpy()
    e = model.get_layer("embedding").embeddings.numpy()[inputs["candidates"]]
    np.testing.assert_allclose(scores, np.einsum("bke,be->bk", e, h @ w), rtol=1e-5, atol=1e-5)


def test_an_unknown_cell_is_refused():
    with pytest.raises(ValueError, match="cell must be one of"):
        ClozeQA(40, cell="transformer")


def test_train_and_evaluate_on_a_cbt_file(tmp_path, capsys):
    out = tmp_path / "cloze"
    common = ["--data", str(STORY), "--units", "8", "--small-units", "2", "--epochs", "1", "--quiet"]
    assert main(["train", "--task", "cloze", "--cell", "skim-lstm", *common, "-o", str(out)]) == 0
    assert "test accuracy" in capsys.readouterr().out
    # A fresh process: loading must not rely on the class having been imported by the training.
    command = [sys.executable, "-m", "keras_skim", "evaluate", str(out), "--split", "all"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout
    assert "10 questions" in printed and "accuracy" in printed and "skim rate" in printed


def test_task_errors_are_one_line(tmp_path, capsys):
    assert main(["train", "--model", "cloze", "-o", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err.strip() == "keras-skim train: error: --model cloze applies only with --task cloze"
    assert main(["train", "--task", "cloze", "--data", "rotten_tomatoes", "-o", str(tmp_path / "x")]) == 2
    assert "needs --data FILE" in capsys.readouterr().err
    args = ["train", "--task", "cloze", "--cell", "sj-lstm", "--data", str(STORY), "-o", str(tmp_path / "x")]
    assert main(args) == 2
    assert "does not apply to --task cloze" in capsys.readouterr().err
    args = ["train", "--task", "cloze", "--freeze-embedding", "--data", str(STORY), "-o", str(tmp_path / "x")]
    assert main(args) == 2
    expected = "keras-skim train: error: --freeze-embedding does not apply to --task cloze"
    assert capsys.readouterr().err.strip() == expected
    # Another family's options are refused as the span task refuses them (cli/task_args.py).
    args = ["train", "--task", "cloze", "--no-early-stopping", "--agent-units", "5", "--data", str(STORY)]
    assert main([*args, "-o", str(tmp_path / "x")]) == 2
    expected = "keras-skim train: error: --no-early-stopping, --agent-units do not apply to --task cloze"
    assert capsys.readouterr().err.strip() == expected
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("steps_per_epoch", [None, 1])  # whole passes; slices of one batch (ChunkedPasses)
def test_train_cloze_resumes_after_a_kill_and_ends_as_an_unbroken_run(steps_per_epoch, tmp_path, monkeypatch):
    from keras_skim.models.cloze_qa.cloze_training import ClozeTrainingConfig, load_cloze_folder, train_cloze
    from keras_skim.training.epoch_checkpoint import EpochCheckpoint
    from keras_skim.training.run_checkpoint import CheckpointMismatch

    sizes = {"units": 8, "small_units": 2, "embedding_dim": 8, "epochs": 3, "batch_size": 4}
    config = ClozeTrainingConfig(cell="skim-lstm", steps_per_epoch=steps_per_epoch, **sizes)
    unbroken = train_cloze(STORY, config, tmp_path / "unbroken", 0, tmp_path / "run_unbroken", resume=True)
    save_epoch = EpochCheckpoint.on_epoch_end

    def killed_after_the_first_epoch(self, epoch, logs=None):
        save_epoch(self, epoch, logs)
        raise KeyboardInterrupt  # as a kill between two epochs, after the checkpoint was written

    monkeypatch.setattr(EpochCheckpoint, "on_epoch_end", killed_after_the_first_epoch)
    with pytest.raises(KeyboardInterrupt):
        train_cloze(STORY, config, tmp_path / "broken", 0, tmp_path / "run_broken", resume=True)
    assert not (tmp_path / "broken").exists()
    monkeypatch.setattr(EpochCheckpoint, "on_epoch_end", save_epoch)
    resumed = train_cloze(STORY, config, tmp_path / "broken", 0, tmp_path / "run_broken", resume=True)
    assert resumed["epochs_run"] == unbroken["epochs_run"]
    if steps_per_epoch is None:
        assert unbroken["epochs_run"] == 3
    else:  # a pass is cut into several epochs (early stopping, two passes' patience, may end the third pass)
        assert 3 < unbroken["epochs_run"] <= 3 * -(-unbroken["questions"]["train"] // 4)
    assert resumed["test"] == unbroken["test"]
    inputs, _ = _batch()
    inputs["tokens"] = inputs["tokens"] % 8  # ids within the small fixture's vocabulary
    inputs["candidates"] = np.resize(inputs["candidates"] % 8, (8, 10))
    models = [load_cloze_folder(tmp_path / name)[0] for name in ("unbroken", "broken")]
    np.testing.assert_allclose(*(model.predict(inputs, verbose=0) for model in models), rtol=1e-6, atol=1e-6)
    with pytest.raises(CheckpointMismatch):  # another run's checkpoint is refused, not resumed
        other = ClozeTrainingConfig(**{**config.__dict__, "units": 6})
        train_cloze(STORY, other, tmp_path / "other", 0, tmp_path / "run_broken", resume=True)


def test_two_reader_runs_with_one_tag_keep_each_others_rows(tmp_path):
    import importlib.util

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "cloze_readers.py"
    spec = importlib.util.spec_from_file_location("cloze_readers", path)
    readers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(readers)
    report = tmp_path / "cloze_austen_cn"
    fields = {"data": "x_CN_train.txt", "command": "c", "machine": "m", "versions": {}, "questions": None}
    test = {"accuracy": 0.5, "skim_rate": 0.0}
    row = {"seconds": 1.0, "test": test, "epochs_run": 1}
    # Both processes started before either wrote: each knows only its own readers (main removes a reader
    # from its pending ones before adding its row).
    first = {**fields, "rows": [], "pending": ["skim-lstm"]}
    second = {**fields, "rows": [], "pending": []}
    readers.add_row(report, first, {**row, "cell": "lstm"}, {"train": 4})
    jump_row = {**row, "cell": "sj-lstm", "steps_run": 9, "test": {**test, **FRACTIONS}}
    readers.add_row(report, second, jump_row, {"train": 4})
    written = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))
    assert [entry["cell"] for entry in written["rows"]] == ["lstm", "sj-lstm"]
    assert written["pending"] == ["skim-lstm"]  # the other process's reader still training
    first["pending"].remove("skim-lstm")
    readers.add_row(report, first, {**row, "cell": "skim-lstm"}, {"train": 4})
    written = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))
    assert sorted(entry["cell"] for entry in written["rows"]) == ["lstm", "sj-lstm", "skim-lstm"]
    assert written["pending"] == []
    markdown = report.with_suffix(".md").read_text(encoding="utf-8")
    assert "| sj-lstm |" in markdown and "| skim-lstm |" in markdown and "| lstm |" in markdown
    # the papers' CBT figures go with a set of their kind only
    assert readers.paper_for("books_cloze_NE_train.txt").startswith("CBT-NE: LSTM 0.453")
    assert readers.paper_for("own_questions.txt") is None


FRACTIONS = {"read_fraction": 0.4, "skip_fraction": 0.1, "jump_fraction": 0.5}
