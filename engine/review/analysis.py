"""Game analysis: every position of a game's main line searched, every move judged.

`analyse_game(game, budget)` searches each position of the main line within the budget (a
node budget by default, so the result does not depend on the machine's load) with one
Searcher for the game, cleared at its start, so the transposition table helps from move to
move and the result does not depend on what the process analysed before.  For every move it
gives the evaluations before and after (White's view, normalised centipawns: see
engine/review/accuracy.py), the engine's best move and line in SAN, Win%, the move's accuracy and
its judgement (lichess's rules); per side the game accuracy, the average centipawn loss and
the counts of inaccuracies, mistakes and blunders.

A second look.  A move that a mate rule judges on the first pass (a forced mate walked into
or let go), or whose drop in the mover's winning chances is at least REVIEW_DROP and below
REVIEW_CEILING -- near the mistake and blunder lines, where the class can turn on a little
depth -- has the positions before and after it searched again with Budget.review times the
budget (nodes or movetime times review, depth plus log2(review); review=1 turns it off), on
the same table.  A third look, at Budget.review squared, takes the moves whose position before
had a second look and that a mate rule still judges (its class turns on the evaluation against
accuracy.MATE_SOFT_CP and MATE_SOFTER_CP) or whose drop then lies within REVIEW_BORDER of
either line.  The mate-rule moves go first, then the moves nearest a line; all the looks of a
game together stop at REVIEW_SHARE times the first pass (a look at review times the budget
counts as that many positions), so a game costs at most 1 + REVIEW_SHARE times its first pass
however many blunders it holds (a game without near-line moves, as a master game, costs little
more than its first pass).  The judgements are then made from the deepest evaluations.  A
search at the budget misjudges a few such moves either way (a tactic seen only a little
deeper, or a refutation it did not yet find); the extra looks cost a few positions a game and
bring the blunders closer to a much deeper search's (bench/analysis_quality.py; the figures
are in docs/results/analysis.md).  With a node or depth budget they are as deterministic as
the first pass.

A null move (a pass: `--` or `Z0` in PGN, "0000" in UCI), which some records use for a move
left out, is analysed as such: the position after it is searched like any other, and the
pass keeps its place in the moves (SAN `--`, its evaluations before and after, the engine's
best move instead of it), but it is not a chess move and is not judged: no judgement, no
accuracy and no centipawn loss (both None, null in the JSON), no second look, and it counts
in neither side's game accuracy, average centipawn loss or counts.  The moves around it are
judged as usual; the annotated PGN keeps `--`.

Memory stays linear in a game's length: a position is kept (`GamePosition`) as a FEN and
only the moves from the last capture, pawn move or pass on, at most HISTORY_PLIES of them --
all the search can use of the history (its repetition checks look no further back, and it
reads the last move for its move ordering) -- so the results are those of searching the
position with its whole history.

Tablebases.  With a Tablebase (analyse_game's `tablebase`), every position the Syzygy tables
hold (few enough pieces, no castling rights) gets the tables' verdict instead of a search: a
draw is 0.00, a win TABLEBASE_WIN_CP for the winner (the largest centipawn score, as the search
reports a proven win; #1 when a move mates at once), the verdict in words in the evaluation's
`tablebase` field ("White wins", "Black wins", "draw") and the engine's best move and line
those of the tables (the fastest win by DTZ, a move that keeps the draw, the longest
resistance).  The fifty-move rule applies as the halfmove clock has it: a cursed win or blessed
loss, or a win whose DTZ no longer fits in the moves left, is a draw.  A move between two such
positions is judged on the results alone: one that spoils the mover's result (a win to a draw
or a loss, a draw to a loss) is a blunder ("Lost win (tablebase)", "Lost draw (tablebase)",
with the move that kept it), any other (a slower win) is not judged; a move into a table
position that keeps a win for the mover is not judged either.  Table positions get no second
look.  Without a Tablebase the analysis is unchanged.

`analyse_pgn(text, budget, number)` is the same on one game's PGN text: a plain function of
(PGN text, budget), which local worker processes and Ray tasks both call (engine/batch.py).
The formatting of the results (the text report, the annotated PGN, the JSON) is here too;
the command line (`scacco analyse`, uci/cli/analyse.py) only composes them.
"""
from __future__ import annotations

import dataclasses
import io
import typing
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import (AbstractSet, Any, Callable, Dict, Iterator, List, Optional, Sequence,
                    Tuple, Union)

from . import accuracy as acc
from .accuracy import Eval
from ..board import NULL_MOVE, Board
from ..pgn import Game, MoveNode, read_game
from ..search import MAX_CP, Searcher
from ..tablebase import best_keeping_move, fifty_move_result

__all__ = ["Budget", "MoveAnalysis", "SideReport", "GameAnalysis", "AnalysisError",
           "DEFAULT_NODES", "analyse_game", "analyse_pgn", "evaluate_position", "game_report",
           "summary_report", "annotated_game", "annotated_pgn", "MAX_VARIATION_PLIES",
           "GamePosition", "game_positions", "HISTORY_PLIES", "TABLEBASE_WIN_CP",
           "TABLEBASE_LOST_WIN", "TABLEBASE_LOST_DRAW", "tablebase_verdict"]

# The default budget per position: a few seconds a game on one core (bench/analysis_speed.py
# measures it; bench/analysis_quality.py compares its blunders with a much deeper search; the
# figures are in docs/results/analysis.md).
DEFAULT_NODES = 150_000
# The second look (see the module docstring): moves that drop at least REVIEW_DROP and less
# than REVIEW_CEILING winning chances (-1..1) are searched again at Budget.review times the
# budget; those whose drop is then within REVIEW_BORDER of the mistake or blunder line again
# at Budget.review squared; all within REVIEW_SHARE times the first pass's searches.
REVIEW_DROP = 0.15
REVIEW_CEILING = 0.5
REVIEW_BORDER = 0.15
# Three first passes: with less, the second looks of a short game between careless players
# spend the allowance and the third looks never reach the moves nearest a line.
REVIEW_SHARE = 3.0
DEFAULT_REVIEW = 4
# A mistake's or blunder's variation in the annotated PGN shows this much of the best line.
MAX_VARIATION_PLIES = 10
JUDGEMENT_NAMES = {acc.INACCURACY: "Inaccuracy", acc.MISTAKE: "Mistake", acc.BLUNDER: "Blunder"}
# The most history a position keeps: the search looks for repetitions only while the
# fifty-move counter is below 100, the exact mate solver (fivefold repetition) below 150, and
# never past the last capture, pawn move or null move; so moves further back than 150 plies
# can never change a search's result.
HISTORY_PLIES = 150
# A tablebase win's evaluation: the largest centipawn score, the search's own for a proven win.
TABLEBASE_WIN_CP = MAX_CP
# The judging rule's words for a move that spoils the tables' result.
TABLEBASE_LOST_WIN = "Lost win (tablebase)"
TABLEBASE_LOST_DRAW = "Lost draw (tablebase)"


class AnalysisError(ValueError):
    """A game that cannot be analysed (unreadable PGN, an illegal move); says where."""


@dataclass(frozen=True)
class Budget:
    """The search limits per position (one of nodes, depth, movetime in ms), the hash, and
    the second look's factor (review; 1: none)."""

    nodes: Optional[int] = None
    depth: Optional[int] = None
    movetime: Optional[int] = None
    hash_mb: int = 16
    review: int = DEFAULT_REVIEW

    def limits(self, factor: int = 1) -> Dict[str, int]:
        """Searcher.search keyword arguments, for the budget times factor (a depth grows by
        log2(factor) plies instead); the default node budget when none is set."""
        if self.depth is not None:
            return {"depth": self.depth + max(0, factor.bit_length() - 1)}
        if self.movetime is not None:
            return {"hard_time": self.movetime * factor}
        return {"nodes": (self.nodes if self.nodes is not None else DEFAULT_NODES) * factor}

    def describe(self) -> str:
        key, value = next(iter(self.limits().items()))
        text = {"depth": f"depth {value}", "hard_time": f"{value} ms",
                "nodes": f"{value} nodes"}[key] + " per position"
        if self.review > 1:
            text += f", {self.review}x on a second look, {self.review ** 2}x on a third"
        return text


@dataclass
class MoveAnalysis:
    """One move of the main line and what the analysis says about it.  Evaluations and Win%
    are White's view; accuracy and centipawn loss the mover's."""

    ply: int                 # 0 for the game's first move
    move_number: int
    white: bool              # White made the move
    uci: str
    san: str
    before: Eval
    after: Eval
    best_uci: Optional[str]
    best_san: Optional[str]
    best_line: List[str]     # the engine's line from the position before the move, SAN
    win_before: float
    win_after: float
    accuracy: Optional[float]   # None for a null move (a pass is not judged)
    cp_loss: Optional[int]      # None for a null move
    judgement: Optional[str] = None        # "inaccuracy", "mistake", "blunder"
    mate_sequence: Optional[str] = None    # the mate or tablebase rule that judged it, if any

    def label(self) -> str:
        """`14... Qxb2??`: the move with its number and glyph."""
        dots = "." if self.white else "..."
        glyph = acc.GLYPHS.get(self.judgement, "") if self.judgement else ""
        return f"{self.move_number}{dots} {self.san}{glyph}"

    def advice(self) -> str:
        """lichess's comment: `Mistake. Nf3 was best.` (or the mate sequence), '' if none."""
        if self.judgement is None:
            return ""
        text = (self.mate_sequence or JUDGEMENT_NAMES[self.judgement]) + "."
        if self.best_san:
            text += f" {self.best_san} was best."
        return text


@dataclass
class SideReport:
    """One side's figures for a game."""

    accuracy: Optional[float]
    acpl: Optional[int]
    inaccuracies: int
    mistakes: int
    blunders: int


@dataclass
class GameAnalysis:
    """A whole game's analysis: where it comes from, the moves, both sides' figures."""

    number: int
    headers: Dict[str, str]
    fen: str
    chess960: bool
    result: str
    start: Eval                      # the starting position's evaluation
    moves: List[MoveAnalysis] = field(default_factory=list)
    white: Optional[SideReport] = None
    black: Optional[SideReport] = None
    budget: Budget = Budget()
    nodes: int = 0
    plies: int = 0                   # the number of moves (kept when `moves` is dropped)
    reviewed: int = 0                # positions searched again on the second look

    @property
    def positions(self) -> int:
        return self.plies + 1

    def to_dict(self) -> Dict[str, Any]:
        """Plain data for JSON (evaluations as {"cp": .., "mate": .., "winner": .., "wdl": ..},
        and "tablebase": .. for a position in the tables only)."""
        return _without_empty_tablebase(asdict(self))

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "GameAnalysis":
        """The analysis back from to_dict's plain data (a resumed run's finished games)."""
        return _from_plain(cls, data)


def _without_empty_tablebase(data: Any) -> Any:
    """asdict's output without the evaluations' "tablebase": None (the JSON of an analysis
    without tables stays as it was)."""
    if isinstance(data, dict):
        return {key: _without_empty_tablebase(value) for key, value in data.items()
                if not (key == "tablebase" and value is None)}
    if isinstance(data, list):
        return [_without_empty_tablebase(value) for value in data]
    return data


def _from_plain(kind: Any, data: Any) -> Any:
    """A value of the type `kind` (a dataclass, a list or Optional of one, or plain data)
    rebuilt from asdict's output."""
    origin = typing.get_origin(kind)
    if origin is Union:
        if data is None:
            return None
        kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
        origin = typing.get_origin(kind)
    if origin in (list, List):
        (element,) = typing.get_args(kind)
        return [_from_plain(element, value) for value in data]
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        return kind(**{f.name: _from_plain(hints[f.name], data[f.name])
                       for f in dataclasses.fields(kind) if f.name in data})
    return data


@dataclass(frozen=True)
class GamePosition:
    """One position of a game's main line with the part of its history a search can use: the
    FEN of an earlier position of the game (`base`) and the moves from there to this one
    (`moves`: from the last capture, pawn move or null move on, at least the move that led
    here, at most HISTORY_PLIES).
    `line` is the whole main line, shared by the game's positions; this one is after
    line[:ply]."""

    base: str
    line: Tuple[str, ...] = field(repr=False, compare=False)
    start: int
    ply: int
    chess960: bool
    turn: bool
    fullmove_number: int

    @property
    def moves(self) -> Tuple[str, ...]:
        return self.line[self.start:self.ply]

    def board(self) -> Board:
        """The position, with its history from `base` (the keys, clocks and repetitions of
        the position reached through the whole game)."""
        board = Board(self.base, chess960=self.chess960)
        for uci in self.moves:
            board.push_move(uci)
        return board


def _walk(game: Game, board: Board) -> Iterator[Tuple[Board, GamePosition]]:
    """(a board at the position, the GamePosition) for each position of the main line from
    board (the game's start), in order.  The board is the walker's own, valid until the next
    step: its history is cut back to the window now and then, so it stays short too."""
    line = tuple(node.uci for node in game.moves)
    recent: deque = deque(maxlen=HISTORY_PLIES + 1)   # FENs of the latest positions
    base, start = "", 0
    for ply in range(len(line) + 1):
        fen = board.fen()
        recent.append(fen)
        if ply == 0:
            base, start = fen, 0
        elif board.halfmove_clock == 0 or line[ply - 1] == NULL_MOVE:
            # from the position before that move: the search also reads the move that led
            # to its root (the countermove heuristic, no null-move pruning after a pass)
            base, start = recent[-2], ply - 1
        elif ply - start > HISTORY_PLIES:
            base, start = recent[0], ply - HISTORY_PLIES
        position = GamePosition(base, line, start, ply, game.chess960, bool(board.turn),
                                board.fullmove_number)
        yield board, position
        if ply < len(line):
            board.push_move(line[ply])
            if board.ply > 2 * HISTORY_PLIES:
                board = Board(base, chess960=game.chess960)
                for uci in line[start:ply + 1]:
                    board.push_move(uci)


def game_positions(game: Game) -> List[GamePosition]:
    """Every position of a game's main line (the start first), as the analysis keeps them.

    :raises ValueError: if the starting position or a move is illegal.
    """
    return [position for _, position in _walk(game, game.board())]


def evaluate_position(searcher: Searcher, board: Board, budget: Budget,
                      limits: Optional[Dict[str, int]] = None):
    """(Eval from White's view, best move UCI or None, line UCI, nodes) for one position
    (within limits, default the budget's); a checkmate or stalemate on the board is judged
    without a search."""
    if not board.has_legal_moves():
        if board.is_check():
            white_won = not board.turn
            return (Eval(mate=0, winner=white_won,
                         wdl=(1000, 0, 0) if white_won else (0, 0, 1000)), None, [], 0)
        return Eval(cp=0, wdl=(0, 1000, 0)), None, [], 0
    result = searcher.search(board, **(limits or budget.limits()))
    sign = 1 if board.turn else -1
    wdl = result.wdl if board.turn or result.wdl is None else tuple(reversed(result.wdl))
    if result.score_mate is not None:
        evaluation = Eval(mate=sign * result.score_mate, wdl=wdl)
    else:
        evaluation = Eval(cp=sign * result.score_cp, wdl=wdl)
    return evaluation, result.best_move, list(result.pv), result.nodes


def tablebase_verdict(tablebase, board: Board):
    """(Eval from White's view, best move UCI, line UCI) of a position the tables decide, or
    None when they do not hold it or a position after one of its moves.  The line follows
    the tables' best moves for both sides (at most MAX_VARIATION_PLIES)."""
    if board.castling_fen() != "-":
        return None
    ranking = tablebase.rank_moves(board)
    if not ranking:
        return None
    wdl, dtz = tablebase.probe_wdl(board), tablebase.probe_dtz(board)
    result = fifty_move_result(wdl, dtz, board.halfmove_clock)
    sign = 1 if board.turn else -1
    white_result = sign * result
    words = {1: "White wins", 0: "draw", -1: "Black wins"}[white_result]
    chances = {1: (1000, 0, 0), 0: (0, 1000, 0), -1: (0, 0, 1000)}[white_result]
    if result > 0 and ranking[0].checkmate:
        evaluation = Eval(mate=sign, wdl=chances, tablebase=words)
    else:
        evaluation = Eval(cp=white_result * TABLEBASE_WIN_CP, wdl=chances, tablebase=words)
    line = _tablebase_line(tablebase, board, ranking)
    return evaluation, line[0], line


def _tablebase_line(tablebase, board: Board, ranking) -> List[str]:
    line = [best_keeping_move(ranking, board.halfmove_clock).move]
    walker = board.copy()
    walker.push_uci(line[0])
    while len(line) < MAX_VARIATION_PLIES and walker.has_legal_moves():
        ranking = tablebase.rank_moves(walker)
        if not ranking:
            break
        line.append(best_keeping_move(ranking, walker.halfmove_clock).move)
        walker.push_uci(line[-1])
    return line


def _tablebase_judgement(before: Eval, after: Eval,
                         white: bool) -> Optional[Tuple[Optional[str], Optional[str]]]:
    """(judgement, rule) of a move by the tables' results (see the module docstring), or
    None when the usual rules judge it (the position after is not in the tables)."""
    if after.tablebase is None:
        return None

    def result(evaluation: Eval) -> int:
        mine = evaluation.for_side(white)
        return mine.mate_sign if mine.mate is not None else (mine.cp > 0) - (mine.cp < 0)

    if before.tablebase is None:
        return (None, None) if result(after) > 0 else None
    spoiled = result(after) < result(before)
    if not spoiled:
        return None, None
    return acc.BLUNDER, TABLEBASE_LOST_WIN if result(before) > 0 else TABLEBASE_LOST_DRAW


def _evaluate(searcher: Searcher, board: Board, budget: Budget, tablebase,
              limits: Optional[Dict[str, int]] = None):
    """evaluate_position, or the tables' verdict (no search, no nodes) for a position they
    decide when a tablebase is given; a game over in the tables is marked as theirs."""
    if tablebase is not None:
        verdict = tablebase_verdict(tablebase, board) if board.has_legal_moves() else None
        if verdict is not None:
            evaluation, best, line = verdict
            return evaluation, best, line, 0
    evaluation, best, line, nodes = evaluate_position(searcher, board, budget, limits)
    if (tablebase is not None and not board.has_legal_moves() and board.castling_fen() == "-"
            and tablebase.probe_wdl(board) is not None):
        words = ("draw" if evaluation.mate is None else
                 "White wins" if evaluation.winner else "Black wins")
        evaluation = dataclasses.replace(evaluation, tablebase=words)
    return evaluation, best, line, nodes


def judge_move(before: Eval, after: Eval, white: bool, played: str,
               best: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(judgement, mate sequence) of the move `played` (UCI) between the evaluations before
    and after it, as accuracy.judge gives them; the engine's own choice (`best`) is not
    judged."""
    if played == best:
        return None, None
    by_tables = _tablebase_judgement(before, after, white)
    if by_tables is not None:
        return by_tables
    return acc.judge(before, after, white)


def _side_report(moves: List[MoveAnalysis], white: bool, accuracy: Optional[float]) -> SideReport:
    mine = [m for m in moves if m.white == white]
    count = lambda judgement: sum(1 for m in mine if m.judgement == judgement)  # noqa: E731
    return SideReport(accuracy=None if accuracy is None else round(accuracy, 1),
                      acpl=acc.average_centipawn_loss(m.cp_loss for m in mine
                                                      if m.cp_loss is not None),
                      inaccuracies=count(acc.INACCURACY), mistakes=count(acc.MISTAKE),
                      blunders=count(acc.BLUNDER))


def _game_accuracy(win_percents: Sequence[float], white_first: bool,
                   passes: AbstractSet[int]) -> Tuple[Optional[float], Optional[float]]:
    """accuracy.game_accuracy with the moves whose indices are in passes left out (a null
    move is no move to judge); the positions around them stay in the volatility windows.
    The same steps as accuracy.game_accuracy, which the analysis calls for games without
    null moves (tests check that the two agree)."""
    moves = len(win_percents) - 1
    if moves < 1:
        return None, None
    size = acc.accuracy_window(moves)
    sliding = [win_percents[i:i + size] for i in range(0, len(win_percents) - size + 1)]
    windows: List[Sequence[float]] = [win_percents[:size]] * (min(size, len(win_percents)) - 2)
    windows += sliding
    weights = [max(acc.WEIGHT_MIN, min(acc.WEIGHT_MAX, acc.standard_deviation(w)))
               for w in windows]
    per_side: dict = {True: [], False: []}
    for i in range(moves):
        if i in passes:
            continue
        white = (i % 2 == 0) == white_first
        before, after = win_percents[i], win_percents[i + 1]
        if not white:
            before, after = 100.0 - before, 100.0 - after
        per_side[white].append((acc.move_accuracy(before, after), weights[i]))

    def side(pairs: List[Tuple[float, float]]) -> Optional[float]:
        if not pairs:
            return None
        return (acc.weighted_mean(pairs) + acc.harmonic_mean([a for a, _ in pairs])) / 2

    return side(per_side[True]), side(per_side[False])


def _near_a_line(drop: float) -> float:
    """How far a drop lies from the nearer of the mistake and blunder lines."""
    return min(abs(drop - line) for line in (acc.MISTAKE_DROP, acc.BLUNDER_DROP))


def _second_look(searcher: Searcher, game: Game, budget: Budget, evaluations: list,
                 tablebase=None) -> Tuple[int, int]:
    """The second and third looks (see the module docstring) on evaluations, in place; the
    positions the tables decide are not searched again.  Returns (positions searched again,
    nodes spent)."""
    if budget.review <= 1:
        return 0, 0
    allowance = REVIEW_SHARE * len(evaluations)       # in searches at the budget
    looked = {}                                        # position -> the factor it was searched at
    nodes = 0

    def candidates(select):
        """(distance from a line, ply) of the moves that select(before, after, white) picks."""
        out = []
        for index, node in enumerate(game.moves):
            before, best, _, position = evaluations[index]
            after, white = evaluations[index + 1][0], position.turn
            if (node.uci != best and node.uci != NULL_MOVE
                    and _tablebase_judgement(before, after, white) is None):
                key = select(before, after, white)
                if key is not None:
                    out.append((key, index))
        return sorted(out)

    def look(plies, factor):
        nonlocal nodes, allowance
        limits = budget.limits(factor)
        for _, index in plies:
            todo = [at for at in (index, index + 1) if looked.get(at, 1) < factor
                    and evaluations[at][0].tablebase is None]
            if allowance < len(todo) * factor:
                return
            allowance -= len(todo) * factor
            for at in todo:
                position = evaluations[at][3]
                evaluation, best, line, spent = _evaluate(searcher, position.board(), budget,
                                                          tablebase, limits)
                evaluations[at] = (evaluation, best, line, position)
                nodes += spent
                looked[at] = factor

    def second(before, after, white):
        if acc.judge(before, after, white)[1] is not None:
            return 0.0                       # a mate rule: first
        drop = acc.winning_chance_drop(before, after, white)
        return _near_a_line(drop) if REVIEW_DROP <= drop < REVIEW_CEILING else None

    def third(before, after, white):
        if acc.judge(before, after, white)[1] is not None:
            return 0.0                       # a mate rule, whose class turns on MATE_SOFT_CP/MATE_SOFTER_CP
        if before.mate is not None or after.mate is not None:
            return None
        distance = _near_a_line(acc.winning_chance_drop(before, after, white))
        return distance if distance < REVIEW_BORDER else None

    look(candidates(second), budget.review)
    # the third look: among the moves whose position before was looked at
    look([c for c in candidates(third) if c[1] in looked], budget.review ** 2)
    return len(looked), nodes


def analyse_game(game: Game, budget: Budget = Budget(), *, number: int = 1,
                 on_position: Optional[Callable[[], None]] = None,
                 searcher: Optional[Searcher] = None, tablebase=None) -> GameAnalysis:
    """Analyses a game's main line within the budget per position (see the module
    docstring).  on_position is called after each position searched.  tablebase: an
    engine.tablebase.Tablebase whose verdicts replace the search in the positions it holds.

    :raises AnalysisError: if the game has reading errors or an illegal starting position.
    """
    board = game.playable_board(number, AnalysisError)
    if searcher is None:
        searcher = Searcher(budget.hash_mb)
    searcher.clear()
    # one search per position: the evaluation after a move is the one before the next; each
    # position is kept with a bounded history (GamePosition), not as a board
    evaluations = []
    total_nodes = 0
    for board, position in _walk(game, board):
        evaluation, best, line, nodes = _evaluate(searcher, board, budget, tablebase)
        total_nodes += nodes
        evaluations.append((evaluation, best, line, position))
        if on_position is not None:
            on_position()
    reviewed, review_nodes = _second_look(searcher, game, budget, evaluations, tablebase)
    total_nodes += review_nodes

    moves: List[MoveAnalysis] = []
    passes = set()
    win_percents = [acc.eval_win_percent(evaluations[0][0])]
    walker = game.board()               # for SAN only, which needs no history
    for index, node in enumerate(game.moves):
        before, best_uci, line, position = evaluations[index]
        after = evaluations[index + 1][0]
        white = position.turn
        win_before, win_after = acc.eval_win_percent(before), acc.eval_win_percent(after)
        win_percents.append(win_after)
        line_san = walker.line_san(line)
        walker.push_move(node.uci)
        passed = node.uci == NULL_MOVE
        if passed:
            passes.add(index)
            judgement, sequence, accuracy, cp_loss = None, None, None, None
        else:
            mine_before = win_before if white else 100.0 - win_before
            mine_after = win_after if white else 100.0 - win_after
            judgement, sequence = judge_move(before, after, white, node.uci, best_uci)
            accuracy = round(acc.move_accuracy(mine_before, mine_after), 2)
            cp_loss = acc.centipawn_loss(before, after, white)
        moves.append(MoveAnalysis(
            ply=index, move_number=position.fullmove_number, white=white, uci=node.uci,
            san=node.san, before=before, after=after, best_uci=best_uci,
            best_san=line_san[0] if line_san else None, best_line=line_san,
            win_before=round(win_before, 2), win_after=round(win_after, 2),
            accuracy=accuracy, cp_loss=cp_loss, judgement=judgement, mate_sequence=sequence))
    first_white = evaluations[0][3].turn
    if passes:
        white_accuracy, black_accuracy = _game_accuracy(win_percents, first_white, passes)
    else:
        white_accuracy, black_accuracy = acc.game_accuracy(win_percents, first_white)
    return GameAnalysis(number=number, headers=dict(game.headers), fen=game.fen,
                        chess960=game.chess960, result=game.result, start=evaluations[0][0],
                        moves=moves, white=_side_report(moves, True, white_accuracy),
                        black=_side_report(moves, False, black_accuracy), budget=budget,
                        nodes=total_nodes, plies=len(moves), reviewed=reviewed)


def analyse_pgn(text: str, budget: Budget = Budget(), number: int = 1,
                on_position: Optional[Callable[[], None]] = None,
                syzygy_path: Optional[str] = None) -> GameAnalysis:
    """analyse_game on the first game of a PGN text: the plain function of (PGN text, budget)
    that worker processes and Ray tasks run; syzygy_path names the tables' folders (opened
    here: a Tablebase does not travel to another process).
    :raises AnalysisError: no game, or a bad one."""
    game = read_game(io.StringIO(text))
    if game is None:
        raise AnalysisError(f"game {number}: no game in the text")
    tablebase = None
    if syzygy_path is not None:
        from ..tablebase import Tablebase
        tablebase = Tablebase(syzygy_path)
    return analyse_game(game, budget, number=number, on_position=on_position,
                        tablebase=tablebase)


# ---------------------------------------------------------------------------------------------
# Reports

def _title(analysis: GameAnalysis) -> str:
    h = analysis.headers
    return (f"Game {analysis.number}: {h.get('White', '?')} - {h.get('Black', '?')} "
            f"{analysis.result}" + (f" ({h['Event']})" if h.get("Event", "?") != "?" else ""))


def _side_line(name: str, side: SideReport) -> str:
    accuracy = "-" if side.accuracy is None else f"{side.accuracy:.0f}%"
    acpl = "-" if side.acpl is None else str(side.acpl)
    return (f"  {name:<6} accuracy {accuracy:>4}  ACPL {acpl:>4}  inaccuracies {side.inaccuracies}"
            f"  mistakes {side.mistakes}  blunders {side.blunders}")


def game_report(analysis: GameAnalysis) -> str:
    """The text report of one game: per side accuracy, ACPL and counts, then the judged
    moves (`14... Qxb2?? (-4.1) Best: Rd8`), evaluations after the move, White's view."""
    lines = [_title(analysis), f"  {analysis.budget.describe()}, {analysis.positions} positions"
             + (f", {analysis.reviewed} looked at again" if analysis.reviewed else ""),
             _side_line("White", analysis.white), _side_line("Black", analysis.black)]
    for move in analysis.moves:
        if move.judgement is not None:
            best = f" Best: {move.best_san}" if move.best_san else ""
            rule = (f" {move.mate_sequence}." if move.mate_sequence in
                    (TABLEBASE_LOST_WIN, TABLEBASE_LOST_DRAW) else "")
            lines.append(f"  {move.label()} ({move.after.short()}){best}{rule}")
    return "\n".join(lines) + "\n"


def summary_report(analyses: List[GameAnalysis], failed: int = 0) -> str:
    """Totals over several games: games, moves, judged moves, mean accuracy and ACPL."""
    def mean(values):
        values = [v for v in values if v is not None]
        return sum(values) / len(values) if values else None

    sides = [a.white for a in analyses] + [a.black for a in analyses]
    moves = sum(a.plies for a in analyses)
    accuracy = mean([s.accuracy for s in sides])
    acpl = mean([s.acpl for s in sides])
    return (f"Summary: {len(analyses)} games analysed" + (f", {failed} not (errors above)" if failed else "")
            + f", {moves} moves; inaccuracies {sum(s.inaccuracies for s in sides)}, mistakes "
            f"{sum(s.mistakes for s in sides)}, blunders {sum(s.blunders for s in sides)}; mean "
            f"accuracy {'-' if accuracy is None else f'{accuracy:.1f}%'}, mean ACPL "
            f"{'-' if acpl is None else f'{acpl:.0f}'}\n")


def annotated_game(analysis: GameAnalysis, annotator: str = "Scacco") -> Game:
    """The game back with its tags, `[%eval ..]` after every move, the judgement NAGs
    ($6 ?!, $2 ?, $4 ??), lichess's comment on each judged move, and for each mistake and
    blunder a variation with the engine's best line."""
    headers = dict(analysis.headers)
    headers.setdefault("Annotator", annotator)
    game = Game(headers=headers, fen=analysis.fen, chess960=analysis.chess960,
                result=analysis.result)
    board = Board(analysis.fen, chess960=analysis.chess960)
    for move in analysis.moves:
        node = MoveNode(move.uci, move.san)
        words = [f"[%eval {move.after.pgn()}]"] if move.after.pgn() else []
        if move.after.tablebase is not None:
            words.append(f"Tablebase: {move.after.tablebase}.")
        if move.judgement is not None:
            node.nags.append(acc.NAGS[move.judgement])
            words.append(f"({move.before.short()} \u2192 {move.after.short()}) {move.advice()}")
            if move.judgement in (acc.MISTAKE, acc.BLUNDER) and move.best_line:
                variation = []
                for san in move.best_line[:MAX_VARIATION_PLIES]:
                    uci = board.push_san(san)
                    variation.append(MoveNode(uci, san))
                for _ in variation:
                    board.pop()
                node.variations.append(variation)
        node.comment = " ".join(words)
        game.moves.append(node)
        board.push_move(move.uci)
    return game


def annotated_pgn(analysis: GameAnalysis) -> str:
    return str(annotated_game(analysis))
