"""PGN reading speed: games and moves per second on real exports and on a generated file.

    python bench/pgn_speed.py [--repeat N] [--games N] [--python-chess]

Reads (1) the shared exports in shared/data/pgn, concatenated N times into one file, (2) a
file of generated games (seeded random legal moves, with comments, NAGs and variations,
written by our PgnWriter), and (3) one game with --comments comments after one move, each
opened by open_pgn (its encoding scan timed on its own) and read in four ways: full games
(GameBuilder), the main line only (a visitor that skips variations and keeps UCI moves),
tags only (read_headers) and skip_game.  With --python-chess, python-chess's reader runs on
the same files for comparison.  Figures are printed, never asserted against a time.
"""
import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scacco.engine.board import Board  # noqa: E402
from scacco.engine.pgn import (Game, HeadersBuilder, MainLineBuilder, MoveNode,  # noqa: E402
                               SkipVisitor, detect_encoding, open_pgn, write_game)
from tests.shared import shared_dir  # noqa: E402


def random_line(rng, board, plies, depth):
    """Random legal moves from the board (left as found), with comments, NAGs, variations."""
    line = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        uci = rng.choice(moves)
        node = MoveNode(uci, board.san(uci))
        if rng.random() < 0.1:
            node.comment = "[%clk 0:0{}:{:02d}] a plan".format(rng.randrange(10), rng.randrange(60))
        if rng.random() < 0.05:
            node.nags.append(rng.choice([1, 2, 3, 4, 5, 6]))
        if depth and rng.random() < 0.03:
            node.variations.append(random_line(rng, board, rng.randrange(1, 8), depth - 1))
        line.append(node)
        board.push_uci(uci)
    for _ in line:
        board.pop()
    return line


def write_generated(path, count, seed=1):
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as handle:
        for number in range(count):
            game = Game(headers={"Event": "Bench", "Round": str(number + 1)})
            game.moves = random_line(rng, Board(), rng.randrange(40, 120), depth=1)
            game.result = rng.choice(["1-0", "0-1", "1/2-1/2"])
            write_game(game, handle)


def measure(path, how):
    """(games, mainline moves, seconds) for reading the file in one of the four ways."""
    start = time.perf_counter()
    games = moves = 0
    with open_pgn(path) as pgn:
        if how == "full":
            for game in pgn.games():
                games += 1
                moves += len(game.moves)
        elif how == "mainline":
            for line in pgn.games(MainLineBuilder()):
                games += 1
                moves += len(line)
        elif how == "headers":
            for _ in pgn.games(HeadersBuilder()):
                games += 1
        else:
            for _ in pgn.games(SkipVisitor()):
                games += 1
    return games, moves, time.perf_counter() - start


def measure_scan(path):
    """Seconds of open_pgn's encoding scan alone (a whole pass over the bytes)."""
    start = time.perf_counter()
    with open(path, "rb") as raw:
        detect_encoding(raw)
    return time.perf_counter() - start


def measure_python_chess(path):
    import chess.pgn
    start = time.perf_counter()
    games = moves = 0
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games += 1
            moves += sum(1 for _ in game.mainline_moves())
    return games, moves, time.perf_counter() - start


def report(label, games, moves, seconds):
    line = f"  {label:<22} {games:7d} games {seconds:8.3f} s {games / seconds:9.0f} games/s"
    if moves:
        line += f" {moves / seconds:10.0f} moves/s"
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100,
                        help="copies of the shared exports in the first file (default 100)")
    parser.add_argument("--games", type=int, default=2000,
                        help="games in the generated file (default 2000)")
    parser.add_argument("--comments", type=int, default=80000,
                        help="comments after the one move of the third file (default 80000)")
    parser.add_argument("--python-chess", action="store_true",
                        help="also time python-chess's reader on the same files")
    args = parser.parse_args()

    exports = sorted((shared_dir() / "data" / "pgn").glob("*.pgn"))
    with tempfile.TemporaryDirectory() as folder:
        files = []
        if exports:
            joined = "".join(path.read_text(encoding="utf-8-sig").rstrip("\n") + "\n\n"
                             for path in exports)
            shared_path = Path(folder) / "shared.pgn"
            shared_path.write_text(joined * args.repeat, encoding="utf-8")
            files.append((f"shared exports x{args.repeat}", shared_path))
        else:
            print(f"(no shared exports in {shared_dir() / 'data' / 'pgn'}: skipped)", file=sys.stderr)
        generated = Path(folder) / "generated.pgn"
        print(f"writing {args.games} generated games...", file=sys.stderr, flush=True)
        write_generated(generated, args.games)
        files.append((f"generated ({args.games})", generated))
        commented = Path(folder) / "comments.pgn"
        commented.write_text("1. e4 " + "{a comment} " * args.comments + "e5 *\n", encoding="utf-8")
        files.append((f"{args.comments} comments after one move", commented))

        for label, path in files:
            size = path.stat().st_size / 1e6
            print(f"{label}: {size:.1f} MB, encoding scan {measure_scan(path):.3f} s")
            for how in ("full", "mainline", "headers", "skip"):
                report(how, *measure(path, how))
            if args.python_chess:
                report("python-chess read_game", *measure_python_chess(path))


if __name__ == "__main__":
    main()
