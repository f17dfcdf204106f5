"""The Board benchmark: ``python -m tests.bench.board`` from the repository root (not a pytest suite).

tbnb's Board in a real JupyterLab driven through headless Chromium with the UI tests' harness
(``tests/ui/harness.py``): time to first draw, the smoothing slider, scrolling, memory and the
saved notebook's size, on the loading benchmark's cached dataset (a). See
``python -m tests.bench.board --help``.
"""
