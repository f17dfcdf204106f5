"""A marimo app showing a Board on the logdir named by TBNB_TEST_LOGDIR (tests/ui/test_marimo.py)."""

import marimo

app = marimo.App(width="full")


@app.cell
def _():
    import os

    import tbnb

    board = tbnb.show(os.environ["TBNB_TEST_LOGDIR"], reload_interval=0.5)
    board  # noqa: B018 - a marimo cell shows its last expression
    return (board,)


if __name__ == "__main__":
    app.run()
