"""The engine behind the UCI loop: the searcher, the neural evaluation's networks, the table
size (Hash) and the search threads, with their fallbacks when memory or a file fails.

Everything here runs on the loop's worker thread (uci/jobs.py), except the option hooks,
which the input thread calls and which only queue work: so the searcher and the networks are
never shared between threads, and no file is read on the thread that reads commands.  What
cannot be had (a table size, the threads' histories, a network) is said in an `info string`
and the option keeps or takes back the value in use.
"""
from __future__ import annotations

import os
import sys
import traceback
from typing import Callable, Optional

from .jobs import Job, Output
from .options import DEFERRED, OptionTable
from .protocol import printable

__all__ = ["EngineHost", "physical_memory_mb"]

# EngineHost._active_network before the evaluation is decided (see active_network).
_UNDECIDED = object()

# Search features on trial, each behind a check option (docs/development.md): the Searcher
# attribute each option sets.
SEARCH_SWITCHES = {"SingularExtensions": "singular_extensions",
                   "CorrectionHistory": "correction_history",
                   "NodeTime": "node_time",
                   "NetworkScaling": "network_scaling",
                   "FarContinuation": "far_continuation",
                   "HistoryPruning": "history_pruning",
                   "BestMoveHistory": "best_move_history"}


def physical_memory_mb() -> Optional[int]:
    """Installed memory in MB where the OS says (POSIX), else None."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (ValueError, OSError, AttributeError):
        return None


class EngineHost:
    """The searcher and what it is made of, as the options ask (see the module docstring).

    `submit(job, target)` queues work on the loop's worker; `store(option, value)` records
    an option's value once it has taken effect."""

    def __init__(self, out: Output, options: OptionTable,
                 submit: Callable[[Job, Callable[[], None]], None],
                 store: Callable[[object, object], None]) -> None:
        self.out, self.options, self.submit, self.store = out, options, submit, store
        self._searcher = None             # created and used on the worker thread only
        self._searcher_error: Optional[str] = None
        # (NnueNetwork, name) of EvalFile once loaded, (None, None) before: one value, so
        # that `eval` on the input thread reads the two together.  Written by the worker only.
        self._eval_file = (None, None)
        # The network the searcher is to use (None: classical), decided at the first need
        # (_UNDECIDED until then: Use NNUE is on by default and the file is read only then).
        # Written by the worker only.
        self._active_network = _UNDECIDED
        # The Syzygy tables (engine.tablebase.Tablebase, None without SyzygyPath) and how the
        # search probes them; written by the worker only.
        self._tablebase = None
        self._tb_settings = {"depth": options["SyzygyProbeDepth"], "limit": options["SyzygyProbeLimit"],
                             "rule50": options["Syzygy50MoveRule"]}

    # -- the searcher ----------------------------------------------------------------------

    @property
    def searcher_pending(self) -> bool:
        """Neither made nor failed yet."""
        return self._searcher is None and self._searcher_error is None

    @property
    def current_searcher(self):
        """The searcher if it was made (None otherwise); never makes one."""
        return self._searcher

    def searcher(self):
        """The searcher, created on first use; None (said once) if it cannot be loaded.
        Worker thread only."""
        if self.searcher_pending:
            try:
                from ..engine.search import Searcher
                self._searcher = self._new_searcher(Searcher)
            except Exception as exc:
                self._searcher_error = f"{type(exc).__name__}: {exc}"
                traceback.print_exc(file=sys.stderr)
                self.out.info(f"the search could not be loaded ({self._searcher_error}); "
                              f"playing the first legal move")
        return self._searcher

    def _new_searcher(self, searcher_class):
        """A searcher with the table the Hash option asks for, or, when that much memory
        cannot be had, with the default size (said, and the option set back to it)."""
        mb = self.options["Hash"]
        try:
            # Classical first: a network whose accumulators cannot be had is said by
            # _apply_network, not taken for a Hash failure.
            searcher = searcher_class(hash_mb=mb, network=None)
        except MemoryError:
            option = self.options.find("Hash")
            self.out.info(f"Hash {mb} MB could not be allocated (the table is {option.default} "
                          f"MB)")
            self.options.store(option, option.default)
            searcher = searcher_class(hash_mb=option.default, network=None)
        self._apply_threads(searcher, self.options["Threads"])
        self._apply_network(searcher, self.active_network())
        self._apply_tablebase(searcher)
        for option, attribute in SEARCH_SWITCHES.items():
            setattr(searcher, attribute, self.options[option])
        return searcher

    # -- Syzygy tablebases (SyzygyPath, SyzygyProbeDepth, Syzygy50MoveRule, SyzygyProbeLimit) --

    def set_syzygy_path(self, path: str):
        """Option hook: map and check the tables of the folders in `path` on the worker; an
        info string per refused file, then how many tables were found.  An empty path drops
        the tables."""
        option = self.options.find("SyzygyPath")

        def load() -> None:
            from ..engine.tablebase import Tablebase, split_paths
            tablebase = None
            if split_paths(path):
                try:
                    tablebase = Tablebase(path)
                except (MemoryError, OSError) as error:
                    self.out.info(f"the tablebases could not be loaded ({error}); SyzygyPath "
                                  f"unchanged")
                    return
                for problem in tablebase.problems:
                    self.out.info(f"tablebase refused: {printable(problem, 300)}")
                self.out.info(f"found {tablebase.tables} tablebases")
            self._tablebase = tablebase
            self.store(option, path)
            self._apply_tablebase(self._searcher)
        self.submit(Job("task"), load)
        return DEFERRED

    @property
    def tablebase(self):
        """The tables SyzygyPath loaded (engine.tablebase.Tablebase), or None.  Worker only."""
        return self._tablebase

    def set_syzygy_option(self, name: str, value) -> None:
        """Option hook: how the search probes the tables, applied on the worker."""
        def apply() -> None:
            self._tb_settings[name] = value
            self._apply_tablebase(self._searcher)
        self.submit(Job("task"), apply)

    def _apply_tablebase(self, searcher) -> None:
        if searcher is None:
            return
        settings = self._tb_settings
        searcher.set_tablebase(self._tablebase, probe_depth=settings["depth"],
                               probe_limit=settings["limit"], rule50=settings["rule50"])

    # -- the neural evaluation (EvalFile, Use NNUE) ---------------------------------------

    def active_network(self):
        """The network searches evaluate with, None for the classical evaluation.  With Use
        NNUE on and no EvalFile set yet, the default file is read at the first call (made on
        the worker: when the searcher is made, a bench runs or `eval` needs it); one that
        cannot be used is said once, and Use NNUE is turned off."""
        if self._active_network is _UNDECIDED:
            network = None
            if self.options["Use NNUE"]:
                name = self.options["EvalFile"]
                try:
                    network = self._load_network(name)
                except ValueError as error:
                    self.out.info(f"the network {printable(name, 200)} cannot be used "
                                  f"({error}); evaluating with the classical evaluation")
                    self.options.store(self.options.find("Use NNUE"), False)
            self._active_network = network
        return self._active_network

    def network_ready(self) -> bool:
        """EvalFile's network is in memory and the evaluation decided (what `eval` may read
        on the input thread)."""
        return self._eval_file[0] is not None and self._active_network is not _UNDECIDED

    def _read_network(self, name: str):
        """The network in the file `name` (a bare name not found here is looked up in the
        package).  :raises ValueError: (engine.nnue.NetworkError) when it cannot be used."""
        from ..engine.nnue import NetworkError, read_network, network_search_path
        if not name:
            raise NetworkError("EvalFile is empty: name a network file")
        return read_network(network_search_path(name))

    def _load_network(self, name: str):
        """Read the network of `name` and keep it as EvalFile's (the old one stays when this
        raises ValueError).  Worker thread only."""
        network = self._read_network(name)
        self._eval_file = (network, name)
        return network

    def load_eval_file(self, name: str):
        """Option hook: read the network of EvalFile on the worker; EvalFile takes the new
        name only if the file can be used, else an info string says why and the old network
        stays.  With Use NNUE on, the searcher switches before its next search."""
        option = self.options.find("EvalFile")

        def load() -> None:
            try:
                network = self._load_network(name)
            except ValueError as error:
                self.out.info(f"{error}; EvalFile unchanged")
                return
            self.store(option, name)
            if self.options["Use NNUE"]:
                self._switch_network(network)
        self.submit(Job("network"), load)
        return DEFERRED

    def use_nnue(self, on: bool):
        """Option hook: evaluate with the EvalFile network (read on the worker if it was not
        yet), or classically; when the network cannot be read, an info string says why and
        Use NNUE stays as it was."""
        option = self.options.find("Use NNUE")

        def switch() -> None:
            network = None
            if on:
                network = self._eval_file[0]
                if network is None:
                    try:
                        network = self._load_network(self.options["EvalFile"])
                    except ValueError as error:
                        self.out.info(f"{error}; Use NNUE unchanged")
                        return
            self.store(option, on)
            self._switch_network(network)
        self.submit(Job("network"), switch)
        return DEFERRED

    def _switch_network(self, network) -> None:
        """Worker: search with `network` (None: classical) from the next search on."""
        self._active_network = network
        self._apply_network(self._searcher, network)

    def _apply_network(self, searcher, network) -> None:
        if searcher is None:
            return
        try:
            searcher.set_network(network)
        except MemoryError:
            self.out.info("not enough memory for the network's accumulators; the search "
                          "keeps its evaluation")

    def network_line(self, board) -> None:
        """The `eval` line of EvalFile's network (read first if not in memory: worker only)."""
        from ..engine.evaluation import network_line
        active = self.active_network()
        network, name = self._eval_file
        if network is None:
            name = self.options["EvalFile"]
            try:
                network = self._read_network(name)
            except ValueError as error:
                self.out.line(f" NNUE: no network ({error})")
                return
        self.out.line(network_line(board, network, name, in_use=active is network))

    # -- Threads, Hash, Clear Hash -----------------------------------------------------------

    def set_threads(self, count: int) -> None:
        """Option hook: the number of search threads, applied on the worker before the next
        search."""
        self.submit(Job("task"), lambda: self._set_threads(count))

    def _set_threads(self, count: int) -> None:
        if self._searcher is not None:
            self._apply_threads(self._searcher, count)

    def _apply_threads(self, searcher, count: int) -> None:
        if searcher.threads == count:
            return
        try:
            searcher.set_threads(count)
        except MemoryError:
            current = searcher.threads
            self.out.info(f"Threads {count}: not enough memory for the threads' histories "
                          f"(searching with {current}); Threads unchanged")
            self.options.store(self.options.find("Threads"), current)

    def set_search_switch(self, option: str, on: bool) -> None:
        """Option hook: a search feature on trial (SEARCH_SWITCHES) on or off, from the next
        search on."""
        self.submit(Job("task"), lambda: self._set_search_switch(option, on))

    def _set_search_switch(self, option: str, on: bool) -> None:
        if self._searcher is not None:
            setattr(self._searcher, SEARCH_SWITCHES[option], on)

    def resize_hash(self, mb: int) -> None:
        """Option hook: a new table size (refused when larger than the machine's memory).
        The table is reallocated on the worker, before the next search."""
        memory = physical_memory_mb()
        if memory is not None and mb > memory // 2:
            raise ValueError(f"Hash {mb} MB is more than half of this machine's {memory} MB")
        self.submit(Job("task"), lambda: self._resize_hash(mb))

    def _resize_hash(self, mb: int) -> None:
        if self._searcher is None:
            return                    # the searcher will be created at the size of the option
        current = self._searcher.hash_mb
        if mb == current:
            return
        try:
            self._searcher.resize_hash(mb, background=True)
        except MemoryError:
            self.out.info(f"Hash {mb} MB could not be allocated (the table stays {current} MB); "
                          f"Hash unchanged")
            self.options.store(self.options.find("Hash"), current)

    def clear_hash(self) -> None:
        """Option hook (and ucinewgame): empty the table and the histories, on the worker."""
        def clear():
            searcher = self.searcher()
            if searcher is not None:
                searcher.clear(background=True)
        self.submit(Job("task"), clear)
