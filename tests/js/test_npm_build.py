"""The front end's build leaves git clean: the lockfile matches package.json, and the build hook
installs with ``npm ci`` (which never writes the lockfile), not ``npm install`` (which does)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "js"


def test_lockfile_root_matches_package_json() -> None:
    package = json.loads((JS / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((JS / "package-lock.json").read_text(encoding="utf-8"))
    root = lock["packages"][""]
    assert (lock["name"], lock["version"]) == (package["name"], package["version"])
    for key in ("name", "version", "license", "dependencies", "devDependencies", "engines"):
        assert root.get(key) == package.get(key), f"package-lock.json's {key} differs from package.json's"
    for name, version in {**package["dependencies"], **package["devDependencies"]}.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version, f"{name} is not locked at {version}"


def _builder() -> ModuleType:
    pytest.importorskip("hatch_jupyter_builder", reason="the build hook's own dependency")
    spec = importlib.util.spec_from_file_location("npm_build", JS / "npm_build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_build_hook_is_named_in_pyproject() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'build-function = "js.npm_build.npm_ci_builder"' in text
    sdist = re.search(r"\[tool\.hatch\.build\.targets\.sdist\]\s*include = (\[[^\]]*\])", text)
    assert sdist, "the sdist's include list"
    assert "js/npm_build.py" in json.loads(sdist.group(1)), "an sdist must carry the hook's function"


def _project(tmp_path: Path, *, package: bool = True, stale: bool = True) -> tuple[Path, Path, Path]:
    js = tmp_path / "js"
    (js / "src" / "core").mkdir(parents=True)
    (js / "src" / "core" / "board.js").write_text("export default {};\n")
    if package:
        (js / "package.json").write_text("{}\n")
    static = tmp_path / "static"
    static.mkdir()
    bundle = static / "board.js"
    bundle.write_text("built\n")
    now = time.time()
    os.utime(bundle, (now - 100, now - 100) if stale else (now + 100, now + 100))
    return js, static, bundle


def test_build_hook_runs_npm_ci_then_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _builder()
    calls: list[tuple[list[str], str]] = []
    monkeypatch.setattr(module, "run", lambda cmd, cwd: calls.append((cmd[1:], cwd)))
    monkeypatch.delenv("HATCH_JUPYTER_BUILDER_SKIP_NPM", raising=False)
    js, static, _ = _project(tmp_path)
    module.npm_ci_builder("wheel", "editable", path=str(js), build_dir=str(static), source_dir=str(js), npm=["npm"])
    assert calls == [(["ci"], str(js)), (["run", "build"], str(js))]


@pytest.mark.parametrize("case", ["fresh", "no package.json", "skip switch"])
def test_build_hook_does_nothing_when_it_need_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    module = _builder()
    calls: list[list[str]] = []
    monkeypatch.setattr(module, "run", lambda cmd, cwd: calls.append(cmd))
    monkeypatch.delenv("HATCH_JUPYTER_BUILDER_SKIP_NPM", raising=False)
    js, static, _ = _project(tmp_path, package=case != "no package.json", stale=case != "fresh")
    if case == "skip switch":
        monkeypatch.setenv("HATCH_JUPYTER_BUILDER_SKIP_NPM", "1")
    module.npm_ci_builder("wheel", "standard", path=str(js), build_dir=str(static), source_dir=str(js), npm=["npm"])
    assert calls == []
