"""samples_per_plugin: TensorBoard's flag syntax and defaults."""

from __future__ import annotations

import pytest

from tbnb.reader.runs.size_guidance import DEFAULTS, parse_samples_per_plugin


def test_defaults_are_tensorboards() -> None:
    caps = parse_samples_per_plugin(None)
    assert caps == {"images": 10, "audio": 10, "histograms": 500, "pr_curves": 100, "*": 10} == DEFAULTS


def test_flag_syntax() -> None:
    caps = parse_samples_per_plugin("images=all, audio=3,text=0,scalars=1000")
    assert caps["images"] is None and caps["audio"] == 3 and caps["text"] is None
    assert "scalars" not in caps and caps["histograms"] == 500


def test_dict_with_star_default() -> None:
    caps = parse_samples_per_plugin({"*": 5, "images": "all"})
    assert caps["*"] == 5 and caps["images"] is None


def test_star_replaces_every_default_not_named() -> None:
    caps = parse_samples_per_plugin({"*": "all", "histograms": 7})
    assert caps == {"*": None, "histograms": 7}
    assert parse_samples_per_plugin("*=3")["*"] == 3 and "images" not in parse_samples_per_plugin("*=3")


@pytest.mark.parametrize("bad", ["images", "images=lots", "=3", "audio=-1"])
def test_bad_specs_say_what_is_wrong(bad: str) -> None:
    with pytest.raises(ValueError, match="samples_per_plugin"):
        parse_samples_per_plugin(bad)
