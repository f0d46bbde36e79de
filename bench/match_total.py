"""The total of several runs of ../shared/tools/match.py between the same two engines, from
their PGN files (--pgn): W-D-L, Elo with its 95% error and the SPRT's log-likelihood ratio,
by match.py's own formulas.  An SPRT of a few hundred games at 10+0.1 outlasts a session on two
cores, and match.py cannot resume one: it is run in pieces (each with --pgn and a --seed of its
own, so the pieces play different openings) and judged on the pieces together.

    python bench/match_total.py --name new --sprt 0,10 run1.pgn run2.pgn ...

Games without a result (a piece stopped mid-game leaves none) are not counted.

match.py counts faults (a crash, an illegal move, a loss on time) in its closing lines, which a
piece stopped early never prints, and its PGN says nothing of them: such a game simply ends,
decisive, in a position that is not mate.  `--endings` sorts the decisive games by how they
ended: in mate; adjudicated, which match.py does after ADJUDICATION_PLIES plies in a row scored
ADJUDICATION_CP or more for the same side (checked against bench/uci_tee.py's logs, `--tee
LOGDIR`, when both engines were tee'd); or neither, where a game ending with the winner
MATERIAL_EDGE pawns or more ahead is told apart from one that needs a look, listed with its
round and final position:

    python bench/match_total.py --name new --endings --tee TEE run1.pgn
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.shared import shared_dir  # noqa: E402
from bench.wdl_fit import game_scores, tee_scores  # noqa: E402
from scacco.engine.score import PIECE_MATERIAL  # noqa: E402

# match.py's adjudication: this many plies in a row, each mover's score at least this many
# centipawns from White's view for the same side (a mate counting as more)
ADJUDICATION_PLIES = 8
ADJUDICATION_CP = 1000
# the winner's material edge (engine/score.py's count, in pawns) taken as a clear win's
MATERIAL_EDGE = 2


def match_module():
    path = shared_dir() / "tools" / "match.py"
    spec = importlib.util.spec_from_file_location("shared_match", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def count(paths, name):
    """(wins, draws, losses) of the engine called `name` in the games of `paths`."""
    w = d = l = 0
    for path in paths:
        with open(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                white, black = game.headers.get("White"), game.headers.get("Black")
                result = game.headers.get("Result")
                if name not in (white, black) or result not in ("1-0", "0-1", "1/2-1/2"):
                    continue
                if result == "1/2-1/2":
                    d += 1
                elif (result == "1-0") == (white == name):
                    w += 1
                else:
                    l += 1
    return w, d, l


def material_edge(board: chess.Board, colour: chess.Color) -> int:
    """colour's material minus the other side's, in pawns (kings not counted)."""
    white = sum(PIECE_MATERIAL.get(ch.lower(), 0) * (1 if ch.isupper() else -1)
                for ch in board.board_fen())
    return white if colour == chess.WHITE else -white


def white_cp(score: str, white_to_move: bool):
    """A tee log's "cp N" / "mate N" (the mover's view) from White's, a mate as +-100000."""
    kind, _, value = score.partition(" ")
    try:
        number = int(value)
    except ValueError:
        return None
    cp = number if kind == "cp" else (100000 if number > 0 else -100000)
    return cp if white_to_move else -cp


def adjudicated(game, scores: dict, winner: chess.Color) -> bool:
    """Whether the tee'd scores of the game's last ADJUDICATION_PLIES moves all reach
    ADJUDICATION_CP for the winner, as match.py's adjudication needs."""
    white_first = game.board().turn == chess.WHITE
    streak = [None if score is None else white_cp(score, white_first == (ply % 2 == 0))
              for ply, score in enumerate(game_scores(game, scores))]
    last = streak[-ADJUDICATION_PLIES:]
    sign = 1 if winner == chess.WHITE else -1
    return (len(last) == ADJUDICATION_PLIES
            and all(cp is not None and sign * cp >= ADJUDICATION_CP for cp in last))


def endings(paths, scores=None):
    """How the decisive games of paths ended: ({"mate", "adjudicated", "ahead", "look":
    count}, [(file, round, result, final FEN) of the games to look at])."""
    counts = {"mate": 0, "adjudicated": 0, "ahead": 0, "look": 0}
    to_look = []
    for path in paths:
        with open(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                result = game.headers.get("Result")
                if result not in ("1-0", "0-1"):
                    continue
                winner = chess.WHITE if result == "1-0" else chess.BLACK
                board = game.end().board()
                if board.is_checkmate():
                    kind = "mate"
                elif scores and adjudicated(game, scores, winner):
                    kind = "adjudicated"
                elif material_edge(board, winner) >= MATERIAL_EDGE:
                    kind = "ahead"
                else:
                    kind = "look"
                    to_look.append((str(path), game.headers.get("Round", "?"), result,
                                    board.fen()))
                counts[kind] += 1
    return counts, to_look


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--name", required=True, help="the engine whose score is given")
    parser.add_argument("--sprt", help="elo0,elo1")
    parser.add_argument("--endings", action="store_true",
                        help="sort the decisive games by how they ended (faults leave no mark)")
    parser.add_argument("--tee", action="append", default=[], metavar="LOGDIR",
                        help="bench/uci_tee.py's logs of the games, for --endings")
    args = parser.parse_args()
    for path in args.pgn:
        if not Path(path).is_file():
            print(f"{path}: no such file", file=sys.stderr)
            return 2
    for folder in args.tee:
        if not Path(folder).is_dir():
            print(f"{folder}: no such folder", file=sys.stderr)
            return 2
    match = match_module()
    w, d, l = count(args.pgn, args.name)
    n = w + d + l
    if n == 0:
        print(f"no finished game of {args.name} in {', '.join(args.pgn)}", file=sys.stderr)
        return 1
    elo, error = match.elo(w, d, l)
    print(f"{args.name}: +{w} ={d} -{l} in {n} games, score {(w + d / 2) / n:.3f}, "
          f"Elo {elo:+.1f} +/- {error:.1f}")
    if args.sprt:
        elo0, elo1 = map(float, args.sprt.split(","))
        llr, bound = match.sprt_llr(w, d, l, elo0, elo1), math.log(0.95 / 0.05)
        verdict = ("H1 accepted" if llr >= bound else "H0 accepted" if llr <= -bound
                   else "inconclusive")
        print(f"SPRT [{elo0:g}, {elo1:g}]: LLR {llr:+.2f} of +/-{bound:.2f}: {verdict}")
    if args.endings:
        scores = {}
        for folder in args.tee:
            scores.update(tee_scores(Path(folder)))
        counts, to_look = endings(args.pgn, scores)
        print(f"decisive games: {sum(counts.values())}: in mate {counts['mate']}, adjudicated "
              f"{counts['adjudicated']}, winner {MATERIAL_EDGE}+ pawns ahead {counts['ahead']}, "
              f"to look at {counts['look']}")
        for path, round_, result, fen in to_look:
            print(f"  {path} round {round_} {result}: {fen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
