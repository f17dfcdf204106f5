"""``tbnb inspect``: output layout, statistics, TF2 plugin fields, errors, and parity with TensorBoard.

Event files are written by real writers (tensorboardX, ``torch.utils.tensorboard``) wherever one
exists, and by hand with our protos only for TF2-style records, so the tests see what users'
logdirs actually contain.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from tbnb.cli import main
from tbnb.format.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
from tbnb.writer import encode_record

SEP = "=" * 70


# ---------------------------------------------------------------------------------------------
# Helpers


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``tbnb`` in-process; return (exit code, stdout, stderr)."""
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def block(out: str, header: str) -> list[str]:
    """The lines after ``header`` up to the next separator."""
    lines = out.splitlines()
    start = lines.index(header) + 1
    end = lines.index(SEP, start)
    return lines[start:end]


def parse_fields(lines: list[str]) -> dict[str, list[str] | None]:
    """``{field: [indented lines, stripped]}``, or None for a ``field -`` line."""
    fields: dict[str, list[str] | None] = {}
    current = None
    for line in lines:
        if line.startswith("   "):
            assert current is not None
            fields[current].append(line.strip())  # type: ignore[union-attr]
        elif line.endswith(" -"):
            current = None
            fields[line[:-2]] = None
        else:
            current = line
            fields[current] = []
    return fields


def stats(out: str, unit: str, tag: str = "") -> dict[str, dict[str, str] | None]:
    """Parse a unit's "Event statistics" block into ``{field: {key: printed value}}``."""
    header = f"Event statistics for tag {tag} in {unit}:" if tag else f"Event statistics for {unit}:"
    result: dict[str, dict[str, str] | None] = {}
    for name, rows in parse_fields(block(out, header)).items():
        result[name] = None if rows is None else dict(row.split(None, 1) for row in rows)
    return result


def tags(out: str, unit: str) -> dict[str, list[str] | None]:
    """Parse a unit's "These tags are in" block into ``{field: [tags]}``."""
    return parse_fields(block(out, f"These tags are in {unit}:"))


def single_file(directory: Path) -> Path:
    """The one event file a writer left in ``directory``."""
    (path,) = [p for p in directory.iterdir() if "tfevents" in p.name]
    return path


def rename_in_order(directory: Path, index: int) -> None:
    """Give the newest unordered event file a name that sorts as the ``index``-th.

    Writers name files by second, pid and a process-wide counter, so two writers in one test may
    not sort in creation order; the reader (like TensorBoard) relies on name order.
    """
    for path in directory.iterdir():
        if "tfevents" in path.name and not path.name.startswith("events.out.tfevents.00"):
            path.rename(directory / f"events.out.tfevents.{index:010d}.testhost")


def tf2_event(step: int, tag: str, value: float, plugin: str | None) -> event_pb2.Event:
    """A TF2-style scalar: a rank-0 float tensor, with metadata only when ``plugin`` is given."""
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[value])
    summary_value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if plugin is not None:
        summary_value.metadata.plugin_data.plugin_name = plugin
        summary_value.metadata.data_class = summary_pb2.DATA_CLASS_SCALAR
    return event_pb2.Event(
        wall_time=1.0 + step, step=step, summary=summary_pb2.Summary(value=[summary_value])
    )


def write_events(path: Path, events: list[event_pb2.Event]) -> None:
    """Write ``events`` after the usual file_version record, framed as TFRecords."""
    head = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
    path.write_bytes(b"".join(encode_record(e.SerializeToString()) for e in [head, *events]))


def tensorboard_inspect(monkeypatch: pytest.MonkeyPatch, **kwargs: str) -> str:
    """What TensorBoard's own inspector prints for the same arguments.

    Its directory listing order is unspecified (``os.listdir``); we list sorted, so listing is
    made sorted for it too. That is the only normalisation.
    """
    from tensorboard.backend.event_processing import event_file_inspector

    real_listdir = os.listdir
    monkeypatch.setattr(os, "listdir", lambda path=".": sorted(real_listdir(path)))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        event_file_inspector.inspect(**kwargs)
    monkeypatch.undo()
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# Logdirs


@pytest.fixture(scope="module")
def tbx_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TF1-only data written by tensorboardX: two runs (one nested), a graph, a purge restart."""
    from tensorboardX import SummaryWriter

    torch = pytest.importorskip("torch")

    logdir = tmp_path_factory.mktemp("tbx")
    train = logdir / "train"
    with SummaryWriter(str(train)) as w:
        with warnings.catch_warnings():  # torch.jit.trace deprecation, not ours to fix
            warnings.simplefilter("ignore", DeprecationWarning)
            w.add_graph(torch.nn.Linear(3, 2), torch.zeros(1, 3))  # a graph_def event at step 0
        for step in [0, 1, 2, 5, 3, 6]:  # 5 -> 3 is out of order
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_scalar("acc", step / 10, step)
        for step in (10, 20):
            w.add_histogram("weights", np.arange(100.0) + step, step)
        w.add_image("input", np.zeros((3, 8, 8), dtype=np.float32), 7)
        w.add_audio("sound", np.zeros(800, dtype=np.float32), 4, sample_rate=8000)
    rename_in_order(train, 1)
    with SummaryWriter(str(train), purge_step=4) as w:
        w.add_scalar("loss", 0.5, 4)
    rename_in_order(train, 2)
    with SummaryWriter(str(logdir / "eval" / "inner")) as w:
        w.add_scalar("loss", 2.0, 100)
    return logdir


@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run written by torch's SummaryWriter, including text, a TF2-style scalar and a purge."""
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    logdir = tmp_path_factory.mktemp("torch")
    run_dir = logdir / "run"
    writer = torch_tb.SummaryWriter(str(run_dir))
    for step in range(10):
        writer.add_scalar("train/loss", 1.0 / (step + 1), step)
        writer.add_scalar("train/lr", 0.1, step)
        if step == 1:
            writer.add_scalar("new_style", 3.0, step, new_style=True)
    for step in (0, 5):
        writer.add_histogram("weights", np.random.default_rng(step).normal(size=100), step)
    writer.add_image("sample", np.zeros((3, 4, 4), dtype=np.uint8), 9)
    writer.add_text("notes", "hello", 2)
    writer.close()
    rename_in_order(run_dir, 1)
    writer = torch_tb.SummaryWriter(str(run_dir), purge_step=6)
    for step in (6, 7):
        writer.add_scalar("train/loss", 0.5, step)
    writer.close()
    rename_in_order(run_dir, 2)
    return logdir


# ---------------------------------------------------------------------------------------------
# Layout and statistics


def test_layout_and_separators(capsys: pytest.CaptureFixture[str], tbx_logdir: Path) -> None:
    code, out, err = run(capsys, "inspect", "--logdir", str(tbx_logdir))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[:4] == [SEP, "Processing event files... (this can take a few minutes)", SEP, ""]
    train, inner = str(tbx_logdir / "train"), str(tbx_logdir / "eval" / "inner")
    assert lines[4:8] == ["Found event files in:", inner, train, ""]
    assert all(len(line) == 70 for line in lines if line.startswith("="))
    assert out.endswith(SEP + "\n\n")
    # Two units, each: tags block, separator, statistics block, separator.
    assert lines.count(SEP) == 2 + 2 * 2
    assert "Problems:" not in out


def test_tags_listed_under_fields(capsys: pytest.CaptureFixture[str], tbx_logdir: Path) -> None:
    _, out, _ = run(capsys, "inspect", "--logdir", str(tbx_logdir))
    listed = tags(out, str(tbx_logdir / "train"))
    assert listed == {
        "audio": ["sound"],
        "histograms": ["weights"],
        "images": ["input"],
        "scalars": ["acc", "loss"],
        "tensor": None,
    }


def test_statistics(capsys: pytest.CaptureFixture[str], tbx_logdir: Path) -> None:
    _, out, _ = run(capsys, "inspect", "--logdir", str(tbx_logdir))
    got = stats(out, str(tbx_logdir / "train"))
    # Scalars: 0 1 2 5 3 6 (two tags each), then the restart writes 4.
    assert got["scalars"] == {
        "first_step": "0",
        "last_step": "4",
        "max_step": "6",
        "min_step": "0",
        "num_steps": "7",
        "outoforder_steps": "[(5, 3), (6, 4)]",
    }
    assert got["histograms"] == {
        "first_step": "10",
        "last_step": "20",
        "max_step": "20",
        "min_step": "10",
        "num_steps": "2",
        "outoforder_steps": "[]",
    }
    assert got["images"] is not None and got["images"]["num_steps"] == "1"
    assert got["audio"] is not None and got["audio"]["first_step"] == "4"
    assert got["sessionlog:start"] == {"outoforder_steps": "[]", "steps": "[4]"}
    assert got["graph"] is not None and got["graph"]["num_steps"] == "1"
    for absent in ("sessionlog:checkpoint", "sessionlog:stop", "tensor"):
        assert got[absent] is None
    assert "sessionlog:stop -" in block(out, f"Event statistics for {tbx_logdir / 'train'}:")


def test_torch_writer(capsys: pytest.CaptureFixture[str], torch_logdir: Path) -> None:
    code, out, _ = run(capsys, "inspect", "--logdir", str(torch_logdir))
    assert code == 0
    unit = str(torch_logdir / "run")
    listed = tags(out, unit)
    # torch's new_style scalar is a TF2 tensor with plugin "scalars": shown with the others.
    assert listed["scalars"] == ["new_style", "train/loss", "train/lr"]
    assert listed["histograms"] == ["weights"]
    assert listed["images"] == ["sample"]
    assert listed["text"] == ["notes/text_summary"]  # torch appends the suffix
    assert listed["tensor"] is None
    got = stats(out, unit)
    assert got["scalars"] is not None
    assert got["scalars"]["num_steps"] == "10"
    assert got["scalars"]["min_step"] == "0" and got["scalars"]["max_step"] == "9"
    assert got["scalars"]["first_step"] == "0" and got["scalars"]["last_step"] == "7"
    # The purge_step restart goes back from step 9 to step 6.
    assert got["scalars"]["outoforder_steps"] == "[(9, 6)]"
    assert got["sessionlog:start"] == {"outoforder_steps": "[]", "steps": "[6]"}
    assert got["text"] is not None and got["text"]["first_step"] == "2"
    assert got["tensor"] is None


def test_tf2_records_by_plugin(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run_dir = tmp_path / "tf2"
    run_dir.mkdir()
    write_events(
        run_dir / "events.out.tfevents.0000000001.host",
        [
            tf2_event(0, "epoch_loss", 1.0, "scalars"),  # metadata on the first event only
            tf2_event(1, "epoch_loss", 0.5, None),
            tf2_event(2, "epoch_loss", 0.25, None),
            tf2_event(1, "raw", 7.0, ""),  # metadata without a plugin: stays a plain tensor
            tf2_event(3, "bare", 7.0, None),  # no metadata at all
        ],
    )
    _, out, _ = run(capsys, "inspect", "--logdir", str(tmp_path))
    unit = str(run_dir)
    listed = tags(out, unit)
    assert listed["scalars"] == ["epoch_loss"]
    assert listed["tensor"] == ["bare", "raw"]
    got = stats(out, unit)
    assert got["scalars"] == {
        "first_step": "0",
        "last_step": "2",
        "max_step": "2",
        "min_step": "0",
        "num_steps": "3",
        "outoforder_steps": "[]",
    }
    assert got["tensor"] is not None and got["tensor"]["outoforder_steps"] == "[]"
    assert got["tensor"]["first_step"] == "1" and got["tensor"]["last_step"] == "3"


def test_tag_filter(capsys: pytest.CaptureFixture[str], tbx_logdir: Path) -> None:
    code, out, _ = run(capsys, "inspect", "--logdir", str(tbx_logdir), "--tag", "acc")
    assert code == 0
    train = str(tbx_logdir / "train")
    assert "These tags are in" not in out
    # Only fields holding the tag are shown; event-level fields (session log) are not.
    assert stats(out, train, tag="acc") == {
        "scalars": {
            "first_step": "0",
            "last_step": "6",
            "max_step": "6",
            "min_step": "0",
            "num_steps": "6",
            "outoforder_steps": "[(5, 3)]",
        }
    }
    assert stats(out, str(tbx_logdir / "eval" / "inner"), tag="acc") == {}


def test_event_file_option(capsys: pytest.CaptureFixture[str], tbx_logdir: Path) -> None:
    path = single_file(tbx_logdir / "eval" / "inner")
    code, out, _ = run(capsys, "inspect", "--event_file", str(path), "--tag", "loss")
    assert code == 0
    assert "Found event files in:" not in out
    assert stats(out, str(path), tag="loss")["scalars"] == {
        "first_step": "100",
        "last_step": "100",
        "max_step": "100",
        "min_step": "100",
        "num_steps": "1",
        "outoforder_steps": "[]",
    }


# ---------------------------------------------------------------------------------------------
# Damage and errors


def test_corrupted_record_is_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tensorboardX import SummaryWriter

    with SummaryWriter(str(tmp_path)) as w:
        for step in range(5):
            w.add_scalar("loss", float(step), step)
    path = single_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF  # inside the last record's payload: its data CRC no longer matches
    path.write_bytes(bytes(data))
    code, out, _ = run(capsys, "inspect", "--logdir", str(tmp_path))
    assert code == 0
    got = stats(out, str(tmp_path))
    assert got["scalars"] is not None
    assert got["scalars"]["num_steps"] == "4" and got["scalars"]["last_step"] == "3"
    problems = block(out, "Problems:")
    assert len(problems) == 1
    assert str(path) in problems[0] and "CRC" in problems[0]
    assert out.endswith(SEP + "\n\n")


def test_truncated_file_is_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write_events(
        tmp_path / "events.out.tfevents.1.host", [tf2_event(s, "x", 1.0, "scalars") for s in range(3)]
    )
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(path.read_bytes()[:-5])
    _, out, _ = run(capsys, "inspect", "--logdir", str(tmp_path))
    got = stats(out, str(tmp_path))
    assert got["scalars"] is not None and got["scalars"]["last_step"] == "1"
    assert "not a complete record" in block(out, "Problems:")[0]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing", "logdir does not exist"),
        (lambda p: (p / "file.txt").write_text("x") and p / "file.txt", "logdir is not a directory"),
        (lambda p: p, "no event files found within logdir"),
    ],
)
def test_logdir_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path, make, message: str) -> None:
    target = make(tmp_path)
    code, out, err = run(capsys, "inspect", "--logdir", str(target))
    assert code == 1
    assert out == ""
    assert err == f"tbnb inspect: error: {message}{err.split(message, 1)[1]}"
    assert err.count("\n") == 1 and str(target) in err and "Traceback" not in err


def test_event_file_given_as_logdir_hints(capsys: pytest.CaptureFixture[str], tbx_logdir: Path) -> None:
    path = single_file(tbx_logdir / "eval" / "inner")
    code, _, err = run(capsys, "inspect", "--logdir", str(path))
    assert code == 1 and "--event_file" in err


def test_missing_event_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "inspect", "--event_file", str(tmp_path / "nope"))
    assert code == 1 and err.startswith("tbnb inspect: error: event file does not exist")


def test_usage_errors_return_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["inspect"]) == 2
    assert main(["inspect", "--logdir", str(tmp_path), "--event_file", "x"]) == 2
    assert main([]) == 2
    assert main(["--help"]) == 0
    capsys.readouterr()


def test_python_dash_m(tbx_logdir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tbnb", "inspect", "--logdir", str(tbx_logdir / "missing")],
        check=False,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.strip() == f"tbnb inspect: error: logdir does not exist: {tbx_logdir / 'missing'}"


# ---------------------------------------------------------------------------------------------
# Parity with TensorBoard's inspector


def test_matches_tensorboard_logdir(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tbx_logdir: Path
) -> None:
    expected = tensorboard_inspect(monkeypatch, logdir=str(tbx_logdir))
    _, out, _ = run(capsys, "inspect", "--logdir", str(tbx_logdir))
    assert out == expected


def test_matches_tensorboard_tag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tbx_logdir: Path
) -> None:
    expected = tensorboard_inspect(monkeypatch, logdir=str(tbx_logdir), tag="loss")
    _, out, _ = run(capsys, "inspect", "--logdir", str(tbx_logdir), "--tag", "loss")
    assert out == expected


def test_matches_tensorboard_event_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tbx_logdir: Path
) -> None:
    path = str(min((tbx_logdir / "train").iterdir()))
    expected = tensorboard_inspect(monkeypatch, event_file=path)
    _, out, _ = run(capsys, "inspect", "--event_file", path)
    assert out == expected


def test_demo_writes_and_summarises_the_example_logdir(tmp_path: Path) -> None:
    import io

    from tbnb.cli import build_parser, run_demo

    args = build_parser().parse_args(["demo", "--logdir", str(tmp_path / "demo")])
    out = io.StringIO()
    assert run_demo(args, out) == 0
    text = out.getvalue()
    assert "wrote an example logdir" in text
    assert "run mnist/lr_0.1" in text and "scalars      loss/train  (300 points)" in text
    assert "histograms   weights/dense_1" in text
    assert "loaded 3 runs" in text and "problems: 0" in text
    again = io.StringIO()
    run_demo(args, again)  # a second time reuses the logdir
    assert "wrote" not in again.getvalue()


def test_demo_lab_prepares_the_notebook_and_starts_jupyterlab(tmp_path: Path) -> None:
    import io

    import nbformat

    from tbnb import demo

    calls: list[tuple[str, list[str]]] = []
    out = io.StringIO()
    code = demo.run("unused", str(tmp_path / "lab"), out, execute=lambda f, a: calls.append((f, list(a))))
    assert code == 0
    notebook = tmp_path / "lab" / "quickstart.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    assert any("tbnb" in c.source for c in nb.cells if c.cell_type == "code")
    assert (tmp_path / "lab" / "demo-runs" / "mnist" / "lr_0.1").is_dir()
    assert calls and calls[0][1][1:4] == ["-m", "jupyter", "lab"]
    assert calls[0][1][4] == str(notebook.resolve()) and str((tmp_path / "lab").resolve()) in calls[0][1][5]
