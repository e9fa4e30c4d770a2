"""The release pipeline in one command.

    python export/build_release.py assets [--jump-model] [--from-exports DIR ...] [--force]
        Builds the Android app's assets (android_demo/app/src/main/assets/keras_skim/) and the
        golden files (android_demo/golden/), both committed. Without --from-exports it first
        trains the demo's models with `keras-skim train` under export/build/demo/ (Skim-LSTM
        d=100, d'=10 and LSTM d=100 on Rotten Tomatoes, 3 epochs, 8,000 words; see
        release_assets.DEMO_SETTINGS) and exports the Skim-LSTM with the custom-op backend
        (--skim-backends custom builtin for both) and the LSTM with the builtin backend, with int8
        weights. --jump-model also trains a small Structural-Jump-LSTM (d=64, 4 + 3 epochs) and
        bundles it with the custom-op backend (int8 weights; --jump-backends custom builtin for
        both, the builtin graph in float32; catalog ids structural_jump_lstm_<backend>). The committed assets are
        `python export/build_release.py assets --jump-model --force`.

    python export/build_release.py assets --from-presets [PRESET ...] [--jump-model] [--force]
        The same assets from trained presets instead (issue 31), nothing trained: exports
        skim_lstm_rotten_tomatoes, lstm_rotten_tomatoes and, with --jump-model,
        structural_jump_lstm_rotten_tomatoes (or the presets named) with the backends and int8
        weights above, then bundles them. Once those presets are in presets/, the app's assets are
        `python export/build_release.py assets --from-presets --jump-model --force`.

    python export/build_release.py benchmarks [--only NAME ...] [--group speed|trained|app ...] [--list]
        Regenerates the committed benchmark reports under benchmarks/results/ by running the
        scripts under benchmarks/ that write them (see export/benchmark_reports.py).

Errors are one line on stderr and exit code 2; nothing is left half-written.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # run as a script: the checkout's `export` and `keras_skim` packages
    sys.path.insert(0, ROOT)

from export import benchmark_reports, release_assets  # noqa: E402
from export.release_assets import ReleaseError  # noqa: E402


def _relative(path):
    return os.path.relpath(path, os.getcwd())


# The options that size the demo's training: nothing is trained from presets.
TRAINING_OPTIONS = ("epochs", "units", "max_tokens", "jump_units", "limit", "reuse_trained")


def _export_overrides(args):
    """DEMO_SETTINGS overrides of the export options."""
    overrides = {}
    if args.no_quantize:
        overrides["quantize"] = None
    if args.skim_backends:
        overrides["skim_backends"] = tuple(args.skim_backends)
    if args.jump_backends:
        overrides["jump_backends"] = tuple(args.jump_backends)
    return overrides


def _source_folders(args):
    """The export folders to bundle: given, exported from presets, or trained and exported."""
    if args.from_exports:
        return args.from_exports
    if args.from_presets is not None:
        given = [name for name in TRAINING_OPTIONS if getattr(args, name) not in (None, False)]
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise ReleaseError(f"{flags}: not with --from-presets (the presets are trained already)")
        return release_assets.preset_exports(
            args.work, args.from_presets, jump_model=args.jump_model, **_export_overrides(args)
        )
    overrides = {"data": args.data, **_export_overrides(args)}
    for name in ("epochs", "units", "max_tokens", "jump_units"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    return release_assets.train_demo_exports(
        args.work, limit=args.limit, reuse=args.reuse_trained, jump_model=args.jump_model, **overrides
    )


def assets_command(args):
    folders = _source_folders(args)
    labels = [s.strip() for s in args.labels.split(",")] if args.labels else None
    catalog = release_assets.build_assets(
        folders,
        output=args.output,
        golden_dir=args.golden,
        bench_data=args.bench_data or args.data,
        bench_samples=args.bench_samples,
        bench_split=args.bench_split,
        labels=labels,
        force=args.force,
    )
    print(
        f"wrote {_relative(args.output)}/: catalog.json, bench_texts.json, "
        + ", ".join(m["id"] for m in catalog["models"])
    )
    print(f"wrote {_relative(args.golden)}/: one golden file per model")
    print("next: open android_demo/ in Android Studio and run the app (android_demo/README.md)")
    return 0


def benchmarks_command(args):
    reports = benchmark_reports.select(args.only or (), args.group or ("speed",))
    if args.list:
        for r in benchmark_reports.REPORTS:
            print(f"{r.name:36s} {r.group:8s} {' '.join(r.command)}")
            print(f"{'':36s} {'':8s} writes {', '.join(r.writes)}" + (f"; {r.note}" if r.note else ""))
        return 0
    benchmark_reports.run(reports, assets=args.assets, dry_run=args.dry_run)
    return 0


def parser():
    top = argparse.ArgumentParser(prog="build_release.py", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="command", required=True)
    a = sub.add_parser("assets", help="the app's assets and golden files")
    source = a.add_mutually_exclusive_group()
    source.add_argument(
        "--from-exports",
        nargs="+",
        metavar="DIR",
        help="export folders (of `keras-skim export`) to bundle instead of training the demo's models",
    )
    source.add_argument(
        "--from-presets",
        nargs="*",
        metavar="PRESET",
        help="export these presets (names or folders; none given: "
        + ", ".join(release_assets.APP_PRESETS)
        + f", and {release_assets.APP_JUMP_PRESET} with --jump-model) and bundle them instead of training "
        "the demo's models",
    )
    a.add_argument(
        "-o",
        "--output",
        default=release_assets.DEFAULT_OUTPUT,
        help="assets folder to write (default: android_demo/app/src/main/assets/keras_skim)",
    )
    a.add_argument(
        "--golden",
        default=release_assets.DEFAULT_GOLDEN,
        help="golden files folder to write (default: android_demo/golden)",
    )
    a.add_argument("--work", default=release_assets.DEFAULT_WORK, help="where the demo's models are trained")
    a.add_argument("--reuse-trained", action="store_true", help="keep models already trained under --work")
    a.add_argument(
        "--jump-model",
        action="store_true",
        help="also train and bundle a Structural-Jump-LSTM (adds minutes of training)",
    )
    a.add_argument("--data", choices=["rotten_tomatoes", "imdb"], default="rotten_tomatoes")
    a.add_argument("--epochs", type=int, default=None, help="Skim-LSTM and LSTM epochs (default 3)")
    a.add_argument("--units", type=int, default=None, help="d of the Skim-LSTM and the LSTM (default 100)")
    a.add_argument("--max-tokens", type=int, default=None, help="vocabulary size (default 8000)")
    a.add_argument("--no-quantize", action="store_true", help="float32 exports instead of int8 weights")
    a.add_argument(
        "--skim-backends",
        nargs="+",
        choices=["custom", "builtin"],
        help="backends of the Skim-LSTM export (default: custom)",
    )
    a.add_argument("--jump-units", type=int, default=None, help="d of the Structural-Jump-LSTM (default 64)")
    a.add_argument(
        "--jump-backends",
        nargs="+",
        choices=["custom", "builtin"],
        help="backends of the Structural-Jump-LSTM export (default: custom)",
    )
    a.add_argument("--limit", type=int, default=None, help="train on a subset (quick look)")
    a.add_argument(
        "--bench-data",
        default=None,
        metavar="DATA",
        help="the Benchmark button's texts: imdb, rotten_tomatoes or a text/CSV/TSV file "
        "(as `keras-skim bench --data`; default: --data)",
    )
    a.add_argument("--bench-samples", type=int, default=100, metavar="N")
    a.add_argument(
        "--bench-split",
        default="test",
        choices=["train", "validation", "test", "all"],
        help="which split of --bench-data to take the texts from (default test, as keras-skim bench)",
    )
    a.add_argument(
        "--labels",
        default=None,
        help="class names, comma-separated (default: the class names each export records from its training "
        "data; negative,positive for an export written before they travelled)",
    )
    a.add_argument(
        "--force",
        action="store_true",
        help="replace the assets and golden folders while they hold only the files this pipeline wrote there",
    )
    a.set_defaults(run=assets_command)
    b = sub.add_parser("benchmarks", help="regenerate the committed benchmark reports")
    b.add_argument("--only", nargs="+", metavar="NAME", help="these reports (see --list)")
    b.add_argument("--group", nargs="+", choices=benchmark_reports.GROUPS, help="these groups (default: speed)")
    b.add_argument("--list", action="store_true", help="list the reports, their commands and files")
    b.add_argument("--dry-run", action="store_true", help="print the commands only")
    b.add_argument("--assets", default=release_assets.DEFAULT_OUTPUT, help="the app assets (group app)")
    b.set_defaults(run=benchmarks_command)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    for name in ("bench_samples", "epochs", "units", "max_tokens", "jump_units"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            print(f"build_release.py: error: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    try:
        return args.run(args)
    except ReleaseError as err:
        print(f"build_release.py {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
