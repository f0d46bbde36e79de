"""The subcommands that make and train the neural evaluation: datagen and train."""
from __future__ import annotations

import sys

from .common import EXIT_OK, MAX_NODES, Parser, shared_folder
from ...engine.stopping import interrupted_status


def default_openings() -> str:
    """The shared openings: chessathome_openings.fen in shared_folder()'s data."""
    return str(shared_folder() / "data" / "chessathome_openings.fen")


def datagen(argv) -> int:
    from ...engine.training.datagen import (DEFAULT_CHESS960_SHARE, DEFAULT_NODES, DEFAULT_RANDOM_PLIES,
                                   MAX_RANDOM_PLIES, DatagenError, DatagenInterrupted,
                                   generate)

    p = Parser(prog="scacco datagen",
               description="Self-play training positions for the neural evaluation: quiet "
                           "positions with the search score and the game result, appended to "
                           "a binary file (layout in engine/training/datagen.py).  Started again with "
                           "the same arguments, it goes on where it stopped.  Progress on "
                           "stderr.")
    p.add_argument("--out", required=True, metavar="FILE", help="the data file (created, or resumed)")
    p.bounded("--games", low=0, high=10 ** 9, required=True, metavar="N",
              help="the file is to hold games 0..N-1")
    p.bounded("--nodes", low=1, high=MAX_NODES, default=DEFAULT_NODES, metavar="N",
              help=f"nodes per move (default {DEFAULT_NODES})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the starts and random plies (default 0)")
    p.bounded("--random-plies", low=0, high=MAX_RANDOM_PLIES, default=DEFAULT_RANDOM_PLIES, metavar="K",
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
    except DatagenInterrupted as stop:
        return interrupted_status(stop.signum)   # generate() has said how far the file goes and how to go on
    seconds = summary["seconds"]
    rate = summary["positions"] / seconds if seconds > 0 else 0.0
    print(f"games played: {summary['games']}, positions written: {summary['positions']}, "
          f"{rate:.0f} positions/s; {args.out} holds games 0..{summary['next_game'] - 1}",
          file=sys.stderr)
    return EXIT_OK


def train(argv) -> int:
    import math

    p = Parser(prog="scacco train",
               description="Train a network for the neural evaluation on `scacco datagen` "
                           "files (PyTorch, the train extra); resumable from its checkpoint.")
    p.add_argument("data", nargs="*", help="scacco datagen files")
    p.add_argument("--out", required=True, help="the network file to write (and OUT.npz)")
    p.add_argument("--seed", type=int, default=1)
    p.bounded("--hidden", low=1, high=256, default=128, help="units per perspective (1..256)")
    p.bounded("--output-buckets", low=1, high=8, default=1,
              help="output layers chosen by the number of pieces on the board (1..8, default "
                   "1: a single output layer)")
    p.bounded("--epochs", low=1, high=100_000, default=20)
    p.bounded("--batch", low=1, high=10 ** 7, default=16384)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lambda", dest="lam", type=float, default=0.75,
                   help="weight of the search score against the game result (default 0.75)")
    p.add_argument("--weight-decay", type=float, default=0.0, help="AdamW weight decay (default 0)")
    p.add_argument("--mirror", action="store_true",
                   help="train on each position and its file-mirrored copy as well")
    p.add_argument("--init", metavar="NET.npz",
                   help="start from these float weights (OUT.npz of an earlier run, the same "
                        "--hidden and --output-buckets, or one output layer, which then starts "
                        "every bucket) instead of random ones")
    p.add_argument("--checkpoint", help="checkpoint file (default OUT.ckpt)")
    p.bounded("--threads", low=1, high=1024, default=1, help="torch threads (default 1)")
    p.add_argument("--calibrate-scale", action="store_true",
                   help="fit the exported net's output scale so that its evaluations are in "
                        "the units of the held-out positions' search scores (least squares); "
                        "without it the scale is the targets' 400")
    p.add_argument("--score-factor", action="append", default=[], metavar="DATA=F",
                   help="multiply the scores of the data file DATA by F (a file scored by a "
                        "search in other units); may be repeated")
    p.add_argument("--export-checkpoint", metavar="CKPT",
                   help="train nothing: write OUT from the best epoch of this checkpoint (a run "
                        "stopped before its last epoch); the data files are needed for a "
                        "checkpoint of an older trainer (their held-out positions calibrate "
                        "the quantised output)")
    args = p.parse_args(argv)
    if not args.data and not args.export_checkpoint:
        p.error("name at least one data file")
    if not 0.0 <= args.lam <= 1.0:
        p.error("--lambda must be in 0..1")
    for path in args.data:
        p.input_file(path)
    factors = {}
    for entry in args.score_factor:
        path, _, text = entry.rpartition("=")
        try:
            factor = float(text)
        except ValueError:
            factor = float("nan")
        if not path or not math.isfinite(factor) or factor <= 0:
            p.error(f"--score-factor takes DATA=F with F a positive number, not {entry!r}")
        if path not in args.data:
            p.error(f"--score-factor names {path}, which is not among the data files")
        factors[path] = factor
    try:
        import torch  # noqa: F401
    except ImportError:
        p.error("training needs PyTorch: pip install -e '.[train]'")
    from ...engine.training.datagen import DatagenError
    from ...engine.training.nnue_train import export_checkpoint, train as run_training
    try:
        if args.export_checkpoint:
            export_checkpoint(args.export_checkpoint, args.out, args.data,
                              calibrate_scale=args.calibrate_scale)
            return EXIT_OK
        run_training(args.data, args.out, seed=args.seed, hidden=args.hidden,
                     buckets=args.output_buckets,
                     epochs=args.epochs, batch=args.batch, lr=args.lr, lam=args.lam,
                     checkpoint=args.checkpoint, threads=args.threads,
                     weight_decay=args.weight_decay, mirror=args.mirror, init=args.init,
                     calibrate_scale=args.calibrate_scale, score_factors=factors or None)
    except (DatagenError, OSError) as error:
        p.error(str(error))
    return EXIT_OK
