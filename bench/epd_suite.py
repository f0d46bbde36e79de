"""Run an EPD test suite (`bm` / `am` operations) at a fixed time per position.

Each position is searched with a fresh table for exactly --time seconds (a hard limit, no
early exit), then judged: solved when the best move is one of the `bm` moves and none of the
`am` moves.  python-chess parses the EPD (SAN moves) and prints our move in SAN.

    python bench/epd_suite.py ../shared/data/win_at_chess_test.epd --time 1 [--hash 16] [--limit N]
        [--switch history_pruning=off ...]

One line per position, then `solved/total` and the ids of the positions not solved.  --switch
sets one of the Searcher's switches of search features on trial (docs/development.md) before
the run, e.g. `history_pruning=off` to see what a feature does to the suite.
"""
import argparse
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.search import MAX_HASH_MB, Searcher  # noqa: E402


def read_suite(path, limit=None):
    """[(id, python-chess board, bm moves, am moves)]; lines without bm or am are skipped.

    :raises ValueError: on a line python-chess cannot parse, naming the line.
    """
    entries = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            board, ops = chess.Board.from_epd(line)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {error}") from None
        bm = list(ops.get("bm", []))
        am = list(ops.get("am", []))
        if not bm and not am:
            continue
        entries.append((str(ops.get("id", f"line {number}")), board, bm, am))
        if limit is not None and len(entries) >= limit:
            break
    return entries


def judge(move, bm, am):
    """Is `move` (a chess.Move) a solution?"""
    if bm and move not in bm:
        return False
    return move not in am


def describe(board, bm, am):
    parts = []
    if bm:
        parts.append("bm " + " ".join(board.san(m) for m in bm))
    if am:
        parts.append("am " + " ".join(board.san(m) for m in am))
    return "; ".join(parts)


def format_score(result):
    if result.score_mate is not None:
        return f"mate {result.score_mate}"
    return f"cp {result.score_cp}"


SWITCHES = ("singular_extensions", "correction_history", "network_scaling", "far_continuation",
            "history_pruning", "best_move_history", "node_time")


def parse_switch(text):
    """'NAME=on' or 'NAME=off' (also true/false, 1/0) -> (NAME, bool).

    :raises ValueError: naming what is wrong.
    """
    name, sep, value = text.partition("=")
    values = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}
    if not sep or name not in SWITCHES or value.lower() not in values:
        raise ValueError(f"--switch {text!r}: want NAME=on or NAME=off, NAME one of "
                         + ", ".join(SWITCHES))
    return name, values[value.lower()]


def run(entries, seconds, hash_mb, switches=()):
    """Search every entry for `seconds`; print one line each and return the unsolved ids."""
    searcher = Searcher(hash_mb)
    for name, on in switches:
        setattr(searcher, name, on)
    failed = []
    start = time.perf_counter()
    for index, (ident, board, bm, am) in enumerate(entries, 1):
        searcher.clear()
        result = searcher.search(Board(board.fen()), hard_time=seconds * 1000.0)
        move = chess.Move.from_uci(result.best_move) if result.best_move else chess.Move.null()
        ok = result.best_move is not None and judge(move, bm, am)
        if not ok:
            failed.append(ident)
        played = board.san(move) if result.best_move else "(none)"
        verdict = "ok  " if ok else "FAIL"
        print(f"{index:4d} {ident:<10} {verdict} {played:<8} ({describe(board, bm, am)})  "
              f"{format_score(result)}  depth {result.depth}  nodes {result.nodes}", flush=True)
    elapsed = time.perf_counter() - start
    solved = len(entries) - len(failed)
    print()
    print(f"solved {solved}/{len(entries)}  "
          f"({seconds:g} s per position, {hash_mb} MB, {elapsed:.1f} s in all)")
    if failed:
        print("not solved: " + " ".join(failed))
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(description="Run an EPD suite (bm/am) and print solved/total.")
    parser.add_argument("suite", help="EPD file with bm and/or am operations (SAN)")
    parser.add_argument("--time", type=float, required=True, help="seconds per position")
    parser.add_argument("--hash", type=int, default=16,
                        help="transposition table in MB (default 16)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N positions")
    parser.add_argument("--switch", action="append", default=[], metavar="NAME=on|off",
                        help="a search feature on trial switched on or off (repeatable): "
                             + ", ".join(SWITCHES))
    args = parser.parse_args(argv)
    if args.time <= 0:
        parser.error("--time must be positive")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if not 1 <= args.hash <= MAX_HASH_MB:
        parser.error(f"--hash must be in 1..{MAX_HASH_MB} MB")
    try:
        switches = [parse_switch(text) for text in args.switch]
    except ValueError as error:
        parser.error(str(error))
    try:
        entries = read_suite(args.suite, args.limit)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    if switches:
        print("switches: " + ", ".join(f"{name}={'on' if on else 'off'}" for name, on in switches))
    run(entries, args.time, args.hash, switches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
