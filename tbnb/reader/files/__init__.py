"""The reader's first layer, files: where a logdir's event files are and their bytes.

A local directory (``storage``, with ``discovery_cache`` and, on Linux, ``inotify``) or any
fsspec URL (``remote``); which of them a logdir is (``location``); which directories are runs
(``discovery``); reusable read buffers (``read_buffer``); and ``problems``, what every layer
reports instead of failing.

May import: ``tbnb.format`` and ``tbnb.reader.user_regex``; no other layer of the reader.
"""
