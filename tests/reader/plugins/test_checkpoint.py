"""TF checkpoint V2 bundles read without TensorFlow: layout, listing, values, damage."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tbnb.format.proto import tensor_bundle_pb2
from tbnb.reader.plugins.checkpoint import CheckpointError, latest_checkpoint, read_bundle
from tbnb.reader.plugins.sstable import TableError, masked_crc32c, read_table, snappy_decompress

from .bundle_writer import MAGIC_BYTES, build_table, mask, snappy_literal, write_bundle, write_state

EMB = "embedding/.ATTRIBUTES/VARIABLE_VALUE"
SLOT = "embedding/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"


def tensors(rng) -> dict[str, np.ndarray]:
    return {
        EMB: rng.normal(size=(50, 8)).astype(np.float32),
        SLOT: rng.normal(size=(50, 8)).astype(np.float32),
        "dense/kernel/.ATTRIBUTES/VARIABLE_VALUE": rng.normal(size=(8, 3)).astype(np.float64),
        "dense/bias/.ATTRIBUTES/VARIABLE_VALUE": rng.normal(size=3).astype(np.float32),
        "counts/.ATTRIBUTES/VARIABLE_VALUE": np.arange(6, dtype=np.int64).reshape(2, 3),
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE": np.array(1, dtype=np.int64),
    }


@pytest.fixture
def bundle(tmp_path):
    data = tensors(np.random.default_rng(0))
    write_bundle(tmp_path / "ckpt-1", data, block_size=256)
    return tmp_path / "ckpt-1", data


def test_published_layout(bundle):
    prefix, _ = bundle
    raw = (prefix.parent / "ckpt-1.index").read_bytes()
    assert raw[-8:] == bytes([0x57, 0xFB, 0x80, 0x8B, 0x24, 0x75, 0x47, 0xDB]) == MAGIC_BYTES
    assert struct.unpack("<Q", raw[-8:])[0] == 0xDB4775248B80FB57
    # LevelDB's mask of a known CRC: crc32c("123456789") = 0xE3069283 (the standard check value)
    assert mask(0xE3069283) == ((((0xE3069283 >> 15) | (0xE3069283 << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
    assert masked_crc32c(b"123456789") == mask(0xE3069283)
    entries = read_table(raw)
    assert entries[0][0] == b"" and [k for k, _ in entries] == sorted(k for k, _ in entries)
    header = tensor_bundle_pb2.BundleHeaderProto.FromString(entries[0][1])
    assert (header.num_shards, header.endianness, header.version.producer) == (1, 0, 1)


def test_lists_2d_floats_without_slots_and_reads_values(bundle):
    prefix, data = bundle
    b = read_bundle(prefix)
    assert sorted(b.float_matrices()) == sorted([EMB, "dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"])
    np.testing.assert_array_equal(b.read(EMB), data[EMB])
    got = b.read("dense/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, data["dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"].astype(np.float32))
    with pytest.raises(CheckpointError, match="not float"):
        b.read("counts/.ATTRIBUTES/VARIABLE_VALUE")
    with pytest.raises(CheckpointError, match="no tensor"):
        b.read("missing")


def test_many_blocks_and_snappy_blocks(tmp_path):
    rng = np.random.default_rng(1)
    data = {f"v{i:03d}/.ATTRIBUTES/VARIABLE_VALUE": rng.normal(size=(3, 2)).astype(np.float32) for i in range(70)}
    write_bundle(tmp_path / "a", data, block_size=128)
    write_bundle(tmp_path / "b", data, block_size=128, snappy=True)
    for prefix in ("a", "b"):
        b = read_bundle(tmp_path / prefix)
        assert sorted(b.float_matrices()) == sorted(data)
        for name, value in data.items():
            np.testing.assert_array_equal(b.read(name), value)


def test_snappy_copies():
    # "abcd" then a 1-byte-offset copy of 8 bytes at offset 4 (overlapping), then a 2-byte-offset copy of 4 at offset 2
    stream = bytes([16]) + bytes([3 << 2]) + b"abcd" + bytes([1 | ((8 - 4) << 2), 4]) + bytes([2 | (3 << 2), 2, 0])
    assert snappy_decompress(stream) == b"abcdabcdabcdcdcd"
    assert snappy_decompress(snappy_literal(b"xyz" * 30)) == b"xyz" * 30
    with pytest.raises(TableError):
        snappy_decompress(bytes([5, 1, 9, 9]))


@pytest.mark.parametrize("where", ["data block", "footer", "index data", "truncated"])
def test_damaged_index_is_a_clear_error(bundle, where):
    prefix, _ = bundle
    index = prefix.parent / "ckpt-1.index"
    raw = bytearray(index.read_bytes())
    if where == "data block":
        raw[20] ^= 0x40
    elif where == "footer":
        raw[-1] ^= 0xFF
    elif where == "index data":
        raw[-60] ^= 0x01
    else:
        raw = raw[:30]
    index.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"ckpt-1\.index: .*(CRC|magic|short|past|malformed|varint)"):
        read_bundle(prefix)


def test_damaged_or_short_data_is_a_clear_error(bundle):
    prefix, data = bundle
    shard = prefix.parent / "ckpt-1.data-00000-of-00001"
    raw = bytearray(shard.read_bytes())
    b = read_bundle(prefix)
    t = b.tensors[EMB]
    raw[t.offset + 5] ^= 0x10
    shard.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="CRC-32C mismatch"):
        b.read(EMB)
    np.testing.assert_array_equal(b.read(SLOT), data[SLOT])  # the other tensors still read
    shard.write_bytes(bytes(raw[: t.offset]))
    with pytest.raises(CheckpointError, match="file too short"):
        b.read(EMB)
    shard.unlink()
    with pytest.raises(CheckpointError, match="cannot read shard"):
        b.read(EMB)


def test_header_checks(tmp_path):
    big = tensor_bundle_pb2.BundleHeaderProto(num_shards=1, endianness=1)
    (tmp_path / "x.index").write_bytes(build_table([(b"", big.SerializeToString())]))
    with pytest.raises(CheckpointError, match="big-endian"):
        read_bundle(tmp_path / "x")
    (tmp_path / "y.index").write_bytes(build_table([(b"a", b"")]))
    with pytest.raises(CheckpointError, match="no bundle header"):
        read_bundle(tmp_path / "y")
    with pytest.raises(CheckpointError, match="cannot read checkpoint index"):
        read_bundle(tmp_path / "absent")


def test_sliced_entries_are_not_listed(tmp_path):
    sliced = tensor_bundle_pb2.BundleEntryProto(dtype=1)
    sliced.shape.dim.add(size=4)
    sliced.shape.dim.add(size=2)
    sliced.slices.add().extent.add(start=0, length=2)
    write_bundle(tmp_path / "s", {"a": np.zeros((2, 2), np.float32)}, extra={"part": sliced})
    b = read_bundle(tmp_path / "s")
    assert b.float_matrices() == ["a"]
    with pytest.raises(CheckpointError, match="partitioned"):
        b.read("part")


def test_latest_checkpoint(tmp_path, bundle):
    assert latest_checkpoint(tmp_path) is None
    write_state(tmp_path, "ckpt-1")
    assert latest_checkpoint(tmp_path) == tmp_path / "ckpt-1"
    write_state(tmp_path, "ckpt-9")
    assert latest_checkpoint(tmp_path) is None


def test_bundle_proto_field_numbers():
    """tensor_bundle.proto's numbers (TensorFlow's file is not shipped by TensorBoard)."""
    entry = {f.name: f.number for f in tensor_bundle_pb2.BundleEntryProto.DESCRIPTOR.fields}
    assert entry == {"dtype": 1, "shape": 2, "shard_id": 3, "offset": 4, "size": 5, "crc32c": 6, "slices": 7}
    crc = tensor_bundle_pb2.BundleEntryProto.DESCRIPTOR.fields_by_name["crc32c"]
    assert crc.type == crc.TYPE_FIXED32
    header = {f.name: f.number for f in tensor_bundle_pb2.BundleHeaderProto.DESCRIPTOR.fields}
    assert header == {"num_shards": 1, "endianness": 2, "version": 3}
    versions = pytest.importorskip("tensorboard.compat.proto.versions_pb2")
    theirs = {f.name: (f.number, f.type) for f in versions.VersionDef.DESCRIPTOR.fields}
    assert {f.name: (f.number, f.type) for f in tensor_bundle_pb2.VersionDef.DESCRIPTOR.fields} == theirs
