"""Entry point of the `scacco` console script and of `python -m scacco`.

With no arguments Scacco speaks UCI on stdin/stdout; otherwise the first argument names a
subcommand (uci/cli/, listed by `scacco --help`).
"""
import sys

from .cli import COMMANDS, main, usage

__all__ = ["COMMANDS", "main", "usage"]

if __name__ == "__main__":
    sys.exit(main())
