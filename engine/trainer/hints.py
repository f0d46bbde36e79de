"""Hints: a good move in a game with one sentence on why, and a puzzle's hints in steps.

`game_hint(board)` is what `scacco hint` prints.  A forced mate (proven exactly, up to
HINT_MATE_MOVES moves) is always the hint; otherwise the move comes from a search on a node
budget (HINT_NODES by default, well under a second; or the budget of the level of a given
rating, searched at full strength: the move such a player can find).  The sentence says
which threat the move makes or meets: the opponent's threat is the best move the opponent
would have if it were their turn again (a null move), and it counts when it would win
material or mate and the hinted move takes it away; the move's own threat is found the same
way after it.  In a position the Syzygy tables hold (with a Tablebase given), the hint is a
move that keeps the best result under the fifty-move rule (engine.tablebase.rank_moves: the
fastest win by DTZ, a move that keeps the draw, the longest resistance), unless a proven mate
is found first.  All sentences come from engine/trainer/hint_text.py.

`puzzle_hints(fen, moves)` gives a puzzle's three hints, each saying more: the theme, the
piece that moves, the move.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from ...ext._core import MateSearch

from . import hint_text
from ..board import Board, board_from_fen
from ..levels import level_for_elo
from ..mate import proven_mate_line
from ..search import Searcher
from ..tablebase import best_keeping_move, fifty_move_result

__all__ = ["GameHint", "game_hint", "tablebase_hint", "puzzle_hints", "HINT_NODES",
           "HINT_MATE_MOVES", "THEME_PRIORITY"]

HINT_NODES = 150_000
HINT_MATE_MOVES = 3
HINT_MATE_NODES = 300_000
THREAT_NODES = 20_000
# A threat counts when it would gain at least this much (normalised centipawns: half a
# pawn).
THREAT_GAIN_CP = 40
PIECE_NAMES_KEYS = {"p": "piece:p", "n": "piece:n", "b": "piece:b", "r": "piece:r",
                    "q": "piece:q", "k": "piece:k"}
# The theme a first hint names when a puzzle has several: the most telling first.
THEME_PRIORITY = ["mateIn1", "mateIn2", "mateIn3", "mateIn4", "mateIn5", "smotheredMate",
                  "backRankMate", "doubleCheck", "fork", "skewer", "pin", "discoveredAttack",
                  "trappedPiece", "hangingPiece", "attraction", "deflection", "underPromotion",
                  "promotion", "enPassant", "castling", "sacrifice", "quietMove", "mate",
                  "pawnEndgame", "rookEndgame", "bishopEndgame", "knightEndgame", "queenEndgame",
                  "queenRookEndgame"]


@dataclass(frozen=True)
class GameHint:
    """A hinted move (UCI and SAN) and the sentence on why."""

    move: str
    san: str
    why: str
    mate_in: Optional[int] = None


def _normalised(result) -> float:
    """A search result's score from the mover's view, normalised cp; mates far out."""
    if result.score_mate is not None:
        return 100_000.0 if result.score_mate > 0 else -100_000.0
    return result.score_cp


def _threat(searcher: Searcher, board: Board) -> Optional[tuple]:
    """(move, gain) of what the side not to move would play if it could move again, when
    that gains at least THREAT_GAIN_CP on the current evaluation; None otherwise or in
    check."""
    if board.is_check():
        return None
    static = searcher.search(board, nodes=THREAT_NODES)
    passed = board.copy()
    passed.push_null()
    if not passed.has_legal_moves():
        return None
    result = searcher.search(passed, nodes=THREAT_NODES)
    if result.best_move is None:
        return None
    gain = _normalised(result) + _normalised(static)
    if gain < THREAT_GAIN_CP:
        return None
    return result.best_move, result.score_mate, passed


def _threat_still_works(searcher: Searcher, board: Board, after: Board, threat: str) -> bool:
    """Whether the opponent's threat, played after our move, still gains THREAT_GAIN_CP on
    the evaluation before our move (the opponent's view)."""
    if threat not in after.legal_moves():
        return False
    before = -_normalised(searcher.search(board, nodes=THREAT_NODES))
    walker = after.copy()
    walker.push_uci(threat)
    if walker.is_checkmate():
        return True
    if not walker.has_legal_moves():
        return False
    return -_normalised(searcher.search(walker, nodes=THREAT_NODES)) >= before + THREAT_GAIN_CP


def _why(searcher: Searcher, board: Board, move: str, score) -> str:
    """The sentence for a non-mating hinted move."""
    if len(board.legal_moves()) == 1:
        return hint_text.text("why_only")
    after = board.copy()
    after.push_uci(move)
    captured = board.piece_at(_square(move[2:4]))
    if captured is not None and captured.lower() != "p":
        name = hint_text.text(PIECE_NAMES_KEYS[captured.lower()])
        return hint_text.text("why_capture", piece=name, square=move[2:4])
    threat = _threat(searcher, board)
    if threat is not None:
        threat_move, threat_mate, passed = threat
        if not _threat_still_works(searcher, board, after, threat_move):
            san = passed.san(threat_move)
            if threat_mate is not None and threat_mate > 0:
                return hint_text.text("why_defend_mate", threat=san, n=threat_mate)
            return hint_text.text("why_defend", threat=san)
    if captured is not None:
        return hint_text.text("why_capture", piece=hint_text.text("piece:p"), square=move[2:4])
    own = _threat(searcher, after)
    if own is not None:
        own_move, _, passed = own
        return hint_text.text("why_threat", threat=passed.san(own_move))
    if after.is_check():
        return hint_text.text("why_check")
    return hint_text.text("why_develop", score=score)


def _square(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def tablebase_hint(board: Board, tablebase) -> Optional[GameHint]:
    """The tables' hint (see the module docstring), or None when they do not decide the
    position (not in them, castling rights, a table missing after a move)."""
    if board.castling_fen() != "-":
        return None
    ranking = tablebase.rank_moves(board)
    if not ranking:
        return None
    best = best_keeping_move(ranking, board.halfmove_clock)
    result = fifty_move_result(tablebase.probe_wdl(board), tablebase.probe_dtz(board),
                                board.halfmove_clock)
    if best.checkmate:
        return GameHint(best.move, best.san, hint_text.text("why_mate_now"), 1)
    key = {1: "why_tb_win", 0: "why_tb_draw", -1: "why_tb_loss"}[result]
    return GameHint(best.move, best.san, hint_text.text(key, dtz=abs(best.dtz)))


def game_hint(board: Board, *, elo: Optional[int] = None, nodes: int = HINT_NODES,
              searcher: Optional[Searcher] = None, tablebase=None) -> GameHint:
    """A good move for the side to move, and why (see the module docstring); tablebase: an
    engine.tablebase.Tablebase whose positions get the tables' move.

    :raises ValueError: if the side to move has no legal move (the game is over).
    """
    if not board.has_legal_moves():
        raise ValueError("the game is over: no legal move")
    searcher = searcher or Searcher(16)
    proof = proven_mate_line(board, HINT_MATE_MOVES, MateSearch(), node_limit=HINT_MATE_NODES)
    if proof is not None:
        k, codes = proof
        move = board.move_uci(codes[0])
        why = hint_text.text("why_mate_now") if k == 1 else hint_text.text("why_mate", n=k)
        return GameHint(move, board.san(move), why, k)
    if tablebase is not None:
        advice = tablebase_hint(board, tablebase)
        if advice is not None:
            return advice
    if elo is not None:
        level = level_for_elo(elo, searcher.network is not None)
        result = searcher.search(board, nodes=level.nodes, depth=level.depth)
    else:
        result = searcher.search(board, nodes=nodes)
    move = result.best_move
    if result.score_mate is not None and result.score_mate > 0:
        return GameHint(move, board.san(move), hint_text.text("why_mate", n=result.score_mate),
                        result.score_mate)
    score = f"{_normalised(result) / 100:+.1f}"
    return GameHint(move, board.san(move), _why(searcher, board, move, score))


def puzzle_hints(fen: str, moves: Sequence[str], themes: Optional[Sequence[str]] = None,
                 language: str = hint_text.DEFAULT_LANGUAGE) -> List[str]:
    """The three hints of a puzzle in the lichess format, each saying more: the theme, the
    piece, the move (in SAN).  themes default to engine.trainer.themes.tag_puzzle's."""
    if themes is None:
        from .themes import tag_puzzle
        themes = tag_puzzle(fen, moves)
    board = board_from_fen(fen)
    board.push_uci(moves[0])
    ranked = [t for t in THEME_PRIORITY if t in themes]
    key = f"theme:{ranked[0]}" if ranked else "theme:default"
    first = hint_text.text(key, language)
    kind = board.piece_at(_square(moves[1][:2])).lower()
    second = hint_text.text("hint_piece", language, piece=hint_text.text(PIECE_NAMES_KEYS[kind], language))
    third = hint_text.text("hint_move", language, san=board.san(moves[1]))
    return [first, second, third]
