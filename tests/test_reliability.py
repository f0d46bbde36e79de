"""The reproductions of the reliability review (every limit and stop obeyed, no impossible
score, no state shared between searches), each as a test.

No test here times anything: an answer that does not come is caught by the timeout of the
wait for it (HANG_TIMEOUT of tests/uci_client.py unless said), generous for a shared machine,
so a late answer on a loaded machine passes and only a hang (or a limit ignored for many
times its length) fails.
"""
import random
import threading
import time

import chess
import pytest

from scacco.engine.board import Board
from scacco.engine.levels import level_for_elo, play_weakened
from scacco.engine.trainer.puzzles import MAX_MATE_MOVES
from scacco.engine.search import Searcher, StopToken
from scacco.ext._core import MateSearch
from uci_client import HANG_TIMEOUT, UciProcess

KPK = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"


def legal(fen: str, move: str) -> bool:
    return chess.Move.from_uci(move) in chess.Board(fen).legal_moves


# -- 1. go mate obeys movetime and stop ------------------------------------------------------

@pytest.mark.parametrize("fen,mate", [(KPK, 22), (chess.STARTING_FEN, 12)])
def test_go_mate_obeys_movetime(engine, fen, mate):
    # A proof that ignored the clock ran to its end: 12 s for KPK's mate in 22, and from the
    # start position a proof of mate in 12 would never end (the wait's timeout catches that).
    engine.send(f"position fen {fen}")
    lines = engine.bestmove(f"go movetime 1000 mate {mate}")
    assert legal(fen, lines[-1].split()[1])


@pytest.mark.parametrize("delay_ms", [0, 1, 2, 3, 4, 6, 10, 50])
def test_a_stop_right_after_go_mate_is_never_lost(engine, delay_ms):
    engine.send(f"position fen {KPK}")
    engine.send("go mate 22")
    time.sleep(delay_ms / 1000)
    engine.send("stop")
    lines = engine.read_until(lambda line: line.startswith("bestmove"))    # a lost stop hangs
    assert legal(KPK, lines[-1].split()[1])
    assert not [line for line in lines if "search failed" in line]


# -- 2. any mate the parser accepts -----------------------------------------------------------

@pytest.mark.parametrize("fen", ["8/8/8/8/8/8/8/K6k w - - 0 1", KPK])
def test_go_mate_beyond_the_solver_range_searches(engine, fen):
    engine.send(f"position fen {fen}")
    engine.send(f"go mate {MAX_MATE_MOVES + 140}")
    time.sleep(0.3)
    engine.send("stop")
    lines = engine.read_until(lambda line: line.startswith("bestmove"), 10)
    assert not [line for line in lines if "search failed" in line or "internal error" in line]
    assert legal(fen, lines[-1].split()[1])
    assert [line for line in lines if line.startswith("info depth")], lines


def test_go_mate_reports_its_nodes(engine):
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"      # Ra8#: mate in 1 (python-chess)
    board = chess.Board(fen)
    board.push_uci("a1a8")
    assert board.is_checkmate()
    engine.send(f"position fen {fen}")
    lines = engine.bestmove("go mate 3")
    info = [line.split() for line in lines if " score mate " in line][-1]
    assert int(info[info.index("nodes") + 1]) > 0
    assert lines[-1].split()[1] == "a1a8"


# -- 3. the reader never blocks ---------------------------------------------------------------

@pytest.mark.parametrize("work", ["go perft 9", "bench 30"])
def test_stop_ends_perft_and_bench_and_the_engine_keeps_answering(engine, work):
    engine.send(work)
    time.sleep(0.2)
    # during the work (minutes long): answered while it runs, not after it
    engine.send("isready")
    engine.read_until(lambda line: line == "readyok")
    engine.send("stop")
    engine.send("ucinewgame")
    engine.send("isready")
    engine.read_until(lambda line: line == "readyok")
    lines = engine.bestmove("go depth 1")
    assert legal(chess.STARTING_FEN, lines[-1].split()[1])


def test_a_search_out_is_not_forgotten_behind_queued_work():
    # The first isready of a session queues the loading of the searcher behind a running
    # search: a go after it must still be refused (one search at a time, one bestmove per
    # go), and a ponderhit must still reach the ponder search.
    with UciProcess() as process:
        process.ask("uci", "uciok")
        process.send("position startpos")
        process.send("go infinite")
        process.send("isready")
        process.send("go depth 1")
        lines = process.sync()              # up to the first isready's answer
        lines += process.sync()             # and what the go depth 1 brought
        assert "info string go ignored: a search is running (send stop first)" in lines
        assert not [line for line in lines if line.startswith("bestmove")]
        process.send("stop")
        process.read_until(lambda line: line.startswith("bestmove"), 10)
        lines = process.sync()
        assert not [line for line in lines if line.startswith("bestmove")]
    with UciProcess() as process:
        process.ask("uci", "uciok")
        process.send("position startpos")
        process.send("go ponder wtime 2000 btime 2000")
        process.send("isready")
        process.send("ponderhit")
        lines = process.read_until(lambda line: line.startswith("bestmove"), 10)
        assert legal(chess.STARTING_FEN, lines[-1].split()[1])


@pytest.mark.parametrize("work", ["go perft 9", "bench 30", "go infinite"])
def test_quit_exits_during_long_work(work):
    with UciProcess() as process:
        process.ask("uci", "uciok")
        process.send(work)
        time.sleep(0.3)
        process.send("quit")
        assert process.proc.wait(HANG_TIMEOUT) == 0       # the work would run for minutes


# -- 4. scores: mates that fit, wins that do not, never an internal value ---------------------

@pytest.mark.parametrize("fen,depth", [("8/4k3/8/8/8/3K4/8/2R5 w - - 75 1", 20),
                                       ("8/1k6/8/8/8/8/Q7/1K6 w - - 80 1", 14)])
def test_no_impossible_score(fen, depth):
    # Stockfish 15.1 (depth 30): mate 13 and mate 8.  Either a mate that fits before the
    # fifty-move rule, or an ordinary winning score.
    searcher = Searcher(16)
    searcher.search(Board(fen.replace(" 75 ", " 0 ").replace(" 80 ", " 0 ")), depth=16)
    clock = int(fen.split()[4])
    result = searcher.search(Board(fen), depth=depth)
    if result.score_mate is not None:
        assert result.score_mate > 0 and clock + 2 * result.score_mate - 1 <= 100
    else:
        assert 0 < result.score_cp < 10000
    for info in result.lines:
        assert info.score_cp is None or abs(info.score_cp) < 10000


# -- 5. nothing shared between searchers ------------------------------------------------------

PARALLEL_FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
]


def trace_of(fen: str, depth: int = 9):
    trace = []
    result = Searcher(8).search(Board(fen), depth=depth,
                                on_info=lambda info: trace.append((info.depth, info.nodes,
                                                                   info.score, tuple(info.pv))))
    return result.best_move, result.nodes, trace


@pytest.mark.single_thread
def test_four_searches_in_threads_equal_serial_runs():
    serial = [trace_of(fen) for fen in PARALLEL_FENS]
    for _ in range(2):
        results = [None] * len(PARALLEL_FENS)

        def run(i):
            results[i] = trace_of(PARALLEL_FENS[i])
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(PARALLEL_FENS))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert results == serial


def test_eval_command_during_a_search_changes_nothing(engine):
    fen = PARALLEL_FENS[1]
    engine.send(f"position fen {fen}")
    quiet = engine.bestmove("go depth 9")
    engine.send("ucinewgame")
    engine.sync()
    engine.send(f"position fen {fen}")
    engine.send("go depth 9")
    for _ in range(20):
        engine.send("eval")
    busy = engine.read_until(lambda line: line.startswith("bestmove"), 30)

    def final(lines):
        return [line.split(" nps ")[0] for line in lines if line.startswith("info depth 9 ")]
    assert final(busy) == final(quiet) and final(quiet)


def test_evaluation_weights_are_read_only():
    from scacco.ext._core import TUNING_BUILD, get_eval_parameter, set_eval_parameter
    if TUNING_BUILD:
        pytest.skip("a tuning build has writable weights")
    values = get_eval_parameter("TEMPO")
    with pytest.raises(RuntimeError):
        set_eval_parameter("TEMPO", [v + 1 for v in values])
    assert get_eval_parameter("TEMPO") == values


# -- 6. smaller ones --------------------------------------------------------------------------

def test_a_level_reports_the_line_it_plays(engine):
    engine.send("setoption name UCI_LimitStrength value true")
    engine.send("setoption name UCI_Elo value 600")
    for seed_ply in ("", " moves e2e4", " moves d2d4 d7d5"):
        engine.send(f"position startpos{seed_ply}")
        lines = engine.bestmove("go movetime 200")
        best = lines[-1].split()[1]
        pvs = [line.split(" pv ")[1].split() for line in lines
               if line.startswith("info depth") and " pv " in line]
        assert pvs and all(pv[0] == best for pv in pvs), (best, pvs)


def test_a_level_plays_within_its_margin_of_the_same_search():
    searcher = Searcher()
    rng = random.Random(11)
    board = Board()
    for ply in range(16):
        level = level_for_elo((600, 1200, 2100)[ply % 3])
        seen = []
        result = play_weakened(searcher, board, level, rng=rng, on_candidates=seen.extend)
        assert seen
        best = max(info.score for info in seen)
        assert result.best_move in [info.pv[0] for info in seen]
        assert best - result.score <= level.margin
        board.push_uci(result.best_move)


@pytest.mark.parametrize("clock", [0, 148, 149])
def test_mate_table_does_not_carry_a_draw_rule_over_to_another_history(clock):
    # Rook mate in 2 from a fresh clock; at clock 149 the seventy-five-move rule ends every
    # line before the mating move (python-chess says which).  One solver, both histories, in
    # both orders: the remembered results must not leak from one to the other.
    from tests.oracles import can_mate
    fresh = "6k1/8/7K/8/8/8/8/3R4 w - - 0 100"
    other = f"6k1/8/7K/8/8/8/8/3R4 w - - {clock} 100"
    expected = {fen: can_mate(chess.Board(fen), 3) for fen in (fresh, other)}
    for order in ((other, fresh), (fresh, other)):
        solver = MateSearch()
        answers = {}
        for fen in order:
            solver.set_position(Board(fen))
            solver.reset(0)
            answers[fen] = solver.side_to_move_mates(3)
        assert answers == expected, order


def test_stop_token_is_never_cleared():
    token = StopToken()
    token.stop()
    searcher = Searcher(1)
    result = searcher.search(Board(), depth=30, stop=token)
    assert legal(chess.STARTING_FEN, result.best_move)
    assert token.stopped
    solver = MateSearch()
    solver.set_position(Board(KPK))
    solver.reset(0, token)
    assert solver.side_to_move_mates(10) is None
