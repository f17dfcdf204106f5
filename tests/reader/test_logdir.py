"""Logdir behaviour: discovery, incremental reloads, growing files, restarts, damage, bad paths."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.format.proto import event_pb2
from tbnb.testing import EventWriter, write_scalar_logdir
from tbnb.writer import encode_record


def scalars(lg: tbnb.Logdir, run: str, tag: str) -> list[tuple[int, float]]:
    s = lg.scalars(run, tag)
    return list(zip(s.step.tolist(), s.value.tolist()))


def test_runs_are_relative_paths_and_root_is_dot(tmp_path: Path) -> None:
    for sub in ["", "a", "a/b", "c d"]:
        with EventWriter(tmp_path / sub) as w:
            w.add_scalar("x", 1.0, 0)
    (tmp_path / "empty_dir").mkdir()
    lg = tbnb.load(tmp_path)
    assert lg.runs() == [".", "a", "a/b", "c d"]
    assert lg.tags("a/b") == {"x": "scalars"}


def test_missing_logdir_and_file_path_say_so(tmp_path: Path) -> None:
    with pytest.raises(tbnb.LogdirError, match="does not exist"):
        tbnb.load(tmp_path / "nope")
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(tbnb.LogdirError, match="not a directory"):
        tbnb.load(f)


def test_empty_logdir_has_no_runs(tmp_path: Path) -> None:
    lg = tbnb.load(tmp_path)
    assert lg.runs() == [] and lg.problems == []
    assert lg.to_pandas().empty


def test_reload_reads_only_new_points_and_reports_them(tmp_path: Path) -> None:
    w = EventWriter(tmp_path / "r")
    for i in range(10):
        w.add_scalar("loss", float(i), i)
    w.flush()
    lg = tbnb.load(tmp_path)
    assert len(lg.scalars("r", "loss")) == 10
    assert not lg.reload()  # nothing new
    for i in range(10, 15):
        w.add_scalar("loss", float(i), i)
    w.add_scalar("acc", 0.5, 14)
    w.flush()
    delta = lg.reload()
    assert delta.points == {("r", "loss"): 5, ("r", "acc"): 1}
    assert delta.new_tags == {"r": ["acc"]}
    assert scalars(lg, "r", "loss")[-1] == (14, 14.0)
    w.close()


def test_truncated_last_record_is_read_whole_on_next_reload(tmp_path: Path) -> None:
    w = EventWriter(tmp_path)
    for i in range(5):
        w.add_scalar("x", float(i), i)
    w.close()
    data = w.path.read_bytes()
    last = event_pb2.Event(wall_time=1.0, step=5)
    last.summary.value.add(tag="x", simple_value=5.0)
    record = encode_record(last.SerializeToString())
    w.path.write_bytes(data + record[:7])
    lg = tbnb.load(tmp_path)
    assert len(lg.scalars(".", "x")) == 5 and lg.problems == []
    with open(w.path, "ab") as fh:
        fh.write(record[7:20])
    assert not lg.reload()
    with open(w.path, "ab") as fh:
        fh.write(record[20:])
    assert lg.reload().points == {(".", "x"): 1}
    assert scalars(lg, ".", "x")[-1] == (5, 5.0)
    assert lg.problems == []


def test_new_runs_and_files_appear_and_vanished_runs_go(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "a") as w:
        w.add_scalar("x", 1.0, 0)
    lg = tbnb.load(tmp_path)
    with EventWriter(tmp_path / "b") as w:
        w.add_scalar("x", 2.0, 0)
    with EventWriter(tmp_path / "a") as w:  # a second file in run a
        w.add_scalar("x", 3.0, 1)
    delta = lg.reload()
    assert delta.new_runs == ["b"]
    assert scalars(lg, "a", "x") == [(0, 1.0), (1, 3.0)]
    shutil.rmtree(tmp_path / "b")
    delta = lg.reload()
    assert delta.removed_runs == ["b"] and lg.runs() == ["a"]


def test_two_writers_in_one_directory_both_show_up(tmp_path: Path) -> None:
    w1, w2 = EventWriter(tmp_path), EventWriter(tmp_path)
    for i in range(20):
        w1.add_scalar("train/loss", float(i), i)
        w2.add_scalar("eval/loss", float(-i), i)
    w1.flush()
    w2.flush()
    lg = tbnb.load(tmp_path)
    assert set(lg.tags(".")) == {"train/loss", "eval/loss"}
    w1.add_scalar("train/loss", 20.0, 20)  # the older file keeps growing
    w1.flush()
    assert lg.reload().points == {(".", "train/loss"): 1}
    w1.close()
    w2.close()


def test_session_start_purges_and_purging_can_be_turned_off(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        for i in range(100):
            w.add_scalar("x", 0.0, i)
            if i % 10 == 0:
                w.add_histogram("h", np.arange(5.0), i)
    with EventWriter(tmp_path) as w:
        w.add_session_start(60)
        for i in range(60, 70):
            w.add_scalar("x", 1.0, i)
    lg = tbnb.load(tmp_path)
    got = scalars(lg, ".", "x")
    assert [s for s, _ in got] == list(range(70))
    assert sum(v for _, v in got) == 10
    assert lg.tensors(".", "h").step.max() == 50
    kept = tbnb.load(tmp_path, purge_orphaned_data=False)
    assert len(kept.scalars(".", "x")) == 110
    assert kept.tensors(".", "h").step.max() == 90


def test_corrupt_record_is_skipped_and_reported_rest_kept(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        for i in range(50):
            w.add_scalar("x", float(i), i)
    raw = bytearray(w.path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    w.path.write_bytes(bytes(raw))
    lg = tbnb.load(tmp_path)
    assert len(lg.scalars(".", "x")) in (48, 49)  # the damaged record (and at most its neighbour)
    assert len(lg.problems) == 1 and lg.problems[0].path == str(w.path)
    assert "CRC" in lg.problems[0].reason
    lg.reload()
    assert len(lg.problems) == 1  # reported once, not again on every reload


def test_garbage_payload_in_a_valid_record_is_reported(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        w.add_scalar("x", 1.0, 0)
        w.add_record_bytes(b"\xff\xff\xff not a protobuf")
        w.add_scalar("x", 2.0, 1)
    lg = tbnb.load(tmp_path)
    assert scalars(lg, ".", "x") == [(0, 1.0), (1, 2.0)]
    assert any("not an Event" in p.reason for p in lg.problems)


def test_non_event_and_empty_files_named_tfevents(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "events.out.tfevents.1.host").write_bytes(b"<html>not an event file</html>" * 20)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "events.out.tfevents.2.host").write_bytes(b"")
    lg = tbnb.load(tmp_path)
    assert lg.runs() == ["bad", "empty"]
    assert lg.tags("bad") == {} and lg.tags("empty") == {}
    assert [p.path.endswith("events.out.tfevents.1.host") for p in lg.problems] == [True]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions and symlinks")
def test_unreadable_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "ok") as w:
        w.add_scalar("x", 1.0, 0)
    with EventWriter(tmp_path / "locked") as w:
        w.add_scalar("x", 1.0, 0)
    w.path.chmod(0)
    # root reads anything: there, use a dangling link named like an event file instead
    dangling = tmp_path / "locked" / "events.out.tfevents.9999999999.gone"
    dangling.symlink_to(tmp_path / "nowhere")
    try:
        lg = tbnb.load(tmp_path)
        assert scalars(lg, "ok", "x") == [(0, 1.0)]
        reasons = [p.reason for p in lg.problems]
        assert any(r.startswith("cannot stat") for r in reasons)
        if os.geteuid() != 0:
            assert any(r.startswith("cannot read") for r in reasons)
    finally:
        w.path.chmod(0o644)


def test_nan_and_inf_survive(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        for i, v in enumerate([np.nan, np.inf, -np.inf, 1.0]):
            w.add_scalar("x", v, i)
    v = tbnb.load(tmp_path).scalars(".", "x").value
    assert np.isnan(v[0]) and v[1] == np.inf and v[2] == -np.inf and v[3] == 1.0


def test_tf2_scalars_and_first_metadata_names_plugin(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        for i in range(5):
            w.add_scalar("tf2/loss", i * 0.5, i, tf2=True)
    lg = tbnb.load(tmp_path)
    assert lg.tags(".") == {"tf2/loss": "scalars"}
    assert scalars(lg, ".", "tf2/loss") == [(i, i * 0.5) for i in range(5)]


def test_samples_per_plugin_and_latest_kept(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        for i in range(40):
            w.add_image("img", np.full((2, 2, 3), i, dtype=np.uint8), i)
            w.add_text("t", f"step {i}", i)
    lg = tbnb.load(tmp_path)
    assert len(lg.tensors(".", "img")) == 10 and lg.tensors(".", "img").step[-1] == 39
    assert len(lg.tensors(".", "t")) == 10
    every = tbnb.load(tmp_path, samples_per_plugin="images=all,text=3")
    assert len(every.tensors(".", "img")) == 40 and len(every.tensors(".", "t")) == 3


def test_images_are_read_from_disk_when_indexed(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        w.add_image("img", np.zeros((4, 6, 3), dtype=np.uint8), 0)
    lg = tbnb.load(tmp_path)
    run = lg._runs["."]
    from tbnb.reader.runs.items import BlobRef

    assert isinstance(run.data.sampled("img")[0].payload, BlobRef)
    value = lg.tensors(".", "img").values[0]
    assert value[0] == b"6" and value[1] == b"4" and value[2][:4] == b"\x89PNG"


def test_to_pandas_long_format(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "a") as w:
        for i in range(3):
            w.add_scalar("x", float(i), i)
            w.add_histogram("h", np.arange(4.0) + i, i)
    lg = tbnb.load(tmp_path)
    df = lg.to_pandas()
    assert list(df.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert df["value"].tolist() == [0.0, 1.0, 2.0] and set(df["run"]) == {"a"}
    h = lg.to_pandas("histograms")
    assert len(h) == 3 and h["value"].iloc[0].shape[1] == 3


def test_reload_cost_follows_new_bytes(tmp_path: Path) -> None:
    """A reload after a small append reads only the appended bytes (counted, not timed)."""
    w = EventWriter(tmp_path)
    for i in range(2000):
        w.add_scalar("x", float(i), i)
    w.flush()
    lg = tbnb.load(tmp_path)
    size_before = w.path.stat().st_size
    w.add_scalar("x", 1.0, 2000)
    w.flush()
    import tbnb.reader.runs.run as run_module

    seen: list[int] = []
    real = {name: getattr(run_module, name) for name in ("frame", "frame_bulk")}

    def counting(name: str):  # type: ignore[no-untyped-def]
        def wrapper(buf: bytes, path: str = "", base: int = 0):  # type: ignore[no-untyped-def]
            seen.append(len(buf))
            return real[name](buf, path, base)

        return wrapper

    for name in real:
        setattr(run_module, name, counting(name))
    try:
        lg.reload()
    finally:
        for name, fn in real.items():
            setattr(run_module, name, fn)
    assert seen == [w.path.stat().st_size - size_before]
    w.close()


def test_count_says_how_many_points_without_copying(tmp_path: Path) -> None:
    with EventWriter(tmp_path) as w:
        for i in range(30):
            w.add_scalar("x", float(i), i)
            w.add_text("t", "hi", i)
    lg = tbnb.load(tmp_path)
    assert lg.count(".", "x") == 30 and lg.count(".", "t") == 10 and lg.count(".", "missing") == 0
    with pytest.raises(KeyError):
        lg.count("nope", "x")


def test_a_reload_reads_only_the_runs_that_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs whose files are as they were are not reloaded at all; a grown file, a new file, a
    removed file and one that cannot be stat-ed each make their run reload (and be reported)."""
    import tbnb.reader.runs.run as run_module

    writers = {name: EventWriter(tmp_path / name) for name in "abcde"}
    for w in writers.values():
        w.add_scalar("x", 1.0, 0)
        w.flush()
    with EventWriter(tmp_path / "d") as extra:  # run d has a second file
        extra.add_scalar("x", 5.0, 5)
    lg = tbnb.load(tmp_path)
    reloaded: list[str] = []
    real = run_module.Run.reload
    monkeypatch.setattr(run_module.Run, "reload",
                        lambda self, paths, buffer=None, first_bytes=None:
                        reloaded.append(self.name) or real(self, paths, buffer, first_bytes))
    assert not lg.reload() and reloaded == []
    writers["b"].add_scalar("x", 2.0, 1)
    writers["b"].flush()
    with EventWriter(tmp_path / "c") as w:  # a new file
        w.add_scalar("x", 3.0, 2)
    extra.path.unlink()
    (tmp_path / "e" / "events.out.tfevents.9.gone").symlink_to(tmp_path / "nowhere")
    delta = lg.reload()
    assert sorted(reloaded) == ["b", "c", "d", "e"]
    assert delta.points == {("b", "x"): 1, ("c", "x"): 1}
    assert sorted(p.reason.split(";")[0].split(":")[0] for p in delta.problems) == [
        "cannot stat", "event file is gone"]
    assert lg.scalars("d", "x").value.tolist() == [1.0, 5.0]  # what was read from the gone file stays
    for w in writers.values():
        w.close()


def test_a_load_imports_nothing_more(tmp_path: Path) -> None:
    """Everything a load needs is imported with tbnb: a module pulled in on first use (numpy.ma,
    which a plain np.unique imports) would land in the user's first load, every fresh kernel."""
    import subprocess
    import sys
    import textwrap

    rng = np.random.default_rng(0)
    with EventWriter(tmp_path / "media") as w:
        for i in range(600):
            w.add_histogram("w/a", rng.normal(size=30), i)
            w.add_histogram("w/b", rng.normal(size=30), i)
            if i % 50 == 0:
                w.add_image("img", rng.integers(0, 255, (8, 8, 3), dtype=np.uint8), i)
    write_scalar_logdir(tmp_path / "scalars", runs=1, tags=4, steps=3000)
    script = textwrap.dedent(f"""
        import sys
        import tbnb
        before = set(sys.modules)
        lg = tbnb.load({str(tmp_path)!r})
        assert len(lg.tensors("media", "w/a")) == 500
        print(sorted(set(sys.modules) - before))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_damaged_meta_graph_is_a_problem_not_an_exception(tmp_path) -> None:
    """An Event whose meta_graph_def is not a MetaGraphDef: the run lists its graph, reading it
    says what is wrong through ``problems`` and returns None (it used to raise DecodeError)."""
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("loss", 1.0, 1)
        w.add_event(event_pb2.Event(wall_time=1.0, meta_graph_def=b"\x0a\xff\xff\xff\xff\x0f"))
    lg = tbnb.load(tmp_path)
    assert lg.tags("run")["__run_graph__"] == "graphs" and lg.graphs("run") == [""]
    assert lg.graph("run") is None
    (problem,) = [p for p in lg.problems if "graph" in p.reason]
    assert problem.path.endswith("run") and problem.reason.startswith("graph ''")
    assert list(lg.scalars("run", "loss").value) == [1.0]  # the rest of the run reads


def test_graph_tags_and_keras_models(tmp_path) -> None:
    """``graphs(run)`` lists the op graph first, then graph plugin tags; an unknown tag is a KeyError."""
    import json

    from tbnb.format.proto import summary_pb2, tensor_pb2, types_pb2

    model = {"class_name": "Sequential", "config": {"name": "seq", "layers": [
        {"class_name": "Dense", "config": {"name": "dense", "units": 2}}]}}
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="graph_keras_model"))
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[json.dumps(model).encode()])
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("loss", 1.0, 1)
        w.add_event(event_pb2.Event(wall_time=2.0, step=0, summary=summary_pb2.Summary(value=[
            summary_pb2.Summary.Value(tag="keras", metadata=meta, tensor=tensor)])))
    lg = tbnb.load(tmp_path)
    assert lg.graphs("run") == ["keras"]
    assert lg.graph("run") is None  # no op graph logged
    g = lg.graph("run", "keras")
    assert any("dense" in name for name in g.names)
    with pytest.raises(KeyError):
        lg.graph("run", "loss")
