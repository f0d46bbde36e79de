"""The subcommands that make and train the neural evaluation: datagen and train."""
from __future__ import annotations

import os
import sys

from .common import EXIT_OK, MAX_NODES, Parser


def default_openings() -> str:
    """The shared openings: $SCACCO_SHARED/data, else ../shared/data beside the working folder."""
    shared = os.environ.get("SCACCO_SHARED") or os.path.join("..", "shared")
    return os.path.join(shared, "data", "chessathome_openings.fen")


def datagen(argv) -> int:
    from ...engine.datagen import (DEFAULT_CHESS960_SHARE, DEFAULT_NODES, DEFAULT_RANDOM_PLIES,
                                   DatagenError, generate)

    p = Parser(prog="scacco datagen",
               description="Self-play training positions for the neural evaluation: quiet "
                           "positions with the search score and the game result, appended to "
                           "a binary file (layout in engine/datagen.py).  Started again with "
                           "the same arguments, it goes on where it stopped.  Progress on "
                           "stderr.")
    p.add_argument("--out", required=True, metavar="FILE", help="the data file (created, or resumed)")
    p.bounded("--games", low=0, high=10 ** 9, required=True, metavar="N",
              help="the file is to hold games 0..N-1")
    p.bounded("--nodes", low=1, high=MAX_NODES, default=DEFAULT_NODES, metavar="N",
              help=f"nodes per move (default {DEFAULT_NODES})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the starts and random plies (default 0)")
    p.bounded("--random-plies", low=0, high=200, default=DEFAULT_RANDOM_PLIES, metavar="K",
              help=f"random legal moves after the opening (default {DEFAULT_RANDOM_PLIES})")
    p.add_argument("--chess960-share", type=float, default=DEFAULT_CHESS960_SHARE, metavar="F",
                   help=f"share of games from a Chess960 start (default {DEFAULT_CHESS960_SHARE})")
    p.add_argument("--openings", metavar="FILE", default=None,
                   help="one FEN a line (default: the shared chessathome_openings.fen)")
    p.add_jobs()
    p.add_ray("play the games")
    p.add_argument("--net", metavar="NET.nnue",
                   help="play with this network (the neural evaluation) instead of the "
                        "classical evaluation; the file is checked first, and a data file is "
                        "only resumed with the same network")
    args = p.parse_args(argv)
    if not 0.0 <= args.chess960_share <= 1.0:
        p.error("--chess960-share must be in 0..1")
    p.check_ray(args.ray)
    openings = args.openings or default_openings()
    try:
        summary = generate(args.out, args.games, nodes=args.nodes, seed=args.seed,
                           random_plies=args.random_plies, chess960_share=args.chess960_share,
                           openings=openings, jobs=p.jobs(args), ray_address=args.ray,
                           network=args.net)
    except DatagenError as error:
        p.error(str(error))
    seconds = summary["seconds"]
    rate = summary["positions"] / seconds if seconds > 0 else 0.0
    print(f"games played: {summary['games']}, positions written: {summary['positions']}, "
          f"{rate:.0f} positions/s; {args.out} holds games 0..{summary['next_game'] - 1}",
          file=sys.stderr)
    return EXIT_OK


def train(argv) -> int:
    from ...engine.nnue_train import main as train_main
    return train_main(argv, prog="scacco train")
