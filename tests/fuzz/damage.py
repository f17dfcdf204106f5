"""Byte-level damage to event files, and the framing helpers the mutation engine shares.

Bit flips, truncation, record length fields set to 0 / 2^31 / 2^63 (with the length CRC fixed
or not), CRC damage, inserted byte runs, and whole odd files. ``frame``/``split``/``offsets``
are a writer's TFRecord framing, written here again so that the fuzzer owes nothing to the
reader it tests.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

from .oracle import masked_crc

Records = list[bytes]


def frame(payload: bytes) -> bytes:
    header = struct.pack("<Q", len(payload))
    return header + struct.pack("<I", masked_crc(header)) + payload + struct.pack("<I", masked_crc(payload))


def split(data: bytes) -> tuple[Records, bytes]:
    """(payloads of the well-framed records from the start, the bytes after the last of them)."""
    out, pos = [], 0
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        if masked_crc(data[pos:pos + 8]) != struct.unpack_from("<I", data, pos + 8)[0] or pos + 16 + length > len(data):
            break
        out.append(data[pos + 12:pos + 12 + length])
        pos += 16 + length
    return out, data[pos:]


def offsets(data: bytes) -> list[int]:
    """Start offsets of the well-framed records."""
    out, pos = [], 0
    for payload in split(data)[0]:
        out.append(pos)
        pos += 16 + len(payload)
    return out


def b_bitflip(data: bytearray, rng: random.Random) -> bytearray:
    for _ in range(rng.randint(1, 8)):
        if data:
            k = rng.randrange(len(data))
            data[k] ^= 1 << rng.randrange(8)
    return data


def b_truncate(data: bytearray, rng: random.Random) -> bytearray:
    return data[:rng.randrange(len(data) + 1)]


def b_length(data: bytearray, rng: random.Random) -> bytearray:
    offs = offsets(bytes(data))
    if offs:
        at = rng.choice(offs)
        data[at:at + 8] = struct.pack("<Q", rng.choice([0, 2**31, 2**63, 2**31 - 1, 2**64 - 1, 1]))
        if rng.random() < 0.5:
            data[at + 8:at + 12] = struct.pack("<I", masked_crc(bytes(data[at:at + 8])))
    return data


def b_crc(data: bytearray, rng: random.Random) -> bytearray:
    offs = offsets(bytes(data))
    if offs:
        at = rng.choice(offs)
        (length,) = struct.unpack_from("<Q", data, at)
        k = at + 8 if rng.random() < 0.5 else at + 12 + length
        data[k + rng.randrange(4)] ^= 1 << rng.randrange(8)
    return data


def b_insert(data: bytearray, rng: random.Random) -> bytearray:
    offs = offsets(bytes(data))
    at = rng.choice(offs) if offs and rng.random() < 0.5 else rng.randrange(len(data) + 1)
    n = rng.choice([1, 3, 12, 16, 100, 4096])
    run = bytes([rng.getrandbits(8)]) * n if rng.random() < 0.5 else bytes(rng.getrandbits(8) for _ in range(n))
    data[at:at] = run
    return data


BYTE_MUTATIONS: dict[str, Callable[[bytearray, random.Random], bytearray]] = {
    "bitflip": b_bitflip, "truncate": b_truncate, "length": b_length, "crc": b_crc, "insert": b_insert,
}

#: Whole files that are odd rather than damaged.
ODD_FILES = {
    "empty": b"",
    "header_only": struct.pack("<Q", 10) + struct.pack("<I", masked_crc(struct.pack("<Q", 10))),
    "zeros": bytes(64),
    "one_empty_record": frame(b""),
}
