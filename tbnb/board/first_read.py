"""A Board's first read of its logdir: on a big logdir, each file's first bytes, then the rest.

Until the kernel answers the page's first ``index`` request, the page can only show an empty
frame; and it cannot ask for a card's lines before it has laid the cards out. The first bytes of
every event file name the runs and (in most logs, whose first steps write every tag) the tags,
in a few milliseconds: pushed to the page as an index at once, they let it lay out its cards and
queue its requests for the visible ones while the kernel reads the rest, so that those requests
are answered as soon as the read ends instead of one round trip and one layout later.

A logdir read whole by the first pass (small ones, or thousands of small runs, which the batch
path reads whole) is not announced early: the page's own request follows at once.
"""

from __future__ import annotations

from typing import Callable

from ..reader.logdir.logdir import ReloadResult
from .sources import MultiLogdir

#: New bytes of each event file the first pass reads (whole records): a few hundred steps of
#: scalar records, the first images of an image log.
PREVIEW_BYTES = 64 << 10


def first_read(source: MultiLogdir, on_preview: Callable[[ReloadResult], None] | None) -> ReloadResult:
    """Read ``source`` for the first time; with ``on_preview``, in two passes when the first
    leaves bytes unread, calling ``on_preview`` with the first pass's result in between.

    Returns what the caller has still to take in: the second pass's result (the first went to
    ``on_preview``), or the only pass's.
    """
    if on_preview is None:
        return source.reload()
    preview = source.reload(first_bytes=PREVIEW_BYTES)
    if not source.unread_bytes():
        return preview
    on_preview(preview)
    return source.reload()
