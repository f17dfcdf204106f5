"""Medians, targets and the printed table of the loading benchmark."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .measure import median


@dataclass
class Target:
    """One goal: ``value`` must be ``<=`` (or ``>=``) ``limit``; status PASS, FAIL, SKIP or ERROR."""

    name: str
    value: float | None
    op: str
    limit: float
    status: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.status:
            return
        if self.value is None:
            self.status = "SKIP"
        else:
            ok = self.value <= self.limit if self.op == "<=" else self.value >= self.limit
            self.status = "PASS" if ok else "FAIL"


def _ratio(num: float | None, den: float | None) -> float | None:
    return num / den if num is not None and den else None


def _col(samples: list[dict[str, Any]], key: str) -> float | None:
    return median([s.get(key) for s in samples])


def _best(samples: list[dict[str, Any]]) -> float | None:
    return min((s["seconds"] for s in samples), default=None)


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """Medians and ratios from the raw samples gathered by ``__main__``."""
    rows = []
    for key, entry in raw["load"].items():
        ds = raw["datasets"][key]
        tbnb_s, rb_s = _col(entry["tbnb"], "seconds"), _col(entry["rustboard"], "seconds")
        rows.append({
            "dataset": key, "name": ds["name"], "events": ds["events"], "mb": ds["bytes"] / 1e6,
            "tbnb_s": tbnb_s, "rustboard_s": rb_s, "ratio": _ratio(tbnb_s, rb_s),
            "best_ratio": _ratio(_best(entry["tbnb"]), _best(entry["rustboard"])),
            "tbnb_events_per_s": _ratio(ds["events"], tbnb_s),
            "tbnb_peak_rss_mb": _col(entry["tbnb"], "peak_rss_mb"),
            "tbnb_peak_with_helpers_mb": _col(entry["tbnb"], "peak_with_helpers_mb"),
            "tbnb_rss_before_load_mb": _col(entry["tbnb"], "rss_before_mb"),
            "rustboard_peak_rss_mb": _col(entry["rustboard"], "peak_rss_mb"),
            "tbnb_scalar_points": _col(entry["tbnb"], "scalar_points"),
            "bytes_per_point": _col(entry["tbnb"], "bytes_per_point"),
            "store_error": next((s["store_error"] for s in entry["tbnb"] if "store_error" in s), None),
        })
    tb_py = raw.get("tb_python")
    tb_py_s = tb_py["seconds"] if tb_py else None
    a10_s = _col(raw.get("a10_tbnb") or [], "seconds")
    inc = raw.get("incremental") or []
    reload_s, cold_s = _col(inc, "reload_seconds"), _col(inc, "cold_seconds")
    return {
        "rows": rows,
        "tb_python_a10_s": tb_py_s, "tbnb_a10_s": a10_s, "tb_python_over_tbnb": _ratio(tb_py_s, a10_s),
        "reload_s": reload_s, "cold_s": cold_s, "reload_fraction": _ratio(reload_s, cold_s),
        "reload_appended": inc[0]["appended"] if inc else None,
        "reload_points": [s["reloaded_points"] for s in inc],
    }


def targets(summary: dict[str, Any]) -> list[Target]:
    """The goals of the reader: each a ratio against a peer measured in the same run, or a budget."""
    by_key = {row["dataset"]: row for row in summary["rows"]}
    out = [Target(f"({k}) tbnb/RustBoard", by_key[k]["ratio"] if k in by_key else None, "<=", limit)
           for k, limit in (("a", 0.5), ("b", 0.5), ("c", 1.0))]  # the second round's figures
    out.append(Target("TB-Python/tbnb on (a10)", summary["tb_python_over_tbnb"], ">=", 100.0,
                      note="" if summary["tb_python_a10_s"] is not None else "skipped (--quick)"))
    reload_target = Target("reload fraction (1% appended)", summary["reload_fraction"], "<=", 0.03)
    appended, seen = summary["reload_appended"], summary["reload_points"]
    if appended is not None and any(n != appended for n in seen):
        reload_target.status, reload_target.note = "FAIL", f"reload saw {seen} points, {appended} appended"
    out.append(reload_target)
    a = by_key.get("a", {})
    bpp = Target("bytes per stored scalar point (a)", a.get("bytes_per_point"), "<=", 12.0)
    if a.get("store_error"):
        bpp.status, bpp.note = "ERROR", a["store_error"]
    out.append(bpp)
    # Every point kept, the interpreter (numpy, protobuf) included: ~40 MB of it is imports; and
    # what forked helpers added: each one's private pages at its peak, bounded from above
    # (``child.helpers_mb``; the pages a helper shares with tbnb's process are counted once).
    out.append(Target("tbnb peak RSS loading (a), helpers included, MB", a.get("tbnb_peak_with_helpers_mb"),
                      "<=", 100.0))
    return out


def _fmt(value: float | None, spec: str, unit: str = "") -> str:
    return "n/a" if value is None else format(value, spec) + unit


def format_report(summary: dict[str, Any], goals: list[Target], meta: dict[str, Any]) -> str:
    """The table, the peer and reload lines, and one PASS/FAIL line per target."""
    head = ("dataset", "events", "MB", "tbnb s", "RustBoard s", "tbnb/RB", "tbnb ev/s",
            "tbnb RSS MB", "+helpers MB", "RB RSS MB")
    rows = [head]
    for r in summary["rows"]:
        label = f"({r['dataset']}) {r['name']}"
        rows.append((label, f"{r['events']:,}", _fmt(r["mb"], ".1f"),
                     _fmt(r["tbnb_s"], ".3f"), _fmt(r["rustboard_s"], ".3f"), _fmt(r["ratio"], ".2f"),
                     _fmt(r["tbnb_events_per_s"], ",.0f"), _fmt(r["tbnb_peak_rss_mb"], ".0f"),
                     _fmt(r["tbnb_peak_with_helpers_mb"], ".0f"), _fmt(r["rustboard_peak_rss_mb"], ".0f")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    title = (f"tbnb loading benchmark: medians of {meta['repeat']} repetition(s), {meta['cpus']} CPUs, "
             f"{meta['rustboard']}, python {meta['python']}, checkout {meta['checkout']}, "
             f"load average at start {meta['loadavg_start']}")
    lines = [title]
    for j, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    s = summary
    bpp_a = next((r["bytes_per_point"] for r in s["rows"] if r["dataset"] == "a"), None)
    tb_line = (f"TensorBoard-Python on (a10): {_fmt(s['tb_python_a10_s'], '.2f', ' s')}   "
               f"tbnb on (a10): {_fmt(s['tbnb_a10_s'], '.3f', ' s')}   "
               f"TB-Python/tbnb: {_fmt(s['tb_python_over_tbnb'], '.1f')}")
    reload_line = (f"reload after +1% on (a): {_fmt(s['reload_s'], '.3f', ' s')}   "
                   f"cold (same process): {_fmt(s['cold_s'], '.3f', ' s')}   "
                   f"fraction: {_fmt(s['reload_fraction'], '.4f')}")
    best = "   ".join(f"({r['dataset']}) {_fmt(r['best_ratio'], '.2f')}" for r in s["rows"])
    lines += [f"tbnb/RustBoard, fastest of each (less sensitive to a busy machine): {best}", "", tb_line, reload_line, f"bytes per stored scalar point (a): {_fmt(bpp_a, '.2f')}", ""]
    for g in goals:
        value = _fmt(g.value, ".4g")
        lines.append(f"{g.status:5}  {g.name}: {value} (target {g.op} {g.limit:g})"
                     + (f"  [{g.note}]" if g.note else ""))
    return "\n".join(lines)


def as_json(raw: dict[str, Any], summary: dict[str, Any], goals: list[Target]) -> dict[str, Any]:
    """Everything: metadata, raw samples, medians and targets."""
    return {**raw, "summary": summary, "targets": [asdict(g) for g in goals]}
