"""Medians, targets and the printed table of the Board benchmark: one row per figure, one column
per repetition, then the median."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..measure import median
from ..report import Target
from . import e2e_report

#: Charts drawn outside the viewport before any scrolling: "0 or few".
FEW = 2


def _len(v: list[Any] | None) -> int | None:
    return None if v is None else len(v)


def _first_draw_row(f: dict[str, Any], runs: int) -> dict[str, Any]:
    tl = f["timeline"]
    replies = tl["series_replies"]
    reacts = [c["dt"] for c in f["plotly_calls"] if c["fn"] == "react"]
    settled = f.get("settled") or f["at_done"]
    visible, drawn = set(settled["visible"]), set(settled["drawn"])
    return {
        "ms": f["ms"], "root_ms": f["root_ms"], "cards_ms": f["cards_ms"],
        "index_reply_ms": tl["index_reply"], "plotly_reply_ms": tl["plotly_reply"],
        "plotly_defined_ms": f["plotly_defined_ms"],
        "first_series_ms": min((r["t"] for r in replies), default=None),
        "last_series_ms": max((r["t"] for r in replies), default=None),
        "series_round_trip_ms": median([r["round_trip_ms"] for r in replies]),
        "series_requests": tl["series_requests"],
        "first_chart_ms": f["first_chart_ms"],
        "reacts": len(reacts), "react_ms_sum": sum(reacts) if reacts else None, "react_ms_median": median(reacts),
        "cards": f["at_done"]["cards"], "visible": len(f["at_done"]["visible"]),
        "in_scroller": len(f["at_done"]["inScroller"]), "drawn_at_done": len(f["at_done"]["drawn"]),
        "drawn_outside_viewport": len(drawn - visible),
        "drawn_outside_scroller": len(drawn - set(settled["inScroller"])),
        "columns": f["at_done"]["columns"],
    }


def _smoothing_rows(sm: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    prev = 0.6
    for p in sm["positions"]:
        per_card = [p["doneAt"].get(tag) for tag in p["cards"]]
        out[f"{prev:g} -> {p['value']:g}"] = {"ms": p["allAt"], "per_card": per_card, "frames": p["framesAtDone"],
                                            "cards": len(p["cards"])}
        prev = p["value"]
    calls = [c for c in sm["plotly_calls"] if c["fn"] in ("update", "react", "animate")]
    drag_start = sm["drag"]["t0"] - sm["drag"]["dragMs"]
    windows = {"drag": (drag_start, sm["drag"]["t0"]),
               "mouse_drag": (sm["drag"]["t0"] + 1e-6, sm["mouse_drag"]["t0"])}
    for key, label in (("drag", "drag"), ("mouse_drag", "mouse drag")):
        d = sm[key]
        lo, hi = windows[key]
        inputs = [i for i in d["inputs"] if lo <= i["t"] <= hi]
        # Redraws of each visible card between the drag's first and last input event.
        during = [sum(1 for c in calls if c["tag"] == tag and inputs and inputs[0]["t"] <= c["t0"] < inputs[-1]["t"])
                  for tag in d["cards"]]
        out[label] = {"ms": d["allAt"], "per_card": [d["doneAt"].get(tag) for tag in d["cards"]],
                      "frames": d["framesAtDone"], "cards": len(d["cards"]), "inputs": len(inputs),
                      "drag_ms": inputs[-1]["t"] - inputs[0]["t"] if inputs else None,
                      "redraws_during": during, "target": d["target"]}
    return out


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """Per-repetition rows and their medians (the Board's own figures only when measured)."""
    e2e = e2e_report.summarise(raw)
    if not raw["reps"]:
        return {"e2e": e2e, "board": None, "errors": (e2e or {}).get("errors", []), "off_loopback": []}
    return {"e2e": e2e, "board": _summarise_board(raw)}


def _summarise_board(raw: dict[str, Any]) -> dict[str, Any]:
    runs = raw["dataset"]["params"]["runs"]
    reps = raw["reps"]
    first = [_first_draw_row(r["first"], runs) for r in reps]
    rerun = [_first_draw_row({**r["rerun"], "settled": None}, runs) for r in reps]
    smoothing = [_smoothing_rows(r["smoothing"]) for r in reps]
    # A smoothing change restyles the smoothed lines (animate), a later axis fit is an update.
    updates = [[c["dt"] for c in r["smoothing"]["plotly_calls"] if c["fn"] == "animate"] for r in reps]
    fits = [[c["dt"] for c in r["smoothing"]["plotly_calls"] if c["fn"] == "update"] for r in reps]
    wire = [r["first"]["wire"] for r in reps]
    series = [[s for s in w["series_replies"]] for w in wire]
    per_rep: dict[str, list[Any]] = {
        "first_ms": [f["ms"] for f in first],
        "rerun_ms": [f["ms"] for f in rerun],
        "plotly_eval_floor_ms": [r["plotly_floor"]["ms"] for r in reps],
        "scroll_page_ms": [r["scroll"]["page"]["ms"] for r in reps],
        "scroll_end_ms": [r["scroll"]["end"]["ms"] for r in reps],
        "update_ms_median": [median(u) for u in updates],
        "update_ms_max": [max(u) if u else None for u in updates],
        "fit_ms_median": [median(u) for u in fits],
        "series_reply_bytes": [median([s["bytes"] for s in ss]) for ss in series],
        "series_reply_points": [median([s["points"] for s in ss]) for ss in series],
        "recv_bytes_first_draw": [w["recv_bytes"] for w in wire],
        "plotly_bytes": [r["first"]["timeline"]["plotly_bytes"] for r in reps],
        "heap_before_mb": [r["heap_before"]["heap_used_mb"] for r in reps],
        "heap_after_draw_mb": [r["heap_after_draw"]["heap_used_mb"] for r in reps],
        "heap_end_mb": [r["heap_end"]["heap_used_mb"] for r in reps],
        "kernel_rss_before_mb": [r["kernel_rss_before_mb"] for r in reps],
        "kernel_rss_mb": [r["kernel_rss_mb"] for r in reps],
        "kernel_rss_after_rerun_mb": [r["kernel_rss_after_rerun_mb"] for r in reps],
    }
    for key in first[0]:
        per_rep[f"first.{key}"] = [f[key] for f in first]
    for key in ("plotly_reply_ms", "plotly_defined_ms", "first_series_ms", "last_series_ms", "react_ms_sum"):
        per_rep[f"rerun.{key}"] = [f[key] for f in rerun]
    labels = list(smoothing[0])
    for label in labels:
        per_rep[f"smoothing.{label}.ms"] = [s[label]["ms"] for s in smoothing]
        per_rep[f"smoothing.{label}.frames"] = [s[label]["frames"] for s in smoothing]
        if "inputs" in smoothing[0][label]:
            per_rep[f"smoothing.{label}.inputs"] = [s[label]["inputs"] for s in smoothing]
            per_rep[f"smoothing.{label}.drag_ms"] = [s[label]["drag_ms"] for s in smoothing]
            for i in range(max(len(s[label]["redraws_during"]) for s in smoothing)):
                per_rep[f"smoothing.{label}.during{i + 1}"] = [
                    s[label]["redraws_during"][i] if i < len(s[label]["redraws_during"]) else None for s in smoothing]
        width = max(len(s[label]["per_card"]) for s in smoothing)
        for i in range(width):
            per_rep[f"smoothing.{label}.card{i + 1}"] = [
                s[label]["per_card"][i] if i < len(s[label]["per_card"]) else None for s in smoothing]
    medians = {k: median(v) for k, v in per_rep.items()}
    worst = max(labels[:-2], key=lambda lb: medians[f"smoothing.{lb}.ms"] or 0.0)
    saved = {("on" if s["save_widget_state"] else "off"): s for s in raw["saved"]}
    heap_delta = [a - b for a, b in zip(per_rep["heap_after_draw_mb"], per_rep["heap_before_mb"])]
    return {
        "per_rep": per_rep, "median": medians, "smoothing_labels": labels, "smoothing_worst": worst,
        "heap_delta_mb": median(heap_delta), "saved": saved,
        "boards_alive_after_rerun": [r.get("boards_alive_after_rerun") for r in reps],
        "errors": sorted({e for r in reps for e in r["errors"]} | {e for s in raw["saved"] for e in s["errors"]}),
        "off_loopback": [r["off_loopback"] for r in reps if r["off_loopback"]],
    }


def targets(full: dict[str, Any]) -> list[Target]:
    out = e2e_report.targets(full["e2e"])
    if full["board"] is not None:
        out += _board_targets(full["board"])
    return out


def _board_targets(summary: dict[str, Any]) -> list[Target]:
    m = summary["median"]
    worst = summary["smoothing_worst"]
    out = [
        Target("time to first draw after the show cell (ms)", m["first_ms"], "<=", 2000.0,
               note=f"plotly.min.js alone takes {m['plotly_eval_floor_ms']:.0f} ms to run in an empty page"
               if m["plotly_eval_floor_ms"] else ""),
        Target("charts drawn outside the viewport before scrolling", m["first.drawn_outside_viewport"], "<=", FEW,
               note=f"{m['first.drawn_outside_scroller']:g} outside the Board's own scroll area"),
        Target(f"smoothing redraw, all visible cards, worst position ({worst}) (ms)",
               m[f"smoothing.{worst}.ms"], "<=", 100.0),
    ]
    for label in ("off", "on"):
        s = summary["saved"].get(label)
        t = Target(f"saved notebook, 3 Boards, widget state {label} (bytes)", s and s["bytes"], "<=", 1_000_000.0)
        if s is None:
            t.status, t.note = "SKIP", "not measured"
        out.append(t)
    return out


def _fmt(v: Any, spec: str = ".0f") -> str:
    if v is None:
        return "n/a"
    if isinstance(v, (list, tuple)):
        return "/".join(_fmt(x, spec) for x in v)
    return format(v, spec)


def format_report(full: dict[str, Any], goals: list[Target], meta: dict[str, Any]) -> str:
    summary = full["board"] or {"per_rep": {}, "median": {}}
    per, med = summary["per_rep"], summary["median"]
    n = meta["repeat"]
    head = ["figure"] + [f"rep {i + 1}" for i in range(n)] + ["median"]
    rows: list[list[str]] = [head]

    def section(title: str) -> None:
        rows.append([title] + [""] * (n + 1))

    def row(label: str, key: str, spec: str = ".0f", scale: float = 1.0) -> None:
        vals = per[key]
        cell = lambda v: _fmt(None if v is None else v * scale, spec)
        rows.append([label] + [cell(v) for v in vals] + [cell(med[key])])

    section("end to end, ms from the user's command (the load included)")
    for label, vals, m, spec in e2e_report.rows(full["e2e"]):
        rows.append([label] + [_fmt(v, spec) for v in vals] + [_fmt(m, spec)])
    if full["board"] is not None:
        _board_rows(summary, section, row)
    return _finish(rows, head, full, goals, meta)


def _board_rows(summary: dict[str, Any], section: Any, row: Any) -> None:
    """The Board's own figures (after the show cell's idle, slider, scrolling, wire, memory)."""
    per = summary["per_rep"]
    section("first draw, ms after the show cell's kernel idle")
    row("  every visible card drawn (all runs)", "first_ms")
    row("  Board root in the page", "first.root_ms")
    row("  index reply", "first.index_reply_ms")
    row("  plotly.js reply received", "first.plotly_reply_ms")
    row("  Plotly defined (script ran)", "first.plotly_defined_ms")
    row("  first series reply", "first.first_series_ms")
    row("  last series reply", "first.last_series_ms")
    row("  series round trip, median", "first.series_round_trip_ms")
    row("  first chart drawn", "first.first_chart_ms")
    row("  Plotly.react calls", "first.reacts")
    row("  Plotly.react per card, median", "first.react_ms_median")
    row("  Plotly.react, sum", "first.react_ms_sum")
    row("plotly.min.js run in an empty page, ms", "plotly_eval_floor_ms")
    row("show cell again (plotly.js on the page), ms", "rerun_ms")
    row("  its first series reply", "rerun.first_series_ms")
    row("  its last series reply", "rerun.last_series_ms")
    row("  its Plotly.react, sum", "rerun.react_ms_sum")
    section("cards")
    row("  total", "first.cards")
    row("  columns", "first.columns")
    row("  visible when drawn", "first.visible")
    row("  in the Board's scroll area", "first.in_scroller")
    row("  charts drawn outside the viewport", "first.drawn_outside_viewport")
    row("  charts drawn outside the scroll area", "first.drawn_outside_scroller")
    row("  series requests before first draw", "first.series_requests")
    section("scrolling the cards, ms until the new visible cards are drawn")
    row("  one screen down", "scroll_page_ms")
    row("  to the end", "scroll_end_ms")
    section("smoothing slider, ms until every visible card shows the value")
    for label in summary["smoothing_labels"]:
        row(f"  {label}", f"smoothing.{label}.ms")
        i = 1
        while f"smoothing.{label}.card{i}" in per:
            row(f"    card {i}", f"smoothing.{label}.card{i}")
            i += 1
        row("    frames", f"smoothing.{label}.frames")
        if f"smoothing.{label}.inputs" in per:
            row("    input events", f"smoothing.{label}.inputs")
            row("    first to last input, ms", f"smoothing.{label}.drag_ms")
            i = 1
            while f"smoothing.{label}.during{i}" in per:
                row(f"    card {i} redraws while dragging", f"smoothing.{label}.during{i}")
                i += 1
    row("  Plotly.animate (smoothed lines) per card, median", "update_ms_median")
    row("  Plotly.animate (smoothed lines) per card, max", "update_ms_max")
    row("  Plotly.update (y axis fitted after the slider rests), median", "fit_ms_median")
    section("wire (websocket frames)")
    row("  series reply, bytes (median)", "series_reply_bytes", ",.0f")
    row("  series reply, points (8 runs)", "series_reply_points", ",.0f")
    row("  plotly.js reply, bytes", "plotly_bytes", ",.0f")
    row("  received during first draw, MB", "recv_bytes_first_draw", ".2f", 1e-6)
    section("memory, MB")
    row("  page JS heap before the Board", "heap_before_mb", ".1f")
    row("  page JS heap after first draw", "heap_after_draw_mb", ".1f")
    row("  page JS heap after all the above", "heap_end_mb", ".1f")
    row("  kernel RSS before the show cell", "kernel_rss_before_mb", ".0f")
    row("  kernel RSS with the Board", "kernel_rss_mb", ".0f")
    row("  kernel RSS after the show cell ran again", "kernel_rss_after_rerun_mb", ".0f")


def _finish(rows: list[list[str]], head: list[str], full: dict[str, Any], goals: list[Target],
            meta: dict[str, Any]) -> str:
    summary = full["board"] or {}
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    title = (f"tbnb Board benchmark: {meta['dataset']}; medians of {meta['repeat']}; headless Chromium "
             f"{meta.get('chromium', '?')}, JupyterLab {meta.get('jupyterlab', '?')}, {meta['cpus']} CPUs, "
             f"checkout {meta['checkout']}, load average at start {meta['loadavg_start']}")
    b0, b1 = meta.get("bundle_start") or {}, meta.get("bundle_end") or {}
    title += f"; Board bundle {_fmt(b0.get('bytes'), ',.0f')} bytes built {b0.get('mtime')}"
    if b1 and b1 != b0:
        title += f" (REBUILT during the run: {_fmt(b1.get('bytes'), ',.0f')} bytes at {b1.get('mtime')})"
    lines = [title]
    for j, r in enumerate(rows):
        lines.append("  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    for label in ("off", "on"):
        s = summary.get("saved", {}).get(label)
        if s:
            lines.append(f"saved notebook, 3 Boards, widget state {label}: {s['bytes']:,} bytes "
                         f"(widget state {s['widget_state_bytes']:,} bytes, {s['widget_models']} models, "
                         f"_esm {s['esm_bytes_in_state']:,} bytes, i.e. the bundle once per Board; outputs per cell {s['output_bytes_per_cell']}); "
                         f"kernel RSS with 3 Boards {_fmt(s['kernel_rss_mb'])} MB")
    alive = summary.get("boards_alive_after_rerun") or []
    if any(alive):
        lines.append(f"Boards alive in the kernel after the show cell ran twice (per rep): {alive}")
    if summary:
        lines.append(f"page JS heap added by the first Board (median): {_fmt(summary['heap_delta_mb'], '.1f')} MB")
    if full["e2e"]:
        lines.append(f"TensorBoard's scalar data as its page received it (per rep): {full['e2e']['tb_data']}")
    lines.append(f"load average at the end {meta.get('loadavg_end')}, {meta.get('elapsed_s', 0):.0f} s in all")
    errors = sorted(set(summary.get("errors", [])) | set((full["e2e"] or {}).get("errors", [])))
    if errors:
        lines.append("JavaScript errors on the page:\n  " + "\n  ".join(errors))
    if summary.get("off_loopback"):
        lines.append("requests off loopback:\n  " + "\n  ".join(summary["off_loopback"]))
    lines.append("")
    for g in goals:
        lines.append(f"{g.status:5}  {g.name}: {_fmt(g.value, '.4g')} (target {g.op} {g.limit:g})"
                     + (f"  [{g.note}]" if g.note else ""))
    return "\n".join(lines)


def as_json(raw: dict[str, Any], summary: dict[str, Any], goals: list[Target]) -> dict[str, Any]:
    return {**raw, "summary": summary, "targets": [asdict(g) for g in goals]}
