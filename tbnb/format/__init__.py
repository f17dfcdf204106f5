"""The TensorBoard wire format: what an event file is, whoever reads or writes it.

``proto/`` holds the protobuf schemas (generated ``*_pb2`` modules), ``crc`` the masked CRC-32C
and ``framing`` a TFRecord's layout and how to write one. Both ``tbnb.reader`` and
``tbnb.writer`` build on this package, so writing event files never depends on the reader.

May import: nothing of tbnb's but itself.
"""
