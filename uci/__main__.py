"""Entry point of the `scacco` console script and of `python -m scacco`.

With no arguments Scacco speaks UCI on stdin/stdout; otherwise the first argument names a
subcommand (COMMANDS below, listed by `scacco --help`).

Imports are kept lazy: a GUI expects the reply to `uci` within a fraction of a second.
"""
import os
import sys

from .._version import __version__
from .puzzle_commands import hint_command, puzzle_command, puzzles_command


def perft_command(argv):
    import argparse
    import time

    from ..engine.board import STARTING_FEN, Board

    parser = argparse.ArgumentParser(prog="scacco perft",
                                     description="Count the leaf nodes of the legal move tree.")
    parser.add_argument("depth", type=int, help="depth in plies (0..100)")
    parser.add_argument("--fen", default=STARTING_FEN, help="start position (default: the initial position)")
    parser.add_argument("--chess960", action="store_true", help="read the FEN as Chess960 (Shredder-FEN or X-FEN)")
    parser.add_argument("--divide", action="store_true", help="print the count below each root move")
    args = parser.parse_args(argv)
    if not 0 <= args.depth <= 100:
        parser.error("depth must be between 0 and 100")
    try:
        board = Board(args.fen, chess960=args.chess960)
    except ValueError as error:
        parser.error(f"bad FEN: {error}")
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
    return 0


def bench_command(argv):
    import argparse

    from ..engine.bench import DEFAULT_DEPTH, run_bench

    parser = argparse.ArgumentParser(prog="scacco bench",
                                     description="Search the built-in bench positions to a fixed depth.")
    parser.add_argument("depth", type=int, nargs="?", default=DEFAULT_DEPTH,
                        help=f"search depth (default {DEFAULT_DEPTH})")
    parser.add_argument("threads", type=int, nargs="?", default=1,
                        help="search threads (default 1; the node count is the signature "
                             "with one thread only)")
    parser.add_argument("--classical", action="store_true",
                        help="search with the classical evaluation instead of the network")
    args = parser.parse_args(argv)
    if not 1 <= args.depth <= 64:
        parser.error("depth must be between 1 and 64")
    from ..engine.search import MAX_THREADS, PACKAGED
    if not 1 <= args.threads <= MAX_THREADS:
        parser.error(f"threads must be between 1 and {MAX_THREADS}")
    network = None if args.classical else PACKAGED
    run_bench(args.depth, out=lambda line: print(line, flush=True), threads=args.threads,
              network=network)
    return 0


def solve_command(argv):
    import argparse

    from ..engine.board import Board
    from ..engine.puzzles import mating_moves

    parser = argparse.ArgumentParser(
        prog="scacco solve",
        description="Print every first move that forces mate within N moves (exact: no pruning "
                    "can hide a mate, and every other move is proven not to mate within N).")
    parser.add_argument("--fen", required=True, help="the puzzle position")
    parser.add_argument("--mate", type=int, required=True, metavar="N", help="mate in at most N moves (N >= 1)")
    parser.add_argument("--chess960", action="store_true", help="read the FEN as Chess960")
    args = parser.parse_args(argv)
    if args.mate < 1:
        parser.error("--mate must be at least 1")
    if args.mate > 30:
        parser.error("--mate must be at most 30")
    try:
        board = Board(args.fen, chess960=args.chess960)
    except ValueError as error:
        parser.error(f"bad FEN: {error}")
    for move, moves_to_mate in mating_moves(board, args.mate):
        print(f"{move} mate in {moves_to_mate}", flush=True)
    return 0


def analyse_command(argv):
    import argparse

    from ..engine.analysis import DEFAULT_NODES, DEFAULT_REVIEW, REVIEW_DROP, Budget
    from ..engine.analyse_command import analyse_file
    from ..engine.batch import default_jobs

    parser = argparse.ArgumentParser(
        prog="scacco analyse",
        description="Search every position of each game's main line and judge every move as "
                    "lichess does (Win%, accuracy, inaccuracies, mistakes, blunders); a report "
                    "per game on stdout, progress on stderr.")
    parser.add_argument("pgn", metavar="GAMES.pgn", help="the games to analyse")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, metavar="N",
                       help=f"nodes per position (default {DEFAULT_NODES}; results do not depend on the machine)")
    limit.add_argument("--depth", type=int, metavar="D", help="depth per position instead")
    limit.add_argument("--movetime", type=int, metavar="MS", help="milliseconds per position instead")
    parser.add_argument("--hash", type=int, default=16, metavar="MB", help="hash per game (default 16)")
    parser.add_argument("--review", type=int, default=DEFAULT_REVIEW, metavar="F",
                        help=f"search the positions around a move that loses %.2f winning chances or more "
                             f"again at F times the budget, and those still near the mistake or blunder "
                             f"line at F*F times (default {DEFAULT_REVIEW}; 1: no second look)" % REVIEW_DROP)
    parser.add_argument("--out", metavar="ANNOTATED.pgn", help="write the games with evaluations, NAGs and best lines")
    parser.add_argument("--json", metavar="REPORT.json", help="write every move's and game's figures as JSON")
    parser.add_argument("--graph", metavar="EVAL.png", help="draw Win%% per ply (needs the plot extra); EVAL-N.png per game for several")
    parser.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: every core)")
    parser.add_argument("--ray", metavar="ADDRESS", help="send the games to the Ray cluster at ADDRESS (needs the ray extra)")
    args = parser.parse_args(argv)
    for name in ("nodes", "depth", "movetime", "jobs", "review"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name} must be at least 1")
    if not 1 <= args.hash <= 65536:
        parser.error("--hash must be in 1..65536")
    if not os.path.isfile(args.pgn):
        parser.error(f"no such file: {args.pgn}")
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error("--ray needs Ray: pip install 'scacco[ray]'")
    if args.review > 16:
        parser.error("--review must be in 1..16")
    budget = Budget(nodes=args.nodes, depth=args.depth, movetime=args.movetime, hash_mb=args.hash,
                    review=args.review)
    return analyse_file(args.pgn, budget, out=args.out, json_out=args.json, graph=args.graph,
                        jobs=args.jobs or default_jobs(), ray_address=args.ray)


def default_openings():
    """The shared openings: $SCACCO_SHARED/data, else ../shared/data beside the working folder."""
    shared = os.environ.get("SCACCO_SHARED") or os.path.join("..", "shared")
    return os.path.join(shared, "data", "chessathome_openings.fen")


def datagen_command(argv):
    import argparse

    from ..engine.batch import default_jobs
    from ..engine.datagen import (DEFAULT_CHESS960_SHARE, DEFAULT_NODES, DEFAULT_RANDOM_PLIES,
                                  DatagenError, generate)

    parser = argparse.ArgumentParser(
        prog="scacco datagen",
        description="Self-play training positions for the neural evaluation: quiet positions "
                    "with the search score and the game result, appended to a binary file "
                    "(layout in engine/datagen.py).  Started again with the same arguments, "
                    "it goes on where it stopped.  Progress on stderr.")
    parser.add_argument("--out", required=True, metavar="FILE", help="the data file (created, or resumed)")
    parser.add_argument("--games", type=int, required=True, metavar="N", help="the file is to hold games 0..N-1")
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, metavar="N",
                        help=f"nodes per move (default {DEFAULT_NODES})")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the starts and random plies (default 0)")
    parser.add_argument("--random-plies", type=int, default=DEFAULT_RANDOM_PLIES, metavar="K",
                        help=f"random legal moves after the opening (default {DEFAULT_RANDOM_PLIES})")
    parser.add_argument("--chess960-share", type=float, default=DEFAULT_CHESS960_SHARE, metavar="F",
                        help=f"share of games from a Chess960 start (default {DEFAULT_CHESS960_SHARE})")
    parser.add_argument("--openings", metavar="FILE", default=None,
                        help="one FEN a line (default: the shared chessathome_openings.fen)")
    parser.add_argument("--jobs", type=int, default=None, metavar="J", help="worker processes (default: every core)")
    parser.add_argument("--ray", metavar="ADDRESS", help="play the games on the Ray cluster at ADDRESS (needs the ray extra)")
    parser.add_argument("--net", metavar="NET.nnue",
                        help="play with this network (the neural evaluation) instead of the "
                             "classical evaluation; the file is checked first, and a data file "
                             "is only resumed with the same network")
    args = parser.parse_args(argv)
    if args.games < 0:
        parser.error("--games must be at least 0")
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error("--ray needs Ray: pip install 'scacco[ray]'")
    try:
        summary = generate(args.out, args.games, nodes=args.nodes, seed=args.seed,
                           random_plies=args.random_plies, chess960_share=args.chess960_share,
                           openings=args.openings or default_openings(),
                           jobs=args.jobs or default_jobs(), ray_address=args.ray,
                           network=args.net)
    except DatagenError as error:
        parser.error(str(error))
    seconds = summary["seconds"]
    rate = summary["positions"] / seconds if seconds > 0 else 0.0
    print(f"games played: {summary['games']}, positions written: {summary['positions']}, "
          f"{rate:.0f} positions/s; {args.out} holds games 0..{summary['next_game'] - 1}",
          file=sys.stderr)
    return 0


def train_command(argv):
    from ..engine.nnue_train import main as train_main
    return train_main(argv, prog="scacco train")


# name -> (function, one line for --help)
COMMANDS = {
    "perft": (perft_command, "count the leaf nodes of the legal move tree (move generator check)"),
    "bench": (bench_command, "search the built-in bench positions; prints the node signature and speed"),
    "analyse": (analyse_command, "judge every move of PGN games as lichess does: accuracy, mistakes, annotated PGN, JSON, graph"),
    "solve": (solve_command, "print every first move that forces mate within N moves (exact proof)"),
    "datagen": (datagen_command, "self-play training positions (score and result) for the neural evaluation, resumable"),
    "train": (train_command, "train a network for the neural evaluation on datagen files (needs the train extra: PyTorch)"),
    "hint": (hint_command, "a good move for a position (SAN on the first line) and one sentence on why"),
    "puzzles": (puzzles_command, "find puzzles in PGN games: a CSV in the lichess puzzle database's format"),
    "puzzle": (puzzle_command, "the puzzle of the day (--date YYYY-MM-DD) with its themes and hints"),
}


def usage() -> str:
    """The text of `scacco --help`: what the program is and one line per subcommand."""
    width = max(len(name) for name in COMMANDS)
    lines = [f"Scacco {__version__}: a UCI chess engine.",
             "",
             "usage: scacco [--version | --help | COMMAND [ARGS...]]",
             "",
             "With no command, speaks UCI on standard input and output (load it in a chess GUI).",
             "",
             "commands:"]
    lines += [f"  {name.ljust(width)}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "`scacco COMMAND --help` describes a command's arguments."]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        from .loop import run
        return run()
    if argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if argv[0] in ("-V", "--version"):
        print(f"scacco {__version__}")
        return 0
    entry = COMMANDS.get(argv[0])
    if entry is None:
        print(f"scacco: unknown command {argv[0]!r}; try one of: {', '.join(COMMANDS)} "
              f"(or no argument for UCI; scacco --help lists them)", file=sys.stderr)
        return 2
    return entry[0](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
