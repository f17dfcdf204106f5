"""The projector dashboard's replies and Python API, on embeddings written by torch's
``add_embedding``, against values recomputed here."""

from __future__ import annotations

import importlib.util
import time

import numpy as np
import pytest

from tbnb.board.projector.linear import pca
from tbnb.board.projector.nonlinear import MissingExtra

from ..conftest import Page
from ..projector.bounds import distance_error

torch = pytest.importorskip("torch")

N, D = 60, 12


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("proj")
    rng = np.random.default_rng(2)
    feats = rng.normal(size=(N, D)).astype(np.float32)
    labels = [["cat", "dog", "bird"][i % 3] + f"{i}" for i in range(N)]
    kinds = [["cat", "dog", "bird"][i % 3] for i in range(N)]
    w = SummaryWriter(str(root / "run1"))
    w.add_embedding(torch.from_numpy(feats), metadata=list(zip(labels, kinds, range(N))),
                    metadata_header=["name", "kind", "n"], tag="feats")
    w.add_scalar("loss", 1.0, 0)
    w.close()
    return root, feats, labels, kinds


@pytest.fixture(scope="module")
def sprite_logdir(tmp_path_factory):
    """torch's add_embedding with label_img (a sprite) and a bookmarks file added to its config."""
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("proj-sprite")
    rng = np.random.default_rng(4)
    feats = rng.normal(size=(12, 5)).astype(np.float32)
    images = torch.from_numpy(rng.uniform(size=(12, 3, 8, 8)).astype(np.float32))
    w = SummaryWriter(str(root / "run"))
    w.add_embedding(torch.from_numpy(feats), metadata=[f"p{i}" for i in range(12)], label_img=images, tag="imgs")
    w.close()
    config = root / "run" / "projector_config.pbtxt"
    (root / "run" / "marks.json").write_text(
        '[{"label": "first two", "selectedProjection": "pca", "pcaComponentDimensions": [0, 1],'
        ' "selectedPoints": [0, 1, 50]}, {"selectedProjection": "tsne", "tSNEis3d": true}]')
    text = config.read_text()
    config.write_text(text.replace('tensor_name: "imgs:00000"', 'tensor_name: "imgs:00000"\n  bookmarks_path: "marks.json"'))
    return root, images


def test_index_metadata_points(make_board, logdir):
    root, feats, labels, kinds = logdir
    page = Page(make_board(root))
    idx = page.decoded({"type": "projector_index", "id": 1})
    assert idx["runs"] == [{"run": "run1", "embeddings": [
        {"name": "feats:00000", "source": str((root / "run1/00000/feats/tensors.tsv").resolve())}], "problems": []}]
    meta = page.decoded({"type": "projector_metadata", "id": 2, "run": "run1", "embedding": "feats:00000"})
    assert meta["shape"] == [N, D] and meta["label_column"] == "name" and meta["problems"] == []
    cols = {c["name"]: c for c in meta["columns"]}
    assert cols["n"]["kind"] == "number" and cols["n"]["data"].tolist() == list(range(N))
    kind = cols["kind"]
    assert kind["kind"] == "category" and kind["categorical"] and kind["values"] == ["bird", "cat", "dog"]
    assert [kind["values"][c] for c in kind["codes"]] == kinds
    assert not cols["name"]["categorical"] is False or len(cols["name"]["values"]) == N
    for dims in (2, 3):
        pts = page.decoded({"type": "projector_points", "id": 3, "run": "run1", "embedding": "feats:00000",
                            "method": "pca", "dims": dims})
        want = pca(feats, dims)
        assert pts["state"] == "done" and pts["positions"].dtype == np.float32
        np.testing.assert_allclose(pts["positions"], want.coords, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(pts["variance"], want.variance[:10])
    comps = page.decoded({"type": "projector_points", "id": 4, "run": "run1", "embedding": "feats:00000",
                          "method": "pca", "dims": 2, "params": {"components": [2, 0], "spherize": True}})
    sp = pca(feats, 3, spherized=True)
    np.testing.assert_allclose(comps["positions"], sp.coords[:, [2, 0]], rtol=1e-5, atol=1e-5)


def test_custom_projection_request(make_board, logdir):
    root, feats, labels, kinds = logdir
    page = Page(make_board(root))
    params = {"left": "^cat", "right": "^dog", "up": "bird", "down": "^cat1", "column": "name"}
    pts = page.decoded({"type": "projector_points", "id": 1, "run": "run1", "embedding": "feats:00000",
                        "method": "custom", "dims": 2, "params": params})
    rows = lambda rx: [i for i, s in enumerate(labels) if __import__("re").search(rx, s, __import__("re").I)]
    x64 = feats.astype(np.float64)
    xd = x64[rows("^dog")].mean(0) - x64[rows("^cat")].mean(0)
    yd = x64[rows("bird")].mean(0) - x64[rows("^cat1")].mean(0)
    np.testing.assert_allclose(pts["positions"], np.stack([x64 @ xd, x64 @ yd], 1), rtol=1e-4, atol=1e-4)


def test_bad_requests_are_errors(make_board, logdir):
    root, *_ = logdir
    page = Page(make_board(root))
    base = {"type": "projector_points", "id": 1, "run": "run1", "embedding": "feats:00000"}
    for extra, message in [({"method": "pca", "dims": 4}, "dims must be 2 or 3"),
                           ({"method": "pca", "dims": 2, "params": {"perplexity": 3}}, "pca takes"),
                           ({"method": "nope", "dims": 2}, "'method' must be one of"),
                           ({"method": "pca", "dims": 2, "embedding": "missing"}, "no embedding 'missing'")]:
        reply, _ = page.ask({**base, **extra})
        assert reply["type"] == "error" and message in reply["message"], reply


def test_neighbors_request_and_python_api(make_board, logdir):
    root, feats, labels, kinds = logdir
    board = make_board(root)
    page = Page(board)
    got = page.decoded({"type": "projector_neighbors", "id": 1, "run": "run1", "embedding": "feats:00000",
                        "index": 5, "k": 4, "metric": "euclidean"})
    d = np.linalg.norm(feats.astype(np.float64) - feats[5], axis=1)
    d[5] = np.inf
    assert got["indices"].tolist() == np.argsort(d)[:4].tolist()
    frame = board.projector_neighbors(5, k=4, metric="cosine")
    unit = feats / np.linalg.norm(feats, axis=1, keepdims=True)
    cos = 1 - unit.astype(np.float64) @ unit[5]
    cos[5] = np.inf
    assert frame["index"].tolist() == np.argsort(cos)[:4].tolist()
    want = np.sort(cos)[:4]
    # the reference's float32 unit rows round like the kernel's float32 norms: twice the bound
    assert (np.abs(frame["distance"].to_numpy() - want) <= 2 * distance_error("cosine", want, D)).all()
    assert frame["name"].tolist() == [labels[i] for i in frame["index"]]


def test_search_selects_and_selection_is_settable(make_board, logdir):
    root, feats, labels, kinds = logdir
    board = make_board(root, dashboard="projector", projector_label_by="name")
    board.projector_search = "^cat"
    assert board.projector_selection == [i for i, s in enumerate(labels) if s.startswith("cat")]
    board.projector_label_by = "kind"
    board.projector_search = "^b.rd$"
    assert board.projector_selection == [i for i, k in enumerate(kinds) if k == "bird"]
    board.projector_selection = [3, 1, 3]
    assert board.projector_selection == [3, 1]
    board.projector_search = ""
    assert board.projector_selection == []
    with pytest.raises(Exception, match="invalid regular expression"):
        board.projector_search = "("
    with pytest.raises(Exception, match="2 or 3"):
        board.projector_dims = 4
    assert board.projector_positions().shape == (N, 3)


def test_tsne_job_runs_reports_and_stops(make_board, logdir):
    root, feats, *_ = logdir
    page = Page(make_board(root))
    ask = {"type": "projector_points", "id": 1, "run": "run1", "embedding": "feats:00000",
           "method": "tsne", "dims": 2, "params": {"perplexity": 5, "iterations": 100, "seed": 3}}
    first = page.decoded(ask)
    if first["state"] == "error" and "tbnb[projector]" in first["message"]:
        pytest.skip("neither openTSNE nor scikit-learn is installed")
    deadline = time.time() + 400
    reply = first
    while reply["state"] == "running" and time.time() < deadline:
        time.sleep(0.2)
        reply = page.decoded(ask)
    assert reply["state"] == "done", reply
    assert reply["positions"].shape == (N, 2) and np.isfinite(reply["positions"]).all()
    again = page.decoded(ask)  # cached: the same layout
    np.testing.assert_array_equal(again["positions"], reply["positions"])
    if importlib.util.find_spec("openTSNE") is None:
        return  # scikit-learn's TSNE (the fallback) runs whole: no stop between iterations (nonlinear.py)
    # a long one, stopped
    long = {**ask, "params": {"perplexity": 5, "iterations": 100000, "seed": 4}}
    assert page.decoded(long)["state"] == "running"
    time.sleep(0.5)
    assert page.decoded({**long, "type": "projector_stop"})["stopped"] == 1
    deadline = time.time() + 300
    while (reply := page.decoded(long))["state"] == "running" and time.time() < deadline:
        time.sleep(0.5)
    assert reply["state"] == "stopped", reply
    assert reply["progress"][0] < reply["progress"][1]  # stopped before its end
    assert page.decoded(long)["state"] == "stopped"  # asking again does not start it again
    assert page.decoded({**long, "rerun": True})["state"] == "running"
    page.decoded({**long, "type": "projector_stop"})


def test_missing_extra_message():
    assert "tbnb[projector]" in str(MissingExtra("t-SNE needs openTSNE or scikit-learn: pip install 'tbnb[projector]'"))


def test_view_code_is_sent_or_missing_is_an_error(make_board, logdir, bundle):
    root, *_ = logdir
    page = Page(make_board(root))
    reply, buffers = page.ask({"type": "projector_code", "id": 1})
    assert reply["type"] == "error" and "projector_view.js is missing" in reply["message"]
    (bundle.parent / "projector_view.js").write_text("globalThis.__tbnb_projector_view__ = {};")
    reply, buffers = page.ask({"type": "projector_code", "id": 2})
    assert reply["size"] == len(bytes(buffers[0])) and bytes(buffers[0]).startswith(b"globalThis")


def test_sprite_request_sends_the_atlas_and_bookmarks_are_listed(make_board, sprite_logdir):
    from PIL import Image
    import io

    root, images = sprite_logdir
    board = make_board(root)
    page = Page(board)
    meta = page.decoded({"type": "projector_metadata", "id": 1, "run": "run", "embedding": "imgs:00000"})
    assert meta["sprite"]["single_image_dim"] == [8, 8] and meta["problems"] == []
    assert [m["label"] for m in meta["bookmarks"]] == ["first two", "Bookmark 2"]
    assert meta["bookmarks"][0]["selection"] == [0, 1] and meta["bookmarks"][0]["dims"] == 2
    reply, buffers = page.ask({"type": "projector_sprite", "id": 2, "run": "run", "embedding": "imgs:00000"})
    assert reply["single_image_dim"] == [8, 8] and reply["size"] == len(bytes(buffers[0]))
    atlas = np.asarray(Image.open(io.BytesIO(bytes(buffers[0]))).convert("RGB"))
    # torch's sprite: a square grid, row-major; thumbnail 5 is the 6th image
    per_row = atlas.shape[1] // 8
    r, c = divmod(5, per_row)
    want = (images[5].numpy().transpose(1, 2, 0) * 255).astype(np.uint8)
    assert np.abs(atlas[r * 8:(r + 1) * 8, c * 8:(c + 1) * 8].astype(int) - want).max() <= 1
    reply, _ = page.ask({"type": "projector_sprite", "id": 3, "run": "run1", "embedding": "nope"})
    assert reply["type"] == "error"


def test_apply_bookmark_from_python(make_board, sprite_logdir):
    root, _ = sprite_logdir
    board = make_board(root, dashboard="projector")
    board.projector_selection = [7]
    mark = board.projector_apply_bookmark("first two")
    assert mark["label"] == "first two"
    assert (board.projector_method, board.projector_dims, board.projector_params) == ("pca", 2, {"components": [0, 1]})
    assert board.projector_selection == [0, 1]
    board.projector_apply_bookmark(1)
    assert (board.projector_method, board.projector_dims) == ("tsne", 3) and board.projector_selection == [0, 1]
    with pytest.raises(KeyError, match="no bookmark 'x'"):
        board.projector_apply_bookmark("x")
