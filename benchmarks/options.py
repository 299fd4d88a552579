"""The command line of the small benchmark scripts: one typed option per keyword."""

from __future__ import annotations

import argparse


def option_parser(description: str, **defaults: float | str) -> argparse.ArgumentParser:
    """A parser with one option per keyword: ``tie_share=0.0`` is ``--tie-share``, a
    float defaulting to 0.0 (each option takes the type of its default)."""
    parser = argparse.ArgumentParser(description=description)
    for name, default in defaults.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    return parser
