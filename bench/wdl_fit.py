"""Fit the win-draw-loss model of UCI_ShowWDL to Scacco's own games, and print its calibration.

    python bench/wdl_fit.py --play 240 [--tc 10+0.1] [--chess960 0.25] [--concurrency 2]
    python bench/wdl_fit.py                      # fit the recorded games and print the table
    python bench/wdl_fit.py --split-half         # ... and what the record can check at all
    python bench/wdl_fit.py --folds 5            # ... and whether the bent score predicts better

--play N plays self-play games until the record holds N: Scacco against itself at the clock
(10+0.1 by default), each opening of ../shared/data/chessathome_openings.fen once with each
colour, and a share of the games (--chess960) from random Chess960 start positions.  Each game
is one JSON line of --games (bench/quality/wdl-games.jsonl): its start, whether it is Chess960,
the result, and for every move the position's material and the mover's score as the engine
reported it (`score cp`, normalised) and in the network's raw units (the reported score over
the scale of engine/score.py at that material; the engine is this interpreter's scacco, so
the two agree).  Stopped and started again, it goes on with the next game; progress on stderr.
The PGN of the games goes beside the record (wdl-games.pgn), for other benches to sample.

    python bench/wdl_fit.py --import MATCH.pgn TEE_LOGDIR

adds the games of a match of Scacco (../shared/tools/match.py --pgn, Scacco run through
bench/uci_tee.py TEE_LOGDIR) to the record, with the scores the engine reported in the game:
both sides' in a match between Scacco builds, Scacco's side's against another engine of about
its strength (an opponent much stronger or weaker skews the results the model learns); a game
already recorded (same PGN file name and round) is not added again, a side whose scores the
logs lack for more than a tenth of its moves is recorded without scores, a game with no such
side left out.  The match's
adjudication is its own (8 plies both at 1000 or more).

The fit: Stockfish's shape on a bent score (engine/score.py's WdlModel).  Every position not
scored as a mate is one observation of the game's result from the mover's side; a(m) and b(m)
are cubic polynomials of m/58 (m the material, clamped to 17..78) and the score's power k(m) a
linear one, all chosen by maximum likelihood.  The
calibration: positions in buckets of raw score (100 wide) and of material, the model's mean
predicted win, draw and loss against the observed shares, for buckets of at least 200
positions (the target: within 5 points each; the largest gap is printed for the score buckets
of all material together, which the target names, and for those within a material phase,
a stricter check of the material terms), with the number of games the bucket's positions
come from and the noise of the observed shares (the half-width of their 95% interval with each
game one cluster: the positions of one game share its result, so a bucket of few games is
noisier than its count of positions says).  Games are resign-adjudicated when both sides
report 1000 or more for 10 plies in a row (the result is then the one the score says); no
draw is adjudicated, a game ends drawn only by the rules or at 400 plies.

--split-half splits the games in two (by the parity of their line) and, each half in turn the
test half, prints the largest bucket gap on it of a model fitted on the other half, of the
shipped model, and of the other half's own observed shares: two halves' noise in the last, so
a perfect model would miss one half by about 1/sqrt(2) of it, and the whole record (twice a
half's games) by about half of it: the floor below which no calibration target can be checked
on this record.  --folds K deals the games at random into K folds and prints, each fold held
out in turn, the log loss on it of Stockfish's shape (power 1), of one power for all material
and of the power by material, each fitted on the other folds: which shape predicts games it
has not seen.  The fit needs numpy and scipy (both in the test extra; the other benches do
without scipy).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Tuple

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.shared import shared_dir  # noqa: E402
from bench.engines import close_all  # noqa: E402
from scacco.engine.score import (NETWORK_SCALE, POWER_HIGH, POWER_LOW, WDL_MODEL,  # noqa: E402
                                 WdlModel, material)

RESIGN_CP = 1000
RESIGN_PLIES = 10
MAX_PLIES = 400
LOW, HIGH, NORM = 17, 78, 58
DEGREE = 3


def starts(count: int, share960: float, seed: int = 20261204):
    """The games' starts, in order: (fen, chess960) pairs, each start twice (both colours
    are one engine, so the pair is one opening played twice; it keeps the set balanced)."""
    fens = [line.split(";")[0].strip() for line in
            (shared_dir() / "data" / "chessathome_openings.fen").read_text().splitlines()
            if line.strip()]
    rng = random.Random(seed)
    rng.shuffle(fens)
    out, standard = [], iter(fens)
    for i in range(0, count, 2):
        if rng.random() < share960:
            fen, c960 = chess.Board.from_chess960_pos(rng.randrange(960)).fen(), True
        else:
            fen, c960 = next(standard), False
        out += [(fen, c960), (fen, c960)]
    return out[:count]


def move_entry(m: int, cp):
    """One move of a record: [material, the mover's normalised cp, the same in raw units], the
    scores None when the engine reported a mate or nothing."""
    if cp is None:
        return [m, None, None]
    return [m, cp, round(NETWORK_SCALE.to_raw(cp, m), 1)]


def play_one(index: int, fen: str, c960: bool, tc: str):
    base, _, inc = tc.partition("+")
    base, inc = float(base), float(inc or 0)
    command = [sys.executable, "-m", "scacco"]
    engines = [chess.engine.SimpleEngine.popen_uci(command, timeout=30) for _ in range(2)]
    board = chess.Board(fen, chess960=c960)
    game = chess.pgn.Game()
    game.setup(board)
    game.headers.update(Event="wdl self-play", Round=str(index + 1), White="scacco",
                        Black="scacco")
    if c960:
        game.headers["Variant"] = "Chess960"
    clock, moves, streak, result, node = [base, base], [], 0, None, game
    try:
        while result is None:
            outcome = board.outcome(claim_draw=True)
            if outcome:
                result = outcome.result()
                break
            if board.ply() >= MAX_PLIES:
                result = "1/2-1/2"
                break
            side = 0 if board.turn == chess.WHITE else 1
            limit = chess.engine.Limit(white_clock=clock[0], black_clock=clock[1],
                                       white_inc=inc, black_inc=inc)
            start = time.perf_counter()
            played = engines[side].play(board, limit, info=chess.engine.INFO_SCORE)
            clock[side] += inc - (time.perf_counter() - start)
            if clock[side] < -0.1:
                raise RuntimeError(f"game {index + 1}: lost on time at ply {board.ply()}")
            score = played.info.get("score")
            m = material(board)
            if score is not None and score.relative.mate() is None:
                cp = score.relative.score()
                moves.append(move_entry(m, cp))
                white_cp = cp if board.turn == chess.WHITE else -cp
                if abs(white_cp) >= RESIGN_CP and (streak == 0 or (white_cp > 0) == (streak > 0)):
                    streak += 1 if white_cp > 0 else -1
                else:
                    streak = 0
            else:
                moves.append(move_entry(m, None))
                mate = score.white().mate() if score is not None else None
                streak = 0 if mate is None else (streak + 1 if mate > 0 else streak - 1)
            node = node.add_variation(played.move)
            board.push(played.move)
            if abs(streak) >= RESIGN_PLIES:
                result = "1-0" if streak > 0 else "0-1"
    finally:
        close_all(engines)
    game.headers["Result"] = result
    record = {"start": fen, "chess960": c960, "result": result, "moves": moves}
    return record, str(game)


def play(path: Path, count: int, tc: str, share960: float, concurrency: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    done = sum(1 for line in path.open() if line.strip()) if path.exists() else 0
    todo = list(enumerate(starts(count, share960)))[done:]
    if not todo:
        print(f"{path}: {done} games already", file=sys.stderr)
        return
    pgn_path = path.with_suffix(".pgn")
    lock, finished = threading.Lock(), {}
    next_to_write = [done]
    t0 = time.time()
    # games finish out of order; they are written in order so that the record's length says
    # which ones are done
    with ThreadPoolExecutor(concurrency) as pool, path.open("a") as out, \
            pgn_path.open("a") as pgn_out:
        futures = [pool.submit(play_one, i, fen, c960, tc) for i, (fen, c960) in todo]
        for future in futures:
            record, pgn = future.result()
            with lock:
                out.write(json.dumps(record) + "\n")
                out.flush()
                pgn_out.write(pgn + "\n\n")
                pgn_out.flush()
                next_to_write[0] += 1
                n = next_to_write[0]
                rate = (time.time() - t0) / (n - done)
                print(f"game {n}/{count} {record['result']} ({len(record['moves'])} plies,"
                      f" {'960' if record['chess960'] else 'std'}), ~{rate * (count - n) / 60:.0f}"
                      " min left", file=sys.stderr, flush=True)
    del finished


def position_key(arguments: str):
    """(start FEN, moves) of a UCI `position` command's arguments."""
    words = arguments.split()
    if words[:1] == ["startpos"]:
        fen, rest = chess.STARTING_FEN, words[1:]
    elif words[:1] == ["fen"]:
        fen, rest = " ".join(words[1:7]), words[7:]
        # python-chess sends a Chess960 start with Shredder castling rights (HAha) and an
        # en passant square whenever a pawn just moved two; the PGN's board writes X-FEN
        # (KQkq) and the square only when a capture is legal: one spelling for both
        try:
            fen = chess.Board(fen, chess960=True).fen()
        except ValueError:
            return None
    else:
        return None
    return fen, tuple(rest[1:] if rest[:1] == ["moves"] else ())


def tee_scores(log_folder: Path) -> dict:
    """{(start FEN, moves): "cp N" or "mate N"} of every scored move in bench/uci_tee.py's
    logs in log_folder (the score the engine to move reported, from its own side)."""
    scores = {}
    for log in sorted(log_folder.glob("*.jsonl")):
        for line in log.open():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            key = position_key(entry.get("position") or "")
            if key is not None and entry.get("score"):
                scores[key] = entry["score"]
    return scores


def game_scores(game, scores: dict) -> list:
    """The score of each move of game's main line in scores (tee_scores'), "cp N", "mate N"
    or None, from the mover's side."""
    start, played, out = game.board().fen(), [], []
    for move in game.mainline_moves():
        out.append(scores.get((start, tuple(played))))
        played.append(move.uci())
    return out


def import_match(path: Path, pgn_path: Path, log_folder: Path) -> None:
    """Append the games of pgn_path, scored from the tee logs of log_folder, to the record."""
    scores = tee_scores(log_folder)
    known = set()
    if path.exists():
        known = {json.loads(line).get("source") for line in path.open() if line.strip()}
    added = skipped = 0
    with pgn_path.open() as handle, path.open("a") as out:
        while (game := chess.pgn.read_game(handle)) is not None:
            source = f"{pgn_path.name}#{game.headers.get('Round', '?')}"
            result = game.headers.get("Result")
            if source in known or result not in ("1-0", "0-1", "1/2-1/2"):
                continue
            board = game.board()
            start, chess960 = board.fen(), game.headers.get("Variant", "") == "Chess960"
            # a side counts when the logs score at least nine tenths of its moves: both in a
            # match between Scacco builds, Scacco's alone against another engine (whose moves
            # are then recorded without a score)
            moves, lacking, count = [], [0, 0], [0, 0]
            for ply, (move, score) in enumerate(zip(game.mainline_moves(),
                                                    game_scores(game, scores))):
                kind, _, value = (score or "").partition(" ")
                moves.append(move_entry(material(board), int(value) if kind == "cp" else None))
                lacking[ply % 2] += score is None
                count[ply % 2] += 1
                board.push(move)
            scored = [count[s] > 0 and lacking[s] <= count[s] / 10 for s in (0, 1)]
            if not moves or not any(scored):
                skipped += 1
                continue
            for ply, entry in enumerate(moves):
                if not scored[ply % 2]:
                    moves[ply] = move_entry(entry[0], None)
            out.write(json.dumps({"start": start, "chess960": chess960, "result": result,
                                  "moves": moves, "source": source}) + "\n")
            added += 1
    print(f"{pgn_path}: {added} games added to {path}, {skipped} left out (scores missing)",
          file=sys.stderr)


def observations(path: Path, last: int | None = None):
    """(raw score, material, outcome, game) of every non-mate position; outcome from the
    mover's side: 1 win, 0 draw, -1 loss; game the record's line number."""
    out = []
    for number, line in enumerate(path.open()):
        record = json.loads(line)
        white = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}[record["result"]]
        board = chess.Board(record["start"], chess960=record["chess960"])
        white_to_move = board.turn == chess.WHITE
        for m, cp, raw in record["moves"]:
            if raw is not None:
                out.append((raw, m, white if white_to_move else -white, number))
            white_to_move = not white_to_move
    return out


def predict(model: WdlModel, raw: float, m: int):
    w, d, l = model.per_mille(raw, m)
    return w / 10, d / 10, l / 10


def arrays(obs):
    """numpy arrays of the observations: raw score, material clamped and over NORM, outcome."""
    import numpy as np
    v = np.array([o[0] for o in obs], dtype=float)
    x = np.clip(np.array([o[1] for o in obs], dtype=float), LOW, HIGH) / NORM
    y = np.array([o[2] for o in obs])
    return v, x, y


def log_loss(a, b, power, v, x, y) -> float:
    """Mean negative log-likelihood of outcomes y under the model of coefficients a, b and
    power (engine/score.py's WdlModel, computed over arrays; b kept at 1 or more)."""
    import numpy as np
    powers = np.stack([x ** i for i in range(max(len(a), len(power)))], axis=1)
    mid = powers[:, :len(a)] @ np.asarray(a)
    width = np.maximum(powers[:, :len(b)] @ np.asarray(b), 1.0)
    k = np.clip(powers[:, :len(power)] @ np.asarray(power, dtype=float), POWER_LOW, POWER_HIGH)
    g = np.sign(v) * 100.0 * (np.abs(v) / 100.0) ** k
    pw = 1 / (1 + np.exp(np.clip((mid - g) / width, -50, 50)))
    pl = 1 / (1 + np.exp(np.clip((mid + g) / width, -50, 50)))
    pd = np.maximum(1 - pw - pl, 1e-9)
    p = np.where(y == 1, pw, np.where(y == -1, pl, pd))
    return float(-np.mean(np.log(np.maximum(p, 1e-9))))


def model_loss(model: WdlModel, obs) -> float:
    return log_loss(model.a, model.b, model.power, *arrays(obs))


# The three shapes the fit knows, by the number of the power's coefficients: Stockfish's (power
# 1), one power for all material, and a power linear in the material (the shipped shape).
SHAPES = {0: "power 1", 1: "one power", 2: "power by material"}


def fit(obs, power_terms: int = 2, quiet: bool = False,
        simpler: WdlModel | None = None) -> WdlModel:
    """The model of maximum likelihood on obs: a and b cubic in the material, and the score's
    power a polynomial of power_terms coefficients (0: the power is 1, Stockfish's shape);
    simpler, when given, the fit on obs with one power term fewer."""
    import numpy as np
    from scipy.optimize import minimize
    v, x, y = arrays(obs)
    split = 2 * DEGREE + 2

    def power_of(params):
        return tuple(params[split:]) if power_terms else (1.0,)

    def loss(params):
        return log_loss(params[:DEGREE + 1], params[DEGREE + 1:split], power_of(params), v, x, y)

    if power_terms >= 2:
        # from the optimum of the shape with one power term fewer: started cold, the search
        # stops short of the best fit of a power that varies with the material
        simpler = simpler or fit(obs, power_terms - 1, quiet=True)
        start = np.array(simpler.a + simpler.b + simpler.power + (0.0,))
    else:
        start = np.array([200.0] + [0.0] * DEGREE + [80.0] + [0.0] * DEGREE
                         + ([1.0] if power_terms else []))
    best = minimize(loss, start, method="Nelder-Mead",
                    options={"maxiter": 40000, "maxfev": 40000, "xatol": 1e-3, "fatol": 1e-9})
    best = minimize(loss, best.x, method="BFGS")
    params = [round(float(c), 3) for c in best.x[:split]]
    power = tuple(round(float(c), 4) for c in power_of(best.x))
    if not quiet:
        print(f"log loss {best.fun:.5f} on {len(obs)} positions ({SHAPES[power_terms]})",
              file=sys.stderr)
    return WdlModel(a=tuple(params[:DEGREE + 1]), b=tuple(params[DEGREE + 1:split]),
                    low=LOW, high=HIGH, norm=NORM, power=power)


def cross_validate(obs, folds: int, seed: int = 20261207) -> None:
    """Which shape predicts games it was not fitted on: the games dealt at random into folds,
    each fold in turn held out, the held-out log loss of each shape (SHAPES) fitted on the
    other folds."""
    games = sorted({o[3] for o in obs})
    deal = random.Random(seed)
    fold_of = {game: deal.randrange(folds) for game in games}
    losses = {terms: [] for terms in SHAPES}
    for k in range(folds):
        train = [o for o in obs if fold_of[o[3]] != k]
        held = [o for o in obs if fold_of[o[3]] == k]
        model = None
        for terms in SHAPES:
            model = fit(train, terms, quiet=True, simpler=model)
            losses[terms].append(model_loss(model, held))
        print(f"fold {k + 1}/{folds}: held-out log loss "
              + ", ".join(f"{losses[t][-1]:.5f} ({SHAPES[t]})" for t in SHAPES), file=sys.stderr)
    best = max(SHAPES)
    for terms in SHAPES:
        better = sum(1 for mine, other in zip(losses[best], losses[terms]) if mine < other)
        note = "" if terms == best else f" ({SHAPES[best]} lower in {better} of {folds} folds)"
        print(f"{folds}-fold held-out log loss, {SHAPES[terms]}: "
              f"{sum(losses[terms]) / folds:.5f}{note}")


def cluster_margin(rows, values) -> float:
    """Half-width (points) of the 95% interval of the mean of `values` (one per row), with the
    positions of one game counted as one cluster: they share the game's result, so a bucket
    is worth its games more than its positions."""
    n = len(rows)
    centre = sum(values) / n
    per_game = {}
    for (*_, game), value in zip(rows, values):
        per_game[game] = per_game.get(game, 0.0) + value - centre
    variance = sum(d * d for d in per_game.values()) / (n * n)
    return 100 * 1.96 * math.sqrt(variance)


def clustered_margin(rows, outcome: int) -> float:
    """The 95% half-width (points) of the observed share of `outcome` in `rows`."""
    return cluster_margin(rows, [float(o == outcome) for _, _, o, _ in rows])


def miss_margin(model: WdlModel, rows, outcome: int) -> float:
    """The 95% half-width (points) of the mean miss, observed minus predicted, of the share of
    `outcome` in `rows`."""
    column = {1: 0, 0: 1, -1: 2}[outcome]
    return cluster_margin(rows, [(o == outcome) - predict(model, raw, m)[column] / 100
                                 for raw, m, o, _ in rows])


PHASES = [("all", 0, 99), ("m >= 50", 50, 99), ("m 25-49", 25, 49), ("m <= 24", 0, 24)]


def buckets(obs):
    """{(phase, score bucket): rows}: raw score in buckets 100 wide (key k: k*100 +- 50, the
    ends open), within each material phase of PHASES (a position is in "all" and its own)."""
    out = {}
    for raw, m, outcome, game in obs:
        key = max(-8, min(8, math.floor((raw + 50) / 100)))
        for name, lo, hi in PHASES:
            if lo <= m <= hi:
                out.setdefault((name, key), []).append((raw, m, outcome, game))
    return out


def predicted(model: WdlModel, rows):
    """The model's mean W, D, L (points) over rows."""
    return [sum(predict(model, raw, m)[i] for raw, m, *_ in rows) / len(rows) for i in range(3)]


def observed(rows):
    """The observed shares of wins, draws and losses (points) in rows."""
    return [100 * sum(1 for _, _, o, _ in rows if o == k) / len(rows) for k in (1, 0, -1)]


def largest_gap(first, second) -> float:
    return max(abs(a - b) for a, b in zip(first, second))


def calibration(model: WdlModel, obs, minimum: int = 200) -> Tuple[float, float]:
    """Print predicted against observed shares by score and material bucket; return the
    largest gap (points) over buckets of at least `minimum` positions, in the score buckets of
    all material together (what issue 29's target names) and in those within a material phase
    (a stricter check of the model's material terms).  Also counts the buckets
    of that size where a share's miss is outside its 95% interval (marked !), the interval of
    the mean of observed minus predicted with each game one cluster: with a perfect model each
    share is outside it one time in twenty, by chance.  A miss under one point is not counted:
    where nearly every game of a bucket has one result the interval shrinks to nothing."""
    worst = {True: 0.0, False: 0.0}           # by: is the bucket one of all material?
    beyond = counted = 0
    print(f"{'material':>9} {'raw score':>11} {'n':>6} {'games':>5}   predicted W/D/L"
          "     observed W/D/L   noise")
    table = buckets(obs)
    for name, _, _ in PHASES:
        for key in sorted(k for phase, k in table if phase == name):
            rows = table[(name, key)]
            if len(rows) < 50:
                continue
            pred = predicted(model, rows)
            seen = observed(rows)
            games = len({game for *_, game in rows})
            gap = largest_gap(pred, seen)
            noise = max(clustered_margin(rows, k) for k in (1, 0, -1))
            label = (f"<= {key * 100 + 50}" if key == -8 else f">= {key * 100 - 50}" if key == 8
                     else f"{key * 100 - 50}..{key * 100 + 50}")
            mark = ""
            if len(rows) >= minimum:
                pooled = name == PHASES[0][0]
                worst[pooled] = max(worst[pooled], gap)
                mark = " *" if gap > 5 else ""
                counted += 1
                if any(abs(a - b) >= 1 and abs(a - b) > miss_margin(model, rows, k)
                       for a, b, k in zip(pred, seen, (1, 0, -1))):
                    beyond += 1
                    mark += " !"
            print(f"{name:>9} {label:>11} {len(rows):>6} {games:>5}   {pred[0]:5.1f} {pred[1]:5.1f}"
                  f" {pred[2]:5.1f}    {seen[0]:5.1f} {seen[1]:5.1f} {seen[2]:5.1f}"
                  f"   {noise:5.1f}{mark}")
    print(f"buckets of >= {minimum} positions with a share outside its 95% interval: {beyond} of "
          f"{counted} (a perfect model: about one share in twenty, three shares a bucket)")
    return worst[True], worst[False]


def print_gaps(gaps: Tuple[float, float], minimum: int = 200) -> None:
    """calibration's two largest gaps, as the bench reports them."""
    print(f"largest gap in buckets of >= {minimum} positions: {gaps[0]:.1f} points by score over "
          f"all material (target <= 5), {gaps[1]:.1f} within a material phase")


def split_half(obs, minimum: int = 200) -> None:
    """How well can this record check a model at all?  The games split in two by the parity
    of their line; for each half as the test half: the largest gap, over the buckets of at
    least `minimum` positions in both halves, of a model fitted on the other half, of
    engine/score.py's WDL_MODEL, and of the other half's own observed shares (the noise of
    both halves: a perfect model misses a half by about 1/sqrt(2) of it)."""
    for test in (0, 1):
        train = [o for o in obs if o[3] % 2 != test]
        held = [o for o in obs if o[3] % 2 == test]
        model = fit(train)
        train_buckets, held_buckets = buckets(train), buckets(held)
        worst = {"fitted": (0.0, None), "shipped": (0.0, None), "other half": (0.0, None)}
        for key, rows in held_buckets.items():
            if len(rows) < minimum or len(train_buckets.get(key, ())) < minimum:
                continue
            seen = observed(rows)
            for name, expected in (("fitted", predicted(model, rows)),
                                   ("shipped", predicted(WDL_MODEL, rows)),
                                   ("other half", observed(train_buckets[key]))):
                gap = largest_gap(expected, seen)
                if gap > worst[name][0]:
                    worst[name] = (gap, key)
        parts = [f"{name} {gap:.1f} ({key[0]}, raw {key[1] * 100:+d})" if key else f"{name} -"
                 for name, (gap, key) in worst.items()]
        print(f"games of {'even' if test == 0 else 'odd'} lines as the test half "
              f"({len(held)} positions): largest gap of " + ", ".join(parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--play", type=int, metavar="N", help="play until N games are recorded")
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--chess960", type=float, default=0.25,
                        help="share of games from Chess960 starts")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--games", default=str(ROOT / "bench" / "quality" / "wdl-games.jsonl"))
    parser.add_argument("--import", dest="match", nargs=2, metavar=("PGN", "LOGDIR"),
                        help="add a match's games, scored from bench/uci_tee.py's logs")
    parser.add_argument("--split-half", action="store_true",
                        help="also check models on half the games against the other half")
    parser.add_argument("--folds", type=int, metavar="K",
                        help="also compare the shapes' held-out log loss over K folds of games")
    args = parser.parse_args()
    if args.folds is not None and args.folds < 2:
        parser.error("--folds needs 2 or more")
    path = Path(args.games)
    if args.match:
        pgn_path, log_folder = Path(args.match[0]), Path(args.match[1])
        for needed in (pgn_path, log_folder):
            if not needed.exists():
                print(f"{needed}: no such file or folder", file=sys.stderr)
                return 1
        import_match(path, pgn_path, log_folder)
    if args.play:
        play(path, args.play, args.tc, args.chess960, args.concurrency)
    if not path.exists():
        print(f"{path}: no games recorded (--play N first)", file=sys.stderr)
        return 1
    obs = observations(path)
    games = sum(1 for _ in path.open())
    print(f"{games} games, {len(obs)} scored positions")
    model = fit(obs)
    print(f"fitted: WdlModel(a={model.a}, b={model.b}, low={LOW}, high={HIGH}, norm={NORM}, "
          f"power={model.power})")
    print(f"log loss: fitted {model_loss(model, obs):.5f}, WDL_MODEL {model_loss(WDL_MODEL, obs):.5f}")
    for m in (78, 58, 40, 20):
        a, b = model.parameters(m)
        print(f"  material {m}: a {a:.1f}, b {b:.1f} (raw units)")
    print("calibration of the fitted model:")
    print_gaps(calibration(model, obs))
    print("calibration of engine/score.py's WDL_MODEL:")
    print_gaps(calibration(WDL_MODEL, obs))
    if args.split_half:
        split_half(obs)
    if args.folds:
        cross_validate(obs, args.folds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
