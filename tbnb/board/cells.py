"""Which notebook cell runs: its execution count and its front end's cell id (None outside
IPython or when the front end does not say)."""

from __future__ import annotations


def execution_count() -> int | None:
    """The running cell's number in IPython (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


def cell_id() -> str | None:
    """The front end's id of the running cell (JupyterLab and Notebook 7 send it with each
    execution, ipykernel keeps the request); None outside a kernel or when not sent."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    kernel = getattr(get_ipython(), "kernel", None)
    try:
        parent = kernel.get_parent("shell") if kernel is not None else None
    except (AttributeError, TypeError):  # an older or foreign kernel: no cell ids then
        return None
    cell = (parent or {}).get("metadata", {}).get("cellId")
    return cell if isinstance(cell, str) and cell else None
