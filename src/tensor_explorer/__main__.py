"""``python -m tensor_explorer`` is the ``tensor-explorer`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
