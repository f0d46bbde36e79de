"""Syzygy endgame tablebases: exact results for positions of few pieces.

A thin layer on the core's reader (ext/syzygy.pxi): it finds the tables in a list of folders,
probes an engine.Board, and ranks the legal moves of a position the way the online tablebase
sites list them.  Values follow python-chess's ``chess.syzygy``:

- WDL, from the side to move's view: 2 win, 1 win that the fifty-move rule turns into a draw
  (a "cursed" win), 0 draw, -1 loss that the fifty-move rule saves ("blessed" loss), -2 loss,
  as if the halfmove clock were zero;
- DTZ: the plies to the next capture or pawn move with best play (positive when the side to
  move wins, negative when it loses, beyond +-100 for cursed wins and blessed losses), with
  the format's rounding (it may be one ply more than the true distance).

Positions with castling rights are not in the tables; probes then return None, as they do
for a missing table.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Union

from ..ext._core import SyzygyTables
from .board import Board

__all__ = ["Tablebase", "MoveResult", "split_paths", "keep_result_moves", "fifty_move_result",
           "best_keeping_move", "WDL_NAMES", "FIFTY_MOVE_PLIES"]

WDL_NAMES = {2: "win", 1: "cursed win", 0: "draw", -1: "blessed loss", -2: "loss"}
# The fifty-move rule: a win must reach its zeroing move within this many plies of the clock.
FIFTY_MOVE_PLIES = 100


def split_paths(paths: Union[str, os.PathLike, Iterable[Union[str, os.PathLike]], None]) -> List[str]:
    """Folders from a SyzygyPath value (separated by os.pathsep: ':' on Unix, ';' on Windows)
    or a list of folders; empty entries and the UCI placeholder ``<empty>`` are dropped."""
    if paths is None:
        return []
    if isinstance(paths, (str, os.PathLike)):
        text = os.fspath(paths)
        if text.strip() in ("", "<empty>"):
            return []
        parts = text.split(os.pathsep)
    else:
        parts = [os.fspath(p) for p in paths]
    return [p.strip() for p in parts if p.strip() and p.strip() != "<empty>"]


@dataclass(frozen=True)
class MoveResult:
    """One legal move of a tablebase position, judged by the tables.

    ``wdl`` and ``dtz`` are the mover's: the result the move keeps and the plies to the next
    zeroing move counted from before it (1 for a move that zeroes or mates, as Stockfish
    counts them).  ``after_wdl`` and ``after_dtz`` are the probes of the position after the
    move, from the opponent's view (what the online sites show per move)."""

    move: str
    san: str
    wdl: int
    dtz: int
    after_wdl: int
    after_dtz: int
    zeroing: bool
    checkmate: bool
    stalemate: bool

    @property
    def result(self) -> str:
        """The mover's result in words (win, cursed win, draw, blessed loss, loss)."""
        return WDL_NAMES[self.wdl]

    def fifty_move_result(self, halfmove_clock: int) -> int:
        """The mover's result under the fifty-move rule (1 win, 0 draw, -1 loss) when the move
        is played at `halfmove_clock` (a zeroing move starts the clock again)."""
        if self.checkmate:
            return 1
        clock = 0 if self.zeroing else halfmove_clock + 1
        return -fifty_move_result(self.after_wdl, self.after_dtz, clock)


def fifty_move_result(wdl: int, dtz: Optional[int], halfmove_clock: int) -> int:
    """The side to move's result under the fifty-move rule (1 win, 0 draw, -1 loss) from the
    tables' WDL and DTZ and the halfmove clock: cursed wins and blessed losses are draws, and
    so is a win whose zeroing move no longer fits in the plies the clock leaves (Stockfish's
    rule; the format's DTZ rounding can make this one ply early at the very edge)."""
    if abs(wdl) < 2:
        return 0
    if dtz is not None and abs(dtz) + halfmove_clock > FIFTY_MOVE_PLIES:
        return 0
    return 1 if wdl > 0 else -1


def _dtz_of_zeroing(wdl: int) -> int:
    if wdl == 0:
        return 0
    return (1 if wdl > 0 else -1) * (1 if abs(wdl) == 2 else 101)


def _rank_key(result: MoveResult):
    # Better result first; among wins the shortest DTZ (mates first), among losses the
    # longest resistance (the most negative DTZ); draws in move order.
    if result.wdl > 0:
        return (-result.wdl, 0 if result.checkmate else 1, result.dtz)
    if result.wdl < 0:
        return (-result.wdl, 0, result.dtz)
    return (0, 0, 0)


class Tablebase:
    """The Syzygy tables of one or more folders.

    :param paths: a list of folders, or one string of folders separated by os.pathsep.
    Folders that do not exist and files that are not valid tables are listed in ``problems``
    ("path: reason") and left out; the other tables are used.
    """

    def __init__(self, paths=None) -> None:
        self.folders = split_paths(paths)
        self.core = SyzygyTables(self.folders)

    @property
    def tables(self) -> int:
        """Materials with a WDL table."""
        return self.core.wdl_count

    @property
    def dtz_tables(self) -> int:
        return self.core.dtz_count

    @property
    def max_pieces(self) -> int:
        """The largest table's pieces, kings included (0 without tables)."""
        return self.core.max_pieces

    @property
    def problems(self) -> List[str]:
        return list(self.core.problems)

    def __len__(self) -> int:
        return self.core.wdl_count

    def probe_wdl(self, board: Board) -> Optional[int]:
        """WDL of the position (-2..2, side to move's view), or None when not in the tables."""
        return self.core.probe_wdl(board)

    def probe_dtz(self, board: Board) -> Optional[int]:
        """DTZ of the position (python-chess's convention), or None when not in the tables."""
        return self.core.probe_dtz(board)

    def rank_moves(self, board: Board) -> Optional[List[MoveResult]]:
        """Every legal move with its result, best first; None when the position or a position
        after one of its moves is not in the tables (or the game is over)."""
        if self.probe_wdl(board) is None:
            return None
        results = []
        for move in board.legal_moves():
            after = board.copy()
            after.push_uci(move)
            checkmate = after.is_checkmate()
            stalemate = after.is_stalemate()
            after_wdl = self.probe_wdl(after)
            after_dtz = self.probe_dtz(after)
            if after_wdl is None or after_dtz is None:
                return None
            zeroing = after.halfmove_clock == 0
            wdl = -after_wdl
            if checkmate:
                dtz = 1
            elif zeroing:
                dtz = _dtz_of_zeroing(wdl)
            elif after_dtz == 0:
                dtz = 0
            else:
                dtz = -after_dtz + (1 if after_dtz < 0 else -1)
            results.append(MoveResult(move, board.san(move), wdl, dtz, after_wdl, after_dtz,
                                      zeroing, checkmate, stalemate))
        results.sort(key=_rank_key)
        return results


def keep_result_moves(ranking: Sequence[MoveResult], rule50: int, fifty_move_rule: bool = True,
                      repeated: bool = False, repeating: Iterable[str] = (),
                      progress: bool = False) -> List[str]:
    """The root moves a search may choose among so that it never spoils the tables' result.

    Wins: with the fifty-move rule, the winning moves whose DTZ still fits in the fifty moves
    the halfmove clock ``rule50`` leaves (or, when none fits or a position has already
    occurred twice since the last capture or pawn move, ``repeated``, the fastest ones);
    without it, every move that keeps a win (cursed wins count as wins).  With ``progress``,
    only the fastest wins (by DTZ, one ply of slack for the format's rounding): the DTZ then
    falls at every move whatever the defence, so the win comes in about DTZ plies instead of
    at the edge of the fifty moves.  A winning move in ``repeating`` (it makes a position of
    the game occur a third time) is left out while another win remains.  Draws: the drawing
    moves.  Losses: every move, unless the fifty-move rule is close enough to save the game,
    then the moves that resist longest.  Without ``progress`` this is Stockfish's root
    filter (tbprobe.cpp)."""
    if not ranking:
        return []

    def result(r: MoveResult) -> int:
        if fifty_move_rule:
            return r.wdl
        return 2 if r.wdl > 0 else -2 if r.wdl < 0 else 0

    best = max(result(r) for r in ranking)
    if best > 0:
        wins = [r for r in ranking if result(r) == best]
        avoid = set(repeating)
        fresh = [r for r in wins if r.move not in avoid]
        wins = fresh or wins
        fastest = min(r.dtz for r in wins)
        if progress:
            limit = fastest + 1
            if fifty_move_rule and fastest + rule50 <= 99:
                limit = min(limit, 99 - rule50)
            return [r.move for r in wins if r.dtz <= limit]
        if not fifty_move_rule:
            return [r.move for r in wins]
        limit = 99 - rule50 if fastest + rule50 <= 99 and not repeated else fastest
        return [r.move for r in wins if r.dtz <= limit]
    if best == 0:
        return [r.move for r in ranking if result(r) == 0]
    losses = [r for r in ranking if result(r) == best]
    if fifty_move_rule:
        longest = min(r.dtz for r in losses)
        if -2 * longest + rule50 >= 100:
            return [r.move for r in losses if r.dtz == longest]
    return [r.move for r in losses]


def best_keeping_move(ranking: Sequence[MoveResult], rule50: int) -> MoveResult:
    """The tables' best move under the fifty-move rule: the first of the ranking (best result,
    fastest win, longest resistance) among the moves keep_result_moves allows with progress
    (a win's DTZ then falls at every move)."""
    allowed = set(keep_result_moves(ranking, rule50, progress=True))
    return next((r for r in ranking if r.move in allowed), ranking[0])
