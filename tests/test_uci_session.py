"""The UCI session in-process, with stand-in searchers that misbehave on purpose: a search
that raises, answers an illegal move, or is slow to start while a stop arrives.  The loop
must still print exactly one legal bestmove."""
import os
import threading
import time
from dataclasses import dataclass, field
from typing import List, Optional

import chess
import pytest

from scacco.uci.loop import Output, Session


class Lines:
    """A binary stream that collects the lines written to it and lets a test wait for one."""

    def __init__(self) -> None:
        self.lines: List[str] = []
        self._changed = threading.Condition()

    def write(self, data: bytes) -> None:
        with self._changed:
            self.lines.extend(data.decode().splitlines())
            self._changed.notify_all()

    def flush(self) -> None:
        pass

    def wait_for(self, prefix: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    if line.startswith(prefix):
                        return line
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no {prefix!r} in {self.lines}"
                self._changed.wait(remaining)


@dataclass
class Result:
    best_move: Optional[str]
    ponder_move: Optional[str] = None
    score_cp: Optional[int] = 0
    score_mate: Optional[int] = None
    pv: List[str] = field(default_factory=list)
    depth: int = 1
    nodes: int = 1


@dataclass
class Info:
    depth: int
    seldepth: int = 1
    multipv: int = 1
    score_cp: Optional[int] = 0
    score_mate: Optional[int] = None
    bound: Optional[str] = None
    nodes: int = 1
    nps: int = 1
    time_ms: int = 0
    hashfull: int = 0
    pv: List[str] = field(default_factory=list)
    wdl: Optional[tuple] = None


class SlowStartSearcher:
    """Takes a while to begin searching (so a stop can arrive before, during or after its
    start) and iterates until its stop token says so, reporting each iteration, like an
    infinite search.  It knows nothing of the loop: only the token it is given."""

    def __init__(self, answer="e2e4", ponder=None, fail=False):
        self.answer, self.ponder, self.fail = answer, ponder, fail
        self.entered = threading.Event()

    def search(self, board, on_info=None, on_currmove=None, stop=None, **limits):
        self.entered.set()
        time.sleep(0.02)
        if self.fail:
            raise RuntimeError("the core fell over")
        depth = 0
        while not stop.stopped and (limits.get("infinite") or depth < (limits.get("depth") or 3)):
            depth += 1
            time.sleep(0.01)
            on_info(Info(depth=depth, pv=[self.answer]))
        return Result(self.answer, self.ponder)

    def clear(self, background=False):
        pass

    def wait_for_table(self):
        pass

    hash_mb = 16
    table_in_memory = True
    network = None          # scores on the classical evaluation's scale


def make_session(searcher):
    stream = Lines()
    session = Session(Output(stream))
    session.host._searcher = searcher
    return session, stream


def test_a_stop_is_never_lost_whenever_it_arrives():
    searcher = SlowStartSearcher()
    session, stream = make_session(searcher)
    session.handle("position startpos")
    for round_number in range(30):
        stream.lines.clear()
        searcher.entered.clear()
        session.handle("go infinite")
        if round_number % 3 == 1:
            searcher.entered.wait()     # inside search(), before it looks at its token
        elif round_number % 3 == 2:
            time.sleep(0.05)            # while it iterates
        session.handle("stop")
        assert stream.wait_for("bestmove") == "bestmove e2e4"
        assert session.wait_idle(10)
        assert [line for line in stream.lines if line.startswith("bestmove")] == ["bestmove e2e4"]


def test_a_failing_search_still_answers_with_a_legal_move():
    session, stream = make_session(SlowStartSearcher(fail=True))
    session.handle("position startpos moves e2e4")
    session.handle("go depth 5")
    best = stream.wait_for("bestmove").split()[1]
    assert chess.Move.from_uci(best) in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    assert any("search failed: RuntimeError" in line for line in stream.lines)


@pytest.mark.parametrize("answer, ponder, expected", [
    ("e2e5", None, "bestmove "),                 # illegal: replaced by a legal root move
    ("e2e4", "e2e4", "bestmove e2e4"),            # illegal ponder move: dropped
    ("e2e4", "e7e5", "bestmove e2e4 ponder e7e5"),
])
def test_answers_are_checked(answer, ponder, expected):
    session, stream = make_session(SlowStartSearcher(answer=answer, ponder=ponder))
    session.handle("position startpos")
    session.handle("go depth 2 searchmoves g1f3 e2e4")
    line = stream.wait_for("bestmove")
    assert line.startswith(expected)
    if answer == "e2e5":
        assert line in ("bestmove g1f3", "bestmove e2e4")
    if ponder == "e2e4":
        assert line == "bestmove e2e4"


def test_bound_lines_wait_for_the_quiet_start():
    class Bounded(SlowStartSearcher):
        def search(self, board, on_info=None, on_currmove=None, **limits):
            on_info(Info(depth=1, bound="lowerbound", pv=["e2e4"]))
            on_currmove(1, "e2e4", 1)
            on_info(Info(depth=1, pv=["e2e4"]))
            return Result("e2e4")

    session, stream = make_session(Bounded())
    session.handle("position startpos")
    session.handle("go depth 1")
    stream.wait_for("bestmove")
    assert [line for line in stream.lines if line.startswith("info")] == [
        "info depth 1 seldepth 1 multipv 1 score cp 0 nodes 1 nps 1 hashfull 0 time 0 pv e2e4"]


@pytest.mark.parametrize("show", [False, True])
def test_score_cp_is_reported_as_the_search_gives_it_and_wdl_only_with_uci_show_wdl(show):
    """The searcher's normalised centipawns go out as they are; `wdl W D L` follows the score
    when UCI_ShowWDL is on."""
    class Scored(SlowStartSearcher):
        def search(self, board, on_info=None, on_currmove=None, **limits):
            on_info(Info(depth=1, score_cp=250, pv=["e2e4"], wdl=(620, 370, 10)))
            on_info(Info(depth=2, score_cp=-7, pv=["e2e4"], wdl=(40, 910, 50)))
            on_info(Info(depth=3, score_cp=None, score_mate=-3, pv=["e2e4"], wdl=(0, 0, 1000)))
            return Result("e2e4")

    session, stream = make_session(Scored())
    session.handle(f"setoption name UCI_ShowWDL value {str(show).lower()}")
    session.handle("position startpos")
    session.handle("go depth 3")
    stream.wait_for("bestmove")
    scores = [line.split(" score ")[1].split(" nodes")[0] for line in stream.lines if " score " in line]
    if show:
        assert scores == ["cp 250 wdl 620 370 10", "cp -7 wdl 40 910 50", "mate -3 wdl 0 0 1000"]
    else:
        assert scores == ["cp 250", "cp -7", "mate -3"]


def test_an_unusable_default_network_is_said_once_and_the_search_goes_on(tmp_path, monkeypatch):
    """With the default EvalFile unreadable, the first command that queues work says why and
    the searches evaluate classically (Use NNUE turned off); it is said only once."""
    from scacco.engine import nnue
    broken = tmp_path / nnue.DEFAULT_NETWORK
    broken.write_bytes(b"SCACCONN")
    monkeypatch.setattr(nnue, "network_search_path", lambda name: broken)
    stream = Lines()
    session = Session(Output(stream))
    for line in ("position startpos", "go depth 3", "go depth 3"):
        session.handle(line)
        assert session.wait_idle(60)
    said = [line for line in stream.lines if "cannot be used" in line]
    assert len(said) == 1 and "too short" in said[0] and "classical" in said[0], stream.lines
    assert session.options["Use NNUE"] is False and session.host.active_network() is None
    moves = [line.split()[1] for line in stream.lines if line.startswith("bestmove")]
    assert len(moves) == 2 and all(chess.Move.from_uci(m) in chess.Board().legal_moves for m in moves)


class BlockingRead:
    """Stands in for engine.nnue.read_network: each read waits until released (a disk that
    hangs), then gives the packaged network."""

    def __init__(self):
        from scacco.engine import nnue
        self.network = nnue.read_network(nnue.default_network_path())
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, path):
        self.entered.set()
        assert self.release.wait(60)
        return self.network


class NetworkSearcher(SlowStartSearcher):
    """A stand-in searcher that takes the network it is given."""

    def set_network(self, network):
        self.network = network


def handled_within(session, line, timeout=10.0) -> bool:
    """Does session.handle(line) return within the timeout (on a thread, which may hang)?"""
    thread = threading.Thread(target=session.handle, args=(line,), daemon=True)
    thread.start()
    thread.join(timeout)
    return not thread.is_alive()


@pytest.mark.parametrize("command", ["setoption name EvalFile value slow.nnue",
                                     "setoption name Use NNUE value true"])
def test_a_network_file_is_read_off_the_input_thread(monkeypatch, command):
    """A read that hangs keeps neither setoption nor isready waiting; the option takes its
    value once the read is done."""
    from scacco.engine import nnue
    read = BlockingRead()
    monkeypatch.setattr(nnue, "read_network", read)
    session, stream = make_session(NetworkSearcher())
    try:
        if command.endswith("Use NNUE value true"):
            assert handled_within(session, "setoption name Use NNUE value false")
            assert session.wait_idle(10) and session.options["Use NNUE"] is False
        assert handled_within(session, command)
        assert read.entered.wait(10)
        assert handled_within(session, "isready")
        assert stream.wait_for("readyok", timeout=30)
        assert session.options["EvalFile"] == nnue.DEFAULT_NETWORK      # not yet read
        assert session.options["Use NNUE"] is (not command.endswith("true"))
    finally:
        read.release.set()
    assert session.wait_idle(30)
    if "EvalFile" in command:
        assert session.options["EvalFile"] == "slow.nnue"
    assert session.options["Use NNUE"] is True
    assert session.host.active_network() is read.network and session.host._searcher.network is read.network
    assert not [line for line in stream.lines if "internal error" in line]


def test_quit_leaves_while_a_network_file_read_hangs(monkeypatch):
    from scacco.engine import nnue
    read = BlockingRead()
    monkeypatch.setattr(nnue, "read_network", read)
    session, stream = make_session(NetworkSearcher())
    try:
        assert handled_within(session, "setoption name EvalFile value slow.nnue")
        assert read.entered.wait(10)
        assert handled_within(session, "quit")
        done = threading.Event()
        threading.Thread(target=lambda: (session.shutdown(), done.set()), daemon=True).start()
        assert done.wait(30)         # the grace period, then run() leaves without the worker
    finally:
        read.release.set()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX's")
def test_a_refused_network_file_is_said_before_readyok_and_changes_nothing(tmp_path):
    from scacco.engine import nnue
    stream = Lines()
    session = Session(Output(stream))
    good = nnue.default_network_path()
    session.handle(f"setoption name EvalFile value {good}")
    assert session.wait_idle(30)
    network = session.host.active_network()
    assert network is not None and session.options["EvalFile"] == str(good)
    fifo = tmp_path / "pipe.nnue"
    os.mkfifo(fifo)
    for bad, reason in ((tmp_path / "missing.nnue", "cannot read"), (fifo, "FIFO"),
                        (tmp_path, "directory")):
        stream.lines.clear()
        session.handle(f"setoption name EvalFile value {bad}")
        session.handle("isready")
        stream.wait_for("readyok", timeout=30)
        said = [line for line in stream.lines if line.startswith("info string")]
        assert stream.lines[-1] == "readyok" and len(said) == 1, stream.lines
        assert reason in said[0] and said[0].endswith("; EvalFile unchanged"), said
        assert session.wait_idle(30)
        assert session.options["EvalFile"] == str(good) and session.host.active_network() is network
