"""TensorBoard's saved States read as projector settings: what is valid is kept, the rest left out."""

from __future__ import annotations

from tbnb.board.projector import service
from tbnb.board.projector.bookmarks import bookmark, bookmarks

COLUMNS = ["name", "kind"]


def test_pca_state():
    mark = bookmark({"label": "two axes", "selectedProjection": "pca", "pcaComponentDimensions": [1, 0],
                     "selectedPoints": [4, 2, 4, 99, -1, True, "3"], "selectedColorOptionName": "kind",
                     "selectedLabelOption": "name", "cameraDef": {"orthographic": True}}, 10, COLUMNS)
    assert mark == {"label": "two axes", "method": "pca", "dims": 2, "params": {"components": [1, 0]},
                    "selection": [4, 2], "color_by": "kind", "label_by": "name"}
    assert service.canonical(mark["method"], mark["dims"], mark["params"])["components"] == [1, 0]


def test_tsne_umap_custom_states_give_valid_parameters():
    tsne = bookmark({"selectedProjection": "tsne", "tSNEPerplexity": 12, "tSNELearningRate": 10, "tSNEis3d": False},
                    5, COLUMNS)
    assert (tsne["method"], tsne["dims"], tsne["params"]) == ("tsne", 2, {"perplexity": 12.0, "learning_rate": 10.0})
    umap = bookmark({"selectedProjection": "umap", "umapNeighbors": 20, "umapIs3d": True}, 5, COLUMNS)
    assert (umap["method"], umap["dims"], umap["params"]) == ("umap", 3, {"neighbors": 20})
    custom = bookmark({"selectedProjection": "custom", "customXLeftText": "^cat", "customXRightText": "dog",
                       "customYUpText": "", "customYDownText": "b", "customXLeftRegex": False,
                       "customSelectedSearchByMetadataOption": "name"}, 5, COLUMNS)
    assert custom["params"] == {"left": "^cat", "right": "dog", "up": "", "down": "b", "regex": False, "column": "name"}
    for mark in (tsne, umap, custom):
        service.canonical(mark["method"], mark["dims"], mark["params"])  # accepted as they are


def test_out_of_range_or_unknown_fields_are_left_out():
    mark = bookmark({"selectedProjection": "tsne", "tSNEPerplexity": 500, "tSNELearningRate": -1,
                     "selectedColorOptionName": "missing", "label": 3}, 5, COLUMNS)
    assert mark == {"label": "", "method": "tsne", "dims": None, "params": {}, "selection": None,
                    "color_by": None, "label_by": None}
    assert bookmark({"selectedProjection": "pca", "pcaComponentDimensions": [0, 0]}, 5, COLUMNS)["dims"] is None
    assert bookmark({"selectedProjection": "nope"}, 5, COLUMNS)["method"] is None
    assert bookmark({"selectedProjection": "umap", "umapNeighbors": 2}, 5, COLUMNS)["params"] == {}
    assert [m["label"] for m in bookmarks([{}, {"label": "x"}], 5, COLUMNS)] == ["Bookmark 1", "x"]
