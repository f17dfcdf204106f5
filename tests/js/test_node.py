"""Runs the front end's unit tests (node's test runner) as part of the one test command."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_js_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the front end's tests cannot run")
    if not (ROOT / "js" / "node_modules" / "esbuild").exists():
        pytest.fail("js/node_modules is missing: run `npm --prefix js ci` (pip install -e . does it too)")
    tests = sorted(str(p) for p in (ROOT / "tests" / "js").rglob("*.test.mjs"))
    assert tests, "no JS test files found"
    out = subprocess.run([node, "--test", *tests], cwd=ROOT / "js", capture_output=True, text=True, timeout=300)
    report = out.stdout + out.stderr
    passed = re.search(r"^# pass (\d+)$", report, re.M)
    failed = re.search(r"^# fail (\d+)$", report, re.M)
    assert out.returncode == 0, report[-4000:]
    assert passed and int(passed.group(1)) >= 40, report[-2000:]
    assert failed and int(failed.group(1)) == 0, report[-2000:]
