"""What the subcommands share: the exit statuses, one argument parser with the common checks
(bounded numbers, FENs, input files, worker counts, the Ray extra, the hash size), so that each
check and its message exist once.

Every check fails through ArgumentParser.error: the message on stderr after the usage line,
exit status EXIT_USAGE (argparse's 2), and nothing done.
"""
from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import List, Optional

__all__ = ["EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "Parser", "MAX_NODES",
           "MAX_SEARCH_DEPTH", "MAX_MOVETIME_MS", "MAX_JOBS", "warn", "shared_folder",
           "SYZYGY_VARIABLE"]

EXIT_OK = 0            # everything done
EXIT_FAILED = 1        # the run ended, but some items (games) could not be done
EXIT_USAGE = 2         # bad arguments or input: nothing done

# Upper bounds of the search budgets on the command line: beyond them a run would not end in
# any useful time (a position searched for hours), so they are refused rather than run.
MAX_NODES = 10 ** 10
MAX_SEARCH_DEPTH = 64
MAX_MOVETIME_MS = 3_600_000
# The environment variable naming the Syzygy tables' folders when a command is given none.
SYZYGY_VARIABLE = "SCACCO_SYZYGY"
# Worker processes at most, even when asked to run more than the cores.
MAX_JOBS = 256


def shared_folder(base: str = ".") -> Path:
    """The shared data folder (openings, PGN and EPD suites, the match runner): $SCACCO_SHARED
    when set, else `shared` beside `base`, i.e. base/../shared.  The command line's base is the
    working folder (an installed Scacco has no repository); the tests and bench/ pass the
    repository's root."""
    override = os.environ.get("SCACCO_SHARED")
    if override:
        return Path(override)
    return Path(os.path.normpath(os.path.join(base, "..", "shared")))


def warn(prog: str, text: str) -> None:
    print(f"{prog}: {text}", file=sys.stderr, flush=True)


class Parser(argparse.ArgumentParser):
    """argparse with the checks the subcommands share."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._bounds = []              # (dest, name, low, high) checked after parsing

    def bounded(self, *flags: str, low: int, high: int, **kwargs) -> None:
        """An integer argument that must lie in low..high (None, when optional and not
        given, is not checked)."""
        group = kwargs.pop("group", None)
        action = (group or self).add_argument(*flags, type=int, **kwargs)
        self._bounds.append((action.dest, action.option_strings[0] if action.option_strings
                             else action.dest, low, high))

    def parse_args(self, *args, **kwargs):
        parsed = super().parse_args(*args, **kwargs)
        for dest, name, low, high in self._bounds:
            value = getattr(parsed, dest)
            if value is None:
                continue
            if value < low:
                self.error(f"{name} must be at least {low}")
            if value > high:
                self.error(f"{name} must be at most {high}")
        return parsed

    def add_jobs(self) -> None:
        self.bounded("--jobs", low=1, high=10 ** 9, default=None, metavar="N",
                     help="worker processes (default: every core; more than the cores only "
                          "with --over-cores)")
        self.add_argument("--over-cores", action="store_true",
                          help="let --jobs start more workers than there are cores")

    def jobs(self, args) -> int:
        """--jobs, or every core; a count above the cores is cut to them with a warning
        unless --over-cores asks for it."""
        from ...engine.batch import default_jobs
        cores = default_jobs()
        if args.jobs is None:
            return cores
        if args.jobs > cores and not args.over_cores:
            warn(self.prog, f"--jobs {args.jobs} is more than this machine's {cores} cores: "
                            f"using {cores} (add --over-cores to run more)")
            return cores
        if args.jobs > MAX_JOBS:
            self.error(f"--jobs must be at most {MAX_JOBS}")
        return args.jobs

    def add_resume(self) -> None:
        """--resume, for a command that works game by game (uci/cli/runner.py's journal)."""
        self.add_argument("--resume", action="store_true",
                          help="go on with an interrupted run of the same command (the same "
                               "arguments): the games it finished are kept")

    def add_ray(self, what: str) -> None:
        self.add_argument("--ray", metavar="ADDRESS",
                          help=f"{what} on the Ray cluster at ADDRESS (needs the ray extra)")

    def check_ray(self, address: Optional[str]) -> None:
        if address is None:
            return
        try:
            import ray  # noqa: F401
        except ImportError:
            self.error("--ray needs Ray: pip install 'scacco[ray]'")

    def add_syzygy_path(self, what: str) -> None:
        """--syzygy-path DIRS, whose default is $SCACCO_SYZYGY (else no tables)."""
        self.add_argument("--syzygy-path", metavar="DIRS",
                          default=os.environ.get(SYZYGY_VARIABLE) or None,
                          help=f"{what} (folders of .rtbw/.rtbz files separated by "
                               f"{os.pathsep!r}; default ${SYZYGY_VARIABLE} when set, else none)")

    def table_folders(self, path: Optional[str], option: str = "--syzygy-path") -> List[str]:
        """The folders named by `option`'s value (separated by os.pathsep), each an existing
        folder; a value that names none, or a folder that is missing, is refused."""
        from ...engine.tablebase import split_paths
        folders = split_paths(path)
        if not folders:
            self.error(f"{option} names no folder")
        for folder in folders:
            if not os.path.exists(folder):
                self.error(f"{option}: no such folder: {folder}")
            if not os.path.isdir(folder):
                self.error(f"{option}: {folder} is not a folder")
        return folders

    def tablebase(self, path: Optional[str], option: str = "--syzygy-path"):
        """The engine Tablebase of `option`'s folders, or None without a value; the folders
        are checked as table_folders does, and folders without any table are refused (a
        table that cannot be read is reported on stderr and left out)."""
        if path is None:
            return None
        from ...engine.tablebase import Tablebase
        tablebase = Tablebase(self.table_folders(path, option))
        for problem in tablebase.problems:
            warn(self.prog, f"tablebase refused: {problem}")
        if not tablebase.tables:
            self.error(f"{option}: no Syzygy tables (.rtbw) in {path}")
        return tablebase

    def add_position(self, help: str, default: Optional[str] = None) -> None:
        """--fen (required unless it has a default) and --chess960: the position that
        position(args) reads."""
        self.add_argument("--fen", required=default is None, default=default, help=help)
        self.add_argument("--chess960", action="store_true",
                          help="read the FEN as Chess960 (Shredder-FEN or X-FEN)")

    def position(self, args):
        """The engine Board of add_position's arguments."""
        return self.board(args.fen, args.chess960)

    def board(self, fen: str, chess960: bool = False):
        """The engine Board of a FEN given on the command line."""
        from ...engine.board import Board
        try:
            return Board(fen, chess960=chess960)
        except ValueError as error:
            self.error(f"bad FEN: {error}")

    def input_file(self, path: str) -> str:
        """A file to read: it must exist and be a regular file (not a folder, a FIFO or a
        device, which would fail late or never end)."""
        try:
            info = os.stat(path)
        except FileNotFoundError:
            self.error(f"no such file: {path}")
        except OSError as error:
            self.error(f"cannot read {path}: {error.strerror}")
        if stat.S_ISDIR(info.st_mode):
            self.error(f"{path} is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            self.error(f"{path} is not a regular file")
        if not os.access(path, os.R_OK):
            self.error(f"cannot read {path}: permission denied")
        return path

    def hash_mb(self, mb: int) -> int:
        """A table size that fits: at most MAX_HASH_MB and half the machine's memory (the
        rule of the UCI option Hash)."""
        from ..host import physical_memory_mb
        from ..options import MAX_HASH_MB
        if not 1 <= mb <= MAX_HASH_MB:
            self.error(f"--hash must be in 1..{MAX_HASH_MB}")
        memory = physical_memory_mb()
        if memory is not None and mb > memory // 2:
            self.error(f"--hash {mb} MB is more than half of this machine's {memory} MB")
        return mb
