"""A chess board with the feel of python-chess, backed by the Cython core.

Moves are UCI strings ("e2e4", "e7e8q"; castling "e1g1", or king-takes-rook "e1h1" in
Chess960).  Draw rules follow FIDE: threefold repetition and the fifty-move rule can be
claimed, fivefold repetition and the seventy-five-move rule end the game by themselves.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, TypeVar

from ..ext._core import STARTING_FEN, CoreBoard

__all__ = ["Board", "Outcome", "Termination", "STARTING_FEN", "MoveError", "InvalidMoveError",
           "IllegalMoveError", "AmbiguousMoveError", "NULL_MOVE", "board_from_fen", "line_text"]

# The UCI spelling of a null move (a pass), as python-chess and the UCI protocol write it.
NULL_MOVE = "0000"

# Square names to indices (a1 = 0 ... h8 = 63), the order of the core.
SQUARES: Dict[str, int] = {f + r: 8 * (int(r) - 1) + "abcdefgh".index(f)
                           for f in "abcdefgh" for r in "12345678"}

# SAN of a piece or pawn move, accepting what real exports contain besides the standard form:
# too much disambiguation (Ng1f3), a hyphen (Ng1-f3), a promotion without "=" (e8Q) or in lower
# case (e8=q), and so UCI itself (e2e4, e7e8q).  Groups: piece, from file, from rank, target
# square, promotion piece.
SAN_PATTERN = re.compile(r"([NBRQK])?([a-h])?([1-8])?[-x]?([a-h][1-8])(?:=?([NBRQnbrq]))?")
PIECE_TYPES = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}
CASTLING_SAN = {"O-O": True, "O-O-O": False, "0-0": True, "0-0-0": False}
NULL_SAN = frozenset({"--", "Z0", "0000", "@@@@"})
# Check and mate signs and move-quality glyphs that may follow a move.
SAN_SUFFIX_CHARS = "+#!?"


class MoveError(ValueError):
    """A move that cannot be read or played; the message says what is wrong."""


class InvalidMoveError(MoveError):
    """The text is not a move in any notation we read."""


class IllegalMoveError(MoveError):
    """The text names a move, but no legal move in the position fits it."""


class AmbiguousMoveError(MoveError):
    """The text fits more than one legal move."""


class Termination(enum.Enum):
    """How a game ended (names as python-chess)."""

    CHECKMATE = enum.auto()
    STALEMATE = enum.auto()
    INSUFFICIENT_MATERIAL = enum.auto()
    SEVENTYFIVE_MOVES = enum.auto()
    FIVEFOLD_REPETITION = enum.auto()
    FIFTY_MOVES = enum.auto()
    THREEFOLD_REPETITION = enum.auto()


@dataclass(frozen=True)
class Outcome:
    """The end of a game: how, and the winner (True white, False black, None draw)."""

    termination: Termination
    winner: Optional[bool]

    def result(self) -> str:
        return "1/2-1/2" if self.winner is None else ("1-0" if self.winner else "0-1")


class Board(CoreBoard):
    """A position plus the moves that led to it from the FEN it was set up with.

    :param fen: the starting position; standard FEN, X-FEN or Shredder-FEN castling, with or
        without the two clock fields.
    :param chess960: allow Chess960 castling rights (any king file, any rook file).
    :raises ValueError: if the FEN is malformed or the position is illegal, naming the problem.
    """

    def __init__(self, fen: str = STARTING_FEN, chess960: bool = False) -> None:
        self.set_fen(fen, chess960)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, chess960={self.chess960})"

    def __str__(self) -> str:
        rows = []
        for rank in range(7, -1, -1):
            rows.append(" ".join(self.piece_at(rank * 8 + f) or "." for f in range(8)))
        return "\n".join(rows)

    # -- game end ---------------------------------------------------------------------

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.has_legal_moves()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self.has_legal_moves()

    def is_repetition(self, count: int = 3) -> bool:
        """Has the current position occurred `count` times (this one included)?"""
        return self.repetitions() + 1 >= count

    def is_fivefold_repetition(self) -> bool:
        return self.is_repetition(5)

    def can_claim_threefold_repetition(self) -> bool:
        """A threefold repetition can be claimed (FIDE 9.2, as python-chess): the position has
        occurred three times, or some legal move makes it occur for the third time."""
        if self.is_repetition(3):
            return True
        return any(self._after(code, lambda: self.is_repetition(3))
                   for code in self.legal_move_codes())

    def is_fifty_moves(self) -> bool:
        """Fifty moves by each side without capture or pawn move (claimable); mate comes first."""
        return self.halfmove_clock >= 100 and self.has_legal_moves()

    def can_claim_fifty_moves(self) -> bool:
        """The fifty-move rule can be claimed (FIDE 9.3, as python-chess): it holds now, or
        some legal move (neither a capture nor a pawn move) completes the fifty moves."""
        if self.is_fifty_moves():
            return True
        if self.halfmove_clock < 99:
            return False
        return any(self._after(code, lambda: self.halfmove_clock >= 100)
                   for code in self.legal_move_codes())

    def can_claim_draw(self) -> bool:
        return self.can_claim_fifty_moves() or self.can_claim_threefold_repetition()

    def _after(self, code: int, predicate) -> bool:
        """predicate() evaluated after the move `code`, which is then taken back."""
        self.push_code(code)
        try:
            return predicate()
        finally:
            self.pop()

    def is_seventyfive_moves(self) -> bool:
        """Seventy-five moves by each side without capture or pawn move (automatic draw)."""
        return self.halfmove_clock >= 150 and self.has_legal_moves()

    def is_game_over(self, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw=claim_draw) is not None

    def outcome(self, claim_draw: bool = False) -> Optional[Outcome]:
        """The outcome if the game is over, else None.  With claim_draw, the claimable draws
        (threefold repetition, fifty moves, also when one move away) count too."""
        if self.is_checkmate():
            return Outcome(Termination.CHECKMATE, not self.turn)
        if self.is_insufficient_material():
            return Outcome(Termination.INSUFFICIENT_MATERIAL, None)
        if not self.has_legal_moves():
            return Outcome(Termination.STALEMATE, None)
        if self.is_seventyfive_moves():
            return Outcome(Termination.SEVENTYFIVE_MOVES, None)
        if self.is_fivefold_repetition():
            return Outcome(Termination.FIVEFOLD_REPETITION, None)
        if claim_draw:
            if self.can_claim_fifty_moves():
                return Outcome(Termination.FIFTY_MOVES, None)
            if self.can_claim_threefold_repetition():
                return Outcome(Termination.THREEFOLD_REPETITION, None)
        return None

    # -- SAN ----------------------------------------------------------------------------

    def san(self, move: str) -> str:
        """The move in standard algebraic notation (as FIDE and the PGN standard write it):
        minimal disambiguation (file, else rank, else both), "x" for captures, "=Q" for
        promotions, "O-O"/"O-O-O" for castling (in Chess960 too), "+" or "#" after checks.
        A null move ("0000") is "--".

        :param move: a legal move in UCI notation (castling as e1g1, or e1h1 in Chess960).
        :raises IllegalMoveError: if the move is malformed or not legal here.
        """
        if move == NULL_MOVE:
            return "--"
        try:
            code = self.parse_uci(move)
        except ValueError as error:
            raise IllegalMoveError(str(error)) from None
        uci = self.move_uci(code)
        san = self._san_without_check(uci)
        self.push_code(code)
        try:
            if self.is_check():
                san += "+" if self.has_legal_moves() else "#"
        finally:
            self.pop()
        return san

    def _san_without_check(self, uci: str) -> str:
        """SAN of a legal move given in canonical UCI, without the check or mate sign."""
        origin, target = uci[0:2], uci[2:4]
        piece = self.piece_at(SQUARES[origin])
        letter = piece.upper()
        if letter == "K" and self._is_castling(uci):
            return "O-O" if target[0] > origin[0] else "O-O-O"
        if letter == "P":
            capture = origin[0] + "x" if origin[0] != target[0] else ""
            promotion = "=" + uci[4].upper() if len(uci) == 5 else ""
            return capture + target + promotion
        san = letter
        if letter != "K":
            # Other pieces of the same kind that can go to the same square.
            rivals = [other[0:2] for other in self.moves_to(SQUARES[target], PIECE_TYPES[letter])
                      if other[0:2] != origin]
            if rivals:
                if all(square[0] != origin[0] for square in rivals):
                    san += origin[0]
                elif all(square[1] != origin[1] for square in rivals):
                    san += origin[1]
                else:
                    san += origin
        if self.piece_at(SQUARES[target]) is not None:
            san += "x"
        return san + target

    def _is_castling(self, uci: str) -> bool:
        """Is this legal king move castling?  It is when the king goes two files (e1g1) or
        onto its own rook (king takes rook, the Chess960 spelling)."""
        king = self.piece_at(SQUARES[uci[0:2]])
        if abs(ord(uci[2]) - ord(uci[0])) == 2:
            return True
        return self.piece_at(SQUARES[uci[2:4]]) == ("R" if king == "K" else "r")

    def parse_san(self, text: str) -> str:
        """The legal move a SAN text names, in UCI notation; the board is not changed.

        Besides standard SAN this reads what real exports contain: "0-0"/"0-0-0", "e8Q" and
        "e8=q", too much disambiguation ("Ngf3", "Ng1f3", "Ng1-f3"), check signs and glyphs
        after the move ("+ # ! ? !! ?? !? ?!"), a plain UCI move ("g1f3", "e1g1", "e1h1" in
        Chess960), and a null move ("--", "Z0", "0000"), returned as "0000".

        :raises InvalidMoveError: if the text is not a move in any of these notations.
        :raises IllegalMoveError: if no legal move fits (a null move in check included).
        :raises AmbiguousMoveError: if several legal moves fit.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be a string, not {type(text).__name__}")
        core = text.strip().rstrip(SAN_SUFFIX_CHARS)
        if core in NULL_SAN:
            if self.is_check():
                raise IllegalMoveError(f"illegal move {text!r}: no null move in check in {self.fen()}")
            return NULL_MOVE
        kingside = CASTLING_SAN.get(core)
        if kingside is not None:
            return self._find_castling(text, kingside)
        match = SAN_PATTERN.fullmatch(core)
        if match is None:
            raise InvalidMoveError(f"invalid move {text!r}: not SAN (like Nf3, exd5, e8=Q, O-O) "
                                   f"nor UCI (like g1f3)")
        letter, file, rank, target, promotion = match.groups()
        promotion = promotion.lower() if promotion else ""
        if letter is None and file and rank:
            return self._find_uci(text, file + rank + target + promotion)

        letter = letter or "P"
        found: List[str] = []
        unpromoted = False
        # Castling is left out: it is written O-O, never as a king move.
        for uci in self.moves_to(SQUARES[target], PIECE_TYPES[letter]):
            if (file and uci[0] != file) or (rank and uci[1] != rank):
                continue
            if letter == "P" and not file and uci[0] != target[0]:
                continue  # a pawn capture names the pawn's file
            if uci[4:] != promotion:
                unpromoted = unpromoted or not promotion
                continue
            found.append(uci)
        if len(found) == 1:
            return found[0]
        if found:
            names = ", ".join(self._san_without_check(uci) for uci in found)
            raise AmbiguousMoveError(f"ambiguous move {text!r}: it fits {names} in {self.fen()}")
        if unpromoted:
            raise IllegalMoveError(f"illegal move {text!r}: a pawn reaching the last rank must "
                                   f"promote (add =Q, =R, =B or =N) in {self.fen()}")
        raise IllegalMoveError(f"illegal move {text!r} in {self.fen()}")

    def _find_castling(self, text: str, kingside: bool) -> str:
        """The legal castling move to the king side (or queen side)."""
        for uci in self.legal_moves():
            if self.piece_at(SQUARES[uci[0:2]]) in ("K", "k") and self._is_castling(uci):
                if (uci[2] > uci[0]) == kingside:
                    return uci
        side = "king" if kingside else "queen"
        raise IllegalMoveError(f"illegal move {text!r}: cannot castle on the {side} side in {self.fen()}")

    def _find_uci(self, text: str, uci: str) -> str:
        """The legal move named by its squares (UCI or long algebraic without a piece letter)."""
        try:
            return self.move_uci(self.parse_uci(uci))
        except ValueError:
            pass
        if any(other.startswith(uci) and len(other) == 5 for other in self.legal_moves()):
            raise IllegalMoveError(f"illegal move {text!r}: a pawn reaching the last rank must "
                                   f"promote (add q, r, b or n) in {self.fen()}")
        raise IllegalMoveError(f"illegal move {text!r} in {self.fen()}")

    def push_san(self, text: str) -> str:
        """Play the move a SAN text names (see parse_san for what is read); returns it in UCI.

        :raises InvalidMoveError, IllegalMoveError, AmbiguousMoveError: as parse_san; the
            board is unchanged then.
        """
        uci = self.parse_san(text)
        self.push_move(uci)
        return uci

    def push_move(self, uci: str) -> None:
        """Play a move in UCI notation, the null move "0000" included.

        :raises ValueError: if it is malformed or not legal (a null move in check).
        """
        if uci == NULL_MOVE:
            self.push_null()
        else:
            self.push_uci(uci)

    def line_san(self, moves: Iterable[str]) -> List[str]:
        """The moves of a line (UCI) from this position in SAN; the board is left as it is.

        :raises IllegalMoveError: at the first move that is not legal where it stands.
        """
        return line_text(self, moves, Board.san, Board.push_uci)

    def push_uci_moves(self, moves: List[str]) -> None:
        """Play several moves; on an illegal one, the board is left before it.

        :raises ValueError: naming the first bad move.
        """
        for text in moves:
            self.push_uci(text)


Move = TypeVar("Move")


def line_text(board: CoreBoard, moves: Iterable[Move], write: Callable[[CoreBoard, Move], str],
              play: Callable[[CoreBoard, Move], None]) -> List[str]:
    """Each move of a line from board's position as write(position, move) puts it, the line
    played with play on a copy (board is left as it is): the one walk behind SAN lines and
    principal variations."""
    walker = board.copy()
    out = []
    for move in moves:
        out.append(write(walker, move))
        play(walker, move)
    return out


def board_from_fen(fen: str, chess960: Optional[bool] = None) -> Board:
    """A Board from a FEN, standard or Chess960 as chess960 says; with None, standard chess
    unless the castling rights fit only Chess960 (as the PGN reader takes a [FEN] tag without
    a [Variant]), for a position whose origin is not known.

    :raises ValueError: if the FEN is malformed or illegal (the standard reading's message).
    """
    if chess960 is not None:
        return Board(fen, chess960=chess960)
    try:
        return Board(fen)
    except ValueError as error:
        try:
            return Board(fen, chess960=True)
        except ValueError:
            raise error from None
