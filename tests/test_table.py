"""The transposition table's memory: resizes in place at once, clears in the background that
the next search waits for, the warm-up, and sizes that cannot be allocated.

Every check is on behaviour (sizes, node counts equal to a fresh table's, legal answers, the
engine's own messages); the times involved are measured by bench/movetime_accuracy.py, and
the bounds here only catch hangs.
"""
import os
import sys
import time

import chess
import pytest

from scacco.engine.board import Board
from scacco.engine.search import Searcher
from scacco.uci.host import physical_memory_mb as _physical_memory_mb
from uci_client import UciProcess, infos

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
HANG_S = 60


def wait_in_memory(searcher: Searcher, timeout: float = HANG_S) -> None:
    """Wait for the warm-up (the bound only catches a hang)."""
    deadline = time.monotonic() + timeout
    while not searcher.table_in_memory:
        assert time.monotonic() < deadline, "the table's warm-up did not finish"
        time.sleep(0.01)


def fresh_nodes(mb: int, fen: str, depth: int) -> int:
    return Searcher(mb).search(Board(fen), depth=depth).nodes


@pytest.mark.single_thread
def test_resize_is_in_place_at_once_and_the_old_table_is_given_back():
    searcher = Searcher(16)
    searcher.search(Board(KIWIPETE), depth=6)
    searcher.resize_hash(64, background=True)
    assert searcher.hash_mb == 64
    assert searcher.hashfull() == 0                       # the new table is empty
    searcher.clear()                                      # (a resize keeps the histories)
    result = searcher.search(Board(KIWIPETE), depth=7)
    assert result.nodes == fresh_nodes(64, KIWIPETE, 7)   # and behaves as a fresh 64 MB one
    searcher.wait_for_release()


@pytest.mark.single_thread
def test_a_background_clear_is_done_before_the_next_search():
    fresh = fresh_nodes(16, KIWIPETE, 8)
    searcher = Searcher(16)
    searcher.search(Board(KIWIPETE), depth=8)
    assert searcher.search(Board(KIWIPETE), depth=8).nodes < fresh    # the table helps...
    searcher.clear(background=True)
    assert searcher.search(Board(KIWIPETE), depth=8).nodes == fresh   # ...until it is cleared


@pytest.mark.single_thread
def test_clearing_a_table_in_memory_zeroes_what_the_search_wrote():
    # 256 MB: several granules' worth for each of two clearing threads.
    searcher = Searcher(256)
    wait_in_memory(searcher)
    fresh = fresh_nodes(256, KIWIPETE, 9)
    core = searcher._core
    assert core.clear_table(2) == 0                       # never searched: nothing to do
    searcher.search(Board(KIWIPETE), depth=9)
    threads = core.clear_table(2)
    assert 1 <= threads <= 2                              # zeroed in place, not replaced
    assert searcher.table_in_memory
    assert core.clear_table(2) == 0                       # empty now
    assert searcher.hashfull() == 0
    core.clear_histories()
    assert searcher.search(Board(KIWIPETE), depth=9).nodes == fresh


@pytest.mark.single_thread
def test_a_clear_right_after_a_resize_still_forgets_everything():
    # The warm-up of the new table may still be running: then fresh memory replaces it.
    # Either way nothing of the searches before the clear may survive it.
    fresh = fresh_nodes(256, KIWIPETE, 8)
    searcher = Searcher(16)
    searcher.resize_hash(256, background=True)
    searcher.search(Board(KIWIPETE), depth=8)
    searcher.clear(background=True)
    assert searcher.search(Board(KIWIPETE), depth=8).nodes == fresh
    searcher.wait_for_release()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_a_size_that_cannot_be_allocated_keeps_the_old_table():
    import resource
    searcher = Searcher(16)
    searcher.search(Board(KIWIPETE), depth=6)
    used = searcher.hashfull()
    assert used > 0
    with open(f"/proc/{os.getpid()}/status") as status:
        size_kb = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    # Room for 256 MB more address space: 4096 MB cannot be had.
    resource.setrlimit(resource.RLIMIT_AS, (size_kb * 1024 + (256 << 20), hard))
    try:
        with pytest.raises(MemoryError):
            searcher.resize_hash(4096)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert searcher.hash_mb == 16
    assert searcher.hashfull() == used                    # the old entries are still there
    result = searcher.search(Board(KIWIPETE), depth=7)
    assert chess.Move.from_uci(result.best_move) in chess.Board(KIWIPETE).legal_moves


def debug_hash_mb(lines):
    """The table size the engine reports in the debug line of a go."""
    for line in infos(lines):
        if line.startswith("info string go:") and " hash " in line:
            return int(line.split(" hash ")[1].split()[0])
    raise AssertionError(f"no table size in {infos(lines)}")


def test_uci_hash_then_isready_and_go_use_the_new_table():
    with UciProcess() as engine:
        engine.ask("uci", "uciok")
        engine.sync()
        engine.send("debug on")
        engine.send("setoption name Hash value 512")
        assert not any("unchanged" in line for line in engine.sync())   # readyok came
        engine.send("position startpos")
        lines = engine.bestmove("go depth 8")
        assert debug_hash_mb(lines) == 512
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
        engine.send("ucinewgame")
        engine.send("setoption name Hash value 32")
        engine.sync()
        lines = engine.bestmove("go depth 4")
        assert debug_hash_mb(lines) == 32


def limit_address_space():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))


def _skip_unless_4096_mb_is_accepted():
    """The loop refuses a Hash above half the machine's memory: these tests need 8 GB."""
    memory = _physical_memory_mb()
    if memory is None or memory < 2 * 4096:
        pytest.skip("the loop refuses 4096 MB on a machine with less than 8 GB")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_uci_hash_too_large_before_the_first_search_falls_back_to_the_default():
    # Set before the searcher exists: the engine must still search, with the default table.
    _skip_unless_4096_mb_is_accepted()
    with UciProcess(preexec_fn=limit_address_space) as engine:       # 3 GB of address space
        engine.ask("uci", "uciok")
        engine.send("setoption name Hash value 4096")
        lines = engine.sync()               # the searcher is loaded on the worker meanwhile
        engine.send("debug on")
        engine.send(f"position fen {KIWIPETE}")
        lines += engine.bestmove("go depth 6")
        assert "info string Hash 4096 MB could not be allocated (the table is 16 MB)" in lines
        assert debug_hash_mb(lines) == 16
        assert not [line for line in lines if "could not be loaded" in line]
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board(KIWIPETE).legal_moves


def test_uci_hash_that_cannot_be_allocated_is_reported_and_the_old_table_stays():
    _skip_unless_4096_mb_is_accepted()
    with UciProcess(preexec_fn=limit_address_space) as engine:       # 3 GB of address space
        engine.ask("uci", "uciok")
        engine.send("setoption name Hash value 64")
        assert engine.sync() == []
        engine.send("setoption name Hash value 4096")
        lines = engine.sync()
        assert lines == ["info string Hash 4096 MB could not be allocated (the table stays "
                         "64 MB); Hash unchanged"]
        engine.send("debug on")
        engine.send(f"position fen {KIWIPETE}")
        lines = engine.bestmove("go depth 6")
        assert debug_hash_mb(lines) == 64
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board(KIWIPETE).legal_moves
