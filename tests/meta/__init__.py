"""The repository as a whole: the layers, docstrings, README, release, test data and the
mutation self-check."""
