"""`python -m scacco`: the same program as the `scacco` command."""
import sys

from .uci.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
