"""``tbnb.log_segmentation`` written by torch's, tensorboardX's and tbnb's writers, read back by
tbnb (exactly) and by TensorBoard's own loader; bad calls refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.log.segmentation import MAX_CLASSES, voc_palette
from tbnb.reader.plugins.png import decode_image
from tests.segmentation_logs import HAVE_TORCH, WRITERS, make_writer, torch_uint8

H, W = 12, 17  # not square, so a transposed image or mask cannot pass
CLASSES5 = ["bg", "road", "car", "person", "sky"]


def _variants(rng: np.random.Generator) -> dict[str, tuple[object, str, np.ndarray]]:
    """name -> (image as passed, dataformats, the same image as a numpy HWC array)."""
    chw = rng.uniform(0, 1, size=(3, H, W)).astype(np.float32)
    hwc8 = rng.integers(0, 256, size=(H, W, 3), dtype=np.uint8)
    grey = rng.uniform(-0.2, 1.2, size=(H, W))  # float64 outside [0, 1]: clipped as torch clips
    grey_chw8 = rng.integers(0, 256, size=(1, H, W), dtype=np.uint8)
    rgba8 = rng.integers(0, 256, size=(H, W, 4), dtype=np.uint8)
    out: dict[str, tuple[object, str, np.ndarray]] = {
        "chw_float": (chw, "CHW", chw.transpose(1, 2, 0)),
        "hwc_uint8": (hwc8, "HWC", hwc8),
        "hw_float64": (grey, "HW", grey[:, :, None]),
        "chw_grey_uint8": (grey_chw8, "CHW", grey_chw8.transpose(1, 2, 0)),
        "hwc_rgba": (rgba8, "HWC", rgba8),
    }
    if HAVE_TORCH:
        import torch

        out["torch_chw_float"] = (torch.from_numpy(chw), "CHW", chw.transpose(1, 2, 0))
        out["torch_hwc_uint8"] = (torch.from_numpy(hwc8), "HWC", hwc8)
    return out


def _masks(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    label = rng.integers(0, n, size=(H, W))
    label[0, 0], label[-1, -1] = 0, n - 1  # the first and last ids always present
    return label, rng.integers(0, n, size=(H, W))


@pytest.mark.parametrize("kind", WRITERS)
def test_round_trip_is_exact(kind: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    variants = _variants(rng)
    written = {}
    w = make_writer(kind, tmp_path / kind)
    try:
        for name, (image, fmt, hwc) in variants.items():
            for step in (0, 5):
                label, prediction = _masks(rng, len(CLASSES5))
                if HAVE_TORCH and step == 5:  # masks as torch tensors too
                    import torch

                    label, prediction = torch.from_numpy(label), torch.from_numpy(prediction).to(torch.uint8)
                tbnb.log_segmentation(w, f"seg/{name}", image, label, prediction, step, classes=CLASSES5,
                                      dataformats=fmt)
                written[name, step] = (torch_uint8(hwc), np.asarray(label), np.asarray(prediction))
            if kind == "torch":  # torch's own add_image of the same input: the reference pixels
                w.add_image(f"ref/{name}", image, 0, dataformats=fmt)
    finally:
        w.close()
    lg = tbnb.load(tmp_path)
    for (name, step), (image, label, prediction) in written.items():
        seg = lg.segmentation(kind, f"seg/{name}")
        assert seg.classes == CLASSES5
        assert seg.steps.tolist() == [0, 5]
        got = seg.at(step)
        assert got.image.dtype == np.uint8 and got.image.shape == image.shape
        np.testing.assert_array_equal(got.image, image)
        np.testing.assert_array_equal(got.label, label)
        np.testing.assert_array_equal(got.prediction, prediction)
        if kind == "torch":
            ref = decode_image(bytes(lg.tensors(kind, f"ref/{name}").values[0][2]))
            np.testing.assert_array_equal(got.image, ref)


@pytest.mark.parametrize("kind", WRITERS)
def test_tensorboards_loader_sees_the_images(kind: str, tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    rng = np.random.default_rng(4)
    image = rng.uniform(size=(3, H, W)).astype(np.float32)
    label, prediction = _masks(rng, 3)
    w = make_writer(kind, tmp_path)
    try:
        tbnb.log_segmentation(w, "val/sample0", image, label, prediction, 7, classes=CLASSES5[:3])
    finally:
        w.close()
    acc = EventAccumulator(str(tmp_path), size_guidance={"images": 0, "tensors": 0})
    acc.Reload()
    images = acc.Tags()["images"]
    assert {"val/sample0/image", "val/sample0/label", "val/sample0/prediction"} <= set(images)
    palette = voc_palette(3)
    for name, mask in (("label", label), ("prediction", prediction)):
        (event,) = acc.Images(f"val/sample0/{name}")
        assert (event.step, event.width, event.height) == (7, W, H)
        np.testing.assert_array_equal(decode_image(event.encoded_image_string), palette[mask])


@pytest.mark.parametrize("kind", WRITERS)
def test_classes_record_is_json_text(kind: str, tmp_path: Path) -> None:
    classes = ["fond", "route", "voiture <b>&</b>"]  # markup stays text inside the JSON string
    palette = ["#102030", (255, 0, 0), np.array([0, 255, 1])]
    w = make_writer(kind, tmp_path / "r")
    try:
        tbnb.log_segmentation(w, "s", np.zeros((H, W), np.uint8), np.zeros((H, W), int), np.ones((H, W), int), 0,
                              classes=classes, palette=palette, dataformats="HW")
    finally:
        w.close()
    lg = tbnb.load(tmp_path)
    (text_tag,) = [t for t, plugin in lg.tags("r").items() if plugin == "text"]
    assert text_tag in ("s/classes", "s/classes/text_summary")
    raw = np.asarray(lg.tensors("r", text_tag).values[0], dtype=object).ravel()[0]
    record = json.loads(raw.decode())
    assert record == {"format": "tbnb.segmentation", "version": 1, "classes": classes,
                      "palette": ["#102030", "#ff0000", "#00ff01"]}
    label_png = decode_image(bytes(lg.tensors("r", "s/label").values[0][2]))
    assert {tuple(p) for p in label_png.reshape(-1, 3)} == {(0x10, 0x20, 0x30)}
    np.testing.assert_array_equal(lg.segmentation("r", "s").at(0).prediction, np.ones((H, W)))


def test_voc_palette_is_distinct_and_standard() -> None:
    palette = voc_palette()
    assert palette.shape == (MAX_CLASSES, 3) and palette.dtype == np.uint8
    assert len({tuple(c) for c in palette}) == MAX_CLASSES
    assert palette[:6].tolist() == [[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0], [0, 0, 128],
                                    [128, 0, 128]]
    assert palette[255].tolist() == [224, 224, 192]  # PASCAL VOC's "void" colour


def _bad_calls() -> list[tuple[str, dict, type, str]]:
    ok = {"image": np.zeros((3, H, W), np.float32), "label": np.zeros((H, W), int),
          "prediction": np.zeros((H, W), int), "classes": ["a", "b"]}

    def call(**changes):
        return {**ok, **changes}

    return [
        ("label shape", call(label=np.zeros((H, W + 1), int)), ValueError, r"label: mask shape \(12, 18\)"),
        ("prediction shape", call(prediction=np.zeros((H - 1, W), int)), ValueError, "prediction: mask shape"),
        ("mask rank", call(label=np.zeros((2, H, W), int)), ValueError, r"expected a mask \[H, W\]"),
        ("id too big", call(prediction=np.full((H, W), 2)), ValueError, r"class id\(s\) 2 outside the 2 classes"),
        ("negative id", call(label=np.full((H, W), -1)), ValueError, r"class id\(s\) -1 outside"),
        ("fractional", call(label=np.full((H, W), 0.5)), ValueError, "non-integer"),
        ("string mask", call(label=np.full((H, W), "a")), TypeError, "class ids, got dtype"),
        ("hwc as chw", call(image=np.zeros((H, W, 3))), ValueError, r'dataformats="HWC"'),
        ("bad layout", call(dataformats="NHWC"), ValueError, "dataformats must be one of"),
        ("rank", call(image=np.zeros((H, W))), ValueError, "does not match dataformats 'CHW'"),
        ("no classes", call(classes=[]), ValueError, "non-empty list"),
        ("one string", call(classes="ab"), ValueError, "non-empty list"),
        ("repeated class", call(classes=["a", "a"]), ValueError, r"repeated: \['a'\]"),
        ("reserved", call(classes=["a", "mean"]), ValueError, "reserved"),
        ("too many", call(classes=[str(i) for i in range(257)]), ValueError, "at most 256"),
        ("short palette", call(palette=["#000000"]), ValueError, "1 colours for 2 classes"),
        ("same colours", call(palette=["#000000", (0, 0, 0)]), ValueError, "distinct"),
        ("bad colour", call(palette=["#00000", "#ffffff"]), ValueError, r"palette\[0\]"),
        ("colour range", call(palette=[(0, 0, 0), (0, 0, 256)]), ValueError, r"palette\[1\]"),
        ("empty tag", call(tag=""), ValueError, "tag must be"),
    ]


@pytest.mark.parametrize(("kwargs", "error", "match"), [pytest.param(*c[1:], id=c[0]) for c in _bad_calls()])
def test_bad_calls_are_refused_and_write_nothing(kwargs: dict, error: type, match: str, tmp_path: Path) -> None:
    from tbnb.testing import EventWriter

    args = dict(kwargs)
    tag = args.pop("tag", "t")
    with EventWriter(tmp_path) as w:
        w.flush()
        before = w.path.stat().st_size
        with pytest.raises(error, match=match):
            tbnb.log_segmentation(w, tag, args.pop("image"), args.pop("label"), args.pop("prediction"), 0, **args)
        w.flush()
        assert w.path.stat().st_size == before


def test_a_writer_without_add_image_is_named() -> None:
    with pytest.raises(TypeError, match="has no add_image"):
        tbnb.log_segmentation(object(), "t", np.zeros((H, W), np.uint8), np.zeros((H, W), int),
                              np.zeros((H, W), int), 0, classes=["a"], dataformats="HW")


def test_squeezable_and_float_masks_are_taken_as_ids(tmp_path: Path) -> None:
    from tbnb.testing import EventWriter

    rng = np.random.default_rng(5)
    label = rng.integers(0, 4, size=(H, W))
    with EventWriter(tmp_path / "r") as w:
        tbnb.log_segmentation(w, "t", np.zeros((H, W, 3), np.uint8), label[None].astype(np.float32),
                              label[:, :, None].astype(np.uint8), 1, classes=CLASSES5[:4], dataformats="HWC")
    got = tbnb.load(tmp_path).segmentation("r", "t").at(1)
    np.testing.assert_array_equal(got.label, label)
    np.testing.assert_array_equal(got.prediction, label)


# -- filters and activations -------------------------------------------------------------------

def _tile(grid: np.ndarray, row: int, col: int, th: int, tw: int) -> np.ndarray:
    y, x = 1 + row * (th + 1), 1 + col * (tw + 1)
    return grid[y : y + th, x : x + tw]


def _expected(group: np.ndarray) -> np.ndarray:
    """min-max to 0..255 of one group, computed apart from the code under test."""
    lo, hi = group.min(), group.max()
    return np.zeros(group.shape) if hi == lo else np.rint((group - lo) / (hi - lo) * 255)


def _assert_level(tile: np.ndarray, expected: np.ndarray) -> None:
    """Equal to within one level: rint of a value computed with float64 rounding differs only
    where the exact value sits within ~1e-13 of a half level; the extremes are exact."""
    assert np.abs(tile.astype(int) - expected).max() <= 1
    np.testing.assert_array_equal(tile[expected == 0], 0)
    np.testing.assert_array_equal(tile[expected == 255], 255)


def _assert_grid_lines(grid: np.ndarray, rows: int, cols: int, th: int, tw: int) -> None:
    from tbnb.log.grids import GRID

    assert grid.shape == (rows * (th + 1) + 1, cols * (tw + 1) + 1, 3)
    for r in range(rows + 1):
        assert (grid[r * (th + 1)] == GRID).all()
    for c in range(cols + 1):
        assert (grid[:, c * (tw + 1)] == GRID).all()


def test_rgb_filters_tile_one_per_filter_each_normalised_alone() -> None:
    from tbnb.log.grids import GRID, filter_grid

    rng = np.random.default_rng(6)
    weight = rng.normal(size=(5, 3, 3, 3))
    weight[4] = 0.25  # a constant filter is black
    grid = filter_grid(weight)
    _assert_grid_lines(grid, 2, 3, 24, 24)  # 3x3 kernels scaled 8x, a near-square grid of 5
    assert (_tile(grid, 1, 2, 24, 24) == GRID).all()  # the empty sixth cell
    for f in range(5):
        tile = _tile(grid, *divmod(f, 3), 24, 24)
        blocks = tile[::8, ::8]  # nearest neighbour: every 8x8 block one value
        np.testing.assert_array_equal(tile, blocks.repeat(8, axis=0).repeat(8, axis=1))
        _assert_level(blocks, _expected(weight[f]).transpose(1, 2, 0))  # input channel i -> colour i
    louder = weight.copy()
    louder[2] *= 1024.0  # exact in binary: a per-filter normalisation draws every tile the same
    np.testing.assert_array_equal(filter_grid(louder), grid)


def test_other_filters_are_rows_of_input_channels_normalised_per_filter() -> None:
    from tbnb.log.grids import filter_grid

    rng = np.random.default_rng(7)
    weight = rng.normal(size=(4, 5, 2, 3)) * np.array([1, 10, 100, 0.01])[:, None, None, None]
    grid = filter_grid(weight)
    _assert_grid_lines(grid, 4, 5, 16, 24)  # kw 3 -> 8x: tiles 16 x 24
    for f in range(4):
        expected = _expected(weight[f])  # over the whole filter, all its input channels
        for c in range(5):
            tile = _tile(grid, f, c, 16, 24)
            assert (tile[..., 0] == tile[..., 1]).all() and (tile[..., 1] == tile[..., 2]).all()
            _assert_level(tile[::8, ::8, 0], expected[c])


def test_single_channel_filters_and_the_tile_cap() -> None:
    from tbnb.log.grids import MAX_TILES, filter_grid

    grey = filter_grid(np.arange(7 * 9, dtype=np.float32).reshape(7, 1, 3, 3))
    _assert_grid_lines(grey, 3, 3, 24, 24)
    np.testing.assert_array_equal(_tile(grey, 2, 0, 24, 24)[::8, ::8, 0], _expected(np.arange(9.0).reshape(3, 3)))
    _assert_grid_lines(filter_grid(np.ones((10, 3, 3, 3)), max_tiles=4), 2, 2, 24, 24)
    _assert_grid_lines(filter_grid(np.ones((10, 8, 3, 3)), max_tiles=20), 2, 8, 24, 24)  # whole rows
    _assert_grid_lines(filter_grid(np.ones((40, 64, 1, 1))), MAX_TILES // 64, 64, 24, 24)
    _assert_grid_lines(filter_grid(np.ones((2, 2, 3, 3)), scale=2), 2, 2, 6, 6)


def test_activations_one_tile_per_channel_each_map_normalised() -> None:
    from tbnb.log.grids import activation_grid

    rng = np.random.default_rng(8)
    maps = rng.normal(size=(5, 8, 8)) * np.arange(1, 6)[:, None, None]
    grid = activation_grid(maps)
    _assert_grid_lines(grid, 2, 3, 24, 24)  # 8x8 maps scaled 3x
    for c in range(5):
        _assert_level(_tile(grid, *divmod(c, 3), 24, 24)[::3, ::3, 0], _expected(maps[c]))
    batch = rng.normal(size=(2, 3, 4, 4))
    grid = activation_grid(batch)
    _assert_grid_lines(grid, 2, 3, 24, 24)  # one row per sample
    for n in range(2):
        for c in range(3):
            _assert_level(_tile(grid, n, c, 24, 24)[::6, ::6, 0], _expected(batch[n, c]))
    _assert_grid_lines(activation_grid(np.ones((4, 300, 2, 2)), max_tiles=1000), 3, 300, 24, 24)
    _assert_grid_lines(activation_grid(np.ones((50, 2, 2)), max_tiles=10), 3, 4, 24, 24)


def test_non_finite_values_do_not_spoil_a_map() -> None:
    from tbnb.log.grids import activation_grid

    maps = np.array([[[1.0, 2.0], [3.0, np.nan]], [[np.inf, 0.0], [-np.inf, 4.0]]])
    grid = activation_grid(maps, scale=1)
    assert grid[1:3, 1:3, 0].tolist() == [[0, 128], [255, 0]]
    assert grid[1:3, 4:6, 0].tolist() == [[255, 0], [0, 255]]


@pytest.mark.parametrize(("call", "match"), [
    (lambda g: g.filter_grid(np.ones((3, 3, 3))), r"\[out, in, kh, kw\]"),
    (lambda g: g.filter_grid(np.ones((0, 3, 3, 3))), r"\[out, in, kh, kw\]"),
    (lambda g: g.activation_grid(np.ones((3, 3))), r"\[C, H, W\] or \[N, C, H, W\]"),
    (lambda g: g.activation_grid(np.ones((3, 3, 3)), max_tiles=0), "max_tiles"),
    (lambda g: g.filter_grid(np.ones((2, 3, 3, 3)), scale=0), "scale"),
])
def test_grid_errors(call, match: str) -> None:
    from tbnb.log import grids

    with pytest.raises(ValueError, match=match):
        call(grids)


@pytest.mark.parametrize("kind", WRITERS)
def test_grids_read_back_as_written(kind: str, tmp_path: Path) -> None:
    from tbnb.log.grids import activation_grid, filter_grid

    rng = np.random.default_rng(9)
    weight = rng.normal(size=(6, 3, 5, 5)).astype(np.float32)
    maps = rng.normal(size=(2, 4, 6, 6)).astype(np.float32)
    if kind == "torch":
        import torch

        weight, maps = torch.from_numpy(weight).requires_grad_(), torch.from_numpy(maps)
    w = make_writer(kind, tmp_path / "r")
    try:
        tbnb.log_filters(w, "filters/conv1", weight, 3)
        tbnb.log_activations(w, "act/block1", maps, 3)
    finally:
        w.close()
    lg = tbnb.load(tmp_path)
    for tag, grid in (("filters/conv1", filter_grid(weight)), ("act/block1", activation_grid(maps))):
        series = lg.tensors("r", tag)
        assert series.step.tolist() == [3]
        np.testing.assert_array_equal(decode_image(bytes(series.values[0][2])), grid)
