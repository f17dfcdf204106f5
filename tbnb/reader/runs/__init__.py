"""The reader's fourth layer, runs: one run's loader and what it holds.

``run`` reads a run's event files in order from where it stopped; ``run_data`` keeps its data by
TensorBoard's rules (first value names the plugin, purge on restart) with ``bulk_apply`` for
decoded columns: scalar ``columns`` (packed for sending: ``columns_pack``), ``reservoir``-sampled
``items``, ``size_guidance``; ``series`` are the immutable snapshots handed out and
``payloads`` decodes a sampled item when someone looks.

May import: ``events``, ``records``, ``files`` and ``tbnb.format``; not plugins or logdir.
"""
