"""Perft counts against the reference files, and `scacco perft --divide` against python-chess.

Every count asserted here comes from ../shared/data/perft-*.epd (Stockfish counts) or from
python-chess; none from Scacco itself.  Counts up to CI_MAX_NODES per position run by default;
deeper ones are marked slow (`pytest -m slow`).
"""
import os
import subprocess
import sys

import chess
import pytest

from conftest import REPO_ROOT, is_shredder_castling, read_perft_epd, shared_file
from scacco.engine import Board

CI_MAX_NODES = 2_000_000

CLASSIC = read_perft_epd("perft-classic.epd")
RANDOM = read_perft_epd("perft-random.epd")
ALL_LINES = CLASSIC + RANDOM


def ci_depths(counts):
    return sorted(d for d, n in counts.items() if n <= CI_MAX_NODES)


def slow_depths(counts):
    return sorted(d for d, n in counts.items() if n > CI_MAX_NODES)


@pytest.mark.parametrize("name", ["perft-classic.epd", "perft-random.epd"])
def test_perft_file_present_and_complete(name):
    path = shared_file(name)
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    parsed = read_perft_epd(name)
    assert len(parsed) == len(lines)
    assert all(counts for _, _, counts, _ in parsed), "every EPD line carries perft counts"


def test_random_file_chess960_lines_are_shredder_fen():
    shared_file("perft-random.epd")
    # Chess960 lines with castling rights are recognised by their Shredder-FEN letters; make
    # sure there are such lines and that python-chess reads their castling fields the same way.
    chess960_lines = [fen for _, fen, _, _ in RANDOM if is_shredder_castling(fen)]
    assert chess960_lines
    for fen in chess960_lines:
        reference = chess.Board(fen, chess960=True)
        assert reference.is_valid(), fen
        assert reference.castling_shredder_fen() == fen.split()[2]


@pytest.mark.parametrize("number,fen,counts,label", ALL_LINES, ids=[line[3] for line in ALL_LINES])
def test_perft(number, fen, counts, label):
    board = Board(fen, chess960=is_shredder_castling(fen))
    depths = ci_depths(counts)
    assert depths, f"{label}: no depth within {CI_MAX_NODES} nodes"
    for depth in depths:
        assert board.perft(depth) == counts[depth], f"{label} depth {depth}"
    assert board.fen() == Board(fen, chess960=board.chess960).fen(), "perft left the board changed"


DEEP = [line for line in ALL_LINES if slow_depths(line[2])]


@pytest.mark.slow
@pytest.mark.parametrize("number,fen,counts,label", DEEP, ids=[line[3] for line in DEEP])
def test_perft_deep(number, fen, counts, label):
    board = Board(fen, chess960=is_shredder_castling(fen))
    for depth in slow_depths(counts):
        assert board.perft(depth) == counts[depth], f"{label} depth {depth}"


def test_perft_after_moves_matches_fresh_board():
    # The game history on the stack must not change what perft counts.
    board = Board()
    reference = chess.Board()
    for move in ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"]:
        board.push_uci(move)
        reference.push_uci(move)
    fresh = Board(reference.fen())
    assert board.perft(3) == fresh.perft(3) == python_chess_perft(reference, 3)
    assert board.perft(0) == 1


def test_perft_rejects_negative_depth():
    with pytest.raises(ValueError):
        Board().perft(-1)


# ---------------------------------------------------------------------------------------------
# Divide through the command line, against python-chess.

def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in list(board.legal_moves):
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def python_chess_divide(fen: str, depth: int, chess960: bool):
    board = chess.Board(fen, chess960=chess960)
    out = {}
    for move in list(board.legal_moves):
        text = board.uci(move)
        board.push(move)
        out[text] = python_chess_perft(board, depth - 1)
        board.pop()
    return out


def run_scacco(*args):
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-m", "scacco", *args], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


DIVIDE_CASES = [
    # Kiwipete: castling both ways, en passant, pins.
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, False),
    # Position 4 mirrored: promotions with capture, black to move, castling rights.
    ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 3, False),
    # Position 3: en passant along a rank with the king and a rook on it.
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, False),
    # Chess960 with Shredder-FEN castling (king takes rook in UCI).
    ("qn1brk1r/1p1pp1pp/3n1p2/p1p5/3P4/2P1P1PP/bP3P2/QNNBRKBR w HEhe - 0 6", 3, True),
    # Chess960: king d1 and rook c1 swap places when castling (d1c1).
    ("qnrkbbnr/pp1p4/2p1pppp/8/3NPP2/P7/1PPP2PP/QNRKBB1R w HChc - 0 6", 3, True),
    # Chess960: the king already stands on its target square c1 (c1b1 moves only the rook).
    ("brkqnbrn/p1pp4/1p3ppp/4p3/2P3PP/1Q1P4/PP2PP2/BRK1NBRN w GBgb - 0 6", 3, True),
]


@pytest.mark.parametrize("fen,depth,chess960", DIVIDE_CASES)
def test_divide_command_matches_python_chess(fen, depth, chess960):
    args = ["perft", str(depth), "--fen", fen, "--divide"] + (["--chess960"] if chess960 else [])
    output = run_scacco(*args).splitlines()
    blank = output.index("")
    ours = {}
    for line in output[:blank]:
        move, count = line.split(": ")
        assert move not in ours, f"{move} listed twice"
        ours[move] = int(count)
    reference = python_chess_divide(fen, depth, chess960)
    assert ours == reference
    assert output[blank + 1] == f"Nodes searched: {sum(reference.values())}"
    assert output[blank + 2].startswith("Time (ms): ")
    assert output[blank + 3].startswith("Nodes/second: ")


def test_perft_command_total_matches_reference():
    kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    output = run_scacco("perft", "3", "--fen", kiwipete).splitlines()
    assert output[0] == "Nodes searched: 97862"   # the published Kiwipete count
    assert output[1].startswith("Time (ms): ")


def test_perft_command_rejects_bad_fen():
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    result = subprocess.run([sys.executable, "-m", "scacco", "perft", "2", "--fen", "8/8/8/8 w - - 0 1"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "bad FEN" in result.stderr and "rank" in result.stderr
