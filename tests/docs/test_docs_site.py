"""The docs site builds strictly (warnings are errors) and every built page renders in headless
Chromium: main content present, no console error, every relative link and image resolving to a
built file (and anchor)."""

import html.parser
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser") if shutil.which(name)), None)

pytest.importorskip("mkdocs", reason='the docs packages are not installed: pip install -e ".[docs]"')
websocket = pytest.importorskip("websocket", reason="websocket-client is not installed (the test extra has it)")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def _pages(site):
    return sorted(
        os.path.relpath(os.path.join(folder, name), site)
        for folder, _, names in os.walk(site)
        for name in names
        if name.endswith(".html") and name != "404.html"
    )


class _Targets(html.parser.HTMLParser):
    """The page's ids and its relative <a href> and <img src> references."""

    def __init__(self):
        super().__init__()
        self.ids, self.references = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        reference = attrs.get("href") if tag == "a" else attrs.get("src") if tag == "img" else None
        if reference and not urllib.parse.urlsplit(reference).scheme and not reference.startswith("//"):
            self.references.append(reference)


def _parse(path):
    parser = _Targets()
    with open(path, encoding="utf-8") as f:
        parser.feed(f.read())
    return parser


def test_every_page_is_built(site):
    expected = {
        "index.html",
        "getting-started.html",
        "models/skim-rnn.html",
        "models/structural-jump.html",
        "models/scornn.html",
        "export-runtime.html",
        "android.html",
        "your-data.html",
        "presets.html",
        "benchmarks.html",
        "api.html",
    }
    assert expected <= set(_pages(site))


def test_relative_links_and_images_resolve(site):
    parsed = {page: _parse(os.path.join(site, page)) for page in _pages(site)}
    broken = []
    for page, parser in parsed.items():
        for reference in parser.references:
            path, _, anchor = urllib.parse.unquote(reference).partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if path.endswith("/") or os.path.isdir(os.path.join(site, target)):
                target = os.path.join(target, "index.html")
            if not os.path.isfile(os.path.join(site, target)):
                broken.append(f"{page}: {reference} (no file {target})")
            elif anchor and target in parsed and anchor not in parsed[target].ids:
                broken.append(f"{page}: {reference} (no anchor #{anchor} in {target})")
    assert not broken, "\n".join(broken)


def test_generated_figures_are_filled_in(site):
    for page in _pages(site):
        with open(os.path.join(site, page), encoding="utf-8") as f:
            text = f.read()
        # An unfilled marker would reach the page as written (HTML comments pass through Markdown).
        assert not re.search(r"\[\[results:|<!-- results-(table|files):", text), page


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _DevTools:
    """One headless Chromium page, driven through the DevTools protocol."""

    def __init__(self, port, profile):
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--allow-file-access-from-files",
                f"--user-data-dir={profile}",
                f"--remote-debugging-port={port}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.socket = websocket.create_connection(self._page_socket(port), timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def _page_socket(self, port):
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    pages = [t for t in json.load(r) if t["type"] == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.2)

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, event, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(m.get("method") == event for m in self.events):
                return
            self.events.append(json.loads(self.socket.recv()))
        raise TimeoutError(event)

    def errors(self):
        """The console errors and uncaught exceptions seen since the last call."""
        found = []
        for m in self.events:
            params = m.get("params", {})
            if m.get("method") == "Runtime.exceptionThrown":
                found.append(params["exceptionDetails"].get("text", "exception"))
            elif m.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(" ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif m.get("method") == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(f"{params['entry'].get('url', '')}: {params['entry']['text']}")
        return found

    def close(self):
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary: apt-get install -y chromium (Debian)")
def test_every_page_renders_in_chromium_without_console_errors(site, tmp_path):
    browser = _DevTools(_free_port(), tmp_path / "profile")
    problems = []
    try:
        for page in _pages(site):
            browser.events.clear()
            browser.call("Page.navigate", url=(site / page).as_uri())
            browser.wait_for("Page.loadEventFired")
            text = browser.call(
                "Runtime.evaluate",
                expression="(document.querySelector('article') || {innerText: ''}).innerText.trim().length",
                returnByValue=True,
            )["result"]["value"]
            if text < 40:
                problems.append(f"{page}: main content has {text} characters")
            problems += [f"{page}: {error}" for error in browser.errors()]
    finally:
        browser.close()
    assert not problems, "\n".join(problems)
