"""A hostile viewer of two Boards served by Voilà in one kernel (issue 33: the page is untrusted).

From the page, as anyone viewing it could from the browser console, the test opens its own
connection to the page's kernel and writes through the widget protocol what the page's code
never would, all into the first Board (the victim): catastrophic regexes into each of its regex
traits and requests, refused and over-long regexes, 10 MB strings in requests, malformed requests (wrong types, no id,
huge ``k`` and sizes, negative sizes, nesting 500 deep, unknown types, non-objects, a path out of
the logdir). Meanwhile the test writes a point to the second Board's logdir every 0.3 s.

Asserted: after every hostile message the kernel answers a shell request and the second Board a
request within a second; the second Board's page draws the new points as they come; the victim
answers each malformed request with an error, keeps none of the refused values, and still
answers a plain request. The victim's run name ``x`` * 30 makes ``(x+x+)+y`` backtrack for hours
in Python's ``re`` (3^n): with the old matching the kernel stops answering (seen: no answer in
30 s after run_groups=(x+x+)+y, which the page sends in its series requests).

The page's own run selector still matches these patterns with the browser's engine (js runs.js,
run_groups.js): Chromium is started with V8's linear fallback for patterns that backtrack too
much, so that the viewer's own tab (here the test's only view of the witness) does not spend
tens of seconds matching (without it one run took 71 s instead of 30; the kernel's answers were
the same); ``(.*a){25}``, which the fallback cannot take, meets no name with an ``a`` there.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tbnb.testing import EventWriter

from .harness import BrowserLog
from .host_apps import (
    LIVE_DEADLINE,
    charts,
    host_env,
    require_module,
    serving,
    wait_for_last_step,
    write_loss,
)
from .viewer_channel import Viewer, own_chromium, watchdog

pytestmark = pytest.mark.ui

EVIL_RUN = "x" * 30
PATTERNS = ["(a+)+$", "(x+x+)+y", "(.*a){25}"]
REFUSED = ["(?=x)y", r"(x)\1"]  # lookahead, backreference: RE2 has neither
#: Every regex trait of a Board (widget.py, run_visibility.py, the run groups', graphs' and
#: projector's Traits), with the form its value takes.
REGEX_TRAITS = {"runs": "list", "hidden_patterns": "list", "run_groups": "group", "tag_filter": "text",
                "graph_search": "text", "projector_search": "text"}
#: The regex traits' plain values: every run shown, nothing grouped, hidden or searched.
PLAIN = {"runs": [".*"], "hidden_patterns": [], "run_groups": None, "tag_filter": "", "graph_search": "",
         "projector_search": ""}
#: A reply awaited longer than this counts as a stalled kernel (milliseconds): the page may be
#: slow to take it (its own filters work on what the kernel echoes), so the wait is long and the
#: time is judged by the kernel's own clock against ANSWER_MS.
PROBE_MS = 30_000
#: What the kernel must answer within after each hostile message, by the reply's header date
#: (milliseconds).
ANSWER_MS = 1_000
#: A pattern over the kernel's bound (reader/user_regex.py, MAX_PATTERN_CHARS). A 10 MB trait
#: value would be echoed by ipywidgets to every view before the kernel checks it, and the page's
#: own filters would then compile it: that tests the browser, not the kernel, so the 10 MB
#: strings go in requests, which are not echoed.
LONG = "x" * 100_001
#: Seconds between two points written to the witness's logdir.
WRITE_EVERY = 0.3
#: Seconds after which the test's browser is killed (a page stuck in JavaScript).
WATCHDOG = 420.0
V8_FLAGS = "--enable-experimental-regexp-engine-on-excessive-backtracks"

CELLS = ["import os\nimport tbnb",
         "victim = tbnb.show(os.environ['VICTIM_LOGDIR'], reload_interval=0.5, card_width=401)",
         "witness = tbnb.show(os.environ['WITNESS_LOGDIR'], reload_interval=0.5, card_width=402)"]


def write_notebook(path: Path) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, str(path))


def trait_value(form: str, pattern: str) -> Any:
    return {"list": [pattern], "group": f"(?P<group>{pattern})", "text": pattern}[form]


def hostile_updates() -> list[tuple[str, dict]]:
    """(label, state) of the trait updates: every pattern into each regex trait in turn, the
    others plain (so that the victim's runs are shown and the kernel matches the pattern against
    them), then refused patterns and oversized values (the last accepted state must stay)."""
    out = [(f"{trait}={pattern}", {**PLAIN, trait: trait_value(form, pattern)})
           for pattern in PATTERNS for trait, form in REGEX_TRAITS.items()]
    out += [(f"{trait}={pattern} (refused)", {trait: trait_value(form, pattern)})
            for pattern in REFUSED for trait, form in REGEX_TRAITS.items() if trait != "tag_filter"]
    out += [("runs=[100,001 characters]", {"runs": [LONG]}), ("graph_search=100,001 characters", {"graph_search": LONG}),
            ("runs=5", {"runs": 5}), ("hidden_patterns={}", {"hidden_patterns": {"a": 1}}),
            ("card_width=1e30", {"card_width": 10 ** 30}), ("smoothing='NaN'", {"smoothing": "NaN"}),
            ("unknown trait", {"no_such_trait": [1, 2]}), ("deep trait", {"run_colors": "@DEEP@"})]
    return out


def hostile_requests() -> list[tuple[str, Any, bool]]:
    """(label, content, error expected) of the custom messages; each content with an int id
    (the victim's reply names it); the others are answered by an error of id null."""
    out: list[tuple[str, Any, bool]] = []
    for pattern in PATTERNS:
        group = {"by": f"(?P<group>{pattern})", "line": "mean", "band": "std"}
        out += [(f"series grouped by {pattern}", {"type": "series", "tag": "loss", "runs": [EVIL_RUN, "b"],
                                                  "width": 300, "x_axis": "step", "groups": group}, False),
                (f"step_table grouped by {pattern}", {"type": "step_table", "tag": "loss",
                                                      "runs": [EVIL_RUN, "b"], "groups": group}, False),
                (f"graph search {pattern}", {"type": "graph", "run": EVIL_RUN, "tag": "", "what": "search",
                                             "pattern": pattern}, True)]
    out += [("10 MB tag", {"type": "series", "tag": "@BIG@", "runs": ["b"], "width": 300}, True),
            ("10 MB run", {"type": "series", "tag": "loss", "runs": ["b", "@BIG@"], "width": 300}, True),
            ("10 MB pattern", {"type": "series", "tag": "loss", "runs": ["b"], "width": 300,
                               "groups": {"by": "@BIG@", "line": "mean", "band": "std"}}, True),
            ("200,001 runs", {"type": "series", "tag": "loss", "runs": ["b"] * 200_001, "width": 300}, True),
            ("width 1e30", {"type": "series", "tag": "loss", "runs": ["b"], "width": 10 ** 30}, True),
            ("negative width", {"type": "series", "tag": "loss", "runs": ["b"], "width": -5}, True),
            ("k 1e12", {"type": "projector_neighbors", "run": "b", "embedding": "e", "index": 0, "k": 10 ** 12}, True),
            ("negative k", {"type": "projector_neighbors", "run": "b", "embedding": "e", "index": 0, "k": -5}, True),
            ("path out of the logdir", {"type": "projector_neighbors", "run": "../../..", "embedding": "e",
                                        "index": 0, "k": 5}, True),
            ("wrong types", {"type": "series", "tag": 5, "runs": "b", "width": "wide", "x_axis": []}, True),
            ("nested 500 deep", {"type": "series", "tag": "loss", "runs": "@DEEP@", "width": 300}, True),
            ("unknown type", {"type": "no_such_request"}, True),
            ("dunder type", {"type": "__init__"}, True),
            ("path as type", {"type": "../../etc/passwd"}, True)]
    out = [(label, {**content, "id": 9000 + i}, error) for i, (label, content, error) in enumerate(out)]
    out += [("no id", {"type": "series", "tag": "loss", "runs": ["b"], "width": 300}, True),
            ("a string", "not an object", True), ("a list", [1, 2, 3], True), ("null", None, True),
            ("a number", 12, True)]
    return out


#: A plain request of the victim's runs: the kernel matches its run traits against both names.
SHOWN = {"type": "series", "id": 8000, "tag": "loss", "runs": [EVIL_RUN, "b"], "width": 300, "x_axis": "step"}


def reply_to(content: Any) -> str:
    """JS predicate of the victim's reply to ``content``: its id, or an error of id null."""
    if isinstance(content, dict) and isinstance(content.get("id"), int):
        return f"(d) => d.method === 'custom' && d.content && d.content.id === {content['id']}"
    return "(d) => d.method === 'custom' && d.content && d.content.type === 'error' && d.content.id == null"


def write_acc(run_dir: Path, steps: range) -> None:
    """``acc`` at ``steps`` in a new event file of ``run_dir``."""
    with EventWriter(run_dir) as writer:
        for step in steps:
            writer.add_scalar("acc", step / 1000, step)


class Writer(threading.Thread):
    """Appends a point of ``acc`` to the witness's run every WRITE_EVERY seconds."""

    def __init__(self, run_dir: Path, first: int) -> None:
        super().__init__(daemon=True)
        self.run_dir, self.last = run_dir, first - 1
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(WRITE_EVERY):
            write_acc(self.run_dir, range(self.last + 1, self.last + 2))
            self.last += 1


def witness_step(page) -> int | None:
    """The last step the page draws of the witness's run."""
    for chart in charts(page):
        for trace in chart["traces"]:
            if chart["tag"] == "acc" and trace["name"] == "w" and trace["x"]:
                return trace["x"][-1]
    return None


def test_a_hostile_viewer_stalls_neither_the_kernel_nor_the_other_board(_playwright, tmp_path: Path) -> None:
    require_module("voila", "voila")
    victim, witness = tmp_path / "victim", tmp_path / "witness"
    for run in (EVIL_RUN, "b"):
        write_loss(victim / run, range(5))
    write_acc(witness / "w", range(10))
    write_notebook(tmp_path / "two.ipynb")
    command = ["voila", "two.ipynb", "--no-browser", "--port={port}", "--Voila.ip=127.0.0.1", "--show_tracebacks=True"]
    env = host_env(VICTIM_LOGDIR=str(victim), WITNESS_LOGDIR=str(witness))
    log = BrowserLog()
    writer = Writer(witness / "w", 10)
    with serving("voila", command, tmp_path, env) as server, \
            own_chromium(_playwright, tmp_path / "chromium", V8_FLAGS) as (browser, pgid), \
            watchdog(pgid, WATCHDOG) as killed:
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            log.attach(page)
            page.goto(server.url, timeout=90_000)
            wait_for_last_step(page, "acc", "w", 9, timeout=90)
            _attack(page, writer)
        except Exception as err:
            if killed.is_set():
                raise AssertionError(f"the page stopped answering: its browser was killed after {WATCHDOG:.0f} s "
                                     f"({type(err).__name__}); server log:\n{server.log_tail()}") from err
            raise
        finally:
            writer.stop.set()


def _attack(page, writer: Writer) -> None:
    viewer = Viewer(page, PROBE_MS)
    boards = {state.get("card_width"): comm for comm, state in viewer.widget_states().items()}
    assert {401, 402} <= set(boards), f"the two Boards are not among the kernel's widgets: {boards}"
    victim, witness = boards[401], boards[402]
    latencies: list[tuple[str, float, float, float]] = []  # after what: kernel_info, witness (kernel, page) ms
    drawn: list[int | None] = []
    totals: list[int] = []
    probe_id = 0

    def probe(after: str) -> None:
        nonlocal probe_id
        probe_id += 1
        shell = viewer.shell("kernel_info_request", {})
        assert shell is not None, f"the kernel did not answer within {PROBE_MS} ms after {after}: {latencies[-5:]}"
        got = viewer.comm(witness, {"method": "custom", "content": {
            "type": "series", "id": probe_id, "tag": "acc", "runs": ["w"], "width": 300, "x_axis": "step"}},
            f"(d) => d.method === 'custom' && d.content && d.content.id === {probe_id}")
        assert got is not None, (f"the witness did not answer within {PROBE_MS} ms after {after}: {latencies[-5:]}; "
                                 f"received last: {viewer.recent()}")
        assert got["data"]["content"]["type"] == "series", got["data"]["content"]
        latencies.append((after, shell["kernelMs"], got["kernelMs"], max(shell["ms"], got["ms"])))
        totals.append(got["data"]["content"]["series"][0]["total"])
        drawn.append(witness_step(page))

    writer.start()
    probe("nothing")
    for label, state in hostile_updates():
        viewer.comm(victim, {"method": "update", "state": state, "buffer_paths": []})
        shown = viewer.comm(victim, {"method": "custom", "content": SHOWN}, reply_to(SHOWN))  # runs matched now
        assert shown is not None, f"the victim did not answer a series request within {PROBE_MS} ms after {label}"
        probe(label)
    errors = []
    for label, content, error in hostile_requests():
        got = viewer.comm(victim, {"method": "custom", "content": content}, reply_to(content))
        assert got is not None, f"the victim did not answer {label} within {PROBE_MS} ms"
        reply = got["data"]["content"]
        assert (reply["type"] == "error") == error, (label, reply.get("message", reply["type"]))
        errors += [reply["message"]] if error else []
        probe(label)

    writer.stop.set()
    writer.join(5)
    worst = {what: max(latencies, key=lambda x: x[i]) for i, what in ((1, "kernel_info"), (2, "witness"), (3, "page"))}
    print(f"{len(latencies)} probes; worst, as the kernel answered: kernel_info {worst['kernel_info'][1]:.0f} ms "
          f"(after {worst['kernel_info'][0]}), witness request {worst['witness'][2]:.0f} ms (after "
          f"{worst['witness'][0]}); as the page got it: {worst['page'][3]:.0f} ms (after {worst['page'][0]}); "
          f"witness points {totals[0]} -> {totals[-1]}, drawn steps {drawn[0]} -> {drawn[-1]}; "
          f"{len(errors)} error replies")
    assert worst["kernel_info"][1] < ANSWER_MS and worst["witness"][2] < ANSWER_MS, worst
    last = writer.last
    wait_for_last_step(page, "acc", "w", last, timeout=LIVE_DEADLINE)
    state = viewer.widget_states()[victim]
    last_trait, form = list(REGEX_TRAITS.items())[-1]  # the last accepted state stays; nothing refused got in
    assert {t: state[t] for t in PLAIN} == {**PLAIN, last_trait: trait_value(form, PATTERNS[-1])}
    viewer.comm(victim, {"method": "update", "buffer_paths": [], "state": PLAIN})
    plain = viewer.comm(victim, {"method": "custom", "content": {"type": "series", "id": 1, "tag": "loss",
                                                                 "runs": ["b", EVIL_RUN], "width": 300}},
                        "(d) => d.method === 'custom' && d.content && d.content.id === 1")
    assert plain is not None and plain["data"]["content"]["type"] == "series", plain
    assert sorted(s["run"] for s in plain["data"]["content"]["series"]) == sorted(["b", EVIL_RUN])

    assert len(errors) == sum(error for _, _, error in hostile_requests()), errors
    steps = [d for d in drawn if d is not None]
    assert len(set(steps)) >= 5 and steps == sorted(steps), f"the witness's page drew no new points: {drawn}"
    assert totals == sorted(totals) and totals[-1] > totals[0], totals
