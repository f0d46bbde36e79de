"""Make the games that bench/analysis_quality.py judges against Stockfish.

    python bench/make_quality_set.py [--out bench/quality/sf-set.pgn] [--tc 10+0.1] [--jobs 2]

The set, in order: Scacco at UCI_Elo 600, 900, 1200, 1500 and 1800 against Stockfish 15.1 at
UCI_Elo 1350, 1600 and 2000 (each pairing twice, colours swapped, from the same opening), then
Scacco 600 against Scacco 1200 and Scacco 900 against Scacco 1800 (twice each), then the real
human games of ../shared/data/pgn/ (standard chess, complete games: the Kasparov - Deep Blue
match, Nepomniachtchi - Ding game 1, the other master games there).  Openings: the shared
openings file, one per pairing.  Stockfish is Debian's /usr/games/stockfish.

The file is written in order and kept: run again, the games already in it are skipped and the
missing ones played (the same pairings, openings and clock; the levels' own noise differs from
run to run, so a made set is kept rather than made again).  Progress on stderr.
"""
from __future__ import annotations

import argparse
import io
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.shared import shared_dir  # noqa: E402
from bench.engines import close_all  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
SCACCO_ELOS = (600, 900, 1200, 1500, 1800)
STOCKFISH_ELOS = (1350, 1600, 2000)
SCACCO_PAIRS = ((600, 1200), (900, 1800))
HUMAN_FILES = ("kasparov-deep-blue-1997.pgn", "nepomniachtchi-liren-game1.pgn",
               "molinari-bordais-1979.pgn", "anastasian-lewis.pgn")
MAX_PLIES = 300


def player(kind: str, elo: int):
    """(name, command, options) of one side."""
    if kind == "stockfish":
        return (f"Stockfish {elo}", [STOCKFISH],
                {"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16})
    return (f"Scacco {elo}", [sys.executable, "-m", "scacco"],
            {"UCI_LimitStrength": True, "UCI_Elo": elo})


def pairings():
    """(white, black) players of every engine game, in the set's order."""
    out = []
    for ours in SCACCO_ELOS:
        for theirs in STOCKFISH_ELOS:
            a, b = player("scacco", ours), player("stockfish", theirs)
            out += [(a, b), (b, a)]
    for low, high in SCACCO_PAIRS:
        a, b = player("scacco", low), player("scacco", high)
        out += [(a, b), (b, a)]
    return out


def play_one(index: int, fen: str, white, black, tc: str) -> str:
    base, _, inc = tc.partition("+")
    base, inc = float(base), float(inc or 0)
    engines = []
    try:
        for name, command, options in (white, black):
            engine = chess.engine.SimpleEngine.popen_uci(command, timeout=30)
            engine.configure({k: v for k, v in options.items() if k in engine.options})
            engines.append(engine)
        board = chess.Board(fen)
        game = chess.pgn.Game()
        game.setup(board)
        game.headers.update(Event="analysis quality set", Round=str(index + 1),
                            White=white[0], Black=black[0])
        node, clock = game, [base, base]
        while board.outcome(claim_draw=True) is None and board.ply() < MAX_PLIES:
            side = 0 if board.turn == chess.WHITE else 1
            start = time.perf_counter()
            played = engines[side].play(board, chess.engine.Limit(
                white_clock=clock[0], black_clock=clock[1], white_inc=inc, black_inc=inc))
            clock[side] = max(clock[side] + inc - (time.perf_counter() - start), 0.05)
            node = node.add_variation(played.move)
            board.push(played.move)
        outcome = board.outcome(claim_draw=True)
        game.headers["Result"] = outcome.result() if outcome else "1/2-1/2"
        return str(game)
    finally:
        close_all(engines)


def human_games():
    """The PGN text of the shared folder's complete standard games."""
    out = []
    for name in HUMAN_FILES:
        with open(shared_dir() / "data" / "pgn" / name, encoding="utf-8-sig") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                if game.errors or game.headers.get("Result", "*") == "*":
                    continue
                if sum(1 for _ in game.mainline_moves()) < 20:
                    continue
                game.headers["Event"] = f"analysis quality set (human: {name})"
                out.append(str(game))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "bench" / "quality" / "sf-set.pgn"))
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    out = Path(args.out)
    done = 0
    if out.exists():
        with open(out) as handle:
            while chess.pgn.read_game(handle) is not None:
                done += 1
    fens = [line.split(";")[0].strip() for line in
            (shared_dir() / "data" / "chessathome_openings.fen").read_text().splitlines()
            if line.strip()]
    games = pairings()
    todo = [(i, fens[i // 2], w, b) for i, (w, b) in enumerate(games)][done:]
    lock = threading.Lock()
    with open(out, "a") as handle, ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(play_one, i, fen, w, b, args.tc) for i, fen, w, b in todo]
        for (i, _, w, b), future in zip(todo, futures):
            text = future.result()
            with lock:
                handle.write(text + "\n\n")
                handle.flush()
            result = chess.pgn.read_headers(io.StringIO(text)).get("Result")
            print(f"game {i + 1}/{len(games)}: {w[0]} - {b[0]} {result}", file=sys.stderr,
                  flush=True)
        if done <= len(games):
            humans = human_games()
            already = max(done - len(games), 0)
            for text in humans[already:]:
                handle.write(text + "\n\n")
            print(f"{len(humans)} human games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
