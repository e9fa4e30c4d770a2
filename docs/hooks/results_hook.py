"""The docs site's figures and tables, read from benchmarks/results/*.json when the site is built.

A page never types a measured number: it names where the number is.

- `[[results: FILE.json#KEY|SPEC]]` becomes the value at KEY (dotted, list indices as numbers,
  e.g. `rows.0.accuracy`) formatted with the Python format SPEC (`.3f`, `.1%`, ...).
- A line `<!-- results-table: FILE.json LIST COLUMN[:SPEC] ... -->` becomes a Markdown table with
  one row per item of the list at LIST (a dotted key) and one column per COLUMN (a dotted key
  inside the item), followed by the file's name, its command and, where it has one, the
  paper's numbers (`paper`).
- A line `<!-- results-files: FILE.json,FILE.json,... COLUMN[:SPEC] ... -->` becomes a table with
  one row per file (runs that wrote one file each) and its name as the first column.
- Every PNG under benchmarks/results/ is published as `results/NAME.png`.

The package's docstrings are Keras-style: related arguments are documented together
(`kernel_initializer, recurrent_initializer: ...`), continuation lines are indented by two spaces
and `Example:` blocks are not indented. Google-style parsing (griffe) warns about those forms, and
`mkdocs build --strict` would fail on them, so `on_config` lowers exactly those messages, and
cross-reference misses inside a docstring's doctest, to INFO. Every other warning still fails the
build.

README.md quotes figures as text (it is read on a code host, not built): there each figure is
followed by `<!-- results: FILE.json#KEY|SPEC -->`, and tests/docs/test_results_figures.py
checks that the text before the marker ends with the formatted value (`readme_figures`).
A missing file or key stops the build with one line naming it.
"""

import json
import logging
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "benchmarks", "results")

FIGURE = re.compile(r"\[\[results:\s*([^#\]\s]+)#([^|\]\s]+)\|([^\]]*)\]\]")
TABLE = re.compile(r"^<!-- results-table: (.+?) -->$", flags=re.M)
FILES_TABLE = re.compile(r"^<!-- results-files: (.+?) -->$", flags=re.M)
README_MARKER = re.compile(r"<!-- results: ([^#\s]+)#(\S+?)\|(\S*) -->")


class ResultsError(Exception):
    """A reference to a results file that does not hold what it names."""


def load(name):
    """The parsed JSON of benchmarks/results/NAME (NAME ends in .json)."""
    path = os.path.join(RESULTS, name)
    if not name.endswith(".json") or not os.path.isfile(path):
        raise ResultsError(f"no results file benchmarks/results/{name}")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def lookup(document, key, name=""):
    """The value at the dotted KEY of DOCUMENT (numbers index lists)."""
    value = document
    for part in key.split("."):
        try:
            value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise ResultsError(f"benchmarks/results/{name} has no {key!r} (stopped at {part!r})") from None
    return value


def figure(name, key, spec):
    """The text of one figure: the value at KEY of results file NAME, formatted by SPEC."""
    value = lookup(load(name), key, name)
    return format(value, spec) if spec else str(value)


def _cell(value, spec):
    if value is None or value is _ABSENT:
        return "-"
    text = format(value, spec) if spec and isinstance(value, (int, float)) else str(value)
    return text.replace("|", "\\|")


def _markdown_table(header, rows):
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(row) + " |" for row in rows
    ]


def _columns(columns, name):
    if not columns:
        raise ResultsError(f"benchmarks/results/{name}: a table names no columns")
    return [column.partition(":") for column in columns]


_ABSENT = object()


def _value(item, key, name):
    try:
        return lookup(item, key, name)
    except ResultsError:
        return _ABSENT


def _values(item, keys, name):
    return [_cell(_value(item, key, name), spec) for key, _, spec in keys]


def _check_columns(items, keys, name):
    """Rows of one run may differ (an LSTM row has no read fraction), but a column that no row has is a typo."""
    for key, _, _ in keys:
        if all(_value(item, key, name) is _ABSENT for item in items):
            raise ResultsError(f"benchmarks/results/{name}: no row has {key!r}")


def table(reference):
    """The Markdown of one `results-table` reference (see the module docstring)."""
    name, rows_key, *columns = reference.split()
    document = load(name)
    rows = lookup(document, rows_key, name)
    if not isinstance(rows, list):
        raise ResultsError(f"benchmarks/results/{name}: {rows_key!r} is not a list")
    keys = _columns(columns, name)
    _check_columns(rows, keys, name)
    lines = _markdown_table([key for key, _, _ in keys], [_values(row, keys, name) for row in rows])
    lines += ["", f"From `benchmarks/results/{name}`" + _command(document) + "."]
    if isinstance(document, dict) and document.get("paper"):
        lines += ["", f"The paper: {_paper(document['paper'])}."]
    return "\n".join(lines)


def files_table(reference):
    """The Markdown of one `results-files` reference: a row per file."""
    names, *columns = reference.split()
    names = names.split(",")
    keys = _columns(columns, names[0])
    for name in names:
        _check_columns([load(name)], keys, name)
    rows = [[f"`{name}`", *_values(load(name), keys, name)] for name in names]
    return "\n".join(_markdown_table(["file", *(key for key, _, _ in keys)], rows))


def _command(document):
    command = document.get("command") if isinstance(document, dict) else None
    return f", written by `{command}`" if isinstance(command, str) else ""


def _paper(paper):
    if isinstance(paper, dict):
        return "; ".join(f"{key} {value}" for key, value in paper.items())
    return str(paper)


def render(markdown):
    """MARKDOWN with its figure and table references replaced by the results."""
    markdown = TABLE.sub(lambda m: table(m.group(1)), markdown)
    markdown = FILES_TABLE.sub(lambda m: files_table(m.group(1)), markdown)
    return FIGURE.sub(lambda m: figure(*m.groups()), markdown)


def readme_figures(text):
    """(marker, expected text, whether the text before the marker ends with it) per README marker."""
    checks = []
    for match in README_MARKER.finditer(text):
        expected = figure(*match.groups())
        checks.append((match.group(0), expected, text[: match.start()].endswith(expected)))
    return checks


_KERAS_DOCSTRING_FORMS = (
    "Failed to get 'name: description' pair",
    "Confusing indentation for continuation line",
)


class _KerasDocstringForms(logging.Filter):
    """Turns the parser's warnings about Keras' docstring layout into INFO records."""

    def filter(self, record):
        message = record.getMessage()
        keras_form = any(form in message for form in _KERAS_DOCSTRING_FORMS)
        doctest_reference = "Could not find cross-reference target" in message and ".py:" in message
        if record.levelno == logging.WARNING and (keras_form or doctest_reference):
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def on_config(config):
    """MkDocs hook: installs the docstring-layout filter on the handlers of MkDocs' logger, which
    count the warnings of every plugin's logger below it."""
    for handler in logging.getLogger("mkdocs").handlers:
        if not any(isinstance(f, _KerasDocstringForms) for f in handler.filters):
            handler.addFilter(_KerasDocstringForms())
    return config


def on_page_markdown(markdown, page, config, files):
    """MkDocs hook: fills in the page's figures and tables; a bad reference fails the build."""
    from mkdocs.exceptions import PluginError

    try:
        return render(markdown)
    except ResultsError as err:
        raise PluginError(f"{page.file.src_uri}: {err}") from None


def on_files(files, config):
    """MkDocs hook: publishes the committed result plots under results/."""
    from mkdocs.structure.files import File

    for name in sorted(os.listdir(RESULTS)):
        if name.endswith(".png"):
            files.append(File.generated(config, f"results/{name}", abs_src_path=os.path.join(RESULTS, name)))
    return files
