"""Find a playing level's budget for one evaluation by games against a level of known strength.

Plays a level of the network's table (engine.levels.level_for_elo(elo), with the node budget,
depth, margin or noise given here in place of the table's) against a reference level, by
default the classical table's level at the same rating, which the matches against Stockfish
and the ladder calibrated (docs/levels.md, "Calibration").  The games run in this process and
its workers, each move from the level's node budget (no clock), so a match of a few hundred
games takes minutes where the same match against Stockfish at 10+0.1 takes an hour; a
budget found here is then checked by those matches (bench/level_matches.py).

    python bench/level_budget.py --elo 1500 --nodes 1500 --games 400 --jobs 2

With --against-network --reference-off FEATURES the reference is the same level on the search
the bands were measured with (those features off): whether a new default search moved a level,
and which budget brings it back.

    python bench/level_budget.py --elo 1500 --against-network --reference-off \
        singular_extensions,correction_history,far_continuation,history_pruning

Each opening of the shared book is played twice, colours reversed.  Prints the result of the
level under test, its score and the Elo difference with a 95% interval; progress goes to
standard error.
"""
import argparse
import math
import multiprocessing
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.levels import Level, level_for_elo, play_weakened  # noqa: E402
from scacco.engine.search import PACKAGED, Searcher  # noqa: E402
from tests.shared import shared_dir  # noqa: E402

MAX_PLIES = 400   # a game still going after this many plies is scored a draw

_searchers = {}


def _searcher(network: bool, off=()) -> Searcher:
    """The searcher of one evaluation, with the search features named in `off` (Searcher
    attributes, such as singular_extensions) turned off."""
    key = (network, tuple(off))
    if key not in _searchers:
        searcher = Searcher(16, network=PACKAGED if network else None)
        for attribute in off:
            setattr(searcher, attribute, False)
        _searchers[key] = searcher
    return _searchers[key]


def play_game(task):
    """One game; returns the score of the level under test (1, 0.5 or 0) and the plies."""
    fen, test_white, seed, test, reference = task
    board = Board(fen)
    rng = random.Random(seed)
    sides = {True: test if test_white else reference, False: reference if test_white else test}
    for _, network, off in (test, reference):
        _searcher(network, off).clear()
    plies = 0
    while plies < MAX_PLIES:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            if outcome.winner is None:
                return 0.5, plies
            return (1.0 if outcome.winner == test_white else 0.0), plies
        level, network, off = sides[board.turn]
        move = play_weakened(_searcher(network, off), board, level, rng=rng).best_move
        board.push_uci(move)
        plies += 1
    return 0.5, plies


def elo_interval(wins: int, draws: int, losses: int):
    """Score, Elo difference and the half-width of its 95% interval (normal approximation over
    the games' scores)."""
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score ** 2) / n

    def elo(s):
        s = min(max(s, 1e-6), 1 - 1e-6)
        return -400 * math.log10(1 / s - 1)

    half = 1.96 * math.sqrt(variance / n)
    return score, elo(score), (elo(score + half) - elo(score - half)) / 2


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elo", type=int, required=True,
                        help="the rating of the level under test")
    parser.add_argument("--nodes", type=int, help="its node budget (default: the network table's)")
    parser.add_argument("--depth", type=int, help="its depth cap")
    parser.add_argument("--margin", type=int, help="its margin, in the network's centipawns")
    parser.add_argument("--noise", type=float, help="its noise, in the network's centipawns")
    parser.add_argument("--classical", action="store_true",
                        help="test a level of the classical table instead of the network's")
    parser.add_argument("--against", type=int, help="the reference level's rating (default --elo)")
    parser.add_argument("--against-network", action="store_true",
                        help="take the reference level from the network's table (default classical)")
    parser.add_argument("--reference-off", default="",
                        help="search features turned off for the reference level, as Searcher "
                             "attributes with commas (singular_extensions,history_pruning,...): the "
                             "search a level's band was measured with, after features became "
                             "defaults")
    parser.add_argument("--games", type=int, default=400, help="games (an even number)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--openings",
                        default=str(shared_dir() / "data" / "chessathome_openings.fen"))
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be a positive even number")
    if not Path(args.openings).is_file():
        parser.error(f"--openings: no file {args.openings}")

    test: Level = level_for_elo(args.elo, network=not args.classical)
    changes = {key: value for key, value in (("nodes", args.nodes), ("depth", args.depth),
                                             ("margin", args.margin), ("temperature", args.noise))
               if value is not None}
    test = replace(test, **changes)
    reference = level_for_elo(args.against or args.elo, network=args.against_network)
    print(f"under test ({'classical' if args.classical else 'network'}): {test.describe()}")
    off = tuple(name for name in args.reference_off.split(",") if name)
    for name in off:
        if not isinstance(getattr(Searcher, name, None), property):
            parser.error(f"--reference-off: Searcher has no switch {name}")
    print(f"reference ({'network' if args.against_network else 'classical'}): "
          f"{reference.describe()}" + (f", without {', '.join(off)}" if off else ""), flush=True)

    openings = [line.strip() for line in Path(args.openings).read_text().splitlines()
                if line.strip()]
    rng = random.Random(args.seed)
    chosen = rng.sample(openings, args.games // 2)
    tasks = []
    for index, fen in enumerate(chosen):
        for test_white in (True, False):
            tasks.append((fen, test_white, args.seed * 1_000_003 + 2 * index + test_white,
                          (test, not args.classical, ()), (reference, args.against_network, off)))

    wins = draws = losses = plies = 0
    start = time.monotonic()
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for done, (score, length) in enumerate(pool.imap_unordered(play_game, tasks), 1):
            wins += score == 1.0
            draws += score == 0.5
            losses += score == 0.0
            plies += length
            if done % 20 == 0 or done == len(tasks):
                s, elo, error = elo_interval(wins, draws, losses)
                print(f"{done}/{len(tasks)} games, +{wins} ={draws} -{losses} {100 * s:.1f}% "
                      f"{elo:+.0f} +/- {error:.0f}, {time.monotonic() - start:.0f} s",
                      file=sys.stderr, flush=True)
    s, elo, error = elo_interval(wins, draws, losses)
    print(f"{len(tasks)} games, +{wins} ={draws} -{losses}, score {100 * s:.1f}%, "
          f"Elo {elo:+.0f} +/- {error:.0f}, {plies / len(tasks):.0f} plies a game, "
          f"{time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
