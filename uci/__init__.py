"""Scacco's command line: the UCI protocol loop and the `scacco` subcommands."""

# Kept here as well as in engine/__init__.py so that answering `uci` imports nothing of the
# engine; tests/test_uci_protocol.py checks that the two (and pyproject.toml) agree.
__version__ = "0.1.0"
