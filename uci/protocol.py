"""Pure parsers and formatters of the UCI protocol: no engine, no threads, no I/O.

Every parser takes the tokens (or the line) of one command and returns a plain value, or
raises ValueError with a reason fit for an `info string`.  The loop (uci/loop.py) decides what
to do with the values; keeping the text handling here makes it testable without a process.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import List, Optional, Sequence, Tuple

__all__ = [
    "GoCommand", "PositionCommand", "parse_go", "parse_position", "parse_setoption",
    "parse_int", "format_info", "format_score", "format_bestmove", "printable",
    "MAX_TIME_MS", "MAX_NODES", "MAX_DEPTH", "MAX_PERFT_DEPTH",
]

# Upper bounds that keep every number a C integer on its way into the core.  Larger values
# are clamped, not refused: `go nodes 10^30` means "no node limit worth speaking of".
MAX_TIME_MS = 2 ** 31 - 1
MAX_NODES = 2 ** 63 - 1
MAX_DEPTH = 1000
MAX_PERFT_DEPTH = 20

_INT_PATTERN = re.compile(r"[+-]?[0-9]+")
_MOVE_PATTERN = re.compile(r"[a-h][1-8][a-h][1-8][nbrq]?")



def printable(text: str, limit: int = 300) -> str:
    """`text` made safe to echo on one output line: no control characters, at most `limit`
    characters.  A GUI must never read a line break we did not mean (a fake `bestmove`)."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return cleaned + ("..." if len(text) > limit else "")


def parse_int(text: str, what: str, minimum: Optional[int] = None,
              maximum: Optional[int] = None, clamp: bool = True) -> int:
    """An integer in ASCII decimal, clamped above at `maximum` (refused above it instead when
    `clamp` is false).

    :raises ValueError: if `text` is not an integer, is below `minimum`, or (not clamping) is
        above `maximum`.
    """
    if not _INT_PATTERN.fullmatch(text):
        raise ValueError(f"{what} must be an integer, not {printable(text, 40)!r}")
    digits = text.lstrip("+-").lstrip("0")
    negative = text.startswith("-")
    if len(digits) > 30:    # int() of a huge string is slow (and refused past 4300 digits)
        value = -(10 ** 30) if negative else 10 ** 30
    else:
        value = int(text)
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        if not clamp:
            raise ValueError(f"{what} must be at most {maximum}, not {printable(text, 40)}")
        value = maximum
    return value


# -- go ---------------------------------------------------------------------------------


def _integer(minimum: Optional[int], clamp: Optional[int]):
    """A `go` parameter that takes an integer of at least `minimum` (None: any), clamped at
    `clamp`."""
    return field(default=None, metadata={"integer": (minimum, clamp)})


@dataclass
class GoCommand:
    """Every parameter of `go`; None (or False) where the GUI did not give it.  `perft` is
    the non-standard `go perft N` of Stockfish.  The fields are the parser's table: a flag
    (False by default), searchmoves, or an integer with its range.  The search's limits are
    the fields engine.limits.SearchLimits shares with it (SearchLimits.from_go)."""

    searchmoves: Optional[List[str]] = None
    ponder: bool = False
    wtime: Optional[int] = _integer(None, MAX_TIME_MS)  # may be negative: an overdrawn clock
    btime: Optional[int] = _integer(None, MAX_TIME_MS)
    winc: Optional[int] = _integer(None, MAX_TIME_MS)
    binc: Optional[int] = _integer(None, MAX_TIME_MS)
    movestogo: Optional[int] = _integer(0, 10 ** 6)
    depth: Optional[int] = _integer(1, MAX_DEPTH)
    nodes: Optional[int] = _integer(1, MAX_NODES)
    mate: Optional[int] = _integer(1, MAX_DEPTH)
    movetime: Optional[int] = _integer(0, MAX_TIME_MS)
    infinite: bool = False
    perft: Optional[int] = _integer(1, None)  # at most MAX_PERFT_DEPTH: a perft is not stoppable

    def clock(self, white: bool) -> Tuple[Optional[int], int]:
        """(time left, increment) of the side to move; time left is None without a clock."""
        time_left, increment = (self.wtime, self.winc) if white else (self.btime, self.binc)
        return time_left, max(0, increment or 0)


# The parameters that take an integer: (smallest accepted value, clamp at); the flags.
_GO_INTEGERS = {f.name: f.metadata["integer"] for f in fields(GoCommand) if "integer" in f.metadata}
_GO_FLAGS = tuple(f.name for f in fields(GoCommand) if f.default is False)
_GO_KEYWORDS = frozenset(f.name for f in fields(GoCommand))


def parse_go(tokens: Sequence[str]) -> GoCommand:
    """Parse the tokens after `go`.  `movestogo 0` counts as not given (some GUIs send it).

    :raises ValueError: on an unknown or repeated parameter, a missing or malformed value,
        or a searchmoves entry that is not a move in UCI notation.
    """
    go = GoCommand()
    seen = set()
    i = 0
    while i < len(tokens):
        key = tokens[i].lower()
        if key not in _GO_KEYWORDS:
            raise ValueError(f"unknown go parameter {printable(tokens[i], 40)!r}")
        if key in seen:
            raise ValueError(f"go parameter {key!r} given twice")
        seen.add(key)
        i += 1
        if key in _GO_FLAGS:
            setattr(go, key, True)
        elif key == "searchmoves":
            moves = []
            while i < len(tokens) and tokens[i].lower() not in _GO_KEYWORDS:
                if not _MOVE_PATTERN.fullmatch(tokens[i]):
                    raise ValueError(f"searchmoves: {printable(tokens[i], 40)!r} is not a move "
                                     f"in UCI notation")
                moves.append(tokens[i])
                i += 1
            if not moves:
                raise ValueError("searchmoves needs at least one move")
            go.searchmoves = moves
        else:
            if i >= len(tokens):
                raise ValueError(f"go {key} needs a value")
            minimum, maximum = _GO_INTEGERS[key]
            setattr(go, key, parse_int(tokens[i], f"go {key}", minimum, maximum))
            i += 1
    if go.perft is not None and go.perft > MAX_PERFT_DEPTH:
        raise ValueError(f"go perft depth must be at most {MAX_PERFT_DEPTH}, not {go.perft}")
    if go.movestogo == 0:
        go.movestogo = None
    return go


# -- position ---------------------------------------------------------------------------


@dataclass
class PositionCommand:
    """`position startpos|fen <fen> [moves ...]`: fen is None for the start position.  The
    FEN and the moves are only split here; the board checks them."""

    fen: Optional[str]
    moves: List[str]


def parse_position(tokens: Sequence[str]) -> PositionCommand:
    """Parse the tokens after `position`.

    :raises ValueError: if neither startpos nor fen comes first, the FEN is missing, or
        something other than `moves` follows the position.
    """
    if not tokens:
        raise ValueError("position needs 'startpos' or 'fen <fen>'")
    head = tokens[0].lower()
    if head == "startpos":
        fen, rest = None, list(tokens[1:])
    elif head == "fen":
        lowered = [t.lower() for t in tokens]
        end = lowered.index("moves") if "moves" in lowered else len(tokens)
        if end == 1:
            raise ValueError("position fen needs a FEN")
        fen, rest = " ".join(tokens[1:end]), list(tokens[end:])
    else:
        raise ValueError(f"position: expected 'startpos' or 'fen', not {printable(tokens[0], 40)!r}")
    if not rest:
        return PositionCommand(fen, [])
    if rest[0].lower() != "moves":
        raise ValueError(f"position: expected 'moves' after startpos, not {printable(rest[0], 40)!r}")
    return PositionCommand(fen, rest[1:])


# -- setoption --------------------------------------------------------------------------

_SETOPTION = re.compile(r"\s*setoption\s+name\s+(?P<name>.*?)"
                        r"(?:\s+value(?:\s+(?P<value>.*?))?)?\s*", re.IGNORECASE | re.DOTALL)


def parse_setoption(line: str) -> Tuple[str, Optional[str]]:
    """(name, value) of `setoption name <id> [value <x>]`; value is None without `value` and
    keeps its inner spaces.  The name has its spaces collapsed; matching it is the caller's.

    :raises ValueError: if the line does not have that shape.
    """
    match = _SETOPTION.fullmatch(line)
    if match is None:
        raise ValueError("expected 'setoption name <name> [value <value>]'")
    name = " ".join(match.group("name").split())
    if not name or name.split()[0].lower() == "value":
        raise ValueError("setoption: missing option name")
    value = match.group("value")
    if value is None and re.search(r"\svalue\s*$", line, re.IGNORECASE):
        value = ""
    return name, value


# -- output -----------------------------------------------------------------------------


def format_score(score_cp: Optional[int], score_mate: Optional[int],
                 bound: Optional[str] = None,
                 wdl: Optional[Tuple[int, int, int]] = None) -> str:
    """`score cp X` or `score mate M` (M > 0: we mate in M moves), then `wdl W D L` when
    given (as Stockfish places it, before the bound), then the bound if any."""
    text = f"score mate {score_mate}" if score_mate is not None else f"score cp {score_cp or 0}"
    if wdl is not None:
        text += " wdl {} {} {}".format(*wdl)
    return f"{text} {bound}" if bound else text


def format_info(info, show_wdl: bool = False) -> str:
    """The `info` line of one SearchInfo (one iteration or one multipv line), with the
    win-draw-loss chances when `show_wdl` (UCI_ShowWDL) and the info has them."""
    parts = ["info", "depth", str(info.depth)]
    if getattr(info, "seldepth", None) is not None:
        parts += ["seldepth", str(info.seldepth)]
    if getattr(info, "multipv", None) is not None:
        parts += ["multipv", str(info.multipv)]
    if info.score_cp is not None or info.score_mate is not None:
        parts.append(format_score(info.score_cp, info.score_mate, info.bound,
                                  getattr(info, "wdl", None) if show_wdl else None))
    for name, attribute in (("nodes", "nodes"), ("nps", "nps"), ("hashfull", "hashfull"),
                            ("tbhits", "tbhits"), ("time", "time_ms")):
        value = getattr(info, attribute, None)
        if value is not None:
            parts += [name, str(value)]
    if info.pv:
        parts.append("pv")
        parts.extend(info.pv)
    return " ".join(parts)


def format_bestmove(best_move: Optional[str], ponder_move: Optional[str] = None) -> str:
    """`bestmove M [ponder P]`; `bestmove 0000` when there is no move to play."""
    if not best_move:
        return "bestmove 0000"
    return f"bestmove {best_move} ponder {ponder_move}" if ponder_move else f"bestmove {best_move}"
