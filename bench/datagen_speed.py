"""How fast is `scacco datagen`?  Positions written per second with 1 job and with 2 (or the
--jobs given), each run a fresh file of the same games from the shared openings; then how fast
a resume checks a file (every game against its end mark), on the file made and on a larger one
of --check-mb MB made of copies of its games.

    python bench/datagen_speed.py [--nodes 5000] [--games 40] [--jobs 1 2] [--check-mb 100]

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
from scacco.engine.training.datagen import (DEFAULT_NODES, HEADER_BYTES, RECORD_BYTES, end_mark,  # noqa: E402
                                   generate, open_output, read_settings)
from tests.shared import shared_dir  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--check-mb", type=int, default=100)
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
        made = path
        check(made, "the file made")
        larger = Path(folder) / "larger.bin"
        copy_games(made, larger, args.check_mb << 20)
        check(larger, "copies of its games")
    return 0 if same else 1


def check(path: Path, what: str) -> None:
    """Time the check a resume makes of the whole file."""
    start = time.perf_counter()
    handle, next_game = open_output(path, read_settings(path), io.StringIO())
    handle.close()
    elapsed = time.perf_counter() - start
    size = path.stat().st_size
    print(f"resume check, {what}: {next_game} games, {size / 1e6:.1f} MB in {elapsed:.2f} s: "
          f"{size / 1e6 / elapsed:.0f} MB/s")


def copy_games(source: Path, target: Path, size: int) -> None:
    """A file of at least `size` bytes: the games of `source` again and again, renumbered."""
    data = source.read_bytes()
    games, records, offset = [], b"", HEADER_BYTES
    while offset + RECORD_BYTES <= len(data):
        unit = data[offset:offset + RECORD_BYTES]
        offset += RECORD_BYTES
        if unit[:8] == bytes(8):
            games.append((records, unit[20], unit[21]))
            records = b""
        else:
            records += unit
    with open(target, "wb") as out:
        out.write(data[:HEADER_BYTES])
        written, index = HEADER_BYTES, 0
        while written < size:
            for records, result, termination in games:
                chunk = records + end_mark(index, records, result - 256 if result > 127 else result,
                                           termination)
                out.write(chunk)
                written += len(chunk)
                index += 1


if __name__ == "__main__":
    sys.exit(main())
