"""Mate puzzles: exact proofs that a move forces mate within N moves.

The proofs come from a full-width AND/OR search in the C core (ext/mate.pxi) with no pruning
that could hide a mate, so "mates within N" and "does not mate within N" are both certain.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..ext._core import MateSearch

from .board import Board

__all__ = ["mating_moves", "shortest_mate", "mate_line", "proven_mate_line",
           "MateSearchInterrupted"]


class MateSearchInterrupted(Exception):
    """The proof was cut short by a node limit or a stop request."""


def _prove(solver: MateSearch, move: int, moves_left: int) -> bool:
    result = solver.move_mates(move, moves_left)
    if result is None:
        raise MateSearchInterrupted()
    return result


def mating_moves(board: Board, n: int, solver: Optional[MateSearch] = None,
                 node_limit: int = 0) -> List[Tuple[str, int]]:
    """Every legal move that forces mate within n moves, with its shortest mate, in the order
    of shortest mate first.

    :raises ValueError: if n < 1.
    :raises MateSearchInterrupted: if node_limit (0: none) or a stop request ends the proof.
    """
    if n < 1:
        raise ValueError("the number of moves must be at least 1")
    solver = solver or MateSearch()
    solver.set_position(board)
    solver.reset(node_limit)
    found = []
    for move in board.legal_move_codes():
        if not _prove(solver, move, n):
            continue
        shortest = n
        for k in range(1, n):
            if _prove(solver, move, k):
                shortest = k
                break
        found.append((board.move_uci(move), shortest, move))
    found.sort(key=lambda item: item[1])
    return [(uci, k) for uci, k, _ in found]


def shortest_mate(board: Board, n: int, solver: Optional[MateSearch] = None,
                  node_limit: int = 0,
                  time_limit_ms: Optional[float] = None) -> Optional[Tuple[int, int]]:
    """(move code, k) of a move that mates in the fewest moves k <= n, or None if the side to
    move cannot force mate within n moves.

    :raises MateSearchInterrupted: if node_limit (0: none), time_limit_ms (None: none) or a
        stop request ends the proof.
    """
    solver = solver or MateSearch()
    solver.set_position(board)
    solver.reset(node_limit, time_limit_ms)
    moves = board.legal_move_codes()
    for k in range(1, n + 1):
        for move in moves:
            if _prove(solver, move, k):
                return move, k
    return None


def proven_mate_line(board: Board, n: int, solver: MateSearch, node_limit: int = 0,
                     time_limit_ms: Optional[float] = None) -> Optional[Tuple[int, List[int]]]:
    """(k, line of move codes) of a shortest forced mate in k <= n moves; None when there is
    no mate within n or the proof did not finish within node_limit nodes / time_limit_ms."""
    try:
        found = shortest_mate(board, n, solver, node_limit=node_limit, time_limit_ms=time_limit_ms)
        if found is None:
            return None
        move, k = found
        return k, mate_line(board, move, k, solver)
    except MateSearchInterrupted:
        return None


def mate_line(board: Board, move: int, k: int, solver: MateSearch) -> List[int]:
    """A principal line of a proven mate in k starting with move: the defender always picks
    a reply that postpones mate longest, the attacker a fastest mate."""
    walker = board.copy()
    line = [move]
    walker.push_code(move)
    remaining = k - 1
    while remaining > 0:
        replies = walker.legal_move_codes()
        if not replies:
            break
        solver.set_position(walker)
        solver.reset(0)
        best_reply, best_distance = replies[0], -1
        for reply in replies:
            walker.push_code(reply)
            distance = _fastest_mate(walker, remaining, solver)
            walker.pop()
            solver.set_position(walker)
            if distance is not None and distance > best_distance:
                best_reply, best_distance = reply, distance
        walker.push_code(best_reply)
        line.append(best_reply)
        found = shortest_mate(walker, remaining, solver)
        if found is None:
            break
        attack, remaining = found[0], found[1] - 1
        walker.push_code(attack)
        line.append(attack)
    return line


def _fastest_mate(board: Board, n: int, solver: MateSearch) -> Optional[int]:
    found = shortest_mate(board, n, solver)
    return found[1] if found else None
