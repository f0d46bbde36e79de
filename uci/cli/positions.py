"""The subcommands about one position, or the engine itself: perft, bench, solve, hint."""
from __future__ import annotations

import os

from .common import EXIT_OK, MAX_NODES, MAX_SEARCH_DEPTH, Parser


def perft(argv) -> int:
    import time

    from ...engine.board import STARTING_FEN

    p = Parser(prog="scacco perft", description="Count the leaf nodes of the legal move tree.")
    p.bounded("depth", low=0, high=100, help="depth in plies (0..100)")
    p.add_position("start position (default: the initial position)", default=STARTING_FEN)
    p.add_argument("--divide", action="store_true", help="print the count below each root move")
    args = p.parse_args(argv)
    board = p.position(args)
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for move, count in board.divide(args.depth):
            print(f"{move}: {count}", flush=True)
            total += count
        print()
    else:
        total = board.perft(args.depth)
    elapsed = time.perf_counter() - start
    print(f"Nodes searched: {total}")
    print(f"Time (ms): {elapsed * 1000:.0f}")
    print(f"Nodes/second: {int(total / elapsed) if elapsed > 0 else 0}")
    return EXIT_OK


def bench(argv) -> int:
    from ...engine.signature import DEFAULT_DEPTH, run_bench
    from ..options import MAX_THREADS

    p = Parser(prog="scacco bench", description="Search the built-in bench positions to a fixed depth.")
    p.bounded("depth", low=1, high=MAX_SEARCH_DEPTH, nargs="?", default=DEFAULT_DEPTH,
              help=f"search depth (default {DEFAULT_DEPTH})")
    p.bounded("threads", low=1, high=MAX_THREADS, nargs="?", default=1,
              help="search threads (default 1; the node count is the signature with one "
                   "thread only)")
    p.add_argument("--classical", action="store_true",
                   help="search with the classical evaluation instead of the network")
    p.add_argument("--syzygy-path", metavar="DIRS",
                   help="probe the Syzygy tables of these folders (separated by "
                        f"{os.pathsep!r}) as SyzygyPath does; the node count then differs "
                        "from the signature")
    args = p.parse_args(argv)
    from ...engine.search import PACKAGED
    network = None if args.classical else PACKAGED
    tablebase = p.tablebase(args.syzygy_path)
    run_bench(args.depth, out=lambda line: print(line, flush=True), threads=args.threads,
              network=network, tablebase=tablebase)
    return EXIT_OK


def solve(argv) -> int:
    from ...engine.mate import MAX_MATE_MOVES, mating_moves

    p = Parser(prog="scacco solve",
               description="Print every first move that forces mate within N moves (exact: no "
                           "pruning can hide a mate, and every other move is proven not to "
                           "mate within N).")
    p.add_position("the puzzle position")
    p.bounded("--mate", low=1, high=MAX_MATE_MOVES, required=True, metavar="N",
              help=f"mate in at most N moves (1..{MAX_MATE_MOVES})")
    args = p.parse_args(argv)
    board = p.position(args)
    for move, moves_to_mate in mating_moves(board, args.mate):
        print(f"{move} mate in {moves_to_mate}", flush=True)
    return EXIT_OK


def hint(argv) -> int:
    from ...engine.trainer.hints import HINT_NODES, game_hint
    from ..options import MAX_ELO, MIN_ELO

    p = Parser(prog="scacco hint",
               description="A good move for the side to move (first line, SAN, for an arrow) "
                           "and one sentence on why: the threat it makes or meets. A forced "
                           "mate is always the hint.")
    p.add_position("the position")
    p.bounded("--level", low=MIN_ELO, high=MAX_ELO, metavar="ELO",
              help=f"the move a player of this rating can find ({MIN_ELO}..{MAX_ELO}: that "
                   f"level's search budget)")
    p.bounded("--nodes", low=1, high=MAX_NODES, default=HINT_NODES, metavar="N",
              help=f"search budget without --level (default {HINT_NODES}: well under a second)")
    p.add_syzygy_path("in a position these Syzygy tables hold, hint a move that keeps the best "
                      "result")
    args = p.parse_args(argv)
    board = p.position(args)
    tablebase = p.tablebase(args.syzygy_path)
    if not board.has_legal_moves():
        p.error("no hint: the game is over (" + ("checkmate" if board.is_check() else "stalemate") + ")")
    advice = game_hint(board, elo=args.level, nodes=args.nodes, tablebase=tablebase)
    print(advice.san)
    print(advice.why, flush=True)
    return EXIT_OK
