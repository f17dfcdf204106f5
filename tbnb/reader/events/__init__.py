"""The reader's third layer, events: record bytes as Events or as decoded columns.

``events`` parses records into Events (the general path); ``scalars_bulk`` and ``values_bulk``
(with ``values_template`` and ``values_fields``) decode many records at once at known byte
positions (``wire``), handing what they cannot decode to the general path, and what protobuf
might refuse too (``wire_check``: a payload whose wire format is broken); ``data_compat``
migrates TF1 summaries to TF2; ``tensors`` turns a TensorProto into numpy.

May import: ``records``, ``files`` and ``tbnb.format``; not runs or above.
"""
