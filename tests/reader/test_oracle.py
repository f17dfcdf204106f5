"""tbnb against TensorBoard's own Python loader (``plugin_event_multiplexer``) as the oracle.

Logs are written by tensorboardX and torch (several runs, a few hundred steps). The oracle keeps
everything (size guidance 0) and tbnb is asked to keep everything too, so that sampling cannot
differ; one test then checks that the default sampling picks the same steps as TensorBoard's.
The purge_step restart is left out: the Python loader does not purge it.
"""

from __future__ import annotations

import numpy as np
import pytest

import tbnb

from .conftest import HAVE_TBX, make_writer

pem = pytest.importorskip("tensorboard.backend.event_processing.plugin_event_multiplexer")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")

PLUGINS = ("scalars", "histograms", "images", "text")
KEEP_ALL = "scalars=all,histograms=all,images=all,audio=all,text=all,pr_curves=all,*=all"


def multiplexer(root, size_guidance: dict, tensor_size_guidance: dict):
    m = pem.EventMultiplexer(size_guidance=size_guidance, tensor_size_guidance=tensor_size_guidance)
    m.AddRunsFromDirectory(str(root))
    m.Reload()
    return m


@pytest.fixture(scope="module")
def oracle(oracle_logdir):
    return multiplexer(oracle_logdir, {"tensors": 0}, {p: 0 for p in PLUGINS})


@pytest.fixture(scope="module")
def lg(oracle_logdir) -> tbnb.Logdir:
    return tbnb.load(oracle_logdir, samples_per_plugin=KEEP_ALL)


def oracle_tags(m, run: str) -> dict[str, str]:
    """``{tag: plugin}`` of a run, as the oracle's plugin index has it."""
    out: dict[str, str] = {}
    for plugin in m.ActivePlugins():
        for tag in m.PluginRunToTagToContent(plugin).get(run, {}):
            assert tag not in out, f"tag {tag!r} in two plugins"
            out[tag] = plugin
    return out


def pairs(m, plugin: str) -> list[tuple[str, str]]:
    found = [(run, tag) for run, tags in sorted(m.PluginRunToTagToContent(plugin).items()) for tag in sorted(tags)]
    assert found, f"the oracle found no {plugin}"
    return found


def sampled_values(m, lg, plugin: str):
    """``(run, tag, step, ours, theirs)`` for every value the oracle keeps of ``plugin``, once
    tbnb is seen to keep exactly the oracle's steps and wall times of that series."""
    for run, tag in pairs(m, plugin):
        events = m.Tensors(run, tag)
        t = lg.tensors(run, tag)
        np.testing.assert_array_equal(t.step, [e.step for e in events], err_msg=f"{run} {tag}")
        np.testing.assert_array_equal(t.wall_time, [e.wall_time for e in events], err_msg=f"{run} {tag}")
        for ours, event in zip(t.values, events):
            yield run, tag, event.step, ours, tensor_util.make_ndarray(event.tensor_proto)


def test_runs(oracle, lg):
    assert lg.runs() == sorted(oracle.Runs())
    assert len(lg.runs()) >= 3
    assert lg.problems == []


def test_tags_and_plugins(oracle, lg):
    for run in lg.runs():
        assert lg.tags(run) == oracle_tags(oracle, run), run


def test_metadata_content(oracle, lg):
    for run in lg.runs():
        for tag, plugin in lg.tags(run).items():
            ours, theirs = lg.metadata(run, tag), oracle.SummaryMetadata(run, tag)
            assert ours.plugin_data.plugin_name == theirs.plugin_data.plugin_name == plugin
            assert ours.plugin_data.content == theirs.plugin_data.content, (run, tag)
            assert ours.display_name == theirs.display_name, (run, tag)
            assert ours.summary_description == theirs.summary_description, (run, tag)


def test_metadata_data_class(oracle, lg):
    """TensorBoard fills in data_class for every plugin's first metadata (dataclass_compat)."""
    wrong = []
    for run in lg.runs():
        for tag in lg.tags(run):
            ours, theirs = lg.metadata(run, tag), oracle.SummaryMetadata(run, tag)
            if ours.data_class != theirs.data_class:
                wrong.append((run, tag, ours.data_class, theirs.data_class))
    assert wrong == []


def test_every_scalar(oracle, lg):
    n = 0
    for run, tag in pairs(oracle, "scalars"):
        events = oracle.Tensors(run, tag)
        s = lg.scalars(run, tag)
        np.testing.assert_array_equal(s.step, [e.step for e in events])
        np.testing.assert_array_equal(s.wall_time, [e.wall_time for e in events])
        want = np.array([tensor_util.make_ndarray(e.tensor_proto).item() for e in events], dtype=np.float64)
        np.testing.assert_array_equal(s.value, want)  # NaN == NaN here; the infinities too
        assert np.array_equal(np.signbit(s.value), np.signbit(want))
        n += len(s)
    assert n > 1000


def test_every_histogram(oracle, lg):
    n = 0
    for run, tag, step, ours, theirs in sampled_values(oracle, lg, "histograms"):
        assert ours.shape == theirs.shape, (run, tag, step)
        assert ours.dtype == np.float64
        # the Python loader stores the migrated histogram as float32; tbnb keeps the doubles
        np.testing.assert_array_equal(ours.astype(theirs.dtype), theirs)
        np.testing.assert_allclose(ours, theirs, rtol=2**-23)
        n += 1
    assert n > 100


def test_every_image(oracle, lg):
    n = 0
    for _run, _tag, _step, ours, theirs in sampled_values(oracle, lg, "images"):
        assert ours.shape == theirs.shape
        assert list(ours) == list(theirs)  # width, height, PNG bytes
        n += 1
    assert n >= 30


def test_every_text(oracle, lg):
    n = 0
    for _run, _tag, _step, ours, theirs in sampled_values(oracle, lg, "text"):
        assert ours.shape == theirs.shape and ours.tolist() == theirs.tolist()
        n += 1
    assert n >= 30


def test_pandas_frame_matches_oracle(oracle, lg):
    df = lg.to_pandas("scalars")
    expected = sum(len(oracle.Tensors(r, t)) for r, t in pairs(oracle, "scalars"))
    assert len(df) == expected
    sub = df[(df.run == lg.runs()[0]) & (df.tag == "loss")]
    events = oracle.Tensors(lg.runs()[0], "loss")
    np.testing.assert_array_equal(sub.step.to_numpy(), [e.step for e in events])


# -- default sampling: the same reservoir, the same seed, so the same steps ------------------------


def test_default_sampling_keeps_the_oracles_steps(sampling_logdir):
    # TensorBoard's ingest defaults (data_ingester.py): tensors 10, plus per-plugin sizes
    m = multiplexer(sampling_logdir, {"tensors": 10},
                    {"histograms": 500, "images": 10, "audio": 10, "pr_curves": 100})
    lg = tbnb.load(sampling_logdir)
    for tag in ("h", "im", "t/text_summary"):
        theirs = [e.step for e in m.Tensors("sampled", tag)]
        ours = lg.tensors("sampled", tag).step.tolist()
        assert len(ours) == len(theirs)
        assert ours == theirs, f"{tag}: steps only tbnb kept {sorted(set(ours) - set(theirs))[:10]}"


# -- hparams summaries carry no value: TensorBoard still lists them ---------------------------------


@pytest.mark.skipif(not HAVE_TBX, reason="tensorboardX is not installed")
def test_hparams_tags_match_oracle(tmp_path):
    w = make_writer("tbx", tmp_path)
    w.add_hparams({"lr": 0.5, "act": "relu"}, {"hp/loss": 0.25}, name="trial")
    w.close()
    m = multiplexer(tmp_path, {"tensors": 0}, {})
    lg = tbnb.load(tmp_path)
    assert lg.runs() == sorted(m.Runs())
    assert lg.tags("trial") == oracle_tags(m, "trial")
    for tag, plugin in oracle_tags(m, "trial").items():
        if plugin == "hparams":
            (event,) = m.Tensors("trial", tag)
            theirs = tensor_util.make_ndarray(event.tensor_proto)
            t = lg.tensors("trial", tag)
            assert t.step.tolist() == [event.step]
            assert t.values[0].dtype == theirs.dtype and t.values[0].shape == theirs.shape
