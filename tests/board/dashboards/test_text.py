"""Text items (tbnb.board.dashboards.text): Markdown source or table rows, sizes and limits."""

from __future__ import annotations

import numpy as np

from tbnb.board.dashboards import text

from .conftest import strings

# -- text -----------------------------------------------------------------------------------------

def test_rank_0_is_markdown_source() -> None:
    source = "# Title\n\n**bold** <script>alert(1)</script>"
    item = text.text_item(np.array(source.encode(), dtype=object), 1 << 20)
    # the source as written: the kernel renders nothing and escapes nothing (the page sanitises)
    assert item == {"kind": "markdown", "markdown": source, "rows": None, "size": len(source.encode()),
                    "status": "ok"}
    assert "html" not in item


def test_a_single_string_of_any_rank_is_markdown() -> None:
    for arr in (np.array([b"**x**"], dtype=object), np.array([[b"**x**"]], dtype=object)):
        item = text.text_item(arr, 100)
        assert (item["kind"], item["markdown"], item["rows"]) == ("markdown", "**x**", None)


def test_rank_1_is_a_one_column_table() -> None:
    item = text.text_item(strings(b"a", b"b|c", "d"), 100)
    assert (item["kind"], item["markdown"], item["rows"], item["size"]) == ("table", None, [["a"], ["b|c"], ["d"]], 5)


def test_rank_2_is_a_table() -> None:
    item = text.text_item(strings(b"k", b"v", b"lr", b"0.1", shape=(2, 2)), 100)
    assert item["kind"] == "table" and item["rows"] == [["k", "v"], ["lr", "0.1"]]


def test_rank_3_and_more_show_the_first_2d_slice() -> None:
    cube = strings(*[f"{i}{j}{k}".encode() for i in range(2) for j in range(3) for k in range(2)], shape=(2, 3, 2))
    assert text.text_item(cube, 100)["rows"] == [["000", "001"], ["010", "011"], ["020", "021"]]
    assert text.text_item(cube, 100)["size"] == 18  # of the slice sent
    four = strings(*[str(n).encode() for n in range(16)], shape=(2, 2, 2, 2))
    assert text.text_item(four, 100)["rows"] == [["0", "1"], ["2", "3"]]


def test_invalid_utf8_is_replaced() -> None:
    item = text.text_item(np.array(b"caf\xe9 \xff ok", dtype=object), 100)
    assert item["markdown"] == "caf\ufffd \ufffd ok" and item["size"] == 9
    assert text.text_item(strings(b"\xc3", "é"), 100)["rows"] == [["\ufffd"], ["é"]]


def test_text_size_limit() -> None:
    big = "x" * 1000
    item = text.text_item(np.array(big.encode(), dtype=object), 999)
    assert item == {"kind": "markdown", "markdown": None, "rows": None, "size": 1000, "status": "too_large"}
    table = text.text_item(strings("é" * 10, "abc"), 22)  # 20 + 3 UTF-8 bytes
    assert (table["kind"], table["rows"], table["size"], table["status"]) == ("table", None, 23, "too_large")
    assert text.text_item(strings("é" * 10, "abc"), 23)["status"] == "ok"
