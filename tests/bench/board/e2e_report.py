"""The end-to-end rows of the Board benchmark's report: tbnb, TensorBoard and their ratio, per
repetition and as medians (the ratio's median is the median of the per-repetition ratios, each
pair measured back to back)."""

from __future__ import annotations

from typing import Any

from ..measure import median
from ..report import Target

#: tbnb's command-to-cards time at most this fraction of TensorBoard's (issue 36: a fifth).
RATIO_TARGET = 0.2


def summarise(raw: dict[str, Any]) -> dict[str, Any] | None:
    pairs = raw.get("e2e") or []
    if not pairs:
        return None
    ratio = lambda a, b: a / b if a is not None and b else None
    per = {
        "tbnb_ms": [p["tbnb"]["ms"] for p in pairs],
        "tbnb_ready_ms": [p["tbnb"]["ready_ms"] for p in pairs],
        "tbnb_paint_ms": [p["tbnb"]["first_paint_ms"] for p in pairs],
        "tb_ms": [p["tensorboard"]["ms"] for p in pairs],
        "tb_paint_ms": [p["tensorboard"]["first_paint_ms"] for p in pairs],
        "tb_serving_ms": [p["tensorboard"]["serving_ms"] for p in pairs],
        "ratio": [ratio(p["tbnb"]["ms"], p["tensorboard"]["ms"]) for p in pairs],
        "ratio_paint": [ratio(p["tbnb"]["ms"], p["tensorboard"]["first_paint_ms"]) for p in pairs],
        "tbnb_visible": [len(p["tbnb"]["visible"]) for p in pairs],
        "tb_visible": [len(p["tensorboard"]["visible"]) for p in pairs],
        "tb_partial": [int(bool(p["tensorboard"].get("partial"))) for p in pairs],
        "tb_runs_drawn": [min(p["tensorboard"]["lines_at_end"] or [0]) for p in pairs],
    }
    data = [p["tensorboard"]["data"] for p in pairs]
    return {"per_rep": per, "median": {k: median(v) for k, v in per.items()},
            "tb_data": data, "errors": sorted({e for p in pairs for e in p["tbnb"]["errors"]})}


def targets(e2e: dict[str, Any] | None) -> list[Target]:
    if e2e is None:
        return [Target("end to end, tbnb / TensorBoard", None, "<=", RATIO_TARGET, status="SKIP", note="not measured")]
    m = e2e["median"]
    incomplete = [d for d in e2e["tb_data"] if d["complete"] < d["tags"] or not d["tags"]]
    partial = sum(e2e["per_rep"]["tb_partial"])
    fmt = lambda v: "n/a" if v is None else f"{v:.0f} ms"
    note = f"tbnb {fmt(m['tbnb_ms'])}, TensorBoard {fmt(m['tb_ms'])}"
    if incomplete:
        note += f"; TensorBoard's page got incomplete data in {len(incomplete)} repetition(s)"
    if partial:
        note += f"; TensorBoard timed at cards missing runs (stable for its partial wait) in {partial}"
    return [Target("end to end (command -> visible cards drawn and stable), tbnb / TensorBoard",
                   m["ratio"], "<=", RATIO_TARGET, note=note)]


def rows(e2e: dict[str, Any] | None) -> list[tuple[str, list[Any], Any, str]]:
    """(label, per-repetition values, median, format) rows for the table."""
    if e2e is None:
        return []
    per, med = e2e["per_rep"], e2e["median"]
    spec = {"ratio": ".3f", "ratio_paint": ".3f"}
    labels = [
        ("tbnb: Shift+Enter on %tbnb -> visible cards drawn (all runs) and stable", "tbnb_ms"),
        ("  visible cards first all drawn", "tbnb_ready_ms"),
        ("  visible cards first all showing a line", "tbnb_paint_ms"),
        ("  visible cards", "tbnb_visible"),
        ("TensorBoard: launch -> visible cards drawn (all runs) and stable", "tb_ms"),
        ("  visible cards first all showing a line (some runs may lack)", "tb_paint_ms"),
        ("  server answering", "tb_serving_ms"),
        ("  runs drawn in its visible cards (fewest)", "tb_runs_drawn"),
        ("  visible cards", "tb_visible"),
        ("ratio tbnb / TensorBoard", "ratio"),
        ("ratio tbnb / TensorBoard's first paint (stricter)", "ratio_paint"),
    ]
    return [(label, per[key], med[key], spec.get(key, ".0f")) for label, key in labels]
