"""How fast is `scacco datagen`?  Positions written per second with 1 job and with 2 (or the
--jobs given), each run a fresh file of the same games from the shared openings.

    python bench/datagen_speed.py [--nodes 5000] [--games 40] [--jobs 1 2]

The figure counts everything a run does (process start-up, opening, writing, fsync), so short
runs understate it; the games are the same for every job count, so the files are identical.
"""
import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.datagen import DEFAULT_NODES, generate  # noqa: E402
from tests.shared import shared_dir  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    openings = shared_dir() / "data" / "chessathome_openings.fen"
    files = {}
    with tempfile.TemporaryDirectory() as folder:
        for jobs in args.jobs:
            path = Path(folder) / f"jobs{jobs}.bin"
            start = time.perf_counter()
            summary = generate(path, args.games, nodes=args.nodes, seed=args.seed,
                               openings=openings, jobs=jobs, stream=io.StringIO())
            elapsed = time.perf_counter() - start
            files[jobs] = path.read_bytes()
            print(f"jobs {jobs}: {args.games} games, {summary['positions']} positions at "
                  f"{args.nodes} nodes/move in {elapsed:.1f} s: "
                  f"{summary['positions'] / elapsed:.0f} positions/s, "
                  f"{args.games / elapsed:.2f} games/s", flush=True)
    same = len(set(files.values())) == 1
    print(f"files identical across job counts: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
