"""Fit Scacco's centipawn scale to Stockfish 15.1's normalised centipawns.

    python bench/cp_scale_fit.py [--positions 5000] [--late 1500] [--sf-depth 12]
                                 [--nodes 150000] [--cache bench/quality/cp-scale.jsonl]
                                 [--fit-only]
    python bench/cp_scale_fit.py --rescore NEW.jsonl [--jobs 2]

Positions are sampled from real games of every phase: the shared PGN files
(../shared/data/pgn/, standard games), the puzzle collection's source games
(bench/collection/games.pgn) and match games (bench/quality/elo600-nnue.pgn), every fourth
ply from the tenth, at most 15 a game.  Each position is searched by Stockfish (Debian's
/usr/games/stockfish, `score cp` as it prints it: normalised so that 100 is a 50% chance to
win) and by Scacco, once with the network and once with the classical evaluation, at the
default analysis budget (raw search units).  The evaluations are cached one JSON line per
position (the run can be stopped and started again: it goes on where it stopped).

With --late N, N more positions of at most LATE_MATERIAL material (every second ply, the
self-play games of bench/wdl_fit.py among the sources when they are there): endgames are
rare at every fourth ply of real games, and the scale must hold there too.

--rescore searches the cached positions again with this build (after a change of search or
network) into a new cache, Stockfish's labels copied, and fits that one: the check of a new
build's scale without Stockfish's half of the work.

Two fits for each evaluation.  The straight line: Stockfish's cp on Scacco's raw score by
least squares on the positions with |sf_cp| <= 600 and neither side mating (one factor through
the origin, with an intercept too, and the correlation; and a factor linear in the material
between two ends found on a grid).  The curve (what engine/score.py ships): engine/score.py's
Scale with its knee and exponent, the one whose winning chances (lichess's curve) come closest in
squares to those of Stockfish's score on every position where Scacco sees no mate (a mate
Stockfish sees counts as certain), the knee, the exponent and the two ends found on a grid.  Fitting the
line to centipawns selected by Stockfish's size weighs the noise of our scores as a smaller
scale: it read small endgame advantages half as large as Stockfish does, which the analysis'
winning chances turned into missed and invented mistakes.  The check on positions the fit did
not use is a five-fold cross-validation (the folds by a hash of the FEN): each fifth is scaled
by the fit made on the other four; printed are the mean squared gap in winning chances and the
slope of Stockfish's centipawns on the scaled ones (1.0 is the aim; 0.9..1.1 is the target),
overall and by material bucket (material as engine/score.py counts it), with the rms residual.

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
from scacco.engine.score import (CLASSICAL_SCALE, NETWORK_SCALE, WIN_MULTIPLIER,  # noqa: E402
                                 material)

STOCKFISH = "/usr/games/stockfish"
LIMIT_CP = 600
PER_GAME = 15
LATE_MATERIAL = 40
FOLDS = 5
FULL, BARE = 78, 20      # the curve's ends in material (the starting position's and the line's)


def sources():
    pgn = shared_dir() / "data" / "pgn"
    wdl_games = ROOT / "bench" / "quality" / "wdl-games.pgn"
    return ([p for p in sorted(pgn.glob("*.pgn")) if "fischerrandom" not in p.name]
            + [ROOT / "bench" / "quality" / "elo600-nnue.pgn",
               ROOT / "bench" / "collection" / "games.pgn"]
            + ([wdl_games] if wdl_games.exists() else []))


def phase(board: chess.Board) -> str:
    m = material(board)
    return "middlegame" if m >= 60 else "late middlegame" if m >= 30 else "endgame"


def sample(limit: int, late: bool = False):
    """(fen, source, phase) of up to limit positions, spread over the sources in turn: every
    fourth ply from the tenth, at most PER_GAME a game; with late, only positions of at most
    LATE_MATERIAL material, every second ply, at most PER_GAME a game."""
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
                if late:
                    wanted = ply % 2 == 0 and material(board) <= LATE_MATERIAL
                else:
                    wanted = ply >= 10 and ply % 4 == 2
                if wanted and not board.is_game_over() and taken < PER_GAME:
                    key = board.epd()
                    if key not in seen:
                        seen.add(key)
                        taken += 1
                        count += 1
                        yield board.fen(), path.name, phase(board)
                        if count >= limit:
                            return


def fold(fen: str) -> int:
    """The position's fold of the cross-validation, by a hash of its FEN."""
    return hashlib.sha256(fen.encode()).digest()[0] % FOLDS


def cached_fens(cache: Path) -> set:
    """The FENs a cache already holds (none if it does not exist yet)."""
    done = set()
    if cache.exists():
        with open(cache, encoding="utf-8") as handle:
            for line in handle:
                try:
                    done.add(json.loads(line)["fen"])
                except (ValueError, KeyError):
                    break                            # a torn last line: searched again
    return done


def read_cache(cache: Path) -> list:
    """The cache's records, up to a torn last line."""
    records = []
    with open(cache, encoding="utf-8") as handle:
        for line in handle:
            try:
                records.append(json.loads(line))
            except ValueError:
                break
    return records


def label(fens, cache: Path, sf_depth: int, nodes: int) -> None:
    done = cached_fens(cache)
    todo = [entry for entry in fens if entry[0] not in done]
    print(f"{len(done)} positions cached, {len(todo)} to search", file=sys.stderr)
    if not todo:
        return
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    engine.configure({"Threads": 1, "Hash": 16})
    _start_scacco(nodes)
    start = time.monotonic()
    with open(cache, "a", encoding="utf-8") as out:
        for index, (fen, source, stage) in enumerate(todo, 1):
            engine.configure({"Clear Hash": None})
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=sf_depth))
            score = info["score"].relative
            record = {"fen": fen, "source": source, "phase": stage,
                      "sf_cp": score.score(), "sf_mate": score.mate()}
            record.update(_scacco_side(fen))
            out.write(json.dumps(record) + "\n")
            out.flush()
            _progress(index, len(todo), start)
    engine.quit()


_SCACCO = {}


def _start_scacco(nodes: int) -> None:
    """This process's two searchers (network and classical) and their node budget."""
    from scacco.engine.search import PACKAGED, Searcher
    _SCACCO.update(net=Searcher(16, network=PACKAGED), classical=Searcher(16, network=None),
                   nodes=nodes)


def _scacco_side(fen: str) -> dict:
    """Scacco's raw score (or mate) of fen with each evaluation, each on a cleared table."""
    from scacco.engine.board import Board
    from scacco.engine.search import score_to_cp_mate
    record = {}
    for name in ("net", "classical"):
        searcher = _SCACCO[name]
        searcher.clear()
        raw, mate = score_to_cp_mate(searcher.search(Board(fen), nodes=_SCACCO["nodes"]).score)
        record[f"{name}_raw"] = raw if mate is None else None
        record[f"{name}_mate"] = mate
    return record


def _progress(index: int, total: int, start: float) -> None:
    if index % 25 == 0 or index == total:
        rate = index / (time.monotonic() - start)
        print(f"{index}/{total} positions, {rate:.2f}/s, "
              f"{(total - index) / rate / 60:.0f} min left", file=sys.stderr, flush=True)


def _rescored(record: dict) -> dict:
    return {**record, **_scacco_side(record["fen"])}


def rescore(cache: Path, out_path: Path, nodes: int, jobs: int) -> None:
    """Copy cache's positions and Stockfish's labels to out_path with Scacco's side searched
    again by this build (after a change of search or network); resumable like label()."""
    import multiprocessing
    done = cached_fens(out_path)
    todo = [record for record in read_cache(cache) if record["fen"] not in done]
    print(f"{len(done)} positions rescored, {len(todo)} to search", file=sys.stderr)
    start = time.monotonic()
    with multiprocessing.Pool(jobs, _start_scacco, (nodes,)) as pool, \
            open(out_path, "a", encoding="utf-8") as out:
        for index, record in enumerate(pool.imap(_rescored, todo, chunksize=4), 1):
            out.write(json.dumps(record) + "\n")
            out.flush()
            _progress(index, len(todo), start)


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


def fen_material(fen: str) -> int:
    return material(chess.Board(fen))


def fit_scale(rows):
    """The Scale (linear in material between bare and full) of least squares of Stockfish's
    cp on the scaled raw score: for each pair of ends on a grid, the two factors are a
    linear least-squares problem; the pair with the smallest squared error wins.  The bare
    end is at least 20: below it positions are too few in real games to fit a factor of
    their own."""
    from scacco.engine.score import Scale
    best = None
    for bare in range(20, 61, 2):
        for full in range(bare + 6, 79, 2):
            s11 = s12 = s22 = t1 = t2 = 0.0
            for raw, sf, m in rows:
                share = (min(max(m, bare), full) - bare) / (full - bare)
                u, w = raw * (1 - share), raw * share
                s11 += u * u; s12 += u * w; s22 += w * w; t1 += u * sf; t2 += w * sf
            det = s11 * s22 - s12 * s12
            if det <= 0:
                continue
            end, mid = (t1 * s22 - t2 * s12) / det, (s11 * t2 - s12 * t1) / det
            scale = Scale(middlegame=mid, endgame=end, full=full, bare=bare)
            error = sum((sf - raw * scale.factor(m)) ** 2 for raw, sf, m in rows)
            if best is None or error < best[0]:
                best = (error, scale)
    return best[1]


def winning_chances_array(cp):
    """lichess's winning chances (engine/score.py's curve) of an array of centipawns."""
    import numpy as np
    return 2.0 / (1.0 + np.exp(WIN_MULTIPLIER * np.asarray(cp, dtype=float))) - 1.0


def curve_cp(scale, raw, material):
    """Scale.to_cp over arrays."""
    import numpy as np
    raw = np.asarray(raw, dtype=float)
    share = (np.clip(material, scale.bare, scale.full) - scale.bare) / (scale.full - scale.bare)
    factor = scale.endgame + (scale.middlegame - scale.endgame) * share
    size = np.abs(raw)
    if math.isfinite(scale.knee):
        size = np.where(size > scale.knee,
                        scale.knee * (np.maximum(size, scale.knee) / scale.knee) ** scale.exponent,
                        size)
    return np.sign(raw) * factor * size


def fit_curve(raw, target, material):
    """The Scale (ends at FULL and BARE material, a knee, an exponent) whose winning chances
    come closest in squares to `target` (Stockfish's winning chances): a coarse grid, then a
    finer one around its best point (the knee kept)."""
    import numpy as np
    from scacco.engine.score import Scale
    raw, target, material = (np.asarray(a, dtype=float) for a in (raw, target, material))

    def loss(scale):
        return float(np.mean((winning_chances_array(curve_cp(scale, raw, material)) - target) ** 2))

    best = None
    knees = (200, 300, 400, 500, 600)
    grid = (np.arange(0.2, 1.001, 0.1), np.arange(0.5, 2.0, 0.05), np.arange(0.5, 2.0, 0.05))
    for fine in (False, True):
        exponents, ends, mids = grid
        for knee in ((best[1].knee,) if fine else knees):
            for exponent in exponents:
                for end in ends:
                    for mid in mids:
                        scale = Scale(middlegame=round(float(mid), 3), endgame=round(float(end), 3),
                                      full=FULL, bare=BARE, knee=knee,
                                      exponent=round(float(exponent), 3))
                        value = loss(scale)
                        if best is None or value < best[0]:
                            best = (value, scale)
        scale = best[1]
        grid = (np.arange(max(0.05, scale.exponent - 0.08), scale.exponent + 0.081, 0.02),
                np.arange(scale.endgame - 0.04, scale.endgame + 0.041, 0.01),
                np.arange(scale.middlegame - 0.04, scale.middlegame + 0.041, 0.01))
    return best[1]


def report_curve(records, name: str) -> None:
    """The curve's fit, its out-of-fold check and the shipped scale's figures."""
    import numpy as np
    rows = []
    for r in records:
        if r[f"{name}_raw"] is None or r[f"{name}_mate"] is not None:
            continue
        if r["sf_mate"] is not None:
            target = 1.0 if r["sf_mate"] > 0 else -1.0
        else:
            target = float(winning_chances_array(r["sf_cp"]))
        rows.append((r[f"{name}_raw"], target, r["sf_cp"] if r["sf_mate"] is None else None,
                     fen_material(r["fen"]), fold(r["fen"])))
    raw = np.array([row[0] for row in rows], dtype=float)
    target = np.array([row[1] for row in rows])
    sf_cp = np.array([np.nan if row[2] is None else row[2] for row in rows], dtype=float)
    material_ = np.array([row[3] for row in rows])
    folds = np.array([row[4] for row in rows])
    scale = fit_curve(raw, target, material_)
    print(f"  the curve (winning chances, {len(rows)} positions): Scale(middlegame="
          f"{scale.middlegame}, endgame={scale.endgame}, full={scale.full}, bare={scale.bare}, "
          f"knee={scale.knee}, exponent={scale.exponent})")
    scaled = np.zeros(len(rows))
    for held in range(FOLDS):
        fold_scale = fit_curve(raw[folds != held], target[folds != held], material_[folds != held])
        scaled[folds == held] = curve_cp(fold_scale, raw[folds == held], material_[folds == held])
    shipped = (NETWORK_SCALE if name == "net" else CLASSICAL_SCALE)
    usable = ~np.isnan(sf_cp) & (np.abs(np.nan_to_num(sf_cp)) <= LIMIT_CP)

    def slope(x, part):
        x, y = x[part], sf_cp[part]
        return float((x * y).sum() / (x * x).sum())

    def gap(x, part):
        return float(np.mean((winning_chances_array(x[part]) - target[part]) ** 2))

    shipped_cp = curve_cp(shipped, raw, material_)
    print(f"  out of fold, the curve: winning-chances gap {gap(scaled, np.ones(len(rows), bool)):.5f}"
          f", slope of Stockfish's cp on ours {slope(scaled, usable):.3f}")
    print(f"  {'material':>8} {'n':>5}   curve out of fold: {'gap':>7} {'slope':>6}   shipped: "
          f"{'gap':>7} {'slope':>6}")
    for label_, lo, hi in [(f"{lo}-{hi}", lo, hi) for lo, hi in BUCKETS] + PHASES:
        part = (material_ >= lo) & (material_ <= hi)
        if part.sum() < 10:
            continue
        print(f"  {label_:>15} {int(part.sum()):5d}   {gap(scaled, part):7.5f} "
              f"{slope(scaled, part & usable):6.3f}   {gap(shipped_cp, part):7.5f} "
              f"{slope(shipped_cp, part & usable):6.3f}")


BUCKETS = [(0, 19), (20, 29), (30, 39), (40, 49), (50, 59), (60, 69), (70, 78)]
PHASES = [("endgame", 0, 29), ("late middlegame", 30, 59), ("middlegame", 60, 78)]


def report(records, name: str) -> None:
    usable = [(r[f"{name}_raw"], r["sf_cp"], fen_material(r["fen"]), fold(r["fen"]))
              for r in records if r["sf_mate"] is None and r[f"{name}_raw"] is not None
              and abs(r["sf_cp"]) <= LIMIT_CP]
    if len(usable) < 10 * FOLDS:
        print(f"{name}: too few positions ({len(usable)})")
        return
    rows = [(raw, sf, m) for raw, sf, m, _ in usable]
    k, slope, intercept, r = fit([(raw, sf) for raw, sf, _ in rows])
    scale = fit_scale(rows)
    print(f"{name}: {len(rows)} positions")
    print(f"  one factor: k = {k:.4f} (with an intercept: slope {slope:.4f}, intercept "
          f"{intercept:+.1f} cp; correlation {r:.3f})")
    print(f"  by material: Scale(middlegame={scale.middlegame:.4f}, endgame={scale.endgame:.4f}, "
          f"full={scale.full}, bare={scale.bare})")
    # out of fold: every position scaled by the fit made without its fold
    one, by = [], []
    for held in range(FOLDS):
        train = [(raw, sf, m) for raw, sf, m, f in usable if f != held]
        test = [(raw, sf, m) for raw, sf, m, f in usable if f == held]
        fold_k = fit([(raw, sf) for raw, sf, _ in train])[0]
        fold_scale = fit_scale(train)
        one += [(fold_k * raw, sf, m) for raw, sf, m in test]
        by += [(fold_scale.factor(m) * raw, sf, m) for raw, sf, m in test]
    for label, pairs in (("one factor", one), ("by material", by)):
        hk, hslope, hintercept, hr = fit([(x, y) for x, y, _ in pairs])
        print(f"  out of fold, {label}: Stockfish on Scacco scaled, slope {hk:.3f} through the "
              f"origin, {hslope:.3f} with intercept {hintercept:+.1f}, correlation {hr:.3f}")
    print(f"  {'material':>8} {'n':>5} {'raw k':>7}   out of fold: {'one factor':>10} "
          f"{'by material':>11}   rms cp (by material)")
    for lo, hi in BUCKETS:
        part = [(raw, sf) for raw, sf, m in rows if lo <= m <= hi]
        if len(part) < 10:
            continue
        raw_k = fit(part)[0]
        slope_one = fit([(x, y) for x, y, m in one if lo <= m <= hi])[0]
        slope_by = fit([(x, y) for x, y, m in by if lo <= m <= hi])[0]
        rms = math.sqrt(sum((y - x) ** 2 for x, y, m in by if lo <= m <= hi) / len(part))
        print(f"  {lo:>3}-{hi:<4} {len(part):5d} {raw_k:7.3f}   out of fold: {slope_one:10.3f} "
              f"{slope_by:11.3f}   {rms:.1f}")
    for phase_name, lo, hi in PHASES:
        part = [(x, y) for x, y, m in by if lo <= m <= hi]
        print(f"  {phase_name} (material {lo}-{hi}): {len(part)} positions, out-of-fold slope "
              f"{fit(part)[0]:.3f} by material, {fit([(x, y) for x, y, m in one if lo <= m <= hi])[0]:.3f}"
              " with one factor")
    shipped = (NETWORK_SCALE if name == "net" else CLASSICAL_SCALE)
    print(f"  engine/score.py's scale ({shipped}): slope {fit([(shipped.to_cp(raw, m), sf) for raw, sf, m in rows])[0]:.3f}"
          " on all positions")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--sf-depth", type=int, default=12)
    parser.add_argument("--nodes", type=int, default=150_000,
                        help="Scacco's nodes per position (default: the analysis budget)")
    parser.add_argument("--cache", default=str(ROOT / "bench" / "quality" / "cp-scale.jsonl"))
    parser.add_argument("--late", type=int, default=0, metavar="N",
                        help=f"also N positions of at most {LATE_MATERIAL} material")
    parser.add_argument("--fit-only", action="store_true", help="fit the cached positions only")
    parser.add_argument("--rescore", metavar="NEW.jsonl",
                        help="search the cache's positions again with this build into NEW.jsonl "
                             "(Stockfish's labels kept), then fit NEW.jsonl")
    parser.add_argument("--jobs", type=int, default=2, help="processes for --rescore")
    args = parser.parse_args()
    cache = Path(args.cache)
    if args.rescore:
        rescore(cache, Path(args.rescore), args.nodes, args.jobs)
        cache = Path(args.rescore)
    elif not args.fit_only:
        label(list(sample(args.positions)), cache, args.sf_depth, args.nodes)
        if args.late:
            label(list(sample(args.late, late=True)), cache, args.sf_depth, args.nodes)
    records = read_cache(cache)
    print(f"{len(records)} positions (Stockfish 15.1 depth {args.sf_depth}, Scacco "
          f"{args.nodes} nodes)")
    for name in ("net", "classical"):
        report(records, name)
        report_curve(records, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
