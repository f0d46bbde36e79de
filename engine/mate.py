"""Mate proofs: exact answers to "does this move force mate within N moves?".

The proofs come from a full-width AND/OR search in the C core (ext/mate.pxi) with no pruning
that could hide a mate, so "mates within N" and "does not mate within N" are both certain.
The search (engine/search.py, `go mate`), the playing levels, the puzzles and the hints use
them; engine.trainer.puzzles re-exports them (its public names).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..ext._core import MAX_MATE_MOVES_PY, MateSearch, StopToken

from .board import Board

__all__ = ["mating_moves", "shortest_mate", "mate_line", "proven_mate_line",
           "MateSearchInterrupted", "MAX_MATE_MOVES"]

# The longest mate a proof looks for, in moves.
MAX_MATE_MOVES = MAX_MATE_MOVES_PY


class MateSearchInterrupted(Exception):
    """The proof was cut short by a node limit, a time limit or a stop request."""


def _prove(solver: MateSearch, move: int, moves_left: int) -> bool:
    result = solver.move_mates(move, moves_left)
    if result is None:
        raise MateSearchInterrupted()
    return result


def _check_moves(n: int) -> None:
    if not isinstance(n, int) or not 1 <= n <= MAX_MATE_MOVES:
        raise ValueError(f"the number of moves must be in 1..{MAX_MATE_MOVES}, not {n!r}")


def mating_moves(board: Board, n: int, solver: Optional[MateSearch] = None,
                 node_limit: int = 0, stop: Optional[StopToken] = None) -> List[Tuple[str, int]]:
    """Every legal move that forces mate within n moves, with its shortest mate, in the order
    of shortest mate first.

    :raises ValueError: if n is not in 1..MAX_MATE_MOVES.
    :raises MateSearchInterrupted: if node_limit (0: none) or the stop token ends the proof.
    """
    _check_moves(n)
    solver = solver or MateSearch()
    solver.set_position(board)
    solver.reset(node_limit, stop)
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


def _shortest(solver: MateSearch, moves: List[int], n: int) -> Optional[Tuple[int, int]]:
    """(move, k) of a fastest mate within n from the solver's position, or None."""
    for k in range(1, n + 1):
        for move in moves:
            if _prove(solver, move, k):
                return move, k
    return None


def shortest_mate(board: Board, n: int, solver: Optional[MateSearch] = None,
                  node_limit: int = 0, stop: Optional[StopToken] = None,
                  time_limit_ms: Optional[float] = None) -> Optional[Tuple[int, int]]:
    """(move code, k) of a move that mates in the fewest moves k <= n, or None if the side to
    move cannot force mate within n moves.

    :raises ValueError: if n is not in 1..MAX_MATE_MOVES.
    :raises MateSearchInterrupted: when a limit or the stop token ends the proof.
    """
    _check_moves(n)
    solver = solver or MateSearch()
    solver.set_position(board)
    solver.reset(node_limit, stop, time_limit_ms)
    return _shortest(solver, board.legal_move_codes(), n)


def proven_mate_line(board: Board, n: int, solver: MateSearch, node_limit: int = 0,
                     stop: Optional[StopToken] = None,
                     time_limit_ms: Optional[float] = None) -> Optional[Tuple[int, List[int]]]:
    """(k, line of move codes) of a shortest forced mate in k <= n moves; None when there is
    no mate within n or the proof did not finish within the limits (node_limit nodes, 0: none;
    time_limit_ms; the stop token).  The limits bound the line's extraction too: when they end
    it, the line is cut short (it always holds at least the proven first move).
    solver.nodes is then the number of nodes of the whole proof.
    """
    try:
        found = shortest_mate(board, n, solver, node_limit=node_limit, stop=stop,
                              time_limit_ms=time_limit_ms)
    except MateSearchInterrupted:
        return None
    if found is None:
        return None
    move, k = found
    line = [move]
    try:
        _extend_line(board, move, k, solver, line)
    except MateSearchInterrupted:
        pass
    return k, line


def mate_line(board: Board, move: int, k: int, solver: MateSearch, node_limit: int = 0,
              stop: Optional[StopToken] = None) -> List[int]:
    """A principal line of a proven mate in k starting with move: the defender always picks
    a reply that postpones mate longest, the attacker a fastest mate.  Cut short (at least
    the first move) when node_limit or the stop token ends it."""
    solver.set_position(board)
    solver.reset(node_limit, stop)
    line = [move]
    try:
        _extend_line(board, move, k, solver, line)
    except MateSearchInterrupted:
        pass
    return line


def _extend_line(board: Board, move: int, k: int, solver: MateSearch, line: List[int]) -> None:
    """Append the rest of the mate in k that starts with line == [move], within the solver's
    current limits (raises MateSearchInterrupted when they end it)."""
    walker = board.copy()
    walker.push_code(move)
    remaining = k - 1
    while remaining > 0:
        replies = walker.legal_move_codes()
        if not replies:
            break
        best_reply, best_distance = replies[0], -1
        for reply in replies:
            walker.push_code(reply)
            solver.set_position(walker)
            found = _shortest(solver, walker.legal_move_codes(), remaining)
            walker.pop()
            distance = found[1] if found else None
            if distance is not None and distance > best_distance:
                best_reply, best_distance = reply, distance
        walker.push_code(best_reply)
        line.append(best_reply)
        solver.set_position(walker)
        found = _shortest(solver, walker.legal_move_codes(), remaining)
        if found is None:
            break
        attack, remaining = found[0], found[1] - 1
        walker.push_code(attack)
        line.append(attack)
