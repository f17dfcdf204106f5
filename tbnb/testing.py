"""What tests, notebooks and benchmarks import to write event files: a re-export of ``tbnb.writer``.

The writer itself is product code (``tbnb demo`` uses it); this module only keeps the name that
tests have always imported from, so that they need not know where the writer lives.
"""

from __future__ import annotations

from tbnb.writer import (
    EventWriter,
    encode_png,
    encode_wav,
    histogram_buckets,
    pr_curve_data,
    write_demo_logdir,
    write_scalar_logdir,
)

__all__ = [
    "EventWriter",
    "write_scalar_logdir",
    "write_demo_logdir",
    "encode_png",
    "encode_wav",
    "histogram_buckets",
    "pr_curve_data",
]
