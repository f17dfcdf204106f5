"""Writers and synthetic data for the segmentation tests (``tests/log`` and ``tests/reader``).

The three writers ``tbnb.log_segmentation`` supports, as pytest params (torch's marked ``torch``),
and a generator of images with a bright disc and a dark square on noise with their masks: a
segmentation a tiny conv net learns on the CPU in seconds.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_TBX = importlib.util.find_spec("tensorboardX") is not None

WRITERS = [
    pytest.param("torch", marks=[pytest.mark.torch,
                                 pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")], id="torch"),
    pytest.param("tbx", marks=[pytest.mark.skipif(not HAVE_TBX, reason="tensorboardX is not installed")], id="tbx"),
    pytest.param("tbnb", id="tbnb"),
]

CLASSES = ["background", "disc", "square"]


def make_writer(kind: str, logdir: Path) -> Any:
    """torch's or tensorboardX's ``SummaryWriter``, or tbnb's ``EventWriter``, writing in ``logdir``."""
    if kind == "torch":
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(log_dir=str(logdir))
    if kind == "tbx":
        from tensorboardX import SummaryWriter as TbxWriter

        return TbxWriter(logdir=str(logdir))
    if kind == "tbnb":
        from tbnb.testing import EventWriter

        return EventWriter(logdir)
    raise ValueError(kind)


def torch_uint8(image_hwc: np.ndarray) -> np.ndarray:
    """What torch's ``add_image`` stores for an HWC array: uint8 kept, anything else times 255,
    clipped and truncated; one channel repeated to RGB (``torch.utils.tensorboard.summary.image``)."""
    arr = image_hwc
    if arr.dtype != np.uint8:
        arr = (arr.astype(np.float32) * np.float32(255)).clip(0, 255).astype(np.uint8)
    return np.repeat(arr, 3, axis=2) if arr.shape[2] == 1 else arr


def shapes(rng: np.random.Generator, count: int, size: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """``count`` grey images float32 [count, 1, size, size] in [0, 1] and their masks int64
    [count, size, size]: 0 noise, 1 a bright disc, 2 a dark square (the disc drawn last)."""
    images = rng.normal(0.5, 0.15, size=(count, 1, size, size)).astype(np.float32)
    masks = np.zeros((count, size, size), dtype=np.int64)
    yy, xx = np.mgrid[:size, :size]
    for i in range(count):
        half = int(rng.integers(4, 8))
        sy, sx = rng.integers(0, size - 2 * half, size=2)
        masks[i, sy : sy + 2 * half, sx : sx + 2 * half] = 2
        r = int(rng.integers(4, 8))
        cy, cx = rng.integers(r, size - r, size=2)
        masks[i][(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = 1
        images[i, 0][masks[i] == 1] += 0.3
        images[i, 0][masks[i] == 2] -= 0.3
    return np.clip(images, 0, 1), masks
