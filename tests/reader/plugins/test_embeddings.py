"""``embeddings(logdir, run)``: what torch and tensorboardX ``add_embedding`` wrote, checkpoints,
configs in every place TensorBoard looks, and bad input costing only what it touches."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import tbnb
from tbnb.reader.plugins.embedding_files import parse_metadata, parse_tensor
from tbnb.reader.plugins.embeddings import EmbeddingError, embeddings

from ..conftest import available_writers, make_writer
from .bundle_writer import write_bundle, write_state

PLUGIN = "plugins/org_tensorflow_tensorboard_projector"


@pytest.fixture(scope="module", params=available_writers())
def written(request, tmp_path_factory):
    kind = request.param
    root = tmp_path_factory.mktemp(f"emb_{kind}")
    rng = np.random.default_rng(7)
    feats = rng.normal(size=(12, 5)).astype(np.float32)
    labels = [f"cat{i}" if i % 2 else f"dog{i}" for i in range(12)]
    sprite = rng.uniform(0, 1, size=(12, 3, 6, 6)).astype(np.float32)
    table = [[f"n{i}", i % 3, i * 0.5] for i in range(4)]
    other = rng.normal(size=(4, 3)).astype(np.float32)
    w = make_writer(kind, root / "run")
    try:
        if kind == "torch":
            import torch

            w.add_embedding(torch.from_numpy(feats), metadata=labels, label_img=torch.from_numpy(sprite), tag="feats")
        else:
            w.add_embedding(feats, metadata=labels, label_img=sprite, tag="feats")
        w.add_embedding(other, metadata=table, metadata_header=["name", "cls", "score"], global_step=3, tag="table")
    finally:
        w.close()
    return root, kind, feats, labels, sprite, table, other


def test_writers_add_embedding(written):
    root, kind, feats, labels, sprite, table, other = written
    found = embeddings(tbnb.load(root), "run")
    assert found.problems == []
    assert list(found) == ["feats:00000", "table:00003"]
    assert list(tbnb.load(root).embeddings("run")) == list(found)  # the Logdir's own method
    e = found["feats:00000"]
    assert e.tensor.dtype == np.float32
    np.testing.assert_array_equal(e.tensor, feats)
    assert list(e.metadata.columns) == ["label"] and list(e.metadata["label"]) == labels
    n, _, h, w = sprite.shape
    assert e.sprite.single_image_dim == (w, h)
    for i in range(n):
        want = np.uint8((sprite[i].transpose(1, 2, 0).astype(np.float64) * 255).clip(0, 255))
        np.testing.assert_array_equal(e.sprite.thumbnail(i)[..., :3], want)
    t = found["table:00003"]
    np.testing.assert_array_equal(t.tensor, other)
    assert list(t.metadata.columns) == ["name", "cls", "score"]
    assert list(t.metadata["name"]) == [r[0] for r in table]
    assert t.metadata["cls"].dtype.kind in "if" and list(t.metadata["cls"]) == [r[1] for r in table]
    assert list(t.metadata["score"]) == [r[2] for r in table]
    assert t.sprite is None and t.bookmarks == []


def test_metadata_header_rule_and_missing_cells():
    one = parse_metadata("a\nb\n\nc\n", 4, "m")
    assert list(one.columns) == ["label"] and one["label"].tolist()[:2] == ["a", "b"]
    assert pd.isna(one["label"][2]) and one["label"][3] == "c"
    two = parse_metadata("name\tv\r\nx\t1\r\ny\t\r\nz\t2.5\r\n", 3, "m")
    assert list(two.columns) == ["name", "v"]
    assert two["v"].dtype.kind == "f" and two["v"][0] == 1 and np.isnan(two["v"][1])
    mixed = parse_metadata("k\tv\n1\ta\n2\t3\n", 2, "m")
    assert mixed["k"].tolist() == [1, 2] and mixed["v"].tolist() == ["a", "3"]
    with pytest.raises(ValueError, match="3 metadata rows for 4 tensor rows"):
        parse_metadata("a\nb\nc\n", 4, "meta.tsv")
    with pytest.raises(ValueError, match="line 2 has 3 cells"):
        parse_metadata("a\tb\n1\t2\t3\n", 1, "m")


def test_tensor_tsv_and_raw_float32():
    values = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    tsv = "\n".join("\t".join(repr(float(v)) for v in row) for row in values).encode()
    np.testing.assert_array_equal(parse_tensor(tsv, (), "t"), values)
    raw = values.astype("<f4").tobytes()
    np.testing.assert_array_equal(parse_tensor(raw, (4, 3), "t"), values)
    with pytest.raises(ValueError, match="neither a TSV"):
        parse_tensor(raw, (), "t")
    with pytest.raises(ValueError, match="unequal"):
        parse_tensor(b"1\t2\n3\n", (), "t")


def config(*entries: str, extra: str = "") -> str:
    return extra + "".join("embeddings {\n" + e + "}\n" for e in entries)


def test_configs_everywhere_paths_and_problems(tmp_path):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 2)).astype(np.float32)
    (tmp_path / "a.bytes").write_bytes(a.tobytes())
    (tmp_path / "meta.tsv").write_text("x\ny\n")  # two rows for three: wrong count
    (tmp_path / "marks.json").write_text(json.dumps([{"label": "view 1"}]))
    (tmp_path / "projector_config.pbtxt").write_text(config(
        'tensor_name: "a:0"\ntensor_path: "a.bytes"\ntensor_shape: 3\ntensor_shape: 2\n'
        'metadata_path: "meta.tsv"\nbookmarks_path: "marks.json"\nsprite { image_path: "../outside.png" single_image_dim: 2 single_image_dim: 2 }\n',
        'tensor_name: "escapes"\ntensor_path: "../../etc/passwd"\n',
        'tensor_name: "nothing"\n'))
    plugin = tmp_path / "run" / PLUGIN
    plugin.mkdir(parents=True)
    (plugin / "b.tsv").write_text("1\t2\n3\t4\n")
    (plugin / "projector_config.pbtxt").write_text(config('tensor_name: "b"\ntensor_path: "b.tsv"\n'))
    (tmp_path / "run" / "projector_config.pbtxt").write_text("embeddings { tensor_name: ")  # malformed
    lg = tbnb.load(tmp_path)

    root = embeddings(lg, ".")
    assert list(root) == ["a"]
    assert any("'../../etc/passwd' resolves outside" in p for p in root.problems)
    assert any("'nothing' has no tensor_path" in p for p in root.problems)
    e = root["a"]
    np.testing.assert_array_equal(e.tensor, a)
    assert e.bookmarks == [{"label": "view 1"}]
    with pytest.raises(EmbeddingError, match="2 metadata rows for 3 tensor rows"):
        e.metadata
    with pytest.raises(EmbeddingError, match="outside the config's directory"):
        e.sprite

    run = embeddings(lg, "run")
    assert list(run) == ["b"]
    np.testing.assert_array_equal(run["b"].tensor, [[1, 2], [3, 4]])
    assert len(run.problems) == 1 and "not a projector config" in run.problems[0]


def test_checkpoint_embeddings_and_template(tmp_path):
    rng = np.random.default_rng(5)
    emb = rng.normal(size=(6, 4)).astype(np.float32)
    write_bundle(tmp_path / "ckpt-2", {
        "embedding/.ATTRIBUTES/VARIABLE_VALUE": emb,
        "embedding/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE": emb * 0,
        "bias/.ATTRIBUTES/VARIABLE_VALUE": emb[0],
    })
    write_state(tmp_path, "ckpt-2")
    lg = tbnb.load(tmp_path)
    found = embeddings(lg, ".")  # no config: the run's checkpoint state file
    assert list(found) == ["embedding/.ATTRIBUTES/VARIABLE_VALUE"] and found.problems == []
    np.testing.assert_array_equal(found["embedding/.ATTRIBUTES/VARIABLE_VALUE"].tensor, emb)
    assert found["embedding/.ATTRIBUTES/VARIABLE_VALUE"].metadata is None

    (tmp_path / "labels.tsv").write_text("".join(f"w{i}\n" for i in range(6)))
    (tmp_path / "projector_config.pbtxt").write_text(
        'model_checkpoint_path: "ckpt-2"\n' + config('metadata_path: "labels.tsv"\n'))
    found = embeddings(lg, ".")
    assert found["embedding/.ATTRIBUTES/VARIABLE_VALUE"].metadata["label"].tolist() == [f"w{i}" for i in range(6)]

    (tmp_path / "projector_config.pbtxt").write_text('model_checkpoint_path: "../elsewhere/ckpt"\n')
    found = embeddings(lg, ".")
    assert list(found) == [] and "resolves outside" in found.problems[0]

    (tmp_path / "projector_config.pbtxt").write_text('model_checkpoint_path: "ckpt-2"\n')
    idx = tmp_path / "ckpt-2.index"
    idx.write_bytes(idx.read_bytes()[:-1] + b"\0")
    found = embeddings(lg, ".")
    assert list(found) == [] and "magic number" in found.problems[0]
