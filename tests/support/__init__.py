"""Support modules of the tests: the vendored sample loader, qrels data, the independent
reference implementation and the mutation plugin."""
