"""TFRecord framing for writing: the inverse of the reader's ``frame``.

The reader only reads; framing a payload belongs to whoever writes files. Each record is
``u64 length | u32 masked_crc(length) | data | u32 masked_crc(data)``, all little-endian, so that
a reader can tell a damaged length from damaged data.
"""

from __future__ import annotations

import struct

import crc32c

from tbnb.reader.crc import mask

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def encode_record(data: bytes) -> bytes:
    """Frame ``data`` (any bytes, a valid Event or not) as one TFRecord."""
    header = _LENGTH.pack(len(data))
    return b"".join(
        (header, _CRC.pack(mask(crc32c.crc32c(header))), data, _CRC.pack(mask(crc32c.crc32c(data))))
    )
