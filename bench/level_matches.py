"""Calibrate the playing levels with engine matches and print the table docs/levels.md shows.

Two kinds of match, all through the shared match runner (../shared/tools/match.py):

* `--stockfish`: each of the given ratings (default 1500 1800 2100) against Stockfish with
  UCI_LimitStrength=true at the same UCI_Elo.  The target is 35-65% for Scacco.
* `--ladder`: each named level against the one below it (Easy-Beginner ... Master-Expert),
  both sides Scacco.  The target below 1500 is 60-90% for the stronger level.

    python bench/level_matches.py --stockfish --ladder --games 100 --concurrency 2

The engine defaults to this checkout (`python -m scacco` run from the repository root); pass
`--engine CMD` to match an installed copy, `--classical` to match the classical evaluation's
level table (Use NNUE off) instead of the network's.  The match runner and the openings come
from the shared folder (next to the repository, or $SCACCO_SHARED).  Every match's PGN and log
go to --out.
"""
import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.levels import NAMED_LEVELS  # noqa: E402
from tests.shared import shared_dir  # noqa: E402

SCORE = re.compile(r"^Score of .+: (\d+) - (\d+) - (\d+) \[([0-9.]+)\] (\d+)$")
ELO = re.compile(r"^Elo difference: (\S+) \+/- (\S+)$")
FAULTS = re.compile(r"^faults: (\d+)")


def run_match(args, name, engine1, options1, engine2, options2, tag):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, args.match, "--engine", engine1, "--name", name[0]]
    command += [f"--option=1:{o}" for o in options1]
    command += ["--engine", engine2, "--name", name[1]]
    command += [f"--option=2:{o}" for o in options2]
    command += ["--games", str(args.games), "--tc", args.tc, "--concurrency", str(args.concurrency),
                "--openings", args.openings, "--seed", str(args.seed),
                "--pgn", str(out / f"{tag}.pgn")]
    print("$", shlex.join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True)
    (out / f"{tag}.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        raise SystemExit(f"match {tag} failed (exit {result.returncode}); see {out / tag}.log")
    wins = losses = draws = games = faults = None
    score = elo = error = None
    for line in result.stdout.splitlines():
        line = line.strip()
        if m := SCORE.match(line):
            wins, losses, draws, score, games = (int(m[1]), int(m[2]), int(m[3]), float(m[4]),
                                                 int(m[5]))
        elif m := ELO.match(line):
            elo, error = m[1], m[2]
        elif m := FAULTS.match(line):
            faults = int(m[1])
    if score is None:
        raise SystemExit(f"match {tag}: no final score in the runner's output; see {out / tag}.log")
    return f"{games} | +{wins} ={draws} -{losses} | {100 * score:.1f}% | {elo} ± {error} | {faults}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stockfish", action="store_true", help="matches against limited Stockfish")
    parser.add_argument("--ladder", action="store_true", help="each named level against the one below")
    parser.add_argument("--elo", type=int, nargs="+", default=[1500, 1800, 2100])
    parser.add_argument("--engine", help="Scacco command (default: python -m scacco in this checkout)")
    parser.add_argument("--classical", action="store_true",
                        help="Scacco with Use NNUE=false: the classical evaluation's level table")
    parser.add_argument("--stockfish-path", default="/usr/games/stockfish")
    parser.add_argument("--match", default=str(shared_dir() / "tools" / "match.py"))
    parser.add_argument("--openings", default=str(shared_dir() / "data" / "chessathome_openings.fen"))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="level-matches")
    args = parser.parse_args(argv)
    if not (args.stockfish or args.ladder):
        parser.error("choose --stockfish, --ladder or both")
    for path, what in ((args.match, "--match"), (args.openings, "--openings")):
        if not Path(path).is_file():
            parser.error(f"{what}: no file {path}")
    engine = args.engine
    if engine is None:
        checkout = f"cd {shlex.quote(str(ROOT))} && exec {shlex.quote(sys.executable)} -m scacco"
        engine = f"sh -c {shlex.quote(checkout)}"

    evaluation = ["Use NNUE=false"] if args.classical else []
    rows = []
    if args.stockfish:
        if not Path(args.stockfish_path).is_file():
            parser.error(f"--stockfish-path: no file {args.stockfish_path}")
        for elo in args.elo:
            limited = ["UCI_LimitStrength=true", f"UCI_Elo={elo}"]
            row = run_match(args, (f"Scacco{elo}", f"Stockfish{elo}"), engine, limited + evaluation,
                            args.stockfish_path, limited, f"stockfish_{elo}")
            rows.append(f"| Scacco {elo} vs Stockfish {elo} | {row} |")
    if args.ladder:
        named = sorted(NAMED_LEVELS.items(), key=lambda item: item[1])
        for (low_name, low), (high_name, high) in zip(named, named[1:]):
            row = run_match(args, (high_name, low_name),
                            engine, ["UCI_LimitStrength=true", f"UCI_Elo={high}"] + evaluation,
                            engine, ["UCI_LimitStrength=true", f"UCI_Elo={low}"] + evaluation,
                            f"ladder_{high}_{low}")
            rows.append(f"| {high_name} {high} vs {low_name} {low} | {row} |")

    print()
    print("| match | games | result | score | Elo | faults |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
