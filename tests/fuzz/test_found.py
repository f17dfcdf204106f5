"""Inputs the long fuzz run found failing, read again as regression tests (a strict xfail while
a defect stands: the test turns red when it is mended, so that the mark is taken away)."""

from __future__ import annotations

import shutil

from . import checks, memory, seeds
from .worker import case_for


def test_input_1467242_of_seed_16_reads_alike_through_the_batch_path() -> None:
    # mix_forms, splice, plugin, second:field_tag on a long TF1 seed and torch's: tensors('a', 'img')
    # had steps [0, 3, 6, 9] read per file (bulk or general) and [3, 6, 9] through the batch path:
    # a record whose image payload is broken (a length cut short, then a group never closed) was
    # kept by the value walker (a point at step 0, which purged the steps after it) where
    # protobuf refuses it (the general path reports and skips it). The walker now hands such
    # records to protobuf (``wire_check``).
    case = case_for(16, 1467242, seeds.load_seeds(), seeds.projector_files())
    assert case.batch  # the input is read through the batch path
    scratch = checks.workdir()
    try:
        outcome = checks.run_case(case, scratch / "in", memory.PeakMeter("rss"), run_bombs=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert outcome.failures == [], [f"{f.label} | {f.kind} | {f.detail}" for f in outcome.failures]
