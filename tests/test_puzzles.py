"""Mate puzzles: `scacco solve` and engine.puzzles against an exhaustive python-chess search."""
import subprocess
import sys

import chess
import pytest

from scacco.engine import Board
from scacco.engine.puzzles import mate_line, mating_moves, shortest_mate
from scacco.ext._core import MateSearch
from tests.conftest import REPO_ROOT, shared_file
from tests.oracles import forces_mate


def reference_solutions(fen: str, n: int) -> set:
    """Every first move that forces mate within n moves, by exhaustive python-chess search."""
    board = chess.Board(fen)
    return {move.uci() for move in list(board.legal_moves) if forces_mate(board, move, n)}


# Positions with several solutions (found by a seeded random search over sparse positions;
# the expected sets are computed in the test by the exhaustive python-chess search).
SEVERAL_SOLUTIONS = [
    ("8/8/1R6/3K4/8/4k3/5R2/8 w - - 0 1", 2),
    ("8/8/8/7R/4R3/k7/8/3K4 w - - 0 1", 2),
    ("8/6R1/K7/8/8/7k/3R4/8 w - - 0 1", 2),
    ("8/8/8/8/K4R2/8/5R2/k7 w - - 0 1", 2),
    ("1K1k4/8/2R4R/8/8/8/8/8 w - - 0 1", 2),
    ("8/3R4/8/8/k7/8/1K3R2/8 w - - 0 1", 2),
    ("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", 1),
    ("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", 2),
]


@pytest.mark.parametrize("fen,n", SEVERAL_SOLUTIONS)
def test_every_solution_is_found(fen, n):
    expected = reference_solutions(fen, n)
    assert len(expected) >= 2
    assert {move for move, _ in mating_moves(Board(fen), n)} == expected


def test_mate_in_one_file_matches_python_chess():
    for line in shared_file("mate1.fen").read_text().splitlines():
        if not line.strip():
            continue
        board = chess.Board(line)
        expected = set()
        for move in list(board.legal_moves):
            board.push(move)
            if board.is_checkmate():
                expected.add(move.uci())
            board.pop()
        assert expected, line
        assert {move for move, _ in mating_moves(Board(line), 1)} == expected


def test_mate_in_two_sample_matches_python_chess():
    lines = [l for l in shared_file("mate2.fen").read_text().splitlines() if l.strip()]
    for line in lines[::40]:
        assert {move for move, _ in mating_moves(Board(line), 2)} == reference_solutions(line, 2), line


@pytest.mark.parametrize("name,n", [("mate1.fen", 1), ("mate2.fen", 2), ("mate3.fen", 3), ("mate4.fen", 4)])
def test_every_file_position_has_its_mate(name, n):
    # Each solution's main line, replayed with python-chess, ends in checkmate within n moves.
    solver = MateSearch()
    for line in shared_file(name).read_text().splitlines():
        if not line.strip():
            continue
        board = Board(line)
        found = shortest_mate(board, n, solver)
        assert found is not None, line
        move, k = found
        assert 1 <= k <= n
        ref = chess.Board(line)
        codes = mate_line(board, move, k, solver)
        walker = board.copy()
        for code in codes:
            ref.push_uci(walker.move_uci(code))
            walker.push_code(code)
        assert ref.is_checkmate(), (line, [m.uci() for m in ref.move_stack])
        assert len(codes) == 2 * k - 1


def test_shortest_mate_is_reported_within_the_bound():
    # Moves that mate sooner count under "at most N", with their own distance.
    fen = "6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1"
    solutions = dict(mating_moves(Board(fen), 2))
    assert solutions["d1d8"] == 1 and solutions["a1a8"] == 1
    assert reference_solutions(fen, 1) == {m for m, k in solutions.items() if k == 1}


def test_no_mate_means_no_moves():
    assert mating_moves(Board(), 2) == []
    assert shortest_mate(Board(), 2) is None


def run_solve(*args):
    return subprocess.run([sys.executable, "-m", "scacco", "solve", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)


def test_solve_command_prints_exactly_the_solutions():
    fen, n = SEVERAL_SOLUTIONS[0]
    done = run_solve("--fen", fen, "--mate", str(n))
    assert done.returncode == 0
    printed = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert set(printed) == reference_solutions(fen, n) and len(printed) == len(set(printed))
    board = chess.Board(fen)
    for move in printed:
        assert chess.Move.from_uci(move) in board.legal_moves


@pytest.mark.parametrize("args,message", [
    (["--fen", "not a fen", "--mate", "2"], "bad FEN"),
    (["--fen", chess.STARTING_FEN, "--mate", "0"], "at least 1"),
    (["--fen", chess.STARTING_FEN, "--mate", "-3"], "at least 1"),
    (["--fen", chess.STARTING_FEN, "--mate", "two"], "invalid int"),
])
def test_solve_command_rejects_bad_input(args, message):
    done = run_solve(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""
