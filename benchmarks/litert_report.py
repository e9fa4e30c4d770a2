"""Machine, versions, command line and result files of the LiteRT export
benchmarks under benchmarks/."""

import json
import os
import platform
import sys

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def machine(load_average=False):
    info = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
    }
    if load_average:
        # read when the report is written: how loaded the timed runs were
        info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return info


def timed_machine(load_average_at_start):
    """`machine(load_average=True)` plus what else decides the timings: the load when the runs
    started, the process's nice value and the CPUs it may run on (`--cpu` pins it)."""
    return dict(
        machine(load_average=True),
        load_average_at_start=load_average_at_start,
        nice=os.nice(0),
        cpus_allowed=sorted(os.sched_getaffinity(0)),
    )


def versions():
    import keras
    import tensorflow as tf

    from keras_skim.runtime.interpreter_loader import runtime_versions

    return {**runtime_versions(), "tensorflow": tf.__version__, "keras": keras.__version__}


def command():
    return " ".join([os.path.basename(sys.executable)] + sys.argv)


def short_commit():
    """The checkout's short commit, or None outside a git checkout."""
    import subprocess

    checkout = os.path.dirname(RESULTS)
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True)
    except OSError:
        return None
    return done.stdout.strip() or None


def header():
    """What every result file starts with: the command, the commit, the machine (with its load) and
    the versions."""
    return {
        "command": command(),
        "commit": short_commit(),
        "machine": machine(load_average=True),
        "versions": versions(),
    }


def write(stem, report, markdown):
    """Writes results/<stem>.json and .md and prints the Markdown."""
    write_files(os.path.join(RESULTS, stem), report, markdown)


def write_files(prefix, report, markdown):
    """Writes <prefix>.json and <prefix>.md and prints the Markdown."""
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    with open(prefix + ".json", "w") as f:
        json.dump(report, f, indent=1)
    with open(prefix + ".md", "w") as f:
        f.write(markdown)
    print(markdown)
