"""The total of several runs of ../shared/tools/match.py between the same two engines, from
their PGN files (--pgn): W-D-L, Elo with its 95% error and the SPRT's log-likelihood ratio,
by match.py's own formulas.  An SPRT of a few hundred games at 10+0.1 outlasts a session on two
cores, and match.py cannot resume one: it is run in pieces (each with --pgn and a --seed of its
own, so the pieces play different openings) and judged on the pieces together.

    python bench/match_total.py --name new --sprt 0,10 run1.pgn run2.pgn ...

Games without a result (a piece stopped mid-game leaves none) are not counted.  The pieces'
fault counts are in their logs, not in the PGN.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path

import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.shared import shared_dir  # noqa: E402


def match_module():
    path = shared_dir() / "tools" / "match.py"
    spec = importlib.util.spec_from_file_location("shared_match", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def count(paths, name):
    """(wins, draws, losses) of the engine called `name` in the games of `paths`."""
    w = d = l = 0
    for path in paths:
        with open(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                white, black = game.headers.get("White"), game.headers.get("Black")
                result = game.headers.get("Result")
                if name not in (white, black) or result not in ("1-0", "0-1", "1/2-1/2"):
                    continue
                if result == "1/2-1/2":
                    d += 1
                elif (result == "1-0") == (white == name):
                    w += 1
                else:
                    l += 1
    return w, d, l


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--name", required=True, help="the engine whose score is given")
    parser.add_argument("--sprt", help="elo0,elo1")
    args = parser.parse_args()
    for path in args.pgn:
        if not Path(path).is_file():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
    match = match_module()
    w, d, l = count(args.pgn, args.name)
    n = w + d + l
    if n == 0:
        print(f"no finished game of {args.name} in {', '.join(args.pgn)}", file=sys.stderr)
        return 1
    elo, error = match.elo(w, d, l)
    print(f"{args.name}: +{w} ={d} -{l} in {n} games, score {(w + d / 2) / n:.3f}, "
          f"Elo {elo:+.1f} +/- {error:.1f}")
    if args.sprt:
        elo0, elo1 = map(float, args.sprt.split(","))
        llr, bound = match.sprt_llr(w, d, l, elo0, elo1), math.log(0.95 / 0.05)
        verdict = ("H1 accepted" if llr >= bound else "H0 accepted" if llr <= -bound
                   else "inconclusive")
        print(f"SPRT [{elo0:g}, {elo1:g}]: LLR {llr:+.2f} of +/-{bound:.2f}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
