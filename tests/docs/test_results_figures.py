"""Every figure README.md quotes is followed by `<!-- results: FILE.json#KEY|SPEC -->` and equals the
value in that committed results file (docs/hooks/results_hook.py reads it the same way the docs
site's build does)."""

import glob
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _hook():
    spec = importlib.util.spec_from_file_location(
        "results_hook", os.path.join(ROOT, "docs", "hooks", "results_hook.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_each_readme_figure_matches_its_results_file():
    checks = _hook().readme_figures(_readme())
    assert len(checks) >= 4
    wrong = [f"{marker}: the README should say {expected}" for marker, expected, ok in checks if not ok]
    assert not wrong, "\n".join(wrong)


def test_a_changed_figure_is_caught():
    text = _readme()
    first = re.search(r"(\d+\.\d+)<!-- results:", text)  # the first marked decimal figure, whatever it is
    text = text[: first.start(1)] + "9.999" + text[first.end(1) :]
    assert [ok for _, _, ok in _hook().readme_figures(text)].count(False) == 1


def test_the_readme_quotes_no_unmarked_measurement():
    """Outside code blocks, a number with a measurement's unit (%, x, us, s) carries a marker."""
    prose = re.sub(r"```.*?```", "", _readme(), flags=re.S)
    prose = re.sub(r"<!-- results: .*? -->", "", prose)
    unmarked = re.findall(r"\b\d+(?:\.\d+)?(?:%|x\b| ?us\b| s\b)", prose)
    marked = re.findall(r"(\d+(?:\.\d+)?%?)<!-- results:", _readme())
    assert len(unmarked) <= len(marked) and all(any(m.startswith(u.rstrip("x")) for m in marked) for u in unmarked), (
        unmarked
    )


def test_a_page_with_a_bad_reference_fails():
    hook = _hook()
    try:
        hook.render("[[results: tradeoff_demo_rotten_tomatoes.json#panels.0.nothing|.3f]]")
    except hook.ResultsError as err:
        assert "panels.0.nothing" in str(err)
    else:
        raise AssertionError("a missing key was accepted")


def _results_text():
    """Every committed results report and record, as one text."""
    patterns = ("benchmarks/results/**/*.json", "benchmarks/results/**/*.md", "benchmarks/**/*.md")
    paths = sorted({p for pattern in patterns for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)})
    texts = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            texts.append(f.read())
    return "\n".join(texts)


def _prose(path):
    """The page without code, inline code and the figures the build fills in (those are exact)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for pattern in (r"```.*?```", r"\[\[results:.*?\]\]", r"<!--.*?-->", r"`[^`\n]*`"):
        text = re.sub(pattern, "", text, flags=re.S)
    return text


def test_every_decimal_figure_in_the_docs_prose_is_in_a_results_file():
    """The prose the README handed over to the docs quotes its reports by name; each of its decimal
    figures must at least occur in a committed results file, as written or, for a percentage, as the
    fraction a JSON record holds (86.72% -> 0.8672). A figure typed from memory fails here."""
    corpus = _results_text()
    missing = []
    for path in sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)):
        for match in re.finditer(r"(?<![\w.])(\d+\.\d+)(%?)", _prose(path)):
            number, percent = match.groups()
            fraction = f"{float(number) / 100:.{len(number.split('.')[1]) + 2}f}" if percent else None
            if number not in corpus and (fraction is None or fraction not in corpus):
                missing.append(f"{os.path.relpath(path, ROOT)}: {match.group(0)}")
    assert not missing, "\n".join(missing)
