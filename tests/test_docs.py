"""The documentation site builds, reads offline, and its cards draw: Sphinx + MyST-NB is the second
report tool that embeds tbnb's cards (nbconvert is the first: tests/ui/test_cards.py).

The site is built once into a temporary directory with Sphinx's warnings as errors (a broken
docstring, a missing screenshot or a notebook that raises fails here), executing the notebooks of
``notebooks/``. Its pages are then opened from disk in Chromium with every request that is not a
file of the built site aborted; each card on them must draw, with no error on the page.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest
from ui.harness import CHROMIUM, CHROMIUM_ARGS, BrowserLog, in_ci, missing_requirements, own_page

REPO = Path(__file__).resolve().parents[1]
#: Pages whose notebooks display cards, and how many chart and image cards each shows at least.
CARD_PAGES = {"notebooks/report.html": {"charts": 4, "images": 1}}

#: Per drawn plotly chart of a card: its SVG, and the number of points of each of its traces.
_CHARTS_JS = """
() => Array.from(document.querySelectorAll('.tbnb-report-card .tbnb-report-chart')).map((el) => ({
  drawn: el.getAttribute('data-drawn') === '1',
  svg: el.querySelectorAll('.main-svg').length,
  points: (el._fullData || []).map((t) => (t.x ? t.x.length : 0) + (t.z ? t.z.length : 0)),
}))
"""


def _require(what: str, ok: bool) -> None:
    if ok:
        return
    if in_ci():
        pytest.fail(f"CI is set and {what} is missing (pip install -e '.[docs]')", pytrace=False)
    pytest.skip(f"{what} is not installed (pip install -e '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from this checkout, notebooks executed, warnings as errors."""
    for module in ("sphinx", "myst_nb"):
        _require(module, importlib.util.find_spec(module) is not None)
    out = tmp_path_factory.mktemp("docs") / "html"
    env = {k: v for k, v in os.environ.items() if k != "TBNB_DOCS_EXECUTION"}
    build = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
                            "-d", str(out.parent / "doctrees"), "docs", str(out)],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=900, check=False)
    warnings = [line for line in build.stderr.splitlines() if "WARNING" in line and "IPKernelApp" not in line]
    assert build.returncode == 0 and not warnings, "\n".join(warnings) or build.stderr[-4000:]
    return out


class _Links(HTMLParser):
    """Every URL a page loads by itself: scripts, styles, images, frames, media (not <a> links)."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and "stylesheet" in (values.get("rel") or "") or tag == "link" and values.get("as"):
            self.loaded.append(values.get("href") or "")
        elif tag in ("script", "img", "iframe", "audio", "video", "source", "embed") and values.get("src"):
            self.loaded.append(values["src"] or "")


def outside(url: str) -> bool:
    """Whether ``url`` points off the site (another host, or a protocol-relative URL)."""
    parts = urllib.parse.urlsplit(url.strip())
    return parts.scheme in ("http", "https", "ws", "wss") or url.strip().startswith("//")


def test_outside_is_what_leaves_the_site() -> None:
    assert outside("https://cdn.jsdelivr.net/npm/x.js") and outside("//unpkg.com/a.js")
    assert not outside("../_static/doctools.js?v=1") and not outside("data:image/png;base64,AA")


def test_the_site_has_every_page(site: Path) -> None:
    for page in ("index", "getting-started", "magic", "hosts", "reports", "remote", "api", "custom-plots",
                 "writing-a-dashboard", "dashboards/index", "dashboards/scalars", "dashboards/graphs",
                 "dashboards/projector", "dashboards/diagnostics"):
        assert (site / f"{page}.html").is_file(), page
    index = (site / "index.html").read_text(encoding="utf-8")
    for page in ("custom-plots", "writing-a-dashboard"):  # in the toctree, not orphans
        assert f'href="{page}.html"' in index, page
    notebooks = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
    assert sorted(p.stem for p in (site / "notebooks").glob("*.html")) == notebooks
    api = (site / "api.html").read_text(encoding="utf-8")
    for name in ("tbnb.load", "tbnb.show", "tbnb.Board", "tbnb.Logdir", "tbnb.card", "tbnb.watch"):
        assert f'id="{name}"' in api, f"{name} is not documented on the API page"
    assert "Read a whole logdir now" in api  # tbnb.load's docstring, rendered


def test_no_page_loads_anything_from_outside(site: Path) -> None:
    found = {}
    for page in site.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        bad = [url for url in parser.loaded if outside(url)]
        if bad:
            found[str(page.relative_to(site))] = bad
    assert not found, found


def test_boards_are_a_sentence_and_carry_no_widget_state(site: Path) -> None:
    quickstart = (site / "notebooks" / "quickstart.html").read_text(encoding="utf-8")
    assert "A live tbnb Board is drawn here" in quickstart
    assert "&lt;tbnb.Board " not in quickstart
    assert "widget-state+json" not in quickstart and "widget-view+json" not in quickstart


@pytest.fixture(scope="module")
def browser():
    missing = missing_requirements()
    _require("; ".join(missing) or "", not missing)
    from playwright.sync_api import Error, sync_playwright

    try:
        playwright = sync_playwright().start()
    except Error as err:  # Playwright's sync API runs once per thread: tests/ui's session may hold it
        pytest.skip(f"{err} (run tests/test_docs.py before tests/ui, as the whole suite does, or alone)")
    try:
        b = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
    finally:
        playwright.stop()


def card_pages(site: Path) -> list[Path]:
    """Every built page that holds a tbnb card."""
    return sorted(p for p in site.rglob("*.html") if 'class="tbnb-report-card"' in p.read_text(encoding="utf-8"))


def test_cards_draw_offline_in_chromium(site: Path, browser) -> None:
    pages = card_pages(site)
    assert {str(p.relative_to(site)) for p in pages} >= set(CARD_PAGES), pages
    for html in pages:
        check_cards_draw(site, browser, html, CARD_PAGES.get(str(html.relative_to(site)), {"charts": 0, "images": 0}))


def check_cards_draw(site: Path, browser, html: Path, want: dict[str, int]) -> None:
    """Open ``html`` from disk with every request off the site aborted: each chart card drawn by
    plotly with data, each image card's pictures decoded, nothing asked of the outside, no error."""
    body = html.read_text(encoding="utf-8")
    assert len(re.findall(r"\bplotly\.js v\d", body)) == 1, f"{html.name}: plotly.js should be inlined once"
    log = BrowserLog()
    aborted: list[str] = []
    with own_page(browser, log) as page:

        def route(r) -> None:
            url = r.request.url
            path = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
            if url.startswith("data:") or url.startswith("file:") and path.is_relative_to(site):
                r.continue_()
            else:
                aborted.append(url)
                r.abort()

        page.route("**/*", route)
        page.goto(html.as_uri(), wait_until="load")
        expected = max(want["charts"], body.count('class="tbnb-report-chart"'))
        page.wait_for_function(
            f"document.querySelectorAll('.tbnb-report-card .tbnb-report-chart .main-svg').length >= {expected}")
        charts = page.evaluate(_CHARTS_JS)
        assert len(charts) >= want["charts"], charts
        for chart in charts:
            assert chart["drawn"] and chart["svg"] >= 1, chart
            assert chart["points"] and sum(chart["points"]) > 0, chart
        images = page.evaluate("Array.from(document.querySelectorAll('.tbnb-report-card img'))"
                               ".map((i) => [i.complete, i.naturalWidth])")
        assert len(images) >= want["images"] and all(ok and width > 0 for ok, width in images), images
    assert not aborted, f"{html.name} asked for what is not on the site: {aborted}"
    assert not log.errors(), log.errors()


def test_readme_links_and_pictures_are_in_the_repository() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if not outside(t) and not t.startswith("mailto:")]
    assert local, "the README links nothing of the repository"
    missing = [t for t in local if not (REPO / t).exists()]
    assert not missing, f"the README links what is not in the repository: {missing}"
    pictures = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", readme)
    assert len(pictures) >= 8 and all(p.startswith("docs/images/") for p in pictures), pictures
    assert "OWNER" not in readme  # no Binder link with a guessed owner
    for command in ("bash .ci/run", 'pip install -e ".[demo]" && python -m tbnb demo --lab',
                    "python -m sphinx -b html docs docs/_build/html"):
        assert command in readme, command
    assert (REPO / ".ci" / "run").is_file()


def shown_pictures() -> dict[str, set[Path]]:
    """Every picture README.md and the site's Markdown pages show, by page: the files they name."""
    pages = [REPO / "README.md", *(p for p in (REPO / "docs").rglob("*.md")
                                   if "_build" not in p.parts and not p.is_relative_to(REPO / "docs" / "notebooks"))]
    shown: dict[str, set[Path]] = {}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        names = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text) + re.findall(r"<img[^>]*\ssrc=\"([^\"]+)\"", text)
        shown[str(page.relative_to(REPO))] = {(page.parent / n).resolve() for n in names if not outside(n)}
    return shown


def test_every_picture_is_made_by_the_screenshot_command() -> None:
    from ui.screenshots import OUT, SHOTS

    images = REPO / "docs" / "images"
    assert OUT.resolve() == images.resolve()
    made = {images.resolve() / f"{shot.name}.png" for shot in SHOTS}
    shown = shown_pictures()
    elsewhere = {page: sorted(str(p) for p in pictures - made) for page, pictures in shown.items() if pictures - made}
    assert not elsewhere, f"pictures that `python -m tests.ui.screenshots` does not make: {elsewhere}"
    everything_shown = set().union(*shown.values())
    assert made <= everything_shown, f"shots no page shows: {sorted(p.name for p in made - everything_shown)}"
    on_disk = {p.resolve() for p in images.iterdir()}
    assert on_disk == made, (f"in docs/images but no shot: {sorted(p.name for p in on_disk - made)}; "
                             f"a shot not committed: {sorted(p.name for p in made - on_disk)}")


def test_screenshots_are_small_real_pictures() -> None:
    from PIL import Image

    pictures = sorted((REPO / "docs" / "images").glob("*.png"))
    assert len(pictures) >= 8
    for path in pictures:
        assert path.stat().st_size < 200_000, path.name
        with Image.open(path) as image:
            width, height = image.size
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
        assert width >= 400 and height >= 200, (path.name, image.size)
        assert colours is None or len(colours) > 16, f"{path.name} is nearly blank"
