"""Scacco's command line: the UCI protocol loop and the `scacco` subcommands."""
