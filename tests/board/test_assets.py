"""plotly.js builds handed over to the page (assets.py): which script each build is, that the
cartesian asset is the same plotly.js version as the Python plotly package's, and what happens
when the asset was not built."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tbnb.board import assets

JS = Path(__file__).resolve().parents[2] / "js"


def _python_plotly_js_version() -> str:
    """The plotly.js version the Python plotly package bundles, as plotly itself reports it."""
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


def test_full_build_is_the_python_plotly_packages_script() -> None:
    import plotly

    data, version = assets.plotly_js("full")
    assert data == (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    assert version == _python_plotly_js_version()
    assert assets.plotly_js() == (data, version)  # the default: cards and older pages get every trace type


@pytest.mark.skipif(not assets.PLOTLY_CARTESIAN.exists(), reason="the JS build (npm run build) has not run")
def test_cartesian_asset_is_the_same_plotly_js_version_as_python_plotly() -> None:
    data, version = assets.plotly_js("cartesian")
    assert data == assets.PLOTLY_CARTESIAN.read_bytes()
    assert b"cartesian" in data[:200]
    assert version == _python_plotly_js_version() == assets.plotly_js("full")[1]
    assert assets.plotly_bundle_served("cartesian") == "cartesian"
    assert len(data) < len(assets.plotly_js("full")[0]) / 2


def test_the_npm_pin_of_the_cartesian_build_is_python_plotlys_version() -> None:
    """Checked without a build: package.json pins exactly the version plotly bundles (a plotly
    upgrade fails here until the pin follows), and the lockfile agrees."""
    pinned = json.loads((JS / "package.json").read_text())["devDependencies"]["plotly.js-cartesian-dist-min"]
    assert pinned == _python_plotly_js_version()
    lock = json.loads((JS / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/plotly.js-cartesian-dist-min"]["version"] == pinned


def test_versions_are_read_from_either_banner() -> None:
    assert assets.plotly_version(b"/**\n* plotly.js v4.1.1\n* Copyright") == "4.1.1"
    assert assets.plotly_version(b"/**\n* plotly.js (cartesian - minified) v4.1.1\n*") == "4.1.1"
    assert assets.plotly_version(b"no banner") == "unknown"


def test_without_the_built_asset_the_cartesian_build_is_served_by_the_full_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(assets, "PLOTLY_CARTESIAN", tmp_path / "absent.js")
    assets.forget_plotly()
    try:
        assert assets.plotly_js("cartesian") == assets.plotly_js("full")
        assert assets.plotly_bundle_served("cartesian") == "full"
    finally:
        monkeypatch.undo()
        assets.forget_plotly()


def test_an_unknown_build_is_refused() -> None:
    with pytest.raises(ValueError, match="cartesian"):
        assets.plotly_js("gl3d")


def test_load_ext_prepares_the_widget_code_and_the_cartesian_build(tmp_path: Path) -> None:
    """``%load_ext tbnb`` does the first board's preparations: the widget module is imported,
    the reader's checksum tables grown and the cartesian build read (and cached), so that
    ``%tbnb`` waits for none of them. In a fresh interpreter, as a kernel starts."""
    code = """
import sys
from tbnb.board import assets, magic

class Shell:
    def register_magic_function(self, fn, magic_kind, magic_name):
        self.name = magic_name

assert "tbnb.board.widget" not in sys.modules
from tbnb.format import crc
covers = lambda: 2 * (len(crc._tables.rows) - 1) + 2  # the widest record the tables serve
assert covers() < crc.PREPARED_WIDTH
shell = Shell()
magic.load_ipython_extension(shell)
assert shell.name == "tbnb"
assert "tbnb.board.widget" in sys.modules
assert covers() >= crc.PREPARED_WIDTH  # a scalar record's tables, grown
prepared = assets.plotly_js("cartesian")
assets.PLOTLY_CARTESIAN = assets.PLOTLY_CARTESIAN.with_name("absent.js")  # read already: cached
assert assets.plotly_js("cartesian") is prepared
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.stdout.strip() == "ok", done.stderr


def test_the_cartesian_asset_goes_into_the_wheel() -> None:
    """git ignores tbnb/static/; the build hook must make the asset and hatch must ship it."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())
    asset = assets.PLOTLY_CARTESIAN.relative_to(root).as_posix()
    assert asset in config["tool"]["hatch"]["build"]["artifacts"]
    assert asset in config["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]["ensured-targets"]
