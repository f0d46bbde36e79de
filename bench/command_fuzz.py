"""Fuzz the file-handling commands (`scacco analyse`, `scacco puzzles`) as a careless user and
a hostile file would: mutated and cut PGN files (null moves, Chess960 games, huge comments,
UTF-16 and Latin-1 text, random bytes), outputs that name the input or each other, folders,
devices and missing folders, and runs stopped by SIGINT, SIGTERM or SIGKILL at a random moment
and then resumed.

After every run it checks: no traceback on stderr, no hang (a run must end within --timeout
seconds), an exit status of 0, 1, 2 or 128 + the signal, the input file unchanged byte for
byte, and every output either as it was before (an earlier file of that name) or a valid file
(the JSON parses, the PGN is read back by python-chess, the CSV has the lichess columns).

    python bench/command_fuzz.py --minutes 10 [--seed 1] [--keep DIR]

Progress on stderr every run; a summary at the end (runs, tracebacks, hangs, lost or torn
files, and the games that failed with an unexpected error: reported and contained, but each
a bug to look at); exit status 1 when a traceback, a hang or a lost file was found.  A failing case is kept in --keep (default a
temporary folder, printed) with its command line.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.oracles import play_random  # noqa: E402
from tests.shared import shared_dir  # noqa: E402

PGN_DIR = shared_dir() / "data" / "pgn"
SENTINEL = b"an earlier file the user cares about\n"


def source_texts() -> list:
    texts = []
    for path in sorted(PGN_DIR.glob("*.pgn")):
        texts.append(path.read_bytes())
    return texts


def chess960_game(rng: random.Random) -> bytes:
    board = chess.Board.from_chess960_pos(rng.randrange(960))
    play_random(board, rng, rng.randrange(10, 60))
    game = chess.pgn.Game.from_board(board)
    game.headers["Result"] = board.result(claim_draw=True)
    return (str(game) + "\n\n").encode()


def mutate(rng: random.Random, texts: list) -> bytes:
    """One hostile PGN file."""
    text = bytearray(rng.choice(texts))
    kind = rng.randrange(9)
    if kind == 0:                                   # cut anywhere
        del text[rng.randrange(len(text) + 1):]
    elif kind == 1:                                 # flipped bytes
        for _ in range(rng.randrange(1, 20)):
            if text:
                text[rng.randrange(len(text))] = rng.randrange(256)
    elif kind == 2:                                 # null moves in the main line
        words = bytes(text).split(b" ")
        for _ in range(rng.randrange(1, 4)):
            words.insert(rng.randrange(len(words) + 1), rng.choice([b"--", b"Z0", b"0000"]))
        text = bytearray(b" ".join(words))
    elif kind == 3:                                 # Chess960 games
        text = bytearray(b"".join(chess960_game(rng) for _ in range(rng.randrange(1, 4))))
    elif kind == 4:                                 # a huge comment run after one move
        at = bytes(text).find(b"1. ")
        at = at + 6 if at >= 0 else 0
        text[at:at] = b" {x}" * rng.choice([10, 1000, 20000])
    elif kind == 5:                                 # another encoding
        decoded = bytes(text).decode("utf-8", "replace")
        text = bytearray(decoded.encode("utf-16") if rng.random() < 0.5
                         else decoded.replace("\ufffd", "?").encode("latin-1", "replace"))
    elif kind == 6:                                 # random bytes
        text = bytearray(rng.randbytes(rng.randrange(0, 3000)))
    elif kind == 7:                                 # empty
        text = bytearray()
    # kind 8: the file as it is
    return bytes(text)


def digest(path: Path):
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError):
        return None


def valid(kind: str, path: Path) -> bool:
    """Whether an output written by a run is a whole file of its kind."""
    data = path.read_bytes()
    if kind == "json":
        try:
            report = json.loads(data)
        except ValueError:
            return False
        return isinstance(report, dict) and "games" in report and "complete" in report
    if kind == "pgn":
        handle = io.StringIO(data.decode("utf-8"))
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return True
            if game.errors:
                return False
    if kind == "csv":
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
        return bool(rows) and rows[0] == ["PuzzleId", "FEN", "Moves", "Rating", "Themes",
                                          "GameUrl"]
    return True


def one_case(rng: random.Random, work: Path, texts: list, timeout: float):
    """Runs one random case; returns a list of problems found (empty: all well)."""
    for entry in work.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    pgn = work / "games.pgn"
    pgn.write_bytes(mutate(rng, texts))
    before = digest(pgn)
    command = rng.choice(["analyse", "analyse", "puzzles"])
    outputs = {}                                     # path -> kind

    def target(kind):
        choice = rng.randrange(10)
        if choice == 0:
            return pgn, kind                         # the input itself
        if choice == 1 and outputs:
            return next(iter(outputs)), kind         # another output
        if choice == 2:
            (work / "folder").mkdir(exist_ok=True)
            return work / "folder", kind
        if choice == 3:
            return Path("/dev/null"), kind
        if choice == 4:
            return work / "missing" / f"out.{kind}", kind
        path = work / f"out-{len(outputs)}.{kind}"
        if choice < 7:
            path.write_bytes(SENTINEL)               # an earlier file of that name
        return path, kind

    args = [sys.executable, "-m", "scacco", command, str(pgn), "--nodes",
            str(rng.choice([200, 500, 2000])), "--jobs", str(rng.choice([1, 1, 2]))]
    if command == "analyse":
        for flag, kind in (("--out", "pgn"), ("--json", "json")):
            if rng.random() < 0.7:
                path, kind = target(kind)
                outputs.setdefault(path, kind)
                args += [flag, str(path)]
    else:
        path, kind = target("csv")
        outputs.setdefault(path, kind)
        args += ["--out", str(path)]
    earlier = {path: digest(path) for path in outputs if path.is_file()}
    stop = rng.choice([None, None, signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
    problems = []

    def run(arguments, signum=None):
        process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if signum is not None:
            time.sleep(rng.uniform(0.2, 3.0))
            process.send_signal(signum)
        try:
            _, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            problems.append(f"hang: {' '.join(arguments[2:])}")
            return None, ""
        return process.returncode, err.decode("utf-8", "replace")

    status, err = run(args, stop)
    allowed = {0, 1, 2} | ({128 + stop, -stop} if stop else set())
    if status is not None and status not in allowed:
        problems.append(f"exit status {status}")
    if "Traceback" in err:
        problems.append("traceback:\n" + err[-2000:])
    unexpected = [line for line in err.splitlines() if ": unexpected " in line]
    if stop in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL) and status not in (0, 1, 2, None):
        status, err = run(args + ["--resume"])
        if status not in (0, 1, 2, None):
            problems.append(f"resume: exit status {status}")
        if "Traceback" in err:
            problems.append("resume: traceback:\n" + err[-2000:])
    if digest(pgn) != before:
        problems.append("the input file changed")
    for path, kind in outputs.items():
        if path == pgn or not path.is_file() or str(path).startswith("/dev/"):
            continue
        if digest(path) == earlier.get(path):
            continue                                 # left as it was
        if not valid(kind, path):
            problems.append(f"torn output {path.name}")
    return problems, unexpected, args


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a run is a hang")
    parser.add_argument("--keep", help="folder for failing cases (default: a temporary one)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts = source_texts()
    keep = Path(args.keep or tempfile.mkdtemp(prefix="scacco-fuzz-failures-"))
    keep.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + args.minutes * 60
    runs = failures = odd = 0
    counts = {"traceback": 0, "hang": 0, "file": 0, "status": 0}
    with tempfile.TemporaryDirectory(prefix="scacco-fuzz-") as folder:
        work = Path(folder)
        while time.monotonic() < deadline:
            problems, unexpected, command = one_case(rng, work, texts, args.timeout)
            runs += 1
            odd += len(unexpected)
            for line in unexpected[:1]:
                print(line[:300], file=sys.stderr)
            if problems:
                failures += 1
                case = keep / f"case-{runs}"
                shutil.copytree(work, case, ignore_dangling_symlinks=True, dirs_exist_ok=True)
                (case / "command.txt").write_text(" ".join(command) + "\n\n" + "\n".join(problems))
                for problem in problems:
                    key = ("traceback" if "traceback" in problem else "hang" if "hang" in problem
                           else "status" if "status" in problem else "file")
                    counts[key] += 1
            left = max(0, deadline - time.monotonic())
            print(f"runs {runs}, failing {failures}, {left / 60:.1f} min left", file=sys.stderr,
                  flush=True)
    print(f"{runs} runs in {args.minutes:g} min (seed {args.seed}): tracebacks "
          f"{counts['traceback']}, hangs {counts['hang']}, bad exit statuses {counts['status']}, "
          f"lost or torn files {counts['file']}; games failed by an unexpected error (reported, "
          f"the batch went on) {odd}" + (f"; cases in {keep}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
