"""One check that two logdirs hold the same data, for the tests that read one logdir two ways
(locally and through an executor, from a local path and from a remote store)."""

from __future__ import annotations

import numpy as np

from tbnb.reader.logdir.logdir import Logdir


def assert_same(a: Logdir, b: Logdir) -> None:
    """Every run, tag, tag metadata, scalar point and sampled value of ``a`` equals ``b``'s."""
    assert a.runs() == b.runs()
    for run in a.runs():
        assert a.tags(run) == b.tags(run)
        assert a.run_start_time(run) == b.run_start_time(run)
        ga, gb = a.graph(run), b.graph(run)
        assert (ga is None) == (gb is None) and (ga is None or ga.graph_def == gb.graph_def)
        for tag, plugin in a.tags(run).items():
            assert a.metadata(run, tag) == b.metadata(run, tag), (run, tag)
            if plugin == "scalars":
                x, y = a.scalars(run, tag), b.scalars(run, tag)
                for col in ("step", "wall_time", "value"):
                    np.testing.assert_array_equal(getattr(x, col), getattr(y, col))
                continue
            try:
                x, y = a.tensors(run, tag), b.tensors(run, tag)
            except KeyError:
                continue
            np.testing.assert_array_equal(x.step, y.step)
            np.testing.assert_array_equal(x.wall_time, y.wall_time)
            for u, v in zip(x.values, y.values):
                np.testing.assert_array_equal(u, v)
