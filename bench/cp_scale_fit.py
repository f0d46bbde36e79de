"""Fit Scacco's centipawn scale to Stockfish 15.1's normalised centipawns.

    python bench/cp_scale_fit.py [--positions 5000] [--sf-depth 12] [--nodes 150000]
                                 [--cache bench/quality/cp-scale.jsonl] [--fit-only]

Positions are sampled from real games of every phase: the shared PGN files
(../shared/data/pgn/, standard games), the puzzle collection's source games
(bench/collection/games.pgn) and match games (bench/quality/elo600-nnue.pgn), every fourth
ply from the tenth, at most 15 a game.  Each position is searched by Stockfish (Debian's
/usr/games/stockfish, `score cp` as it prints it: normalised so that 100 is a 50% chance to
win) and by Scacco, once with the network and once with the classical evaluation, at the
default analysis budget (raw search units).  The evaluations are cached one JSON line per
position (the run can be stopped and started again: it goes on where it stopped).

The fit: for each evaluation, the factor k of sf_cp ~ k * scacco_raw by least squares through
the origin on the positions with |sf_cp| <= 600 and neither side mating, also with an
intercept, and the correlation.  One position in five (by a hash of its FEN) is held out:
the factor is fitted on the others, and the slope of Stockfish's centipawns on Scacco's scaled
ones is printed on the held-out positions (1.0 is the aim; 0.9..1.1 is the target).  The
residual by phase (pieces other than kings and pawns: opening/middlegame >= 10, late
middlegame 5-9, endgame <= 4) shows whether one factor fits every phase.

Progress on stderr.  Stockfish is used only here, never at run time.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.shared import shared_dir  # noqa: E402

STOCKFISH = "/usr/games/stockfish"
LIMIT_CP = 600
PER_GAME = 15


def sources():
    pgn = shared_dir() / "data" / "pgn"
    return ([p for p in sorted(pgn.glob("*.pgn")) if "fischerrandom" not in p.name]
            + [ROOT / "bench" / "quality" / "elo600-nnue.pgn",
               ROOT / "bench" / "collection" / "games.pgn"])


def phase(board: chess.Board) -> str:
    pieces = chess.popcount(board.occupied) - chess.popcount(board.pawns) - 2
    return "middlegame" if pieces >= 10 else "late middlegame" if pieces >= 5 else "endgame"


def sample(limit: int):
    """(fen, source, phase) of up to limit positions, spread over the sources in turn."""
    streams = []
    for path in sources():
        streams.append((path, open(path, encoding="utf-8-sig", errors="replace")))
    seen = set()
    count = 0
    while streams and count < limit:
        for entry in list(streams):
            path, handle = entry
            game = chess.pgn.read_game(handle)
            if game is None:
                handle.close()
                streams.remove(entry)
                continue
            if game.errors or game.headers.get("Variant", "Standard") not in ("Standard", "?"):
                continue
            board = game.board()
            taken = 0
            for ply, move in enumerate(game.mainline_moves()):
                board.push(move)
                if ply >= 10 and ply % 4 == 2 and not board.is_game_over() and taken < PER_GAME:
                    key = board.epd()
                    if key not in seen:
                        seen.add(key)
                        taken += 1
                        count += 1
                        yield board.fen(), path.name, phase(board)
                        if count >= limit:
                            return


def held_out(fen: str) -> bool:
    return hashlib.sha256(fen.encode()).digest()[0] % 5 == 0


def label(fens, cache: Path, sf_depth: int, nodes: int) -> None:
    from scacco.engine.board import Board
    from scacco.engine.search import PACKAGED, Searcher

    done = set()
    if cache.exists():
        with open(cache, encoding="utf-8") as handle:
            for line in handle:
                try:
                    done.add(json.loads(line)["fen"])
                except (ValueError, KeyError):
                    break                            # a torn last line: searched again
    todo = [entry for entry in fens if entry[0] not in done]
    print(f"{len(done)} positions cached, {len(todo)} to search", file=sys.stderr)
    if not todo:
        return
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    engine.configure({"Threads": 1, "Hash": 16})
    network = Searcher(16, network=PACKAGED)
    classical = Searcher(16, network=None)
    start = time.monotonic()
    with open(cache, "a", encoding="utf-8") as out:
        for index, (fen, source, stage) in enumerate(todo, 1):
            engine.configure({"Clear Hash": None})
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=sf_depth))
            score = info["score"].relative
            record = {"fen": fen, "source": source, "phase": stage,
                      "sf_cp": score.score(), "sf_mate": score.mate()}
            for name, searcher in (("net", network), ("classical", classical)):
                searcher.clear()
                result = searcher.search(Board(fen), nodes=nodes)
                record[f"{name}_raw"] = result.score_cp if result.score_mate is None else None
                record[f"{name}_mate"] = result.score_mate
            out.write(json.dumps(record) + "\n")
            out.flush()
            if index % 25 == 0 or index == len(todo):
                rate = index / (time.monotonic() - start)
                print(f"{index}/{len(todo)} positions, {rate:.2f}/s, "
                      f"{(len(todo) - index) / rate / 60:.0f} min left", file=sys.stderr,
                      flush=True)
    engine.quit()


def fit(pairs):
    """(k through the origin, slope and intercept, correlation) of y ~ x."""
    n = len(pairs)
    sx = sum(x for x, _ in pairs)
    sy = sum(y for _, y in pairs)
    sxx = sum(x * x for x, _ in pairs)
    syy = sum(y * y for _, y in pairs)
    sxy = sum(x * y for x, y in pairs)
    k = sxy / sxx
    slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    intercept = (sy - slope * sx) / n
    r = (n * sxy - sx * sy) / math.sqrt((n * sxx - sx * sx) * (n * syy - sy * sy))
    return k, slope, intercept, r


def report(records, name: str) -> None:
    usable = [r for r in records if r["sf_mate"] is None and r[f"{name}_raw"] is not None
              and abs(r["sf_cp"]) <= LIMIT_CP]
    train = [(r[f"{name}_raw"], r["sf_cp"]) for r in usable if not held_out(r["fen"])]
    test = [r for r in usable if held_out(r["fen"])]
    if len(train) < 10 or len(test) < 10:
        print(f"{name}: too few positions ({len(train)} to fit, {len(test)} held out)")
        return
    k, slope, intercept, r = fit(train)
    print(f"{name}: {len(train)} positions fitted, {len(test)} held out")
    print(f"  factor k = {k:.4f} (Stockfish cp per raw unit; 100 cp = {100 / k:.1f} raw)")
    print(f"  with an intercept: slope {slope:.4f}, intercept {intercept:+.1f} cp; "
          f"correlation {r:.3f}")
    held = [(k * x[f"{name}_raw"], x["sf_cp"]) for x in test]
    hk, hslope, hintercept, hr = fit(held)
    print(f"  held out: Stockfish on Scacco scaled, slope {hk:.3f} through the origin, "
          f"{hslope:.3f} with intercept {hintercept:+.1f}, correlation {hr:.3f}")
    for stage in ("middlegame", "late middlegame", "endgame"):
        part = [(k * x[f"{name}_raw"], x["sf_cp"]) for x in usable if x["phase"] == stage]
        if len(part) < 10:
            continue
        pk, *_ = fit(part)
        residual = math.sqrt(sum((y - x) ** 2 for x, y in part) / len(part))
        mean = sum(y - x for x, y in part) / len(part)
        print(f"  {stage:>15}: {len(part):5d} positions, slope {pk:.3f}, mean residual "
              f"{mean:+.1f} cp, rms {residual:.1f} cp")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--sf-depth", type=int, default=12)
    parser.add_argument("--nodes", type=int, default=150_000,
                        help="Scacco's nodes per position (default: the analysis budget)")
    parser.add_argument("--cache", default=str(ROOT / "bench" / "quality" / "cp-scale.jsonl"))
    parser.add_argument("--fit-only", action="store_true", help="fit the cached positions only")
    args = parser.parse_args()
    cache = Path(args.cache)
    if not args.fit_only:
        label(list(sample(args.positions)), cache, args.sf_depth, args.nodes)
    records = []
    with open(cache, encoding="utf-8") as handle:
        for line in handle:
            try:
                records.append(json.loads(line))
            except ValueError:
                break
    print(f"{len(records)} positions (Stockfish 15.1 depth {args.sf_depth}, Scacco "
          f"{args.nodes} nodes)")
    for name in ("net", "classical"):
        report(records, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
