"""Inputs the long fuzz run found failing, read again as regression tests (strict xfails while
the defect stands: the test turns red when it is mended, so that the mark is taken away)."""

from __future__ import annotations

import shutil

import pytest

from . import checks, memory, seeds
from .worker import case_for


@pytest.mark.xfail(strict=True, reason="the many-runs batch path (batch_reload) drops the first item of a "
                                       "tensor series that the per-file bulk path and the general path keep")
def test_input_1467242_of_seed_16_reads_alike_through_the_batch_path() -> None:
    # mix_forms, splice, plugin, second:field_tag on a long TF1 seed and torch's: tensors('a', 'img')
    # has steps [0, 3, 6, 9] read per file (bulk or general) and [3, 6, 9] through the batch path.
    case = case_for(16, 1467242, seeds.load_seeds(), seeds.projector_files())
    assert case.batch  # the input is read through the batch path
    scratch = checks.workdir()
    try:
        outcome = checks.run_case(case, scratch / "in", memory.PeakMeter("rss"), run_bombs=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert outcome.failures == [], [f"{f.label} | {f.kind} | {f.detail}" for f in outcome.failures]
