"""Arrays in, PNG image summaries out: what the segmentation, filter and activation helpers share.

The helpers take what torch's ``add_image`` takes (numpy arrays or torch tensors, CHW, HWC or HW,
float in [0, 1] or uint8) and turn it into uint8 HWC *before* calling the writer, with torch's own
conversion (``(x * 255).clip(0, 255).astype(uint8)`` for anything but uint8; one grey channel
repeated to RGB). So every writer gets the same pixels, and the pixels tbnb reads back are the ones
torch's ``add_image`` would have written for the same input.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

#: The layouts ``dataformats`` may name (torch's letters: C channels, H height, W width).
DATAFORMATS = ("CHW", "HWC", "HW")


def to_numpy(value: Any, name: str) -> np.ndarray:
    """A numpy array from a numpy array, a torch tensor (detached, on the CPU; half precision and
    bfloat16 as float32) or anything ``np.asarray`` takes."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor: torch is not imported
        tensor = value.detach().cpu()
        try:
            return tensor.numpy()
        except TypeError:  # bfloat16 has no numpy dtype
            return tensor.float().numpy()
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name}: expected an array or a tensor, got {type(value).__name__}: {err}") from None


def to_uint8(arr: np.ndarray) -> np.ndarray:
    """torch's ``add_image`` scaling: uint8 kept, anything else taken as [0, 1], times 255,
    clipped and truncated to uint8 (NaN becomes 0)."""
    if arr.dtype == np.uint8:
        return arr
    scaled = arr.astype(np.float32) * np.float32(255)
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(scaled, nan=0.0).clip(0, 255).astype(np.uint8)


def image_hwc(image: Any, dataformats: str = "CHW", name: str = "image") -> np.ndarray:
    """``image`` in ``dataformats`` as uint8 [H, W, 3] (or [H, W, 4] for RGBA), as torch converts it."""
    layout = str(dataformats).upper()
    if layout not in DATAFORMATS:
        raise ValueError(f"{name}: dataformats must be one of {', '.join(DATAFORMATS)}, got {dataformats!r}")
    arr = given = to_numpy(image, name)
    if arr.ndim != len(layout):
        raise ValueError(f"{name}: shape {arr.shape} does not match dataformats {layout!r}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected numbers, got dtype {arr.dtype}")
    if layout == "HW":
        arr = arr[:, :, None]
    elif layout == "CHW":
        arr = arr.transpose(1, 2, 0)
    if arr.shape[2] not in (1, 3, 4):
        hint = ' (an HWC image? pass dataformats="HWC")' if layout == "CHW" and given.shape[2] in (1, 3, 4) else ""
        raise ValueError(f"{name}: {arr.shape[2]} channels in a {layout} image of shape {given.shape}; "
                         f"expected 1, 3 or 4{hint}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name}: an image needs at least one pixel, got shape {arr.shape}")
    if arr.shape[2] == 1:
        arr = np.repeat(arr, 3, axis=2)
    return np.ascontiguousarray(to_uint8(arr))


def _takes_dataformats(method: Any) -> bool:
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return True  # a builtin or C method: assume torch's signature
    return any(p.name == "dataformats" or p.kind is p.VAR_KEYWORD for p in params)


def write_image(writer: Any, tag: str, hwc: np.ndarray, step: int) -> None:
    """One uint8 [H, W, C] image through ``writer.add_image``: torch's and tensorboardX's take
    ``dataformats="HWC"``; tbnb's ``EventWriter`` takes HWC as it is."""
    add_image = getattr(writer, "add_image", None)
    if add_image is None:
        raise TypeError(f"the writer ({type(writer).__name__}) has no add_image method")
    if _takes_dataformats(add_image):
        add_image(tag, hwc, int(step), dataformats="HWC")
    else:
        add_image(tag, hwc, int(step))


def write_text(writer: Any, tag: str, text: str, step: int) -> None:
    """One text summary through ``writer.add_text`` (the same positional order in all three writers)."""
    add_text = getattr(writer, "add_text", None)
    if add_text is None:
        raise TypeError(f"the writer ({type(writer).__name__}) has no add_text method")
    add_text(tag, text, int(step))
