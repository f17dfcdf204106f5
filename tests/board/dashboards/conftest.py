"""Helpers for the dashboards' tests: small real images and object arrays as the reader gives them."""

from __future__ import annotations

import io

import numpy as np

RGB = (np.arange(4 * 5 * 3) * 7 % 256).astype(np.uint8).reshape(4, 5, 3)


def pil_bytes(fmt: str, **kwargs: object) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(RGB).save(out, fmt, **kwargs)
    return out.getvalue()


def strings(*items: object, shape: tuple[int, ...] | None = None) -> np.ndarray:
    arr = np.empty(len(items), dtype=object)
    arr[:] = list(items)
    return arr.reshape(shape) if shape is not None else arr
