"""TensorFlow checkpoint V2 ("tensor bundle") tensors, read without TensorFlow.

A bundle is ``<prefix>.index`` (a LevelDB table, sstable.py) mapping tensor names to
``BundleEntryProto``s, plus ``<prefix>.data-%05d-of-%05d`` shards holding the raw little-endian
bytes. The projector shows every 2-D float variable of a checkpoint, so this module lists those and
reads them, verifying each tensor's masked CRC-32C as TensorFlow does: a damaged checkpoint is a
``CheckpointError`` naming the file and tensor, never a silently wrong embedding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tbnb.format.proto import tensor_bundle_pb2, types_pb2

from .sstable import TableError, masked_crc32c, read_table

#: Float dtypes the projector accepts, as numpy little-endian types ("bf16" is widened by hand).
FLOAT_DTYPES = {
    types_pb2.DT_FLOAT: "<f4",
    types_pb2.DT_DOUBLE: "<f8",
    types_pb2.DT_HALF: "<f2",
    types_pb2.DT_BFLOAT16: "bf16",
}
SLOT_MARK = ".OPTIMIZER_SLOT"


class CheckpointError(ValueError):
    """A checkpoint that cannot be read as written: missing file, bad table, bad CRC, bad entry."""


@dataclass(frozen=True)
class BundleTensor:
    """Where one tensor of a bundle is: its dtype, shape, shard and byte range."""

    name: str
    dtype: int
    shape: tuple[int, ...]
    shard_id: int
    offset: int
    size: int
    crc32c: int
    sliced: bool


@dataclass(frozen=True)
class Bundle:
    """A checkpoint's index, read: the header's shard count and every tensor entry."""

    prefix: Path
    num_shards: int
    tensors: dict[str, BundleTensor]

    def shard_path(self, shard_id: int) -> Path:
        return Path(f"{self.prefix}.data-{shard_id:05d}-of-{self.num_shards:05d}")

    def float_matrices(self) -> list[str]:
        """Names of the 2-D float variables, optimizer slots left out (what TensorBoard lists)."""
        return [
            name for name, t in self.tensors.items()
            if len(t.shape) == 2 and t.dtype in FLOAT_DTYPES and not t.sliced and SLOT_MARK not in name
        ]

    def read(self, name: str) -> np.ndarray:
        """A tensor's values as float32, its CRC verified."""
        if name not in self.tensors:
            raise CheckpointError(f"{self.prefix}: no tensor {name!r} in the checkpoint")
        t = self.tensors[name]
        if t.sliced:
            raise CheckpointError(f"{self.prefix}: {name!r} is a partitioned variable (slices are not read)")
        if t.dtype not in FLOAT_DTYPES:
            raise CheckpointError(f"{self.prefix}: {name!r} has dtype {types_pb2.DataType.Name(t.dtype)}, not float")
        path = self.shard_path(t.shard_id)
        try:
            with open(path, "rb") as f:
                f.seek(t.offset)
                raw = f.read(t.size)
        except OSError as err:
            raise CheckpointError(f"{path}: cannot read shard: {err.strerror or err}") from None
        if len(raw) != t.size:
            raise CheckpointError(f"{path}: {name!r} needs bytes [{t.offset}, {t.offset + t.size}), file too short")
        if masked_crc32c(raw) != t.crc32c:
            raise CheckpointError(f"{path}: {name!r}: CRC-32C mismatch (damaged data)")
        kind = FLOAT_DTYPES[t.dtype]
        count = int(np.prod(t.shape)) if t.shape else 1
        if kind == "bf16":
            words = np.frombuffer(raw, dtype="<u2")
            values = (words.astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(raw, dtype=kind)
        if values.size != count:
            raise CheckpointError(f"{path}: {name!r} holds {values.size} values, its shape {t.shape} needs {count}")
        return values.astype(np.float32).reshape(t.shape)


def read_bundle(prefix: str | Path) -> Bundle:
    """Parse ``<prefix>.index``: its header (first key, ``""``) and every entry."""
    index = Path(f"{prefix}.index")
    try:
        data = index.read_bytes()
    except OSError as err:
        raise CheckpointError(f"{index}: cannot read checkpoint index: {err.strerror or err}") from None
    try:
        entries = read_table(data)
    except TableError as err:
        raise CheckpointError(f"{index}: {err}") from None
    if not entries or entries[0][0] != b"":
        raise CheckpointError(f"{index}: no bundle header (the first key must be empty)")
    header = tensor_bundle_pb2.BundleHeaderProto()
    try:
        header.ParseFromString(entries[0][1])
    except Exception as err:  # protobuf's DecodeError has no stable import path across versions
        raise CheckpointError(f"{index}: bad bundle header: {err}") from None
    if header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
        raise CheckpointError(f"{index}: big-endian checkpoints are not read")
    if header.num_shards < 1:
        raise CheckpointError(f"{index}: header says {header.num_shards} shards")
    tensors: dict[str, BundleTensor] = {}
    for key, value in entries[1:]:
        entry = tensor_bundle_pb2.BundleEntryProto()
        name = key.decode("utf-8", errors="replace")
        try:
            entry.ParseFromString(value)
        except Exception as err:
            raise CheckpointError(f"{index}: bad entry for {name!r}: {err}") from None
        if entry.shard_id >= header.num_shards and not entry.slices:
            raise CheckpointError(f"{index}: {name!r} is in shard {entry.shard_id} of {header.num_shards}")
        tensors[name] = BundleTensor(
            name=name, dtype=entry.dtype, shape=tuple(d.size for d in entry.shape.dim),
            shard_id=entry.shard_id, offset=entry.offset, size=entry.size, crc32c=entry.crc32c,
            sliced=bool(entry.slices),
        )
    return Bundle(Path(str(prefix)), header.num_shards, tensors)


_CKPT_LINE = re.compile(r'^model_checkpoint_path:\s*"((?:[^"\\]|\\.)*)"\s*$', re.M)


def latest_checkpoint(directory: Path) -> Path | None:
    """The prefix named by ``<directory>/checkpoint`` (TensorFlow's state file), if its index exists."""
    state = directory / "checkpoint"
    try:
        text = state.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    match = _CKPT_LINE.search(text)
    if not match:
        return None
    prefix = Path(match.group(1).encode("utf-8").decode("unicode_escape"))
    prefix = prefix if prefix.is_absolute() else directory / prefix
    return prefix if Path(f"{prefix}.index").is_file() else None
