"""One BLAS thread around the projector's matrix products, when threadpoolctl is installed.

OpenBLAS's worker threads spin while they wait: when the machine's cores are busy with other
processes, a product split over two threads can take many times longer than the same product on
one, and a gram matrix of a few hundred thousand rows is fast enough on one core. threadpoolctl
is optional (the ``projector`` extra brings it; scikit-learn does too): without it, BLAS keeps its
own setting.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run the body with BLAS limited to one thread (unchanged when threadpoolctl is missing)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
