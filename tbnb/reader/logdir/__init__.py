"""The reader's top layer, logdir: the public ``Logdir`` over many runs.

``logdir`` (``tbnb.load``) finds runs and reloads them: many changed runs at once
(``batch_reload``, ``batch_cold`` for TF1 scalar runs read the first time), by forked copies of
the kernel on big local logdirs (``forked``) or in threads or an executor's tasks (``tasks``),
with the garbage collector paused (``gc_pause``);
``analysis`` is the mixin that offers the plugins' reading of training as ``Logdir`` methods;
``group_frame`` and ``run_groups`` are run groups and their statistics; ``inspection`` is
``tbnb inspect``.

May import: every layer below (``plugins``, ``runs``, ``events``, ``records``, ``files``) and
``tbnb.format``; nothing above the reader (no widget code).
"""
