"""Peak memory of the analysis of very long games.

    python bench/analysis_memory.py [--plies 2000 6000] [--nodes 200] [--full-copies]

Each game is analysed in a fresh process (so each peak is its own): knights to and fro, with
a pawn move or capture for each side every 400 plies (the halfmove clock runs past the
history cap between them), at a small node budget with the second looks.  Printed per game:
the resident memory after the imports, the peak (ru_maxrss) and the difference.  With
--full-copies the positions are kept as tests/full_history.py's reference keeps them, a copy
of the board with the whole game's history each, for comparison.  Figures are printed, never asserted.
"""
import argparse
import io
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def long_game_text(plies: int, seed: int = 1) -> str:
    """A legal game of exactly `plies` plies (python-chess plays it): knights to and fro, and
    every 400 plies a random pawn move for each side (a capture when there is one)."""
    import chess
    rng = random.Random(seed)
    board = chess.Board()
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    step = 0
    while board.ply() < plies:
        if board.ply() % 400 == 0 and step % 4 == 0:
            for _ in range(2):
                pawns = [m for m in board.legal_moves
                         if board.piece_type_at(m.from_square) == chess.PAWN
                         and chess.square_name(m.to_square) not in ("f3", "f6")]
                captures = [m for m in pawns if board.is_capture(m)]
                board.push(rng.choice(captures or pawns))
            continue
        try:
            board.push_san(shuffle[step % 4])
        except ValueError:
            board.push(rng.choice(list(board.legal_moves)))
        step += 1
    replay = chess.Board()
    sans = []
    for move in board.move_stack:
        sans.append(replay.san(move))
        replay.push(move)
    return " ".join(sans) + " *"


def rss_kb() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child(plies: int, nodes: int, full_copies: bool) -> None:
    from scacco.engine.review import analysis
    from scacco.engine.review.analysis import Budget, analyse_game
    from scacco.engine.pgn import read_game

    game = read_game(io.StringIO(long_game_text(plies)))
    assert not game.errors and len(game.moves) == plies, game.errors[:1]
    if full_copies:
        from tests.full_history import full_history_walk
        analysis._walk = full_history_walk
    base = rss_kb()
    start = time.perf_counter()
    result = analyse_game(game, Budget(nodes=nodes))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{plies:6d} plies  {base / 1024:7.1f} MB after imports  peak {peak / 1024:7.1f} MB  "
          f"(+{(peak - base) / 1024:.1f} MB)  {result.nodes} nodes, {result.reviewed} looked at "
          f"again, {seconds:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, nargs="+", default=[2000, 6000])
    parser.add_argument("--nodes", type=int, default=200, help="nodes per position (default 200)")
    parser.add_argument("--full-copies", action="store_true",
                        help="keep a full board copy per position (the former storage)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.nodes, args.full_copies)
        return
    print(f"analysis at {args.nodes} nodes per position, positions kept "
          f"{'as full board copies' if args.full_copies else 'with a bounded history'}")
    for plies in args.plies:
        command = [sys.executable, __file__, "--child", str(plies), "--nodes", str(args.nodes)]
        if args.full_copies:
            command.append("--full-copies")
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
