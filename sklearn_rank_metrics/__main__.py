"""``python -m sklearn_rank_metrics`` and the ``rank-metrics`` console script.

:func:`main` imports the command line (NumPy, SciPy, scikit-learn: a second or two
of CPU) inside its Ctrl-C handler, so that Ctrl-C while the command is still loading
ends it as Ctrl-C during its work does: one line on stderr, exit status 130, no
traceback. Nothing heavy runs before the handler is in place: the package's
``__init__`` imports its public names on first use.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

# _cli's PROGRAM and EXIT_INTERRUPTED: _cli is what this module loads under the
# handler, so it cannot read them from there (tests/meta/test_imports.py checks both
# say the same)
PROGRAM = "rank-metrics"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C


def main(argv: Sequence[str] | None = None) -> int:
    """Import and run the command line (``_cli.main``); Ctrl-C at any point exits 130."""
    try:
        from ._cli import main as run_command

        return run_command(argv)
    except KeyboardInterrupt:  # while importing: _cli.main handles it during the work
        print(f"{PROGRAM}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
