"""Property test: random and mutated command lines never kill, hang or mislead the engine.

One engine process takes every example in turn (state carries over, which only adds to the
chaos).  After each line the engine must answer `isready`; every `bestmove` it prints must
be legal in a position it was asked to search; at the end of each example `stop` followed
by `go depth 1` must give a legal move (so no search or job is left running).
"""
import chess
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uci_client import UciProcess

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",      # checkmated
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                                   # stalemate
    "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",      # Chess960
    "8/8/8/8/8/8/8/K6k w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",        # bad en passant
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",          # short rank
    "8/8/8/8 w - - 0 1",
]
MOVES = ["e2e4", "e7e5", "g1f3", "b8c6", "d2d4", "e1g1", "e1h1", "a7a8q", "e5d4", "h7h8n",
         "0000", "e2e9", "f1g1", "a2a3", "zz", "e4e5"]
OPTION_NAMES = ["Hash", "hash", "Clear Hash", "Threads", "MultiPV", "Ponder", "Move Overhead",
                "UCI_Chess960", "uci_chess960", "Nonexistent", "Skill Level"]
OPTION_VALUES = ["1", "2", "16", "64", "0", "-3", "257", "true", "false", "TRUE", "maybe", "",
                 "99999999999999999999999", "3.5"]
GO_WORDS = ["depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate",
            "infinite", "ponder", "searchmoves", "perft"]
NUMBERS = ["0", "1", "2", "3", "50", "200", "1000", "-5", "x", "99999999999999999999"]
WORDS = ["uci", "isready", "ucinewgame", "stop", "ponderhit", "debug", "on", "off", "d", "eval",
         "position", "startpos", "fen", "moves", "go", "setoption", "name", "value", "register",
         "bench", "foo", "", "\t", "\x00", "é", "\u2028"]

small_ints = st.sampled_from(NUMBERS)


def go_line():
    limit = st.sampled_from([["depth", "2"], ["depth", "3"], ["nodes", "3000"], ["movetime", "30"],
                             ["wtime", "300", "btime", "300"], ["infinite"], ["ponder", "movetime", "50"],
                             ["mate", "2"], ["perft", "2"], ["wtime", "-10", "btime", "-10"],
                             ["ponder", "infinite"], []])
    extra = st.lists(st.one_of(st.sampled_from(GO_WORDS), small_ints, st.sampled_from(MOVES)), max_size=4)
    return st.tuples(limit, extra).map(lambda parts: " ".join(["go"] + parts[0] + parts[1]))


def position_line():
    head = st.one_of(st.just("startpos"), st.sampled_from(FENS).map(lambda fen: "fen " + fen))
    moves = st.lists(st.sampled_from(MOVES), max_size=5)
    return st.tuples(head, st.booleans(), moves).map(
        lambda p: f"position {p[0]}" + (" moves " + " ".join(p[2]) if p[1] else ""))


def setoption_line():
    return st.tuples(st.sampled_from(OPTION_NAMES), st.booleans(), st.sampled_from(OPTION_VALUES)).map(
        lambda p: f"setoption name {p[0]}" + (f" value {p[2]}" if p[1] else ""))


simple_lines = st.sampled_from(["uci", "isready", "ucinewgame", "stop", "ponderhit", "debug on",
                                "debug off", "d", "eval", "", "   ", "bench 1", "go perft 1"])
grammar_lines = st.one_of(simple_lines, go_line(), position_line(), setoption_line())


@st.composite
def mutated(draw):
    """A grammar line with tokens dropped, repeated, swapped, replaced or cut short."""
    tokens = draw(grammar_lines).split(" ")
    for _ in range(draw(st.integers(0, 3))):
        if not tokens:
            break
        i = draw(st.integers(0, len(tokens) - 1))
        action = draw(st.sampled_from(["drop", "repeat", "swap", "word", "upper", "cut"]))
        if action == "drop":
            del tokens[i]
        elif action == "repeat":
            tokens.insert(i, tokens[i])
        elif action == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif action == "word":
            tokens[i] = draw(st.sampled_from(WORDS + NUMBERS + MOVES))
        elif action == "upper":
            tokens[i] = tokens[i].upper()
        else:
            tokens[i] = tokens[i][:draw(st.integers(0, max(0, len(tokens[i]) - 1)))]
    return " ".join(tokens)


def safe(line: str) -> bool:
    """Lines that are valid input but would only make the test slow or end it: quit, deep
    perft or bench runs, and huge hash tables."""
    words = line.lower().split()
    if words[:1] == ["quit"]:
        return False
    if "perft" in words or "bench" in words:
        return words in (["go", "perft", "1"], ["go", "perft", "2"], ["bench", "1"])
    return True


raw_bytes = st.binary(max_size=60).filter(lambda b: b"\n" not in b and not b.strip().lower().startswith(b"quit"))
lines = st.one_of(grammar_lines.filter(safe).map(str.encode), mutated().filter(safe).map(str.encode),
                  raw_bytes)


@pytest.fixture(scope="module")
def engine():
    with UciProcess() as process:
        process.ask("uci", "uciok")
        yield process


def current_fen(engine, check) -> str:
    """The engine's position, from `d` (output printed meanwhile goes through `check`)."""
    lines = engine.ask("d", "Checkers:")
    check(lines)
    return next(line[5:] for line in reversed(lines) if line.startswith("Fen: "))


def legal_somewhere(move: str, fens) -> bool:
    """Legal (or, with no legal move, 0000) in one of the positions, read as standard chess
    or as Chess960 (UCI_Chess960 may have been switched by the fuzzer)."""
    for fen in fens:
        for chess960 in (False, True):
            try:
                board = chess.Board(fen, chess960=chess960)
            except ValueError:
                continue
            if move == "0000":
                if not any(board.legal_moves):
                    return True
                continue
            try:
                if chess.Move.from_uci(move) in board.legal_moves:
                    return True
            except ValueError:
                return False
    return False


FAILURE_MARKS = ("search failed", "internal error", "Traceback")


def starts_search(raw: bytes, answer) -> bool:
    """Did this go line start a search (one bestmove to come)?  A refused or malformed go
    says so in an info string at once; go perft prints counts, not a bestmove."""
    words = raw.decode("utf-8", errors="replace").split()
    if not words or words[0] != "go":
        return False
    if any(" ignored" in line and "go" in line for line in answer):
        return False
    return "perft" not in words[1:2]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(lines, min_size=1, max_size=12))
def test_random_command_lines(engine, commands):
    # Whatever an earlier (failed) example left running ends here.
    engine.send("stop")
    engine.send("ucinewgame")
    engine.fence()
    time.sleep(0.2)
    engine.fence()
    pending = []            # the positions of the searches started, oldest first

    def check(output):
        for line in output:
            assert not any(mark in line for mark in FAILURE_MARKS), line
            if line.startswith("bestmove"):
                assert pending, f"a bestmove no go asked for: {line}"
                fen = pending.pop(0)
                assert legal_somewhere(line.split()[1], [fen]), (line, fen)

    for raw in commands:
        fen = current_fen(engine, check) if raw.lstrip().lower().startswith(b"go") else None
        engine.send(raw + b"\n", raw=True)
        answer = engine.fence()     # the line may be an isready of its own
        if fen is not None and starts_search(raw.strip(), answer):
            pending.append(fen)
        check(answer)
    engine.send("stop")
    engine.send("ucinewgame")
    check(engine.fence())
    while pending:          # after stop, every search still out answers within the bound
        check(engine.read_until(lambda line: line.startswith("bestmove"), 10))
    fen = current_fen(engine, check)
    pending.append(fen)
    check(engine.bestmove("go depth 1"))
    assert not pending
    assert engine.proc.poll() is None
    assert not any("Traceback" in line for line in engine.stderr_lines), "".join(engine.stderr_lines)
