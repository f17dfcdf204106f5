"""``%load_ext tbnb`` and ``%tbnb``: TensorBoard's notebook magic, without the server.

``%tbnb --logdir runs/`` takes the flags of ``%tensorboard`` that mean something without a
server; the server's own flags (``--port``, ``--host``...) are accepted and ignored with a
one-line note, so a ``%tensorboard`` line works after renaming the magic. As ``%tensorboard``
reuses a server started with the same arguments, ``%tbnb`` reuses a live board created with the
same flags (re-running a cell must not leave one more poller behind each time).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import weakref
from dataclasses import dataclass, field
from typing import Any

from .protocol import DEFAULT_RELOAD_INTERVAL

#: TensorBoard flags that only configure its server or its data loader; ignored here.
SERVER_FLAGS = (
    "port", "host", "bind_all", "reuse_port", "load_fast", "path_prefix", "window_title",
    "max_reload_threads", "reload_task", "reload_multifile", "reload_multifile_inactive_secs",
    "generic_data", "grpc_data_provider", "grpc_creds_type", "extra_data_server_flags",
    "detect_file_replacement", "db", "db_import", "inspect", "event_file", "tag", "version_tb",
    "verbosity", "master_tracker", "whatif_use_unsafe_custom_prediction", "whatif_data_dir",
)


class MagicError(Exception):
    """A bad ``%tbnb`` line: reported as one line, never a traceback."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would print usage and SystemExit
        raise MagicError(message)

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise MagicError(message or "") if status else _HelpShown()


class _HelpShown(Exception):
    """``--help`` printed the usage: nothing more to do."""


def _bool(text: str) -> bool:
    """absl's boolean flag values."""
    lowered = text.lower()
    if lowered in ("true", "t", "1", "yes"):
        return True
    if lowered in ("false", "f", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``%tbnb`` parser: TensorBoard's flag names, ``--flag value`` or ``--flag=value``."""
    parser = _Parser(prog="%tbnb", add_help=True, allow_abbrev=False,
                     description="Show a TensorBoard logdir as a live board in this output.")
    parser.add_argument("--logdir", help="directory of runs (event files in it or below)")
    parser.add_argument("--logdir_spec", help="name1:path1,name2:path2: several logdirs, runs prefixed by name")
    parser.add_argument("--reload_interval", type=_seconds, default=DEFAULT_RELOAD_INTERVAL,
                        help="seconds between reloads; 0 loads once (default %(default)s)")
    parser.add_argument("--samples_per_plugin", help="e.g. images=100,histograms=all")
    parser.add_argument("--purge_orphaned_data", type=_bool, nargs="?", const=True, default=True,
                        help="drop data orphaned by a restart (default true)")
    parser.add_argument("--nopurge_orphaned_data", dest="purge_orphaned_data", action="store_false",
                        help=argparse.SUPPRESS)
    ignored = parser.add_argument_group("ignored (TensorBoard server flags)")
    for name in SERVER_FLAGS:
        # nargs="?": "--bind_all" alone and "--port 6006" both parse; the value is dropped.
        ignored.add_argument(f"--{name}", dest=f"ignored_{name}", nargs="?", const="", default=None,
                             help=argparse.SUPPRESS)
    return parser


@dataclass
class MagicArgs:
    """A parsed ``%tbnb`` line."""

    logdir: str | None
    logdir_spec: str | None
    reload_interval: float
    samples_per_plugin: str | None
    purge_orphaned_data: bool
    ignored: list[str] = field(default_factory=list)

    def board_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``Board``."""
        return {"logdir": self.logdir, "logdir_spec": self.logdir_spec, "reload_interval": self.reload_interval,
                "samples_per_plugin": self.samples_per_plugin, "purge_orphaned_data": self.purge_orphaned_data}

    def key(self) -> tuple[Any, ...]:
        """What makes two lines the same board: the flags that matter and the working directory
        (relative paths), as TensorBoard's reuse key; the ignored flags do not count."""
        return (os.getcwd(), *sorted(self.board_kwargs().items()))


def parse_line(line: str) -> MagicArgs | None:
    """Parse a ``%tbnb`` line; None after ``--help``; MagicError for anything wrong."""
    try:
        argv = shlex.split(line, comments=True)
    except ValueError as err:
        raise MagicError(f"cannot split the line: {err}") from None
    try:
        ns = build_parser().parse_args(argv)
    except _HelpShown:
        return None
    if (ns.logdir is None) == (ns.logdir_spec is None):
        raise MagicError("pass exactly one of --logdir and --logdir_spec")
    ignored = [f"--{name}" for name in SERVER_FLAGS if getattr(ns, f"ignored_{name}") is not None]
    return MagicArgs(ns.logdir, ns.logdir_spec, ns.reload_interval, ns.samples_per_plugin,
                     ns.purge_orphaned_data, ignored)


#: Boards made by the magic, by their flags: a live one is shown again instead of a new one.
_BOARDS: weakref.WeakValueDictionary[tuple[Any, ...], Any] = weakref.WeakValueDictionary()


def tbnb_magic(line: str) -> None:
    """``%tbnb --logdir DIR`` (or ``--logdir_spec name:dir,...``): show a live board here."""
    from IPython.display import display

    from .widget import Board

    try:
        args = parse_line(line)
    except MagicError as err:
        print(f"%tbnb: error: {err} (see %tbnb --help)", file=sys.stderr)
        return
    if args is None:
        return
    if args.ignored:
        print(f"%tbnb: ignoring {', '.join(args.ignored)}: there is no server, the board lives in this output")
    board = _BOARDS.get(args.key())
    if board is not None and board.comm is not None:
        print("%tbnb: reusing the live board made by an earlier %tbnb with the same flags")
        display(board)
        return
    try:
        board = Board(load=False, **args.board_kwargs())
        display(board)  # first: the page sets the Board up while the kernel reads the logdir
        board.start()
    except (ValueError, TypeError, RuntimeError) as err:
        print(f"%tbnb: error: {err}", file=sys.stderr)
        return
    _BOARDS[args.key()] = board


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext tbnb``: register the ``%tbnb`` line magic and prepare what its first board
    needs (``prepare``)."""
    ipython.register_magic_function(tbnb_magic, magic_kind="line", magic_name="tbnb")
    prepare()


def prepare() -> None:
    """Import the widget code, grow the reader's checksum tables, read plotly.js's cartesian
    build and send it to the page now.

    A user runs ``%load_ext tbnb`` once, well before ``%tbnb``: what is done here is not waited
    for by the cell that shows the first board (preload.py says how the script reaches the
    page). A missing plotly is left for the board to report.
    """
    from tbnb.format import crc

    from . import assets, widget  # noqa: F401 - imported for its cost, now rather than at %tbnb
    from .preload import preload_plotly

    crc.prepare()  # the tables a first read of scalars grows

    try:
        assets.plotly_js("cartesian")
    except RuntimeError:
        return
    preload_plotly()
