"""Writing TensorBoard event files without TensorFlow or torch.

The reader (``tbnb.reader``) only reads; everything that produces event files lives here, so
that the product's ``tbnb demo`` and the benchmark do not depend on test helpers. Layers, each a
module: ``payloads`` encodes PNG, WAV, histogram and PR-curve data, ``event_writer`` writes one
event file a summary at a time, ``scalar_events`` encodes millions of scalar events at once, and
``datasets`` writes the demo and benchmark logdirs. The wire format they write (schemas, masked
CRC, TFRecord framing: ``encode_record``) is ``tbnb.format``'s; the writer never imports the
reader.
"""

from __future__ import annotations

from tbnb.format.framing import encode_record
from tbnb.writer.datasets import scalar_run_data, scalar_tag, write_demo_logdir, write_scalar_logdir
from tbnb.writer.event_writer import FILE_VERSION, EventWriter, event_file_name
from tbnb.writer.payloads import encode_png, encode_wav, histogram_buckets, pr_curve_data
from tbnb.writer.scalar_events import scalar_records

__all__ = [
    "FILE_VERSION",
    "EventWriter",
    "encode_png",
    "encode_record",
    "encode_wav",
    "event_file_name",
    "histogram_buckets",
    "pr_curve_data",
    "scalar_records",
    "scalar_run_data",
    "scalar_tag",
    "write_demo_logdir",
    "write_scalar_logdir",
]
