"""Showing Boards in notebook cells: ``tbnb.show``, and closing the Boards a cell showed the
time before when it runs again (their output is gone, yet each would go on polling)."""

from __future__ import annotations

import os
import weakref
from typing import Any

from .cells import cell_id, execution_count
from .widget import Board


#: Boards shown by each cell (by cell id): the execution that showed them and weak references.
SHOWN: dict[str, tuple[int | None, list[weakref.ref[Board]]]] = {}


def close_earlier_boards(cell: str, execution: int | None) -> None:
    """Close the Boards a previous execution of ``cell`` showed: re-running the cell replaced
    their output, so nothing can see them any more, yet each would go on polling its logdir
    and holding its data."""
    earlier, refs = SHOWN.get(cell, (execution, []))
    if earlier == execution:
        return
    for ref in refs:
        board = ref()
        if board is not None:
            board.close()
    SHOWN.pop(cell, None)


def show(logdir: str | os.PathLike[str] | None = None, **kwargs: Any) -> Board:
    """Create a Board (same arguments), display it, and return it.

    ``board = tbnb.show("runs/")`` keeps a handle for settings, ``board.view`` and ``close()``;
    as a cell's last line it is displayed once, not twice. Running the cell again closes the
    Boards it showed the time before (where the front end says which cell runs).
    """
    from IPython.display import display

    cell, execution = cell_id(), execution_count()
    if cell is not None:
        close_earlier_boards(cell, execution)
    board = Board(logdir, load=False, **kwargs)
    if cell is not None:
        SHOWN.setdefault(cell, (execution, []))[1].append(weakref.ref(board))
    display(board)  # first: the page sets the Board up while the kernel reads the logdir
    board.start()
    board.displayed_in(execution)
    return board
