"""The files a projector config names, parsed as TensorBoard's projector parses them.

Pure functions of bytes, so each rule (TSV tensor with a raw-float32 fallback, the metadata
header rule, sprites, bookmarks) is tested on its own and shared by every caller.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .png import decode_image

if TYPE_CHECKING:
    import pandas as pd


def parse_tensor(raw: bytes, shape: tuple[int, ...], where: str) -> np.ndarray:
    """A tensor file as float32 [N, D]: TSV of floats, else raw little-endian float32 shaped by
    ``shape`` (TensorBoard's fallback, which needs the shape)."""
    try:
        text = raw.decode("utf-8")
        lines = [line for line in text.splitlines() if line.strip()]
        width = len(lines[0].split("\t")) if lines else 0
        values = np.array(text.split(), dtype=np.float32)
        if values.size != len(lines) * width:
            raise ValueError("rows of unequal length")
        return values.reshape(len(lines), width)
    except (UnicodeDecodeError, ValueError) as err:
        tsv_error = str(err) if isinstance(err, ValueError) else "not UTF-8"
    if len(shape) == 2 and shape[0] * shape[1] * 4 == len(raw):
        return np.frombuffer(raw, dtype="<f4").reshape(shape).copy()
    hint = f"tensor_shape {list(shape)} needs {int(np.prod(shape)) * 4} bytes" if shape else "no tensor_shape given"
    raise ValueError(f"{where}: neither a TSV of floats ({tsv_error}) nor raw float32 ({hint}, file has {len(raw)})")


def parse_metadata(text: str, rows: int | None, where: str) -> pd.DataFrame:
    """metadata.tsv as a DataFrame. A tab in line 1 makes it a header (a one-column file has no
    header and its column is "label"); empty cells are missing; a column whose every present value
    is a number is numeric. ``rows`` (the tensor's) must equal the number of data lines."""
    import pandas as pd

    lines = text.split("\n")
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if lines and lines[-1] == "":
        lines.pop()
    if lines and "\t" in lines[0]:
        header, body = lines[0].split("\t"), lines[1:]
    else:
        header, body = ["label"], lines
    cells: list[list[str | None]] = []
    for number, line in enumerate(body, start=2 if len(header) > 1 else 1):
        values: list[str | None] = [v if v != "" else None for v in line.split("\t")]
        if len(values) > len(header):
            raise ValueError(f"{where}: line {number} has {len(values)} cells, the header {len(header)}")
        cells.append(values + [None] * (len(header) - len(values)))
    if rows is not None and len(cells) != rows:
        raise ValueError(f"{where}: {len(cells)} metadata rows for {rows} tensor rows")
    frame = pd.DataFrame(cells, columns=pd.Index(header, dtype=object), dtype=object)
    for position, name in enumerate(header):
        column = frame.iloc[:, position]
        present = column.dropna()
        if len(present):
            numbers = pd.to_numeric(present, errors="coerce")
            if not numbers.isna().any():
                frame.isetitem(position, pd.to_numeric(column))
    return frame


@dataclass(frozen=True)
class Sprite:
    """A sprite atlas: the image (uint8 [H, W, C]), one thumbnail's (width, height), the file's
    bytes (for the page, which decodes them itself). Thumbnails are laid out row-major."""

    image: np.ndarray
    single_image_dim: tuple[int, int]
    data: bytes

    def thumbnail(self, i: int) -> np.ndarray:
        """The ``i``-th point's image (TensorBoard's layout: ``floor(width / w)`` per row)."""
        w, h = self.single_image_dim
        per_row = max(1, self.image.shape[1] // w)
        r, c = divmod(i, per_row)
        return self.image[r * h : (r + 1) * h, c * w : (c + 1) * w]


def parse_sprite(data: bytes, dim: tuple[int, ...], where: str) -> Sprite:
    """A sprite file and its ``single_image_dim`` ([w, h]) checked against the image size."""
    if len(dim) != 2 or min(dim) <= 0:
        raise ValueError(f"{where}: single_image_dim must be [width, height], got {list(dim)}")
    try:
        image = decode_image(data)
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    w, h = int(dim[0]), int(dim[1])
    if image.shape[1] < w or image.shape[0] < h:
        raise ValueError(f"{where}: image {image.shape[1]}x{image.shape[0]} is smaller than one thumbnail {w}x{h}")
    return Sprite(image, (w, h), data)


def parse_bookmarks(text: str, where: str) -> list[dict[str, Any]]:
    """A bookmarks file: a JSON array of TensorBoard ``State`` objects."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: bookmarks are not JSON: {err}") from None
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{where}: bookmarks must be a JSON array of objects")
    return value
