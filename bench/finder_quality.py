"""Finder quality: the share of found puzzles whose first move is the only winning move,
checked by Stockfish (or by Scacco with 20 times the finder's nodes).

    python bench/finder_quality.py [--games 200] [--engine /usr/games/stockfish]
                                   [--nodes 2000000] [--scacco] [--every-pairing] [--kind K]
                                   [--first-game K]

Takes the first N games of bench/collection/games.pgn that are between a weak and a strong
player (ratings at least 300 apart: the careless player or a named level against a stronger
named level; see bench/make_puzzle_collection.py) and their puzzles from
bench/collection/found.csv (what the finder found in them), and checks the position after the
opponent's move with a two-line search:

* a material puzzle counts as unique when the puzzle's move is the checker's best, wins
  (at least +200 cp or a mate) and the second best does not (below +200 cp, no mate for us);
* a mate in N counts as unique when the puzzle's move is the checker's best, mates within N,
  and the second best does not mate within N (the goal of a mate puzzle); the line also
  prints how many of them have a second best that does not win at all (below +200 cp).

Prints the counts and the percentage.  python-chess talks to Stockfish (bench only).
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chess  # noqa: E402
import chess.engine  # noqa: E402

from scacco.engine.pgn import read_games  # noqa: E402

COLLECTION = ROOT / "bench" / "collection"
WINNING_CP = 200
MIN_GAP = 300


def weak_strong_games(limit: int, every_pairing: bool = False, first: int = 1):
    """Numbers of the first `limit` games from game `first` on whose two ratings are at least
    MIN_GAP apart (or of any two players with every_pairing)."""
    numbers = []
    for number, game in enumerate(read_games(str(COLLECTION / "games.pgn")), 1):
        if number < first:
            continue
        white, black = int(game.headers["WhiteElo"]), int(game.headers["BlackElo"])
        if every_pairing or abs(white - black) >= MIN_GAP:
            numbers.append(number)
            if len(numbers) == limit:
                break
    return numbers


class ScaccoChecker:
    """The same two-line check with Scacco's own search (cp normalised as the finder's)."""

    def __init__(self, nodes: int) -> None:
        from scacco.engine.search import Searcher
        self.searcher = Searcher(64)
        self.nodes = nodes

    def lines(self, fen: str):
        from scacco.engine.board import Board
        result = self.searcher.search(Board(fen), nodes=self.nodes, multipv=2)
        out = []
        for info in sorted(result.lines, key=lambda i: i.score, reverse=True):
            out.append((info.pv[0], info.score_cp, info.score_mate))
        return out


class StockfishChecker:
    def __init__(self, path: str, nodes: int) -> None:
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"Threads": 1, "Hash": 64})
        self.nodes = nodes

    def lines(self, fen: str):
        board = chess.Board(fen)
        infos = self.engine.analyse(board, chess.engine.Limit(nodes=self.nodes), multipv=2)
        out = []
        for info in infos:
            score = info["score"].pov(board.turn)
            out.append((info["pv"][0].uci(), score.score(), score.mate()))
        return out

    def close(self) -> None:
        self.engine.quit()


def wins(cp, mate) -> bool:
    return (mate is not None and mate > 0) or (cp is not None and cp >= WINNING_CP)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--engine", default="/usr/games/stockfish")
    parser.add_argument("--nodes", type=int, default=2_000_000, help="checker nodes per position")
    parser.add_argument("--every-pairing", action="store_true",
                        help="take the games of any two players, not only weak against strong")
    parser.add_argument("--first-game", type=int, default=1,
                        help="start at this game of the file (e.g. games the finder was not tuned on)")
    parser.add_argument("--kind", choices=["mate", "material"], help="check only this kind of puzzle")
    parser.add_argument("--scacco", action="store_true",
                        help="check with Scacco at --nodes instead (the finder uses 150000: 20x is 3000000)")
    args = parser.parse_args()
    games = set(weak_strong_games(args.games, args.every_pairing, args.first_game))
    with open(COLLECTION / "found.csv", newline="") as handle:
        puzzles = [row for row in csv.DictReader(handle) if int(row["Game"]) in games
                   and (args.kind is None or row["Kind"] == args.kind)]
    checker = ScaccoChecker(args.nodes) if args.scacco else StockfishChecker(args.engine, args.nodes)
    unique = strict_mates = mates = 0
    failures = []
    try:
        for index, row in enumerate(puzzles, 1):
            moves = row["Moves"].split()
            board = chess.Board(row["FEN"])
            board.push_uci(moves[0])
            lines = checker.lines(board.fen())
            (best, cp, mate), second = lines[0], (lines[1] if len(lines) > 1 else None)
            if row["Kind"] == "mate":
                mates += 1
                n = (len(moves)) // 2
                ok = best == moves[1] and mate is not None and 0 < mate <= n and (
                    second is None or second[2] is None or second[2] <= 0 or second[2] > n)
                strict_mates += ok and (second is None or not wins(second[1], second[2]))
            else:
                ok = best == moves[1] and wins(cp, mate) and (second is None or not wins(second[1], second[2]))
            unique += ok
            if not ok:
                failures.append((row["PuzzleId"], board.fen(), moves[1], lines))
            print(f"{index}/{len(puzzles)} {row['PuzzleId']} {row['Kind']}: "
                  f"{'unique' if ok else 'NOT unique'} {lines}", file=sys.stderr, flush=True)
    finally:
        if hasattr(checker, "close"):
            checker.close()
    name = f"Scacco at {args.nodes} nodes" if args.scacco else f"{args.engine} at {args.nodes} nodes"
    total = len(puzzles)
    print(f"games: {len(games)} ({'any pairing' if args.every_pairing else 'weak against strong'}), puzzles found: {total} "
          f"({mates} mates, {total - mates} material)")
    print(f"checked by {name}: {unique}/{total} have a unique winning first move "
          f"({100.0 * unique / total if total else 0:.1f}%)")
    print(f"mates whose second best does not win at all: {strict_mates}/{mates}")
    for failure in failures:
        print("not unique:", *failure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
