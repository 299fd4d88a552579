"""The oracle (tests/support/reference.py) and the peer tools against our metrics: the
mutation self-check's target."""
