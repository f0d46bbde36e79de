"""Playing levels: a weaker Scacco that still plays like a person of the chosen rating.

A weakened move comes from a small MultiPV search (a node and depth budget that grows with
the level): usually the best line, sometimes one of the other good candidates, picked with
noise that shrinks as the level rises.  Candidates that lose much more than the best one are
never picked, so a weak level makes imprecise moves rather than hanging pieces at random.
Whatever the level, a forced mate in GUARANTEED_MATE or fewer moves is always played: it is
proven exactly before any weakening.

Each evaluation has a level table of its own, calibrated with it (docs/levels.md,
"Calibration"; the matches are in docs/results/levels.md): the network sees so much more in the
same nodes that the classical budgets play far stronger with it.  A level is taken from the
table of the evaluation that will play it (level_for_elo's `network`).

With the network a second, material-minded check guards the choice: the network's shallow
scores can put a piece given for a pawn within a weak level's margin (it judges the position
after the exchange rather than the exchange), so each candidate other than the best is also
looked at for one ply by the classical evaluation, whose terms see pieces left en prise, and
one that this look puts more than the margin below the candidates' best is not played.
"""
from __future__ import annotations

import dataclasses
import math
import random
import weakref
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from ..ext._core import MateSearch, StopToken

from .board import Board
from .limits import SearchLimits
from .mate import proven_mate_line
from .search import SearchInfo, SearchResult, Searcher, mate_result

__all__ = ["Level", "NAMED_LEVELS", "MIN_ELO", "MAX_ELO", "MAX_SKILL_LEVEL",
           "level_for_elo", "level_for_skill",
           "level_for_options", "play", "play_weakened"]

MIN_ELO = 600
MAX_ELO = 2400
# UCI's Skill Level runs from 0 to this, full strength.
MAX_SKILL_LEVEL = 20

# Named levels for people, with the rating each one aims at.
NAMED_LEVELS: Dict[str, int] = {
    "Beginner": 600,
    "Easy": 900,
    "Medium": 1200,
    "Hard": 1500,
    "Expert": 1800,
    "Master": 2100,
}

# Forced mates up to this many moves are never missed, at any level.
GUARANTEED_MATE = 3
MATE_PROOF_NODES = 3_000_000


@dataclass(frozen=True)
class Level:
    """The search budget and the noise of one playing strength."""

    elo: int
    nodes: int        # node budget of the MultiPV search
    depth: int        # depth cap of that search
    candidates: int   # MultiPV lines considered
    margin: int       # centipawns: candidates further below the best are never played
    temperature: float  # centipawns: softmax noise over the remaining candidates

    def describe(self) -> str:
        return (f"Elo {self.elo}: {self.nodes} nodes, depth <= {self.depth}, {self.candidates} "
                f"candidates within {self.margin} cp, noise {self.temperature:.0f} cp")


# The level at each anchor rating: (rating, nodes, depth, candidates, margin cp, noise cp),
# the centipawns in the evaluation's own units.  In between, nodes are interpolated
# geometrically and the other columns linearly.  The anchors from 1500 up were set by matches
# against Stockfish with UCI_LimitStrength at the same UCI_Elo; below 1500, where Stockfish
# cannot be limited, by matches of each named level against the one below it (docs/levels.md,
# "Calibration").
#
# With the classical evaluation:
LEVEL_ANCHORS = [
    (600, 60, 1, 8, 200, 170.0),
    (900, 600, 2, 5, 130, 90.0),
    (1200, 1700, 4, 4, 110, 75.0),
    (1500, 4000, 5, 4, 90, 58.0),
    (1800, 18974, 8, 3, 70, 41.3),
    (2100, 120000, 13, 2, 40, 15.0),
    (2400, 400000, 14, 2, 30, 8.0),
]
# With the packaged network.  Its raw centipawns are larger for the same chances in Scacco's
# self-play (a score wins half the games at 207.5 raw network units, at 128.3 classical ones), so
# the margins and the noise are the classical ones times that ratio (the same risk in winning
# chances), except Beginner's margin, narrower
# so that Easy does not beat it by more than the ladder's band.  The node budgets are the
# network's own: bench/level_budget.py against the classical levels first, then the matches
# against Stockfish and the ladder (docs/levels.md, "Calibration").
NETWORK_TO_CLASSICAL_RAW = 128.3 / 207.5
NETWORK_LEVEL_ANCHORS = [
    (600, 60, 1, 8, 230, 274.9),
    (900, 600, 2, 5, 210, 145.6),
    (1200, 1300, 4, 4, 178, 121.3),
    (1500, 2500, 5, 4, 146, 93.8),
    (1800, 9000, 8, 3, 113, 66.8),
    (2100, 40000, 13, 2, 65, 24.3),
    (2400, 130000, 14, 2, 49, 12.9),
]


def level_for_elo(elo: int, network: bool = True) -> Level:
    """The level that aims at a rating (clamped to MIN_ELO..MAX_ELO), for a search with the network
    (the default evaluation) or, with network=False, with the classical evaluation.  Every
    parameter moves monotonically with the rating: more nodes and depth, fewer candidates,
    less noise."""
    elo = max(MIN_ELO, min(MAX_ELO, int(elo)))
    anchors = NETWORK_LEVEL_ANCHORS if network else LEVEL_ANCHORS
    for lower, upper in zip(anchors, anchors[1:]):
        if lower[0] <= elo <= upper[0]:
            break
    e0, n0, d0, c0, m0, t0 = lower
    e1, n1, d1, c1, m1, t1 = upper
    f = (elo - e0) / (e1 - e0)
    return Level(elo,
                 nodes=int(round(n0 * (n1 / n0) ** f)),
                 depth=int(round(d0 + f * (d1 - d0))),
                 candidates=int(round(c0 + f * (c1 - c0))),
                 margin=int(round(m0 + f * (m1 - m0))),
                 temperature=t0 + f * (t1 - t0))


def level_for_skill(skill: int, network: bool = True) -> Optional[Level]:
    """Skill Level 0..MAX_SKILL_LEVEL (full strength: None) as an equivalent rating level."""
    skill = max(0, min(MAX_SKILL_LEVEL, int(skill)))
    if skill >= MAX_SKILL_LEVEL:
        return None
    return level_for_elo(MIN_ELO + skill * (MAX_ELO - MIN_ELO) // MAX_SKILL_LEVEL, network)


def _proven_mate(board: Board, solver: MateSearch,
                 stop: Optional[StopToken]) -> Optional[SearchResult]:
    proof = proven_mate_line(board, GUARANTEED_MATE, solver, node_limit=MATE_PROOF_NODES, stop=stop)
    if proof is None:
        return None
    k, codes = proof
    return mate_result(board, k, codes, solver.nodes, 0, 0)


def play_weakened(searcher: Searcher, board: Board, level: Level, *,
                  rng: Optional[random.Random] = None,
                  hard_time: Optional[float] = None,
                  on_info: Optional[Callable[[SearchInfo], None]] = None,
                  solver: Optional[MateSearch] = None,
                  stop: Optional[StopToken] = None,
                  on_candidates: Optional[Callable[[List[SearchInfo]], None]] = None) -> SearchResult:
    """Choose a move at the given level (which should come from the table of the searcher's
    evaluation: level_for_elo's `network`).  The returned result's best_move is the move played;
    its score and line are those of the chosen candidate, and on_info hears that line only
    (once, at the end), never the candidates the level did not play.  Everything it runs (the
    mate proof, the searches) obeys the one stop token.  on_candidates, if given, hears the
    candidate lines the choice was made from (none when a proven mate is played)."""
    rng = rng or random.Random()
    solver = solver or MateSearch()
    stop = stop if stop is not None else StopToken()
    if hard_time is not None:
        stop.tighten(None, hard_time)
    result = _proven_mate(board, solver, stop)
    if result is None:
        result = _choose(searcher, board, level, rng, stop, on_candidates)
    if on_info is not None and result.lines:
        on_info(result.lines[0])
    return result


def _choose(searcher: Searcher, board: Board, level: Level, rng: random.Random,
            stop: StopToken, on_candidates) -> SearchResult:
    """The level's move from a small MultiPV search (see the module docstring)."""
    # One thread: the levels' node budgets were calibrated on it (and a budget shared between
    # threads would not give the same move twice).
    result = searcher.search(board, nodes=level.nodes, depth=level.depth, multipv=level.candidates,
                             stop=stop, single_thread=True, use_tablebase=False)
    if result.best_move is None or not result.lines:
        return result
    wanted = min(level.candidates, len(board.legal_moves()))
    if len(result.lines) < wanted and not stop.stopped:
        # The node budget ran out inside the first iteration, before every candidate had a
        # score: a budget that small is meant to play from a one-ply look, so the candidates
        # get that look (a few hundred nodes at most), not a lone best move.
        first = searcher.search(board, depth=1, multipv=level.candidates, stop=stop,
                                single_thread=True, use_tablebase=False)
        if len(first.lines) > len(result.lines):
            result = first
    lines = sorted(result.lines, key=lambda info: info.score, reverse=True)
    if on_candidates is not None:
        on_candidates(lines)
    best = lines[0]
    if best.score_mate is not None and best.score_mate > 0:
        return _single_line(result, best)     # a mate the search saw is never thrown away
    choices = [info for info in lines if best.score - info.score <= level.margin
               and (info.score_mate is None or info.score_mate > 0)]
    if not choices:
        return _single_line(result, best)     # every line is lost to a mate: the longest defence
    choices = _materially_sound(searcher, board, choices, level.margin, stop)
    weights = [math.exp(-(best.score - info.score) / level.temperature) for info in choices]
    return _single_line(result, rng.choices(choices, weights=weights, k=1)[0])


# Each searcher that evaluates with a network gets one small classical searcher for the
# candidates' second look (made on first use, gone with the searcher).
_classical_looks: "weakref.WeakKeyDictionary[Searcher, Searcher]" = weakref.WeakKeyDictionary()


def _materially_sound(searcher: Searcher, board: Board, choices: List[SearchInfo], margin: int,
                      stop: StopToken) -> List[SearchInfo]:
    """The choices (best first) that a one-ply look with the classical evaluation keeps
    within `margin` (the searcher's centipawns, put in the classical ones) of the best of
    them; the first choice always stays.  With the classical evaluation in the search
    already, the choices as they are."""
    if searcher.network is None or len(choices) < 2:
        return choices
    look = _classical_looks.get(searcher)
    if look is None:
        look = _classical_looks[searcher] = Searcher(1, network=None)
    moves = [info.pv[0] for info in choices]
    first = look.search(board, depth=1, multipv=len(moves), searchmoves=moves, stop=stop,
                        single_thread=True)
    scores = {info.pv[0]: info.score for info in first.lines if info.pv}
    if len(scores) < len(moves):
        return choices                          # stopped before every move had its look
    classical_margin = margin * NETWORK_TO_CLASSICAL_RAW
    top = max(scores.values())
    return choices[:1] + [info for info in choices[1:]
                          if top - scores[info.pv[0]] <= classical_margin]


def _single_line(result: SearchResult, chosen: SearchInfo) -> SearchResult:
    """The result of playing `chosen`: its line, reported as the only (first) line."""
    line = dataclasses.replace(chosen, multipv=1)
    pv = line.pv
    return SearchResult(pv[0], pv[1] if len(pv) > 1 else None, line.score_cp, line.score_mate, pv,
                        result.depth, result.nodes, [line], line.score)


def level_for_options(limit_strength: bool = False, elo: int = 1500,
                      skill_level: int = MAX_SKILL_LEVEL, network: bool = True) -> Optional[Level]:
    """The level that the UCI options ask for: UCI_LimitStrength with UCI_Elo, else Skill
    Level below MAX_SKILL_LEVEL; None for full strength.  network: see level_for_elo."""
    if limit_strength:
        return level_for_elo(elo, network)
    return level_for_skill(skill_level, network)


def play(searcher: Searcher, board: Board, limits: Optional[SearchLimits] = None, *,
         limit_strength: bool = False, elo: int = 1500, skill_level: int = MAX_SKILL_LEVEL,
         rng: Optional[random.Random] = None, multipv: int = 1,
         on_info: Optional[Callable[[SearchInfo], None]] = None,
         on_currmove: Optional[Callable[[int, str, int], None]] = None,
         stop: Optional[StopToken] = None, single_thread: bool = False,
         **limit_keywords) -> SearchResult:
    """The move to play in a game: at the level the options ask for (limit_strength with
    elo, or skill_level below MAX_SKILL_LEVEL) for a normal move, at full strength otherwise.  Analysis
    (infinite, mate, MultiPV above 1, searchmoves) always runs at full strength.

    The limits are a SearchLimits or its fields as keywords, the other keywords Searcher.search's
    (multipv, callbacks, stop token).  A level plays from its node budget: a hard time limit or
    a movetime only caps it.
    """
    limits = SearchLimits.of(limits, **limit_keywords)
    level = level_for_options(limit_strength, elo, skill_level, searcher.network is not None)
    analysis = (limits.infinite or limits.mate is not None or multipv != 1
                or limits.searchmoves)
    if level is None or analysis:
        return searcher.search(board, multipv=multipv, on_info=on_info, on_currmove=on_currmove,
                               stop=stop, single_thread=single_thread, **limits.keywords())
    cap = limits.movetime if limits.movetime is not None else limits.hard_time
    return play_weakened(searcher, board, level, rng=rng, hard_time=cap, on_info=on_info,
                         solver=searcher.mate_solver, stop=stop)
