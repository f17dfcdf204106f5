"""Command line entry point: ``tbnb <command> ...`` (installed as the ``tbnb`` script).

Each command is a small function registered on a subparser, so new commands (serving, exporting,
...) can be added without touching the existing ones. ``main`` returns an exit code instead of
exiting, so that it can be called from tests and from ``python -m tbnb`` alike; expected failures
print one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TextIO

from ._version import __version__
from .reader.logdir.inspection import InspectError, format_report, inspect_event_file, inspect_logdir

PROG = "tbnb"

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The ``tbnb`` parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="TensorBoard for Jupyter notebooks: command line tools."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    commands.required = True
    add_inspect_command(commands)
    add_demo_command(commands)
    return parser


def add_demo_command(commands: argparse._SubParsersAction) -> None:
    """Register ``tbnb demo``: the example logdir, summarised, or shown in JupyterLab (``--lab``)."""
    parser = commands.add_parser(
        "demo",
        help="write an example logdir and show it (--lab: in JupyterLab, on the Board)",
        description="Write tbnb's example logdir (scalars, histograms, images, audio, text, PR curves, "
        "a graph) if it is not there yet and summarise it; with --lab, open the quickstart "
        "notebook on it in JupyterLab.",
    )
    parser.add_argument("--logdir", default="demo-runs", help="where to write the example (default: demo-runs)")
    parser.add_argument("--lab", nargs="?", const="tbnb-demo", default=None, metavar="DIR",
                        help="put the example and the quickstart notebook in DIR (default: tbnb-demo) "
                        "and open it in JupyterLab")
    parser.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """See ``tbnb.demo``."""
    from . import demo

    return demo.run(args.logdir, args.lab, out or sys.stdout)


def add_inspect_command(commands: argparse._SubParsersAction) -> None:
    """Register ``tbnb inspect``, with the same options as ``tensorboard --inspect``."""
    parser = commands.add_parser(
        "inspect",
        help="summarise the tags and steps in event files (like tensorboard --inspect)",
        description=(
            "Print the tags and step statistics of a logdir or of one event file, in the layout "
            "of `tensorboard --inspect`. TF2 summaries are shown under their plugin's name."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--logdir", help="directory to search recursively for event files")
    source.add_argument("--event_file", "--event-file", dest="event_file", help="a single event file")
    parser.add_argument("--tag", default="", help="only show statistics for this tag")
    parser.set_defaults(handler=run_inspect)


def run_inspect(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print the digest; an unusable logdir or event file is a one-line error and exit code 1."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if args.logdir is not None:
            report = inspect_logdir(args.logdir, args.tag)
        else:
            report = inspect_event_file(args.event_file, args.tag)
    except InspectError as exc:
        print(f"{PROG} inspect: error: {exc}", file=err)
        return 1
    out.write(format_report(report))
    out.flush()
    return 0


def _exit_code(code: object) -> int:
    """Turn a ``SystemExit`` code (None, int or message) into an int, as the interpreter would."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _silence_stdout() -> None:
    """After a broken pipe (``tbnb inspect ... | head``), stop Python complaining at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    """Run ``tbnb`` with ``argv`` (default: the process arguments) and return the exit code.

    argparse's own exits (``--help``, usage errors) are turned into return values so that callers
    get an int in every case.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return _exit_code(exc.code)
    handler: Handler = args.handler
    try:
        return handler(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 141
