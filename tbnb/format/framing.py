"""TFRecord framing, the part both sides share: a record's layout and how to write one.

Each record is ``u64 length | u32 masked_crc(length) | data | u32 masked_crc(data)``, all
little-endian, so that a reader can tell a damaged length from damaged data. The sizes here are
the one statement of that layout: the reader's framer (``tbnb.reader.records``) finds records
with them and skips damage, the writer frames payloads with ``encode_record``.
"""

from __future__ import annotations

import struct

import crc32c

from tbnb.format.crc import mask

#: The length field and its masked CRC.
HEADER_SIZE = 12
#: The data's masked CRC.
FOOTER_SIZE = 4
#: Larger than any record a protobuf writer can produce (protobuf caps messages at 2 GiB).
MAX_RECORD_LENGTH = 1 << 31
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def encode_record(data: bytes) -> bytes:
    """Frame ``data`` (any bytes, a valid Event or not) as one TFRecord."""
    header = _LENGTH.pack(len(data))
    return b"".join(
        (header, _CRC.pack(mask(crc32c.crc32c(header))), data, _CRC.pack(mask(crc32c.crc32c(data))))
    )
