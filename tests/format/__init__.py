"""Tests of the TensorBoard wire format (``tbnb/format``): schemas, masked CRC, framing."""
