"""Endgame drills: the basic endings played against perfect defence, every move judged at once.

A lesson (LESSONS) is a material and a goal for the player: win KQvK, KRvK, KBNvK, KPvK and
KRPvKR (the Lucena position), or hold the draw in KPvK and KRPvKR (the Philidor position).  Its
start is chosen from the Syzygy tables at a level of difficulty, reproducibly from a seed.  The
engine's side plays perfectly by the tables: it keeps its best result under the fifty-move rule,
then resists longest by DTZ when it loses, wins fastest when it wins, and, when it can only
draw, plays the draw that leaves the player the fewest saving replies.

Each move of the player is judged against the tables before the reply (`Drill.play`, a
`Verdict`): the fastest win (or a held draw), a win slower by N moves, or the result thrown
away, with the move that kept it.  A drill ends at mate, at a draw (stalemate, insufficient
material, the fifty-move rule, threefold repetition) or when the goal is out of reach.

The tables are read through a prober: any object with `probe_wdl(board)` and
`probe_dtz(board)` (TablebaseProber), each None for a position the tables do not hold.  At run
time that is Scacco's own reader (`open_tables`); the tests pass an oracle of their own.
"""
from __future__ import annotations

import dataclasses
import enum
import random
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Protocol, Sequence, Tuple, Union

from ..board import Board, MoveError
from ..tablebase import FIFTY_MOVE_PLIES, Tablebase, split_paths

__all__ = ["TablebaseProber", "open_tables", "Goal", "Lesson", "LESSONS", "lesson_named",
           "LEVEL_NAMES", "CLASSIC", "Judgement", "Ending", "Verdict", "DrillResult", "Drill",
           "DrillError", "MissingTableError", "choose_start", "classic_starts", "parse_level",
           "TableReader", "MoveValue", "game_ending", "material_name", "distance_words",
           "board_text", "FIFTY_MOVE_PLIES"]

# Random placements tried before a level is declared to have no position to offer.
MAX_PLACEMENTS = 20_000
# The level of the textbook set-ups (the lessons that have them).
CLASSIC = "classic"
LEVEL_NAMES = ("easy", "medium", "hard")

WIN, DRAW, LOSS = 1, 0, -1


class DrillError(ValueError):
    """A drill that cannot start or go on: an unknown lesson or level, no position for a
    level, no tables; the message says which."""


class MissingTableError(DrillError):
    """The tables do not hold a position the drill needs (the material's files are absent):
    `material` names it ("KBNvK"), `fen` is the position."""

    def __init__(self, material: str, fen: str) -> None:
        super().__init__(f"no {material} table ({material}.rtbw and {material}.rtbz) for {fen}")
        self.material = material
        self.fen = fen


class TablebaseProber(Protocol):
    """What the drills read the tables through: WDL (-2 loss, -1 blessed loss, 0 draw,
    1 cursed win, 2 win, for the side to move, as just after a capture or pawn move) and DTZ
    (python-chess's sign and meaning), each None when the tables do not hold the position."""

    def probe_wdl(self, board: Board) -> Optional[int]: ...

    def probe_dtz(self, board: Board) -> Optional[int]: ...


def open_tables(paths: Union[str, Sequence[str]]) -> TablebaseProber:
    """Scacco's own Syzygy reader over the folders `paths` (a list, or one string of folders
    separated by os.pathsep, as the UCI option SyzygyPath)."""
    try:
        return Tablebase(split_paths(paths))
    except (OSError, ValueError) as error:
        raise DrillError(f"cannot read the Syzygy tables: {error}") from error


# -- lessons -------------------------------------------------------------------------------------

class Goal(enum.Enum):
    """What the player must reach."""

    WIN = "win"
    DRAW = "draw"


# A set-up generator: the candidate FENs of a textbook position, before the tables check them.
SetUps = Callable[[], Iterator[str]]


@dataclass(frozen=True)
class Lesson:
    """One drill: the material (White's pieces first, "KRPvKR"), the player's colour and goal,
    and the difficulty bands of the win lessons in moves to mate or conversion by DTZ."""

    name: str
    title: str
    material: str
    player_white: bool
    goal: Goal
    bands: Tuple[Tuple[int, int], ...] = ()           # easy, medium, hard: (fewest, most) moves
    set_ups: Optional[SetUps] = None                   # the textbook positions, if any
    advice: str = ""

    @property
    def levels(self) -> Tuple[str, ...]:
        return ((CLASSIC,) if self.set_ups else ()) + LEVEL_NAMES

    @property
    def default_level(self) -> str:
        return CLASSIC if self.set_ups else LEVEL_NAMES[0]

    @property
    def most_moves(self) -> int:
        return self.bands[-1][1] if self.bands else 0


def _square(file: int, rank: int) -> Optional[int]:
    """The square index of a file and rank (0..7 each), None off the board."""
    return rank * 8 + file if 0 <= file < 8 and 0 <= rank < 8 else None


def _fen_of(pieces: Dict[int, str], white_to_move: bool) -> str:
    """The FEN of pieces by square (letters as in FEN), no castling, clocks at their start."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            letter = pieces.get(rank * 8 + file)
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows) + (" w" if white_to_move else " b") + " - - 0 1"


def _placed(*pieces: Tuple[str, Optional[int]]) -> Optional[Dict[int, str]]:
    """The squares of the pieces, or None when one is off the board or two share a square."""
    found: Dict[int, str] = {}
    for letter, square in pieces:
        if square is None or square in found:
            return None
        found[square] = letter
    return found


def lucena_set_ups() -> Iterator[str]:
    """The Lucena position across the board, White to move: the pawn on the seventh rank with
    its king on the queening square, the black king cut off by the white rook on the file
    between, the black rook on the other side; the tables keep the wins."""
    for pawn_file in range(1, 7):
        for side in (1, -1):
            for rook_rank in range(0, 4):
                for king_distance in (2, 3):
                    for king_rank in (5, 6):
                        for black_rook_distance in (1, 2):
                            for black_rook_rank in (0, 1):
                                pieces = _placed(
                                    ("K", _square(pawn_file, 7)), ("P", _square(pawn_file, 6)),
                                    ("R", _square(pawn_file + side, rook_rank)),
                                    ("k", _square(pawn_file + side * king_distance, king_rank)),
                                    ("r", _square(pawn_file - side * black_rook_distance,
                                                  black_rook_rank)))
                                if pieces:
                                    yield _fen_of(pieces, True)


def philidor_set_ups() -> Iterator[str]:
    """The Philidor position across the board, Black to move: the white pawn on the fifth rank
    with its king beside it and its rook on the seventh, the black king on the queening square
    (or next to it) and the black rook on the sixth rank, both rooks towards the edges; the
    tables keep the draws."""
    edge_files = (0, 1, 6, 7)
    for pawn_file in range(1, 7):
        for king_side in (1, -1):
            white_king_file = pawn_file + king_side
            for rook_file in edge_files:
                if abs(rook_file - pawn_file) < 2:
                    continue
                for black_king_file in (pawn_file - 1, pawn_file, pawn_file + 1):
                    for black_rook_file in edge_files:
                        if abs(black_rook_file - white_king_file) < 2 or \
                                abs(black_rook_file - pawn_file) < 2:
                            continue
                        pieces = _placed(
                            ("P", _square(pawn_file, 4)), ("K", _square(white_king_file, 4)),
                            ("R", _square(rook_file, 6)), ("k", _square(black_king_file, 7)),
                            ("r", _square(black_rook_file, 5)))
                        if pieces:
                            yield _fen_of(pieces, False)


LESSONS: Dict[str, Lesson] = {lesson.name: lesson for lesson in (
    Lesson("KQvK", "mate with king and queen", "KQvK", True, Goal.WIN,
           bands=((1, 3), (4, 6), (7, 10)),
           advice="Push the king to the edge with the queen a knight's move away, bring your "
                  "king, mate; never leave the king without a move (stalemate)."),
    Lesson("KRvK", "mate with king and rook", "KRvK", True, Goal.WIN,
           bands=((1, 5), (6, 11), (12, 16)),
           advice="Cut the king off with the rook, take the opposition with your king, and "
                  "check only when the kings face each other."),
    Lesson("KBNvK", "mate with bishop and knight", "KBNvK", True, Goal.WIN,
           bands=((1, 12), (13, 23), (24, 33)),
           advice="Mate comes only in a corner of the bishop's colour: drive the king there "
                  "(the W manoeuvre of the knight), within fifty moves."),
    Lesson("KPvK", "win with king and pawn", "KPvK", True, Goal.WIN,
           bands=((1, 1), (2, 4), (5, 10)),
           advice="Lead with the king, in front of the pawn; take the opposition; then mate "
                  "with the new queen."),
    Lesson("KPvK-draw", "hold the draw against king and pawn", "KPvK", False, Goal.DRAW,
           advice="Stay in front of the pawn and take the opposition when the white king "
                  "comes; on the last ranks, go straight back."),
    Lesson("Lucena", "win the Lucena position (rook and pawn against rook)", "KRPvKR", True,
           Goal.WIN, bands=((1, 1), (2, 4), (5, 15)), set_ups=lucena_set_ups,
           advice="Build a bridge: rook to the fourth rank, king out from in front of the "
                  "pawn, and the rook shields the king from the checks."),
    Lesson("Philidor", "hold the Philidor position (rook against rook and pawn)", "KRPvKR",
           False, Goal.DRAW, set_ups=philidor_set_ups,
           advice="Keep the rook on your third rank until the pawn steps onto it, then check "
                  "from behind; the king stays on the queening square."),
)}


def lesson_named(name: Union[str, Lesson]) -> Lesson:
    """The lesson of that name (any case).

    :raises DrillError: for a name that is no lesson, listing the lessons."""
    if isinstance(name, Lesson):
        return name
    for key, lesson in LESSONS.items():
        if key.lower() == str(name).lower():
            return lesson
    raise DrillError(f"no lesson {name!r}; the lessons: {', '.join(LESSONS)}")


# -- the tables, under the fifty-move rule --------------------------------------------------------

class Ending(enum.Enum):
    """How a drill ended."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient material"
    FIFTY_MOVES = "the fifty-move rule"
    REPETITION = "threefold repetition"
    RESULT_LOST = "the result thrown away"


def game_ending(board: Board) -> Optional[Ending]:
    """The end of the game on this board: mate first (a mate on the hundredth half-move
    counts), then the draws, the fifty-move rule and threefold repetition taken as claimed."""
    if not board.has_legal_moves():
        return Ending.CHECKMATE if board.is_check() else Ending.STALEMATE
    if board.is_insufficient_material():
        return Ending.INSUFFICIENT_MATERIAL
    if board.halfmove_clock >= FIFTY_MOVE_PLIES:
        return Ending.FIFTY_MOVES
    if board.is_repetition(3):
        return Ending.REPETITION
    return None


def material_name(board: Board) -> str:
    """The material in Syzygy's naming, the stronger side first: "KRPvKR"."""
    value = {"K": 0, "Q": 9, "R": 5, "B": 3, "N": 3, "P": 1}
    names = sorted(_side_letters(board), key=lambda name: (sum(value[c] for c in name),
                                                           len(name)), reverse=True)
    return "v".join(names)


@dataclass(frozen=True)
class MoveValue:
    """A move's worth for the side that plays it, by the tables and the fifty-move rule:
    WIN, DRAW or LOSS, the plies to the next capture, pawn move or mate with best play (plies,
    counted from before the move; 0 for a draw), and, for a draw or loss, why."""

    outcome: int
    plies: int
    reason: str = ""
    ending: Optional[Ending] = None

    @property
    def moves(self) -> int:
        """The mover's moves to mate or conversion, this one included."""
        return (self.plies + 1) // 2

    def preference(self) -> Tuple[int, int]:
        """Larger is better for the mover: the result, then a fast win or a slow loss."""
        if self.outcome == WIN:
            return (WIN, -self.plies)
        return (self.outcome, self.plies if self.outcome == LOSS else 0)


class TableReader:
    """The prober with what the drills add: a cache by position (the tables ignore the clocks),
    a clear error for a position the tables do not hold, and each move's MoveValue."""

    def __init__(self, prober: TablebaseProber) -> None:
        self.prober = prober
        self._cache: Dict[Tuple[str, str], int] = {}

    def _probe(self, kind: str, board: Board) -> int:
        key = (kind, " ".join(board.fen().split()[:4]))
        found = self._cache.get(key)
        if found is None:
            probe = self.prober.probe_wdl if kind == "wdl" else self.prober.probe_dtz
            found = probe(board)
            if found is None:
                raise MissingTableError(material_name(board), board.fen())
            self._cache[key] = found
        return found

    def wdl(self, board: Board) -> int:
        return self._probe("wdl", board)

    def dtz(self, board: Board) -> int:
        return self._probe("dtz", board)

    def move_value(self, board: Board, move: str) -> MoveValue:
        """The value of `move` for the side to move on `board` (left as it was)."""
        board.push_uci(move)
        try:
            return self._value_after(board)
        finally:
            board.pop()

    def _value_after(self, board: Board) -> MoveValue:
        """The value of the move just played on `board`, for the side that played it."""
        ending = game_ending(board)
        if ending is Ending.CHECKMATE:
            return MoveValue(WIN, 1)
        if ending is not None:
            return MoveValue(DRAW, 0, f"a draw by {ending.value}", ending)
        if board.halfmove_clock == 0:
            # a capture or pawn move: the tables' WDL is exact with the clock at zero
            wdl = -self.wdl(board)
            if abs(wdl) == 2:
                return MoveValue(WIN, 1) if wdl > 0 else MoveValue(LOSS, 1, "a loss with best play")
            return MoveValue(DRAW, 0, "a draw with best play" if wdl == 0 else
                             "a draw by the fifty-move rule with best play")
        dtz = -self.dtz(board)               # the mover's: > 0 wins, plies to conversion
        if dtz == 0:
            value = MoveValue(DRAW, 0, "a draw with best play")
        elif board.halfmove_clock + abs(dtz) > FIFTY_MOVE_PLIES:
            left = FIFTY_MOVE_PLIES - board.halfmove_clock
            whose = "the win" if dtz > 0 else "the opponent's win"
            value = MoveValue(DRAW, 0, f"a draw by the fifty-move rule: {whose} needs "
                                       f"{_plural(abs(dtz), 'more half-move')} without capture "
                                       f"or pawn move, {left} left")
        else:
            value = MoveValue(WIN if dtz > 0 else LOSS, abs(dtz) + 1,
                              "" if dtz > 0 else "a loss with best play")
        if value.outcome == WIN and self._allows_repetition(board):
            return MoveValue(DRAW, 0, "a draw: it lets the opponent repeat the position a "
                                      "third time", Ending.REPETITION)
        return value

    @staticmethod
    def _allows_repetition(board: Board) -> bool:
        """Has the opponent a reply that repeats a position for the third time?"""
        if board.halfmove_clock < 3:
            return False
        for reply in board.legal_moves():
            board.push_uci(reply)
            repeated = board.is_repetition(3)
            board.pop()
            if repeated:
                return True
        return False

    def move_values(self, board: Board) -> Dict[str, MoveValue]:
        """Every legal move's value, in the board's move order."""
        return {move: self.move_value(board, move) for move in board.legal_moves()}


def _plural(count: int, word: str) -> str:
    """ "1 move", "2 moves"."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# -- choosing a start -----------------------------------------------------------------------------

def _random_placement(lesson: Lesson, rng: random.Random) -> Optional[str]:
    """A FEN with the lesson's material on random squares, the player to move (pawns off the
    first and last ranks), or None when the squares clash."""
    white, black = lesson.material.split("v")
    letters = list(white) + [c.lower() for c in black]
    squares = rng.sample(range(64), len(letters))
    pieces: Dict[int, str] = {}
    for letter, square in zip(letters, squares):
        if letter in "Pp" and square // 8 in (0, 7):
            return None
        pieces[square] = letter
    return _fen_of(pieces, lesson.player_white)


def _usable_start(fen: str) -> Optional[Board]:
    """The board of a candidate start: legal, and without a capture for the player (a start
    that gives material away at once teaches nothing)."""
    try:
        board = Board(fen)
    except ValueError:
        return None
    if board.is_check() or game_ending(board) is not None:
        return None
    for move in board.legal_moves():
        if board.piece_at(_square_index(move[2:4])) is not None:
            return None
    return board


def _square_index(name: str) -> int:
    """The index of a square name ("e4" -> 28)."""
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def _holding_moves(reader: TableReader, board: Board) -> Tuple[int, int]:
    """(moves that hold the draw, legal moves) for the side to move."""
    values = reader.move_values(board).values()
    return sum(value.outcome >= DRAW for value in values), len(values)


def _fits_level(lesson: Lesson, reader: TableReader, board: Board,
                level: Union[str, int]) -> bool:
    """Has this start the lesson's result for the player and the level's difficulty?  A win
    lesson's level is its moves to mate or conversion (DTZ); a draw lesson's, how few of the
    player's moves hold (easy: most, medium: at most half, hard: one), and some move must lose."""
    wdl = reader.wdl(board)
    if lesson.goal is Goal.WIN:
        if wdl != 2:
            return False
        moves = (reader.dtz(board) + 1) // 2
        if isinstance(level, int):
            return moves == level
        if level not in LEVEL_NAMES:
            return True
        low, high = lesson.bands[LEVEL_NAMES.index(level)]
        return low <= moves <= high
    if wdl != 0:
        return False
    holding, total = _holding_moves(reader, board)
    if holding == total or holding == 0:
        return False
    if level == "easy":
        return 2 * holding > total
    if level == "medium":
        return 2 <= holding and 2 * holding <= total
    if level == "hard":
        return holding == 1
    return True


def parse_level(lesson: Lesson, level: Union[str, int, None]) -> Union[str, int]:
    """The lesson's level from a name (easy, medium, hard; classic for the lessons with a
    textbook set-up) or a number of moves to mate or conversion (win lessons); None is the
    lesson's default.

    :raises DrillError: for a level the lesson does not have."""
    if level is None:
        return lesson.default_level
    if isinstance(level, str) and level.strip().isdigit():
        level = int(level)
    if isinstance(level, int) and not isinstance(level, bool):
        if lesson.goal is not Goal.WIN:
            raise DrillError(f"{lesson.name} is about holding a draw: its levels are "
                             f"{', '.join(lesson.levels)} (no number of moves)")
        if not 1 <= level <= lesson.most_moves:
            raise DrillError(f"{lesson.name}: a level in moves must be in 1..{lesson.most_moves}")
        return level
    name = str(level).strip().lower()
    if name not in lesson.levels:
        numbers = f", or 1..{lesson.most_moves} moves" if lesson.goal is Goal.WIN else ""
        raise DrillError(f"{lesson.name} has no level {level!r}; its levels: "
                         f"{', '.join(lesson.levels)}{numbers}")
    return name


def classic_starts(lesson: Union[str, Lesson], tables: TablebaseProber) -> List[str]:
    """The lesson's textbook set-ups that the tables confirm: the lesson's result for the
    player, and (holding a draw) some move that loses.

    :raises DrillError: for a lesson without set-ups, or none confirmed."""
    lesson = lesson_named(lesson)
    if lesson.set_ups is None:
        raise DrillError(f"{lesson.name} has no textbook set-ups (level {CLASSIC})")
    reader = tables if isinstance(tables, TableReader) else TableReader(tables)
    confirmed = []
    for fen in lesson.set_ups():
        board = _usable_start(fen)
        if board is not None and _fits_level(lesson, reader, board, CLASSIC):
            confirmed.append(fen)
    if not confirmed:
        raise DrillError(f"{lesson.name}: the tables confirm none of the textbook set-ups")
    return confirmed


def choose_start(lesson: Union[str, Lesson], tables: TablebaseProber,
                 level: Union[str, int, None] = None, seed: Optional[int] = None) -> str:
    """A start for the lesson at the level, the same for the same seed and tables: a textbook
    set-up that the tables confirm (level classic), or a random placement of the material with
    the lesson's result for the player at the level's difficulty.

    :raises DrillError: for a bad level, or no position found (MAX_PLACEMENTS tries).
    :raises MissingTableError: when the tables lack the lesson's material."""
    lesson = lesson_named(lesson)
    level = parse_level(lesson, level)
    reader = tables if isinstance(tables, TableReader) else TableReader(tables)
    rng = random.Random(seed)
    if level == CLASSIC:
        return rng.choice(classic_starts(lesson, reader))
    for _ in range(MAX_PLACEMENTS):
        fen = _random_placement(lesson, rng)
        board = _usable_start(fen) if fen else None
        if board is not None and _fits_level(lesson, reader, board, level):
            return fen
    raise DrillError(f"{lesson.name}: no position at level {level} in {MAX_PLACEMENTS} tries")


# -- the drill ------------------------------------------------------------------------------------

class Judgement(enum.Enum):
    """The verdict on one move of the player."""

    BEST = "best"          # wins as fast as the tables allow
    SLOWER = "slower"      # still wins, in more moves
    HOLDS = "holds"        # keeps the draw (a draw lesson)
    THROWN = "thrown"      # the win (or the draw) thrown away
    REFUSED = "refused"    # not a legal move here (or the drill is over): nothing changed


@dataclass(frozen=True)
class DrillResult:
    """The end of a drill: success, how it ended, and the player's moves judged."""

    success: bool
    ending: Ending
    moves: int                # the player's moves
    best: int                 # the fastest (or, drawing, holding) ones
    slower: int               # still winning, more slowly
    moves_lost: int           # the moves the slower ones cost in all
    text: str


@dataclass(frozen=True)
class Verdict:
    """The judgement of one move, the engine's reply, and whether the drill is over."""

    judgement: Judgement
    text: str                            # one or two sentences for the player
    move: Optional[str] = None           # the player's move, UCI (None when refused)
    san: Optional[str] = None
    moves_lost: int = 0                  # SLOWER: moves more to mate or conversion
    moves_left: Optional[int] = None     # a win: the player's moves to mate or conversion
    best_move: Optional[str] = None      # the move that kept the result (the fastest), SAN
    reply: Optional[str] = None          # the engine's answer, UCI (None when the drill ended)
    reply_san: Optional[str] = None
    finished: bool = False
    result: Optional[DrillResult] = None

    @property
    def accepted(self) -> bool:
        return self.judgement is not Judgement.REFUSED


class Drill:
    """One lesson played from a start: the player's moves through `play`, the engine's replies
    perfect by the tables.

    :param lesson: a lesson or its name (LESSONS).
    :param level: easy, medium, hard, classic (the Lucena and Philidor set-ups) or a number of
        moves to mate or conversion; None for the lesson's default.
    :param seed: makes the start (and the engine's choice among equal moves) reproducible;
        None draws one (see `seed`).
    :param fen: a start of one's own instead (it must have the lesson's result for the player).
    :param tables: the prober; by default Scacco's reader over `paths` (open_tables).
    :raises DrillError: a bad lesson, level or start; MissingTableError without the tables.
    """

    def __init__(self, lesson: Union[str, Lesson], *, level: Union[str, int, None] = None,
                 seed: Optional[int] = None, fen: Optional[str] = None,
                 tables: Optional[TablebaseProber] = None,
                 paths: Union[str, Sequence[str], None] = None) -> None:
        self.lesson = lesson_named(lesson)
        if tables is None:
            if paths is None:
                raise DrillError("no tables: give a prober (tables) or Syzygy folders (paths)")
            tables = open_tables(paths)
        self.seed = seed if seed is not None else random.SystemRandom().randrange(10 ** 9)
        self._reader = TableReader(tables)
        if fen is None:
            self.level: Union[str, int, None] = parse_level(self.lesson, level)
            fen = choose_start(self.lesson, self._reader, self.level, self.seed)
        else:
            self.level = None
            self._check_start(fen)
        self.start_fen = fen
        self._rng = random.Random(self.seed)
        self._board = Board(fen)
        self._judged: List[Verdict] = []
        self._result: Optional[DrillResult] = None
        self._values_key: Optional[Tuple[str, ...]] = None
        self._values_found: Dict[str, MoveValue] = {}

    def _check_start(self, fen: str) -> None:
        try:
            board = Board(fen)
        except ValueError as error:
            raise DrillError(f"bad start: {error}") from None
        if board.castling_fen() != "-":
            raise DrillError("bad start: castling rights (the tables hold positions without)")
        if board.turn != self.lesson.player_white:
            raise DrillError(f"bad start: {self.lesson.name} starts with "
                             f"{_colour(self.lesson.player_white)} to move")
        if "v".join(_side_letters(board)) != self.lesson.material:
            raise DrillError(f"bad start: {self.lesson.name} needs {self.lesson.material} "
                             f"(White's pieces first)")
        wanted = WIN if self.lesson.goal is Goal.WIN else DRAW
        if game_ending(board) is not None or \
                self._best(self._reader.move_values(board)).outcome != wanted:
            raise DrillError(f"bad start: the tables do not give the player a "
                             f"{self.lesson.goal.value} in {fen}")

    # -- the position, for a display ------------------------------------------------------

    @property
    def board(self) -> Board:
        """A copy of the current position (with the moves played, for repetitions)."""
        return self._board.copy()

    @property
    def fen(self) -> str:
        return self._board.fen()

    @property
    def player_white(self) -> bool:
        return self.lesson.player_white

    @property
    def halfmove_clock(self) -> int:
        """Half-moves since the last capture or pawn move: at FIFTY_MOVE_PLIES it is a draw."""
        return self._board.halfmove_clock

    @property
    def legal_moves(self) -> List[str]:
        """The player's legal moves (UCI); none once the drill is over."""
        return [] if self.finished else self._board.legal_moves()

    def legal_moves_san(self) -> List[str]:
        return [self._board.san(move) for move in self.legal_moves]

    @property
    def moves(self) -> List[str]:
        """The moves played since the start (UCI), the engine's included."""
        return self._board.move_stack()

    @property
    def verdicts(self) -> List[Verdict]:
        """The judgements of the player's accepted moves, in order."""
        return list(self._judged)

    @property
    def finished(self) -> bool:
        return self._result is not None

    @property
    def result(self) -> Optional[DrillResult]:
        return self._result

    def moves_left(self) -> Optional[int]:
        """The player's moves to mate or conversion with best play (a win lesson), else None."""
        if self.finished or self.lesson.goal is not Goal.WIN:
            return None
        best = self._best(self._values())
        return best.moves if best.outcome == WIN else None

    def best_moves(self) -> List[str]:
        """The player's moves (UCI) that keep the lesson's result at its best: the fastest
        wins, or every move that holds the draw (a hint); none once the drill is over."""
        if self.finished:
            return []
        values = self._values()
        best = self._best(values)
        if best.outcome == DRAW:
            return [move for move, value in values.items() if value.outcome == DRAW]
        return [move for move, value in values.items()
                if value.outcome == best.outcome and value.moves == best.moves]

    def take_back(self) -> bool:
        """Take back the player's last move and the engine's reply (an ended drill goes on
        again from before that move); False when no move was played."""
        if not self._judged:
            return False
        last = self._judged.pop()
        if last.reply is not None:
            self._board.pop()
        self._board.pop()
        self._result = None
        return True

    def restart(self) -> "Drill":
        """The same lesson from the same start and seed, played afresh."""
        again = Drill.__new__(Drill)
        again.__dict__.update(self.__dict__)
        again._board = Board(self.start_fen)
        again._rng = random.Random(self.seed)
        again._judged = []
        again._result = None
        again._values_key = None
        return again

    # -- playing ----------------------------------------------------------------------------

    def judge(self, text: str) -> Verdict:
        """The verdict the move (SAN or UCI) would get, without playing it or the reply: a
        REFUSED verdict for a move that cannot be read or is not legal, or a drill that is
        over."""
        if self.finished:
            return Verdict(Judgement.REFUSED, "The drill is over: "
                           + (self._result.text if self._result else ""))
        try:
            move = self._board.parse_san(text)
        except MoveError as error:
            return Verdict(Judgement.REFUSED, _move_error_text(error, self._board.fen()))
        if move == "0000":
            return Verdict(Judgement.REFUSED, f"{text.strip()!r} is a null move: play a real move.")
        values = self._values()
        return self._judge(move, self._board.san(move), values)

    def play(self, text: str) -> Verdict:
        """Judge and play the player's move (SAN or UCI), then the engine's reply.  A move that
        cannot be read or is not legal (or a drill that is over) gives a REFUSED verdict and
        changes nothing."""
        verdict = self.judge(text)
        if not verdict.accepted:
            return verdict
        self._board.push_uci(verdict.move)
        ending = game_ending(self._board)
        reply = reply_san = None
        if verdict.judgement is Judgement.THROWN:
            ending = ending or Ending.RESULT_LOST
        elif ending is None:
            reply = self._reply()
            reply_san = self._board.san(reply)
            self._board.push_uci(reply)
            ending = game_ending(self._board) or self._out_of_reach()
        verdict = dataclasses.replace(verdict, reply=reply, reply_san=reply_san)
        self._judged.append(verdict)
        if ending is not None:
            self._result = self._summary(ending, verdict.judgement is Judgement.THROWN)
            verdict = dataclasses.replace(verdict, finished=True, result=self._result)
            self._judged[-1] = verdict
        return verdict

    def _values(self) -> Dict[str, MoveValue]:
        """Every legal move's value in the current position, computed once per position of
        the game (keyed by the moves that led to it: repetitions depend on them)."""
        key = tuple(self._board.move_stack())
        if self._values_key != key:
            self._values_key, self._values_found = key, self._reader.move_values(self._board)
        return self._values_found

    def _out_of_reach(self) -> Optional[Ending]:
        """RESULT_LOST when the player's best move no longer reaches the lesson's goal (only
        the format's rounding of DTZ near the fifty-move limit can bring that after a move
        judged good), else None."""
        wanted = WIN if self.lesson.goal is Goal.WIN else DRAW
        best = self._best(self._values())
        return Ending.RESULT_LOST if best.outcome < wanted else None

    @staticmethod
    def _best(values: Dict[str, MoveValue]) -> MoveValue:
        return max(values.values(), key=MoveValue.preference)

    def _judge(self, move: str, san: str, values: Dict[str, MoveValue]) -> Verdict:
        """The verdict on `move` among the values of every legal move (before the reply)."""
        best = self._best(values)
        mine = values[move]
        best_moves = [m for m, v in values.items() if v.preference() == best.preference()]
        best_san = self._board.san(best_moves[0]) if move not in best_moves else None
        if best.outcome == WIN:
            words = distance_words(self._board)
            if mine.outcome == WIN and mine.moves <= best.moves:
                text = (f"{san}: mate." if mine.plies == 1 and self._mates(move) else
                        f"{san}: the fastest win ({words} in {_plural(mine.moves, 'move')}).")
                return Verdict(Judgement.BEST, text, move, san, moves_left=mine.moves)
            if mine.outcome == WIN:
                lost = mine.moves - best.moves
                text = (f"{san}: still winning, but {_plural(lost, 'move')} slower than "
                        f"{best_san} ({words} in {mine.moves} instead of {best.moves}).")
                return Verdict(Judgement.SLOWER, text, move, san, moves_lost=lost,
                               moves_left=mine.moves, best_move=best_san)
            what = "the win"
        else:
            if mine.outcome >= DRAW:
                only = sum(v.outcome >= DRAW for v in values.values()) == 1
                text = f"{san}: holds the draw" + (" (the only move that does)." if only else ".")
                return Verdict(Judgement.HOLDS, text, move, san)
            what = "the draw"
        keeping = sum(v.outcome == best.outcome for v in values.values())
        if best_san is None:
            best_san = self._board.san(best_moves[0])
        others = f" (as did {_plural(keeping - 1, 'other move')})" if keeping > 1 else ""
        text = f"{san}?? throws {what} away: {mine.reason}. {best_san} kept it{others}."
        return Verdict(Judgement.THROWN, text, move, san, best_move=best_san)

    def _mates(self, move: str) -> bool:
        """Does the move mate?"""
        self._board.push_uci(move)
        try:
            return self._board.is_checkmate()
        finally:
            self._board.pop()

    def _reply(self) -> str:
        """The engine's move: its best result, then the longest resistance (losing), the
        fastest win (winning) or the draw leaving the player fewest saving replies; ties
        broken by the drill's seed."""
        values = self._values()
        best = self._best(values)
        candidates = [m for m, v in values.items() if v.preference() == best.preference()]
        if best.outcome == DRAW and len(candidates) > 1:
            candidates = self._hardest_draws(candidates, values)
        return self._rng.choice(candidates)

    def _hardest_draws(self, candidates: List[str], values: Dict[str, MoveValue]) -> List[str]:
        """The drawing moves after which the player has the fewest replies that hold (a move
        that ends the game comes last)."""
        counted: Dict[str, int] = {}
        for move in candidates:
            if values[move].ending is not None:
                counted[move] = 10 ** 6
                continue
            self._board.push_uci(move)
            try:
                counted[move] = _holding_moves(self._reader, self._board)[0]
            finally:
                self._board.pop()
        fewest = min(counted.values())
        return [move for move in candidates if counted[move] == fewest]

    def _summary(self, ending: Ending, thrown: bool) -> DrillResult:
        judged = self._judged
        best = sum(v.judgement in (Judgement.BEST, Judgement.HOLDS) for v in judged)
        slower = sum(v.judgement is Judgement.SLOWER for v in judged)
        lost = sum(v.moves_lost for v in judged)
        goal = self.lesson.goal.value
        if ending is Ending.RESULT_LOST and not thrown:
            success = False
            head = f"The {goal} is out of reach now"
        elif thrown:
            success = False
            head = (f"The {goal} was thrown away" if ending is Ending.RESULT_LOST else
                    f"The {goal} was thrown away: a draw by {ending.value}")
        elif self.lesson.goal is Goal.WIN:
            success = ending is Ending.CHECKMATE
            head = "Mate: you won" if success else f"No win: a draw by {ending.value}"
        else:
            success = True
            head = f"Draw held: a draw by {ending.value}"
        parts = [f"{best} best"] + ([f"{slower} slower"] if slower else []) \
            + ([f"1 threw the {goal} away"] if thrown else [])
        text = (f"{head} after {_plural(len(judged), 'move')} ({', '.join(parts)}"
                + (f"; {_plural(lost, 'move')} lost to slower wins" if lost else "") + ").")
        return DrillResult(success, ending, len(judged), best, slower, lost, text)


def _colour(white: bool) -> str:
    return "White" if white else "Black"


def _side_letters(board: Board) -> Tuple[str, str]:
    """White's and Black's pieces as letters in Syzygy's order: ("KRP", "KR")."""
    order = "KQRBNP"
    letters = [board.piece_at(square) for square in range(64)]
    white = sorted((c for c in letters if c and c.isupper()), key=order.index)
    black = sorted((c.upper() for c in letters if c and c.islower()), key=order.index)
    return "".join(white), "".join(black)


def distance_words(board: Board) -> str:
    """"mate" when nothing but mate can zero the clock (no pawn, a bare defending king),
    else "conversion": the next capture, pawn move or mate."""
    letters = [board.piece_at(sq) for sq in range(64)]
    pieces = [letter for letter in letters if letter]
    bare_side = {"K"} == {c for c in pieces if c.isupper()} or \
        {"k"} == {c for c in pieces if c.islower()}
    if bare_side and not any(c in "Pp" for c in pieces):
        return "mate"
    return "mate or conversion"


def _move_error_text(error: MoveError, fen: str) -> str:
    """The board's message without the FEN it ends with (the player sees the board)."""
    message = str(error)
    if message.endswith(f" in {fen}"):
        message = message[:-len(f" in {fen}")]
    return message[:1].upper() + message[1:] + "."


# -- the terminal board ---------------------------------------------------------------------------

def board_text(board: Board, white_below: bool = True) -> str:
    """The board as text, the player's side below: pieces as FEN letters, empty squares '.'."""
    ranks = range(7, -1, -1) if white_below else range(8)
    files = range(8) if white_below else range(7, -1, -1)
    lines = [f"{rank + 1}  " + " ".join(board.piece_at(rank * 8 + f) or "." for f in files)
             for rank in ranks]
    lines.append("   " + " ".join("abcdefgh"[f] for f in files))
    return "\n".join(lines)
