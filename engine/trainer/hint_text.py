"""Every sentence the puzzles and hints show a person, in one table per language.

TEXT[language][key] is a format string; `text(key, **values)` fills it in the current
language (DEFAULT_LANGUAGE unless a caller passes another).  To add a language, add a
dictionary with the same keys (tests/test_puzzles.py checks that every language has every
key and the same placeholders).  Theme sentences are keyed "theme:<lichess theme name>",
piece names "piece:<letter>".
"""
from __future__ import annotations

import string
from typing import Dict

__all__ = ["TEXT", "DEFAULT_LANGUAGE", "text", "has_text", "placeholders"]

DEFAULT_LANGUAGE = "en"

TEXT: Dict[str, Dict[str, str]] = {
    "en": {
        # judging a tried move
        "right_mate": "Checkmate!",
        "right_still_mates": "Right: this still mates within {n} moves.",
        "right_keeps_win": "Right: this keeps a decisive advantage.",
        "right_keeps_edge": "Right: this wins as much as the solution.",
        "wrong_no_mate": "Wrong: this move does not force mate within {n} moves.",
        "wrong_refuted": "Wrong: after {reply} the advantage is gone (evaluation {score}).",
        "wrong_draws": "Wrong: this throws the win away.",
        "right_tb_win": "Right: the tablebases say this still wins.",
        "right_tb_draw": "Right: the tablebases say this keeps the draw.",
        "right_tb_loss": "Right: the tablebases say the position is lost whatever you play.",
        "wrong_tb_throws_win": "Wrong: the tablebases say this throws the win away; {keep} "
                               "kept it.",
        "wrong_tb_loses_draw": "Wrong: the tablebases say this loses; {keep} kept the draw.",
        "score_mate": "mate in {n}",
        "score_mated": "mated in {n}",
        # hints, level 1: the theme
        "theme:mateIn1": "Look for a checkmate in one move.",
        "theme:mateIn2": "There is a forced mate in two moves.",
        "theme:mateIn3": "There is a forced mate in three moves.",
        "theme:mateIn4": "There is a forced mate in four moves.",
        "theme:mateIn5": "There is a forced mate in five moves.",
        "theme:backRankMate": "The king is stuck on its back rank.",
        "theme:smotheredMate": "The king is smothered by its own pieces.",
        "theme:fork": "Look for a fork: one piece attacking two.",
        "theme:pin": "Look for a pin.",
        "theme:skewer": "Look for a skewer: attack a valuable piece with another behind it.",
        "theme:discoveredAttack": "Move one piece to uncover an attack by another.",
        "theme:doubleCheck": "A double check is possible.",
        "theme:hangingPiece": "Something is left undefended.",
        "theme:trappedPiece": "A piece has no safe square.",
        "theme:promotion": "A pawn wants to promote.",
        "theme:underPromotion": "Promote, but not necessarily to a queen.",
        "theme:enPassant": "Remember the en passant capture.",
        "theme:castling": "Castling is part of the solution.",
        "theme:sacrifice": "Be ready to give up material.",
        "theme:deflection": "Lure a defender away from its duty.",
        "theme:attraction": "Draw the king or a piece onto a fatal square.",
        "theme:quietMove": "The key move is a quiet one: no check, no capture.",
        "theme:zugzwang": "Your opponent would rather not move at all.",
        "theme:mate": "Look for checkmate.",
        "theme:advantage": "You can win material.",
        "theme:crushing": "You can win decisively.",
        "theme:pawnEndgame": "A pawn ending: count the moves.",
        "theme:rookEndgame": "A rook ending.",
        "theme:bishopEndgame": "A bishop ending.",
        "theme:knightEndgame": "A knight ending.",
        "theme:queenEndgame": "A queen ending.",
        "theme:queenRookEndgame": "Queens and rooks on the board.",
        "theme:endgame": "An endgame.",
        "theme:default": "Look for the most forcing move.",
        # hints, level 2: the piece
        "hint_piece": "Your {piece} can do it.",
        "piece:p": "pawn",
        "piece:n": "knight",
        "piece:b": "bishop",
        "piece:r": "rook",
        "piece:q": "queen",
        "piece:k": "king",
        # hints, level 3: the move
        "hint_move": "Play {san}.",
        # `scacco hint`: why the move is good
        "why_mate": "It forces mate in {n}.",
        "why_mate_now": "It is checkmate.",
        "why_defend_mate": "It stops the threat of {threat}, a mate in {n}.",
        "why_defend": "It meets the threat of {threat}.",
        "why_capture": "It wins material: it takes the {piece} on {square}.",
        "why_threat": "It threatens {threat}.",
        "why_check": "It gives check and keeps the initiative.",
        "why_develop": "It improves the position (evaluation {score}).",
        "why_only": "It is the only legal move.",
        "why_tb_win": "The tablebases say it wins the fastest way ({dtz} plies to the next "
                      "capture or pawn move).",
        "why_tb_draw": "The tablebases say the position is a draw, and this move keeps it.",
        "why_tb_loss": "The tablebases say the position is lost: this move resists the longest "
                       "({dtz} plies to the next capture or pawn move).",
        # daily puzzle
        "daily_title": "Puzzle of {date}: {id} (rating {rating})",
        "daily_to_move": "{side} to move after {move}.",
        "side:white": "White",
        "side:black": "Black",
        "daily_themes": "Themes: {themes}",
        "daily_hint": "Hint {n}: {text}",
        "daily_solution": "Solution: {line}",
    },
}


def text(key: str, language: str = DEFAULT_LANGUAGE, **values: object) -> str:
    """The sentence for key in a language (English when the language lacks it)."""
    table = TEXT.get(language, TEXT[DEFAULT_LANGUAGE])
    template = table.get(key, TEXT[DEFAULT_LANGUAGE][key])
    return template.format(**values)


def has_text(key: str, language: str = DEFAULT_LANGUAGE) -> bool:
    return key in TEXT.get(language, {})


def placeholders(template: str) -> set:
    """The {names} a template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
