"""The end of input is `quit` after the commands before it: what was asked is answered first
(isready, bench, perft, a search with a limit runs to it), a search that only a stop would end
(infinite, ponder, a go without limits) stops at once with its bestmove, then the engine
exits with status 0.  Scripts and match tools pipe commands this way."""
import signal
import subprocess
import time

import chess
import pytest

from tests.conftest import default_stop_signals, shared_file
from uci_client import ENGINE_COMMAND, HANG_TIMEOUT, ROOT, UciProcess

START = chess.STARTING_FEN
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def piped(text: str, timeout: float = 3 * HANG_TIMEOUT):
    """(output lines, exit status, stderr) of the engine given `text` as its whole input."""
    proc = subprocess.run(ENGINE_COMMAND, cwd=ROOT, input=text.encode(), capture_output=True,
                          timeout=timeout)
    return proc.stdout.decode().splitlines(), proc.returncode, proc.stderr.decode()


def bestmoves(lines):
    return [line.split()[1] for line in lines if line.startswith("bestmove")]


def test_isready_alone_is_answered():
    lines, status, _ = piped("isready\n")
    assert lines == ["readyok"] and status == 0


def test_a_piped_search_is_answered_after_readyok():
    lines, status, _ = piped("uci\nisready\nposition startpos\ngo depth 6\n")
    assert status == 0
    assert "uciok" in lines and "readyok" in lines
    assert any(line.startswith("info depth 6 ") for line in lines), lines[-3:]
    moves = bestmoves(lines)
    assert len(moves) == 1 and chess.Move.from_uci(moves[0]) in chess.Board().legal_moves
    assert lines[-1].startswith("bestmove")


def without_timing(lines):
    """The info lines without nps and time, which differ from run to run."""
    out = []
    for line in lines:
        if line.startswith("info depth"):
            words = line.split()
            for name in ("nps", "time"):
                if name in words:
                    at = words.index(name)
                    del words[at:at + 2]
            out.append(" ".join(words))
    return out


@pytest.mark.parametrize("go", ["go depth 7", "go nodes 20000"])
def test_a_search_with_a_depth_or_node_limit_runs_to_it(go):
    """The same search as with the input still open (one thread: the same lines)."""
    lines, status, _ = piped(f"position startpos\n{go}\n")
    assert status == 0 and len(bestmoves(lines)) == 1
    with UciProcess() as engine:
        engine.send("position startpos")
        open_input = engine.bestmove(go)
    assert without_timing(lines) == without_timing(open_input) and without_timing(lines)
    assert bestmoves(lines) == bestmoves(open_input)
    assert chess.Move.from_uci(bestmoves(lines)[0]) in chess.Board().legal_moves


@pytest.mark.parametrize("go, fen", [
    ("go movetime 300", START),
    ("go wtime 30000 btime 30000 winc 100 binc 100", START),
    ("go btime 30000", AFTER_E4),                 # the clock of the side to move only
])
def test_a_search_with_a_time_limit_runs_to_it(go, fen):
    lines, status, _ = piped(f"position fen {fen}\n{go}\n")
    assert status == 0
    moves = bestmoves(lines)
    assert len(moves) == 1 and chess.Move.from_uci(moves[0]) in chess.Board(fen).legal_moves
    assert not [line for line in lines if "search failed" in line]
    # More than the one quick iteration that a search stopped before it began gives.
    assert any(line.startswith("info depth ") and int(line.split()[2]) > 1 for line in lines)


def test_go_mate_finds_the_mate():
    fen = shared_file("mate1.fen").read_text().split("\n")[0].strip()
    lines, status, _ = piped(f"position fen {fen}\ngo mate 1\n")
    moves = bestmoves(lines)
    assert status == 0 and len(moves) == 1
    board = chess.Board(fen)
    board.push_uci(moves[0])
    assert board.is_checkmate()


@pytest.mark.parametrize("go", ["go infinite", "go ponder wtime 100000 btime 100000", "go",
                                "go searchmoves e2e4 d2d4"])
def test_a_search_only_a_stop_would_end_is_stopped(go):
    lines, status, _ = piped(f"position startpos\n{go}\n")
    moves = bestmoves(lines)
    assert status == 0 and len(moves) == 1
    allowed = ["e2e4", "d2d4"] if "searchmoves" in go else [m.uci() for m in chess.Board().legal_moves]
    assert moves[0] in allowed


def test_pending_perft_and_bench_are_answered():
    # Nodes from the start position: 8,902 at depth 3 (the published perft count).
    lines, status, _ = piped("go perft 3\nbench 2\nisready\n")
    assert status == 0
    assert "Nodes searched: 8902" in lines
    assert any(line.startswith("Nodes/second") for line in lines), lines
    assert "readyok" in lines


def test_after_a_ponderhit_the_clock_search_runs_to_its_limit():
    lines, status, _ = piped("position startpos\ngo ponder wtime 2000 btime 2000\nponderhit\n")
    moves = bestmoves(lines)
    assert status == 0 and len(moves) == 1
    assert chess.Move.from_uci(moves[0]) in chess.Board().legal_moves


def test_quit_still_stops_a_long_search_at_once():
    lines, status, _ = piped("position startpos\ngo depth 100\nquit\n", timeout=HANG_TIMEOUT)
    assert status == 0


@pytest.mark.parametrize("text", ["isready\nquit\n",
                                  "uci\nsetoption name Hash value 32\nisready\nquit\n",
                                  "isready\nisready\nquit\n"])
def test_an_isready_just_before_quit_is_still_answered(text):
    # The first isready queues the searcher's loading; quit drops queued work, not answers.
    lines, status, _ = piped(text)
    assert status == 0
    assert lines.count("readyok") == text.count("isready")


def test_an_isready_after_a_stop_is_answered_after_the_bestmove():
    lines, status, _ = piped("position startpos\ngo infinite\nstop\nisready\nquit\n")
    assert status == 0
    assert len(bestmoves(lines)) == 1 and lines.count("readyok") == 1
    assert lines.index("readyok") > next(i for i, line in enumerate(lines)
                                         if line.startswith("bestmove"))


def engine_with_a_long_search():
    """An engine that was given `go depth 100` and then the end of its input, once it has
    begun to answer."""
    proc = subprocess.Popen(ENGINE_COMMAND, cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=default_stop_signals)
    proc.stdin.write(b"position startpos\ngo depth 100\n")
    proc.stdin.close()
    assert proc.stdout.readline().startswith(b"info depth 1 ")
    return proc


def test_a_draining_engine_leaves_when_its_output_is_gone():
    proc = engine_with_a_long_search()
    proc.stdout.close()              # the GUI went away: nobody reads the answer
    try:
        assert proc.wait(3 * HANG_TIMEOUT) == 0
    finally:
        proc.kill()
        proc.stderr.close()


def test_a_draining_engine_leaves_on_an_interrupt():
    proc = engine_with_a_long_search()
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    try:
        status = proc.wait(3 * HANG_TIMEOUT)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert status == 0 and b"Traceback" not in err, err.decode()[-2000:]
    assert len([line for line in out.splitlines() if line.startswith(b"bestmove")]) == 1
