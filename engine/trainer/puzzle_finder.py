"""Finding puzzles in games, after the lichess puzzler's generator (ideas, not code).

Every position of a game's main line is searched once (a node budget, so the result does not
depend on the machine).  A position becomes a puzzle candidate when the move that led to it
was a blunder: the side to move (the "winner") was not clearly better before it and is now
winning (a jump of BLUNDER_JUMP in lichess's winning chances to at least WINNING_CP), or now
has a forced mate.  From there the solution is built ply by ply: at the winner's turn a
two-line search must show exactly one winning move (the best line winning, the second one
UNIQUE_GAP of winning chances below it, lichess's `is_valid_attack`, or the best at least
WINNING_CP and the second below SECOND_CEILING_CP), at the loser's turn the best defence is
played.

* A mate puzzle (the search sees mate within MAX_MATE moves) is checked with the exact mate
  proof: exactly one move mates within the moves left at every winner's turn (the puzzle's
  goal is the mate: a slower mate or a win of material does not reach it), and the line is
  the proof's principal line (the defence that postpones mate longest).  Unlike material
  puzzles, a mate may come from a position that was already won.
* A material puzzle goes on while the winner's move stays unique and the winner stays at
  least WINNING_CP; it ends after the last winner's move that had an alternative to compare with
  (lichess trims the same way).  Its first move is then checked again by a deeper search
  (verify_material).  Unlike lichess, a single winner's move is kept (lichess drops
  one-movers): in games between weak levels most tactics are one unique winning move.

With Syzygy tables (find_puzzles's `tablebase`), a position the tables hold is judged by them
instead of a search: its scan evaluation is the tables' verdict (engine.review.analysis's
tablebase_verdict), and in a material line the winner's move must be the only one that keeps
the win under the fifty-move rule (the puzzle judge's rule, engine/trainer/puzzles.py), the
loser plays the tables' best defence, and the line ends when the winner's move is not unique;
verify_material checks a first move in the tables the same way.

A null move (a pass, `--` in PGN) ends the search of its game: a position reached through a
pass is not reachable by legal play from the game's start, so no puzzle comes from it or
after it (the positions before it are searched as usual).  Chess960 games are searched like
standard ones (their puzzles' castling moves are king-takes-rook, `chess960` set).

A found puzzle is in the lichess database's format: `fen` is the position before the
blunder, `moves` starts with the blunder.  `rating` is the estimate of estimate_rating.
"""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

from ...ext._core import MateSearch

from ..score import winning_chances
from ..review.analysis import TABLEBASE_WIN_CP, Budget, evaluate_position, tablebase_verdict
from ..tablebase import best_keeping_move
from ..board import NULL_MOVE, Board, board_from_fen
from ..levels import NAMED_LEVELS, level_for_elo
from ..pgn import Game, read_game
from ..mate import MateSearchInterrupted, mate_line, mating_moves, shortest_mate
from ..search import Searcher

__all__ = ["FinderBudget", "FoundPuzzle", "GamePuzzles", "verify_material", "FinderError", "find_puzzles", "find_puzzles_pgn",
           "estimate_rating", "puzzle_id", "material", "winning_chances_of", "MIN_RATING",
           "MAX_RATING", "MAX_MATE"]

# Mates up to this many moves are turned into mate puzzles (checked by the exact proof).
MAX_MATE = 5
# lichess's thresholds, in normalised centipawns and winning chances (-1..1); the two marked
# are lower than lichess's, so that a hung minor piece makes a candidate
# (bench/finder_quality.py measures the finder at these values against Stockfish).
WINNING_CP = 200               # "winning": at least two pawns
CLEARLY_WINNING_CP = 300       # below it a candidate must come from being down material
                               # (lichess's is higher; ours lets a hung minor piece in)
ALREADY_WINNING_CP = 300       # the winner was already this far ahead: no puzzle
BLUNDER_JUMP = 0.4             # winning chances gained by the blunder (lichess's is higher)
UNIQUE_GAP = 0.7               # the best move's winning chances above the second's, or:
SECOND_CEILING_CP = 100        # the best winning and the second below this (not winning,
                               # with a margin for another engine's view)
MATE_IN_ONE_SECOND = 0.6       # mate in one: the best non-mate must be at most this good
MAX_SOLUTION_PLIES = 15        # a material line is cut after this many plies
# A material puzzle's first move is checked again by a search of VERIFY_FACTOR times the
# two-line nodes, with a fresh table: still the best, at least WINNING_CP, and the second
# below VERIFY_SECOND_CP: the two-line search's budget lets through first moves that are not
# unique for a deeper search (bench/finder_quality.py against Stockfish; the figures, and the
# puzzles the margin was chosen on, are in docs/results/puzzles.md).
VERIFY_FACTOR = 4
VERIFY_SECOND_CP = 50
PIECE_VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 0}
# The rating scale: the playing levels' range.
MIN_RATING = 600
MAX_RATING = 2100
RATING_PER_EXTRA_MOVE = 50


class FinderError(ValueError):
    """A game that cannot be searched for puzzles (unreadable, illegal); says where."""


@dataclass(frozen=True)
class FinderBudget:
    """Node budgets: the scan of every game position, the two-line search of each puzzle ply,
    and the exact mate proofs (per proof)."""

    scan_nodes: int = 30_000
    pair_nodes: int = 150_000
    mate_nodes: int = 3_000_000
    hash_mb: int = 16

    def scaled(self, factor: int) -> "FinderBudget":
        return FinderBudget(self.scan_nodes * factor, self.pair_nodes * factor,
                            self.mate_nodes * factor, self.hash_mb)


@dataclass
class FoundPuzzle:
    """A puzzle found in a game (the lichess database's meanings)."""

    fen: str                 # before the opponent's move
    moves: List[str]         # UCI, starting with the opponent's move
    kind: str                # "mate" or "material"
    mate_in: Optional[int]   # for a mate puzzle
    rating: int
    game_url: str
    ply: int                 # the blunder's ply in the game (0: the first move)
    score_cp: Optional[int] = None   # normalised cp at the end of a material line (winner's view)
    themes: List[str] = field(default_factory=list)
    chess960: bool = False   # from a Chess960 game (castling moves are king takes rook)

    @property
    def puzzle_id(self) -> str:
        return puzzle_id(self.fen, self.moves)


def puzzle_id(fen: str, moves: Sequence[str]) -> str:
    """A stable 5-character id (letters and digits, as lichess's) from the position and line."""
    digest = int(hashlib.sha1((fen + " " + " ".join(moves)).encode()).hexdigest(), 16)
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    text = ""
    for _ in range(5):
        digest, digit = divmod(digest, 62)
        text += alphabet[digit]
    return text


def material(board: Board, white: bool) -> int:
    """Pawn units of one side (pawn 1, minor 3, rook 5, queen 9)."""
    total = 0
    for square in range(64):
        letter = board.piece_at(square)
        if letter is not None and letter.isupper() == white:
            total += PIECE_VALUES[letter.lower()]
    return total


def material_diff(board: Board, white: bool) -> int:
    return material(board, white) - material(board, not white)


@dataclass(frozen=True)
class Line:
    """One line of a two-line search, from the winner's view (normalised cp or mate)."""

    move: str
    cp: Optional[int]
    mate: Optional[int]

    @property
    def chances(self) -> float:
        return winning_chances_of(self.cp, self.mate)

    def at_least(self, cp: int) -> bool:
        return (self.mate is not None and self.mate > 0) or (self.cp is not None and self.cp >= cp)


def winning_chances_of(cp: Optional[int], mate: Optional[int]) -> float:
    """lichess's winning chances (-1..1) of normalised cp, a mate counting as +-1."""
    if mate is not None:
        return 1.0 if mate > 0 else -1.0
    return winning_chances(cp or 0)


def _lines(searcher: Searcher, board: Board, nodes: int, winner: bool, multipv: int = 2) -> List[Line]:
    """The best `multipv` moves by a search, scores from the winner's view."""
    result = searcher.search(board, nodes=nodes, multipv=multipv)
    sign = 1 if board.turn == winner else -1
    out = []
    for info in sorted(result.lines, key=lambda i: i.score, reverse=True):
        if not info.pv:
            continue
        if info.score_mate is not None:
            out.append(Line(info.pv[0], None, sign * info.score_mate))
        else:
            out.append(Line(info.pv[0], sign * info.score_cp, None))
    return out


def _is_only_move(lines: List[Line]) -> bool:
    """lichess's `is_valid_attack` (no second line, or one far below the best), or: the best
    line wins and the second is clearly not winning (exactly one move wins)."""
    if len(lines) < 2:
        return True
    best, second = lines[0], lines[1]
    if best.at_least(WINNING_CP) and not second.at_least(SECOND_CEILING_CP):
        return True
    if best.mate == 1 and second.mate != 1:
        return second.chances <= MATE_IN_ONE_SECOND
    return best.chances > second.chances + UNIQUE_GAP


def _cook_mate(solver: MateSearch, board: Board, k: int,
               budget: FinderBudget) -> Optional[List[str]]:
    """The line of a mate in at most k from board whose every winner's move is the only one
    that mates within the moves left (the goal of a mate puzzle; a slower mate does not reach
    it); None if some winner's move is not unique."""
    found = shortest_mate(board, k, solver, node_limit=budget.mate_nodes)
    if found is None:
        return None
    codes = mate_line(board, found[0], found[1], solver, node_limit=budget.mate_nodes)
    if len(codes) != 2 * found[1] - 1:
        return None
    walker = board.copy()
    line = []
    for index, code in enumerate(codes):
        uci = walker.move_uci(code)
        if index % 2 == 0:
            left = found[1] - index // 2
            if len(mating_moves(walker, left, solver, node_limit=budget.mate_nodes)) != 1:
                return None
        line.append(uci)
        walker.push_code(code)
    return line if walker.is_checkmate() else None


def _table_ranking(tablebase, board: Board):
    """The tables' ranking of board's moves, or None without tables or when they do not
    decide the position."""
    if tablebase is None or board.castling_fen() != "-":
        return None
    return tablebase.rank_moves(board) or None


def _keeping_moves(board: Board, ranking) -> Tuple[int, List[str]]:
    """(the best result under the fifty-move rule: 1, 0, -1; the moves that keep it) of a
    ranked table position, as the puzzle judge counts them."""
    results = [(r.move, r.fifty_move_result(board.halfmove_clock)) for r in ranking]
    best = max(value for _, value in results)
    return best, [move for move, value in results if value == best]


def _table_lines(board: Board, ranking, winner: bool) -> List[Line]:
    """A table position's lines as a two-line search would give them, from the winner's view:
    at the winner's turn the moves that keep the win (TABLEBASE_WIN_CP) then one that does
    not (0), at the loser's turn the tables' best defence."""
    best, keeping = _keeping_moves(board, ranking)
    if board.turn != winner:
        return [Line(best_keeping_move(ranking, board.halfmove_clock).move,
                     -best * TABLEBASE_WIN_CP, None)]
    if best < 1:
        return [Line(keeping[0], best * TABLEBASE_WIN_CP, None)]
    first = best_keeping_move(ranking, board.halfmove_clock).move
    ordered = [first] + [move for move in keeping if move != first]
    lines = [Line(move, TABLEBASE_WIN_CP, None) for move in ordered[:2]]
    if len(lines) < 2:
        other = next((r.move for r in ranking if r.move not in keeping), None)
        if other is not None:
            lines.append(Line(other, 0, None))
    return lines


def _cook_material(searcher: Searcher, board: Board, budget: FinderBudget,
                   tablebase=None) -> Optional[Tuple[List[str], Line]]:
    """The forcing line of a material puzzle from board (winner to move), trimmed to end
    after a winner's move that had an alternative; None if the winner stops winning."""
    winner = board.turn
    walker = board.copy()
    plies: List[Tuple[str, bool, Line]] = []   # (move, had a second line, best line)
    while len(plies) < MAX_SOLUTION_PLIES and walker.has_legal_moves():
        if walker.is_repetition(2):
            return None
        ranking = _table_ranking(tablebase, walker)
        if ranking is not None:
            lines = _table_lines(walker, ranking, winner)
        else:
            lines = _lines(searcher, walker, budget.pair_nodes, winner)
        if not lines:
            break
        if walker.turn == winner and not _is_only_move(lines):
            break
        if not lines[0].at_least(WINNING_CP):
            return None
        plies.append((lines[0].move, len(lines) > 1, lines[0]))
        walker.push_uci(lines[0].move)
    while plies and (len(plies) % 2 == 0 or not plies[-1][1]):
        plies.pop()
    if not plies:
        return None
    return [move for move, _, _ in plies], plies[-1][2]


def verify_material(fen: str, moves: Sequence[str], budget: "FinderBudget",
                    chess960: Optional[bool] = None, tablebase=None) -> bool:
    """The check of a material puzzle's first winner's move (see VERIFY_FACTOR): a pure
    function of the puzzle and the budget, so it can be applied again to puzzles found
    before.  chess960: the puzzle is from a Chess960 game (None: when the FEN's castling
    rights need it, as board_from_fen).  In a position the tables (`tablebase`) hold: the
    move must be the only one that keeps the win."""
    board = board_from_fen(fen, chess960)
    board.push_uci(moves[0])
    ranking = _table_ranking(tablebase, board)
    if ranking is not None:
        best, keeping = _keeping_moves(board, ranking)
        return best == 1 and keeping == [moves[1]]
    lines = _lines(Searcher(budget.hash_mb), board, VERIFY_FACTOR * budget.pair_nodes, board.turn)
    if not lines or lines[0].move != moves[1] or not lines[0].at_least(WINNING_CP):
        return False
    return len(lines) < 2 or not lines[1].at_least(VERIFY_SECOND_CP)


def estimate_rating(board: Board, solution: Sequence[str], mate: bool,
                    searcher: Optional[Searcher] = None) -> int:
    """The puzzle's rating from its difficulty: for each winner's move of the solution (from
    board, the winner to move), the weakest level of NAMED_LEVELS whose search
    budget (nodes and depth, full strength, a fresh table) finds it; the puzzle gets the
    highest of these (MAX_RATING when no level finds a move), plus RATING_PER_EXTRA_MOVE for
    every winner's move after the first, within MIN_RATING..MAX_RATING.  In a mate puzzle a
    move that mates as fast counts as found."""
    searcher = searcher or Searcher(1)
    solver = MateSearch()
    walker = board.copy()
    hardest = MIN_RATING
    levels = sorted(NAMED_LEVELS.values())
    for index, move in enumerate(solution):
        if index % 2 == 0:
            accepted = {move}
            if mate:
                left = (len(solution) - index + 1) // 2
                try:
                    accepted |= {m for m, _ in mating_moves(walker, left, solver, node_limit=2_000_000)}
                except MateSearchInterrupted:
                    pass
            found_at = MAX_RATING
            for elo in levels:
                level = level_for_elo(elo, searcher.network is not None)
                searcher.clear()
                result = searcher.search(walker, nodes=level.nodes, depth=level.depth)
                if result.best_move in accepted:
                    found_at = elo
                    break
            hardest = max(hardest, found_at)
        walker.push_uci(move)
    solver_moves = (len(solution) + 1) // 2
    return max(MIN_RATING, min(MAX_RATING, hardest + RATING_PER_EXTRA_MOVE * (solver_moves - 1)))


def _game_url(game: Game, number: int, source: str) -> str:
    for tag in ("Site", "GameUrl", "Link"):
        value = game.headers.get(tag, "")
        if value.startswith(("http://", "https://")):
            return value
    return f"{source}#game{number}"


def _position_key(board: Board) -> str:
    return board.fen().rsplit(" ", 2)[0]


def _line_keys(board: Board, line: Sequence[str]) -> List[str]:
    walker = board.copy()
    keys = []
    for move in line:
        walker.push_uci(move)
        keys.append(_position_key(walker))
    return keys


def _pov(evaluation, white: bool) -> Line:
    own = evaluation.for_side(white)
    if own.mate is not None:
        return Line("", None, own.mate if own.mate else (1 if own.winner == white else -1))
    return Line("", own.cp, None)


def find_puzzles(game: Game, budget: FinderBudget = FinderBudget(), *, number: int = 1,
                 source: str = "games.pgn", searcher: Optional[Searcher] = None,
                 on_position: Optional[Callable[[], None]] = None,
                 tablebase=None) -> List[FoundPuzzle]:
    """Every puzzle of a game's main line (see the module docstring); tablebase: an
    engine.tablebase.Tablebase whose positions are judged by the tables.

    :raises FinderError: if the game has reading errors or an illegal start.
    """
    board = game.playable_board(number, FinderError)
    searcher = searcher or Searcher(budget.hash_mb)
    searcher.clear()
    rating_searcher = Searcher(1)
    solver = MateSearch()
    scan = Budget(nodes=budget.scan_nodes)
    url = _game_url(game, number, source)
    found: List[FoundPuzzle] = []
    seen = set()

    def evaluate(position: Board):
        verdict = tablebase_verdict(tablebase, position) if tablebase is not None else None
        if verdict is not None:
            return verdict[0]
        return evaluate_position(searcher, position, scan)[0]

    previous = evaluate(board)
    for ply, node in enumerate(game.moves):
        if node.uci == NULL_MOVE:
            # no puzzle through a pass (see the module docstring): the rest is not searched
            if on_position is not None:
                for _ in range(len(game.moves) - ply):
                    on_position()
            break
        before_fen = board.fen()
        board.push_uci(node.uci)
        evaluation = evaluate(board)
        if on_position is not None:
            on_position()
        winner = board.turn
        score, prior = _pov(evaluation, winner), _pov(previous, winner)
        previous = evaluation
        key = _position_key(board)
        if key in seen or len(board.legal_moves()) < 2:
            continue
        seen.add(key)
        is_mate = score.mate is not None and 0 < score.mate <= MAX_MATE
        if prior.at_least(ALREADY_WINNING_CP) and not is_mate:
            continue
        if material_diff(board, winner) > 0 and not is_mate:
            continue
        puzzle = None
        try:
            if is_mate:
                line = _cook_mate(solver, board, score.mate, budget)
                if line is not None:
                    puzzle = FoundPuzzle(before_fen, [node.uci] + line, "mate", (len(line) + 1) // 2,
                                         0, url, ply, chess960=game.chess960)
            elif score.at_least(WINNING_CP) and score.chances > prior.chances + BLUNDER_JUMP:
                if not score.at_least(CLEARLY_WINNING_CP) and material_diff(board, winner) > -1:
                    continue
                cooked = _cook_material(searcher, board, budget, tablebase)
                if cooked is not None and not verify_material(before_fen, [node.uci] + cooked[0],
                                                              budget, game.chess960, tablebase):
                    cooked = None
                if cooked is not None:
                    line, last = cooked
                    puzzle = FoundPuzzle(before_fen, [node.uci] + line, "material", None, 0, url,
                                         ply, score_cp=last.cp, chess960=game.chess960)
        except MateSearchInterrupted:
            puzzle = None
        if puzzle is not None:
            seen.update(_line_keys(board, puzzle.moves[1:]))   # no second puzzle on its line
            puzzle.rating = estimate_rating(board, puzzle.moves[1:], puzzle.kind == "mate",
                                            rating_searcher)
            found.append(puzzle)
    return found


@dataclass
class GamePuzzles:
    """The puzzles of one game and the number of its positions (for progress)."""

    number: int
    puzzles: List[FoundPuzzle]
    positions: int


def find_puzzles_pgn(text: str, budget: FinderBudget = FinderBudget(), number: int = 1,
                     source: str = "games.pgn", syzygy_path: Optional[str] = None) -> GamePuzzles:
    """find_puzzles on the first game of a PGN text: the plain function that worker processes
    and Ray tasks run; syzygy_path: the tables' folders (os.pathsep between them), opened in
    the worker.  :raises FinderError: no game, or a bad one."""
    game = read_game(io.StringIO(text))
    if game is None:
        raise FinderError(f"game {number}: no game in the text")
    tablebase = None
    if syzygy_path:
        from ..tablebase import Tablebase
        tablebase = Tablebase(syzygy_path)
    return GamePuzzles(number, find_puzzles(game, budget, number=number, source=source,
                                            tablebase=tablebase),
                       len(game.moves) + 1)
