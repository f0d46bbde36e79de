"""At what raw Scacco score does the side to move win half of its self-play games?

This script plays a small, reproducible self-play set (Scacco against itself at a node budget,
one game from each of the first --games positions of the shared openings file), records the
raw search score of every position with the game's result, and fits

    P(the side ahead by x raw units wins) = 1 / (1 + exp(-(x - x50) / s))

by maximum likelihood (Newton's method on two parameters).  x50 is the score where the
chance to win is 50%.  It was once the analysis' centipawn scale; fast self-play converts an
advantage less often than strong play, so that scale read about half of Stockfish's, and
bench/cp_scale_fit.py (a fit against Stockfish's own centipawns) replaced it.  The playing
levels were calibrated with it: the ratio of the network's x50 to the classical one is
engine/levels.py's NETWORK_TO_CLASSICAL_RAW.  The games are played with the classical
evaluation, or with `--network` the packaged network.

    python bench/fit_win_scale.py --out /tmp/scacco-selfplay.jsonl --games 400 --nodes 20000 --jobs 2
    python bench/fit_win_scale.py --out /tmp/scacco-selfplay.jsonl --fit-only

The output is one JSON line per game (opening index, result, White's-view scores per ply),
written as each game ends; running again with the same --out plays only the games missing
(resumable).  Progress goes to stderr.
"""
import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.search import PACKAGED, Searcher  # noqa: E402
from tests.shared import shared_dir  # noqa: E402

# A game is adjudicated as won when both sides agree (each side's own search) that one side
# is this far ahead for RESIGN_PLIES plies in a row, and drawn after MAX_PLIES plies.
RESIGN_CP = 1000
RESIGN_PLIES = 6
MAX_PLIES = 300
# Positions used in the fit: after the first plies (the opening book's balance), and with
# scores of at most this size (a won position's score says little about how wins happen).
FIRST_PLY = 8
MAX_FIT_CP = 800


def play_game(fen: str, nodes: int, searcher: Searcher):
    """One self-play game from fen: (result "1-0"/"0-1"/"1/2-1/2", [(ply, White's cp or None)])."""
    searcher.clear()
    board = Board(fen)
    scores = []
    ahead = 0  # signed count of consecutive plies with |score| >= RESIGN_CP for the same side
    for ply in range(MAX_PLIES):
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            winner = outcome.winner
            return ("1/2-1/2" if winner is None else "1-0" if winner else "0-1"), scores
        result = searcher.search(board, nodes=nodes)
        white = 1 if board.turn else -1
        if result.score_mate is not None:
            cp = None
            side = white if result.score_mate > 0 else -white
        else:
            cp = white * result.score          # raw units, as the fit is made in
            side = (1 if cp > 0 else -1) if abs(cp) >= RESIGN_CP else 0
        scores.append((ply, cp))
        ahead = ahead + side if side and (ahead == 0 or (ahead > 0) == (side > 0)) else side
        if abs(ahead) >= RESIGN_PLIES:
            return ("1-0" if ahead > 0 else "0-1"), scores
        board.push_uci(result.best_move)
    return "1/2-1/2", scores


_worker_searcher = None


def _play_one(task):
    """Pool worker: (index, result, scores) of the game from one opening."""
    global _worker_searcher
    index, fen, nodes, network = task
    if _worker_searcher is None:
        _worker_searcher = Searcher(16, network=PACKAGED if network else None)
    result, scores = play_game(fen, nodes, _worker_searcher)
    return index, result, scores


def generate(out: Path, games: int, nodes: int, openings: Path, jobs: int = 1,
             network: bool = False) -> None:
    """Play the games missing from `out` in `jobs` processes (each game depends only on its
    opening, so the file's content does not depend on the jobs; its order may)."""
    done = set()
    evaluation = "network" if network else "classical"
    if out.exists():
        with open(out) as handle:
            for number, line in enumerate(handle, 1):
                try:
                    record = json.loads(line)
                    index = record["index"]
                except (ValueError, KeyError, TypeError):
                    print(f"ignoring a bad line of {out}: {line[:60]!r}", file=sys.stderr)
                    continue
                # Each evaluation has its own units: one file fits one of them.
                if record.get("evaluation", "classical") != evaluation:
                    raise SystemExit(f"{out}, line {number}: a game played with the "
                                     f"{record.get('evaluation', 'classical')} evaluation; this "
                                     f"run plays with the {evaluation} one (use another --out)")
                done.add(index)
    with open(openings) as handle:
        fens = [line.strip() for _, line in zip(range(games), handle) if line.strip()]
    tasks = [(i, fens[i], nodes, network) for i in range(len(fens)) if i not in done]
    start = time.monotonic()
    with open(out, "a") as handle, multiprocessing.Pool(jobs) as pool:
        for count, (index, result, scores) in enumerate(pool.imap_unordered(_play_one, tasks), 1):
            handle.write(json.dumps({"index": index, "nodes": nodes, "result": result,
                                     "evaluation": evaluation,
                                     "scores": scores}) + "\n")
            handle.flush()
            rate = count / (time.monotonic() - start)
            print(f"game {count}/{len(tasks)} (opening {index}) {result}, "
                  f"{rate * 60:.1f} games/min, {(len(tasks) - count) / rate:.0f} s left",
                  file=sys.stderr, flush=True)


def read_games(out: Path):
    """(games, evaluation) of `out`: for each game, {score: [positions, wins]} of its fit
    points (the score of the side whose chance it is, from both sides' view of each
    position); the evaluation they were played with ("classical" or "network")."""
    games, evaluations = [], set()
    with open(out) as handle:
        for line in handle:
            record = json.loads(line)
            evaluations.add(record.get("evaluation", "classical"))
            if len(evaluations) > 1:
                raise SystemExit(f"{out} holds games of both evaluations: fit one at a time")
            white_won = record["result"] == "1-0"
            black_won = record["result"] == "0-1"
            points = {}
            for ply, cp in record["scores"]:
                if cp is None or ply < FIRST_PLY or abs(cp) > MAX_FIT_CP:
                    continue
                for x, won in ((cp, white_won), (-cp, black_won)):
                    count = points.setdefault(x, [0, 0])
                    count[0] += 1
                    count[1] += won
            games.append(points)
    return games, evaluations.pop() if evaluations else "classical"


def fit_points(games: list):
    """(x50, s, points): the logistic fit of win (1) / no win (0) against the score, over
    the fit points of `games` (the same game may come more than once: a resample)."""
    totals = {}
    for points in games:
        for x, (n, wins) in points.items():
            total = totals.setdefault(x, [0, 0])
            total[0] += n
            total[1] += wins
    # P = sigmoid(a + b x); Newton's method on the log-likelihood, over distinct scores.
    a, b = 0.0, 0.005
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, (n, wins) in totals.items():
            z = max(-500.0, min(500.0, a + b * x))
            p = 1.0 / (1.0 + math.exp(-z))
            w = n * p * (1.0 - p)
            residual = wins - n * p
            ga += residual
            gb += residual * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        # damped steps: a full Newton step from a poor start can overshoot
        scale = min(1.0, 0.002 / abs(db)) if db else 1.0
        a += da * scale
        b += db * scale
        if abs(da) < 1e-10 and abs(db) < 1e-12:
            break
    return -a / b, 1.0 / b, sum(n for n, _ in totals.values())


def bootstrap_x50(games: list, rounds: int, seed: int = 1):
    """The 2.5th and 97.5th percentiles of x50 over `rounds` resamples of the games (the
    positions of one game are not independent, so the games are what is resampled)."""
    rng = random.Random(seed)
    fits = sorted(fit_points([rng.choice(games) for _ in games])[0] for _ in range(rounds))
    return fits[int(0.025 * (rounds - 1))], fits[int(round(0.975 * (rounds - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON-lines file of games (outside the repository)")
    parser.add_argument("--games", type=int, default=300, help="number of games (default 300)")
    parser.add_argument("--nodes", type=int, default=4000, help="node budget per move (default 4000)")
    parser.add_argument("--fit-only", action="store_true", help="fit the games already in --out")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing games (default 1)")
    parser.add_argument("--network", action="store_true",
                        help="play with the packaged network instead of the classical evaluation")
    parser.add_argument("--bootstrap", type=int, default=200, metavar="N",
                        help="resample the games N times for x50's 95%% interval (0: none)")
    args = parser.parse_args()
    if args.bootstrap < 0:
        parser.error("--bootstrap must be 0 or more")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    out = Path(args.out)
    if not args.fit_only:
        generate(out, args.games, args.nodes, shared_dir() / "data" / "chessathome_openings.fen",
                 args.jobs, args.network)
    games, evaluation = read_games(out)
    x50, s, points = fit_points(games)
    print(f"games: {len(games)} ({evaluation} evaluation), points: {points}")
    print(f"P(win) = 1 / (1 + exp(-(cp - {x50:.1f}) / {s:.1f}))")
    print(f"50% to win at {x50:.1f} raw Scacco units (the ratio of the two evaluations' x50 is "
          f"engine/levels.py's NETWORK_TO_CLASSICAL_RAW)")
    if args.bootstrap:
        low, high = bootstrap_x50(games, args.bootstrap)
        print(f"x50 95% interval over {args.bootstrap} resamples of the games: {low:.1f} .. {high:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
