"""What the reader hands out: immutable snapshots of a series, safe to keep while it reloads."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Callable, overload

import numpy as np

from .items import BlobRef, Item, Record


@dataclass(frozen=True)
class ScalarSeries:
    """Every point of one scalar series, in step order."""

    step: np.ndarray
    wall_time: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.step)


class LazyValues(Sequence):
    """The values of a tensor series, decoded when indexed (blobs are read from disk first)."""

    def __init__(self, items: list[Item], decode: Callable[[BlobRef | Record], np.ndarray]) -> None:
        self._items = items
        self._decode = decode

    def __len__(self) -> int:
        return len(self._items)

    def _get(self, i: int) -> np.ndarray:
        return self._decode(self._items[i].payload)

    @overload
    def __getitem__(self, i: int) -> np.ndarray: ...
    @overload
    def __getitem__(self, i: slice) -> list[np.ndarray]: ...
    def __getitem__(self, i: int | slice) -> np.ndarray | list[np.ndarray]:
        if isinstance(i, slice):
            return [self._get(k) for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._get(i)

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self._get(k) for k in range(len(self)))


@dataclass(frozen=True)
class TensorSeries:
    """The sampled steps of one tensor series, in TensorBoard's tensor form for its plugin."""

    plugin: str
    step: np.ndarray
    wall_time: np.ndarray
    values: LazyValues

    def __len__(self) -> int:
        return len(self.step)
