"""FEN parsing: every rejection the issue lists, X-FEN and Shredder-FEN, 4-field FENs, and a
property test feeding mutated FENs (only a ValueError or a valid board may come back).

python-chess is the oracle for what a valid position is; where the two differ, the issue's
list decides (see test_mutated_fens for the differences allowed and why).
"""
import random

import chess
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scacco.engine import STARTING_FEN, Board

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"

# (FEN, keyword the message must contain, what is wrong), one group per item of the issue.
INVALID = [
    # wrong field count (and trailing garbage)
    ("", "fields", "empty"),
    (START, "fields", "board only"),
    (f"{START} w", "fields", "two fields"),
    (f"{START} w KQkq", "fields", "three fields"),
    (f"{START} w KQkq - 0", "fields", "five fields"),
    (f"{START} w KQkq - 0 1 extra", "fields", "trailing garbage"),
    (f"{START} w KQkq - 0 1 0 1", "fields", "clocks twice"),
    # bad piece letters
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "piece letter", "X"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0 w KQkq - 0 1", "piece letter", "digit 0"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter", "digit 9"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB~R w KQkq - 0 1", "piece letter", "tilde"),
    # a rank that is not 8 squares, or not 8 ranks
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "rank", "7 squares"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1", "rank", "9 squares"),
    ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank", "7 empty"),
    ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank", "two digits in a row"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "ranks", "7 ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "ranks", "9 ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1", "ranks", "trailing slash"),
    # not exactly one king per side
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "king", "no white king"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "king", "no black king"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "king", "two white kings"),
    ("4k3/8/8/8/8/8/8/k3K3 w - - 0 1", "king", "two black kings"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "king", "empty board"),
    # pawns on the first or last rank
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn", "white pawn on rank 8"),
    ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "pawn", "black pawn on rank 1"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn", "white pawn on rank 1"),
    ("p3k3/8/8/8/8/8/8/4K3 b - - 0 1", "pawn", "black pawn on rank 8"),
    # the side not to move in check
    ("4k3/8/8/8/8/8/4r3/4K3 b - - 0 1", "check", "white in check, black to move"),
    ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "check", "black in check, white to move"),
    ("4k3/8/8/8/7b/8/8/4K3 b - - 0 1", "check", "by a bishop"),
    ("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", "check", "by a pawn"),
    ("8/8/8/8/8/3k4/4K3/8 w - - 0 1", "check", "kings touching"),
    # side to move
    (f"{START} x KQkq - 0 1", "side to move", "x"),
    (f"{START} W KQkq - 0 1", "side to move", "capital W"),
    # castling rights without king and rook on their squares
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling", "no h1 rook"),
    ("1nbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "castling", "no a8 rook"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1KNR w KQkq - 0 1", "castling", "king off e1"),
    ("rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "castling", "king off rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBRN w KQkq - 0 1", "castling", "rook on g1"),
    ("4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "castling", "black has no rooks"),
    (f"{START} w KQkqX - 0 1", "castling", "bad letter"),
    (f"{START} w KKkq - 0 1", "castling", "right twice"),
    (f"{START} w K-kq - 0 1", "castling", "dash inside"),
    (f"{START} w KHkq - 0 1", "castling", "K and H are one right"),
    # an en-passant square off rank 3/6 or without the pawn that made the double step
    (f"{START} w KQkq e3 0 1", "en-passant", "rank 3 with white to move"),
    (f"{AFTER_E4} b KQkq e4 0 1", "en-passant", "rank 4"),
    (f"{AFTER_E4} b KQkq d3 0 1", "en-passant", "no pawn on d4"),
    (f"{AFTER_E4} w KQkq e3 0 1", "en-passant", "wrong side to move"),
    ("rnbqkbnr/pppppppp/8/8/4P3/4B3/PPPP1PPP/RN1QKBNR b KQkq e3 0 1", "en-passant",
     "square occupied"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPPPPPP/RNBQKBN1 b Qkq e3 0 1", "en-passant",
     "pawn still on e2"),
    ("rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "en-passant",
     "own pawn in front"),
    (f"{AFTER_E4} b KQkq e9 0 1", "en-passant", "e9"),
    (f"{AFTER_E4} b KQkq E3 0 1", "en-passant", "capital E3"),
    (f"{AFTER_E4} b KQkq 3e 0 1", "en-passant", "reversed"),
    # bad clocks
    (f"{START} w KQkq - -1 1", "halfmove", "negative halfmove"),
    (f"{START} w KQkq - x 1", "halfmove", "letter"),
    (f"{START} w KQkq - 1.5 1", "halfmove", "decimal"),
    (f"{START} w KQkq - +1 1", "halfmove", "plus sign"),
    (f"{START} w KQkq - \u0663 1", "halfmove", "Arabic-Indic digit"),
    (f"{START} w KQkq - 0 -3", "fullmove", "negative fullmove"),
    (f"{START} w KQkq - 0 1_0", "fullmove", "underscore"),
    (f"{START} w KQkq - 0 1\x00", "fullmove", "NUL byte"),
    (f"{START} w KQkq - 99999999999 1", "clock", "huge halfmove"),
    (f"{START} w KQkq - 0 {'9' * 5000}", "clock", "5000 digits"),
    # more than 16 pieces of one side
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", "16", "17 white pieces"),
    ("rnbqkbnr/pppppppp/p7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "16", "17 black pieces"),
    ("RRRRRRRR/RRRRRRRR/RR2k3/8/8/8/8/4K3 w - - 0 1", "16", "19 rooks"),
]


@pytest.mark.parametrize("fen,keyword,what", INVALID, ids=[case[2] for case in INVALID])
def test_invalid_fen_rejected_with_a_message(fen, keyword, what):
    with pytest.raises(ValueError) as info:
        Board(fen)
    assert keyword.lower() in str(info.value).lower(), f"{what}: {info.value}"
    # Also rejected as Chess960 (the only difference there is where the castling rooks stand).
    if keyword != "castling":
        with pytest.raises(ValueError):
            Board(fen, chess960=True)


@pytest.mark.parametrize("fen,keyword,what", INVALID, ids=[case[2] for case in INVALID])
def test_rejected_set_fen_leaves_the_board_unchanged(fen, keyword, what):
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    for move in ["a2a4", "b4a3", "e1g1", "e8c8"]:
        board.push_uci(move)
    before = (board.fen(), board.zobrist_key(), board.move_stack(), sorted(board.legal_moves()),
              board.is_check(), board.halfmove_clock, board.fullmove_number, board.chess960)
    with pytest.raises(ValueError):
        board.set_fen(fen)
    after = (board.fen(), board.zobrist_key(), board.move_stack(), sorted(board.legal_moves()),
             board.is_check(), board.halfmove_clock, board.fullmove_number, board.chess960)
    assert after == before
    assert board.pop() == "e8c8"
    assert board.perft(2) == Board(board.fen()).perft(2)


@pytest.mark.parametrize("value", [None, 5, b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                                   ["w"]])
def test_non_string_fen_is_a_value_error(value):
    with pytest.raises(ValueError, match="string"):
        Board(value)


def test_python_chess_agrees_the_positions_are_invalid():
    # The oracle's view of the same cases: python-chess either raises or calls the position
    # invalid, except where it is more lenient in syntax (documented in test_mutated_fens).
    lenient = {"five fields", "board only", "two fields", "three fields", "tilde", "plus sign",
               "Arabic-Indic digit", "underscore", "right twice", "huge halfmove",
               "K and H are one right"}
    for fen, _, what in INVALID:
        if what in lenient:
            continue
        try:
            ref = chess.Board(fen)
        except ValueError:
            continue
        assert not ref.is_valid(), what


# ---------------------------------------------------------------------------------------------
# Accepted forms


@pytest.mark.parametrize("fen", [
    f"{START} w KQkq -",
    f"{AFTER_E4} b KQkq e3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
    "8/8/8/8/8/8/8/K1k5 b - -",
])
def test_four_field_fen_defaults_the_clocks(fen):
    board = Board(fen)
    assert board.fen() == chess.Board(fen).fen()
    assert board.fen().endswith(" 0 1")
    assert board.halfmove_clock == 0 and board.fullmove_number == 1
    assert board.fen() == Board(fen + " 0 1").fen()
    assert board.zobrist_key() == Board(fen + " 0 1").zobrist_key()


def test_whitespace_and_clock_forms():
    assert Board(f"  {START}\tw  KQkq -   0 1\n").fen() == STARTING_FEN
    assert Board(f"{START} w KQkq - 007 012").fen() == f"{START} w KQkq - 7 12"
    board = Board(f"{START} b KQkq - 1000000 1000000")
    assert board.halfmove_clock == 1000000 and board.fullmove_number == 1000000


def test_fullmove_zero_reads_as_one_like_python_chess():
    # Many EPD collections (the shared mate files among them) write a fullmove number of 0.
    fen = f"{START} w KQkq - 1 0"
    assert Board(fen).fen() == chess.Board(fen).fen() == f"{START} w KQkq - 1 1"


def test_en_passant_square_kept_only_when_capturable():
    # python-chess's FEN prints the en-passant square only when a legal capture exists;
    # Scacco stores it only then (for the Zobrist key), and prints what it stores.
    for fen in [f"{AFTER_E4} b KQkq e3 0 1",                       # no black pawn on d4/f4
                "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",  # d4xe3 legal
                "8/8/8/KPp4r/8/8/8/7k w - c6 0 2"]:                # capture exposes the king
        assert Board(fen).fen() == chess.Board(fen).fen()


@pytest.mark.parametrize("fen,chess960,xfen,shredder", [
    # Standard start: KQkq in X-FEN, HAha in Shredder-FEN, either accepted, also as Chess960.
    (STARTING_FEN, False, "KQkq", "HAha"),
    (f"{START} w HAha - 0 1", False, "KQkq", "HAha"),
    (f"{START} w HAha - 0 1", True, "KQkq", "HAha"),
    (f"{START} w AHah - 0 1", True, "KQkq", "HAha"),
    (f"{START} w Kq - 0 1", False, "Kq", "Ha"),
    # Chess960, the king between two rooks: KQkq stands for the outermost rooks.
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", True, "KQkq", "HFhf"),
    # Two rooks on one side: the inner one needs its file letter in X-FEN too.
    ("1k6/8/8/8/8/8/8/1K2R2R w E - 0 1", True, "E", "E"),
    ("1k6/8/8/8/8/8/8/1K2R2R w H - 0 1", True, "K", "H"),
    ("1k6/8/8/8/8/8/8/1K2R2R w K - 0 1", True, "K", "H"),
    ("r3r1k1/8/8/8/8/8/8/6K1 w e - 0 1", True, "e", "e"),
    ("r3r1k1/8/8/8/8/8/8/6K1 w a - 0 1", True, "q", "a"),
    ("r3r1k1/8/8/8/8/8/8/6K1 w q - 0 1", True, "q", "a"),
    # Kings and rooks on the edge files.
    ("rk6/8/8/8/8/8/8/6KR w Ha - 0 1", True, "Kq", "Ha"),
])
def test_xfen_and_shredder_fen(fen, chess960, xfen, shredder):
    board = Board(fen, chess960=chess960)
    ref = chess.Board(fen, chess960=chess960)
    assert ref.is_valid()
    assert board.fen().split()[2] == xfen == ref.fen().split()[2]
    assert board.fen(shredder=True).split()[2] == shredder == ref.fen(shredder=True).split()[2]
    assert set(board.legal_moves()) == {ref.uci(m) for m in ref.legal_moves}
    # Both spellings read back to the same board.
    for text in (board.fen(), board.fen(shredder=True)):
        again = Board(text, chess960=chess960)
        assert again.fen() == board.fen() and again.zobrist_key() == board.zobrist_key()


def test_chess960_rights_need_the_flag():
    # Without chess960, rights must be for the e-file king and corner rooks.
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    with pytest.raises(ValueError, match="castling"):
        Board(fen)
    assert not chess.Board(fen).is_valid()   # python-chess calls the rights bad too
    assert Board(fen.replace("HFhf", "-")).fen() == fen.replace("HFhf", "-")


# ---------------------------------------------------------------------------------------------
# Mutated FENs

BASES = [
    STARTING_FEN,
    f"{AFTER_E4} b KQkq e3 0 1",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "qnrkbbnr/pp1p4/2p1pppp/8/3NPP2/P7/1PPP2PP/QNRKBB1R w HChc - 0 6",
    "1k6/8/8/8/8/8/8/1K2R2R w E - 0 1",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    "4k3/8/8/8/8/8/8/4K3 w - - 99 80",
]
FEN_ALPHABET = "pnbrqkPNBRQK12345678/ -wbKQkqABCDEFGHabcdefgh0123456789"

# Positions python-chess calls invalid that the list does not reject: more than eight
# pawns of a side (promotion counting is not in the list) and checks that no legal last move
# could give (too many or impossible checkers).
ALLOWED_STATUS = (chess.STATUS_TOO_MANY_WHITE_PAWNS | chess.STATUS_TOO_MANY_BLACK_PAWNS
                  | chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK)

# Where python-chess reads a FEN that Scacco rejects, the difference must be one of these
# (python-chess is more lenient in syntax; each is on the list of rejections):
# missing fields (python-chess fills in defaults), clocks that only int() understands
# ("+1", "1_0", non-ASCII digits), a castling letter given twice,
# and python-chess's crazyhouse marker "~".
STRICTER_KEYWORDS = ("fields", "halfmove", "fullmove", "repeats a right", "'~'")


def python_chess_dropped_castling(fen: str, ref: chess.Board) -> bool:
    """python-chess silently drops a KQkq right it finds no rook for (and then calls the
    position valid); the issue says such a right is an error."""
    given = fen.split()[2] if len(fen.split()) > 2 else "-"
    letters = set(given) - {"-"}
    return len(letters) > len(chess.SquareSet(ref.castling_rights))


def stricter_is_justified(fen: str, error: ValueError, ref: chess.Board) -> bool:
    message = str(error)
    if any(word in message for word in STRICTER_KEYWORDS):
        return True
    return "castling" in message and python_chess_dropped_castling(fen, ref)


@st.composite
def mutated_fens(draw):
    fen = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace", "replace", "insert", "delete", "swap chars",
                                     "swap chars", "swap fields", "drop field", "repeat field",
                                     "replace field", "append bytes"]))
        fields = fen.split(" ")
        if kind == "swap chars" and fen:
            i, j = sorted((draw(st.integers(0, len(fen) - 1)), draw(st.integers(0, len(fen) - 1))))
            fen = fen[:i] + fen[j] + fen[i + 1:j] + fen[i] + fen[j + 1:] if i < j else fen
        elif kind in ("replace", "insert", "delete") and fen:
            i = draw(st.integers(0, len(fen) - 1))
            if draw(st.integers(0, 4)):
                ch = draw(st.sampled_from(FEN_ALPHABET))
            else:
                ch = draw(st.characters())
            if kind == "replace":
                fen = fen[:i] + ch + fen[i + 1:]
            elif kind == "insert":
                fen = fen[:i] + ch + fen[i:]
            else:
                fen = fen[:i] + fen[i + 1:]
        elif kind == "swap fields" and len(fields) >= 2:
            i, j = draw(st.integers(0, len(fields) - 1)), draw(st.integers(0, len(fields) - 1))
            fields[i], fields[j] = fields[j], fields[i]
            fen = " ".join(fields)
        elif kind == "drop field" and fields:
            del fields[draw(st.integers(0, len(fields) - 1))]
            fen = " ".join(fields)
        elif kind == "repeat field" and fields:
            i = draw(st.integers(0, len(fields) - 1))
            fields.insert(i, fields[i])
            fen = " ".join(fields)
        elif kind == "replace field" and fields:
            i = draw(st.integers(0, len(fields) - 1))
            fields[i] = draw(st.text(alphabet=FEN_ALPHABET, max_size=12))
            fen = " ".join(fields)
        elif kind == "append bytes":
            raw = draw(st.binary(max_size=12))
            fen += raw.decode(draw(st.sampled_from(["latin-1", "utf-8"])), errors="replace")
    return fen


def check_accepted_board(board: Board, chess960: bool):
    """A board Scacco accepted must be a valid position, and agree with python-chess."""
    fen = board.fen()
    ref = chess.Board(fen, chess960=chess960)
    status = ref.status()
    assert status & ~ALLOWED_STATUS == 0, f"accepted {fen}, python-chess says {status!r}"
    # What we print, we read back identically.
    again = Board(fen, chess960=chess960)
    assert again.fen() == fen and again.zobrist_key() == board.zobrist_key()
    assert Board(board.fen(shredder=True), chess960=chess960).fen() == fen
    moves = board.legal_moves()
    assert len(moves) == len(set(moves))
    if status == chess.STATUS_VALID:
        assert fen == ref.fen()
        assert set(moves) == {ref.uci(m) for m in ref.legal_moves}
        assert board.is_check() == ref.is_check()
        assert board.is_insufficient_material() == ref.is_insufficient_material()
    board.perft(2)   # runs without crashing even where python-chess cannot be the judge


def check_fen(fen: str, chess960: bool):
    try:
        board = Board(fen, chess960=chess960)
    except ValueError as error:
        assert str(error), "a rejection must say what is wrong"
        try:
            ref = chess.Board(fen, chess960=chess960)
        except ValueError:
            return
        if ref.is_valid():
            assert stricter_is_justified(fen, error, ref), \
                f"rejected {fen!r} ({error}) which python-chess reads as valid"
        return
    try:
        ref = chess.Board(fen, chess960=chess960)
    except ValueError:
        pass   # python-chess's syntax is stricter here (castling letter order, for one)
    else:
        status = ref.status()
        assert status & ~ALLOWED_STATUS == 0, f"accepted {fen!r}, python-chess says {status!r}"
    check_accepted_board(board, chess960)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fen=mutated_fens(), chess960=st.booleans())
@example(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 \x00", chess960=False)
@example(fen="8/8/8/8/8/8/8/8 w - - 0 1", chess960=False)
def test_mutated_fens(fen, chess960):
    check_fen(fen, chess960)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=80),
                      st.binary(max_size=80).map(lambda raw: raw.decode("latin-1"))),
       chess960=st.booleans())
def test_random_text_is_rejected_cleanly(text, chess960):
    check_fen(text, chess960)


def test_random_placements_agree_with_python_chess():
    # Random boards with random castling and en-passant fields: Scacco accepts exactly the
    # positions python-chess calls valid, up to ALLOWED_STATUS.
    rng = random.Random(1234)
    accepted = rejected = 0
    for _ in range(3000):
        ref = chess.Board(None)
        for _ in range(rng.randint(2, 14)):
            piece = chess.Piece(rng.choice(chess.PIECE_TYPES), rng.choice(chess.COLORS))
            ref.set_piece_at(rng.choice(chess.SQUARES), piece)
        if rng.random() < 0.7:   # make kings likely to be right
            squares = rng.sample([s for s in chess.SQUARES], 2)
            for sq in ref.pieces(chess.KING, chess.WHITE) | ref.pieces(chess.KING, chess.BLACK):
                ref.remove_piece_at(sq)
            ref.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
            ref.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        ref.turn = rng.choice(chess.COLORS)
        castling = "".join(rng.sample("KQkqAHah", rng.choice([0, 0, 1, 2, 3]))) or "-"
        ep = rng.choice(["-", "-", chess.square_name(rng.choice(chess.SQUARES))])
        fen = f"{ref.board_fen()} {'w' if ref.turn else 'b'} {castling} {ep} 0 1"
        chess960 = rng.random() < 0.3
        try:
            reference = chess.Board(fen, chess960=chess960)
        except ValueError:
            continue
        valid = reference.is_valid()
        try:
            board = Board(fen, chess960=chess960)
        except ValueError as error:
            rejected += 1
            assert not valid or stricter_is_justified(fen, error, reference), \
                f"rejected {fen} ({error}), python-chess says valid"
            continue
        accepted += 1
        assert reference.status() & ~ALLOWED_STATUS == 0, f"accepted {fen}: {reference.status()!r}"
        check_accepted_board(board, chess960)
    assert accepted > 200 and rejected > 200, (accepted, rejected)
