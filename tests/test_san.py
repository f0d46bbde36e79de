"""SAN: Board.san, parse_san and push_san against python-chess.

Every expected value comes from python-chess (board.san, parse_san, its exceptions), run on
thousands of positions from seeded random games, standard and Chess960, and on hand-made
positions with three queens, underpromotions and castling both ways.
"""
import random
import re

import chess
import pytest

from scacco.engine.board import (AmbiguousMoveError, Board, IllegalMoveError, InvalidMoveError,
                          MoveError)

# ---------------------------------------------------------------------------------------------
# Positions


def random_positions(rng: random.Random, games: int, chess960: bool, max_plies: int = 160):
    """python-chess boards along seeded random games (every position of every game)."""
    out = []
    for _ in range(games):
        if chess960:
            ref = chess.Board.from_chess960_pos(rng.randrange(960))
        else:
            ref = chess.Board()
        for _ in range(rng.randrange(20, max_plies)):
            moves = list(ref.legal_moves)
            if not moves:
                break
            out.append(ref.copy(stack=False))
            # Prefer captures and promotions now and then, so that games reach positions with
            # several pieces of a kind (disambiguation) and underpromoted pieces.
            noisy = [m for m in moves if ref.is_capture(m) or m.promotion]
            ref.push(rng.choice(noisy if noisy and rng.random() < 0.3 else moves))
    return out


def ours(ref: chess.Board) -> Board:
    return Board(ref.fen(), chess960=ref.chess960)


# Hand-made positions where disambiguation, promotion and castling matter (python-chess gives
# the expected SAN of every legal move).
CRAFTED = [
    # Three white queens that all reach d4 / e5: file, rank and full-square disambiguation.
    ("6k1/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", False),
    ("7k/8/2Q1Q3/8/2Q5/8/8/4K3 w - - 0 1", False),
    # Knights on b1, f3 (and d2 free): Nbd2 / Nfd2; rooks on one file: R1a3 / R8a3.
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 1", False),
    ("4k3/R7/8/8/8/8/4K3/R7 w - - 0 1", False),
    # Promotion with and without capture, with check and mate.
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", False),
    ("3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1", False),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False),
    ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", False),
    # En passant, and a pinned pawn that cannot take en passant.
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", False),
    # Mate and check signs.
    ("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1", False),
    # Chess960: king b1 with rook a1 (O-O-O next to the king), king g1 with rook h1, a king
    # that goes four files to castle, and one that lands on its rook's square.
    ("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAhb - 0 1", True),
    ("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBga - 0 1", True),
    ("4k3/8/8/8/8/8/8/2KR4 w D - 0 1", True),
    ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", True),
]

RNG = random.Random(20240901)
STANDARD_POSITIONS = random_positions(RNG, 40, chess960=False)
CHESS960_POSITIONS = random_positions(RNG, 20, chess960=True)


def test_position_sample_is_large_and_varied():
    assert len(STANDARD_POSITIONS) >= 2000
    assert len(CHESS960_POSITIONS) >= 1000
    sans = {ref.san(m) for ref in STANDARD_POSITIONS[::7] for m in ref.legal_moves}
    assert any("=" in s for s in sans), "some promotions"
    assert any(re.match(r"[NBRQ][a-h1-8]{1,2}x?[a-h][1-8]", s) for s in sans), \
        "some disambiguated piece moves"


# ---------------------------------------------------------------------------------------------
# SAN of every legal move, and parse_san of it


def check_every_move(ref: chess.Board) -> None:
    board = ours(ref)
    expected = {m.uci(): ref.san(m) for m in ref.legal_moves}
    assert set(board.legal_moves()) == set(expected), ref.fen()
    for uci, san in expected.items():
        assert board.san(uci) == san, (ref.fen(), uci)
        assert board.parse_san(san) == uci, (ref.fen(), san)
    assert board.fen() == ours(ref).fen(), "san/parse_san changed the board"


def test_san_of_every_move_in_random_standard_positions():
    for ref in STANDARD_POSITIONS:
        check_every_move(ref)


def test_san_of_every_move_in_random_chess960_positions():
    for ref in CHESS960_POSITIONS:
        check_every_move(ref)


@pytest.mark.parametrize("fen,chess960", CRAFTED)
def test_san_of_every_move_in_crafted_positions(fen, chess960):
    ref = chess.Board(fen, chess960=chess960)
    assert ref.is_valid(), fen
    check_every_move(ref)


def test_push_san_plays_a_whole_game_like_python_chess():
    rng = random.Random(7)
    ref = chess.Board()
    board = Board()
    for _ in range(300):
        moves = list(ref.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        san = ref.san(move)
        assert board.push_san(san) == move.uci()
        ref.push(move)
        assert board.fen() == ref.fen()
    assert board.move_stack() == [m.uci() for m in ref.move_stack]


# ---------------------------------------------------------------------------------------------
# Spellings found in real exports: each must name the move python-chess gives for the standard
# SAN in the first column.

SPELLINGS = [
    (chess.STARTING_FEN, False, "Nf3", ["Nf3", "Ngf3", "N1f3", "Ng1f3", "Ng1-f3", "g1f3", "g1-f3",
                                        "Nf3!", "Nf3?", "Nf3!!", "Nf3??", "Nf3!?", "Nf3?!", " Nf3 "]),
    (chess.STARTING_FEN, False, "e4", ["e4", "e2e4", "e2-e4", "e4!", "e4+"]),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False, "O-O",
     ["O-O", "0-0", "O-O+", "0-0!", "e1g1", "e1h1"]),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False, "O-O-O",
     ["O-O-O", "0-0-0", "O-O-O?!", "e1c1", "e1a1"]),
    ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", False, "O-O", ["O-O", "0-0", "e8g8"]),
    ("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAhb - 0 1", True, "O-O-O", ["O-O-O", "0-0-0", "b1a1"]),
    ("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAhb - 0 1", True, "O-O", ["O-O", "0-0", "b1h1"]),
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", False, "a8=Q+",
     ["a8=Q", "a8Q", "a8=q", "a8q", "a7a8q", "a8=Q+", "a8Q+!"]),
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", False, "axb8=N",
     ["axb8=N", "axb8N", "axb8=n", "ab8N", "a7b8n", "a7xb8=N"]),
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 1", False, "Nbd2",
     ["Nbd2", "Nb1d2", "N1d2", "b1d2"]),
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", False, "exd6", ["exd6", "ed6", "e5d6", "exd6#", "e5xd6"]),
]


@pytest.mark.parametrize("fen,chess960,standard,spellings", SPELLINGS)
def test_spellings_from_real_exports(fen, chess960, standard, spellings):
    ref = chess.Board(fen, chess960=chess960)
    expected = ref.parse_san(standard).uci()
    board = Board(fen, chess960=chess960)
    for text in spellings:
        assert board.parse_san(text) == expected, text
    assert board.san(expected) == ref.san(ref.parse_san(standard))
    assert board.fen() == Board(fen, chess960=chess960).fen()


@pytest.mark.parametrize("text", ["--", "Z0", "0000", "@@@@"])
def test_null_move_spellings(text):
    ref = chess.Board()
    ref.push_san("e4")
    board = Board()
    board.push_san("e4")
    assert board.parse_san(text) == "0000"
    assert board.push_san(text) == "0000"
    ref.push(chess.Move.null())
    assert board.fen() == ref.fen()
    assert board.move_stack() == [m.uci() for m in ref.move_stack]
    # White moves again after the pass.
    assert board.push_san("d4") == ref.push_san("d4").uci()
    assert board.fen() == ref.fen()
    assert board.pop() == ref.pop().uci()
    assert board.pop() == ref.pop().uci() == "0000"
    assert board.fen() == ref.fen()


def test_null_move_san_is_python_chess_spelling():
    assert Board().san("0000") == chess.Board().san(chess.Move.null())


def test_null_move_in_check_is_refused():
    board = Board("4k3/8/8/8/8/8/8/4K2r w - - 0 1")
    before = board.fen()
    for text in ("--", "Z0"):
        with pytest.raises(IllegalMoveError, match="check"):
            board.parse_san(text)
        with pytest.raises(IllegalMoveError):
            board.push_san(text)
    with pytest.raises(ValueError, match="check"):
        board.push_null()
    assert board.fen() == before and board.move_stack() == []


# ---------------------------------------------------------------------------------------------
# Bad SAN: the right error, the text in the message, and the board unchanged

BAD = [
    # (fen, text, python-chess's verdict)
    (chess.STARTING_FEN, "Nf9", "invalid"),
    (chess.STARTING_FEN, "hello", "invalid"),
    (chess.STARTING_FEN, "", "invalid"),
    (chess.STARTING_FEN, "Xe4", "invalid"),
    (chess.STARTING_FEN, "e9", "invalid"),
    (chess.STARTING_FEN, "Nf4", "illegal"),
    (chess.STARTING_FEN, "e5", "illegal"),
    (chess.STARTING_FEN, "O-O", "illegal"),
    (chess.STARTING_FEN, "Kd3", "illegal"),
    (chess.STARTING_FEN, "exd3", "illegal"),
    (chess.STARTING_FEN, "e2e5", "illegal"),
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8", "illegal"),
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8", "illegal"),
    ("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a6", "illegal"),
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 1", "Nd2", "ambiguous"),
    ("6k1/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qe1", "illegal"),
    ("6k1/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qb5", "ambiguous"),
    ("6k1/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qc3", "ambiguous"),
    ("6k1/8/8/Q3Q3/8/8/8/Q3K3 w - - 0 1", "Qac3", "ambiguous"),
]

ERROR_CLASSES = {"invalid": InvalidMoveError, "illegal": IllegalMoveError,
                 "ambiguous": AmbiguousMoveError}
REFERENCE_CLASSES = {"invalid": chess.InvalidMoveError, "illegal": chess.IllegalMoveError,
                     "ambiguous": chess.AmbiguousMoveError}


@pytest.mark.parametrize("fen,text,verdict", BAD)
def test_bad_san_raises_and_changes_nothing(fen, text, verdict):
    ref = chess.Board(fen)
    with pytest.raises(REFERENCE_CLASSES[verdict]):
        ref.parse_san(text)
    board = Board(fen)
    board_before = (board.fen(), board.move_stack())
    for method in (board.parse_san, board.push_san):
        with pytest.raises(ERROR_CLASSES[verdict]) as caught:
            method(text)
        assert isinstance(caught.value, MoveError) and isinstance(caught.value, ValueError)
        assert repr(text) in str(caught.value)
        assert (board.fen(), board.move_stack()) == board_before


def test_san_of_an_illegal_move_raises():
    board = Board()
    for uci in ("e2e5", "e1g1", "a1a1", "zz", "e7e8q"):
        with pytest.raises(IllegalMoveError):
            board.san(uci)
    assert board.fen() == chess.STARTING_FEN


def test_non_string_san_is_invalid():
    with pytest.raises(InvalidMoveError):
        Board().parse_san(None)
