"""The images, audio and text messages (``blobs``, ``blob``, ``text``) and the settings of the
dashboards beyond scalars, driven as the page drives them, on logdirs written by tbnb's
EventWriter and by torch's SummaryWriter."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from tbnb.board import protocol
from tbnb.format.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
from tbnb.testing import EventWriter, encode_png, encode_wav

from ..conftest import T0, Page

RNG = np.random.default_rng(7)
DIGITS = [RNG.integers(0, 256, size=(6, 4, 3), dtype=np.uint8) for _ in range(2)]  # H=6, W=4
BATCH = RNG.integers(0, 256, size=(3, 5, 7, 4), dtype=np.uint8)  # N=3, H=5, W=7, RGBA
TF1_IMAGE = RNG.integers(0, 256, size=(8, 9, 1), dtype=np.uint8)
TONE = np.sin(np.linspace(0, 40, 800))
VOICE = [np.cos(np.linspace(0, 10 * (s + 1), 1600)) / 2 for s in range(2)]
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
HTML = b"<html><body><script>alert(1)</script></body></html>"


def raw_tensor_event(tag: str, plugin: str, items: list[bytes], shape: list[int], step: int) -> event_pb2.Event:
    """A string tensor summary with any bytes (what a careless or hostile writer could log)."""
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=items, tensor_shape=tensor_pb2.TensorShapeProto(
        dim=[tensor_pb2.TensorShapeProto.Dim(size=d) for d in shape]))
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    value.metadata.plugin_data.plugin_name = plugin
    event = event_pb2.Event(wall_time=T0 + 50, step=step)
    event.summary.value.append(value)
    return event


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("media")
    with EventWriter(root / "media", start_time=T0) as w:
        for step, image in enumerate(DIGITS):
            w.add_image("digits", image, step, wall_time=T0 + 10 + step, tf2=True)
        w.add_image("batch", BATCH, 0, wall_time=T0 + 10, tf2=True)
        w.add_image("tf1_image", TF1_IMAGE, 0, wall_time=T0 + 10)
        w.add_audio("tone", TONE, 8000, 0, wall_time=T0 + 10)  # TF1 Summary.Audio
        for step, clip in enumerate(VOICE):
            w.add_audio("voice", clip, 16000, step, wall_time=T0 + 20 + step, tf2=True, label=f"take *{step}*")
        for step in range(3):
            w.add_text("notes", f"# Step {step}\n\n<b>raw html</b> stays source", step, wall_time=T0 + 30 + step)
        w.add_text("table", np.array([["name", "value"], ["lr", "0.1"], ["é", "ü"]]), 0, wall_time=T0 + 30)
        w.add_text("cube", np.array([[[f"{i}{j}{k}" for k in range(2)] for j in range(2)] for i in range(2)]), 0,
                   wall_time=T0 + 30)
        w.add_event(raw_tensor_event("latin1", "text", [b"caf\xe9"], [], 0))
        w.add_event(raw_tensor_event("evil_image", "images", [b"10", b"10", SVG], [3], 0))
        w.add_event(raw_tensor_event("evil_audio", "audio", [HTML, b""], [1, 2], 0))
        w.add_histogram("weights", np.arange(5.0), 0, wall_time=T0 + 10, tf2=True)
        w.add_scalar("loss", 0.5, 0, wall_time=T0 + 1)
    with EventWriter(root / "other", start_time=T0 + 100) as w:
        w.add_image("digits", DIGITS[1], 5, wall_time=T0 + 105, tf2=True)
        w.add_text("notes", "other run", 5, wall_time=T0 + 105)
    with EventWriter(root / "plain", start_time=T0) as w:
        w.add_scalar("loss", 1.0, 0, wall_time=T0 + 1)
    return root


@pytest.fixture
def page(make_board, logdir: Path) -> Page:
    return Page(make_board(logdir))


def blobs(page: Page, tag: str, runs: list[str]) -> dict:
    return page.decoded({"type": "blobs", "id": 4, "tag": tag, "runs": runs})


def blob(page: Page, tag: str, step: int = 0, index: int | None = 0, run: str = "media") -> tuple[dict, list]:
    request = {"type": "blob", "id": 5, "tag": tag, "run": run, "step": step, "index": index}
    if index is None:
        del request["index"]
    return page.ask(request)


def text(page: Page, tag: str, run: str = "media") -> dict:
    return page.decoded({"type": "text", "id": 6, "tag": tag, "run": run})


def error_of(page: Page, content: dict) -> str:
    reply, buffers = page.ask({"id": 11, **content})
    assert reply["type"] == "error" and reply["id"] == 11 and buffers == []
    return reply["message"]


def test_index_lists_every_tag_with_its_plugin(page: Page) -> None:
    tags = {t["tag"]: t for t in page.decoded({"type": "index"})["tags"]}
    assert {t: tags[t]["plugin"] for t in ("digits", "batch", "tf1_image", "tone", "voice", "notes", "table",
                                           "weights", "loss")} == {
        "digits": "images", "batch": "images", "tf1_image": "images", "tone": "audio", "voice": "audio",
        "notes": "text", "table": "text", "weights": "histograms", "loss": "scalars"}
    assert tags["digits"]["runs"] == ["media", "other"] and tags["digits"]["points"] == {"media": 2, "other": 1}


# -- images -----------------------------------------------------------------------------------------

def test_blobs_lists_sampled_steps_without_bytes(page: Page) -> None:
    reply, buffers = page.ask({"type": "blobs", "id": 4, "tag": "digits", "runs": ["other", "plain", "media"]})
    assert buffers == []
    assert (reply["type"], reply["id"], reply["tag"], reply["plugin"]) == ("blobs", 4, "digits", "images")
    assert reply["runs"] == [  # request order; "plain" has no such tag and is skipped
        {"run": "other", "steps": [5], "wall_times": [T0 + 105], "counts": [1], "labels": None, "sample_rates": None},
        {"run": "media", "steps": [0, 1], "wall_times": [T0 + 10, T0 + 11], "counts": [1, 1], "labels": None,
         "sample_rates": None}]
    assert blobs(page, "batch", ["media"])["runs"][0]["counts"] == [3]


def test_blob_is_the_png(page: Page) -> None:
    reply, buffers = blob(page, "digits", step=1)
    assert reply == {"type": "blob", "id": 5, "tag": "digits", "run": "media", "step": 1, "index": 0,
                     "mime": "image/png", "size": len(buffers[0]), "width": 4, "height": 6, "status": "ok"}
    assert bytes(buffers[0]) == encode_png(DIGITS[1])


def test_blob_of_a_batch(page: Page) -> None:
    for index in range(3):
        reply, buffers = blob(page, "batch", index=index)
        assert (reply["index"], reply["width"], reply["height"], reply["status"]) == (index, 7, 5, "ok")
        assert bytes(buffers[0]) == encode_png(BATCH[index])
    assert "index 3 is out of range: this step has 3 image(s)" in error_of(
        page, {"type": "blob", "tag": "batch", "run": "media", "step": 0, "index": 3})
    reply, buffers = blob(page, "batch", index=None)  # no index: the first image
    assert reply["index"] == 0 and bytes(buffers[0]) == encode_png(BATCH[0])


def test_blob_of_a_tf1_image(page: Page) -> None:
    from PIL import Image

    reply, buffers = blob(page, "tf1_image")
    assert (reply["mime"], reply["width"], reply["height"]) == ("image/png", 9, 8)
    decoded = np.asarray(Image.open(io.BytesIO(bytes(buffers[0]))))
    assert np.array_equal(decoded, TF1_IMAGE[:, :, 0])


def test_size_limit(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    size = len(encode_png(DIGITS[0]))
    page.board.max_blob_bytes = size - 1
    reply, buffers = blob(page, "digits")
    assert (reply["status"], reply["size"], reply["mime"], buffers) == ("too_large", size, "image/png", [])
    page.board.max_blob_bytes = size
    reply, buffers = blob(page, "digits")
    assert reply["status"] == "ok" and len(buffers[0]) == size


def test_svg_and_html_are_never_sent(page: Page) -> None:
    reply, buffers = blob(page, "evil_image")
    assert (reply["status"], reply["mime"], reply["size"], buffers) == ("unsupported", None, len(SVG), [])
    assert (reply["width"], reply["height"]) == (10, 10)
    reply, buffers = blob(page, "evil_audio")
    assert (reply["status"], reply["mime"], reply["size"], buffers) == ("unsupported", None, len(HTML), [])


# -- audio ------------------------------------------------------------------------------------------

def test_audio_listing_and_clips(page: Page) -> None:
    (voice,) = blobs(page, "voice", ["media"])["runs"]
    assert voice == {"run": "media", "steps": [0, 1], "wall_times": [T0 + 20, T0 + 21], "counts": [1, 1],
                     "labels": ["take *0*", "take *1*"], "sample_rates": [16000.0, 16000.0]}
    reply = blobs(page, "tone", ["media"])
    assert reply["plugin"] == "audio"
    assert reply["runs"][0]["labels"] == [""] and reply["runs"][0]["sample_rates"] == [8000.0]
    for tag, step, clip, rate in (("voice", 1, VOICE[1], 16000), ("tone", 0, TONE, 8000)):
        reply, buffers = blob(page, tag, step=step)
        assert (reply["mime"], reply["status"], reply["width"], reply["height"]) == ("audio/wav", "ok", None, None)
        assert bytes(buffers[0]) == encode_wav(clip, rate)


# -- text -------------------------------------------------------------------------------------------

def test_text_items(page: Page) -> None:
    reply = text(page, "notes")
    assert (reply["type"], reply["id"], reply["tag"], reply["run"]) == ("text", 6, "notes", "media")
    source = "# Step {}\n\n<b>raw html</b> stays source"
    assert reply["items"] == [
        {"step": s, "wall_time": T0 + 30 + s, "kind": "markdown", "markdown": source.format(s), "rows": None,
         "size": len(source.format(s)), "status": "ok"} for s in range(3)]
    (table,) = text(page, "table")["items"]
    assert (table["kind"], table["markdown"]) == ("table", None)
    assert table["rows"] == [["name", "value"], ["lr", "0.1"], ["é", "ü"]]
    assert text(page, "cube")["items"][0]["rows"] == [["000", "001"], ["010", "011"]]
    assert text(page, "latin1")["items"][0]["markdown"] == "caf\ufffd"
    assert blobs(page, "notes", ["media", "other"])["runs"][1] == {
        "run": "other", "steps": [5], "wall_times": [T0 + 105], "counts": [1], "labels": None, "sample_rates": None}


def test_text_size_limit(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir, max_blob_bytes=20))
    items = text(page, "notes")["items"]
    size = len("# Step 0\n\n<b>raw html</b> stays source")
    assert {(i["status"], i["markdown"], i["size"]) for i in items} == {("too_large", None, size)}
    (table,) = text(page, "table")["items"]
    assert (table["status"], table["rows"], table["size"]) == ("ok", [["name", "value"], ["lr", "0.1"], ["é", "ü"]], 4 + 5 + 2 + 3 + 2 + 2)


# -- errors -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("content", "message"), [
    ({"type": "blobs", "tag": "digits", "runs": ["media", "ghost"]}, "unknown run(s) ['ghost']"),
    ({"type": "blobs", "tag": "ghost", "runs": ["media"]}, "unknown tag 'ghost'"),
    ({"type": "blobs", "tag": "weights", "runs": ["media"]}, "'weights' is a histograms tag"),
    ({"type": "blob", "tag": "digits", "run": "ghost", "step": 0, "index": 0}, "unknown run(s) ['ghost']"),
    ({"type": "blob", "tag": "digits", "run": "plain", "step": 0, "index": 0}, "run 'plain' has no tag 'digits'"),
    ({"type": "blob", "tag": "notes", "run": "media", "step": 0, "index": 0}, "'notes' is a text tag"),
    ({"type": "blob", "tag": "digits", "run": "media", "step": 7, "index": 0}, "no sampled step 7"),
    ({"type": "blob", "tag": "digits", "run": "media", "index": 0}, "needs 'step'"),
    ({"type": "blob", "tag": "digits", "run": "media", "step": 0, "index": -1}, "index -1 is out of range"),
    ({"type": "blob", "tag": "digits", "run": "media", "step": 0, "index": "0"}, "'index' must be an integer"),
    ({"type": "text", "tag": "digits", "run": "media"}, "'digits' is a images tag"),
    ({"type": "text", "tag": "notes", "run": "plain"}, "run 'plain' has no tag 'notes'"),
    ({"type": "text", "tag": "notes"}, "needs 'run'"),
])
def test_errors(page: Page, content: dict, message: str) -> None:
    assert message in error_of(page, content)


def test_the_scalar_messages_still_work(page: Page) -> None:
    reply = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["media", "plain"], "x_axis": "step",
                          "range": None, "width": 10})
    assert [(s["run"], s["y"].tolist()) for s in reply["series"]] == [("media", [0.5]), ("plain", [1.0])]


# -- settings ---------------------------------------------------------------------------------------

def test_setting_defaults_and_wire_names(make_board, logdir: Path) -> None:
    board = make_board(logdir)
    assert board.card_types == ["scalars", "histograms", "images"]
    assert (board.histogram_mode, board.image_brightness, board.image_contrast, board.image_actual_size) == (
        "offset", 1000, 1000, False)
    assert board.max_blob_bytes == protocol.DEFAULT_MAX_BLOB_BYTES == 4 * 1024 * 1024
    state = board.get_state()
    for name in ("card_types", "histogram_mode", "image_brightness", "image_contrast", "image_actual_size",
                 "max_blob_bytes"):
        assert name in state
    for dashboard in ("histograms", "distributions", "images", "audio", "text"):
        board.dashboard = dashboard


def test_settings_from_python_and_the_page(make_board, logdir: Path) -> None:
    board = make_board(logdir, card_types=["images", "scalars"], histogram_mode="overlay", image_brightness=0,
                       image_contrast=5000, image_actual_size=True, max_blob_bytes=0)
    assert board.card_types == ["images", "scalars"] and board.histogram_mode == "overlay"
    assert (board.image_brightness, board.image_contrast, board.image_actual_size, board.max_blob_bytes) == (
        0, 5000, True, 0)
    board.card_types = "histograms"  # one type is a list of one
    assert board.card_types == ["histograms"]
    board.card_types = ["images", "images", "scalars"]
    assert board.card_types == ["images", "scalars"]
    board.set_state({"card_types": [], "histogram_mode": "offset", "image_brightness": 2000})
    assert (board.card_types, board.histogram_mode, board.image_brightness) == ([], "offset", 2000)




# -- torch's SummaryWriter --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("torch_media")
    writer = SummaryWriter(log_dir=str(root / "torch"))
    gen = torch.Generator().manual_seed(0)
    for step in range(2):
        writer.add_image("sample", torch.rand(3, 6, 4, generator=gen), step)  # CHW
        writer.add_images("grid", torch.rand(4, 3, 6, 4, generator=gen), step)  # NCHW: one grid image
        writer.add_audio("speech", torch.sin(torch.linspace(0, 50 * (step + 1), 1000)), step, sample_rate=8000)
        writer.add_text("notes", f"**step** {step}", step)
    writer.close()
    return root


@pytest.mark.torch
def test_torch_media_end_to_end(make_board, torch_logdir: Path) -> None:
    from PIL import Image

    page = Page(make_board(torch_logdir))
    plugins = {t["tag"]: t["plugin"] for t in page.decoded({"type": "index"})["tags"]}
    assert plugins == {"sample": "images", "grid": "images", "speech": "audio", "notes/text_summary": "text"}

    for tag in ("sample", "grid"):
        (entry,) = blobs(page, tag, ["torch"])["runs"]
        assert entry["steps"] == [0, 1] and entry["counts"] == [1, 1]
        reply, buffers = blob(page, tag, step=1, run="torch")
        assert reply["mime"] == "image/png" and reply["status"] == "ok"
        decoded = Image.open(io.BytesIO(bytes(buffers[0])))
        assert decoded.size == (reply["width"], reply["height"])
    assert blob(page, "sample", run="torch")[0]["width"] == 4  # the image's own size
    assert blob(page, "grid", run="torch")[0]["width"] > 4  # torch tiles a batch into one grid

    (speech,) = blobs(page, "speech", ["torch"])["runs"]
    assert (speech["counts"], speech["labels"], speech["sample_rates"]) == ([1, 1], ["", ""], [8000.0, 8000.0])
    reply, buffers = blob(page, "speech", step=1, run="torch")
    assert reply["mime"] == "audio/wav" and reply["size"] == len(buffers[0]) == 44 + 2 * 1000

    reply = text(page, "notes/text_summary", run="torch")
    # torch writes a one-element rank-1 tensor: rendered as Markdown, as TensorBoard renders its cell
    assert [(i["step"], i["kind"], i["markdown"]) for i in reply["items"]] == [
        (0, "markdown", "**step** 0"), (1, "markdown", "**step** 1")]
