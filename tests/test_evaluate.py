"""Static evaluation: colour symmetry, draws, incremental sums, and chess-knowledge sanity.

python-chess builds the colour-flipped positions (Board.mirror) and plays the random games.
"""
import random
from fractions import Fraction

import chess
import pytest

from scacco.ext._core import CoreBoard, _taper, evaluate_board, evaluation_terms

from tests.conftest import shared_file


def core_board(board: chess.Board) -> CoreBoard:
    core = CoreBoard()
    chess960 = board.chess960
    core.set_fen(board.shredder_fen() if chess960 else board.fen(), chess960)
    return core


def evaluate_fen(fen: str) -> int:
    core = CoreBoard()
    core.set_fen(fen)
    return evaluate_board(core)


def assert_symmetric(board: chess.Board):
    mirrored = board.mirror()
    a = evaluate_board(core_board(board))
    b = evaluate_board(core_board(mirrored))
    assert a == b, f"{board.fen()} -> {a}, mirror {mirrored.fen()} -> {b}"


def random_positions(n_games=60, seed=2024):
    rng = random.Random(seed)
    for _ in range(n_games):
        board = chess.Board()
        for _ in range(rng.randrange(20, 160)):
            moves = list(board.legal_moves)
            if not moves:
                break
            # Prefer captures now and then so that material gets unbalanced.
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.3 else moves))
            yield board.copy(stack=False)


def epd_boards(name):
    for line in shared_file(name).read_text().splitlines():
        if not line.strip():
            continue
        fen = line.split(";")[0].strip()
        castling = fen.split()[2]
        chess960 = castling != "-" and any(c not in "KQkq" for c in castling)
        yield chess.Board(fen, chess960=chess960)


def test_symmetry_random_games():
    count = 0
    for board in random_positions():
        assert_symmetric(board)
        count += 1
    assert count > 1000


@pytest.mark.parametrize("name", ["perft-classic.epd", "perft-random.epd"])
def test_symmetry_perft_positions(name):
    for board in epd_boards(name):
        assert_symmetric(board)
        # And one ply deeper, for positions with the other side to move.
        for move in list(board.legal_moves)[:5]:
            board.push(move)
            assert_symmetric(board)
            board.pop()


def test_incremental_matches_fresh_setup():
    # Scores reached by make/unmake equal those of the same position set up from its FEN.
    rng = random.Random(7)
    for _ in range(20):
        board = chess.Board()
        core = CoreBoard()
        core.set_fen(board.fen())
        for _ in range(rng.randrange(10, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            board.push(move)
            core.push_uci(move.uci())
            assert evaluate_board(core) == evaluate_board(core_board(board))
        while core.ply > 0 and rng.random() < 0.9:
            core.pop()
            board.pop()
            assert evaluate_board(core) == evaluate_board(core_board(board))


def test_start_position_is_tempo_only():
    core = CoreBoard()
    core.set_fen(chess.STARTING_FEN)
    terms = evaluation_terms(core)
    assert terms["white_score"] == 0
    assert evaluate_board(core) == terms["tempo"]
    # The same with black to move (a symmetric position).
    core.set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
    assert evaluate_board(core) == terms["tempo"]


@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3K4/8/8 w - - 0 1",            # K v K
    "8/8/4k3/8/8/3K4/8/6N1 w - - 0 1",          # K+N v K
    "8/8/4k3/8/8/3K4/8/5B2 b - - 0 1",          # K+B v K
    "2b5/8/4k3/8/8/3K4/8/5B2 w - - 0 1",        # bishops on same-coloured squares
])
def test_insufficient_material_is_zero(fen):
    assert chess.Board(fen).is_insufficient_material()  # the oracle agrees
    assert evaluate_fen(fen) == 0


@pytest.mark.parametrize("fen, side_ahead", [
    # White a queen up (black's queen removed from the initial position).
    ("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", chess.WHITE),
    ("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", chess.WHITE),
    # Black a rook up.
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w Kkq - 0 1", chess.BLACK),
    # An extra pawn in a king and pawn ending with pawns on the same wing.
    ("8/5ppp/4k3/8/8/4K3/4PPPP/8 w - - 0 1", chess.WHITE),
    ("8/5ppp/4k3/8/8/4K3/4PPPP/8 b - - 0 1", chess.WHITE),
])
def test_material_advantage_is_clearly_positive(fen, side_ahead):
    board = chess.Board(fen)
    score = evaluate_fen(fen)
    if board.turn != side_ahead:
        score = -score
    assert score > 50


def test_piece_value_ordering():
    # With everything else equal, a side that keeps the more valuable piece stands better:
    # queen > rook > bishop >= knight > pawn (classical piece values).
    base = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"
    def with_piece(square, piece):
        board = chess.Board(base)
        board.set_piece_at(square, chess.Piece.from_symbol(piece))
        return evaluate_fen(board.fen())
    queen, rook = with_piece(chess.D1, "Q"), with_piece(chess.A1, "R")
    bishop, knight = with_piece(chess.C1, "B"), with_piece(chess.B1, "N")
    pawnless = evaluate_fen(base)
    assert queen > rook > bishop > pawnless
    assert rook > knight > pawnless


def test_negative_score_arithmetic():
    # Tapering must truncate toward zero exactly like C, so that the score of a position and
    # of its mirror are opposite.  Python's // floors, so the reference uses exact fractions.
    rng = random.Random(5)
    for _ in range(5000):
        mg, eg = rng.randint(-5000, 5000), rng.randint(-5000, 5000)
        phase = rng.randint(0, 30)
        ph = min(phase, 24)
        exact = Fraction(mg * ph + eg * (24 - ph), 24)
        expected = int(exact)  # int() of a Fraction truncates toward zero
        assert _taper(mg, eg, phase) == expected
        assert _taper(-mg, -eg, phase) == -expected
    assert _taper(-1, -1, 12) == -1
    assert _taper(-23, 0, 1) == 0    # -23/24 truncates to 0, not -1
    assert _taper(0, -25, 0) == -25


def test_terms_add_up_to_the_score():
    # The table printed by `eval` must explain the number the search sees.
    for board in list(random_positions(n_games=5, seed=3))[::7]:
        core = core_board(board)
        info = evaluation_terms(core)
        if info["insufficient_material"]:
            assert info["score"] == 0
            continue
        mg = sum(term["total"][0] for term in info["terms"].values())
        eg = sum(term["total"][1] for term in info["terms"].values())
        for term in info["terms"].values():
            assert term["total"] == (term["white"][0] - term["black"][0], term["white"][1] - term["black"][1])
        phase, scale = info["phase"], info["scale"]
        scaled_eg = int(Fraction(eg * scale, 64))          # C division truncates toward zero
        white = int(Fraction(mg * phase + scaled_eg * (24 - phase), 24))
        assert info["white_score"] == white
        to_move = white if board.turn == chess.WHITE else -white
        assert info["score"] == to_move + info["tempo"] == evaluate_board(core)


def test_eval_table_prints_every_term():
    from scacco.engine import Board
    from scacco.engine.evaluation import eval_table

    table = eval_table(Board())
    for name in ("material+psq", "pawns", "passed", "mobility", "pieces", "threats", "king"):
        assert name in table
    assert "Final evaluation: +0.00 (white side)" in table
