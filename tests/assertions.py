"""Assertions shared by the test packages."""


def one_line(err):
    """The error text, asserted to be one non-empty line (the CLI's promise
    for bad input); returned stripped."""
    err = err.strip()
    assert err and err.count("\n") == 0, err
    return err


def check_bench_result(report, result, texts=None):
    """What the numbers of one `keras-skim bench` result must satisfy, by
    definition: the speed-up is the ratio of the two models' total times,
    each text timed by its median over the repeats, the per-token speed-up
    the ratio of the two
    reported medians, Flop-R the metadata's FLOP counts at the measured skim
    rate, and (given the benchmarked `texts`) the skim rate is what the
    model's own read masks give."""
    import json
    import os

    import numpy as np

    from keras_skim.runtime import SkimRunner
    from keras_skim.runtime.bench import flop_r

    model = result["model_latency"]
    assert model["runs"] == report["samples"] * report["repeats"]
    assert model["median_us"] <= model["p90_us"]
    if report["baseline"]:
        base = result["baseline_latency"]
        assert len(result["speedup_runs"]) == report["repeats"]
        medians = result["text_median_seconds"]
        assert len(medians["model"]) == len(medians["baseline"]) == report["samples"]
        assert np.isclose(result["speedup"], sum(medians["baseline"]) / sum(medians["model"]), rtol=1e-12)
        assert np.isclose(result["speedup_per_token_median"], base["median_us"] / model["median_us"], rtol=1e-12)
    folder = os.path.dirname(report["model"])
    with open(os.path.join(folder, "metadata.json")) as f:
        metadata = json.load(f)
    assert np.isclose(result["flop_r"], flop_r(metadata, result["skim_rate"]), rtol=1e-12)
    if texts is not None:
        runner = SkimRunner(folder)
        masks = [runner.classify(t, threshold=result["threshold"])[1] for t in texts]
        expected = 1.0 - sum(int(m.sum()) for m in masks) / sum(len(m) for m in masks)
        assert np.isclose(result["skim_rate"], expected, rtol=1e-12), (result["skim_rate"], expected)
