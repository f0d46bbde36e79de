"""Whole games through python-chess's UCI client, the way GUIs and match runners drive us.

The clocks are kept here as a GUI keeps them.  The test machine is shared, and when it is
busy a process can wait a second for a core: no engine can help that, so wall time alone
cannot tell an engine that overspends from a machine that starves it.  With `debug on` the
engine reports, for each move, the time from receiving `go` to printing `bestmove` and the
CPU time it used meanwhile.  A move is a loss on time when the engine's own work (its CPU
time) exceeds its clock, or when its answer comes more than SLACK_S past the clock (a
stall that burns no CPU: a lost stop, a bestmove held too long; 0.1 s covers a scheduler
pause of the engine's own process).  The moves that were late
on the wall clock only are printed.  python-chess refuses illegal moves with an exception.
These are tests of behaviour, not of speed.
"""
import re
import time

import chess
import chess.engine
import pytest

from uci_client import ENGINE_COMMAND, ROOT

MAX_PLIES = 120
ANSWERED = re.compile(r"answered (\d+) ms after (?:go|ponderhit) \(cpu (\d+) ms\)")
SLACK_S = 0.1


def open_engine():
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, cwd=ROOT, timeout=30)
    engine.protocol.debug(True)
    return engine


def play_game(board, base_s, inc_s, moves_per_control=None, ponder=False):
    """Play one game between two engine processes; returns (board, losses on time)."""
    engines = [open_engine(), open_engine()]
    clocks = {chess.WHITE: base_s, chess.BLACK: base_s}
    played = {chess.WHITE: 0, chess.BLACK: 0}
    losses, delays = [], []
    try:
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            side = board.turn
            remaining = None
            if moves_per_control:
                remaining = moves_per_control - played[side] % moves_per_control
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=inc_s, black_inc=inc_s, remaining_moves=remaining)
            engine = engines[0 if side == chess.WHITE else 1]
            start = time.monotonic()
            result = engine.play(board, limit, ponder=ponder, info=chess.engine.INFO_ALL)
            wall = time.monotonic() - start
            match = ANSWERED.search(result.info.get("string", ""))
            assert match, "the engine did not report its time in debug mode"
            answered, cpu = int(match.group(1)) / 1000, int(match.group(2)) / 1000
            if cpu > clocks[side] or answered > clocks[side] + SLACK_S:
                losses.append((board.ply(), side, clocks[side], answered, cpu))
            elif wall > clocks[side]:
                delays.append((board.ply(), side, clocks[side], answered, cpu, wall))
            spent = min(wall, max(cpu, clocks[side] - 0.001))
            clocks[side] += inc_s - spent
            played[side] += 1
            if moves_per_control and played[side] % moves_per_control == 0:
                clocks[side] += base_s
            assert result.move in board.legal_moves
            board.push(result.move)
    finally:
        for engine in engines:
            engine.quit()
    if delays:
        print(f"moves late only by the machine's delays (ply, side, clock, answered, cpu, wall): {delays}")
    return board, losses


@pytest.mark.parametrize("base, inc, per_control, ponder", [
    (1.0, 0.01, None, False),          # 1+0.01
    (2.0, 0.02, None, True),           # 2+0.02 with pondering (go ponder, then stop)
    (1.0, 0.0, 10, False),             # 10 moves in 1 s, repeating: movestogo counts down
])
def test_fast_games_without_time_losses(base, inc, per_control, ponder):
    board, losses = play_game(chess.Board(), base, inc, per_control, ponder)
    assert losses == []
    assert board.ply() == MAX_PLIES or board.is_game_over(claim_draw=True)


def test_chess960_game():
    board = chess.Board.from_chess960_pos(359)     # NRBKRQNB: a start with castling tests
    board, losses = play_game(board, 1.0, 0.01)
    assert losses == []
    assert board.chess960


def test_analysis_multipv_and_infinite():
    with open_engine() as engine:
        board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
        infos = engine.analyse(board, chess.engine.Limit(depth=4), multipv=3)
        assert len(infos) == 3
        assert infos[0]["pv"][0] == chess.Move.from_uci("h5f7")
        assert infos[0]["score"].relative == chess.engine.Mate(1)
        assert len({info["pv"][0] for info in infos}) == 3
        with engine.analysis(chess.Board()) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 4:
                    break
        best = analysis.wait()
        assert best.move in chess.Board().legal_moves
