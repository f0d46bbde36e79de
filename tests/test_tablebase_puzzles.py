"""The puzzle judge with Syzygy tablebases, python-chess's `chess.syzygy` as the oracle.

In KQvKR, KRPvKR and KPvK positions (and a drawn KRvKR one) every legal move must be judged
right exactly when the oracle says it keeps the best result under the fifty-move rule, with no
search; a wrong move must name a move the oracle says keeps that result; the replies off the
solution must be the oracle's best defence; and without tables, or in a position the tables do
not hold, the judge must answer as before.
"""
import chess
import pytest

from scacco.engine.trainer.puzzles import Puzzle
from tests.syzygy_oracle import (move_result, mover_result, oracle_tables,  # noqa: F401
                                 our_tablebase, syzygy_dir)

# (FEN, the oracle's result for the side to move: 1 win, 0 draw); a halfmove clock near the
# fifty-move limit turns some slower wins into draws.
POSITIONS = [
    ("8/8/8/4k3/8/8/3QK3/7r w - - 0 1", 1),          # KQvKR
    ("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1", 1),        # KRPvKR (Lucena-like)
    ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", 1),           # KPvK
    ("4k3/8/8/4K3/4P3/8/8/8 b - - 0 1", 0),           # KPvK, only Ke7 holds the draw
    ("7r/8/8/3k4/8/8/R7/3K4 b - - 0 1", 0),           # KRvKR, a draw some moves lose
    ("8/8/8/4k3/8/8/3QK3/7r w - - 80 1", None),       # KQvKR with the clock running out
]


@pytest.mark.parametrize("fen,expected", POSITIONS)
def test_every_move_is_right_exactly_when_it_keeps_the_oracles_result(fen, expected, oracle,
                                                                      tablebase):
    board = chess.Board(fen)
    results = {m.uci(): move_result(oracle, board, m) for m in board.legal_moves}
    best = max(results.values())
    if expected is not None:
        assert best == expected
    assert len(set(results.values())) > 1, "the position must have right and wrong moves"
    puzzle = Puzzle(fen, goal="win material", length=3, tablebase=tablebase)
    for move, result in results.items():
        verdict = puzzle.judge(move)
        assert verdict.right == (result == best), (fen, move, result, verdict)
        if verdict.right:
            assert verdict.keeping_move is None
            if verdict.reply is not None:
                # the reply is the oracle's best defence: it keeps the defender's best result
                after = board.copy()
                after.push_uci(move)
                reply = chess.Move.from_uci(verdict.reply)
                assert move_result(oracle, after, reply) == max(
                    move_result(oracle, after, m) for m in after.legal_moves)
        else:
            assert verdict.keeping_move is not None and verdict.keeping_san in verdict.reason
            assert results[verdict.keeping_move] == best
            assert verdict.reply is None and not verdict.solved
    assert puzzle._searcher is None, "the tables decide: no search"


def test_a_slower_win_counts_and_a_thrown_win_names_the_move_that_kept_it(oracle, tablebase):
    # KQvKR in the lichess format: Black's rook check, then White wins
    fen = "8/8/8/4k3/8/8/4K3/3Q3r b - - 0 1"
    board = chess.Board(fen)
    board.push_uci("h1h2")
    wins = [m for m in board.legal_moves if move_result(oracle, board, m) == 1]
    throws = [m for m in board.legal_moves if move_result(oracle, board, m) < 1]
    assert wins and throws
    dtz = {m: -oracle.probe_dtz(_after(board, m)) for m in wins
           if not _after(board, m).is_checkmate() and _after(board, m).halfmove_clock}
    fastest, slowest = min(dtz, key=dtz.get), max(dtz, key=dtz.get)
    assert dtz[slowest] > dtz[fastest]
    puzzle = Puzzle(fen, ["h1h2", fastest.uci()], tablebase=tablebase)
    thrown = puzzle.try_move(throws[0].uci())
    assert not thrown.right and puzzle.board.fen() == board.fen()
    assert move_result(oracle, board, chess.Move.from_uci(thrown.keeping_move)) == 1
    slow = puzzle.try_move(slowest.uci())
    assert slow.right and not slow.followed_solution and "still wins" in slow.reason


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    after = board.copy()
    after.push(move)
    return after


def test_without_tables_or_outside_them_the_judge_is_unchanged(tablebase):
    # a mate puzzle outside the tables (too many pieces) and a KRRvK mate in 2 judged without
    # tables: the same verdicts as the judge without a Tablebase
    cases = [("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", "mate in 2", tablebase),
             ("1K1k4/8/2R4R/8/8/8/8/8 w - - 0 1", "mate in 2", None)]
    for fen, goal, tables in cases:
        plain = Puzzle(fen, goal=goal)
        judged = Puzzle(fen, goal=goal, tablebase=tables)
        for move in plain.board.legal_moves():
            assert judged.judge(move) == plain.judge(move), (fen, move)


# --- the finder and `scacco puzzles --syzygy-path` -------------------------------------------

# KRvKR, a draw until Black's 1...Rf8?? hangs the rook: only 2.Rxf8 keeps the win (the oracle
# says so in the test).
HUNG_ROOK = """[Event "test"]
[Site "https://example.org/game/7"]
[SetUp "1"]
[FEN "3r4/8/5R2/K7/8/8/8/3k4 b - - 0 1"]
[Result "*"]

1... Rf8 2. Rxf8 Kd2 *
"""


def keeping_moves(oracle, board: chess.Board):
    results = {m: move_result(oracle, board, m) for m in board.legal_moves}
    best = max(results.values())
    return best, [m.uci() for m, value in results.items() if value == best]


def test_finder_with_tables_keeps_only_unique_winning_moves(oracle, tablebase):
    import io
    from scacco.engine.pgn import read_game
    from scacco.engine.trainer.puzzle_finder import FinderBudget, find_puzzles, verify_material
    budget = FinderBudget(scan_nodes=2000, pair_nodes=10_000, mate_nodes=200_000)
    found = find_puzzles(read_game(io.StringIO(HUNG_ROOK)), budget, tablebase=tablebase)
    assert [p.moves[:2] for p in found] == [["d8f8", "f6f8"]]
    puzzle = found[0]
    board = chess.Board(puzzle.fen)
    board.push_uci(puzzle.moves[0])
    assert mover_result(oracle, board) == 1
    for index, move in enumerate(puzzle.moves[1:]):
        if index % 2 == 0:                    # the winner's move: the only one that wins
            assert keeping_moves(oracle, board) == (1, [move])
        board.push_uci(move)
    assert verify_material(puzzle.fen, puzzle.moves, budget, tablebase=tablebase)
    assert not verify_material(puzzle.fen, ["d8f8", "a5b5"], budget, tablebase=tablebase)
    # the judge with the same tables accepts exactly the solution's first move
    judge = Puzzle(puzzle.fen, puzzle.moves, tablebase=tablebase)
    assert [m for m in judge.board.legal_moves() if judge.judge(m).right] == ["f6f8"]


def test_puzzles_command_takes_syzygy_path(tmp_path):
    import csv
    import subprocess
    import sys
    from tests.conftest import REPO_ROOT
    pgn = tmp_path / "games.pgn"
    pgn.write_text(HUNG_ROOK)
    out = tmp_path / "puzzles.csv"

    def scacco(*args):
        return subprocess.run([sys.executable, "-m", "scacco", "puzzles", str(pgn), "--out",
                               str(out), "--jobs", "1", "--nodes", "2000", *args], cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=300)
    done = scacco("--syzygy-path", str(syzygy_dir()))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(out, newline="")))
    assert [row["Moves"].split()[:2] for row in rows] == [["d8f8", "f6f8"]]
    refused = scacco("--syzygy-path", str(tmp_path / "nowhere"))
    assert refused.returncode == 2 and "no such folder" in refused.stderr
