"""Puts notebooks in their committed form: no outputs, no execution counts,
no execution timings in the cell metadata, and only the language's name in
`language_info`, written the way nbformat writes (so that a diff shows only
what changed in the cells).

    python tests/notebooks/strip_outputs.py [NOTEBOOK ...]   (default: notebooks/*.ipynb)

Only the standard library: it runs in any environment.
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def stripped(notebook):
    """The notebook (a dict from its JSON) without outputs and run records."""
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)  # nbclient's timings
    language = notebook.get("metadata", {}).get("language_info")
    if language:
        notebook["metadata"]["language_info"] = {"name": language.get("name", "python")}
    return notebook


def committed_text(path):
    """The text the file at `path` has in its committed form."""
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    return json.dumps(stripped(notebook), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(paths):
    for path in paths or sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = committed_text(path)
        with open(path, encoding="utf-8") as f:
            changed = f.read() != text
        if changed:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print(f"{path}: {'stripped' if changed else 'already stripped'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
