"""One module per plugin: decoding and derived views that go beyond the generic series.

A layer of the reader between runs and logdir: a plugin reads a Logdir through the small
interface ``source.LogdirLike``, so it imports nothing of ``logdir``.

May import: ``runs``, ``events``, ``records``, ``files``, ``tbnb.reader.user_regex`` and
``tbnb.format``; not ``logdir``.
"""
