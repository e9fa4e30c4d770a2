"""Latency benchmark of exported models with LiteRT; no TensorFlow.

Model and baseline runs are interleaved (alternating which goes first) so
that machine drift hits both alike. Per-token latency = run time / tokens.

A jump model (a kind that `jumps`, `keras_skim.model_kinds`) also gets the
fractions of the words it read, skipped and jumped over, counted from its
per-token mask codes (`keras_skim.contracts.TOKEN_*`; punctuation is not a
word), and its Flop-r from those counts (its family's `flop_report`).
"""

import platform
import sys
import time

import numpy as np

from keras_skim import contracts
from keras_skim.analysis.flops import flop_r_of
from keras_skim.model_kinds import family_of, kind_of, load
from keras_skim.runtime.interpreter_loader import runtime_versions
from keras_skim.runtime.runner import SkimRunner, probabilities_from_logits


def _record(metadata):
    """An `ExportMetadata` of a record or of its JSON dict (read as it is: files are checked
    when they are read, `contracts.read_metadata`)."""
    if isinstance(metadata, contracts.ExportMetadata):
        return metadata
    return contracts.ExportMetadata.of(metadata)


def flop_r(metadata, skim_rate):
    """Flop-R at `skim_rate` from an export's FLOP counts (None without
    them): the counts are the exporter's FLOP report of the model
    (`analysis.flops.plan_flop_report`), the arithmetic `flop_r_of`."""
    flops = _record(metadata).flops or contracts.FlopCounts()
    base, read, skim = flops.baseline_flops_per_token, flops.read_flops_per_token, flops.skim_flops_per_token
    if not base or not read:
        return None
    # A plain cell has no skim count: it reads every token.
    return flop_r_of([(base, read, read, 0.0) if skim is None else (base, read, skim, skim_rate)])


def stack_flop_r(metadata, skim_rates):
    """Flop-R of a stacked or bidirectional export over all its layers and
    directions (`metadata.layers`' FLOPs per token; `skim_rates`: {read mask
    output name: skim rate}); the rule is `flops.flop_r_rule`."""
    return flop_r_of(
        (layer["flops"]["baseline"], layer["flops"]["read"], layer["flops"]["skim"], skim_rates.get(name, 0.0))
        for layer in _record(metadata).layers
        for name in layer["read_masks"].values()
    )


def jumps(metadata):
    """Whether an export is a jump model (read / skipped / jumped words)."""
    return kind_of(metadata).jumps


def jump_counts(read_mask):
    """(words, visited) of one run's mask: words are the tokens that are not
    `TOKEN_NOT_A_WORD`, visited the read or skipped ones (not jumped)."""
    mask = np.rint(np.asarray(read_mask, np.float64)).astype(np.int64).reshape(-1)
    words = int(np.count_nonzero(mask != contracts.TOKEN_NOT_A_WORD))
    visited = int(np.count_nonzero((mask == contracts.TOKEN_READ) | (mask == contracts.TOKEN_SKIMMED)))
    return words, visited


def jump_summary(metadata, words, visited, read):
    """Fractions and Flop-r of a jump model from per-text counts; the FLOP
    counts come from the metadata's `units`, `embedding_dim` and
    `agent_units` (25, the paper's, when absent)."""
    flop_report = load(family_of(_record(metadata).kind).flop_report)
    total, seen, reads = int(np.sum(words)), int(np.sum(visited)), int(np.sum(read))
    report = flop_report(
        words,
        visited,
        read,
        int(_record(metadata).units),
        int(_record(metadata).embedding_dim),
        int(_record(metadata).agent_units or 25),
    )
    return {
        "words": total,
        "read_fraction": reads / total if total else 0.0,
        "skip_fraction": (seen - reads) / total if total else 0.0,
        "jump_fraction": 1.0 - seen / total if total else 0.0,
        "flop_r": report["flop_r"] if seen else None,
    }


def peak_rss_mb():
    """This process's peak resident memory in MB, or None where the platform
    does not report it (Windows has no `resource` module)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024.0  # bytes on macOS, KiB on Linux


def shown(text):
    """`text` (a path or command line) as valid UTF-8: bytes of a file name
    that are not UTF-8 (surrogate escapes) become backslash escapes."""
    if text is None:
        return None
    return str(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# What times a call: None, wall time (time.perf_counter). A benchmark on a
# loaded machine may set time.thread_time (this thread's CPU time: a call
# that another process preempts is not charged for the wait;
# benchmarks/short_text_speed.py).
CLOCK = None


def _time(runner, prepared):
    clock = CLOCK or time.perf_counter
    start = clock()
    out = runner.invoke(*prepared)
    return clock() - start, out


def input_length(ids):
    """Tokens of one bench input: its ids, or a task export's first input (the one its read masks cover)."""
    return np.shape(next(iter(ids.values())))[-1] if isinstance(ids, dict) else len(ids)


def _real_tokens(ids):
    return int(np.count_nonzero(next(iter(ids.values())) if isinstance(ids, dict) else ids))


def _encode_all(runner, texts):
    return [runner.encode(t)[0] for t in texts]


def _summary(per_token_us):
    a = np.asarray(per_token_us)
    return {"median_us": float(np.median(a)), "p90_us": float(np.percentile(a, 90)), "runs": int(a.size)}


def bench_threshold(model, baseline, model_ids, base_ids, labels, threshold, repeats, warmup=1):
    """Measures one threshold. Returns a dict of results.

    The speed-up is the ratio of the two models' total times over the texts,
    each text timed by its median over the repeats: on a shared machine one
    preempted call can move a whole repeat's total (the per-repeat ratios are
    kept as `speedup_runs`), not a text's median."""
    model_runs, base_runs, ratios = [], [], []
    model_text_times = [[] for _ in model_ids]
    base_text_times = [[] for _ in model_ids]
    # Inputs are checked once, outside the timed calls.
    model_inputs = [model.prepare(ids, threshold) for ids in model_ids]
    base_inputs = [baseline.prepare(bids) for bids in base_ids] if baseline is not None else []
    for k, prepared in enumerate(model_inputs):
        for _ in range(warmup):
            model.invoke(*prepared)
            if baseline is not None:
                baseline.invoke(*base_inputs[k])
    for r in range(repeats):
        total_model = total_base = 0.0
        for k, (ids, bids) in enumerate(zip(model_ids, base_ids)):
            order = (0, 1) if (r + k) % 2 == 0 else (1, 0)
            for which in order:
                if which == 0:
                    seconds, _ = _time(model, model_inputs[k])
                    model_runs.append(seconds / max(input_length(ids), 1) * 1e6)
                    model_text_times[k].append(seconds)
                    total_model += seconds
                elif baseline is not None:
                    seconds, _ = _time(baseline, base_inputs[k])
                    base_runs.append(seconds / max(input_length(bids), 1) * 1e6)
                    base_text_times[k].append(seconds)
                    total_base += seconds
        if baseline is not None and total_model > 0:
            ratios.append(total_base / total_model)
    result = {"threshold": threshold, "tokens": 0, "skim_rate": 0.0, "model_latency": _summary(model_runs)}
    result.update(score_runs(model, model_inputs, labels))
    if baseline is not None:
        result["baseline_latency"] = _summary(base_runs)
        result["speedup_runs"] = [float(r) for r in ratios]
        result["text_median_seconds"] = {
            "model": [float(np.median(t)) for t in model_text_times],
            "baseline": [float(np.median(t)) for t in base_text_times],
        }
        result["speedup"] = sum(result["text_median_seconds"]["baseline"]) / sum(result["text_median_seconds"]["model"])
        result["speedup_per_token_median"] = (
            result["baseline_latency"]["median_us"] / result["model_latency"]["median_us"]
        )
        if result["flop_r"]:
            result["speedup_over_flop_r"] = result["speedup"] / result["flop_r"]
    return result


def add_strict_speedups(results):
    """Adds to each timed row of a skim model's sweep its strict gain: the
    speed-up over the same export reading every token (the sweep's row at
    threshold 0, where the read rule reads all), `strict_speedup`, and
    `strict_speedup_over_flop_r`. The speed-up against the baseline also
    counts what the export does better than the baseline when both read
    everything; the strict gain is skimming's alone. Rows need the per-text
    medians (a run with a baseline) and the sweep a threshold-0 row;
    otherwise nothing is added."""
    reading_all = next((r for r in results if r["threshold"] <= 0.0 and "text_median_seconds" in r), None)
    if reading_all is None or "words" in reading_all:  # none, or a jump model (no threshold)
        return
    total_all = sum(reading_all["text_median_seconds"]["model"])
    for r in results:
        if "text_median_seconds" not in r:
            continue
        r["strict_speedup"] = total_all / sum(r["text_median_seconds"]["model"])
        if r["flop_r"]:
            r["strict_speedup_over_flop_r"] = r["strict_speedup"] / r["flop_r"]


def score_runs(model, model_inputs, labels=None):
    """What a model read over inputs `prepare` checked, and how well: the
    tokens, skim rate (over every layer and direction of a stacked export,
    `layer_skim_rates`), Flop-R, a jump model's read / skip / jump fractions
    (`jump_summary`) and, with `labels`, the accuracy. `keras-skim bench`
    and `evaluate` of an export count with it."""
    reads = tokens = correct = 0
    # A stacked export: the skim rate over every layer's and direction's mask.
    layer_masks = list(_record(model.metadata).read_masks) if _record(model.metadata).layers else []
    layer_reads = dict.fromkeys(layer_masks, 0)
    jump_model = jumps(model.metadata)
    words, visited, read_counts = [], [], []
    for prepared, label in zip(model_inputs, labels if labels is not None else [None] * len(model_inputs)):
        out = model.invoke(*prepared)
        read = int(np.asarray(out["read_count"]).reshape(-1)[0])
        reads += read
        tokens += _real_tokens(prepared[0])
        for name in layer_masks:
            layer_reads[name] += int(np.sum(np.asarray(out[name]) == contracts.TOKEN_READ))
        if jump_model:
            w, v = jump_counts(out["read_mask"])
            words.append(w)
            visited.append(v)
            read_counts.append(read)
        if label is not None:
            p = probabilities_from_logits(out["logits"], _record(model.metadata).output_activation)
            correct += int(int(np.argmax(p)) == int(label))
    skim_rate = 1.0 - reads / tokens if tokens else 0.0
    result = {"tokens": tokens, "skim_rate": skim_rate, "flop_r": flop_r(model.metadata, skim_rate)}
    if layer_masks:
        rates = {name: 1.0 - read / tokens if tokens else 0.0 for name, read in layer_reads.items()}
        result.update(
            skim_rate=sum(rates.values()) / len(rates),
            layer_skim_rates=rates,
            flop_r=stack_flop_r(model.metadata, rates),
        )
    if jump_model:
        result.update(jump_summary(model.metadata, words, visited, read_counts))
    if labels is not None and len(labels):
        result["accuracy"] = correct / len(model_inputs)
    return result


def run_bench(
    model_path,
    baseline_path=None,
    texts=None,
    labels=None,
    token_ids=None,
    thresholds=None,
    threads=1,
    repeats=5,
    data_description="",
):
    """Benchmarks `model_path` (and `baseline_path`) on texts or token id lists."""
    model = SkimRunner(model_path, num_threads=threads)
    baseline = SkimRunner(baseline_path, num_threads=threads) if baseline_path else None
    if token_ids is not None:
        model_ids = [t if isinstance(t, dict) else np.asarray(t, np.int32) for t in token_ids]
        base_ids = model_ids
    else:
        model_ids = _encode_all(model, texts)
        base_ids = _encode_all(baseline, texts) if baseline is not None else model_ids
    if thresholds is None:
        thresholds = [model.default_threshold if model.default_threshold is not None else 0.0]
    results = [bench_threshold(model, baseline, model_ids, base_ids, labels, float(t), repeats) for t in thresholds]
    add_strict_speedups(results)
    return {
        "model": shown(model.model_path),
        "model_kind": _record(model.metadata).model_kind,
        "units": _record(model.metadata).units,
        "small_units": _record(model.metadata).small_units,
        "backend": model.backend,
        "baseline": shown(baseline.model_path) if baseline else None,
        "baseline_kind": _record(baseline.metadata).model_kind if baseline else None,
        "baseline_backend": baseline.backend if baseline else None,
        "data": shown(data_description),
        "samples": len(model_ids),
        "mean_tokens": float(np.mean([input_length(i) for i in model_ids])) if model_ids else 0.0,
        "threads": threads,
        "repeats": repeats,
        "results": results,
        "peak_rss_mb": peak_rss_mb(),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "python": sys.version.split()[0],
            "cpu_count": __import__("os").cpu_count(),
        },
        "versions": runtime_versions(),
        "command": shown(" ".join(sys.argv)),
    }


def markdown_report(report):
    jump = kind_of(report["model_kind"]).jumps
    sizes = f"d={report['units']}" + ("" if jump else f", d'={report['small_units']}")
    lines = [
        "# keras-skim bench",
        "",
        f"- model: `{report['model']}` ({report['model_kind']}, {sizes}, {report.get('backend', 'builtin')} backend)",
        f"- baseline: `{report['baseline']}` ({report['baseline_kind']}, "
        f"{report.get('baseline_backend', 'builtin')} backend)"
        if report["baseline"]
        else "- baseline: none",
        f"- data: {report['data']} ({report['samples']} texts, {report['mean_tokens']:.1f} tokens on average)",
        f"- threads: {report['threads']}, repeats: {report['repeats']} (warm-up excluded)",
        f"- peak RSS: {'-' if report['peak_rss_mb'] is None else format(report['peak_rss_mb'], '.1f')} MB",
        f"- machine: {report['machine']['platform']}, {report['machine']['processor']}, "
        f"{report['machine']['cpu_count']} CPUs, Python {report['machine']['python']}",
        f"- versions: {', '.join(f'{k} {v}' for k, v in report['versions'].items())}",
        f"- command: `{report['command']}`",
        "",
    ]

    if jump:
        return "\n".join(lines + _jump_table(report)) + "\n"
    lines += [
        "| threshold | skim rate | us/token median | p90 | baseline us/token | speed-up | Flop-R | speed-up / Flop-R | accuracy |",  # noqa: E501 (a table header)
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        lines.append(f"| {r['threshold']:.2f} | {r['skim_rate']:.3f} | {_timing_cells(r)}")
    return "\n".join(lines + _strict_table(report)) + "\n"


def _strict_table(report):
    """The strict gains of a sweep that has them (`add_strict_speedups`),
    beside the speed-up against the baseline; no lines otherwise."""
    rows = [r for r in report["results"] if "strict_speedup" in r]
    if not rows:
        return []
    lines = [
        "",
        "Strict gain: the speed-up over the same export at threshold 0 (reading every token), timed in the "
        "same sweep; the speed-up above is against the baseline.",
        "",
        "| threshold | skim rate | Flop-R | speed-up vs baseline | / Flop-R | strict gain | / Flop-R |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['threshold']:.2f} | {r['skim_rate']:.3f} | {_fmt(r.get('flop_r'))} | {_fmt(r.get('speedup'))} | "
            f"{_fmt(r.get('speedup_over_flop_r'))} | {r['strict_speedup']:.2f} | "
            f"{_fmt(r.get('strict_speedup_over_flop_r'))} |"
        )
    return lines


def _fmt(value, spec=".2f"):
    return "-" if value is None else format(value, spec)


def _timing_cells(r):
    """The cells every row of a report table ends with: the model's latency,
    the baseline's, the speed-up against it and Flop-R, and the accuracy."""
    base = r.get("baseline_latency", {})
    return (
        f"{r['model_latency']['median_us']:.2f} | {r['model_latency']['p90_us']:.2f} | "
        f"{_fmt(base.get('median_us'))} | {_fmt(r.get('speedup'))} | {_fmt(r.get('flop_r'))} | "
        f"{_fmt(r.get('speedup_over_flop_r'))} | {_fmt(r.get('accuracy'), '.3f')} |"
    )


def _jump_table(report):
    """A jump model's rows: fractions of the words, not a threshold sweep."""
    lines = [
        "Read, skip and jump are fractions of the words (punctuation steers the jumps and is not "
        "read); the threshold does not apply.",
        "",
        "| words | read | skip | jump | us/token median | p90 | baseline us/token | speed-up | Flop-r | "
        "speed-up / Flop-r | accuracy |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["results"]:
        lines.append(
            f"| {r['words']} | {r['read_fraction']:.3f} | {r['skip_fraction']:.3f} | {r['jump_fraction']:.3f} | "
            f"{_timing_cells(r)}"
        )
    return lines


def plot_sweep(report, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = report["results"]
    x = [r["threshold"] for r in rs]
    panels = [("Flop-R", [r["flop_r"] or 0 for r in rs]), ("us/token", [r["model_latency"]["median_us"] for r in rs])]
    if all("accuracy" in r for r in rs):
        panels.insert(0, ("accuracy", [r["accuracy"] for r in rs]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.2))
    for ax, (name, y) in zip(np.atleast_1d(axes), panels):
        ax.plot(x, y, marker="o")
        ax.set_xlabel("threshold")
        ax.set_title(name)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
