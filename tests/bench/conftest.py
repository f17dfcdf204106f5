"""Keep pytest out of the benchmark: it has its own command, ``python -m tests.bench``."""

collect_ignore_glob = ["*.py"]
