"""A chess board with the feel of python-chess, backed by the Cython core.

Moves are UCI strings ("e2e4", "e7e8q"; castling "e1g1", or king-takes-rook "e1h1" in
Chess960).  Draw rules follow FIDE: threefold repetition and the fifty-move rule can be
claimed, fivefold repetition and the seventy-five-move rule end the game by themselves.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import List, Optional

from ..ext._core import STARTING_FEN, CoreBoard

__all__ = ["Board", "Outcome", "Termination", "STARTING_FEN"]


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

    def push_uci_moves(self, moves: List[str]) -> None:
        """Play several moves; on an illegal one, the board is left before it.

        :raises ValueError: naming the first bad move.
        """
        for text in moves:
            self.push_uci(text)
