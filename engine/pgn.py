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
A game lists at most MAX_GAME_ERRORS errors and then how many more there were; a comment
longer than COMMENT_LIMIT is cut, with a note in it, and is no error.

Files (`open_pgn`, `read_games` on a path): only a regular file is opened (a directory, a
named pipe or a device is refused with PgnFileError, an OSError, before anything is read, so
a FIFO never blocks); UTF-8, UTF-16 and UTF-32 with a byte order mark, UTF-8 without, UTF-16
without one when its zero bytes show it; a file that is not valid UTF-8 (Latin-1, Windows-1252,
or such games appended to a UTF-8 file) is read with each byte that is not UTF-8 taken as
Windows-1252, never replaced by U+FFFD, and the file's `warning` says so (for the command
to show once).

Where a game ends: at a blank line once the movetext has begun (a blank line after nothing
but comments does not end it), at a tag-pair line (a new game without a blank line before it;
that line is kept for the next call), at a blank line followed by a tag the game already has,
or at the end of the file.
"""
from __future__ import annotations

import codecs
import io
import os
import re
import stat
import weakref
from dataclasses import dataclass, field
from typing import (IO, Any, Callable, Dict, Generic, Iterator, List, Optional, Tuple, TypeVar,
                    Union)

from .board import STARTING_FEN, Board

__all__ = [
    "Game", "MoveNode", "PgnError", "Visitor", "GameBuilder", "HeadersBuilder", "MainLineBuilder",
    "SkipVisitor",
    "PgnWriter", "PgnReader", "SKIP", "read_game", "read_headers", "skip_game", "read_games",
    "write_game", "NAG_GLYPHS", "SEVEN_TAG_ROSTER", "PgnFile", "PgnFileError", "open_pgn",
    "detect_encoding", "COMMENT_LIMIT", "MAX_GAME_ERRORS",
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

# Limits that keep one bad file from taking all memory or flooding a terminal: a line is read
# in pieces of at most LINE_LIMIT characters (cut at whitespace); a comment (all the comments
# at one place of a game together) keeps at most COMMENT_LIMIT characters, a longer one is cut
# to fit, ending with a note of how much was left out (not an error: the game is sound, and
# its text read again keeps the same comment); variations nest at most MAX_VARIATION_DEPTH
# deep (deeper ones are skipped); a game lists its first MAX_GAME_ERRORS errors, then one
# more saying how many were left out.
LINE_LIMIT = 1 << 16
COMMENT_LIMIT = 1 << 20
COMMENT_NOTE_ROOM = 64          # room kept for the note of a cut comment
MAX_VARIATION_DEPTH = 100
MAX_GAME_ERRORS = 20

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
        self.reason = message
        self.game_number = game_number
        self.move_number = move_number
        self.text = text
        super().__init__(self.at_game(game_number))

    def at_game(self, game_number: int) -> str:
        """The message with another game number: a game read again on its own (as a worker
        does, from the game's text) is game 1 of that text, and says so only once."""
        where = f"game {game_number}" + (f", move {self.move_number}" if self.move_number else "")
        return f"{where}: {self.reason}"


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

    def playable_board(self, number: int, error: Callable[[str], Exception] = ValueError) -> Board:
        """The starting position of a game to work on, game `number` of its file: raises
        error(message), the message naming the game, for the first reading error or an
        illegal start."""
        if self.errors:
            raise error(self.errors[0].at_game(number))
        try:
            return self.board()
        except ValueError as bad:
            raise error(f"game {number}: bad starting position: {bad}") from None

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


def _fit_comment(text: str, dropped: int = 0) -> str:
    """A comment of which `dropped` characters after text were already left out: text when
    all of it fits COMMENT_LIMIT, else its start with a note of how much is left out (the
    whole at most COMMENT_LIMIT characters, so that it is not cut again when read back)."""
    if not dropped and len(text) <= COMMENT_LIMIT:
        return text
    keep = text[:COMMENT_LIMIT - COMMENT_NOTE_ROOM]
    return f"{keep} [comment cut: {dropped + len(text) - len(keep)} characters left out]"


class _Comment:
    """The comments met at one place of a game (after a move, before the first move, at a
    variation's start), joined with spaces once at the end, so that many comments take linear
    time; what passes COMMENT_LIMIT is counted, not kept."""

    __slots__ = ("parts", "size", "dropped")

    def __init__(self) -> None:
        self.parts: List[str] = []
        self.size = 0
        self.dropped = 0

    def add(self, text: str) -> None:
        if self.size > COMMENT_LIMIT:
            self.dropped += len(text) + 1
            return
        self.size += len(text) + (1 if self.parts else 0)
        self.parts.append(text)

    def __bool__(self) -> bool:
        return bool(self.parts)

    def text(self) -> str:
        return _fit_comment(" ".join(self.parts), self.dropped)


class GameBuilder(Visitor[Game]):
    """Builds a Game with everything in it: headers, moves (UCI and SAN), comments, NAGs,
    variations, result and errors."""

    def begin_game(self) -> None:
        self.game = Game()
        self._lines: List[List[MoveNode]] = [self.game.moves]
        self._pending_comments: List[_Comment] = [_Comment()]
        # the comments after moves and before the first move, set on their nodes at the end
        self._comments: Dict[int, Tuple[Any, _Comment]] = {}
        self._result_seen = False

    def _comment_at(self, target: Any) -> _Comment:
        entry = self._comments.get(id(target))
        if entry is None:
            entry = self._comments[id(target)] = (target, _Comment())
        return entry[1]

    def visit_header(self, name: str, value: str) -> None:
        self.game.headers[name] = value

    def begin_moves(self, board: Board) -> None:
        self.game.fen = board.fen()
        self.game.chess960 = board.chess960

    def visit_move(self, board: Board, uci: str) -> None:
        node = MoveNode(uci, board.san(uci))
        if self._pending_comments[-1]:
            node.starting_comment = self._pending_comments[-1].text()
            self._pending_comments[-1] = _Comment()
        self._lines[-1].append(node)

    def visit_comment(self, text: str) -> None:
        line = self._lines[-1]
        if line:
            self._comment_at(line[-1]).add(text)
        elif len(self._lines) == 1:
            self._comment_at(self.game).add(text)
        else:
            self._pending_comments[-1].add(text)

    def visit_nag(self, nag: int) -> None:
        if self._lines[-1]:
            self._lines[-1][-1].nags.append(nag)

    def begin_variation(self) -> None:
        variation: List[MoveNode] = []
        self._lines[-1][-1].variations.append(variation)
        self._lines.append(variation)
        self._pending_comments.append(_Comment())

    def end_variation(self) -> None:
        variation = self._lines.pop()
        comment = self._pending_comments.pop()
        parent = self._lines[-1][-1]
        if not variation:
            # Nothing readable in it: drop it, keeping a comment it held.
            parent.variations.pop()
            if comment:
                self._comment_at(parent).add(comment.text())

    def visit_result(self, result: str) -> None:
        self.game.result = result
        self._result_seen = True

    def handle_error(self, error: PgnError) -> None:
        self.game.errors.append(error)

    def end_game(self) -> None:
        for target, comment in self._comments.values():
            target.comment = comment.text()
        self._comments = {}
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


class _GameErrors:
    """The errors of the game being read, passed on to the visitor: the first
    MAX_GAME_ERRORS of them, then (at the end of the game) one saying how many more there
    were."""

    __slots__ = ("visitor", "number", "count")

    def __init__(self, visitor: "Visitor[Any]", number: int) -> None:
        self.visitor = visitor
        self.number = number
        self.count = 0

    def report(self, message: str, move_number: Optional[str] = None,
               text: Optional[str] = None) -> None:
        self.count += 1
        if self.count <= MAX_GAME_ERRORS:
            self.visitor.handle_error(PgnError(message, self.number, move_number, text))

    def close(self) -> None:
        if self.count > MAX_GAME_ERRORS:
            more = self.count - MAX_GAME_ERRORS
            self.visitor.handle_error(PgnError(
                f"... and {more} more error{'s' if more > 1 else ''} in this game, not listed",
                self.number))


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
        errors = _GameErrors(visitor, number)

        headers: Dict[str, str] = {}
        item = self._read_tags(item, visitor, headers, errors, skipping)
        if not skipping:
            skipping = visitor.end_headers() is SKIP
        board = None
        if not skipping:
            try:
                board, warning = _starting_board(headers)
            except ValueError as error:
                errors.report(f"illegal FEN {_short(headers.get('FEN', ''), 100)!r}: "
                              f"{error}; the moves are skipped")
                skipping = True
            else:
                if warning:
                    errors.report(warning)
                visitor.begin_moves(board)
        if item is not None:
            self._read_movetext(item, visitor, board, errors, skipping)
        errors.close()
        visitor.end_game()
        return True, visitor.result()

    def _read_tags(self, item: Optional[Tuple[str, bool]], visitor: Visitor[Any],
                   headers: Dict[str, str], errors: _GameErrors,
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
                        errors.report(f"unreadable tag pair {_short(stripped)!r}")
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
                       board: Optional[Board], errors: _GameErrors, skipping: bool) -> None:
        """Reads the movetext up to the end of the game, calling the visitor.  With
        `skipping` only the end of the game is looked for; after an error, the rest of the
        line in error is read for its brackets (and the main line for its result) only."""
        frames = [_Frame()]
        in_comment = False
        comment_parts: List[str] = []   # an open comment's text, at most COMMENT_LIMIT kept
        comment_size = 0                 # its characters kept
        comment_dropped = 0              # and left out
        comment_blank = False
        content_seen = False
        after_result = False

        def error(message: str, text: Optional[str] = None, at_move: bool = True) -> None:
            label = _move_label(board) if at_move and board is not None else None
            errors.report(message, label, None if text is None else _short(text))

        def deliver_comment(text: str, dropped: int = 0) -> None:
            if skipping or frames[-1].skipping:
                return
            text = text.replace("\r\n", "\n").strip()
            if text or dropped:
                visitor.visit_comment(_fit_comment(text, dropped))

        def keep_comment(text: str) -> None:
            nonlocal comment_size, comment_dropped
            room = COMMENT_LIMIT - comment_size
            if len(text) > room:
                comment_dropped += len(text) - room
                text = text[:room]
            if text:
                comment_parts.append(text)
                comment_size += len(text)

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
                    if not skipping:
                        keep_comment(line)
                    item = self._next_line()
                    continue
                if not skipping:
                    keep_comment(line[:end])
                deliver_comment("".join(comment_parts), comment_dropped)
                in_comment, comment_parts, comment_blank = False, [], False
                comment_size = comment_dropped = 0
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
                    comment_parts, comment_size, comment_dropped = [], 0, 0
                    if not top.skipping:
                        keep_comment(line[pos:])
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
                deliver_comment("".join(comment_parts), comment_dropped)
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
               visitor: Optional[Visitor[ResultT]] = None, *,
               warnings: Optional[List[str]] = None) -> Iterator[ResultT]:
    """Every game of a PGN file (a path, opened by open_pgn; or a text handle), as the
    visitor's results (Games by default).  A path's encoding warning (see open_pgn) is
    appended to `warnings` when given, before the first game.

    :raises PgnFileError: (an OSError) if the path is not a regular file; OSError if it
        cannot be read.
    """
    if isinstance(source, (str, os.PathLike)):
        with open_pgn(source) as pgn:
            if pgn.warning is not None and warnings is not None:
                warnings.append(pgn.warning)
            yield from pgn.games(visitor)
    else:
        yield from PgnReader(source, _state_for(source)).games(visitor)


# ---------------------------------------------------------------------------------------------
# Files: only regular files, in the encoding they are written in

class PgnFileError(OSError):
    """A path that is not a PGN file to read: a directory, a named pipe, a device."""



def _as_windows_1252(error: UnicodeError) -> Tuple[str, int]:
    """The codec error handler of a file that is not UTF-8: each byte that is not UTF-8 is read
    as Windows-1252 (the five bytes it leaves undefined as Latin-1, the C1 controls, as the
    WHATWG encoding standard reads "windows-1252"), so every byte is a character and nothing
    is replaced, and the UTF-8 parts of a mixed file stay right."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    text = "".join(bytes([byte]).decode("cp1252", errors="ignore") or chr(byte)
                   for byte in error.object[error.start:error.end])
    return text, error.end


WINDOWS_1252_FALLBACK = "scacco-windows-1252"
codecs.register_error(WINDOWS_1252_FALLBACK, _as_windows_1252)

# Byte order marks, longest first (UTF-32 LE starts with UTF-16 LE's).
BOMS = ((codecs.BOM_UTF32_LE, "utf-32", "UTF-32"), (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
        (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"), (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
        (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"))
SCAN_CHUNK = 1 << 16


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _first_bad_byte(raw: IO[bytes], encoding: str) -> Optional[Tuple[int, int]]:
    """(offset, byte) of the first byte that is not valid in encoding, reading raw from where
    it is to its end in pieces (constant memory); None if all of it is valid."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    ascii_is_valid = encoding.startswith("utf-8")
    offset = raw.tell()
    while True:
        chunk = raw.read(SCAN_CHUNK)
        pending = decoder.getstate()[0]
        if ascii_is_valid and chunk and not pending and chunk.isascii():
            offset += len(chunk)            # the common case, without decoding
            continue
        try:
            decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as error:
            # the decoder reads what it kept of the previous piece, then this one
            bad = error.object[error.start] if error.start < len(error.object) else 0
            return offset - len(pending) + error.start, bad
        if not chunk:
            return None
        offset += len(chunk)


def _utf16_without_bom(head: bytes) -> Optional[str]:
    """UTF-16-LE or -BE when a file without a byte order mark starts as text in it does (a
    zero byte beside nearly every ASCII character), else None."""
    head = head[:len(head) & ~1]
    if len(head) < 16:
        return None
    even, odd = head[0::2], head[1::2]
    for zeros, others, name in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if zeros.count(0) >= 0.9 * len(zeros) and others.count(0) <= 0.1 * len(others):
            return name
    return None


def detect_encoding(raw: IO[bytes]) -> Tuple[str, str, Optional[str]]:
    """(Python codec, codec error handler, warning or None) for a binary file positioned at
    its start, which is left at its start: a byte order mark's UTF-8, UTF-16 or UTF-32; else
    UTF-8 when all of the file is valid UTF-8 (ASCII included); else UTF-16 when its zero
    bytes say so (a file without its byte order mark); else UTF-8 with every byte that is not
    UTF-8 read as Windows-1252 (a Latin-1 or Windows-1252 file, or one that mixes them with
    UTF-8), with a warning naming the first such byte.  A file with a byte order mark that is
    not valid in its encoding is read with U+FFFD for the bad characters, with a warning."""
    start = raw.tell()
    head = raw.read(4096)
    for bom, codec, name in BOMS:
        if head.startswith(bom):
            raw.seek(start)
            bad = _first_bad_byte(raw, codec)
            raw.seek(start)
            if bad is None:
                return codec, "strict", None
            return codec, "replace", (f"not valid {name} (at byte {bad[0]}) although it starts "
                                      f"with a {name} byte order mark: the bad characters are "
                                      f"read as U+FFFD")
    raw.seek(start)
    bad = _first_bad_byte(raw, "utf-8")
    raw.seek(start)
    if bad is None:
        return "utf-8", "strict", None
    guessed = _utf16_without_bom(head)
    if guessed is not None:
        return guessed, "replace", (f"no byte order mark, but its zero bytes show "
                                    f"{guessed.upper()}: read as {guessed.upper()}")
    return "utf-8", WINDOWS_1252_FALLBACK, (
        f"not UTF-8 (byte 0x{bad[1]:02X} at offset {bad[0]} is not valid UTF-8): the bytes "
        f"that are not UTF-8 are read as Windows-1252 (Latin-1)")


class PgnFile:
    """A PGN file open for reading: only a regular file is opened (a directory, a named pipe
    or a device is refused before anything is read from it, so a FIFO never blocks the
    reader), in the encoding detect_encoding finds.

    :ivar path: the path.
    :ivar encoding: the Python codec it is read with ("utf-8", "utf-8-sig", "utf-16", ...).
    :ivar errors: the codec error handler: "strict" (all of it valid), "replace", or
        WINDOWS_1252_FALLBACK (a file that is not UTF-8).
    :ivar warning: why the text may not be what its writer meant (not UTF-8, so read as
        Windows-1252; a byte order mark with bad bytes after it), or None: a command shows it
        once, before the file's games.
    :ivar handle: the text handle (universal newlines).
    :raises PgnFileError: (an OSError) naming what the path is, if it is not a regular file.
    :raises OSError: if it cannot be opened or read (FileNotFoundError, PermissionError, ...).
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self.path = os.fspath(path)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        descriptor = os.open(self.path, flags)
        try:
            mode = os.fstat(descriptor).st_mode
            if not stat.S_ISREG(mode):
                raise PgnFileError(f"{self.path}: {_kind(mode)}, not a PGN file")
            if hasattr(os, "set_blocking"):
                os.set_blocking(descriptor, True)
            raw = os.fdopen(descriptor, "rb")
        except BaseException:
            os.close(descriptor)
            raise
        try:
            self.encoding, self.errors, self.warning = detect_encoding(raw)
            # "strict" only as far as the scan saw: a file that grows meanwhile is read with
            # U+FFFD for anything bad rather than stopped
            errors = "replace" if self.errors == "strict" else self.errors
            self.handle: IO[str] = io.TextIOWrapper(raw, encoding=self.encoding, errors=errors)
        except BaseException:
            raw.close()
            raise

    def games(self, visitor: Optional[Visitor[ResultT]] = None) -> Iterator[ResultT]:
        """Every game of the file from where the handle is, as read_games gives them."""
        return PgnReader(self.handle, _state_for(self.handle)).games(visitor)

    def close(self) -> None:
        self.handle.close()

    def __enter__(self) -> "PgnFile":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def open_pgn(path: Union[str, "os.PathLike[str]"]) -> PgnFile:
    """Opens a PGN file for reading (see PgnFile): `with open_pgn(path) as pgn: ...`,
    pgn.warning to show, pgn.games() or read_game(pgn.handle) to read."""
    return PgnFile(path)


def write_game(game: Game, handle: IO[str], columns: int = 80) -> None:
    """Writes a game as standard PGN, followed by a blank line."""
    game.accept(PgnWriter(handle, columns))
