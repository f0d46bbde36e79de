"""A Chess960 match between two UCI engines: ../shared/tools/match.py plays standard chess only
(its boards are not Chess960 boards, so castling with a rook off a1/h1 is lost), and issue 31
asks for Chess960 strength against Ethereal.

    python bench/match960.py --engine "venv/bin/scacco" --engine /usr/games/ethereal-chess \\
        --games 100 --tc 5+0.05 --concurrency 2 --seed 1 --pgn 960.pgn

Start positions are drawn from the 960 (by --seed, each once at most) and each is played once
with each colour.  The engines are told UCI_Chess960 (python-chess sets it for a Chess960 board
and sends castling as king-takes-rook).  The rules of the game are match.py's: the clock with
--margin seconds of grace past the flag, a loss for a crash, an illegal move or a flag (counted
as faults, printed at the end), a draw at --maxplies, and a win adjudicated when the scores
reported (White's view) stay at 1000 or more the same way for 8 plies in a row.  The score,
Elo and 95% error are match.py's formulas, imported from it.  Progress on stdout, a line a game.
"""
from __future__ import annotations

import argparse
import random
import shlex
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.match_total import match_module  # noqa: E402

ADJUDICATE_CP = 1000
ADJUDICATE_PLIES = 8


def play(number: int, start: int, first_white: bool, commands, names, tc, margin, maxplies):
    """One game from Chess960 position `start`; (result, first engine's colour, pgn game,
    fault or None)."""
    base, _, inc = tc.partition("+")
    base, inc = float(base), float(inc or 0)
    sides = (0, 1) if first_white else (1, 0)
    board = chess.Board.from_chess960_pos(start)
    game = chess.pgn.Game()
    game.setup(board)
    game.headers.update(Event="match960", Round=str(number), White=names[sides[0]],
                        Black=names[sides[1]], Variant="Chess960")
    engines, fault, result = [], None, None
    try:
        for i in sides:
            engines.append(chess.engine.SimpleEngine.popen_uci(shlex.split(commands[i]),
                                                               timeout=30))
    except Exception as exc:
        fault = (names[sides[len(engines)]], "start", repr(exc))
        result = "0-1" if len(engines) == 0 else "1-0"
    clock, node, streak = [base, base], game, 0
    try:
        while result is None:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                result = outcome.result()
                break
            if board.ply() >= maxplies:
                result = "1/2-1/2"
                break
            side = 0 if board.turn == chess.WHITE else 1
            lose = "0-1" if side == 0 else "1-0"
            limit = chess.engine.Limit(white_clock=clock[0], black_clock=clock[1],
                                       white_inc=inc, black_inc=inc)
            began = time.perf_counter()
            try:
                answer = engines[side].play(board, limit, info=chess.engine.INFO_SCORE)
            except chess.engine.EngineTerminatedError as exc:
                fault, result = (names[sides[side]], "crash", repr(exc)), lose
                break
            except chess.engine.EngineError as exc:
                fault, result = (names[sides[side]], "illegal-or-protocol", repr(exc)), lose
                break
            clock[side] -= time.perf_counter() - began
            if clock[side] < -margin:
                fault, result = (names[sides[side]], "time", f"{-clock[side]:.3f}s over"), lose
                break
            clock[side] += inc
            if answer.move is None or answer.move not in board.legal_moves:
                fault = (names[sides[side]], "illegal-or-protocol", f"bestmove {answer.move}")
                result = lose
                break
            node = node.add_variation(answer.move)
            score = answer.info.get("score")
            if score is not None:
                cp = score.white().score(mate_score=100000)
                if abs(cp) >= ADJUDICATE_CP and (streak == 0 or (cp > 0) == (streak > 0)):
                    streak += 1 if cp > 0 else -1
                else:
                    streak = 0
            board.push(answer.move)
            if abs(streak) >= ADJUDICATE_PLIES:
                result = "1-0" if streak > 0 else "0-1"
                break
    finally:
        for engine in engines:
            try:
                engine.quit()
            except Exception:
                engine.close()
    game.headers["Result"] = result
    return result, first_white, game, fault


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", action="append", required=True, help="command (twice)")
    parser.add_argument("--name", action="append", default=[])
    parser.add_argument("--games", type=int, default=100, help="rounded up to even")
    parser.add_argument("--tc", default="5+0.05")
    parser.add_argument("--margin", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--maxplies", type=int, default=400)
    parser.add_argument("--pgn")
    args = parser.parse_args(argv)
    if len(args.engine) != 2:
        parser.error("give --engine exactly twice")
    pairs = (args.games + 1) // 2
    if pairs > 960:
        parser.error("at most 1920 games: each of the 960 start positions is played twice")
    names = args.name + [shlex.split(c)[0].rsplit("/", 1)[-1] for c in args.engine][len(args.name):]
    if names[0] == names[1]:
        names = [names[0] + "-1", names[1] + "-2"]
    starts = random.Random(args.seed).sample(range(960), pairs)
    jobs = [(2 * i + c + 1, starts[i], c == 0) for i in range(pairs) for c in (0, 1)]
    formulas = match_module()
    w = d = l = 0
    faults = []
    lock = threading.Lock()
    out = open(args.pgn, "w") if args.pgn else None
    began = time.time()

    def run(job):
        return play(job[0], job[1], job[2], args.engine, names, args.tc, args.margin,
                    args.maxplies)

    with ThreadPoolExecutor(args.concurrency) as pool:
        for job, (result, first_white, game, fault) in zip(jobs, pool.map(run, jobs)):
            with lock:
                if fault is not None:
                    faults.append((job[0],) + fault)
                if result == "1/2-1/2":
                    d += 1
                elif (result == "1-0") == first_white:
                    w += 1
                else:
                    l += 1
                if out is not None:
                    print(game, file=out, end="\n\n")
                    out.flush()
                elo, error = formulas.elo(w, d, l)
                print(f"game {w + d + l}/{len(jobs)} (960 #{job[1]}): {names[0]} vs {names[1]}:"
                      f" +{w} ={d} -{l}  elo {elo:+.0f} +/- {error:.0f}", flush=True)
    n = w + d + l
    elo, error = formulas.elo(w, d, l)
    print(f"Score of {names[0]} vs {names[1]}: {w} - {l} - {d} [{(w + d / 2) / max(n, 1):.3f}] {n}")
    print(f"Elo difference: {elo:+.1f} +/- {error:.1f}")
    for number, who, kind, detail in faults:
        print(f"FAULT game {number}: {who}: {kind}: {detail}")
    print(f"faults: {len(faults)}  wall: {time.time() - began:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
