"""How fast is `scacco analyse`?  One 40-move game on one core, and the throughput of one job
against --jobs N.

The games are the shared Kasparov - Deep Blue 1997 match (or those of --pgn FILE that are
long enough), each cut to its first 40 moves (81 positions), analysed at the default node
budget (or --nodes) with its second and third looks; the line says how many positions were
looked at again.

    python bench/analysis_speed.py [--nodes N] [--games 4] [--jobs 2] [--pgn FILE]

Targets: the single game in at most 15 s; --jobs 2 at least 1.8x the positions per second
of one job (on a machine with two free cores).
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.review.analysis import DEFAULT_NODES, Budget, analyse_pgn  # noqa: E402
from scacco.engine.batch import run_local  # noqa: E402
from scacco.engine.pgn import read_games  # noqa: E402
from tests.shared import shared_dir  # noqa: E402
from bench import review_knobs  # noqa: E402

MOVES = 40


def forty_move_games(count, path=None):
    games = []
    for game in read_games(str(path or shared_dir() / "data" / "pgn" / "kasparov-deep-blue-1997.pgn")):
        if len(game.moves) >= 2 * MOVES:
            game.moves = game.moves[:2 * MOVES]
            games.append(str(game))
            if len(games) == count:
                break
    return (games * count)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES)
    parser.add_argument("--games", type=int, default=4, help="games for the throughput runs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pgn", help="take the games of 40 moves or more from this file instead "
                                      "(e.g. bench/collection/games.pgn: weak players, many blunders)")
    review_knobs.add_option(parser)
    args = parser.parse_args()
    if review_knobs.apply(args.look):
        print(f"--look {dict(args.look)}: the single game's; worker processes of the throughput "
              "runs keep the module's values", file=sys.stderr)
    budget = Budget(nodes=args.nodes)
    games = forty_move_games(max(args.games, 1), args.pgn)
    start = time.perf_counter()
    single = analyse_pgn(games[0], budget, 1)
    elapsed = time.perf_counter() - start
    print(f"one {MOVES}-move game ({single.positions} positions, {args.nodes} nodes each, "
          f"{single.reviewed} looked at again at {budget.review}x; {single.nodes / 1e6:.1f} M nodes): "
          f"{elapsed:.2f} s, {single.positions / elapsed:.1f} positions/s, "
          f"{single.nodes / elapsed / 1e6:.2f} M nodes/s")
    rates = {}
    for jobs in (1, args.jobs):
        items = [(text, budget, i + 1) for i, text in enumerate(games)]
        start = time.perf_counter()
        results = list(run_local(analyse_pgn, items, jobs=jobs))
        elapsed = time.perf_counter() - start
        positions = sum(r.positions for r in results)
        rates[jobs] = positions / elapsed
        print(f"--jobs {jobs}: {len(results)} games, {positions} positions in {elapsed:.1f} s, "
              f"{rates[jobs]:.1f} positions/s (worker start-up included)")
    print(f"speed-up with --jobs {args.jobs}: {rates[args.jobs] / rates[1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
