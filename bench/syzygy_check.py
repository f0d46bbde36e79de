"""The Syzygy reader against python-chess on many random positions, and its probing speed.

    python bench/syzygy_check.py [--per-material N] [--path DIR] [--seed S] [--material NAME ...]

For every material whose WDL table is in the folder (the shared syzygy/ folder by default):
N random legal positions (both sides to move; for materials with a pawn of each colour, one
position in five is an en-passant one), each probed for WDL and DTZ by Scacco
(engine.tablebase) and by python-chess's chess.syzygy.  Prints, per material, the positions
compared and the disagreements (the first few FENs of any), then the totals and Scacco's
probes per second (WDL and DTZ separately, timed over the same positions, python-chess's for
comparison).  Progress goes to stderr.  Exit status 1 when any answer differs.
"""
import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chess  # noqa: E402
import chess.syzygy  # noqa: E402

from scacco.engine.board import Board  # noqa: E402
from scacco.engine.tablebase import Tablebase  # noqa: E402
from tests.shared import shared_dir  # noqa: E402
from tests.test_syzygy import random_position  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-material", type=int, default=10000)
    parser.add_argument("--path", default=str(shared_dir() / "data" / "syzygy"))
    parser.add_argument("--seed", default="syzygy-check")
    parser.add_argument("--material", nargs="*", help="only these materials (e.g. KRPvKR)")
    args = parser.parse_args(argv)
    if args.per_material < 1:
        parser.error("--per-material must be at least 1")
    if not os.path.isdir(args.path):
        parser.error(f"{args.path}: not a folder")

    ours = Tablebase([args.path])
    for problem in ours.problems:
        print(f"refused: {problem}")
    names = sorted(n[:-5] for n in os.listdir(args.path) if n.endswith(".rtbw"))
    if args.material:
        names = [n for n in names if n in args.material]
    oracle = chess.syzygy.open_tablebase(args.path)

    total = bad = 0
    timings = {"ours_wdl": 0.0, "ours_dtz": 0.0, "ref_wdl": 0.0, "ref_dtz": 0.0}
    for index, name in enumerate(names, 1):
        rng = random.Random(f"{args.seed}:{name}")
        white, black = name.split("v")
        with_ep = "P" in white and "P" in black
        refs, boards = [], []
        for i in range(args.per_material):
            board = random_position(name, rng, en_passant=with_ep and i % 5 == 0)
            refs.append(board)
            boards.append(Board(board.fen()))
        start = time.perf_counter()
        wdl = [ours.probe_wdl(b) for b in boards]
        timings["ours_wdl"] += time.perf_counter() - start
        start = time.perf_counter()
        dtz = [ours.probe_dtz(b) for b in boards]
        timings["ours_dtz"] += time.perf_counter() - start
        start = time.perf_counter()
        ref_wdl = [oracle.get_wdl(b) for b in refs]
        timings["ref_wdl"] += time.perf_counter() - start
        start = time.perf_counter()
        ref_dtz = [oracle.get_dtz(b) for b in refs]
        timings["ref_dtz"] += time.perf_counter() - start
        wrong = [refs[i].fen() for i in range(len(refs))
                 if (wdl[i], dtz[i]) != (ref_wdl[i], ref_dtz[i])]
        total += len(refs)
        bad += len(wrong)
        print(f"{name:8} {len(refs):7d} positions  {len(wrong)} differ", flush=True)
        for fen in wrong[:5]:
            print(f"    {fen}")
        print(f"[{index}/{len(names)}] {name} done", file=sys.stderr, flush=True)
    oracle.close()
    print(f"total: {total} positions, {total - bad} agree, {bad} differ")
    if total:
        for key, label in (("ours_wdl", "Scacco WDL"), ("ours_dtz", "Scacco DTZ"),
                           ("ref_wdl", "python-chess WDL"), ("ref_dtz", "python-chess DTZ")):
            print(f"{label:17} {total / max(timings[key], 1e-9):10.0f} probes/s "
                  f"(from Python, one thread)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
