"""Training diagnostics over a logdir: derived series (``derive``), train/validation pairs
(``pairs``), findings said in words with their evidence (``diagnose``; every rule in ``rules``),
and the learning-rate range test's suggestion (``lr_find``).

Pure numpy/pandas code over the reader's public methods (``source.LogdirLike``); no widget code.
"""
