"""The UCI options: one table that the loop declares, parses and applies without knowing them.

To add an option, append an `Option` to `standard_options()` (or `OptionTable.add` it):

* `search_arg` names a keyword of `engine.levels.play` (which takes `Searcher.search`'s
  keywords and the level's); the value is passed with every `go`.
* `on_change(session, value)` runs when the GUI sets the option (resize the hash, clear it,
  switch a playing level on the searcher); it may raise ValueError to refuse the value, which
  then stays as it was.  It may instead return DEFERRED: the change is queued (a network
  file is read on the worker, not on the thread that reads commands), and the hook stores
  the value itself once the change is made, or says why not and leaves the old one.
* `while_searching=False` when setting the option would touch the running search (Hash,
  Clear Hash): the loop then waits for a search that is already stopping, or refuses.
* `doc` says what the option does, in Markdown: docs/uci.md's option table carries it word
  for word (tests/test_docs.py compares them).

Values are parsed here (check/spin/combo/button/string, as the UCI specification defines
them); names match case-insensitively and with runs of spaces collapsed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .protocol import parse_int, printable

__all__ = ["Option", "OptionTable", "standard_options", "normalize_name", "DEFERRED"]

KINDS = ("check", "spin", "combo", "button", "string")
# What an on_change hook returns when it stores the value itself, later (see above).
DEFERRED = object()


def normalize_name(name: str) -> str:
    return " ".join(name.split()).lower()


@dataclass
class Option:
    """One UCI option: its declaration, how to parse a value, and what setting it does."""

    name: str
    kind: str
    default: Any = None
    minimum: Optional[int] = None
    maximum: Optional[int] = None
    choices: Tuple[str, ...] = ()
    search_arg: Optional[str] = None
    on_change: Optional[Callable[[Any, Any], None]] = None
    while_searching: bool = True
    doc: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name}: unknown kind {self.kind!r}")
        if self.kind == "spin" and not (self.minimum <= self.default <= self.maximum):
            raise ValueError(f"option {self.name}: default outside min..max")
        if self.kind == "combo" and self.default not in self.choices:
            raise ValueError(f"option {self.name}: default is not one of the choices")

    def declaration(self) -> str:
        """The `option name ... type ...` line sent in reply to `uci`."""
        text = f"option name {self.name} type {self.kind}"
        if self.kind == "check":
            text += f" default {'true' if self.default else 'false'}"
        elif self.kind == "spin":
            text += f" default {self.default} min {self.minimum} max {self.maximum}"
        elif self.kind == "combo":
            text += f" default {self.default}" + "".join(f" var {c}" for c in self.choices)
        elif self.kind == "string":
            text += f" default {self.default if self.default else '<empty>'}"
        return text

    def parse(self, text: Optional[str]) -> Any:
        """The value named by `text` (None when `value` was absent).

        :raises ValueError: with the reason, if the text does not fit the option.
        """
        if self.kind == "button":
            return None
        if text is None or (text == "" and self.kind != "string"):
            raise ValueError(f"option {self.name} needs a value")
        if self.kind == "check":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise ValueError(f"option {self.name} takes true or false, not {printable(text, 40)!r}")
            return lowered == "true"
        if self.kind == "spin":
            value = parse_int(text, f"option {self.name}")
            if not self.minimum <= value <= self.maximum:
                raise ValueError(f"option {self.name} must be between {self.minimum} and "
                                 f"{self.maximum}, not {value}")
            return value
        if self.kind == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"option {self.name} must be one of {', '.join(self.choices)}, "
                             f"not {printable(text, 40)!r}")
        return "" if text == "<empty>" else text


class OptionTable:
    """The options of one engine process and their current values."""

    def __init__(self, options: Iterable[Option] = ()) -> None:
        self._options: Dict[str, Option] = {}
        self._values: Dict[str, Any] = {}
        for option in options:
            self.add(option)

    def add(self, option: Option) -> None:
        key = normalize_name(option.name)
        if key in self._options:
            raise ValueError(f"option {option.name} declared twice")
        self._options[key] = option
        self._values[key] = option.default

    def find(self, name: str) -> Optional[Option]:
        return self._options.get(normalize_name(name))

    def __iter__(self):
        return iter(self._options.values())

    def __getitem__(self, name: str) -> Any:
        return self._values[normalize_name(name)]

    def store(self, option: Option, value: Any) -> None:
        """Record a value already parsed and applied (buttons keep no value)."""
        if option.kind != "button":
            self._values[normalize_name(option.name)] = value

    def declarations(self) -> List[str]:
        return [option.declaration() for option in self._options.values()]

    def search_args(self) -> Dict[str, Any]:
        """Keyword arguments for `engine.levels.play` from the options that declare one."""
        return {o.search_arg: self[o.name] for o in self._options.values() if o.search_arg}


# The largest Hash engine.search.Searcher accepts, in MB (repeated here so that `uci` imports
# no engine code; tests/test_search.py checks that they agree); the engine host also refuses a
# size that does not fit in the machine's memory.
MAX_HASH_MB = 65536
# Search threads engine.search.Searcher accepts (repeated here so that `uci` imports no engine
# code; tests/test_uci_protocol.py checks that they agree).
MAX_THREADS = 512
# The ratings engine.levels can play (repeated here so that `uci` imports no engine code;
# tests/test_uci_protocol.py checks that they agree).
MIN_ELO, MAX_ELO = 600, 2400
# The network shipped in the package, engine.nnue.DEFAULT_NETWORK (repeated here for the same
# reason; tests/test_nnue.py checks that they agree).
DEFAULT_EVAL_FILE = "scacco-default.nnue"


def trial_switch(name: str, what: str, default: bool = False) -> Option:
    """The check option of a search feature on trial (docs/development.md): it turns the
    feature on or off from the next search (EngineHost.set_search_switch); `what` says what
    the feature does.  `default`: the feature passed its match with the others on trial and is
    on in a new Searcher, which the option's default says."""
    when = ("On by default since its match with the other features on trial; an option until "
            "its own match against the build without it decides" if default else
            "Off by default until its match against the build without it decides")
    return Option(name, "check", default, while_searching=False,
                  on_change=lambda session, on: session.host.set_search_switch(name, on),
                  doc=what + f" {when} (see [development](development.md#search-changes-on-trial))."
                      " Refused during a search.")


def standard_options() -> List[Option]:
    """The options every Scacco declares, in the order GUIs show them."""
    return [
        Option("Hash", "spin", 16, 1, MAX_HASH_MB, while_searching=False,
               on_change=lambda session, mb: session.host.resize_hash(mb),
               doc="Transposition table size in MB. Refused if more than half the machine's "
                   "memory, or if the memory cannot be allocated (an `info string` says so and "
                   "the old table stays). The new table is in place at once and `isready` is "
                   "answered at once (see [Hash](#hash-allocation-and-clearing))."),
        Option("Clear Hash", "button", while_searching=False,
               on_change=lambda session, _: session.host.clear_hash(),
               doc="Empties the table and the move-ordering histories (the table in the "
                   "background; the next search waits for it)."),
        Option("Threads", "spin", 1, 1, MAX_THREADS, while_searching=False,
               on_change=lambda session, count: session.host.set_threads(count),
               doc="Search threads (Lazy SMP, see [Threads](#threads-lazy-smp)): set it to the "
                   "number of cores. Changed between searches (refused during one, as Hash); "
                   "the playing levels and searches with a node limit use one thread."),
        Option("MultiPV", "spin", 1, 1, 256, search_arg="multipv",
               doc="Number of best lines searched and reported as `info ... multipv k ...`."),
        Option("Ponder", "check", False,
               doc="Tells the engine the GUI may send `go ponder`; pondering works either way."),
        Option("Move Overhead", "spin", 30, 0, 5000,
               doc="Milliseconds kept back on every move for the GUI's and the system's delays."
                   " Raise it on a busy machine or with a slow GUI."),
        Option("UCI_ShowWDL", "check", False,
               doc="Adds `wdl W D L` after every `score` of the `info` lines: the side to move's"
                   " chances to win, draw and lose, in per mille (summing to 1000), from a model"
                   " fitted to Scacco's own games (see [analysis](analysis.md#win-draw-loss))."),
        Option("UCI_LimitStrength", "check", False, search_arg="limit_strength",
               doc="Plays at the rating `UCI_Elo` instead of full strength, from the level "
                   "table calibrated for the evaluation in use (see [levels](levels.md)); a "
                   "forced mate in three or fewer is always played. Analysis (`infinite`, "
                   "`mate`, MultiPV, `searchmoves`) stays at full strength."),
        Option("UCI_Elo", "spin", 1500, MIN_ELO, MAX_ELO, search_arg="elo",
               doc="The rating aimed at when `UCI_LimitStrength` is on."),
        Option("Skill Level", "spin", 20, 0, 20, search_arg="skill_level",
               doc="20 is full strength, 0 the weakest; used when `UCI_LimitStrength` is off."),
        Option("EvalFile", "string", DEFAULT_EVAL_FILE, while_searching=False,
               on_change=lambda session, path: session.host.load_eval_file(path),
               doc="The network file of the neural evaluation (see [the network](network.md)); "
                   "a bare file name not found in the working folder is looked up among the "
                   "networks in the package. The file is read and checked (header, shape, size,"
                   " CRC-32) when the option is set: a bad file gets an `info string` with the "
                   "reason and the old network stays. Refused during a search."),
        Option("Use NNUE", "check", True, while_searching=False,
               on_change=lambda session, on: session.host.use_nnue(on),
               doc="Evaluate with the `EvalFile` network (the default); false for the classical"
                   " evaluation. The table is emptied on a change. Refused during a search, and"
                   " refused with the reason if the network cannot be loaded. If the network "
                   "cannot be read when the engine first needs it (the first command that "
                   "queues work, such as `isready` or `go`), an `info string` says why, the "
                   "option turns false and the search evaluates classically."),
        Option("SyzygyPath", "string", "", while_searching=False,
               on_change=lambda session, path: session.host.set_syzygy_path(path),
               doc="Folders of Syzygy tablebases (WDL `.rtbw` and DTZ `.rtbz` files, 3 to 7 "
                   "pieces), separated by `:` (`;` on Windows); `<empty>` for none. The tables "
                   "are mapped and checked when the option is set: an `info string` says how "
                   "many were found, and one per file refused (cut, corrupt, foreign, a folder) "
                   "with the reason; the others are used. Refused during a search."),
        Option("SyzygyProbeDepth", "spin", 1, 1, 100, while_searching=False,
               on_change=lambda session, depth: session.host.set_syzygy_option("depth", depth),
               doc="The search probes the tables only at this remaining depth or more (in "
                   "positions with as many pieces as `SyzygyProbeLimit`); raise it if the "
                   "tables are on a slow disk."),
        Option("Syzygy50MoveRule", "check", True, while_searching=False,
               on_change=lambda session, on: session.host.set_syzygy_option("rule50", on),
               doc="Count a win the fifty-move rule spoils (a cursed win, a blessed loss) as a "
                   "draw; false to play on for it."),
        Option("SyzygyProbeLimit", "spin", 7, 0, 7, while_searching=False,
               on_change=lambda session, limit: session.host.set_syzygy_option("limit", limit),
               doc="The most pieces (kings included) of a position the tables are probed for; "
                   "0 turns probing off."),
        trial_switch("SingularExtensions",
                     "Search a table move that no other move comes near one ply deeper (singular "
                     "extensions, with multi-cut and negative extensions).", default=True),
        trial_switch("CorrectionHistory",
                     "Correct the static evaluation by how far searches of positions with the "
                     "same pawns, or the same pieces of one colour, found it off (pawn and "
                     "non-pawn correction histories).", default=True),
        trial_switch("NodeTime",
                     "Clock play: think longer when the best move takes a small share of the "
                     "search's nodes and shorter when a large one, and play a move that beat the "
                     "best one in the iteration the clock interrupts.", default=True),
        trial_switch("NetworkScaling",
                     "Scale the network's evaluation down as material comes off and towards a "
                     "draw as the fifty-move counter runs."),
        trial_switch("FarContinuation",
                     "Order quiet moves by the continuation history of the side's own moves "
                     "four and six plies back too, not only of the last two moves.", default=True),
        trial_switch("HistoryPruning",
                     "Let the histories prune quiet moves: near the horizon one they rate badly "
                     "enough is not tried, and the futility margin follows them.", default=True),
        trial_switch("BestMoveHistory",
                     "Let the histories learn from the best move of every node that has one "
                     "(a PV node's move that raised alpha too), not only from a move that fails "
                     "high."),
        Option("UCI_Chess960", "check", False,
               doc="Chess960: FENs with any king and rook files (Shredder-FEN or X-FEN), "
                   "castling read and printed as king takes rook (`e1h1`). Takes effect at the "
                   "next `position`."),
    ]
