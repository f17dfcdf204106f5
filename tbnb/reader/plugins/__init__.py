"""One module per plugin: decoding and derived views that go beyond the generic series."""
