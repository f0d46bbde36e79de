"""Make the shipped puzzle collection: games between Scacco's levels, then the puzzle finder.

    python bench/make_puzzle_collection.py play --games 1500 [--seed 11]  # resumable
    python bench/make_puzzle_collection.py find                           # resumable
    python bench/make_puzzle_collection.py verify                         # once, see below
    python bench/make_puzzle_collection.py build                          # -> engine/data/puzzles.csv

`play` plays game after game between two playing levels (engine.levels.play, each level at
its own node budget), a weak one against a stronger one (ratings drawn from the named levels,
at least 300 apart, or a careless player below 600 against a named level or itself: see
CARELESS),
and appends each game to bench/collection/games.pgn as soon as it is over.  Game i depends
only on (seed, i), so the run is reproducible, and it resumes after the last complete game.

`find` runs the finder (engine.trainer.puzzle_finder, node budgets: deterministic) on the games it
has not searched yet, appending their puzzles to bench/collection/found.csv and the number
of games searched to bench/collection/searched.txt, so it resumes too.  Progress on stderr.
`verify` applies the finder's last check of material puzzles (engine.trainer.puzzle_finder.
verify_material) to rows found without it (bench/collection's first games were searched
before the check existed), so that the rows are what the finder finds.

`build` tags the themes of every puzzle found in the searched games (engine.trainer.themes) and
writes the collection, one row per position (the first found wins), in the lichess CSV
format (engine/data/puzzles.csv, shipped in the package).

The shipped collection was played, found and verified with the classical evaluation; the
levels and the finder search with the network by default, so a new run gives other games and
puzzles: go on with an existing bench/collection only on the build that began it.
"""
from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scacco.engine.board import Board  # noqa: E402
from scacco.engine.levels import NAMED_LEVELS, Level, play, play_weakened  # noqa: E402
from scacco.engine.pgn import Game, MoveNode, read_games, write_game  # noqa: E402
from scacco.engine.trainer.puzzle_finder import FinderBudget, find_puzzles  # noqa: E402
from scacco.engine.search import Searcher  # noqa: E402

OUT = ROOT / "bench" / "collection"
GAMES = OUT / "games.pgn"
FOUND = OUT / "found.csv"
SEARCHED = OUT / "searched.txt"
COLLECTION = ROOT / "engine" / "data" / "puzzles.csv"
FOUND_COLUMNS = ["PuzzleId", "FEN", "Moves", "Rating", "Kind", "Game", "GameUrl", "Verified"]
MAX_PLIES = 200
MIN_GAP = 300
# A careless player below the named levels, made with the same machinery (engine.levels'
# play_weakened): a one-ply look at ten candidates and a margin so wide that it sometimes
# leaves a piece hanging, as beginners do; the named levels almost never do (their margin is
# less than a piece), so without it the games hold mates but hardly any tactic that wins
# material.  It is named by its elo field, CARELESS_ELO, in the PGN.
CARELESS_ELO = 400
CARELESS = Level(elo=CARELESS_ELO, nodes=60, depth=1, candidates=10, margin=700, temperature=300.0)
# The share of games: careless against a named level, careless against careless (the rest:
# two named levels).  Games between equals hold more blunders at equal material, where
# tactics are puzzles; the weak-against-strong games are the finder's quality test.
CARELESS_SHARE = 0.3
CARELESS_PAIR_SHARE = 0.45


def pairing(rng: random.Random):
    """(white elo, black elo): the careless player against a named level, or against itself,
    or two named levels at least MIN_GAP apart (see the shares above); colours at random."""
    elos = sorted(NAMED_LEVELS.values())
    draw = rng.random()
    if draw < CARELESS_SHARE:
        pair = [CARELESS_ELO, rng.choice(elos)]
        rng.shuffle(pair)
        return tuple(pair)
    if draw < CARELESS_SHARE + CARELESS_PAIR_SHARE:
        return CARELESS_ELO, CARELESS_ELO
    while True:
        a, b = rng.choice(elos), rng.choice(elos)
        if abs(a - b) >= MIN_GAP:
            return a, b


def _move(searcher: Searcher, board: Board, elo: int, rng: random.Random) -> str:
    if elo == CARELESS_ELO:
        return play_weakened(searcher, board, CARELESS, rng=rng).best_move
    return play(searcher, board, limit_strength=True, elo=elo, rng=rng).best_move


def play_game(seed: int, index: int) -> Game:
    """Game `index` of the run with this seed: the two levels from pairing(), moves by
    engine.levels.play until the game is over (draws claimed) or MAX_PLIES."""
    rng = random.Random(seed * 1_000_003 + index)
    white_elo, black_elo = pairing(rng)
    searchers = {True: Searcher(16), False: Searcher(16)}
    elos = {True: white_elo, False: black_elo}
    board = Board()
    game = Game(headers={"Event": "Scacco levels", "Site": "?", "Round": str(index + 1),
                         "White": f"Scacco {white_elo}", "Black": f"Scacco {black_elo}",
                         "WhiteElo": str(white_elo), "BlackElo": str(black_elo),
                         "Seed": f"{seed}:{index}"})
    while board.outcome(claim_draw=True) is None and board.ply < MAX_PLIES:
        move = _move(searchers[board.turn], board, elos[board.turn], rng)
        san = board.san(move)
        board.push_uci(move)
        game.moves.append(MoveNode(move, san))
    outcome = board.outcome(claim_draw=True)
    game.result = outcome.result() if outcome is not None else "*"
    game.headers["Result"] = game.result
    return game


def _found_rows():
    if not FOUND.exists():
        return []
    with open(FOUND, newline="") as handle:
        return list(csv.DictReader(handle))


def _write_csv(path: Path, columns, rows) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)


def _searched_games() -> int:
    """Games the finder has been through (the state file), 0 at the start."""
    return int(SEARCHED.read_text()) if SEARCHED.exists() else 0


def play_command(args) -> int:
    """Plays games until GAMES holds args.games (each appended as soon as it is over)."""
    OUT.mkdir(parents=True, exist_ok=True)
    done = sum(1 for _ in read_games(str(GAMES))) if GAMES.exists() else 0
    start = time.monotonic()
    for index in range(done, args.games):
        game = play_game(args.seed, index)
        with open(GAMES, "a") as handle:
            write_game(game, handle)
        print(f"game {index + 1}/{args.games}: {game.headers['White']} - {game.headers['Black']} "
              f"{game.result}, {len(game.moves)} plies; {time.monotonic() - start:.0f} s",
              file=sys.stderr, flush=True)
    return 0


def verify_command(args) -> int:
    """Applies the finder's final check of material puzzles (verify_material, added after
    the first 577 games had been searched) to the material rows of FOUND, dropping those that
    fail: the result is the same as searching those games with the finder as it is now."""
    from scacco.engine.trainer.puzzle_finder import verify_material

    rows = _found_rows()
    budget = FinderBudget()
    kept = []
    for index, row in enumerate(rows, 1):
        if row["Kind"] != "material" or row.get("Verified") == "yes" or \
                verify_material(row["FEN"], row["Moves"].split(), budget):
            row["Verified"] = "yes"
            kept.append(row)
        print(f"{index}/{len(rows)} checked, {len(kept)} kept", file=sys.stderr, flush=True)
    _write_csv(FOUND, FOUND_COLUMNS, kept)
    print(f"{len(rows) - len(kept)} material puzzles dropped, {len(kept)} rows left", file=sys.stderr)
    return 0


def find_command(args) -> int:
    """Runs the finder on the games it has not searched yet, appending their puzzles to FOUND
    and then the count of searched games to SEARCHED (a game cut short is searched again and
    its partial rows dropped)."""
    done = _searched_games()
    rows = [row for row in _found_rows() if int(row["Game"]) <= done]
    _write_csv(FOUND, FOUND_COLUMNS, rows)
    budget = FinderBudget()
    start = time.monotonic()
    total = len(rows)
    print(f"resuming after game {done} ({total} puzzles so far)", file=sys.stderr, flush=True)
    for number, game in enumerate(read_games(str(GAMES)), 1):
        if number <= done:
            continue
        if args.games is not None and number > args.games:
            break
        puzzles = find_puzzles(game, budget, number=number, source="bench/collection/games.pgn")
        with open(FOUND, "a", newline="") as handle:
            writer = csv.DictWriter(handle, FOUND_COLUMNS)
            for puzzle in puzzles:
                writer.writerow({"PuzzleId": puzzle.puzzle_id, "FEN": puzzle.fen,
                                 "Moves": " ".join(puzzle.moves), "Rating": puzzle.rating,
                                 "Kind": puzzle.kind, "Game": number, "GameUrl": puzzle.game_url,
                                 "Verified": "yes"})
        SEARCHED.write_text(str(number))
        total += len(puzzles)
        print(f"game {number}: {len(puzzles)} puzzles ({', '.join(p.kind for p in puzzles)}); "
              f"{total} in all; {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    return 0


def build_command(args) -> int:
    from scacco.uci.cli.puzzles import CSV_COLUMNS
    from scacco.engine.trainer.themes import tag_puzzle

    seen = set()
    out_rows = []
    searched = _searched_games()
    for row in _found_rows():
        if int(row["Game"]) > searched or row["FEN"] in seen:   # rows of a game cut short
            continue
        seen.add(row["FEN"])
        moves = row["Moves"].split()
        themes = tag_puzzle(row["FEN"], moves)
        out_rows.append({"PuzzleId": row["PuzzleId"], "FEN": row["FEN"], "Moves": row["Moves"],
                         "Rating": row["Rating"], "Themes": " ".join(themes),
                         "GameUrl": row["GameUrl"]})
    COLLECTION.parent.mkdir(parents=True, exist_ok=True)
    _write_csv(COLLECTION, CSV_COLUMNS, out_rows)
    print(f"{len(out_rows)} puzzles from {searched} games -> {COLLECTION}", file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play games (resumable)")
    p.add_argument("--games", type=int, required=True, help="play until this many games in all")
    p.add_argument("--seed", type=int, default=11)
    f = sub.add_parser("find", help="run the finder on the games not yet searched (resumable)")
    f.add_argument("--games", type=int, default=None, help="stop after this game number")
    sub.add_parser("verify", help="apply the finder's check of material puzzles to rows found before it")
    sub.add_parser("build", help="tag themes and write engine/data/puzzles.csv")
    args = parser.parse_args()
    return {"play": play_command, "find": find_command, "verify": verify_command,
            "build": build_command}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
