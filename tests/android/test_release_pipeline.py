"""`export/build_release.py`: the app's assets and golden files from export folders, checked
against the Python LiteRT runner and the app's Java core; the benchmark-report registry."""

import filecmp
import json
import os
import shutil

import numpy as np
import pytest

from export import benchmark_reports
from export.fixtures import FIXTURES, GOLDEN_THRESHOLDS
from keras_skim.contracts import MARKER_FILE
from tests.android.conftest import ROOT, run_pipeline
from tests.assertions import one_line


def test_assets_layout(release):
    out = release["output"]
    with open(os.path.join(out, "catalog.json"), encoding="utf-8") as f:
        catalog = json.load(f)
    ids = [m["id"] for m in catalog["models"]]
    assert ids == list(release["exports"])  # the order given, ids = <model_kind>_<backend>
    assert catalog["baseline"] == "lstm_builtin"
    assert catalog["default_model"] == ("skim_lstm_custom" if "skim_lstm_custom" in ids else "skim_lstm_builtin")
    assert sorted(os.listdir(out)) == sorted(ids + ["catalog.json", "bench_texts.json", MARKER_FILE])
    for entry in catalog["models"]:
        for name in ("model.tflite", "tokenizer.json", "metadata.json"):
            assert filecmp.cmp(
                os.path.join(release["exports"][entry["id"]], name), os.path.join(out, entry["id"], name), shallow=False
            )
        assert entry["model"] == f"{entry['id']}/model.tflite"
    titles = {m["id"]: m["title"] for m in catalog["models"]}
    assert titles["lstm_builtin"] == "LSTM (baseline)" and titles["skim_lstm_builtin"] == "Skim-LSTM (builtin ops)"
    with open(os.path.join(out, "bench_texts.json"), encoding="utf-8") as f:
        texts = json.load(f)
    assert texts["labels"] == [1, 0, 1, 0] and len(texts["texts"]) == 4
    assert sorted(os.listdir(release["golden"])) == sorted([i + ".json" for i in ids] + [MARKER_FILE])


@pytest.mark.parametrize("model_id", ["skim_lstm_custom", "skim_lstm_builtin", "lstm_builtin"])
def test_golden_files_are_the_python_runner(release, model_id):
    """Every golden run equals a fresh run of keras_skim.runtime.SkimRunner on the bundled copy."""
    if model_id not in release["exports"]:
        pytest.skip("no C++ compiler (g++ or $CXX): the custom-op export cannot be built")
    from keras_skim.runtime import SkimRunner

    with open(os.path.join(release["golden"], model_id + ".json"), encoding="utf-8") as f:
        golden = json.load(f)
    assert golden["thresholds"] == list(GOLDEN_THRESHOLDS)
    names = [c["name"] for c in golden["cases"]]
    assert names[: len(FIXTURES)] == [name for name, _ in FIXTURES]
    assert names[len(FIXTURES) :] == [f"sample_review_{i}" for i in range(6)]
    runner = SkimRunner(os.path.join(release["output"], model_id))
    skims = model_id.startswith("skim")
    for case in golden["cases"]:
        ids, tokens = runner.encode(case["text"])
        assert case["token_ids"] == ids.tolist() and case["tokens"] == tokens
        assert len(case["token_ids"]) <= 30  # the tiny models' max_length cuts the long text
        for run in case["runs"]:
            out = runner.run_ids(ids, run["threshold"])
            np.testing.assert_array_equal(
                np.asarray(out["logits"], np.float32).reshape(-1), np.asarray(run["logits"], np.float32)
            )
            assert run["read_mask"] == np.asarray(out["read_mask"]).reshape(-1).astype(int).tolist()
            assert run["read_count"] == sum(run["read_mask"]) and len(run["read_mask"]) == max(len(ids), 1)
            if not skims or run["threshold"] == 0.0:
                assert run["read_count"] == len(run["read_mask"])  # reads everything
            elif run["threshold"] == 1.5:
                assert run["read_count"] == 0  # skims everything


def test_java_encoding_matches_every_golden_file(probe, release):
    answer = probe.call("golden_tokens", assets=release["assets"], golden=release["golden"])
    assert sorted(answer) == sorted(release["exports"])
    for model_id, result in answer.items():
        assert result["cases"] == len(FIXTURES) + 6
        assert result["problems"] == [], model_id


@pytest.mark.parametrize(
    "alter,expected",
    [
        ({}, None),
        ({"case": "plain", "logit_delta": 5e-6}, None),  # within the tolerance
        ({"case": "plain", "logit_delta": 1e-3}, "logit 0 is"),
        ({"case": "emoji", "flip_mask": True}, "read mask"),
        ({"case": "kelvin_sign", "count_delta": 1}, "read count"),
    ],
)
def test_golden_check_finds_differences(probe, release, alter, expected):
    """GoldenCheck (what the JVM test of the JNI shim runs) on runs that replay the golden file."""
    problems = probe.call(
        "golden_replay",
        assets=release["assets"],
        model="skim_lstm_builtin",
        golden=os.path.join(release["golden"], "skim_lstm_builtin.json"),
        tolerance=1e-5,
        alter=alter,
    )
    if expected is None:
        assert problems == []
    else:
        assert len(problems) == len(GOLDEN_THRESHOLDS)  # the altered case, at every threshold
        for problem, threshold in zip(problems, GOLDEN_THRESHOLDS):
            assert problem.startswith(f"skim_lstm_builtin / {alter['case']} @ threshold {threshold}: {expected}")


def test_refuses_to_overwrite_without_force(release):
    code, out, err = run_pipeline(
        "assets",
        "--from-exports",
        release["exports"]["lstm_builtin"],
        "-o",
        release["output"],
        "--golden",
        release["golden"] + "-other",
        "--bench-data",
        os.path.join(os.path.dirname(release["assets"]), "bench.tsv"),
    )
    assert code == 2
    assert one_line(err).endswith(f"{release['output']} already exists (use --force to replace it)")
    assert not os.path.exists(release["golden"] + "-other")


def test_force_replaces_only_what_the_pipeline_wrote(release, tmp_path):
    """--force replaces the assets and golden folders while they hold only the files the
    pipeline wrote (their marker lists them); a file added or edited since is never deleted:
    refused in one line, exit 2, before any work, and both folders are left as they were."""
    out, gold = tmp_path / "assets", tmp_path / "golden"
    args = [
        "assets",
        "--from-exports",
        release["exports"]["lstm_builtin"],
        "-o",
        str(out),
        "--golden",
        str(gold),
        "--bench-data",
        os.path.join(os.path.dirname(release["assets"]), "bench.tsv"),
        "--bench-split",
        "all",
        "--bench-samples",
        "2",
    ]
    assert run_pipeline(*args)[0] == 0
    (out / "notes.txt").write_text("mine")
    (gold / "mydata").mkdir()
    (gold / "mydata" / "keep.csv").write_text("a,b\n")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    code, _, err = run_pipeline(*args, "--force")
    assert code == 2
    assert one_line(err) == (
        f"build_release.py assets: error: {out} holds files keras-skim did not write or that changed since "
        "(notes.txt); --force replaces only keras-skim's own files: move them out or choose another folder"
    )
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    (out / "notes.txt").unlink()
    code, _, err = run_pipeline(*args, "--force")
    assert code == 2 and "(mydata/)" in one_line(err)
    shutil.rmtree(gold / "mydata")
    with open(out / "catalog.json", "a", encoding="utf-8") as f:
        f.write(" ")  # an edited file is the user's too
    code, _, err = run_pipeline(*args, "--force")
    assert code == 2 and "(catalog.json)" in one_line(err)
    (out / "catalog.json").write_bytes(before[out / "catalog.json"])
    code, _, err = run_pipeline(*args, "--force")
    assert code == 0, err
    assert sorted(os.listdir(out)) == sorted(["bench_texts.json", "catalog.json", "lstm_builtin", MARKER_FILE])
    with open(out / "catalog.json", encoding="utf-8") as f:
        catalog = json.load(f)
    assert catalog["default_model"] == "lstm_builtin" and catalog["baseline"] == "lstm_builtin"
    assert len(json.load(open(out / "bench_texts.json", encoding="utf-8"))["texts"]) == 2
    assert sorted(p for p in os.listdir(tmp_path) if p.startswith(".")) == []  # no stage left behind


def test_force_never_replaces_an_input(release, tmp_path):
    """An export folder given to bundle is never inside what --force may replace."""
    out = tmp_path / "assets"
    export = out / "lstm_builtin"
    shutil.copytree(release["exports"]["lstm_builtin"], export)
    code, _, err = run_pipeline(
        "assets", "--from-exports", str(export), "-o", str(out), "--golden", str(tmp_path / "golden"), "--force"
    )
    assert code == 2 and "would replace the input" in one_line(err)
    assert sorted(os.listdir(export)) == sorted(os.listdir(release["exports"]["lstm_builtin"]))


@pytest.mark.parametrize(
    "make_bad,message",
    [
        (lambda folder: os.remove(os.path.join(folder, "tokenizer.json")), "no tokenizer.json"),
        (
            lambda folder: open(os.path.join(folder, "metadata.json"), "w").write("{}"),
            "not a keras_skim.export metadata file",
        ),
    ],
)
def test_bad_export_folder(release, tmp_path, make_bad, message):
    folder = tmp_path / "export"
    shutil.copytree(release["exports"]["lstm_builtin"], folder)
    make_bad(str(folder))
    code, _, err = run_pipeline(
        "assets", "--from-exports", str(folder), "-o", str(tmp_path / "out"), "--golden", str(tmp_path / "golden")
    )
    assert code == 2 and message in one_line(err)
    assert not (tmp_path / "out").exists() and not (tmp_path / "golden").exists()


def test_two_exports_of_one_kind_are_refused(release, tmp_path):
    lstm = release["exports"]["lstm_builtin"]
    code, _, err = run_pipeline(
        "assets", "--from-exports", lstm, lstm, "-o", str(tmp_path / "out"), "--golden", str(tmp_path / "golden")
    )
    assert code == 2 and "are both lstm_builtin" in one_line(err)


def test_benchmark_reports_name_existing_scripts():
    for report in benchmark_reports.REPORTS:
        script = next(part for part in report.command if part.startswith("benchmarks/"))
        if report.group != "app":
            assert os.path.isfile(os.path.join(ROOT, script)), script
        for written in report.writes:
            assert written.startswith("benchmarks/results/")
    committed = {r.writes[0] for r in benchmark_reports.REPORTS if r.group in ("speed", "trained")}
    assert all(os.path.exists(os.path.join(ROOT, path)) for path in committed)


def test_benchmarks_dry_run_and_list():
    code, out, err = run_pipeline("benchmarks", "--dry-run")
    assert code == 0, err
    assert out.count("== ") == 4 and "$ python benchmarks/custom_op_speed.py --runs 60 --cpu 1" in out
    code, out, _ = run_pipeline("benchmarks", "--list")
    assert code == 0 and "trained_export_speed" in out and "app_models_speed" in out
    code, _, err = run_pipeline("benchmarks", "--only", "nope")
    assert code == 2 and "unknown report nope" in one_line(err)


def test_app_benchmark_command_uses_the_assets(release, tmp_path):
    report = next(r for r in benchmark_reports.REPORTS if r.name == "app_models_speed")
    argv = benchmark_reports.command_line(report, assets=release["output"], texts_file=str(tmp_path / "t.tsv"))
    default = "skim_lstm_custom" if "skim_lstm_custom" in release["exports"] else "skim_lstm_builtin"
    assert argv[1:4] == ["-m", "keras_skim", "bench"]
    assert argv[4] == os.path.join(release["output"], default)
    assert argv[argv.index("--baseline") + 1] == os.path.join(release["output"], "lstm_builtin")
    assert argv[argv.index("--samples") + 1] == "4"  # every benchmark text, as on the phone
    tsv = argv[argv.index("--data") + 1]
    assert tsv == str(tmp_path / "t.tsv")
    from keras_skim.runtime.bench_data import load_bench_texts

    assert argv[argv.index("--split") + 1] == "all"
    texts, labels, _ = load_bench_texts(tsv, 100, split="all")
    assert labels == [1, 0, 1, 0] and texts[0] == "the movie was good and fun"


@pytest.mark.parametrize("flag", ["--epochs", "--units", "--max-tokens", "--jump-units", "--bench-samples"])
def test_sizes_below_one_are_refused_before_training(flag, tmp_path):
    code, out, err = run_pipeline("assets", flag, "0", "--work", str(tmp_path / "work"))
    assert code == 2 and one_line(err) == f"build_release.py: error: {flag} must be at least 1"
    assert not (tmp_path / "work").exists()


def test_demo_settings_are_checked():
    from export.release_assets import ReleaseError, train_demo_exports

    with pytest.raises(ReleaseError, match="unknown demo settings: hidden"):
        train_demo_exports("/nonexistent", hidden=3)
