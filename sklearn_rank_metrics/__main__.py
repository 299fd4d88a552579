"""``python -m sklearn_rank_metrics``: the command line (see ``--help``)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
