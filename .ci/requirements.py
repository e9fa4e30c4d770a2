"""Prints keras-skim's requirements (the base install plus the extras named
on the command line), one per line, from pyproject.toml: .ci/lowest installs
them under .ci/lowest-constraints.txt without building keras-skim again."""

import os
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
    project = tomllib.load(f)["project"]
requirements = list(project["dependencies"])
for extra in sys.argv[1:]:
    requirements += project["optional-dependencies"][extra]
print("\n".join(requirements))
