"""The live soak, short (20 s), for CI: the full one is ``python -m tests.soak --minutes 10``.

One soak runs per module; each check is its own test, so that a failing one names itself.
RSS flatness needs minutes to mean anything, so only the long command checks it.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

from .__main__ import SoakResult, report, soak

SECONDS = 20.0


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> SoakResult:
    r = soak(SECONDS, tmp_path_factory.mktemp("soak") / "logdir")
    report(r)
    return r


def test_writer_kept_its_rate(result: SoakResult) -> None:
    assert result.written >= 0.5 * 2000 * SECONDS  # two scalars per event, about 1000 events a second
    assert len(result.events) == 6  # every step of the timeline happened


def test_every_point_read_once(result: SoakResult) -> None:
    assert result.read > 0
    assert result.missing == 0
    assert result.duplicated == 0
    assert result.unexpected == 0
    assert result.forbidden_present == 0


def test_no_thread_leak(result: SoakResult) -> None:
    assert result.threads[1] <= result.threads[0]


def test_board_says_what_happened_to_the_deleted_run(result: SoakResult) -> None:
    assert result.deleted_run_reported
