"""``python -m tests.bench.graph``: the graph explorer's kernel side on synthetic 10k and 100k graphs.

From the repository root. For each size: reading the GraphDef bytes into a Graph and building
the hierarchy (the target); then the page's first request, the collapsed top level, as the
kernel answers it before the whole hierarchy is built: reading, the top-level hierarchy and the
reply. As medians of
``--repeat`` runs, in wall time and in this process's CPU time (the machine is shared: the load
average is printed beside them); then the size on the wire (JSON content + binary buffers, as
the Board's codec packs them) and the time of a few replies: the top level, a block opened
three levels down, the long preprocessing chain's series opened, a search, and trace inputs
from the loss (through the whole graph).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from tbnb.board.codec import encode
from tbnb.reader.plugins.graph import graph_from_graph_def
from tbnb.reader.plugins.graph.hierarchy import build_hierarchy
from tbnb.reader.plugins.graph.view import answer

from .graph_data import synthetic_graph_def

TARGETS = {10_000: 1.0, 100_000: 5.0}


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def wire_size(reply: dict[str, Any]) -> int:
    """Bytes the reply takes on the comm: its JSON content plus its buffers."""
    content, buffers = encode(reply)
    return len(json.dumps(content, separators=(",", ":"))) + sum(b.nbytes for b in buffers)


def _requests(h: Any) -> dict[str, dict[str, Any]]:
    stage = next(n for n in h.names if n.startswith("model/stage_") and n.count("/") == 1)
    block = next(n for n in h.names if n.startswith(stage + "/block_") and n.count("/") == 2)
    chain = next(s.name for s in h.series if s.name.startswith("pre/"))
    return {
        "top level": {"what": "levels"},
        f"open {block}": {"what": "levels", "expanded": ["model", stage, block]},
        f"open {chain}": {"what": "levels", "expanded": ["pre", chain]},
        "search conv.*BiasAdd": {"what": "search", "pattern": "conv.*BiasAdd"},
        "trace inputs of loss/Mean": {"what": "trace", "name": "loss/Mean"},
    }


def bench(size: int, repeat: int) -> dict[str, Any]:
    data = synthetic_graph_def(size)
    runs = []
    for _ in range(repeat):
        g, parse_wall, parse_cpu = _timed(lambda: graph_from_graph_def(data))
        top, top_wall, top_cpu = _timed(lambda g=g: build_hierarchy(g, top_level=True))
        _, first_wall, first_cpu = _timed(lambda top=top: answer(top, {"what": "levels"}))
        h, build_wall, build_cpu = _timed(lambda g=g: build_hierarchy(g))
        runs.append((parse_wall, build_wall, first_wall, parse_cpu, build_cpu, first_cpu, top_wall, top_cpu))
    med = [statistics.median(r[k] for r in runs) for k in range(8)]
    replies = {}
    for label, request in _requests(h).items():
        reply, wall, _ = _timed(lambda request=request: answer(h, request))
        count = len(reply["nodes"]["id"] if "nodes" in reply else reply.get("matches", reply.get("ids", [])))
        replies[label] = {"seconds": wall, "bytes": wire_size(reply), "nodes": count}
    return {"size": size, "nodes": len(g.names), "edges": len(g.edge_src), "graph_bytes": len(data),
            "parse": med[0], "build": med[1], "first_reply": med[2], "total": med[0] + med[1],
            "cpu_total": med[3] + med[4], "top_build": med[6], "first": med[0] + med[6] + med[2],
            "cpu_first": med[3] + med[7] + med[5], "replies": replies}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="*", default=sorted(TARGETS))
    args = parser.parse_args(argv)
    for size in args.sizes:
        r = bench(size, args.repeat)
        target = TARGETS.get(size)
        verdict = "" if target is None else (" PASS" if r["total"] <= target else " FAIL") + f" (target {target:g} s)"
        print(f"{r['nodes']} nodes, {r['edges']} edges, {r['graph_bytes'] / 1e6:.1f} MB GraphDef; "
              f"load average {os.getloadavg()[0]:.1f}")
        print(f"  read {r['parse']:.3f} s + hierarchy {r['build']:.3f} s = {r['total']:.3f} s wall"
              f" (median of {args.repeat}), {r['cpu_total']:.3f} s CPU{verdict}")
        print(f"  first reply: read {r['parse']:.3f} s + top-level hierarchy {r['top_build']:.3f} s + top level"
              f" {r['first_reply']:.3f} s = {r['first']:.3f} s wall, {r['cpu_first']:.3f} s CPU")
        for label, rep in r["replies"].items():
            print(f"  {label}: {rep['nodes']} nodes, {rep['bytes'] / 1e3:.1f} kB, {rep['seconds'] * 1e3:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
