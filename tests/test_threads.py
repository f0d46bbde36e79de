"""Threads (Lazy SMP): helpers beside the main search, one shared table, one stop for all.

The rest of the search tests run with several threads too when SCACCO_TEST_THREADS is set
(see conftest.py); these check what only a parallel search has.  References are python-chess
(legality, mates) and the single-threaded search itself (Threads=1 must stay that search).
"""
import threading

import chess
import pytest

from scacco.engine import levels
from scacco.engine.signature import BENCH_FENS
from scacco.engine.board import Board
from scacco.engine.search import MAX_THREADS, Searcher, StopToken, default_network
from tests.conftest import TEST_THREADS, set_parameter_default, shared_file
from tests.oracles import forces_mate


def assert_legal_line(fen, pv):
    board = chess.Board(fen)
    for text in pv:
        move = chess.Move.from_uci(text)
        assert move in board.legal_moves, f"{fen}: illegal {text} in {pv}"
        board.push(move)


def test_the_test_threads_mode_took():
    # Under SCACCO_TEST_THREADS=N a searcher made without a count has N threads and every other
    # default as before (the table size, the packaged network); without it, one thread.
    searcher = Searcher()
    assert searcher.threads == TEST_THREADS
    assert searcher.hash_mb == 16 and searcher.network is default_network()
    result = searcher.search(Board(BENCH_FENS[1]), depth=6)
    assert chess.Move.from_uci(result.best_move) in chess.Board(BENCH_FENS[1]).legal_moves
    assert Searcher(16, threads=2).threads == 2          # a count asked for is kept


def test_a_default_is_set_by_the_parameter_name():
    marker = object()

    def made(hash_mb=16, threads=1, network=marker, *, name="x", depth=3):
        return hash_mb, threads, network, name, depth

    set_parameter_default(made, "threads", 4)
    set_parameter_default(made, "depth", 9)
    assert made() == (16, 4, marker, "x", 9)
    assert made(8, network=None) == (8, 4, None, "x", 9)
    with pytest.raises(TypeError):
        set_parameter_default(made, "hash", 1)


@pytest.mark.parametrize("count", [0, -1, MAX_THREADS + 1, 2.0, "2", True, None])
def test_a_bad_thread_count_is_refused_and_changes_nothing(count):
    with pytest.raises(ValueError):
        Searcher(16, threads=count)
    searcher = Searcher(16, threads=3)
    with pytest.raises(ValueError):
        searcher.set_threads(count)
    assert searcher.threads == 3


def test_the_thread_count_can_change_between_searches():
    searcher = Searcher(16, threads=1)
    for count in (1, 4, 2, 8, 1, 3):
        searcher.set_threads(count)
        assert searcher.threads == count
        result = searcher.search(Board(BENCH_FENS[1]), depth=6)
        assert chess.Move.from_uci(result.best_move) in chess.Board(BENCH_FENS[1]).legal_moves


def test_one_thread_is_the_single_threaded_search():
    # Helpers made and freed again leave nothing behind: the same tree as a searcher that
    # never had any.
    plain = Searcher(16, threads=1)
    shrunk = Searcher(16, threads=4)
    shrunk.set_threads(1)
    for fen in BENCH_FENS[:6]:
        a = plain.search(Board(fen), depth=9)
        b = shrunk.search(Board(fen), depth=9)
        assert (a.best_move, a.nodes, a.score, a.pv) == (b.best_move, b.nodes, b.score, b.pv)


@pytest.mark.parametrize("name, n", [("mate1.fen", 1), ("mate2.fen", 2)])
def test_parallel_search_reports_and_plays_the_shortest_mate(name, n):
    searcher = Searcher(16, threads=4)
    with open(shared_file(name)) as handle:
        fens = [line.strip() for line in handle if line.strip()][:12]
    for fen in fens:
        result = searcher.search(Board(fen), depth=2 * n + 12)
        board = chess.Board(fen)
        move = chess.Move.from_uci(result.best_move)
        assert result.score_mate == n, f"{fen}: mate {result.score_mate} cp {result.score_cp}"
        assert forces_mate(board, move, n), f"{fen}: {result.best_move} does not mate in {n}"
        assert_legal_line(fen, result.pv)


def test_many_threads_on_a_tiny_table_play_legal_moves_with_sound_scores():
    # 1 MB shared by eight threads over the bench positions: the table is overwritten all the
    # time by racing writers; every answer must still be legal, its line legal, its score a
    # real one.
    searcher = Searcher(1, threads=8)
    for fen in BENCH_FENS:
        result = searcher.search(Board(fen), depth=8)
        board = chess.Board(fen)
        assert chess.Move.from_uci(result.best_move) in board.legal_moves
        assert_legal_line(fen, result.pv)
        if result.score_mate is None:
            assert -10000 < result.score_cp < 10000
        else:
            # a mate claimed by any thread is a real one: the line played out ends in mate
            # when it is the winner's (python-chess checks the final position)
            if result.score_mate > 0 and len(result.pv) == 2 * result.score_mate - 1:
                for text in result.pv:
                    board.push_uci(text)
                assert board.is_checkmate()


def test_node_counts_add_up_over_the_threads():
    # A depth-1 search of the start position is the same tree for every thread that completes
    # it (nothing to capture, so no table entry can cut it short): the count reported is the
    # single-threaded count once for the main thread and once more for each helper that
    # completed (Searcher._core.thread_results lists those), plus what the others had begun.
    fen = chess.STARTING_FEN
    single = Searcher(16, threads=1).search(Board(fen), depth=1).nodes
    assert not any(chess.Board(fen).generate_legal_captures())
    helped = 0
    for attempt in range(50):
        searcher = Searcher(16, threads=4)
        result = searcher.search(Board(fen), depth=1)
        completed = len(searcher._core.thread_results())
        assert single * (1 + completed) <= result.nodes <= single * 4, (attempt, completed)
        helped += completed
        if helped >= 3:
            break
    assert helped >= 3            # the helpers did run (50 tries guard a loaded machine)
    # A deeper search: the count grows from line to line, and the helpers run on after the
    # last line until they are stopped.
    infos = []
    result = Searcher(16, threads=4).search(Board(BENCH_FENS[0]), depth=10, on_info=infos.append)
    nodes = [info.nodes for info in infos]
    assert nodes == sorted(nodes) and result.nodes >= nodes[-1]


def test_a_node_limit_gives_the_single_threaded_answer():
    # A node budget asks for a repeatable answer: it is searched on one thread.
    fen = BENCH_FENS[6]
    single = Searcher(16, threads=1).search(Board(fen), nodes=30000)
    parallel = Searcher(16, threads=4).search(Board(fen), nodes=30000)
    assert (single.best_move, single.nodes, single.score) == (parallel.best_move, parallel.nodes,
                                                               parallel.score)


def test_playing_levels_do_not_depend_on_the_threads():
    import random
    fen = BENCH_FENS[8]
    moves = []
    for count in (1, 4):
        searcher = Searcher(16, threads=count)
        result = levels.play(searcher, Board(fen), limit_strength=True, elo=1200,
                             rng=random.Random(5))
        moves.append((result.best_move, result.nodes))
    assert moves[0] == moves[1]


def test_one_stop_ends_every_thread():
    searcher = Searcher(16, threads=8)
    token = StopToken()
    out = {}

    def run():
        out["result"] = searcher.search(Board(BENCH_FENS[2]), infinite=True, stop=token)

    thread = threading.Thread(target=run)
    thread.start()
    threading.Timer(0.3, token.stop).start()
    thread.join(60)          # a hang detector, not a timing: the stop reaches all threads
    assert not thread.is_alive()
    assert chess.Move.from_uci(out["result"].best_move) in chess.Board(BENCH_FENS[2]).legal_moves
    # the searcher is ready for the next search at once, helpers included
    again = searcher.search(Board(BENCH_FENS[3]), depth=5)
    assert chess.Move.from_uci(again.best_move) in chess.Board(BENCH_FENS[3]).legal_moves


def test_a_stop_before_the_search_starts_still_answers_with_threads():
    searcher = Searcher(16, threads=4)
    token = StopToken()
    token.stop()
    result = searcher.search(Board(BENCH_FENS[4]), infinite=True, stop=token)
    assert chess.Move.from_uci(result.best_move) in chess.Board(BENCH_FENS[4]).legal_moves


def test_clear_and_resize_reach_the_helpers():
    searcher = Searcher(16, threads=3)
    searcher.search(Board(BENCH_FENS[5]), depth=8)
    searcher.clear()
    searcher.resize_hash(8)
    result = searcher.search(Board(BENCH_FENS[5]), depth=8)
    assert chess.Move.from_uci(result.best_move) in chess.Board(BENCH_FENS[5]).legal_moves
    assert searcher.hash_mb == 8 and searcher.threads == 3
