"""The `scacco` command line: one module per subcommand (or family), their shared checks in
common.py, careful output files and resumable runs in files.py and runner.py, the analysis
outputs in writers.py.

Each subcommand is `function(argv) -> exit status` (common.py's EXIT_OK all done, EXIT_FAILED
some items (games) failed, EXIT_USAGE bad usage and nothing done; 128 + N stopped by signal N,
the finished work kept).  The engine layer below only takes and returns data; reading,
writing, messages and exit statuses are here.  Imports are lazy: the UCI loop must answer
`uci` before any engine code is loaded.
"""
from __future__ import annotations

import sys

from ..._version import __version__

__all__ = ["COMMANDS", "main", "usage"]


def _lazy(module: str, name: str):
    def command(argv):
        import importlib
        return getattr(importlib.import_module(f".{module}", __name__), name)(argv)
    command.__name__ = name
    return command


# name -> (function, one line for --help)
COMMANDS = {
    "perft": (_lazy("positions", "perft"), "count the leaf nodes of the legal move tree (move generator check)"),
    "bench": (_lazy("positions", "bench"), "search the built-in bench positions; prints the node signature and speed"),
    "analyse": (_lazy("analyse", "main"), "judge every move of PGN games as lichess does: accuracy, mistakes, annotated PGN, JSON, graph"),
    "solve": (_lazy("positions", "solve"), "print every first move that forces mate within N moves (exact proof)"),
    "datagen": (_lazy("training", "datagen"), "self-play training positions (score and result) for the neural evaluation, resumable"),
    "train": (_lazy("training", "train"), "train a network for the neural evaluation on datagen files (needs the train extra: PyTorch)"),
    "hint": (_lazy("positions", "hint"), "a good move for a position (SAN on the first line) and one sentence on why"),
    "puzzles": (_lazy("puzzles", "main"), "find puzzles in PGN games: a CSV in the lichess puzzle database's format"),
    "puzzle": (_lazy("daily", "puzzle"), "the puzzle of the day (--date YYYY-MM-DD) with its themes and hints"),
    "tb": (_lazy("tablebase", "main"), "probe the Syzygy tablebases: a position's result and every move's"),
    "drill": (_lazy("drill", "main"), "an endgame lesson against perfect defence from Syzygy tables, each move judged at once"),
}


def usage() -> str:
    """The text of `scacco --help`: what the program is and one line per subcommand."""
    width = max(len(name) for name in COMMANDS)
    lines = [f"Scacco {__version__}: a UCI chess engine.",
             "",
             "usage: scacco [--version | --help | COMMAND [ARGS...]]",
             "",
             "With no command, speaks UCI on standard input and output (load it in a chess GUI).",
             "",
             "commands:"]
    lines += [f"  {name.ljust(width)}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "`scacco COMMAND --help` describes a command's arguments."]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        from ..loop import run
        return run()
    if argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if argv[0] in ("-V", "--version"):
        print(f"scacco {__version__}")
        return 0
    entry = COMMANDS.get(argv[0])
    if entry is None:
        print(f"scacco: unknown command {argv[0]!r}; try one of: {', '.join(COMMANDS)} "
              f"(or no argument for UCI; scacco --help lists them)", file=sys.stderr)
        return 2
    try:
        return entry[0](argv[1:])
    except KeyboardInterrupt as stop:
        # a command without work worth keeping (perft, bench, solve, hint) stopped by Ctrl-C,
        # or engine.stopping's Interrupted before a run had begun: the status names the signal
        import signal
        from ...engine.stopping import interrupted_status
        print(f"\nscacco {argv[0]}: interrupted", file=sys.stderr)
        return interrupted_status(getattr(stop, "signum", signal.SIGINT))
    except BrokenPipeError:
        # the reader of our output went away (`| head`): nothing more to say to it
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
