"""`scacco bench`: a fixed set of positions searched to a fixed depth with a fresh table.

The total node count is deterministic for a build with one thread: it is the bench signature
that commit messages of functional changes quote as `Bench: N`.  With more threads the count
varies from run to run (the threads race for the table) and only the speed means something.
"""
from __future__ import annotations

import time
from typing import Callable, Optional

from .board import Board
from .search import PACKAGED, Searcher, StopToken

DEFAULT_DEPTH = 13

# The classic perft positions, Bratko-Kopec and Win At Chess positions, opening positions
# from match books, and endgames.
BENCH_FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1",
    "r2q3k/p2P3p/1p3p2/3QP1r1/8/B7/P5PP/2R3K1 w - - 0 1",
    "r4rk1/p1B1bpp1/1p2pn1p/8/2PP4/3B1P2/qP2QP1P/3R1RK1 w - - 0 1",
    "3r1rk1/q4ppp/p1Rnp3/8/1p6/1N3P2/PP3QPP/3R2K1 b - - 0 1",
    "r1b2rk1/2p2ppp/p7/1p6/3P3q/1BP3bP/PP3QP1/RNB1R1K1 w - - 0 1",
    "2r1Rn1k/1p1q2pp/p7/5p2/3P4/1B4P1/P1P1QP1P/6K1 w - - 0 1",
    "r4rk1/1bq1bp1p/4p1p1/p2p4/3BnP2/1N1B3R/PPP3PP/R2Q2K1 w - - 0 1",
    "2r1k2r/2pn1pp1/1p3n1p/p3PP2/4q2B/P1P5/2Q1N1PP/R4RK1 w k - 0 1",
    "r1b1r1k1/pp1nqpp1/2pbpn1p/3p4/2PP4/P1N1PN2/1PQ1BPPP/R1BR2K1 w - - 0 1",
    "rnb1kb1r/2q2ppp/pn1pp3/1p4P1/3NP3/P1N1B3/1PP1BP1P/R2QK2R w KQkq - 0 1",
    "r1b1kb1r/3n1ppp/pqn1p3/2ppP3/1p1P1P2/4BN2/PPPQB1PP/R2NK2R w KQkq - 0 1",
    "r1bq1rk1/pp1nppb1/2p3p1/3n3p/2BP2N1/2P5/PP3PPP/RNBQR1K1 w - - 0 1",
    "r1b1kb1r/1pq1pppp/p2p1n2/4n3/2B1P3/1NN1B3/PPP2PPP/R2QK2R w KQkq - 0 1",
    "r2qkb1r/1p3ppp/p3bn2/2pp4/1n1P4/2N1PN2/PPQ1BPPP/R1BR2K1 w kq - 0 1",
    "r2q1rk1/pp1nbppp/2p2n2/3p4/3P1B2/2NQPN2/PP3PPP/R4RK1 w - - 0 1",
    "r2qk2r/pp1nbppp/2p5/3np2b/8/P2P1NPP/1PPN1PB1/R1BQ1RK1 w kq - 0 1",
    "1n4k1/8/r7/8/1q4n1/8/2K5/r7 b - - 5 57",
    "2k5/6R1/7B/8/N7/N7/7K/8 w - - 1 45",
    "8/1nP5/6R1/7p/2k2K1P/8/8/n7 w - - 3 58",
    "8/8/4R3/8/7p/7k/2KB4/8 w - - 0 55",
    "5k2/8/1R6/2p5/p2N3B/P2KB3/8/7r b - - 0 43",
    "8/2k5/8/8/8/8/3B1p2/K4b2 b - - 3 59",
    "5N1k/r7/8/8/8/7K/8/8 b - - 3 49",
    "8/8/8/3k4/8/8/3KP3/8 w - - 0 1",
    "8/5pk1/6p1/8/2r5/6P1/5PK1/3R4 w - - 0 1",
]


def run_bench(depth: Optional[int] = None, out: Callable[[str], None] = print,
              hash_mb: int = 16, stop: Optional[StopToken] = None, threads: int = 1,
              network=PACKAGED, tablebase=None) -> int:
    """Search every bench position in turn to `depth` with `threads` threads, starting from
    a fresh table, evaluating with `network` (as Searcher takes it: the packaged network by
    default, None for the classical evaluation) and probing `tablebase` (an
    engine.tablebase.Tablebase, default settings) when given; print the Stockfish-style
    summary and return the total node count (the bench signature, with one thread, the
    default evaluation and no tablebases)."""
    depth = DEFAULT_DEPTH if depth is None else depth
    if not 1 <= depth <= 64:
        raise ValueError(f"bench depth must be in 1..64, not {depth}")
    searcher = Searcher(hash_mb, threads=threads, network=network)
    if tablebase is not None:
        searcher.set_tablebase(tablebase)
    total_nodes = 0
    start = time.perf_counter()
    for number, fen in enumerate(BENCH_FENS, 1):
        board = Board(fen)
        result = searcher.search(board, depth=depth, stop=stop)
        if stop is not None and stop.stopped:
            out(f"info string bench stopped during position {number} of {len(BENCH_FENS)}")
            return total_nodes
        total_nodes += result.nodes
        out(f"Position {number}/{len(BENCH_FENS)}: {fen}  bestmove {result.best_move}  nodes {result.nodes}")
    elapsed_ms = max(1, int((time.perf_counter() - start) * 1000))
    out("")
    out("===========================")
    out(f"Threads         : {threads}")
    out(f"Evaluation      : {'classical' if searcher.network is None else 'NNUE'}")
    if tablebase is not None:
        out(f"Tablebases      : {tablebase.tables} (up to {tablebase.max_pieces} pieces)")
    out(f"Total time (ms) : {elapsed_ms}")
    out(f"Nodes searched  : {total_nodes}")
    out(f"Nodes/second    : {total_nodes * 1000 // elapsed_ms}")
    return total_nodes
