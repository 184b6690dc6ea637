"""Thin launcher: everything here also works as ``python -m tensor_explorer``."""

import sys

from tensor_explorer.cli import main

if __name__ == "__main__":
    sys.exit(main())
