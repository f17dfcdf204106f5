"""The reader's second layer, records: a byte range of an event file as TFRecords.

``records.frame`` finds records one by one, ``frame_bulk`` (with ``frame_periodic``'s
proposals) without a Python step per record, ``grouping`` groups a batch's rows with numpy.
Damage becomes a ``Problem``, never an exception.

May import: ``files`` and ``tbnb.format`` (the layout, the CRC); not events, runs or above.
"""
