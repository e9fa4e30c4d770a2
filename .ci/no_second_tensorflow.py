"""CI check: installing keras-skim[train] into this environment, which has
tensorflow or tensorflow-cpu of a supported version, installs no second
TensorFlow and changes none. It reads the report of a real
`pip install --dry-run` against the index (the resolver sees every release).

    python .ci/no_second_tensorflow.py    # in the environment to check
"""

import json
import os
import subprocess
import sys
import tempfile
from importlib import metadata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TENSORFLOWS = ("tensorflow", "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos", "tf-nightly")


def installed_tensorflows():
    found = {}
    for name in TENSORFLOWS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return found


def main():
    before = installed_tensorflows()
    if not before:
        sys.exit("no tensorflow or tensorflow-cpu in this environment: nothing to check")
    with tempfile.TemporaryDirectory() as folder:
        report_path = os.path.join(folder, "report.json")
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--report", report_path, f"{ROOT}[train]"],
            check=True,
        )
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    planned = {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in report["install"]}
    tensorflows = {name: version for name, version in planned.items() if name.replace("_", "-") in TENSORFLOWS}
    if tensorflows:
        sys.exit(f"installing keras-skim[train] beside {before} would install {tensorflows}")
    others = sorted(set(planned) - {"keras-skim"})
    if others:
        sys.exit(f"installing keras-skim[train] beside {before} would change {others}")
    print(f"no second TensorFlow: keras-skim[train] beside {before} installs only keras-skim")


if __name__ == "__main__":
    main()
