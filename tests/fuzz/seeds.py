"""Seed event files for the fuzzer, written by every writer at hand, cached on disk.

The seeds are real files: torch's and tensorboardX's ``SummaryWriter`` (every summary kind they
offer), ``tbnb.testing.EventWriter`` in its TF1 and TF2 forms, and TensorFlow's own forms built
with the reader's protobufs (TensorFlow itself is not a dependency). They are written once into
a git-ignored cache folder (small data: a few KB per file) and read back as bytes; a writer that
is not installed is left out, so the fuzzer still runs with what there is.

Run ``python -m tests.fuzz.seeds`` to (re)build the cache and list it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TBNB_FUZZ_CACHE", ROOT / ".fuzz-cache"))
#: Bump when the seed set changes, so that an old cache is rebuilt.
VERSION = "5"


def _writer_kinds() -> list[str]:
    kinds = ["tbnb", "tfform"]
    if importlib.util.find_spec("torch") is not None:
        kinds += ["torch", "torch-new-style"]
    if importlib.util.find_spec("tensorboardX") is not None:
        kinds.append("tbx")
    return kinds


def _write_summary_writer(kind: str, root: Path) -> None:
    """Every summary kind of torch's or tensorboardX's SummaryWriter, a few small steps each."""
    if kind == "torch":
        import torch
        from torch.utils.tensorboard import SummaryWriter

        w = SummaryWriter(log_dir=str(root / "run"))
    else:
        from tensorboardX import SummaryWriter

        w = SummaryWriter(logdir=str(root / "run"))
    rng = np.random.default_rng(0)
    for step in range(12):
        w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_scalars("multi", {"a": float(step), "b": -float(step)}, step)
        if step % 3 == 0:
            w.add_histogram("weights", rng.normal(size=32), step)
            w.add_image("img", rng.integers(0, 255, size=(3, 4, 4), dtype=np.uint8), step)
            w.add_text("note", f"step **{step}**", step)
            w.add_pr_curve("pr", rng.random(16) > 0.5, rng.random(16), step, num_thresholds=5)
            if kind == "torch" or importlib.util.find_spec("soundfile") is not None:  # tbx audio needs it
                w.add_audio("sound", np.sin(np.arange(64) / 3.0).astype(np.float32), step, sample_rate=800)
    w.add_custom_scalars({"group": {"chart": ["Multiline", ["loss", "multi"]]}})
    vertices = np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=np.float32)
    faces = np.array([[[0, 1, 2]]], dtype=np.int32)
    w.add_mesh("mesh", vertices=vertices, faces=faces, global_step=0)
    w.add_hparams({"lr": 0.1, "opt": "sgd"}, {"hp/metric": 0.5})
    w.add_embedding(rng.normal(size=(4, 3)), metadata=["a", "b", "c", "d"], global_step=0)
    if kind == "torch":
        model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
        w.add_graph(model, torch.zeros(1, 3))
    w.close()


def _write_tbnb(root: Path, tf2: bool) -> None:
    from tbnb.testing import EventWriter

    rng = np.random.default_rng(1)
    w = EventWriter(root / "run", start_time=1_600_000_000.0)
    for step in range(16):
        t = 1_600_000_001.0 + step
        w.add_scalar("loss", float(np.float32(1.0 / (step + 1))), step, wall_time=t, tf2=tf2)
        w.add_scalar("acc", step / 16.0, step, wall_time=t, tf2=tf2)
        if step % 4 == 0:
            w.add_histogram("h", rng.normal(size=20), step, wall_time=t, tf2=tf2, bins=5)
            w.add_image("img", rng.integers(0, 255, size=(2, 3, 3, 3), dtype=np.uint8), step, wall_time=t, tf2=tf2)
            w.add_audio("au", np.sin(np.arange(32) / 2.0), 800, step, wall_time=t, tf2=tf2, label="x")
            w.add_text("txt", f"hello {step}", step, wall_time=t)
            w.add_pr_curve("pr", rng.random(8) > 0.5, rng.random(8), step, num_thresholds=4, wall_time=t)
    w.add_session_start(8, wall_time=1_600_000_100.0)
    w.add_scalar("loss", 0.5, 9, wall_time=1_600_000_101.0, tf2=tf2)
    w.add_graph_def(b"\n\x0b\n\x01x\x12\x06Relu", wall_time=1_600_000_102.0)
    w.close()


def _write_tbnb_long(root: Path, tf2: bool) -> None:
    """A longer run: the reader's bulk paths only take files of many records (and groups of
    many alike), so short seeds would test the general path twice."""
    from tbnb.testing import EventWriter

    rng = np.random.default_rng(2)
    w = EventWriter(root / "run", start_time=1_700_000_000.0)
    for step in range(160):
        t = 1_700_000_001.0 + 0.5 * step
        for k, tag in enumerate(("loss", "acc", "lr")):
            w.add_scalar(tag, float(np.float32(rng.normal() + k)), step, wall_time=t, tf2=tf2)
        if step % 8 == 0:
            w.add_histogram("h", rng.normal(size=16), step, wall_time=t, tf2=tf2, bins=4)
        if step % 40 == 0:
            w.add_image("img", rng.integers(0, 255, size=(2, 2, 3), dtype=np.uint8), step, wall_time=t, tf2=tf2)
    w.close()


def _write_tf_form(root: Path) -> None:
    """What TensorFlow's writers put in files, built with protobufs: TF2 tensors with data_class,
    metadata on the first value only, a ``[k]`` string audio tensor without labels, a
    meta_graph_def, tagged run metadata and a summary with a ``node_name`` instead of a tag."""
    from tbnb.format.framing import encode_record
    from tbnb.format.proto import event_pb2, plugin_data_pb2, summary_pb2, tensor_pb2, types_pb2

    def md(plugin: str, content: bytes, data_class: int) -> summary_pb2.SummaryMetadata:
        m = summary_pb2.SummaryMetadata(data_class=data_class)
        m.plugin_data.plugin_name, m.plugin_data.content = plugin, content
        return m

    events = [event_pb2.Event(wall_time=1_500_000_000.0, file_version="brain.Event:2")]
    for step in range(10):
        t = 1_500_000_001.0 + step
        e = event_pb2.Event(wall_time=t, step=step)
        scalar = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[0.25 * step])
        v = e.summary.value.add(tag="epoch_loss", tensor=scalar)
        if step == 0:
            v.metadata.CopyFrom(md("scalars", b"", summary_pb2.DATA_CLASS_SCALAR))
        dbl = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, tensor_content=np.float64(step).tobytes())
        v = e.summary.value.add(tag="lr", tensor=dbl)
        if step == 0:
            v.metadata.CopyFrom(md("scalars", b"", summary_pb2.DATA_CLASS_SCALAR))
        if step % 3 == 0:
            hist = np.array([[0.0, 1.0, step], [1.0, 2.0, 1.0]], dtype=np.float64)
            ht = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, tensor_content=hist.tobytes())
            ht.tensor_shape.dim.add(size=2)
            ht.tensor_shape.dim.add(size=3)
            v = e.summary.value.add(tag="hist", tensor=ht)
            if step == 0:
                v.metadata.CopyFrom(md("histograms", b"", summary_pb2.DATA_CLASS_TENSOR))
            wav = b"RIFF" + bytes(40)
            at = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[wav, wav])
            at.tensor_shape.dim.add(size=2)
            content = plugin_data_pb2.AudioPluginData(encoding=plugin_data_pb2.AudioPluginData.WAV)
            e.summary.value.add(tag="audio", tensor=at,
                                metadata=md("audio", content.SerializeToString(), summary_pb2.DATA_CLASS_BLOB_SEQUENCE))
            txt = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[b"# hi"])
            e.summary.value.add(tag="text", tensor=txt,
                                metadata=md("text", b"", summary_pb2.DATA_CLASS_TENSOR))
        events.append(e)
    old = event_pb2.Event(wall_time=1_500_000_020.0, step=11)
    old.summary.value.add(node_name="legacy", simple_value=3.0)
    events.append(old)
    events.append(event_pb2.Event(wall_time=1_500_000_021.0, meta_graph_def=b"\n\x02\n\x00"))
    events.append(event_pb2.Event(wall_time=1_500_000_022.0, step=12,
                                  tagged_run_metadata=event_pb2.TaggedRunMetadata(tag="trace", run_metadata=b"\x0a\x00")))
    path = root / "run" / "events.out.tfevents.1500000000.tf-host.1.v2"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(encode_record(e.SerializeToString()) for e in events))


def _write_torch_new_style(root: Path) -> None:
    """torch's ``new_style`` scalars (the same metadata on every value, float and double), long
    enough for the bulk scalar path, beside default scalars of the same writer."""
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(root / "run"))
    for step in range(80):
        w.add_scalar("loss", 1.0 / (step + 1), step, new_style=True)
        w.add_scalar("lr", 0.1 * 0.99**step, step, new_style=True, double_precision=True)
        if step % 10 == 0:
            w.add_scalar("epoch", float(step // 10), step)
    w.close()


def _build_one(kind: str, root: Path) -> None:
    if kind == "torch-new-style":
        _write_torch_new_style(root)
    elif kind in ("torch", "tbx"):
        _write_summary_writer(kind, root)
    elif kind == "tbnb":
        _write_tbnb(root / "tf1", tf2=False)
        _write_tbnb(root / "tf2", tf2=True)
        _write_tbnb_long(root / "long-tf1", tf2=False)
        _write_tbnb_long(root / "long-tf2", tf2=True)
    else:
        _write_tf_form(root)


def build(cache: Path = CACHE) -> Path:
    """Write every writer's seeds under ``cache/seeds-<VERSION>`` unless already there.

    torch and tensorboardX are run in a child process so that the fuzzing process neither pays
    for importing torch nor carries its memory (which would blur the allocation check).
    """
    target = cache / f"seeds-{VERSION}"
    if (target / "DONE").exists():
        return target
    tmp = cache / f"seeds-{VERSION}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    for kind in _writer_kinds():
        subprocess.run([sys.executable, "-m", "tests.fuzz.seeds", "--one", kind, str(tmp / kind)],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    (target / "DONE").write_text("")
    return target


def load_seeds(cache: Path = CACHE) -> dict[str, bytes]:
    """``{name: file bytes}`` of every seed event file (name = writer and path inside it)."""
    root = build(cache)
    seeds = {}
    for path in sorted(root.rglob("*tfevents*")):
        if path.is_file():
            seeds[str(path.relative_to(root))] = path.read_bytes()
    return seeds


def projector_files(cache: Path = CACHE) -> dict[str, bytes]:
    """Projector files written by the SummaryWriters (config, tensors, metadata), by relative path."""
    root = build(cache)
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and (path.suffix in (".pbtxt", ".tsv")):
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        _build_one(argv[1], Path(argv[2]))
        return
    for name, data in load_seeds().items():
        print(f"{len(data):8d}  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
