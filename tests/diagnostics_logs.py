"""A logdir for the diagnostics tab, written with tbnb's writer (shared by the kernel, card and UI
tests): curves shaped as the findings' rules describe, so each run's finding is known.

- ``overfit``: ``loss/train`` falls to ~0.05; ``loss/val`` (every 5 steps) is lowest at step 40
  (0.5), then climbs to ~1.1 -> ``overfitting`` at step 40;
- ``too_high``: ``loss`` starts at 2.3 and rises to ~20 by step 10, ``lr`` = 5 -> ``lr_too_high``;
- ``healthy``: a loss that falls and converges, and ``lr`` 0.01 -> no finding;
- ``lr_find``: a range test (``lr`` 1e-5 -> 10 geometrically over 100 steps, the loss falling
  fastest near 1e-2, then exploding);
- ``ratios``: ``update_ratio/all`` and ``n_tensors`` tensors ``layers.<i>.weight`` written in
  model order per step: tensor 0 far below the band (3e-6), tensor 1 above it (0.05), the rest
  at 1e-3 -> ``update_ratio_low`` on layers.0.weight, ``update_ratio_high`` on layers.1.weight.
"""

from __future__ import annotations

import math
from pathlib import Path

from tbnb.testing import EventWriter

T0 = 1_700_000_000.0
RUNS = ("healthy", "lr_find", "overfit", "ratios", "too_high")


def write_diagnostics_logdir(root: Path, n_tensors: int = 6, steps: int = 100) -> Path:
    """The logdir of the module doc under ``root`` (returned)."""
    with EventWriter(root / "overfit", start_time=T0) as w:
        for s in range(steps):
            w.add_scalar("loss/train", 0.05 + 2.0 * math.exp(-s / 10), s, wall_time=T0 + s)
            if s % 5 == 0:
                val = 0.5 + 1.8 * math.exp(-s / 8) + (0.012 * (s - 40) if s > 40 else 0.0)
                w.add_scalar("loss/val", val, s, wall_time=T0 + s + 0.5)
    with EventWriter(root / "too_high", start_time=T0) as w:
        for s in range(steps):
            w.add_scalar("loss", 2.3 * (1 + min(s, 10) * 0.8), s, wall_time=T0 + s)
            w.add_scalar("lr", 5.0, s, wall_time=T0 + s)
    with EventWriter(root / "healthy", start_time=T0) as w:
        for s in range(steps):
            w.add_scalar("loss", 0.3 + 2.0 * math.exp(-s / 6), s, wall_time=T0 + s)
            w.add_scalar("lr", 0.01, s, wall_time=T0 + s)
    with EventWriter(root / "lr_find", start_time=T0) as w:
        for s in range(steps):
            lr = 1e-5 * 10 ** (6 * s / (steps - 1))
            x = math.log10(lr)  # -5 .. 1
            loss = 2.3 - 2.0 / (1 + math.exp(-(x + 2) * 3)) + (0 if x < -0.5 else (x + 0.5) ** 2 * 8)
            w.add_scalar("loss", loss, s, wall_time=T0 + s)
            w.add_scalar("lr", lr, s, wall_time=T0 + s)
    with EventWriter(root / "ratios", start_time=T0) as w:
        for s in range(0, steps, 2):
            for i in range(n_tensors):
                ratio = 3e-6 if i == 0 else 0.05 if i == 1 else 1e-3 * (1 + 0.1 * math.sin(s + i))
                w.add_scalar(f"update_ratio/layers.{i}.weight", ratio, s, wall_time=T0 + s + i * 1e-3)
            w.add_scalar("update_ratio/all", 1.2e-3, s, wall_time=T0 + s + n_tensors * 1e-3)
            w.add_scalar("loss", 0.3 + 2.0 * math.exp(-s / 6), s, wall_time=T0 + s)
    return root
