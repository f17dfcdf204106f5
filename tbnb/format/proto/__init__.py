"""Our own copies of TensorBoard's protobuf schemas, wire-compatible, in package ``tbnb``.

The ``*_pb2.py`` modules are generated and shipped so that installing tbnb needs no protoc.
They are generated with protoc 25 (``grpcio-tools==1.62.3``), whose output carries no runtime
version check and so works with every protobuf runtime from 4.21 to today's (Colab pins old
ones). Regenerate from the repository root, in a separate environment that has that tool::

    python -m grpc_tools.protoc -I. --python_out=. --pyi_out=. tbnb/format/proto/*.proto

Field numbers come from TensorBoard's copies; ``tests/format/test_proto.py`` compares every
field with TensorBoard's own descriptors.
"""
