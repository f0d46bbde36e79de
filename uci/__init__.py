"""Scacco's command line: the UCI protocol loop and the `scacco` subcommands.

Answering `uci` imports nothing of the engine (the version comes from scacco._version).
"""
from .._version import __version__

__all__ = ["__version__"]
