"""Puzzles: exact proofs that a move forces mate within N moves, and a judge of answers.

The proofs (engine/mate.py, re-exported here) come from a full-width AND/OR search in the C
core (ext/mate.pxi) with no pruning that could hide a mate, so "mates within N" and "does not
mate within N" are both certain.

`Puzzle` judges a player's answer move by move.  A puzzle is given as in the lichess puzzle
database (a position and a UCI line whose first move is the opponent's, then the solver's
moves alternating with the forced replies) or as a position and a goal ("mate in N", "win
material").  A mate puzzle accepts every move that still mates within the moves left (the
exact proof); a material puzzle accepts every move whose outcome is as good as the
solution's, by a search of the position after it: decisive when the solution is decisive
(a mate, or at least DECISIVE_CP), otherwise a score no more than MATERIAL_MARGIN_CP below
the solution's.  The reply is the solution's while the player follows it, the engine's
otherwise (for a mate, the defence that postpones mate longest).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ...ext._core import MateSearch

from . import hint_text
from ..board import Board, board_from_fen
from ..mate import (MAX_MATE_MOVES, MateSearchInterrupted, mate_line, mating_moves,
                   proven_mate_line, shortest_mate)
from ..tablebase import best_keeping_move

__all__ = ["mating_moves", "shortest_mate", "mate_line", "proven_mate_line",
           "MateSearchInterrupted", "MAX_MATE_MOVES", "Puzzle", "PuzzleError", "Verdict",
           "JUDGE_NODES", "DECISIVE_CP", "MATERIAL_MARGIN_CP"]

# A material puzzle's judgement: the node budget of the search after each tried move, the
# score (normalised centipawns, engine/review/accuracy.py) from which a position counts as decisive,
# and how far below the solution's score a move may stay and still count as as good.
JUDGE_NODES = 200_000
DECISIVE_CP = 400
MATERIAL_MARGIN_CP = 100
MATE_JUDGE_NODES = 20_000_000


class PuzzleError(ValueError):
    """A puzzle that cannot be set up (bad FEN, an illegal or malformed move, a bad goal) or
    a tried move that is not legal or not readable; says what was wrong."""


@dataclass(frozen=True)
class Verdict:
    """The judgement of one tried move: right or wrong, why, and what happens next."""

    right: bool
    move: str                 # the tried move, UCI
    san: str
    reason: str               # one sentence (engine/trainer/hint_text.py)
    reply: Optional[str]      # the opponent's answer (UCI), None when the puzzle is over
    reply_san: Optional[str]
    solved: bool              # the puzzle is complete after this move (and no reply)
    followed_solution: bool   # the move is the stored solution's
    keeping_move: Optional[str] = None   # a wrong move in the tables: a move that kept the
    keeping_san: Optional[str] = None    # best result (UCI and SAN), else None


GOAL_PATTERN = re.compile(r"\s*(?:mate\s*in\s*(\d+)|(win\s*material))\s*$", re.IGNORECASE)


def _parse_goal(goal: str) -> Tuple[str, Optional[int]]:
    match = GOAL_PATTERN.match(goal or "")
    if not match:
        raise PuzzleError(f"unknown goal {goal!r}: say 'mate in N' or 'win material'")
    if match.group(1) is not None:
        n = int(match.group(1))
        if not 1 <= n <= MAX_MATE_MOVES:
            raise PuzzleError(f"mate in {n}: N must be in 1..{MAX_MATE_MOVES}")
        return "mate", n
    return "material", None


class Puzzle:
    """A puzzle being solved: `try_move` judges the player's move and, when it is right,
    plays it and the reply on `board`.

    Puzzle(fen, moves): the lichess format (moves[0] is the opponent's move, played at once).
    Puzzle(fen, goal="mate in 2") or Puzzle(fen, goal="win material", length=2): a position
    with the player to move and a goal; for material, `length` player's moves.

    :raises PuzzleError: on a bad FEN, an illegal move in the line, a bad goal, or a line that
        does not reach its goal (a mate puzzle's line must end in checkmate).
    :raises MateSearchInterrupted: when a mate proof needs more than MATE_JUDGE_NODES nodes
        (also from judge and try_move).

    tablebase: an engine.tablebase.Tablebase; the positions it holds are judged by the tables
    (see the module docstring).
    """

    def __init__(self, fen: str, moves: Optional[Sequence[str]] = None, *,
                 goal: Optional[str] = None, length: int = 2, nodes: int = JUDGE_NODES,
                 tablebase=None) -> None:
        try:
            board = board_from_fen(fen)
        except ValueError as error:
            raise PuzzleError(f"bad FEN: {error}") from None
        self.fen = fen
        self.nodes = nodes
        self.tablebase = tablebase
        self.solution: List[str] = []
        if moves is not None:
            moves = list(moves.split() if isinstance(moves, str) else moves)
            if len(moves) < 2:
                raise PuzzleError("a lichess puzzle line needs the opponent's move and at least one answer")
            walker = board.copy()
            for index, move in enumerate(moves):
                try:
                    walker.push_uci(move)
                except ValueError:
                    raise PuzzleError(f"move {index + 1} of the line, {move!r}, is not legal") from None
            board.push_uci(moves[0])
            self.solution = moves[1:]
            self.kind = "mate" if walker.is_checkmate() else "material"
            if goal is not None:
                kind, n = _parse_goal(goal)
                if kind == "mate" and (self.kind != "mate" or (len(self.solution) + 1) // 2 > n):
                    raise PuzzleError(f"the line does not mate within {n} moves")
            self.moves_left = (len(self.solution) + 1) // 2
            if goal is not None and self.kind == "mate":
                self.moves_left = n          # a slower mate within the goal's N counts too
        else:
            if goal is None:
                raise PuzzleError("give the solution line (moves) or a goal")
            self.kind, n = _parse_goal(goal)
            if self.kind == "mate":
                self.moves_left = n
                if mating_moves(board, n, node_limit=MATE_JUDGE_NODES) == []:
                    raise PuzzleError(f"there is no mate in {n} here")
            else:
                if not 1 <= int(length) <= 20:
                    raise PuzzleError("length must be in 1..20 moves")
                self.moves_left = int(length)
        if not board.has_legal_moves():
            raise PuzzleError("the position has no legal move")
        self.board = board
        self.player = board.turn
        self.on_solution = True          # every move so far was the solution's
        self.solved = False
        self._searcher = None
        self._solver = MateSearch()
        # the solution's (or engine's) move's (cp, mate, reply) after it, to match
        self._reference: Optional[Tuple[Optional[int], Optional[int], Optional[str]]] = None
        self._reference_move: Optional[str] = None

    @property
    def solution_move(self) -> Optional[str]:
        """The stored solution's next move for the player (None off the solution)."""
        played = self._played()
        if not self.on_solution or played >= len(self.solution):
            return None
        return self.solution[played]

    def _played(self) -> int:
        """Plies of the solution played so far (the opponent's first move not counted)."""
        return len(self.board.move_stack()) - (1 if self.solution else 0)

    def _search(self):
        if self._searcher is None:
            from ..search import Searcher
            self._searcher = Searcher(16)
        return self._searcher

    def _score_after(self, move: str) -> Tuple[Optional[int], Optional[int], Optional[str]]:
        """(normalised cp, mate) from the player's view after move, and the opponent's best
        reply, by a search of the position after it."""
        after = self.board.copy()
        after.push_uci(move)
        if after.is_checkmate():
            return None, 0, None
        if not after.has_legal_moves() or after.is_insufficient_material():
            return 0, None, None
        searcher = self._search()
        result = searcher.search(after, nodes=self.nodes)
        if result.score_mate is not None:
            return None, -result.score_mate, result.best_move
        return -result.score_cp, None, result.best_move

    @staticmethod
    def _decisive(cp: Optional[int], mate: Optional[int]) -> bool:
        return (mate is not None and mate >= 0) or (cp is not None and cp >= DECISIVE_CP)

    @staticmethod
    def _value(cp: Optional[int], mate: Optional[int]) -> float:
        if mate is not None:
            return 100_000 - mate if mate >= 0 else -100_000 - mate
        return cp

    def _parse(self, move: str) -> str:
        try:
            return self.board.parse_san(move)
        except ValueError:
            raise PuzzleError(f"{move!r} is not a legal move here") from None

    def judge(self, move: str) -> Verdict:
        """Judges the player's move (UCI or SAN) without playing it: right or wrong, why,
        and the reply that would follow.

        :raises PuzzleError: if the puzzle is solved already or the move is not legal.
        """
        if self.solved:
            raise PuzzleError("the puzzle is already solved")
        uci = self._parse(move)
        san = self.board.san(uci)
        expected = self.solution_move
        followed = uci == expected
        keeping = self._tablebase_ranking(self.board)
        if keeping is not None:
            right, reason, reply, keep = self._judge_tablebase(uci, followed, keeping)
            if not right:
                return Verdict(False, uci, san, reason, None, None, False, followed,
                               keep.move, keep.san)
        elif self.kind == "mate":
            right, reason, reply = self._judge_mate(uci, followed)
        else:
            right, reason, reply = self._judge_material(uci, followed, expected)
        if not right:
            return Verdict(False, uci, san, reason, None, None, False, followed)
        after = self.board.copy()
        after.push_uci(uci)
        if self.moves_left <= 1 or not after.has_legal_moves() or reply is None:
            return Verdict(True, uci, san, reason, None, None, True, followed)
        return Verdict(True, uci, san, reason, reply, after.san(reply), False, followed)

    def try_move(self, move: str) -> Verdict:
        """Judges the player's move (UCI or SAN); a right move is played with its reply, a
        wrong one changes nothing, so the player may try again.

        :raises PuzzleError: if the puzzle is solved already or the move is not legal.
        """
        verdict = self.judge(move)
        if not verdict.right:
            return verdict
        self.board.push_uci(verdict.move)
        self.moves_left -= 1
        self.on_solution = self.on_solution and verdict.followed_solution
        self._reference = None
        if verdict.solved:
            self.solved = True
        else:
            self.board.push_uci(verdict.reply)
        return verdict

    def _tablebase_ranking(self, board: Board):
        """The tables' ranking of board's moves (engine.tablebase.rank_moves), or None without
        tables or when they do not decide the position (castling rights, a table missing)."""
        if self.tablebase is None or board.castling_fen() != "-":
            return None
        return self.tablebase.rank_moves(board) or None

    def _judge_tablebase(self, uci: str, followed: bool, ranking):
        """(right, reason, reply, the move that keeps the best result) by the tables alone."""
        results = {r.move: r.fifty_move_result(self.board.halfmove_clock) for r in ranking}
        best = max(results.values())
        keep = best_keeping_move(ranking, self.board.halfmove_clock)
        if results[keep.move] != best:
            keep = next(r for r in ranking if results[r.move] == best)
        tried = next(r for r in ranking if r.move == uci)
        if results[uci] < best:
            key = "wrong_tb_throws_win" if best > 0 else "wrong_tb_loses_draw"
            return False, hint_text.text(key, keep=keep.san), None, keep
        if tried.checkmate:
            return True, hint_text.text("right_mate"), None, keep
        after = self.board.copy()
        after.push_uci(uci)
        played = self._played()
        if followed and self.on_solution and played + 1 < len(self.solution):
            reply = self.solution[played + 1]
        elif not after.has_legal_moves():
            reply = None
        else:
            defence = self._tablebase_ranking(after)
            if defence is not None:
                reply = best_keeping_move(defence, after.halfmove_clock).move
            else:
                reply = self._search().search(after, nodes=self.nodes).best_move
        key = {1: "right_tb_win", 0: "right_tb_draw", -1: "right_tb_loss"}[best]
        return True, hint_text.text(key), reply, keep

    def _judge_mate(self, uci: str, followed: bool):
        after = self.board.copy()
        after.push_uci(uci)
        if after.is_checkmate():
            return True, hint_text.text("right_mate"), None
        left = self.moves_left
        if left <= 1:
            return False, hint_text.text("wrong_no_mate", n=left), None
        self._solver.set_position(self.board)
        self._solver.reset(MATE_JUDGE_NODES)
        mates = self._solver.move_mates(self.board.parse_uci(uci), left)
        if mates is None:
            raise MateSearchInterrupted()
        if not mates:
            return False, hint_text.text("wrong_no_mate", n=left), None
        played = self._played()
        if followed and played + 1 < len(self.solution):
            reply = self.solution[played + 1]
        else:
            reply = self._longest_defence(after, left - 1)
        return True, hint_text.text("right_still_mates", n=left), reply

    def _longest_defence(self, board: Board, left: int) -> str:
        """The reply after which mate takes longest (within left more moves)."""
        best, best_distance = None, -1
        for reply in board.legal_move_codes():
            board.push_code(reply)
            found = shortest_mate(board, left, self._solver, node_limit=MATE_JUDGE_NODES)
            board.pop()
            distance = found[1] if found else left + 1
            if distance > best_distance:
                best, best_distance = reply, distance
        return board.move_uci(best)

    def _judge_material(self, uci: str, followed: bool, expected: Optional[str]):
        after = self.board.copy()
        after.push_uci(uci)
        if after.is_checkmate():
            return True, hint_text.text("right_mate"), None
        if self._reference is None or not self.on_solution:
            reference_move = expected
            if reference_move is None:
                result = self._search().search(self.board, nodes=self.nodes)
                reference_move = result.best_move
            self._reference_move = reference_move
            self._reference = self._score_after(reference_move)
        ref_cp, ref_mate, _ = self._reference
        # the reference move itself is judged by its own search: a second search of the same
        # move could land on the other side of DECISIVE_CP
        cp, mate, engine_reply = (self._reference if uci == self._reference_move
                                  else self._score_after(uci))
        if self._decisive(ref_cp, ref_mate):
            right = self._decisive(cp, mate)
        else:
            right = self._value(cp, mate) >= self._value(ref_cp, ref_mate) - MATERIAL_MARGIN_CP
        if not right:
            if engine_reply is not None:
                reason = hint_text.text("wrong_refuted", reply=after.san(engine_reply),
                                        score=_score_words(cp, mate))
            else:
                reason = hint_text.text("wrong_draws")
            return False, reason, None
        played = self._played()
        if followed and self.on_solution and played + 1 < len(self.solution):
            reply = self.solution[played + 1]
        else:
            reply = engine_reply
        return True, hint_text.text("right_keeps_win" if self._decisive(cp, mate) else "right_keeps_edge"), reply


def _score_words(cp: Optional[int], mate: Optional[int]) -> str:
    if mate is not None:
        return hint_text.text("score_mated", n=-mate) if mate < 0 else hint_text.text("score_mate", n=mate)
    return f"{cp / 100:+.1f}"
