"""Training diagnostics over a logdir: derived series (``derive``), train/validation pairs
(``pairs``), and findings said in words with their evidence (``diagnose``).

Pure numpy/pandas code over the reader's public methods (``source.LogdirLike``); no widget code.
"""
