"""Reading written files back: with TensorBoard's own loaders (the oracle) and with our framing.

TensorBoard is imported only when asked for, so that tests that need none run without it.
TensorBoard's ``LegacyEventFileLoader`` parses records into its protos as written;
``EventFileLoader`` also applies TensorBoard's TF1 -> tensor migration. PIL and ``wave`` decode
the payloads, so that the writer is never checked against itself.
"""

from __future__ import annotations

import io
import pathlib
import wave

import numpy as np
from PIL import Image

from tbnb.format.proto import event_pb2
from tbnb.reader.records.records import frame

T0 = 1_650_000_000.25


def ours(path: pathlib.Path) -> list[event_pb2.Event]:
    """Every event of a file via our framing and our protos (no damage expected)."""
    buf = path.read_bytes()
    framed = frame(buf, str(path))
    assert framed.problems == []
    assert framed.consumed == len(buf)
    return [event_pb2.Event.FromString(buf[s : s + n]) for s, n in zip(framed.starts, framed.lengths)]


def tb_raw(path: pathlib.Path) -> list:
    """TensorBoard's parse of the file, without migration."""
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

    return list(LegacyEventFileLoader(str(path)).Load())


def tb_migrated(path: pathlib.Path) -> list:
    """TensorBoard's parse with data_compat/dataclass_compat applied, as its backend sees it."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    return list(EventFileLoader(str(path)).Load())


def values_of(events: list) -> list:
    """(step, value) of every summary value, in file order."""
    return [(e.step, v) for e in events if e.HasField("summary") for v in e.summary.value]


def only_file(directory: pathlib.Path) -> pathlib.Path:
    """The one event file in ``directory`` (fails if there are several)."""
    (path,) = [p for p in directory.iterdir() if "tfevents" in p.name]
    return path


def decode_png(data: bytes) -> np.ndarray:
    """Pixels as PIL decodes them."""
    return np.asarray(Image.open(io.BytesIO(data)))


def decode_wav(data: bytes) -> tuple[int, np.ndarray]:
    """(sample rate, [frames, channels] in [-1, 1]) as the standard library decodes them."""
    with wave.open(io.BytesIO(data)) as f:
        assert f.getsampwidth() == 2
        frames = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2")
        return f.getframerate(), frames.reshape(-1, f.getnchannels()) / 32767.0
