"""Coverage-guided fuzzing with atheris (libFuzzer): ``python -m tests.fuzz.atheris_run [flags]``.

libFuzzer flags pass through, e.g. ``-max_total_time=600`` or ``-runs=100000``; the corpus
folder (default ``.fuzz-cache/atheris-corpus``) starts with the seed files of every writer.
``tbnb`` is instrumented, so that libFuzzer keeps inputs that reach new reader code.

Half the inputs are libFuzzer's bytes taken as one event file; the other half use the bytes to
drive the mutation engine on a seed (the first bytes pick seed and mutations), so that damage
deep inside valid records, which CRCs hide from plain byte mutation, is explored too.
An input that fails a check other than a known issue 16 class raises, which makes libFuzzer
save it as ``crash-*`` (under ``.fuzz-cache/atheris-crashes/`` unless ``-artifact_prefix`` says); known-class failures are counted and printed every 1000 inputs.
"""

from __future__ import annotations

import random
import resource
import sys
from collections import Counter

from . import seeds

KNOWN: set[str] = set()  # every class of issue 16 is fixed: any failure fails


class NewFailure(Exception):
    """A failure that is not one of issue 16's known classes."""


def main() -> None:
    try:
        import atheris
    except ImportError:
        sys.exit("atheris is not installed (pip install 'tbnb[fuzz]'); use python -m tests.fuzz instead")
    if "tbnb" in sys.modules:
        sys.exit("tbnb was imported before instrumentation; run this module as its own process")
    with atheris.instrument_imports(include=["tbnb"]):
        import tbnb.reader.logdir.logdir  # noqa: F401 - instrumented for coverage
    from . import checks, memory, mutate
    # libFuzzer's own maps take address space the plain children do not need: a wider limit.
    limit = 4 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    seed_files = seeds.load_seeds()
    names = sorted(seed_files)
    corpus = seeds.CACHE / "atheris-corpus"
    if not corpus.exists():
        corpus.mkdir(parents=True)
        for i, name in enumerate(names):
            (corpus / f"seed-{i}").write_bytes(seed_files[name])
    root = checks.workdir() / "in"
    meter = memory.PeakMeter("rss")
    checks.warm_up(root)
    known: Counter = Counter()
    count = [0]

    def one_input(data: bytes) -> None:
        count[0] += 1
        if data[:1] == b"\x00" and len(data) >= 9:
            rng = random.Random(data[1:9])
            seed = seed_files[names[data[1] % len(names)]]
            other = seed_files[names[data[2] % len(names)]]
            data = mutate.mutate(seed, other, rng).data
        case = checks.Case({checks.MAIN: data}, ["atheris"], [], False, 0, None)
        outcome = checks.run_case(case, root, meter, time_limit=10, run_bombs=True)
        for f in outcome.failures:
            if f.label in KNOWN:
                known[checks.signature(f)] += 1
            else:
                raise NewFailure(f"{f.label} | {f.kind} | {f.detail}")
        if count[0] % 1000 == 0:
            print(f"atheris: {count[0]} inputs; known: {dict(known)}", flush=True)

    argv = sys.argv + ([str(corpus)] if not any(not a.startswith("-") for a in sys.argv[1:]) else [])
    if not any(a.startswith("-artifact_prefix=") for a in argv):
        crashes = seeds.CACHE / "atheris-crashes"
        crashes.mkdir(parents=True, exist_ok=True)
        argv.append(f"-artifact_prefix={crashes}/")
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
