"""How much of its clock an engine uses, and whether it ever loses on time.

    python bench/clock_use.py --engine scacco [--engine OTHER] --tc 10+0.1 [--tc 40/20 ...]
                              [--games 20] [--concurrency 1] [--option 1:Threads=2]
                              [--openings ../shared/data/chessathome_openings.fen] [--pgn F]

Plays games between the two engines (the same one twice by default) at each time control and
keeps both clocks here, as a GUI does: the time between sending `go` and reading `bestmove`
is taken from the mover's clock.  Time controls:

* `B+I`: B seconds for the game plus I seconds per move (10+0.1, 1+0.01, 60+0);
* `M/B`: B seconds for every M moves, repeating (40/20), with `movestogo` sent;
* `M/B+I` both.

For each engine and control it prints the games, the losses on time (any move that leaves
the clock below zero: no grace), the average share of the available time it used (time spent
over base time plus the time every increment and new control added, per game, then averaged),
that share over the games of 60 moves or more only, and the least time ever left on its clock
after a move.  The games end by the rules, at the ply limit as draws, or by adjudication when
both engines see a decisive score for eight plies running (a game cut short that way spent
less of its clock than it would have: the 60-moves figure is the one to read).  Progress goes
to stderr.  Uses python-chess (a bench dependency, never needed by the engine).
"""
import argparse
import random
import shlex
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

import chess
import chess.engine
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.engines import close_all  # noqa: E402


@dataclass
class Control:
    text: str
    base: float             # seconds at the start (and added at every new control)
    increment: float
    moves: Optional[int]    # moves per control (repeating), None: sudden death

    @classmethod
    def parse(cls, text: str) -> "Control":
        moves = None
        rest = text
        if "/" in text:
            count, _, rest = text.partition("/")
            moves = int(count)
            if moves < 1:
                raise ValueError(f"moves per control must be positive in {text!r}")
        base, _, inc = rest.partition("+")
        control = cls(text, float(base), float(inc or 0), moves)
        if control.base <= 0 or control.increment < 0:
            raise ValueError(f"bad time control {text!r}")
        return control


@dataclass
class SideRecord:
    spent: float = 0.0
    available: float = 0.0
    moves: int = 0
    least_left: float = float("inf")
    lost_on_time: bool = False


@dataclass
class GameRecord:
    control: str
    plies: int
    result: str
    sides: List[SideRecord] = field(default_factory=lambda: [SideRecord(), SideRecord()])
    fault: Optional[str] = None


def play(game_id: int, fen: str, swap: bool, control: Control, commands, options, max_plies: int,
         pgn_lock, pgn_file) -> GameRecord:
    order = (1, 0) if swap else (0, 1)       # engine index playing white, black
    engines = []
    for index in order:
        engine = chess.engine.SimpleEngine.popen_uci(shlex.split(commands[index]), timeout=60)
        if options[index]:
            engine.configure(options[index])
        engines.append(engine)
    board = chess.Board(fen)
    game = chess.pgn.Game()
    game.setup(board)
    game.headers.update(Event=f"clock use {control.text}", Round=str(game_id))
    node = game
    record = GameRecord(control.text, 0, "*")
    clock = [control.base, control.base]
    for side in (0, 1):
        record.sides[order[side]].available = control.base
    streak = 0
    try:
        while True:
            outcome = board.outcome(claim_draw=True)
            if outcome is not None:
                record.result = outcome.result()
                break
            if board.ply() >= max_plies:
                record.result = "1/2-1/2"
                break
            side = 0 if board.turn == chess.WHITE else 1
            mine = record.sides[order[side]]
            moves_to_go = None
            if control.moves is not None:
                moves_to_go = control.moves - mine.moves % control.moves
            limit = chess.engine.Limit(white_clock=clock[0], black_clock=clock[1],
                                       white_inc=control.increment, black_inc=control.increment,
                                       remaining_moves=moves_to_go)
            start = time.perf_counter()
            result = engines[side].play(board, limit, info=chess.engine.INFO_SCORE)
            used = time.perf_counter() - start
            clock[side] -= used
            mine.spent += used
            mine.moves += 1
            if clock[side] < 0:
                mine.lost_on_time = True
                record.fault = f"{commands[order[side]]} lost on time ({-clock[side]:.3f} s over)"
                record.result = "0-1" if side == 0 else "1-0"
                break
            mine.least_left = min(mine.least_left, clock[side])
            clock[side] += control.increment
            mine.available += control.increment
            if control.moves is not None and mine.moves % control.moves == 0:
                clock[side] += control.base
                mine.available += control.base
            if result.move is None or result.move not in board.legal_moves:
                record.fault = f"{commands[order[side]]} played {result.move}"
                record.result = "0-1" if side == 0 else "1-0"
                break
            node = node.add_variation(result.move)
            score = result.info.get("score")
            if score is not None:
                cp = score.white().score(mate_score=100000)
                if abs(cp) >= 1000 and (streak == 0 or (cp > 0) == (streak > 0)):
                    streak += 1 if cp > 0 else -1
                else:
                    streak = 0
                if abs(streak) >= 8:
                    record.result = "1-0" if streak > 0 else "0-1"
                    board.push(result.move)
                    break
            board.push(result.move)
    finally:
        close_all(engines)
    record.plies = board.ply()
    if pgn_file is not None:
        game.headers["Result"] = record.result
        with pgn_lock:
            print(game, file=pgn_file, end="\n\n", flush=True)
    return record


def parse_options(items: List[str]):
    options = [{}, {}]
    for item in items:
        index, _, assignment = item.partition(":")
        name, _, value = assignment.partition("=")
        if index not in ("1", "2") or not name:
            raise SystemExit(f"--option wants N:NAME=VALUE with N 1 or 2, not {item!r}")
        options[int(index) - 1][name] = value
    return options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", required=True, help="engine command (once or twice)")
    parser.add_argument("--tc", action="append", help="time control, repeatable (default 10+0.1)")
    parser.add_argument("--games", type=int, default=20, help="games per control (rounded up to even)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], help="N:NAME=VALUE")
    parser.add_argument("--openings", default=None, help="file of FENs, one a line")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--pgn", default=None, help="write the games here")
    args = parser.parse_args()
    commands = (args.engine * 2)[:2]
    options = parse_options(args.option)
    controls = [Control.parse(t) for t in (args.tc or ["10+0.1"])]
    fens = [chess.STARTING_FEN]
    if args.openings:
        with open(args.openings) as handle:
            fens = [line.strip() for line in handle if line.strip()]
    rng = random.Random(args.seed)
    pgn_file = open(args.pgn, "a") if args.pgn else None
    pgn_lock = threading.Lock()
    for control in controls:
        pairs = (args.games + 1) // 2
        openings = [rng.choice(fens) for _ in range(pairs)]
        jobs = [(2 * i + swap, openings[i], bool(swap)) for i in range(pairs) for swap in (0, 1)]
        records: List[GameRecord] = []
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
            futures = [pool.submit(play, gid, fen, swap, control, commands, options,
                                   args.max_plies, pgn_lock, pgn_file) for gid, fen, swap in jobs]
            for future in futures:
                record = future.result()
                records.append(record)
                spent = " ".join(f"{s.spent / max(s.available, 1e-9):.0%}" for s in record.sides)
                print(f"[{control.text}] game {len(records)}/{len(jobs)}: {record.result} in "
                      f"{record.plies} plies, clock used {spent}"
                      f"{'  FAULT: ' + record.fault if record.fault else ''}  "
                      f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        for index in (0, 1):
            if index == 1 and commands[0] == commands[1] and options[0] == options[1]:
                break
            sides = [r.sides[index] for r in records]
            shares = [s.spent / s.available for s in sides if s.available > 0]
            long_shares = [s.spent / s.available for r, s in zip(records, sides)
                           if r.plies >= 120 and s.available > 0]
            if commands[0] == commands[1] and options[0] == options[1]:
                sides = [s for r in records for s in r.sides]
                shares = [s.spent / s.available for s in sides if s.available > 0]
                long_shares = [s.spent / s.available for r in records if r.plies >= 120
                               for s in r.sides if s.available > 0]
            losses = sum(s.lost_on_time for s in sides)
            least = min((s.least_left for s in sides), default=float("nan"))
            long_text = (f"{statistics.mean(long_shares):.1%} over {len(long_shares)} sides of games "
                         f">= 60 moves" if long_shares else "no game of 60 moves")
            print(f"{control.text}  engine {index + 1} ({commands[index]} {options[index] or ''}): "
                  f"{len(records)} games, {losses} lost on time, clock used {statistics.mean(shares):.1%} "
                  f"on average, {long_text}, least left {least:.3f} s")
        faults = [r.fault for r in records if r.fault]
        print(f"{control.text}  faults: {len(faults)}" + "".join(f"\n  {f}" for f in faults))
    if pgn_file is not None:
        pgn_file.close()


if __name__ == "__main__":
    main()
