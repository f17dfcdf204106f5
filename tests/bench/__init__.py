"""The loading benchmark: ``python -m tests.bench`` from the repository root (not a pytest suite).

tbnb against TensorBoard's Rust data server (RustBoard) and its Python loader on data written
once by ``tbnb.testing`` and cached in ``.bench-cache/``. See ``python -m tests.bench --help``.
"""
