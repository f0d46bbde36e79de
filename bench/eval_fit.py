"""Fit the weights of the evaluation terms to Stockfish's judgement of quiet positions.

Two steps, so that the slow one runs once:

    python bench/eval_fit.py generate OUT.csv [--games 400] [--depth 7]
        Plays games from ../shared/data/chessathome_openings.fen with Stockfish (a random
        move now and then, for variety) and writes one line per quiet position: FEN, and
        Stockfish's score in centipawns from white's point of view at the given depth.
        Quiet: not in check, Stockfish's best move neither a capture nor a promotion,
        no mate score, |score| < 1500.

    python bench/eval_fit.py fit DATA.csv
        Reads evaluation_terms for every position and fits, per term, a middlegame and an
        endgame multiplier (plus the tempo) that minimise the squared difference of win
        probabilities, sigmoid(score / 200), between our evaluation and Stockfish's.  Prints
        the multipliers and the loss before and after; a multiplier near 1 means the term's
        in proportion.  A quick check of a change to the evaluation.

    python bench/eval_fit.py tune DATA.csv [--rounds 3]
        Fits every weight in EVAL_PARAMETERS (Texel-style tuning, with Stockfish's scores as
        the targets): the derivative of the evaluation with respect to each weight is taken
        by finite differences over a C batch of the positions, the model is refitted by
        gradient descent (Adam) with a pull toward the current values, and the rounded
        weights are put back; a few rounds absorb the non-linear parts (king danger,
        scaling).  Holds out the last 15% of the positions to report an honest loss, and
        prints the new weights; --write ext/evaluate.pxi puts them into the source.

The material and piece-square tables (PeSTO) stay fixed.  For tuning, Stockfish's
centipawns are first mapped onto ours by one factor, fitted with PeSTO alone, so that the
positional weights do not absorb a difference of scale.

Needs python-chess, numpy and a `stockfish` binary on PATH (or --stockfish PATH).  `tune`
writes weights, which only a tuning build allows: install it in a virtual environment of its
own with `SCACCO_TUNING=1 pip install -e .` (a normal build keeps the weights read-only).
"""
import argparse
import csv
import random
import shutil
import sys
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.shared import shared_dir  # noqa: E402
from scacco.ext._core import (EVAL_PARAMETERS, CoreBoard, EvalBatch, evaluation_terms,  # noqa: E402
                       get_eval_parameter, set_eval_parameter, TUNING_BUILD)

DATA = shared_dir() / "data"
SIGMOID_SCALE = 400.0 / 2.302585  # win probability 1 / (1 + 10^(-cp/400))


def find_stockfish(path):
    if path:
        return path
    found = shutil.which("stockfish") or (Path("/usr/games/stockfish").exists() and "/usr/games/stockfish")
    if not found:
        sys.exit("stockfish not found: pass --stockfish PATH")
    return found


def generate(args):
    rng = random.Random(args.seed)
    openings = [line.strip() for line in (DATA / "chessathome_openings.fen").read_text().splitlines() if line.strip()]
    rng.shuffle(openings)
    engine = chess.engine.SimpleEngine.popen_uci(find_stockfish(args.stockfish))
    engine.configure({"Threads": 1, "Hash": 16})
    written = 0
    with open(args.out, "w", newline="") as f:
        out = csv.writer(f)
        for game_index, fen in enumerate(openings[:args.games]):
            board = chess.Board(fen)
            for _ in range(args.max_plies):
                if board.is_game_over(claim_draw=True):
                    break
                info = engine.analyse(board, chess.engine.Limit(depth=args.depth))
                score = info["score"].white()
                best = info["pv"][0] if info.get("pv") else None
                if best is None:
                    break
                quiet = (not board.is_check() and not board.is_capture(best) and best.promotion is None
                         and not score.is_mate() and abs(score.score()) < 1500)
                if quiet:
                    out.writerow([board.fen(), score.score()])
                    written += 1
                move = best if rng.random() > args.random_moves else rng.choice(list(board.legal_moves))
                board.push(move)
            if game_index % 20 == 19:
                print(f"{game_index + 1} games, {written} positions", flush=True)
    engine.quit()
    print(f"{written} positions written to {args.out}")


def fit(args):
    import numpy as np

    rows = list(csv.reader(open(args.data)))
    names = None
    features, targets, base = [], [], []
    core = CoreBoard()
    for fen, score in rows:
        core.set_fen(fen)
        info = evaluation_terms(core)
        if info["insufficient_material"]:
            continue
        if names is None:
            names = [name for name in info["terms"] if name != "material+psq"]
        ph = info["phase"]
        sf = info["scale"] / 64.0
        stm = 1 if " w " in fen else -1
        # white = (mg * ph + eg * sf * (24 - ph)) / 24 with mg, eg sums of the terms.
        psq_mg, psq_eg = info["terms"]["material+psq"]["total"]
        base.append((psq_mg * ph + psq_eg * sf * (24 - ph)) / 24)
        row = []
        for name in names:
            mg, eg = info["terms"][name]["total"]
            row += [mg * ph / 24, eg * sf * (24 - ph) / 24]
        row.append(stm)  # tempo, as a white-view feature
        features.append(row)
        targets.append(float(score))
    X, y, b = np.array(features), np.array(targets), np.array(base)
    labels = [f"{n} {part}" for n in names for part in ("mg", "eg")] + ["tempo (cp)"]
    w0 = np.ones(X.shape[1])
    w0[-1] = info["tempo"]

    def sig(v):
        return 1.0 / (1.0 + np.exp(-v / SIGMOID_SCALE))

    # Map Stockfish's centipawns onto ours with one factor, fitted with PeSTO alone.
    factors = np.linspace(0.5, 1.5, 101)
    factor = factors[int(np.argmin([np.mean((sig(b) - sig(f * y)) ** 2) for f in factors]))]
    target = sig(factor * y)

    def loss(w):
        return float(np.mean((sig(b + X @ w) - target) ** 2))

    def grad(w):
        p = sig(b + X @ w)
        return (2 * (p - target) * p * (1 - p) / SIGMOID_SCALE) @ X / len(y)

    # Plain gradient descent with a diagonal scaling (features differ wildly in size).
    w = w0.copy()
    scale = 1.0 / (np.mean(X ** 2, axis=0) + 1e-9)
    lr = 2e3
    for step in range(args.steps):
        w -= lr * scale * grad(w) * SIGMOID_SCALE ** 2 / 1e3
    print(f"positions: {len(y)}; Stockfish cp x {factor:.2f} -> ours")
    print(f"loss with current weights: {loss(w0):.6f}   PeSTO alone: {loss(np.zeros_like(w0)):.6f}   fitted: {loss(w):.6f}")
    for label, value in zip(labels, w):
        print(f"  {label:16s} {value:7.3f}")


def format_list(prefix, values, indent):
    """`prefix[...]` followed by the values, wrapped under 100 columns."""
    text = prefix + "["
    lines = []
    for i, v in enumerate(values):
        item = str(v) + (", " if i < len(values) - 1 else "]")
        if len(text) + len(item.rstrip()) > 99:
            lines.append(text.rstrip())
            text = " " * indent
        text += item
    lines.append(text)
    return "\n".join(lines)


def write_weights(path):
    """Put the current weights into the assignments of ext/evaluate.pxi."""
    import re

    source = Path(path).read_text()
    piece_names = {2: "KNIGHT", 3: "BISHOP", 4: "ROOK", 5: "QUEEN"}
    for name, size, _ in EVAL_PARAMETERS:
        values = get_eval_parameter(name)
        if size == 1:
            source, n = re.subn(rf"\b({name} = )-?\d+", lambda m: m.group(1) + str(values[0]), source)
        elif name.startswith("MOBILITY"):
            n = 0
            for pt, pt_name in piece_names.items():
                prefix = f"{name}[{pt_name}][:] = "
                pattern = re.escape(prefix) + r"\[[^\]]*\]"
                source, k = re.subn(pattern, lambda m: format_list(prefix, values[pt * 28:(pt + 1) * 28], len(prefix) + 1), source)
                n += k
        elif name in ("SHELTER", "UNBLOCKED_STORM"):
            n = 0
            for d in range(4):
                prefix = f"{name}[{d}][:] = "
                pattern = re.escape(prefix) + r"\[[^\]]*\]"
                source, k = re.subn(pattern, lambda m: format_list(prefix, values[d * 8:(d + 1) * 8], len(prefix) + 1), source)
                n += k
        else:
            prefix = f"{name}[:] = "
            pattern = re.escape(prefix) + r"\[[^\]]*\]"
            source, n = re.subn(pattern, lambda m: format_list(prefix, values, len(prefix) + 1), source)
        if n == 0:
            raise SystemExit(f"{name}: assignment not found in {path}")
    Path(path).write_text(source)
    print(f"weights written to {path}")


def sigmoid(v):
    import numpy as np
    return 1.0 / (1.0 + np.exp(-v / SIGMOID_SCALE))


def tune(args):
    import numpy as np

    if not TUNING_BUILD:
        sys.exit("eval_fit.py tune: the evaluation weights are read-only in this build; "
                 "install a tuning build in a venv of its own: SCACCO_TUNING=1 pip install -e .")

    rows = [(fen, float(score)) for fen, score in csv.reader(open(args.data))]
    batch = EvalBatch([fen for fen, _ in rows])
    y_raw = np.array([score for _, score in rows])
    n = len(rows)
    parts = np.zeros((n, 6), dtype=np.int32)

    def evaluate_parts():
        batch.parts(parts)
        return parts[:, 0].astype(float), parts[:, 1].astype(float)

    evaluate_parts()
    ph, sf = parts[:, 2].astype(float), parts[:, 3].astype(float)
    stm = np.where(parts[:, 4] == 0, 1.0, -1.0)
    valid = parts[:, 5] == 0
    train = valid & (np.arange(n) < int(n * 0.85))
    test = valid & ~train

    def white(mg, eg):
        # The scale factor is taken as fixed (from the starting weights).
        return (mg * ph + eg * sf / 64 * (24 - ph)) / 24

    # One factor from Stockfish's centipawns to ours, fitted with PeSTO alone.
    names = [name for name, _, _ in EVAL_PARAMETERS]
    saved = {name: get_eval_parameter(name) for name in names}
    for name, size, _ in EVAL_PARAMETERS:
        set_eval_parameter(name, [0] * size)
    pesto = white(*evaluate_parts())
    for name in names:
        set_eval_parameter(name, saved[name])
    factors = np.linspace(0.5, 1.5, 101)
    losses = [np.mean((sigmoid(pesto[train]) - sigmoid(f * y_raw[train])) ** 2) for f in factors]
    factor = factors[int(np.argmin(losses))]
    y = sigmoid(factor * y_raw)
    print(f"positions {n} (train {train.sum()}, test {test.sum()}); Stockfish cp x {factor:.2f} -> ours")
    print(f"PeSTO alone: train {np.mean((sigmoid(pesto[train]) - y[train]) ** 2):.6f} "
          f"test {np.mean((sigmoid(pesto[test]) - y[test]) ** 2):.6f}")

    index = [(name, k, step) for name, size, step in EVAL_PARAMETERS for k in range(size)]
    tempo_j = [j for j, (name, _, _) in enumerate(index) if name == "TEMPO"][0]

    def current():
        return np.array([get_eval_parameter(name)[k] for name, k, _ in index], dtype=float)

    def put(values):
        j = 0
        for name, size, _ in EVAL_PARAMETERS:
            set_eval_parameter(name, [int(round(v)) for v in values[j:j + size]])
            j += size

    def report(tag):
        pred = white(*evaluate_parts()) + stm * get_eval_parameter("TEMPO")[0]
        print(f"{tag}: train {np.mean((sigmoid(pred[train]) - y[train]) ** 2):.6f} "
              f"test {np.mean((sigmoid(pred[test]) - y[test]) ** 2):.6f}", flush=True)

    # Second differences along each mobility table: the curves should be smooth.
    rows_d = []
    for table in ("MOBILITY_MG", "MOBILITY_EG"):
        start = [j for j, (name, k, _) in enumerate(index) if name == table][0]
        for pt, count in ((2, 9), (3, 14), (4, 15), (5, 28)):
            for i in range(1, count - 1):
                row = np.zeros(len(index))
                row[start + pt * 28 + i - 1: start + pt * 28 + i + 2] = (1, -2, 1)
                rows_d.append(row)
    smooth = np.array(rows_d)

    w_initial = current()
    report("current weights")
    for rnd in range(args.rounds):
        w_start = current()
        base = white(*evaluate_parts())
        columns, used = [], []
        for j, (name, k, step) in enumerate(index):
            if j == tempo_j:
                columns.append(stm)
                used.append(j)
                continue
            if step == 0:       # not fitted (mop-up only matters in won endings, not in the data)
                columns.append(np.zeros(n))
                used.append(j)
                continue
            vals = get_eval_parameter(name)
            vals[k] += step
            set_eval_parameter(name, vals)
            d = (white(*evaluate_parts()) - base) / step
            vals[k] -= step
            set_eval_parameter(name, vals)
            columns.append(d)
            used.append(j)
        G = np.stack(columns, axis=1)[train]
        ws = w_start.copy()
        bt = base[train] + stm[train] * ws[tempo_j]
        yt = y[train]
        w = ws.copy()
        m = np.zeros_like(w)
        v = np.zeros_like(w)
        for step in range(1, args.steps + 1):
            p = sigmoid(bt + G @ (w - ws))
            g = (2 * (p - yt) * p * (1 - p) / SIGMOID_SCALE) @ G / len(yt) + args.l2 * (w - ws)
            g += args.smooth * (smooth.T @ (smooth @ w))
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            w -= args.lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-12)
        put(w)
        report(f"round {rnd + 1} ({len(used)} weights in use)")
    print()
    for name, _, _ in EVAL_PARAMETERS:
        print(f"{name} = {get_eval_parameter(name)}")
    print(f"\n{int(np.sum(current() != w_initial))} of {len(index)} weights changed")
    if args.write:
        write_weights(args.write)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("out")
    g.add_argument("--games", type=int, default=400)
    g.add_argument("--depth", type=int, default=7)
    g.add_argument("--max-plies", type=int, default=160)
    g.add_argument("--random-moves", type=float, default=0.15)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--stockfish")
    f = sub.add_parser("fit")
    f.add_argument("data")
    f.add_argument("--steps", type=int, default=3000)
    t = sub.add_parser("tune")
    t.add_argument("data")
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("--steps", type=int, default=2000)
    t.add_argument("--lr", type=float, default=0.5)
    t.add_argument("--l2", type=float, default=1e-8)
    t.add_argument("--smooth", type=float, default=1e-7)
    t.add_argument("--write", metavar="PXI", help="put the fitted weights into this file (ext/evaluate.pxi)")
    args = parser.parse_args()
    {"generate": generate, "fit": fit, "tune": tune}[args.command](args)


if __name__ == "__main__":
    main()
