"""``tbnb.log_filters`` and ``tbnb.log_activations``: convolution weights and feature maps tiled
into one image per call, written as an ordinary PNG image summary (TensorBoard shows it too).

Layout: tiles in a grid with a 1-pixel line of ``GRID`` colour around and between them (a blue
grey no grey-scale tile pixel can have, so the grid never reads as data); empty cells are ``GRID``
too. Each tile is scaled up by nearest neighbour (every value a solid block, never blurred) so that
its longer side is at least ``MIN_TILE`` pixels: a 3x3 kernel becomes 8x8 blocks (24 px).

Normalisation: min-max to 0..255 (rounded) per tile group: per *filter* (over its input channels
and kernel together, so a filter's slices stay comparable), per *feature map* for activations.
A constant group is black; NaN shows as the group's minimum, infinities are clipped.

At most ``MAX_TILES`` (1024) tiles per image (``max_tiles=`` to change): the first filters or
channels are kept, whole rows of them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .images import to_numpy, write_image

#: The colour of the 1-px grid and of empty cells.
GRID = np.array([70, 90, 140], dtype=np.uint8)
#: A tile's longer side is scaled up to at least this many pixels (nearest neighbour).
MIN_TILE = 24
#: Tiles per image unless ``max_tiles`` says otherwise.
MAX_TILES = 1024


def tile_scale(height: int, width: int) -> int:
    """The nearest-neighbour factor that brings a tile's longer side to ``MIN_TILE`` px or more."""
    return max(1, math.ceil(MIN_TILE / max(height, width, 1)))


def normalise(values: np.ndarray, group_axes: int) -> np.ndarray:
    """uint8 of ``values`` min-max scaled over each group: the last ``group_axes`` axes."""
    arr = np.asarray(values, dtype=np.float64)
    axes = tuple(range(arr.ndim - group_axes, arr.ndim))
    finite = np.isfinite(arr)
    lo = np.where(finite, arr, np.inf).min(axis=axes, keepdims=True)
    hi = np.where(finite, arr, -np.inf).max(axis=axes, keepdims=True)
    lo = np.where(np.isfinite(lo), lo, 0.0)
    hi = np.where(np.isfinite(hi), hi, lo)
    span = hi - lo
    with np.errstate(invalid="ignore"):
        scaled = np.where(span > 0, (arr - lo) / np.where(span > 0, span, 1.0), 0.0)
    scaled = np.nan_to_num(scaled, nan=0.0, posinf=1.0, neginf=0.0)
    return np.rint(np.clip(scaled, 0.0, 1.0) * 255).astype(np.uint8)


def tile_grid(tiles: np.ndarray, columns: int, scale: int | None = None) -> np.ndarray:
    """uint8 [H, W, 3]: ``tiles`` (uint8 [n, h, w, 3]) row-major in ``columns`` columns, each
    scaled by ``scale`` (default ``tile_scale``) and framed by the 1-px grid."""
    count, height, width, _ = tiles.shape
    factor = tile_scale(height, width) if scale is None else int(scale)
    if factor < 1:
        raise ValueError(f"scale must be a positive integer, got {scale!r}")
    rows = max(1, math.ceil(count / columns))
    th, tw = height * factor, width * factor
    canvas = np.empty((rows * (th + 1) + 1, columns * (tw + 1) + 1, 3), dtype=np.uint8)
    canvas[:] = GRID
    big = tiles.repeat(factor, axis=1).repeat(factor, axis=2)
    for i in range(count):
        r, c = divmod(i, columns)
        y, x = 1 + r * (th + 1), 1 + c * (tw + 1)
        canvas[y : y + th, x : x + tw] = big[i]
    return canvas


def _cap(max_tiles: int) -> int:
    if int(max_tiles) < 1:
        raise ValueError(f"max_tiles must be at least 1, got {max_tiles!r}")
    return int(max_tiles)


def _grey(tiles: np.ndarray) -> np.ndarray:
    return np.repeat(tiles[..., None], 3, axis=-1)


def _square(count: int) -> int:
    return max(1, math.ceil(math.sqrt(count)))


def filter_grid(weight: Any, *, max_tiles: int = MAX_TILES, scale: int | None = None) -> np.ndarray:
    """Conv weights [out, in, kh, kw] as one uint8 RGB image.

    ``in == 3``: one RGB tile per filter (input channel i as colour i); ``in == 1``: one grey tile
    per filter; both in a near-square grid. Otherwise one row per filter and one grey tile per
    input channel. Each filter is normalised on its own.
    """
    w = to_numpy(weight, "weight")
    if w.ndim != 4 or 0 in w.shape:
        raise ValueError(f"weight: expected conv weights [out, in, kh, kw], got shape {w.shape}")
    if w.dtype.kind not in "biuf":
        raise TypeError(f"weight: expected numbers, got dtype {w.dtype}")
    cap = _cap(max_tiles)
    out, inputs = w.shape[:2]
    if inputs in (1, 3):
        kept = normalise(w[:cap], 3)  # [n, in, kh, kw]
        tiles = kept.transpose(0, 2, 3, 1) if inputs == 3 else _grey(kept[:, 0])
        return tile_grid(tiles, _square(len(tiles)), scale)
    columns = min(inputs, cap)
    rows = min(out, max(1, cap // columns))
    kept = normalise(w[:rows], 3)[:, :columns]  # normalised over the whole filter, then cut
    return tile_grid(_grey(kept.reshape(rows * columns, *w.shape[2:])), columns, scale)


def activation_grid(maps: Any, *, max_tiles: int = MAX_TILES, scale: int | None = None) -> np.ndarray:
    """Feature maps [C, H, W] (a near-square grid, one tile per channel) or [N, C, H, W] (one row
    per sample, one column per channel) as one uint8 RGB image; each map normalised on its own."""
    a = to_numpy(maps, "maps")
    if a.ndim not in (3, 4) or 0 in a.shape:
        raise ValueError(f"maps: expected feature maps [C, H, W] or [N, C, H, W], got shape {a.shape}")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"maps: expected numbers, got dtype {a.dtype}")
    cap = _cap(max_tiles)
    if a.ndim == 3:
        tiles = _grey(normalise(a[:cap], 2))
        return tile_grid(tiles, _square(len(tiles)), scale)
    columns = min(a.shape[1], cap)
    rows = min(a.shape[0], max(1, cap // columns))
    kept = normalise(a[:rows, :columns], 2)
    return tile_grid(_grey(kept.reshape(rows * columns, *a.shape[2:])), columns, scale)


def log_filters(writer: Any, tag: str, weight: Any, step: int, *, max_tiles: int = MAX_TILES,
                scale: int | None = None) -> None:
    """Write ``filter_grid(weight)`` as the image ``tag`` (e.g. ``model.conv1.weight``)."""
    write_image(writer, tag, filter_grid(weight, max_tiles=max_tiles, scale=scale), step)


def log_activations(writer: Any, tag: str, maps: Any, step: int, *, max_tiles: int = MAX_TILES,
                    scale: int | None = None) -> None:
    """Write ``activation_grid(maps)`` as the image ``tag`` (a layer's output, e.g. from a
    forward hook)."""
    write_image(writer, tag, activation_grid(maps, max_tiles=max_tiles, scale=scale), step)
