"""PGN: a streaming reader and a writer, shaped like python-chess's `chess.pgn`.

`read_game(handle)` reads one game per call from a text handle and returns None at the end of
the file.  What it builds is up to a visitor: the reader calls `begin_game`, `visit_header`,
`end_headers`, `begin_moves`, `visit_move`, `visit_comment`, `visit_nag`, `begin_variation` /
`end_variation`, `visit_result`, `handle_error` and `end_game`, and returns the visitor's
`result()`.  The default visitor, `GameBuilder`, builds a `Game`; `read_headers` and
`skip_game` only look for the end of the game (cheap, for indexing a large file); `PgnWriter`
is a visitor that writes the game back as standard PGN, so copying a file through it never
builds a game.  Only the game being read is ever in memory.

What real exports contain is read: tag pairs with escapes, `{}` and `;` comments, nested
variations, NAGs and move-quality glyphs, move numbers, `%` escape lines, a UTF-8 byte order
mark, CRLF, blank lines between tags, `[SetUp]`/`[FEN]` starting positions, Chess960, SAN or
UCI moves, null moves.  A bad game never stops the reader: an illegal or unreadable move is
recorded in the game's errors (game number, move number, text), the moves before it are kept
and the rest of the game is skipped (the rest of the variation, when it is in a variation).

Where a game ends: at a blank line once the movetext has begun (a blank line after nothing
but comments does not end it), at a tag-pair line (a new game without a blank line before it;
that line is kept for the next call), at a blank line followed by a tag the game already has,
or at the end of the file.
"""
from __future__ import annotations

import os
import re
import weakref
from dataclasses import dataclass, field
from typing import (IO, Any, Dict, Generic, Iterator, List, Optional, Tuple, TypeVar,
                    Union)

from .board import STARTING_FEN, Board

__all__ = [
    "Game", "MoveNode", "PgnError", "Visitor", "GameBuilder", "HeadersBuilder", "MainLineBuilder",
    "SkipVisitor",
    "PgnWriter", "PgnReader", "SKIP", "read_game", "read_headers", "skip_game", "read_games",
    "write_game", "NAG_GLYPHS", "SEVEN_TAG_ROSTER",
]

ResultT = TypeVar("ResultT")

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
ROSTER_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?",
                   "White": "?", "Black": "?", "Result": "*"}
RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "*"})

# Move-quality and evaluation glyphs and the NAGs they stand for (the PGN standard's table:
# $1 good move ... $6 dubious move, $7 forced, $10 drawish, $13 unclear, $14..$19 advantages).
NAG_GLYPHS = {
    "!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6, "\u25a1": 7, "=": 10, "\u221e": 13,
    "+=": 14, "\u2a72": 14, "=+": 15, "\u2a71": 15, "+/-": 16, "\u00b1": 16,
    "-/+": 17, "\u2213": 17, "+-": 18, "-+": 19,
}
MAX_NAG = 255

# Variant tag values (lower case, without spaces, hyphens or underscores).
CHESS960_VARIANTS = frozenset({"chess960", "960", "fischerandom", "fischerrandom",
                               "fischerrandomchess", "frc"})
STANDARD_VARIANTS = frozenset({"", "standard", "fromposition", "normal", "chess", "regular"})

# Limits that keep one bad file from taking all memory: a line is read in pieces of at most
# LINE_LIMIT characters (cut at whitespace), a comment keeps at most COMMENT_LIMIT
# characters, variations nest at most MAX_VARIATION_DEPTH deep (deeper ones are skipped), and
# a game reports at most MAX_GAME_ERRORS errors from its moves.
LINE_LIMIT = 1 << 16
COMMENT_LIMIT = 1 << 20
MAX_VARIATION_DEPTH = 100
MAX_GAME_ERRORS = 100

# A tag pair, strictly (several may share a line), and loosely (one per line, the value up to
# the last quote, for values with unescaped quotes inside).
TAG_PAIR = re.compile(r'\[\s*([A-Za-z0-9_][A-Za-z0-9_+#=:-]*)\s*"((?:[^"\\]|\\.)*)"\s*\]')
LOOSE_TAG_PAIR = re.compile(r'\[\s*([A-Za-z0-9_][A-Za-z0-9_+#=:-]*)\s+"(.*)"\s*\]')
TAG_LINE_START = re.compile(r'\s*\[\s*[A-Za-z0-9_][A-Za-z0-9_+#=:-]*\s*"')
TAG_ESCAPE = re.compile(r'\\(["\\])')
# Movetext tokens: brackets, comment starts, NAGs, and words (moves, numbers, results, junk).
TOKEN = re.compile(r'[{};()]|\$\d*|[^\s{};()$]+')
MOVE_NUMBER = re.compile(r'\d*\.+')
NULL_WORDS = frozenset({"--", "Z0", "0000", "@@@@"})
EN_PASSANT_MARKS = frozenset({"e.p.", "e.p", "ep"})
MOVE_SUFFIX_CHARS = "+#!?"


class PgnError(ValueError):
    """A problem in a PGN game: which game (1 = first of the file), which move, what text.

    :ivar game_number: the game's number in its file (counting from 1).
    :ivar move_number: like "12." or "12..." (black to move), or None outside the moves.
    :ivar text: the offending text, or None.
    """

    def __init__(self, message: str, game_number: int, move_number: Optional[str] = None,
                 text: Optional[str] = None) -> None:
        where = f"game {game_number}" + (f", move {move_number}" if move_number else "")
        super().__init__(f"{where}: {message}")
        self.game_number = game_number
        self.move_number = move_number
        self.text = text


class _Skip:
    """The type of SKIP."""

    def __repr__(self) -> str:
        return "SKIP"


# Returned by begin_game, end_headers or begin_variation to skip that part of the game.
SKIP = _Skip()


# ---------------------------------------------------------------------------------------------
# The game model

@dataclass
class MoveNode:
    """One move of a line: its UCI and SAN, NAGs, the comment after it, and its alternatives.

    `variations` are lines played instead of this move (each from the position before it).
    `starting_comment` is a comment before the move; PGN keeps it only for the first move of
    a variation.
    """

    uci: str
    san: str
    nags: List[int] = field(default_factory=list)
    comment: str = ""
    starting_comment: str = ""
    variations: List[List["MoveNode"]] = field(default_factory=list)


@dataclass
class Game:
    """A game: headers in their order, the starting position, the main line as a tree of
    MoveNodes (with variations), the comment before the first move, the result and the
    errors met while reading it (PgnError)."""

    headers: Dict[str, str] = field(default_factory=dict)
    fen: str = STARTING_FEN
    chess960: bool = False
    comment: str = ""
    moves: List[MoveNode] = field(default_factory=list)
    result: str = "*"
    errors: List[PgnError] = field(default_factory=list)

    def mainline_uci(self) -> List[str]:
        return [node.uci for node in self.moves]

    def mainline_san(self) -> List[str]:
        return [node.san for node in self.moves]

    def board(self) -> Board:
        """The starting position.  :raises ValueError: if the FEN is illegal."""
        return Board(self.fen, chess960=self.chess960)

    def end_board(self) -> Board:
        """The position after the main line, with the moves on its stack."""
        board = self.board()
        for node in self.moves:
            board.push_move(node.uci)
        return board

    def accept(self, visitor: "Visitor[ResultT]") -> ResultT:
        """Replays the game into a visitor in PGN order (as the reader would) and returns the
        visitor's result; `game.accept(PgnWriter())` is the game's PGN text."""
        if visitor.begin_game() is not SKIP:
            for name, value in self.headers.items():
                visitor.visit_header(name, value)
            if visitor.end_headers() is not SKIP:
                board = self.board()
                visitor.begin_moves(board)
                if self.comment:
                    visitor.visit_comment(self.comment)
                _accept_line(board, self.moves, visitor)
                visitor.visit_result(self.result)
        visitor.end_game()
        return visitor.result()

    def __str__(self) -> str:
        return self.accept(PgnWriter())


def _accept_line(board: Board, line: List[MoveNode], visitor: "Visitor[Any]") -> None:
    """Replays a line (and its variations, depth first) from the board's position; the board
    is left after the line's moves."""
    for node in line:
        if node.starting_comment:
            visitor.visit_comment(node.starting_comment)
        visitor.visit_move(board, node.uci)
        for nag in node.nags:
            visitor.visit_nag(nag)
        if node.comment:
            visitor.visit_comment(node.comment)
        for variation in node.variations:
            if visitor.begin_variation() is not SKIP:
                before = board.ply
                _accept_line(board, variation, visitor)
                while board.ply > before:
                    board.pop()
            visitor.end_variation()
        board.push_move(node.uci)


# ---------------------------------------------------------------------------------------------
# Visitors

class Visitor(Generic[ResultT]):
    """What the reader calls, in PGN order.  Every method does nothing by default.

    The board given to `begin_moves` and `visit_move` is the reader's own: look, do not
    change it (copy it to keep it).
    """

    def begin_game(self) -> Optional[_Skip]:
        """A game starts; return SKIP to skip all of it (headers included)."""

    def visit_header(self, name: str, value: str) -> None:
        """A tag pair, unescaped, in the order of the file."""

    def end_headers(self) -> Optional[_Skip]:
        """The tag pairs are over; return SKIP to skip the moves."""

    def begin_moves(self, board: Board) -> None:
        """The moves start from this position ([FEN] or the standard one; Chess960 or not)."""

    def visit_move(self, board: Board, uci: str) -> None:
        """A move, in UCI, and the board before it ("0000" is a null move)."""

    def visit_comment(self, text: str) -> None:
        """A {} or ; comment, without its braces and outer whitespace."""

    def visit_nag(self, nag: int) -> None:
        """A NAG ($n, or a glyph such as ! or ?! after a move) for the last move."""

    def begin_variation(self) -> Optional[_Skip]:
        """A variation replacing the last move starts; return SKIP to skip it."""

    def end_variation(self) -> None:
        """The variation ends (also for a skipped one)."""

    def visit_result(self, result: str) -> None:
        """The game termination marker: 1-0, 0-1, 1/2-1/2 or *."""

    def handle_error(self, error: PgnError) -> None:
        """Something in the game could not be read; the reader goes on."""

    def end_game(self) -> None:
        """The game is over."""

    def result(self) -> ResultT:
        """What read_game returns for this game."""
        return None  # type: ignore[return-value]


def _join(first: str, second: str) -> str:
    return f"{first} {second}" if first else second


class GameBuilder(Visitor[Game]):
    """Builds a Game with everything in it: headers, moves (UCI and SAN), comments, NAGs,
    variations, result and errors."""

    def begin_game(self) -> None:
        self.game = Game()
        self._lines: List[List[MoveNode]] = [self.game.moves]
        self._pending_comments: List[str] = [""]
        self._result_seen = False

    def visit_header(self, name: str, value: str) -> None:
        self.game.headers[name] = value

    def begin_moves(self, board: Board) -> None:
        self.game.fen = board.fen()
        self.game.chess960 = board.chess960

    def visit_move(self, board: Board, uci: str) -> None:
        node = MoveNode(uci, board.san(uci))
        if self._pending_comments[-1]:
            node.starting_comment = self._pending_comments[-1]
            self._pending_comments[-1] = ""
        self._lines[-1].append(node)

    def visit_comment(self, text: str) -> None:
        line = self._lines[-1]
        if line:
            line[-1].comment = _join(line[-1].comment, text)
        elif len(self._lines) == 1:
            self.game.comment = _join(self.game.comment, text)
        else:
            self._pending_comments[-1] = _join(self._pending_comments[-1], text)

    def visit_nag(self, nag: int) -> None:
        if self._lines[-1]:
            self._lines[-1][-1].nags.append(nag)

    def begin_variation(self) -> None:
        variation: List[MoveNode] = []
        self._lines[-1][-1].variations.append(variation)
        self._lines.append(variation)
        self._pending_comments.append("")

    def end_variation(self) -> None:
        variation = self._lines.pop()
        comment = self._pending_comments.pop()
        parent = self._lines[-1][-1]
        if not variation:
            # Nothing readable in it: drop it, keeping a comment it held.
            parent.variations.pop()
            if comment:
                parent.comment = _join(parent.comment, comment)

    def visit_result(self, result: str) -> None:
        self.game.result = result
        self._result_seen = True

    def handle_error(self, error: PgnError) -> None:
        self.game.errors.append(error)

    def end_game(self) -> None:
        if not self._result_seen:
            header = self.game.headers.get("Result", "*")
            self.game.result = header if header in RESULTS else "*"

    def result(self) -> Game:
        return self.game


class HeadersBuilder(Visitor[Dict[str, str]]):
    """Collects the tag pairs and skips the moves."""

    def begin_game(self) -> None:
        self.headers: Dict[str, str] = {}

    def visit_header(self, name: str, value: str) -> None:
        self.headers[name] = value

    def end_headers(self) -> _Skip:
        return SKIP

    def result(self) -> Dict[str, str]:
        return self.headers


class MainLineBuilder(Visitor[List[str]]):
    """The main line's moves in UCI, variations skipped and nothing else built: what a reader
    of the game's moves alone (an analysis, an index of a large file) needs."""

    def begin_game(self) -> None:
        self.moves: List[str] = []

    def begin_variation(self) -> _Skip:
        return SKIP

    def visit_move(self, board: Board, uci: str) -> None:
        self.moves.append(uci)

    def result(self) -> List[str]:
        return self.moves


class SkipVisitor(Visitor[bool]):
    """Skips a whole game."""

    def begin_game(self) -> _Skip:
        return SKIP

    def result(self) -> bool:
        return True


def _escape_tag(value: str) -> str:
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    return " ".join(value.splitlines()) if "\n" in value or "\r" in value else value


class PgnWriter(Visitor[str]):
    """Writes a game as standard PGN (export format): the seven tag roster first (with "?"
    for what is missing), then the other tags in order; movetext in lines of at most
    `columns` characters, with move numbers (N... for black after a comment or variation),
    {} comments (wrapped at spaces; a "}" inside is dropped), $n NAGs, nested variations
    and the result.  A non-standard start adds [SetUp "1"] and [FEN], Chess960 adds
    [Variant "Chess960"], when missing.

    :param handle: where each game's text goes (after it, a blank line); without one, the
        text is only returned by result().
    """

    def __init__(self, handle: Optional[IO[str]] = None, columns: int = 80) -> None:
        self.handle = handle
        self.columns = columns
        self._text = ""

    def begin_game(self) -> None:
        self._headers: Dict[str, str] = {}
        self._lines: List[str] = []
        self._line = ""
        self._last_token_at = 0
        self._open_variations = 0
        self._need_number = True
        self._result: Optional[str] = None

    def visit_header(self, name: str, value: str) -> None:
        self._headers[name] = value

    def begin_moves(self, board: Board) -> None:
        if board.fen() != STARTING_FEN or "FEN" in self._headers:
            self._headers.setdefault("SetUp", "1")
            self._headers.setdefault("FEN", board.fen())
        if board.chess960:
            variant = re.sub(r"[\s_-]", "", self._headers.get("Variant", "").lower())
            if variant not in CHESS960_VARIANTS:
                self._headers["Variant"] = "Chess960"

    def visit_move(self, board: Board, uci: str) -> None:
        # A move number stays on the line of its move.
        san = board.san(uci)
        if board.turn:
            self._token(f"{board.fullmove_number}. {san}")
        elif self._need_number:
            self._token(f"{board.fullmove_number}... {san}")
        else:
            self._token(san)
        self._need_number = False

    def visit_comment(self, text: str) -> None:
        words = text.replace("}", "").split()
        if not words:
            return
        words[0] = "{" + words[0]
        words[-1] += "}"
        for word in words:
            self._token(word)
        self._need_number = True

    def visit_nag(self, nag: int) -> None:
        self._token(f"${nag}")

    def begin_variation(self) -> None:
        # "(" is written with the variation's first token, so an empty variation leaves none.
        self._open_variations += 1
        self._need_number = True

    def end_variation(self) -> None:
        if self._open_variations:
            self._open_variations -= 1
        else:
            self._close_variation()
        self._need_number = True

    def visit_result(self, result: str) -> None:
        self._result = result

    def end_game(self) -> None:
        result = self._result or self._headers.get("Result", "*")
        self._open_variations = 0
        self._token(result)
        self._lines.append(self._line)
        headers = dict(ROSTER_DEFAULTS)
        headers.update((name, value) for name, value in self._headers.items()
                       if name in ROSTER_DEFAULTS)
        if headers["Result"] == "*":
            headers["Result"] = result
        rest = [(name, value) for name, value in self._headers.items()
                if name not in ROSTER_DEFAULTS]
        tags = [f'[{name} "{_escape_tag(headers[name])}"]' for name in SEVEN_TAG_ROSTER]
        tags += [f'[{name} "{_escape_tag(value)}"]' for name, value in rest]
        self._text = "\n".join(tags) + "\n\n" + "\n".join(self._lines) + "\n"
        if self.handle is not None:
            self.handle.write(self._text + "\n")

    def result(self) -> str:
        return self._text

    def _token(self, token: str) -> None:
        """Adds a token to the movetext, starting a new line when it would pass the columns."""
        if self._open_variations:
            token = "(" * self._open_variations + token
            self._open_variations = 0
        if not self._line:
            self._line, self._last_token_at = token, 0
        elif len(self._line) + 1 + len(token) > self.columns:
            self._lines.append(self._line)
            self._line, self._last_token_at = token, 0
        else:
            self._last_token_at = len(self._line) + 1
            self._line += " " + token

    def _close_variation(self) -> None:
        """Glues ")" to the last token, moving that token to a new line if it does not fit."""
        if len(self._line) + 1 <= self.columns or self._last_token_at == 0:
            self._line += ")"
            return
        moved = self._line[self._last_token_at:] + ")"
        self._lines.append(self._line[:self._last_token_at].rstrip())
        self._line, self._last_token_at = moved, 0


# ---------------------------------------------------------------------------------------------
# The reader

class _ReadState:
    """What a handle's reading carries from one game to the next: a line read ahead (the
    first line of the next game), the rest of a line cut at LINE_LIMIT, and the game count.
    It never holds the handle itself (it is kept in a weak mapping keyed by the handle)."""

    __slots__ = ("pending", "pending_at", "carry", "line_start", "games_read")

    def __init__(self) -> None:
        self.pending: Optional[Tuple[str, bool]] = None
        self.pending_at: Optional[int] = None
        self.carry = ""
        self.line_start = True
        self.games_read = 0


# Reading state of the handles read by the module functions, so that consecutive read_game
# calls on one handle keep their look-ahead line and number games on.  Weak: it goes with
# the handle.
_STATES: "weakref.WeakKeyDictionary[Any, _ReadState]" = weakref.WeakKeyDictionary()


def _state_for(handle: Any) -> _ReadState:
    try:
        state = _STATES.get(handle)
        if state is None:
            state = _STATES[handle] = _ReadState()
        return state
    except TypeError:  # neither hashable nor weakly referable: read without memory
        return _ReadState()


class _Frame:
    """A line being read: the main line or a variation.  `pushed` moves of it are on the
    board; `entered` is the move taken back to enter it (played again when it closes);
    `skipping` is set after an error in it (or when the visitor skips it) and `skip_depth`
    counts the brackets opened since; `announced` says begin_variation was called."""

    __slots__ = ("pushed", "entered", "skipping", "skip_depth", "announced")

    def __init__(self, entered: Optional[str] = None, skipping: bool = False) -> None:
        self.pushed = 0
        self.entered = entered
        self.skipping = skipping
        self.skip_depth = 0
        self.announced = False


def _starting_board(headers: Dict[str, str]) -> Tuple[Board, Optional[str]]:
    """The starting position a game's tags give, and a warning for an unknown variant.

    Chess960 when [Variant] says so, or when the [FEN] castling rights fit only Chess960 (as
    python-chess).  :raises ValueError: if the FEN is illegal.
    """
    variant = headers.get("Variant", "")
    key = re.sub(r"[\s_-]", "", variant.lower())
    chess960 = key in CHESS960_VARIANTS
    warning = None
    if not chess960 and key not in STANDARD_VARIANTS:
        warning = f"unsupported variant {variant!r}: the moves are read as standard chess"
    fen = headers.get("FEN", "").strip() or STARTING_FEN
    try:
        return Board(fen, chess960=chess960), warning
    except ValueError as error:
        if chess960:
            raise
        try:
            return Board(fen, chess960=True), warning
        except ValueError:
            raise error from None


def _move_label(board: Board) -> str:
    return f"{board.fullmove_number}{'.' if board.turn else '...'}"


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _scan_skipped(line: str, pos: int) -> Tuple[bool, bool]:
    """Reads skipped movetext from pos (outside a comment): is a {} comment open at the end of
    the line, and was there anything but comments and spaces?"""
    if "{" not in line and ";" not in line:
        return False, bool(line[pos:].strip())
    content = False
    while pos < len(line):
        brace = line.find("{", pos)
        semicolon = line.find(";", pos)
        stop = min(i for i in (brace, semicolon, len(line)) if i >= 0)
        if line[pos:stop].strip():
            content = True
        if stop == len(line) or stop == semicolon:
            return False, content
        end = line.find("}", stop + 1)
        if end < 0:
            return True, content
        pos = end + 1
    return False, content


class PgnReader:
    """Reads the games of one text handle, one per call, in constant memory.

    The module functions (read_game, read_headers, skip_game, read_games) use one of these
    per call, with the reading state kept for the handle between calls.
    """

    def __init__(self, handle: IO[str], state: Optional[_ReadState] = None) -> None:
        self.handle = handle
        self._state = state if state is not None else _ReadState()

    @property
    def games_read(self) -> int:
        """Games started so far on this handle (the number of the last one)."""
        return self._state.games_read

    def read_game(self, visitor: Optional[Visitor[ResultT]] = None) -> Optional[ResultT]:
        """The next game, as the visitor's result (a Game by default); None at the end."""
        found, result = self._read(GameBuilder() if visitor is None else visitor)
        return result if found else None

    def read_headers(self) -> Optional[Dict[str, str]]:
        """The next game's tag pairs (its moves skipped); None at the end."""
        return self.read_game(HeadersBuilder())

    def skip_game(self) -> bool:
        """Skips the next game; False at the end of the file."""
        return self._read(SkipVisitor())[0]

    def games(self, visitor: Optional[Visitor[ResultT]] = None) -> Iterator[ResultT]:
        """Every remaining game, as the visitor's results (Games by default)."""
        while True:
            found, result = self._read(GameBuilder() if visitor is None else visitor)
            if not found:
                return
            yield result

    # -- lines ------------------------------------------------------------------------

    def _next_line(self) -> Optional[Tuple[str, bool]]:
        """The next piece of text and whether it starts a line; None at the end of the file.
        A line longer than LINE_LIMIT comes in pieces cut at whitespace."""
        state = self._state
        if state.pending is not None:
            item, state.pending = state.pending, None
            if state.pending_at is None or self._position() == state.pending_at:
                return item
            state.carry, state.line_start = "", True  # the handle was moved: forget it
        raw = self.handle.readline(LINE_LIMIT)
        if not raw:
            if state.carry:
                text, state.carry = state.carry, ""
                return text, False
            return None
        starts = state.line_start
        text = state.carry + raw if state.carry else raw
        state.carry = ""
        state.line_start = raw[-1] in "\n\r"
        if not state.line_start and len(raw) >= LINE_LIMIT:
            cut = max(text.rfind(" "), text.rfind("\t"))
            if cut > 0:
                text, state.carry = text[:cut], text[cut:]
        if starts and text[0] == "\ufeff":
            text = text[1:]
        return text, starts

    def _push_back(self, item: Tuple[str, bool]) -> None:
        self._state.pending = item
        self._state.pending_at = self._position()

    def _position(self) -> Optional[int]:
        try:
            return self.handle.tell() if self.handle.seekable() else None
        except (AttributeError, OSError, ValueError):
            return None

    # -- a game -----------------------------------------------------------------------

    def _read(self, visitor: Visitor[ResultT]) -> Tuple[bool, Optional[ResultT]]:
        # Between games: blank lines, % escape lines and ; comment lines.
        item = self._next_line()
        while item is not None:
            line, starts = item
            stripped = line.strip()
            if stripped and not (starts and (line[0] == "%" or stripped[0] == ";")):
                break
            item = self._next_line()
        if item is None:
            return False, None
        self._state.games_read += 1
        number = self._state.games_read
        skipping = visitor.begin_game() is SKIP

        headers: Dict[str, str] = {}
        item = self._read_tags(item, visitor, headers, number, skipping)
        if not skipping:
            skipping = visitor.end_headers() is SKIP
        board = None
        if not skipping:
            try:
                board, warning = _starting_board(headers)
            except ValueError as error:
                visitor.handle_error(PgnError(f"illegal FEN {_short(headers.get('FEN', ''), 100)!r}: "
                                              f"{error}; the moves are skipped", number))
                skipping = True
            else:
                if warning:
                    visitor.handle_error(PgnError(warning, number))
                visitor.begin_moves(board)
        if item is not None:
            self._read_movetext(item, visitor, board, number, skipping)
        visitor.end_game()
        return True, visitor.result()

    def _read_tags(self, item: Optional[Tuple[str, bool]], visitor: Visitor[Any],
                   headers: Dict[str, str], number: int,
                   skipping: bool) -> Optional[Tuple[str, bool]]:
        """Reads the tag pairs; returns the first movetext line (None: no movetext)."""
        blank_before = False
        while item is not None:
            line, starts = item
            if not starts:  # the rest of a cut tag line
                item = self._next_line()
                continue
            stripped = line.strip()
            if not stripped:
                blank_before = True
            elif line[0] == "%" or stripped[0] == ";":
                pass
            elif stripped[0] != "[":
                return item
            else:
                pairs = TAG_PAIR.findall(stripped)
                if not pairs or TAG_PAIR.sub("", stripped).strip():
                    loose = LOOSE_TAG_PAIR.fullmatch(stripped)
                    pairs = [loose.groups()] if loose else []
                if not pairs:
                    if not skipping:
                        visitor.handle_error(PgnError(f"unreadable tag pair {_short(stripped)!r}", number))
                elif blank_before and any(name in headers for name, _ in pairs):
                    self._push_back(item)  # a tag this game has already: the next game
                    return None
                for name, raw in pairs:
                    value = TAG_ESCAPE.sub(r"\1", raw) if "\\" in raw else raw
                    headers[name] = value
                    if not skipping:
                        visitor.visit_header(name, value)
                blank_before = False
            item = self._next_line()
        return None

    def _read_movetext(self, item: Optional[Tuple[str, bool]], visitor: Visitor[Any],
                       board: Optional[Board], number: int, skipping: bool) -> None:
        """Reads the movetext up to the end of the game, calling the visitor.  With
        `skipping` only the end of the game is looked for; after an error, the rest of the
        line in error is read for its brackets (and the main line for its result) only."""
        frames = [_Frame()]
        in_comment = False
        comment_parts: List[str] = []
        comment_size = 0
        comment_blank = False
        content_seen = False
        after_result = False
        error_count = 0

        def error(message: str, text: Optional[str] = None, at_move: bool = True) -> None:
            nonlocal error_count
            error_count += 1
            if error_count > MAX_GAME_ERRORS:
                return
            if error_count == MAX_GAME_ERRORS:
                message += " (and no more errors are reported for this game)"
            label = _move_label(board) if at_move and board is not None else None
            visitor.handle_error(PgnError(message, number, label, None if text is None else _short(text)))

        def deliver_comment(text: str) -> None:
            if skipping or frames[-1].skipping:
                return
            text = text.replace("\r\n", "\n").strip()
            if text:
                visitor.visit_comment(text)

        while item is not None:
            line, starts = item
            if starts:
                if in_comment:
                    if not line.strip():
                        comment_blank = True
                    elif comment_blank and line[0] == "[" and TAG_LINE_START.match(line):
                        self._push_back(item)  # a new game after a comment left open
                        break
                    else:
                        comment_blank = False
                else:
                    if not line.strip():
                        if content_seen:
                            break
                        item = self._next_line()
                        continue
                    if line[0] == "%":
                        item = self._next_line()
                        continue
                    if line[0] == "[" and TAG_LINE_START.match(line):
                        self._push_back(item)
                        break

            pos = 0
            if in_comment:
                end = line.find("}")
                if end < 0:
                    if not skipping and comment_size < COMMENT_LIMIT:
                        comment_parts.append(line[:COMMENT_LIMIT - comment_size])
                        comment_size += len(comment_parts[-1])
                        if comment_size >= COMMENT_LIMIT:
                            error(f"comment longer than {COMMENT_LIMIT} characters: cut", at_move=False)
                    item = self._next_line()
                    continue
                if not skipping and comment_size < COMMENT_LIMIT:
                    comment_parts.append(line[:min(end, COMMENT_LIMIT - comment_size)])
                deliver_comment("".join(comment_parts))
                in_comment, comment_parts, comment_size, comment_blank = False, [], 0, False
                pos = end + 1

            while True:
                if skipping:
                    in_comment, content = _scan_skipped(line, pos)
                    content_seen = content_seen or content
                    break
                match = TOKEN.search(line, pos)
                if match is None:
                    break
                token = match.group()
                pos = match.end()
                first = token[0]
                top = frames[-1]

                if first == "{":
                    end = line.find("}", pos)
                    if end >= 0:
                        deliver_comment(line[pos:end])
                        pos = end + 1
                        continue
                    in_comment = True
                    if not top.skipping:
                        comment_parts = [line[pos:pos + COMMENT_LIMIT]]
                        comment_size = len(comment_parts[0])
                    break
                if first == ";":
                    deliver_comment(line[pos:])
                    break
                content_seen = True

                if top.skipping:
                    # After an error: only brackets count, and the main line's result.
                    if first == "(":
                        top.skip_depth += 1
                    elif first == ")":
                        if top.skip_depth:
                            top.skip_depth -= 1
                        elif len(frames) > 1:
                            self._close_variation(frames, board, visitor)
                    elif (token in RESULTS and len(frames) == 1 and not top.skip_depth
                          and not after_result):
                        visitor.visit_result(token)
                        after_result = True
                    continue

                if first == "(":
                    if len(frames) > MAX_VARIATION_DEPTH:
                        error(f"variations nested deeper than {MAX_VARIATION_DEPTH}: skipped")
                        frames.append(_Frame(skipping=True))
                    elif top.pushed == 0:
                        error("a variation must follow a move: skipped")
                        frames.append(_Frame(skipping=True))
                    else:
                        frame = _Frame(entered=board.pop())
                        frames.append(frame)
                        frame.announced = True
                        frame.skipping = visitor.begin_variation() is SKIP
                    continue
                if first == ")":
                    if len(frames) == 1:
                        error("')' without a variation to close: ignored", ")")
                    else:
                        self._close_variation(frames, board, visitor)
                    continue
                if first == "$":
                    digits = token[1:]
                    if not digits or len(digits) > 3 or int(digits) > MAX_NAG:
                        error(f"unreadable NAG {_short(token)!r}: ignored", token)
                    elif top.pushed == 0:
                        error(f"NAG {token} before any move: ignored", token)
                    else:
                        visitor.visit_nag(int(digits))
                    continue
                if first == "}":
                    error("'}' without a comment to close: ignored", "}")
                    continue

                # A word: a result, a glyph, a move number, or a move.
                if token in RESULTS:
                    if len(frames) == 1 and not after_result:
                        visitor.visit_result(token)
                        after_result = True
                    continue
                nag = NAG_GLYPHS.get(token)
                if nag is not None:
                    if top.pushed == 0:
                        error(f"glyph {token} before any move: ignored", token)
                    else:
                        visitor.visit_nag(nag)
                    continue
                if token not in NULL_WORDS:
                    number_match = MOVE_NUMBER.match(token)
                    if number_match is not None:
                        token = token[number_match.end():]
                        if not token:
                            continue
                    elif token.isdigit():
                        continue
                    if token in EN_PASSANT_MARKS:
                        continue
                    if token.endswith("e.p."):
                        token = token[:-4]
                if after_result and len(frames) == 1:
                    error(f"move {_short(token)!r} after the result: the rest of the game is skipped", token)
                    top.skipping = True
                    continue
                core = token.rstrip(MOVE_SUFFIX_CHARS)
                glyph = "".join(ch for ch in token[len(core):] if ch in "!?")
                if not core:  # a check sign or glyph standing alone, as in "Nf3 +"
                    nag = NAG_GLYPHS.get(glyph)
                    if nag is not None and top.pushed:
                        visitor.visit_nag(nag)
                    continue
                try:
                    uci = board.parse_san(core)
                except ValueError as reason:
                    where = "the rest of the game" if len(frames) == 1 else "the rest of the variation"
                    error(f"{reason}; {where} is skipped", token)
                    top.skipping, top.skip_depth = True, 0
                    continue
                visitor.visit_move(board, uci)
                board.push_move(uci)
                top.pushed += 1
                nag = NAG_GLYPHS.get(glyph)
                if nag is not None:
                    visitor.visit_nag(nag)
            item = self._next_line()

        if in_comment:
            error("comment not closed (no '}')", at_move=False)
            if comment_parts:
                deliver_comment("".join(comment_parts))
        if len(frames) > 1:
            error(f"{len(frames) - 1} variation(s) not closed (no ')')", at_move=False)
            while len(frames) > 1:
                if frames.pop().announced:
                    visitor.end_variation()

    @staticmethod
    def _close_variation(frames: List[_Frame], board: Optional[Board], visitor: Visitor[Any]) -> None:
        """Leaves the innermost variation: its moves are taken back, the move it replaced is
        played again."""
        frame = frames.pop()
        for _ in range(frame.pushed):
            board.pop()
        if frame.entered is not None:
            board.push_move(frame.entered)
        if frame.announced:
            visitor.end_variation()


# ---------------------------------------------------------------------------------------------
# Module functions

def read_game(handle: IO[str], visitor: Optional[Visitor[ResultT]] = None) -> Optional[ResultT]:
    """Reads the next game from a text handle: the visitor's result (a Game by default), or
    None at the end of the file.  Bad input is recorded, never raised (see the module
    docstring)."""
    return PgnReader(handle, _state_for(handle)).read_game(visitor)


def read_headers(handle: IO[str]) -> Optional[Dict[str, str]]:
    """The next game's tag pairs, in order, without reading its moves; None at the end."""
    return PgnReader(handle, _state_for(handle)).read_headers()


def skip_game(handle: IO[str]) -> bool:
    """Skips the next game; False at the end of the file."""
    return PgnReader(handle, _state_for(handle)).skip_game()


def read_games(source: Union[str, "os.PathLike[str]", IO[str]],
               visitor: Optional[Visitor[ResultT]] = None) -> Iterator[ResultT]:
    """Every game of a PGN file (a path, opened as UTF-8 with or without BOM, undecodable
    bytes replaced; or a text handle), as the visitor's results (Games by default)."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8-sig", errors="replace") as handle:
            yield from PgnReader(handle).games(visitor)
    else:
        yield from PgnReader(source, _state_for(source)).games(visitor)


def write_game(game: Game, handle: IO[str], columns: int = 80) -> None:
    """Writes a game as standard PGN, followed by a blank line."""
    game.accept(PgnWriter(handle, columns))
