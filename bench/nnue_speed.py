"""Search speed with the neural evaluation against the classical one, side by side.

    python bench/nnue_speed.py [--net FILE | --hidden 128] [--nodes 200000] [--rounds 3]

Every bench position (engine/signature.py) is searched to a node budget with a fresh table by
one searcher with the classical evaluation and one with the network, the two taking turns
position by position so that a change in the machine's load hits both alike; each round's nps
is the total nodes over the total time, and the best round of each is printed with their ratio.
Without --net the packaged network is used, or, when there is none, a network of random
weights of --hidden units (the speed does not depend on the weights).
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scacco.engine.signature import BENCH_FENS  # noqa: E402
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.nnue import default_network_path, parse_network, quantise, read_network  # noqa: E402
from scacco.engine.search import Searcher  # noqa: E402


def random_network(hidden: int):
    import numpy as np

    rng = np.random.default_rng(1)
    return parse_network(quantise({"w1": rng.normal(0, 0.05, (768, hidden)),
                                   "b1": np.full(hidden, 0.1), "w2": rng.uniform(-0.1, 0.1, 2 * hidden),
                                   "b2": 0.0}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--net", help="network file (default: the packaged one)")
    parser.add_argument("--hidden", type=int, default=128, help="random network's size without a file")
    parser.add_argument("--nodes", type=int, default=200_000, help="nodes per position")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.net:
        network, name = read_network(args.net), args.net
    elif default_network_path().exists():
        network, name = read_network(default_network_path()), default_network_path().name
    else:
        network, name = random_network(args.hidden), f"random weights, {args.hidden} hidden"
    print(f"network: {name} ({network.hidden} hidden units); {len(BENCH_FENS)} positions x "
          f"{args.nodes} nodes, {args.rounds} rounds")
    best = {"classical": 0.0, "nnue": 0.0}
    for round_number in range(1, args.rounds + 1):
        totals = {"classical": [0, 0.0], "nnue": [0, 0.0]}
        searchers = {"classical": Searcher(16, network=None), "nnue": Searcher(16, network=None)}
        searchers["nnue"].set_network(network)
        for fen in BENCH_FENS:
            for kind, searcher in searchers.items():
                searcher.clear()
                searcher.wait_for_table()
                board = Board(fen)
                start = time.perf_counter()
                result = searcher.search(board, nodes=args.nodes)
                totals[kind][1] += time.perf_counter() - start
                totals[kind][0] += result.nodes
        line = []
        for kind, (nodes, seconds) in totals.items():
            nps = nodes / seconds
            best[kind] = max(best[kind], nps)
            line.append(f"{kind} {nps:,.0f} nps")
        print(f"round {round_number}: " + ", ".join(line))
    print(f"best: classical {best['classical']:,.0f} nps, NNUE {best['nnue']:,.0f} nps, "
          f"ratio NNUE/classical {best['nnue'] / best['classical']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
