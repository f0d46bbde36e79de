"""Unit tests of the pure UCI parsers, formatters and the options table (no process)."""
import io
import pathlib
import re
from dataclasses import dataclass
from typing import List, Optional

import pytest

import scacco
from scacco import engine, uci
from scacco.uci.loop import Output, read_lines
from scacco.uci.options import Option, OptionTable, standard_options
from scacco.uci.protocol import (GoCommand, format_bestmove, format_info, parse_go, parse_position,
                          parse_setoption, printable)

PYPROJECT = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"


# -- go ---------------------------------------------------------------------------------

def test_go_with_every_parameter():
    go = parse_go("searchmoves e2e4 g1f3 ponder wtime 1000 btime 2000 winc 10 binc 20 "
                  "movestogo 7 depth 5 nodes 12345 mate 3 movetime 500 infinite".split())
    assert go == GoCommand(searchmoves=["e2e4", "g1f3"], ponder=True, wtime=1000, btime=2000,
                           winc=10, binc=20, movestogo=7, depth=5, nodes=12345, mate=3,
                           movetime=500, infinite=True)


def test_go_empty_means_no_limits():
    assert parse_go([]) == GoCommand()


def test_go_searchmoves_end_at_the_next_keyword():
    go = parse_go("wtime 5 searchmoves e7e8q a2a3 depth 3".split())
    assert go.searchmoves == ["e7e8q", "a2a3"] and go.depth == 3 and go.wtime == 5


def test_go_clock_of_side_to_move():
    go = parse_go("wtime 1000 btime 2000 winc 10".split())
    assert go.clock(True) == (1000, 10)
    assert go.clock(False) == (2000, 0)
    assert parse_go(["depth", "3"]).clock(True) == (None, 0)


def test_go_perft_and_zero_movestogo():
    assert parse_go(["perft", "4"]).perft == 4
    assert parse_go(["movestogo", "0"]).movestogo is None


def test_go_negative_clock_is_accepted_and_huge_numbers_are_clamped():
    go = parse_go(["wtime", "-50", "nodes", "9" * 5000, "depth", "+7"])
    assert go.wtime == -50 and go.nodes == 2 ** 63 - 1 and go.depth == 7


@pytest.mark.parametrize("tokens, reason", [
    (["depth"], "needs a value"),
    (["depth", "x"], "integer"),
    (["depth", "0"], "at least 1"),
    (["depth", "3.5"], "integer"),
    (["depth", "٣"], "integer"),            # a non-ASCII digit is not a UCI number
    (["nodes", "-1"], "at least 1"),
    (["movetime", "-5"], "at least 0"),
    (["fast"], "unknown go parameter"),
    (["depth", "3", "depth", "4"], "twice"),
    (["searchmoves"], "at least one move"),
    (["searchmoves", "e2e9"], "not a move"),
    (["searchmoves", "0000"], "not a move"),
    (["perft", "0"], "at least 1"),
    (["perft", "21"], "at most 20"),
    (["perft", "9" * 40], "at most 20"),
])
def test_go_errors_name_the_reason(tokens, reason):
    with pytest.raises(ValueError, match=reason):
        parse_go(tokens)


# -- position ---------------------------------------------------------------------------

def test_position_startpos_and_moves():
    assert parse_position(["startpos"]).fen is None
    assert parse_position("startpos moves e2e4 e7e5".split()).moves == ["e2e4", "e7e5"]
    assert parse_position("startpos moves".split()).moves == []


def test_position_fen_with_and_without_clocks():
    fen = "8/8/8/8/8/8/8/K6k w - - 0 1"
    command = parse_position(["fen"] + fen.split() + ["moves", "a1a2"])
    assert command.fen == fen and command.moves == ["a1a2"]
    assert parse_position(["fen"] + fen.split()[:4]).fen == "8/8/8/8/8/8/8/K6k w - -"


@pytest.mark.parametrize("tokens, reason", [
    ([], "startpos"),
    (["start"], "expected 'startpos' or 'fen'"),
    (["fen"], "needs a FEN"),
    (["fen", "moves", "e2e4"], "needs a FEN"),
    (["startpos", "e2e4"], "expected 'moves'"),
])
def test_position_errors(tokens, reason):
    with pytest.raises(ValueError, match=reason):
        parse_position(tokens)


# -- setoption --------------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("setoption name Hash value 64", ("Hash", "64")),
    ("setoption name Clear Hash", ("Clear Hash", None)),
    ("setoption   name  Move   Overhead  value  100 ", ("Move Overhead", "100")),
    ("setoption name Book File value C:\\my  books\\a.bin", ("Book File", "C:\\my  books\\a.bin")),
    ("setoption name Hash value", ("Hash", "")),
    ("setoption name UCI_Chess960 VALUE true", ("UCI_Chess960", "true")),
])
def test_setoption_parsing(line, expected):
    assert parse_setoption(line) == expected


@pytest.mark.parametrize("line", ["setoption", "setoption Hash value 3", "setoption name",
                                  "setoption name value 3", "setoption name  "])
def test_setoption_errors(line):
    with pytest.raises(ValueError):
        parse_setoption(line)


# -- options ----------------------------------------------------------------------------

def test_options_are_declared_as_the_uci_specification_says():
    table = OptionTable(standard_options())
    lines = table.declarations()
    assert "option name Hash type spin default 16 min 1 max 65536" in lines
    assert "option name Clear Hash type button" in lines
    assert "option name Threads type spin default 1 min 1 max 512" in lines
    assert "option name MultiPV type spin default 1 min 1 max 256" in lines
    assert "option name Ponder type check default false" in lines
    assert "option name UCI_Chess960 type check default false" in lines
    assert any(line.startswith("option name Move Overhead type spin default ") for line in lines)


def test_option_names_are_case_insensitive_and_values_checked():
    table = OptionTable(standard_options())
    option = table.find("move   OVERHEAD")
    assert option is not None and option.name == "Move Overhead"
    assert option.parse("100") == 100
    with pytest.raises(ValueError, match="between 0 and 5000"):
        option.parse("5001")
    with pytest.raises(ValueError, match="integer"):
        option.parse("fast")
    assert table.find("uci_chess960").parse("TRUE") is True
    with pytest.raises(ValueError, match="true or false"):
        table.find("Ponder").parse("yes")
    with pytest.raises(ValueError, match="needs a value"):
        table.find("Hash").parse(None)
    assert table.find("Clear Hash").parse(None) is None
    assert table.find("no such option") is None


def test_a_later_issue_can_add_options_without_touching_the_loop():
    table = OptionTable(standard_options())
    table.add(Option("Aggression", "spin", 50, 0, 100, search_arg="aggression"))
    table.add(Option("Style", "combo", "Solid", choices=("Solid", "Wild")))
    assert "option name Style type combo default Solid var Solid var Wild" in table.declarations()
    assert table.find("style").parse("wild") == "Wild"
    assert table.search_args()["aggression"] == 50 and table.search_args()["multipv"] == 1
    table.store(table.find("Aggression"), 70)
    assert table["aggression"] == 70 and table.search_args()["aggression"] == 70
    with pytest.raises(ValueError):
        table.add(Option("hash", "spin", 1, 1, 2))
    with pytest.raises(ValueError):
        Option("Bad", "spin", 0, 1, 2)


# -- output -----------------------------------------------------------------------------

@dataclass
class FakeInfo:
    depth: int = 7
    seldepth: int = 11
    multipv: int = 1
    score_cp: Optional[int] = 23
    score_mate: Optional[int] = None
    bound: Optional[str] = None
    nodes: int = 1000
    nps: int = 50000
    time_ms: int = 20
    hashfull: int = 3
    pv: List[str] = None
    wdl: Optional[tuple] = (300, 600, 100)


def test_format_info_order_and_scores():
    line = format_info(FakeInfo(pv=["e2e4", "e7e5"]))
    assert line == ("info depth 7 seldepth 11 multipv 1 score cp 23 nodes 1000 nps 50000 "
                    "hashfull 3 time 20 pv e2e4 e7e5")
    assert " score mate -2 " in format_info(FakeInfo(score_cp=None, score_mate=-2, pv=["a2a3"]))
    assert " score cp -40 lowerbound " in format_info(FakeInfo(score_cp=-40, bound="lowerbound",
                                                               pv=["a2a3"]))
    # UCI_ShowWDL: after the score, before the bound, as Stockfish prints it
    assert " score cp -40 wdl 300 600 100 lowerbound nodes " in format_info(
        FakeInfo(score_cp=-40, bound="lowerbound", pv=["a2a3"]), show_wdl=True)


def test_format_bestmove():
    assert format_bestmove("e2e4", "e7e5") == "bestmove e2e4 ponder e7e5"
    assert format_bestmove("e2e4") == "bestmove e2e4"
    assert format_bestmove(None) == "bestmove 0000"


def test_printable_never_breaks_a_line():
    text = printable("a\rbestmove a1a1\nb\x00\x1b\u2028c" * 100, 50)
    assert re.fullmatch(r"[^\r\n\x00\x1b\u2028]*", text) and len(text) <= 53


def test_output_info_strings_cannot_forge_lines():
    stream = io.BytesIO()
    Output(stream).info("bad move e2e4\rbestmove a1a1")
    assert stream.getvalue().count(b"\n") == 1 and b"\r" not in stream.getvalue()


def test_read_lines_caps_length_and_replaces_bad_bytes():
    data = b"uci\n" + b"x" * 5000 + b"\n\xff\xfeisready\r\n" + b"y" * 10 + b"\nquit"
    lines = list(read_lines(io.BytesIO(data), limit=100))
    assert lines[0] == "uci\n"
    assert lines[1] is None                         # the overlong line, dropped whole
    assert lines[2] == "\ufffd\ufffdisready\r\n"
    assert lines[3:] == ["y" * 10 + "\n", "quit"]


def test_level_options_match_the_levels_the_engine_plays():
    from scacco.engine import levels
    from scacco.engine.search import Searcher
    import inspect
    table = OptionTable(standard_options())
    elo = table.find("UCI_Elo")
    assert (elo.minimum, elo.maximum) == (levels.MIN_ELO, levels.MAX_ELO)
    from scacco.engine.search import MAX_THREADS
    from scacco.uci.options import MAX_THREADS as UCI_MAX_THREADS
    assert table.find("Threads").maximum == UCI_MAX_THREADS == MAX_THREADS
    parameters = {**inspect.signature(Searcher.search).parameters,
                  **inspect.signature(levels.play).parameters}
    assert all(name in parameters for name in table.search_args())


def test_versions_agree():
    """One version: scacco._version, read by pyproject.toml, the subpackages and the metadata."""
    from importlib.metadata import version
    text = PYPROJECT.read_text()
    assert 'version = {attr = "scacco._version.__version__"}' in text
    assert uci.__version__ == engine.__version__ == scacco.__version__
    assert version("scacco") == scacco.__version__


def test_parse_int_clamps_above_its_maximum_unless_asked_to_refuse():
    from scacco.uci.protocol import parse_int
    assert parse_int("70", "depth", 1, 64) == 64
    assert parse_int("64", "depth", 1, 64, clamp=False) == 64
    with pytest.raises(ValueError, match="at most 64, not 65"):
        parse_int("65", "depth", 1, 64, clamp=False)
    with pytest.raises(ValueError, match="at least 1"):
        parse_int("0", "depth", 1, 64, clamp=False)
